"""Evaluation: B3 and pairwise P/R/F1, per-block breakdown, baselines, S2AND loader.

Metrics follow S2AND ``s2and/eval.py``:

* **B3** per mention s: P(s) = |pred(s) & gold(s)| / |pred(s)|, R(s) = |pred(s) & gold(s)| /
  |gold(s)|, averaged over mentions; F1 = harmonic mean of the averages.
* **pairwise**: over all unordered pairs of mentions, a pair is positive when both are in one
  cluster; P/R/F1 of predicted positive pairs against gold positive pairs.

Only mentions present in the gold are scored (S2AND's clusters.json may leave some
signatures unlabelled; they are still clustered and can still influence the others).
"""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Callable, Hashable

from .assignment import MatchConfig
from .cluster import match_all
from .mentions import Mention, coauthor, coauthor_name, normalize_orcid
from .overrides import Overrides


@dataclass
class PRF:
    precision: float
    recall: float
    f1: float

    def __iter__(self):
        return iter((self.precision, self.recall, self.f1))


def _f1(p: float, r: float) -> float:
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def _restrict(pred: dict, gold: dict) -> dict:
    return {m: pred[m] if m in pred else ("__missing__", m) for m in gold}


def b3(pred: dict[str, Hashable], gold: dict[str, Hashable]) -> PRF:
    """B-cubed precision/recall/F1 over the mentions in ``gold``."""
    if not gold:
        return PRF(1.0, 1.0, 1.0)
    pred = _restrict(pred, gold)
    pc: dict = defaultdict(set)
    gc: dict = defaultdict(set)
    for m in gold:
        pc[pred[m]].add(m)
        gc[gold[m]].add(m)
    inter: Counter = Counter((pred[m], gold[m]) for m in gold)
    P = R = 0.0
    for m in gold:
        k = inter[(pred[m], gold[m])]
        P += k / len(pc[pred[m]])
        R += k / len(gc[gold[m]])
    P /= len(gold)
    R /= len(gold)
    return PRF(P, R, _f1(P, R))


def pairwise(pred: dict[str, Hashable], gold: dict[str, Hashable]) -> PRF:
    """Pairwise precision/recall/F1 over all mention pairs in ``gold``."""
    pred = _restrict(pred, gold)
    c2 = lambda n: n * (n - 1) // 2  # noqa: E731
    tp = sum(c2(n) for n in Counter((pred[m], gold[m]) for m in gold).values())
    pp = sum(c2(n) for n in Counter(pred[m] for m in gold).values())
    gp = sum(c2(n) for n in Counter(gold[m] for m in gold).values())
    P = tp / pp if pp else 1.0
    R = tp / gp if gp else 1.0
    return PRF(P, R, _f1(P, R))


@dataclass
class Losses:
    """Where a clustering's B3 shortfall lies (``b3_losses``). Each mention's B3 recall
    shortfall (1 - the share of its person's mentions in its cluster) is charged to its
    person, each precision shortfall to its cluster: ``recall_loss`` sums to N x (1 - R),
    ``precision_loss`` to N x (1 - P). ``splits``: (loss, the person's cluster sizes, name)
    per person; ``merges``: (loss, the cluster's people's sizes, names) per cluster; both
    largest first, losses above zero only. A person's name is the full name (names.Name.key)
    most of their mentions print; a "shared" name is that of another person of the set too."""

    mentions: int
    recall_loss: float
    recall_loss_shared_name: float  # of people whose name another person of the set has
    precision_loss: float
    precision_loss_one_name: float  # of clusters whose mentions all print one full name
    splits: list[tuple[float, list[int], str]]
    merges: list[tuple[float, list[int], list[str]]]


def b3_losses(pred: dict[str, Hashable], gold: dict[str, Hashable], names: dict[str, str]) -> Losses:
    """B3's shortfall of ``pred`` against ``gold``, by person and by cluster (Losses);
    ``names``: mention id -> its full-name key."""
    pred = _restrict(pred, gold)
    by_person: dict = defaultdict(Counter)  # person -> cluster -> mentions
    by_cluster: dict = defaultdict(Counter)  # cluster -> person -> mentions
    printed: dict = defaultdict(Counter)  # person -> full names printed
    cluster_names: dict = defaultdict(set)
    for m in gold:
        by_person[gold[m]][pred[m]] += 1
        by_cluster[pred[m]][gold[m]] += 1
        printed[gold[m]][names[m]] += 1
        cluster_names[pred[m]].add(names[m])
    person_name = {g: c.most_common(1)[0][0] for g, c in printed.items()}
    holders = Counter(person_name.values())

    def loss(parts: Counter) -> float:
        n = sum(parts.values())
        return n - sum(k * k for k in parts.values()) / n

    splits = sorted(((loss(c), sorted(c.values(), reverse=True), person_name[g]) for g, c in by_person.items()
                     if len(c) > 1), key=lambda s: -s[0])
    shared = sum(loss(c) for g, c in by_person.items() if holders[person_name[g]] > 1)
    merges = sorted(((loss(c), sorted(c.values(), reverse=True), sorted(cluster_names[k])) for k, c in by_cluster.items()
                     if len(c) > 1), key=lambda s: -s[0])
    one_name = sum(loss(c) for k, c in by_cluster.items() if len(cluster_names[k]) == 1)
    return Losses(len(gold), sum(s[0] for s in splits), shared, sum(s[0] for s in merges), one_name, splits, merges)


# A label is contradicted when the mention's paper shares this many co-authors with another
# labelled person of the same full name, and none with its own person's other papers.
CONFLICT_COAUTHORS = 2


def label_conflicts(mentions: list[Mention], gold: dict[str, Hashable]) -> set[str]:
    """The labelled mentions whose own co-authors (by full name) say another person: their
    paper shares CONFLICT_COAUTHORS or more co-authors with the other papers of a namesake
    (another labelled person printing the same full name), and none with the other papers of
    the person it is labelled. An audit of the labels, not of the matcher: a set labelled by
    hand or curated ids shows few, one whose ids lump or split namesakes more (the acl sets'
    Anthology ids) shows many. Mentions with no full-named co-author never conflict."""
    labelled = [m for m in mentions if m.mention_id in gold]
    # co-author -> papers printing it: of each person (under any of its names), and of each
    # (full name, person) (a namesake is a person printing the same full name)
    of_person: dict[Hashable, Counter] = defaultdict(Counter)
    papers: dict[tuple[str, Hashable], Counter] = defaultdict(Counter)
    holders: dict[str, set] = defaultdict(set)
    for m in labelled:
        person = gold[m.mention_id]
        of_person[person].update(set(m.coauthor_names))
        papers[m.name.key, person].update(set(m.coauthor_names))
        holders[m.name.key].add(person)
    out = set()
    for m in labelled:
        own_person, key, mine = gold[m.mention_id], m.name.key, set(m.coauthor_names)
        if not mine or len(holders[key]) < 2:
            continue
        # the own person's other papers: their counts less this paper's own
        if any(of_person[own_person][c] > 1 for c in mine):
            continue
        if any(sum(papers[key, other][c] > 0 for c in mine) >= CONFLICT_COAUTHORS
               for other in holders[key] - {own_person}):
            out.add(m.mention_id)
    return out


# --------------------------------------------------------------------------- baselines


def baseline_exact_name(mentions: list[Mention]) -> dict[str, str]:
    """Same person iff exact normalized full name (given names joined + surname key)."""
    return {m.mention_id: "n:" + m.name.key for m in mentions}


def baseline_id(mentions: list[Mention], attr: str) -> dict[str, str]:
    """Same person iff the upstream id is equal; mentions without an id stay alone."""
    out = {}
    for m in mentions:
        v = getattr(m, attr)
        out[m.mention_id] = f"id:{v}" if v else f"solo:{m.mention_id}"
    return out


def default_methods(overrides: Overrides | None = None, config: MatchConfig | None = None) -> dict[str, Callable]:
    return {
        "matcher": lambda ms: match_all(ms, overrides, config).clusters,
        "exact normalized name": baseline_exact_name,
        "S2 author id alone": lambda ms: baseline_id(ms, "s2_author_id"),
        "OpenAlex author id alone": lambda ms: baseline_id(ms, "openalex_author_id"),
    }


@dataclass
class EvalResult:
    name: str
    n_mentions: int
    n_gold_clusters: int
    methods: dict[str, dict]  # method -> {"b3": PRF, "pairwise": PRF, "n_clusters": int}
    blocks: list[dict]  # per block for the matcher, hardest first
    stats: dict


def evaluate(
    mentions: list[Mention],
    gold: dict[str, Hashable],
    *,
    name: str = "",
    methods: dict[str, Callable] | None = None,
    hardest: int = 10,
) -> EvalResult:
    methods = methods or default_methods()
    res: dict[str, dict] = {}
    preds: dict[str, dict] = {}
    for label, fn in methods.items():
        pred = fn(mentions)
        preds[label] = pred
        res[label] = {
            "b3": b3(pred, gold),
            "pairwise": pairwise(pred, gold),
            "n_clusters": len({pred[m] for m in gold if m in pred}),
        }
    # per block (matcher): hardest = lowest B3 F1, then largest
    by_block: dict[str, list[str]] = defaultdict(list)
    for m in mentions:
        if m.mention_id in gold:
            by_block[m.block].append(m.mention_id)
    first = next(iter(methods))
    rows = []
    for blk, mids in by_block.items():
        g = {m: gold[m] for m in mids}
        row = {"block": blk, "n": len(mids), "persons": len(set(g.values()))}
        for label in methods:
            row[label] = b3(preds[label], g).f1
        row["b3"] = b3(preds[first], g)
        row["pairwise"] = pairwise(preds[first], g)
        rows.append(row)
    rows.sort(key=lambda r: (r["b3"].f1, -r["n"]))
    hard = rows[:hardest]
    largest = sorted(rows, key=lambda r: -r["n"])[:hardest]
    for r in largest:
        if r not in hard:
            hard.append(r)
    return EvalResult(name, len(gold), len(set(gold.values())), res, hard, {})


def format_report(r: EvalResult) -> str:
    lines = [f"== {r.name}: {r.n_mentions} labelled mentions, {r.n_gold_clusters} gold clusters"]
    lines.append(f"{'method':<28}{'B3 P':>8}{'B3 R':>8}{'B3 F1':>8}{'pair P':>8}{'pair R':>8}{'pair F1':>8}{'clusters':>10}")
    for label, m in r.methods.items():
        b, p = m["b3"], m["pairwise"]
        lines.append(
            f"{label:<28}{b.precision:8.4f}{b.recall:8.4f}{b.f1:8.4f}{p.precision:8.4f}{p.recall:8.4f}{p.f1:8.4f}{m['n_clusters']:10d}"
        )
    if r.blocks:
        labels = list(r.methods)
        lines.append("")
        lines.append("hardest blocks (matcher: lowest B3 F1, then the largest), B3 F1 per method:")
        head = f"{'block':<22}{'n':>6}{'persons':>8}{'P':>7}{'R':>7}" + "".join(f"{_short(l):>10}" for l in labels)
        lines.append(head)
        for row in r.blocks:
            b = row["b3"]
            lines.append(
                f"{row['block'][:21]:<22}{row['n']:6d}{row['persons']:8d}{b.precision:7.3f}{b.recall:7.3f}"
                + "".join(f"{row[l]:10.3f}" for l in labels)
            )
    return "\n".join(lines)


def _short(label: str) -> str:
    return {"matcher": "matcher", "exact normalized name": "exact", "S2 author id alone": "s2-id", "OpenAlex author id alone": "oa-id"}.get(
        label, label[:9]
    )


# --------------------------------------------------------------------------- thin evidence


def thin_mentions(mentions: list[Mention]) -> list[Mention]:
    """Strip mentions to what S2AND signatures carry without papers.json and without ids:
    names, affiliation strings, author position (and the paper id, which a signature always
    has, so two authors of one paper stay apart). No S2/OpenAlex ids, ORCID, e-mail,
    institutions, co-authors, categories, text, venue or dates."""
    return [
        Mention(
            mention_id=m.mention_id,
            paper_id=m.paper_id,
            position=m.position,
            first=m.first,
            middle=m.middle,
            last=m.last,
            suffix=m.suffix,
            affiliations=list(m.affiliations),
            display_name=m.display_name,
        )
        for m in mentions
    ]


# --------------------------------------------------------------------------- S2AND loader


def _load_json(path: str):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_s2and(directory: str, *, vectors: bool = False) -> tuple[list[Mention], dict[str, str]]:
    """Read an S2AND-format directory (signatures.json, optional papers.json, clusters.json).

    With ``vectors`` each mention carries its paper's sentence vector (set_vectors: embedded
    once, then kept), as the pipeline's mentions do once the embedding stage ran.

    ``sourced_author_ids`` (S2 author ids that the source - ORCID, DBLP, ... - points to)
    stand in for ``s2_author_id`` (and the S2-id baseline), except source "Extracted" whose
    ids are name strings; with source ORCID the id is also the mention's ORCID.
    Gold = clusters.json.
    """
    sigs = _load_json(os.path.join(directory, "signatures.json"))
    if isinstance(sigs, list):
        sigs = {str(s["signature_id"]): s for s in sigs}
    ppath = os.path.join(directory, "papers.json")
    papers = _load_json(ppath) if os.path.exists(ppath) else {}
    if isinstance(papers, list):
        papers = {str(p["paper_id"]): p for p in papers}
    papers = {str(k): v for k, v in papers.items()}
    cpath = os.path.join(directory, "clusters.json")
    gold: dict[str, str] = {}
    if os.path.exists(cpath):
        for cid, c in _load_json(cpath).items():
            for s in c.get("signature_ids", []):
                gold[str(s)] = str(c.get("cluster_id", cid))
    # co-author keys per paper from papers.json (else from other signatures on the paper)
    sig_by_paper: dict[str, list[dict]] = defaultdict(list)
    for s in sigs.values():
        sig_by_paper[str(s.get("paper_id"))].append(s)
    mentions = []
    for sid, s in sigs.items():
        ai = s.get("author_info") or {}
        pid = str(s.get("paper_id"))
        pos = ai.get("position")
        pos = int(pos) if pos is not None else -1
        paper = papers.get(pid) or {}
        if paper.get("authors"):
            others = [coauthor(a["author_name"]) for a in paper["authors"]
                      if a.get("position") != pos and a.get("author_name")]
        else:
            infos = [o.get("author_info") or {} for o in sig_by_paper[pid] if o is not s]
            others = [coauthor(first=oi.get("first"), last=oi.get("last")) for oi in infos if oi.get("position") != pos]
        orcid = s2 = None
        src = (s.get("sourced_author_source") or "").strip()
        ids = [str(x) for x in (s.get("sourced_author_ids") or []) if x is not None]
        if ids and src.lower() != "extracted":
            s2 = ids[0]
            if src.upper() == "ORCID":
                orcid = ids[0]
        text = " ".join(x for x in (paper.get("title"), paper.get("abstract")) if x)
        year = paper.get("year")
        mentions.append(
            Mention(
                mention_id=str(sid),
                paper_id=pid,
                position=pos,
                first=ai.get("first"),
                middle=ai.get("middle"),
                last=ai.get("last"),
                suffix=ai.get("suffix"),
                affiliations=[a for a in (ai.get("affiliations") or []) if a],
                s2_author_id=s2,
                orcid=normalize_orcid(orcid),
                coauthor_keys=[n.block for n in others],
                coauthor_names=[x for x in map(coauthor_name, others) if x],
                categories=list(paper.get("fields_of_study") or []),
                text=text,
                year=int(year) if isinstance(year, (int, float)) and year > 0 else None,
                email=ai.get("email"),
                venue=paper.get("journal_name") or paper.get("venue"),
                n_authors=len(paper["authors"]) if paper.get("authors") else None,
                display_name=s.get("given_name"),
            )
        )
    if vectors:
        from .set_vectors import attach_vectors

        attach_vectors(os.path.basename(os.path.normpath(directory)), papers, mentions)
    return mentions, gold


def evaluate_s2and_dir(directory: str, *, thin: bool = False, vectors: bool = False, **kw) -> EvalResult:
    mentions, gold = load_s2and(directory, vectors=vectors)
    name = os.path.abspath(directory)
    if thin:
        mentions, name = thin_mentions(mentions), name + " (thin: names + affiliations + positions)"
    return evaluate(mentions, gold, name=name, **kw)


# --------------------------------------------------------------------------- several sets


def baseline_one_per_block(mentions: list[Mention]) -> dict[str, str]:
    """Every mention of a name block is one person."""
    return {m.mention_id: "b:" + m.block for m in mentions}


@dataclass
class SetScore:
    name: str
    mentions: int
    people: int
    matcher: PRF
    exact_name: PRF
    one_per_block: PRF
    clusters: int
    incremental: tuple[float, float, float] | None = None  # (batch B3 F1, newest 10% link by link, by profile)
    contradicted: int = 0  # labels the mentions' co-authors contradict (label_conflicts)


def score_set(name: str, mentions: list[Mention], gold: dict, config: MatchConfig | None = None) -> SetScore:
    pred = match_all(mentions, config=config).clusters
    return SetScore(name, len(gold), len(set(gold.values())), b3(pred, gold), b3(baseline_exact_name(mentions), gold),
                    b3(baseline_one_per_block(mentions), gold), len({pred[m] for m in gold if m in pred}),
                    contradicted=len(label_conflicts(mentions, gold)))


def format_sets(scores: list[SetScore], title: str) -> str:
    """One line per set (matcher P/R/F1 beside both baselines' F1, and how many of its labels
    the mentions' co-authors contradict: label_conflicts), then the mean."""
    lines = [title, "",
             "| set | mentions | people | matcher B3 P | R | **F1** | exact name F1 | one per block F1 | better baseline + 0.02 | clusters | labels co-authors contradict |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in scores:
        bar = max(s.exact_name.f1, s.one_per_block.f1) + 0.02
        lines.append(f"| {s.name} | {s.mentions:,} | {s.people:,} | {s.matcher.precision:.3f} | {s.matcher.recall:.3f} | "
                     f"**{s.matcher.f1:.3f}** | {s.exact_name.f1:.3f} | {s.one_per_block.f1:.3f} | "
                     f"{bar:.3f} {'met' if s.matcher.f1 >= bar else 'not met'} | {s.clusters:,} | {s.contradicted:,} |")
    if scores:
        mean = lambda f: sum(f(s) for s in scores) / len(scores)  # noqa: E731
        lines.append(f"| **mean of {len(scores)}** | {sum(s.mentions for s in scores):,} | {sum(s.people for s in scores):,} | "
                     f"{mean(lambda s: s.matcher.precision):.3f} | {mean(lambda s: s.matcher.recall):.3f} | "
                     f"**{mean(lambda s: s.matcher.f1):.3f}** | {mean(lambda s: s.exact_name.f1):.3f} | "
                     f"{mean(lambda s: s.one_per_block.f1):.3f} | | | {sum(s.contradicted for s in scores):,} |")
    return "\n".join(lines)


def incremental_gap(mentions: list[Mention], gold: dict, config: MatchConfig | None = None,
                    share: float = 0.1) -> tuple[float, float, float]:
    """B3 F1 of matching everything at once, and of matching the oldest 90% at once and then
    assigning the newest 10% (by year, then paper) one by one, newest first: link by link
    (every member of the block) and by profile (the daily run's way: profile_assign)."""
    from .cluster import assign_incremental
    from .profile_assign import incremental_by_profiles

    order = sorted(mentions, key=lambda m: (m.year or 0, m.paper_id, m.position))
    cut = int(round(len(order) * (1 - share)))
    old, new = order[:cut], order[cut:]
    batch = b3(match_all(mentions, config=config).clusters, gold).f1
    base = match_all(old, config=config)
    inc = assign_incremental(old, base, new, config=config)
    by_profile = incremental_by_profiles(old, base.clusters, new, config=config)
    return batch, b3(inc.clusters, gold).f1, b3(by_profile.clusters, gold).f1
