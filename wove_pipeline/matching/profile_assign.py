"""The daily assignment by profile: new mentions, newest first, scored against the
representatives of the candidate profiles of their name block, not every member.

The rule is ``cluster.assign_incremental``'s (the same learned pair model, threshold and
"not sure" band): a new mention joins the viable profile with the highest mean probability
if it is >= the threshold, opens a "not sure" profile between ``unsure_low`` and the
threshold, a plain new one below; a cannot-link with any member makes a profile no
candidate, a must-link forces it; later new mentions see the profiles opened or joined
earlier in the run; a profile the run opened then joins an existing one its members'
average reaches the threshold with (``_Run.join_new_profiles``: average linkage's step).
What changes is where the evidence comes from:

* the **mean** is the representatives' probabilities weighted by the members each stands
  for (exact while every member is a representative), over a candidate's heaviest
  ``MatchConfig.profile_representatives`` in the block (``scored_representatives``);
* **cannot- and must-links** come from the aggregates, over every member: a name form of
  the block incompatible with the mention, another ORCID (cannot), the same ORCID (must),
  a forced split or link with a member (overrides, through ``linked``);
* the **name features** that read the whole block (how many mentions' names fit either
  side, distinct first names, how common the full name is) are computed from every
  profile's name-form counts, as if every member were loaded;
* **in a crowded block** (more profiles than ``MatchConfig.profile_candidates``), a new
  mention's candidates are the ``profile_candidates`` profiles sharing the most identifying
  tokens with it (its full name where at most ``NAME_POSTING`` profiles hold it, a co-author
  key, an affiliation, an upstream id: ``bounded_candidates``), as in the full re-match's
  big blocks (big_block.token_matrix, where a full name selects none at all: those blocks
  hold thousands of mentions), so that what a day reads and scores does not grow with the
  block; a profile sharing none could only be joined by name and text, which in a block
  this crowded is below the threshold;
* **across blocks**, identical upstream ids (an ORCID, or an S2 and an OpenAlex author id
  on one mention) join a new mention's profile to an existing one of another block with a
  compatible name (``cross_block.join_by_upstream_ids``'s rule), the candidates found by
  the profiles' id index.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Container, Iterable, Mapping, Sequence

import numpy as np

from .assignment import Assignment, Link, MatchConfig
from .big_block import TOKEN_POSTING
from .cluster import _override_matrices, _Run, resolve_merges
from .cross_block import id_keys
from .mentions import Mention, normalize_orcid
from .model import score_pairs
from .names import Name, name_evidence, names_compatible
from .overrides import Overrides
from .profiles import Profile, Representative, build_profile, form_name, identifying_tokens, is_name_token
from .scoring import (
    BlockNames,
    block_names,
    build_data,
    combine_block_names,
    sigmoid,
)


def mention_id_keys(m: Mention) -> list[tuple]:
    """A new position's identity keys (cross_block.id_keys), its ORCID normalized as a
    profile's are."""
    return id_keys(normalize_orcid(m.orcid), m.s2_author_id, m.openalex_author_id)


def _profile_keys(p: Profile) -> list[tuple]:
    return [("orcid", o) for o in p.orcids] + [("s2+oa", *pair.split("|", 1)) for pair in p.id_pairs]


def crowded(new_mentions: Iterable[Mention], block_profiles: Mapping[str, int], cfg: MatchConfig) -> list[Mention]:
    """The new mentions whose block holds more profiles than ``cfg.profile_candidates``."""
    if not cfg.profile_candidates:
        return []
    return [m for m in new_mentions if block_profiles.get(m.block, 0) > cfg.profile_candidates]


# A full name held by more profiles than this selects none of them. Namesakes the name alone
# cannot tell apart: in a crowded block of a big archive "y wang|n:yi wang" is held by dozens,
# and the tie rule made the two oldest the candidates of a position that shares nothing else
# with any, their representatives read and scored for nothing (a fifth to a quarter of the
# positions a day at 1,000,000 papers loaded). Its co-author, affiliation and upstream-id tokens
# still select.
NAME_POSTING = 8


def _posting_cap(token: str) -> int:
    return min(NAME_POSTING, TOKEN_POSTING) if is_name_token(token) else TOKEN_POSTING


def bounded_candidates(mentions: Iterable[Mention], postings: Mapping[str, Sequence[int]],
                       cfg: MatchConfig) -> dict[str, set[int]]:
    """Each (crowded) mention's candidate profiles: those sharing an identifying token with it,
    the ``cfg.profile_candidates`` sharing the most (ties: the older profile). ``postings``:
    token -> the profiles holding it; a token held by more than TOKEN_POSTING (a co-author
    key like "w wang" in "y zhang"), or a full name by more than NAME_POSTING, tells nobody
    apart and selects none."""
    out: dict[str, set[int]] = {}
    for m in mentions:
        shared: Counter = Counter()
        for t in identifying_tokens(m):
            holders = postings.get(t, ())
            if len(holders) <= _posting_cap(t):
                shared.update(holders)
        out[m.mention_id] = set(sorted(shared, key=lambda label: (-shared[label], label))[: cfg.profile_candidates])
    return out


def token_postings(profiles: Mapping[int, Profile]) -> dict[str, list[int]]:
    """token -> the profiles holding it (in memory; the database's is researcher_profiles.match_tokens)."""
    out: dict[str, list[int]] = defaultdict(list)
    for label in sorted(profiles):
        for t in profiles[label].identifying_tokens():
            out[t].append(label)
    return out


def scored_representatives(p: Profile, blocks: Container[str], cfg: MatchConfig) -> list[Representative]:
    """The representatives a new mention of these blocks is scored against: in each block, the
    ``cfg.profile_representatives`` heaviest (the members they stand for; ties: stored order)."""
    per: dict[str, list[Representative]] = defaultdict(list)
    for r in p.representatives:
        if r.block in blocks:
            per[r.block].append(r)
    k = cfg.profile_representatives or None
    chosen = {r.mention_id for rs in per.values() for r in sorted(rs, key=lambda r: -r.weight)[:k]}
    return [r for r in p.representatives if r.mention_id in chosen]


class _Compat:
    """name_evidence between names, cached (a block's forms meet each new name once)."""

    def __init__(self):
        self.cache: dict[tuple[Name, Name], bool] = {}

    def __call__(self, a: Name, b: Name) -> bool:
        k = (a, b)
        v = self.cache.get(k)
        if v is None:
            v = self.cache[k] = name_evidence(a, b) != "incompatible"
        return v

    def fits(self, name: Name, forms: Iterable[Name]) -> bool:
        """A name may join a profile whose forms in its block are these: it fits every one."""
        return all(self(name, n) for n in forms)


def forms_by_block(p: Profile) -> dict[str, list[Name]]:
    """A profile's printed name forms, by name block."""
    per: dict[str, list[Name]] = defaultdict(list)
    for f in p.name_forms:
        n = form_name(f)
        per[n.block].append(n)
    return per


def assign_by_profiles(
    profiles: dict[int, Profile],
    reps: dict[str, Mention],
    new_mentions: list[Mention],
    overrides: Overrides | None = None,
    config: MatchConfig | None = None,
    *,
    linked: dict[str, int] | None = None,
    first_label: int | None = None,
    candidates: dict[str, set[int]] | None = None,
) -> Assignment:
    """Assign ``new_mentions`` onto ``profiles`` (label -> Profile: every profile with a
    member in the new mentions' blocks, and those sharing an upstream id with them).
    ``reps`` holds the representatives' mentions (those of profiles no new mention can
    join by name may be left out). ``linked``: mention -> label of the members that
    overrides name. Returns the new mentions' clusters and links; new profiles get labels
    from ``first_label`` (default: above every profile's). ``candidates``: mention -> the
    only profiles of its block it may join (a crowded block's, ``bounded_candidates``); a
    mention not in it may join any."""
    cfg = config or MatchConfig()
    linked = linked or {}
    new_mentions = list(new_mentions)
    if not new_mentions:
        return Assignment({}, {}, {})
    first = first_label if first_label is not None else (max(profiles) + 1 if profiles else 0)
    new_blocks = {m.block for m in new_mentions}
    compat = _Compat()

    forms_of = {label: forms_by_block(p) for label, p in profiles.items()}

    old: list[Mention] = []
    old_label: list[int] = []
    old_weight: list[float] = []
    for label in sorted(profiles):
        for r in scored_representatives(profiles[label], new_blocks, cfg):
            if r.mention_id in reps:
                old.append(reps[r.mention_id])
                old_label.append(label)
                old_weight.append(r.weight)
    data = build_data(old + new_mentions)
    run = _Run(data, overrides, cfg, first_label=first)
    n_old = len(old)
    run.labels[:n_old] = old_label
    weight = np.ones(len(data), dtype=np.float64)
    weight[:n_old] = old_weight

    # profile-level constraints of each new mention, over every member (aggregates)
    split_of: dict[str, set[str]] = defaultdict(set)
    link_of: dict[str, set[str]] = defaultdict(set)
    for a, b in (overrides.splits if overrides else []):
        split_of[a].add(b)
        split_of[b].add(a)
    for a, b in (overrides.links if overrides else []):
        link_of[a].add(b)
        link_of[b].add(a)
    bad: dict[int, set[int]] = {}
    must: dict[int, set[int]] = {}
    outside_of: dict[int, set[int]] = {}  # a crowded block's profiles a mention is not scored against
    # the profiles with a name form in each block: a mention looks only at its block's
    # (every profile for every mention was quadratic in a day's positions: a 3,000-author paper)
    labels_in: dict[str, list[int]] = defaultdict(list)
    for label, per in forms_of.items():
        for blk in per:
            labels_in[blk].append(label)
    # the profiles of the new mentions' blocks that no new mention is scored against (a
    # crowded block's non-candidates): the day's run does not read them (profile_store)
    in_blocks: set[int] = set()
    scored_against: set[int] = set()
    for k, m in enumerate(new_mentions):
        i = n_old + k
        orcid = normalize_orcid(m.orcid)
        allowed = candidates.get(m.mention_id) if candidates else None
        b, f, outside = set(), set(), set()
        for label in labels_in.get(m.block, ()):
            forms = forms_of[label][m.block]
            p = profiles[label]
            if not compat.fits(m.name, forms) or (orcid and any(o != orcid for o in p.orcids)):
                b.add(label)
            elif orcid and orcid in p.orcids:
                f.add(label)
            elif allowed is not None and label not in allowed:
                outside.add(label)
        b |= {linked[x] for x in split_of.get(m.mention_id, ()) if x in linked}
        f |= {linked[x] for x in link_of.get(m.mention_id, ()) if x in linked}
        outside -= f
        b |= outside
        bad[i], must[i] = b, f - b
        if outside:
            outside_of[i] = outside
        in_blocks.update(labels_in.get(m.block, ()))
        scored_against.update(set(labels_in.get(m.block, ())) - outside)
    unread = in_blocks - scored_against

    calls: list[tuple[np.ndarray, np.ndarray, BlockNames]] = []
    pack: list[tuple[np.ndarray, np.ndarray, BlockNames]] = []
    size = 0

    def flush() -> None:
        if pack:
            calls.append((np.concatenate([o for o, _, _ in pack]), np.concatenate([nw for _, nw, _ in pack]),
                          combine_block_names([bn for _, _, bn in pack])))
            pack.clear()

    from .cluster import _group_blocks

    for idx in _group_blocks(data):
        o, nw = idx[idx < n_old], idx[idx >= n_old]
        if len(nw) == 0:
            continue
        keys = [data.mentions[i].sort_date for i in nw]
        nw = nw[sorted(range(len(nw)), key=keys.__getitem__, reverse=True)]
        bn = block_names(data, idx)
        if len(idx) > cfg.batch_size // 2:
            calls.append((o, nw, bn))
            continue
        if size + len(idx) > cfg.batch_size:
            flush()
            size = 0
        pack.append((o, nw, bn))
        size += len(idx)
    flush()
    # The group model's step may merge a profile the day touched with another: never two with
    # different ORCIDs, members an override splits, or one the day does not read (unread).
    # A new mention's non-candidates bar it from the first step only: the profile it joined
    # may merge with a profile another new mention of the call was scored against.
    split_labels = {frozenset((linked[a], linked[b])) for a, b in (overrides.splits if overrides else [])
                    if a in linked and b in linked}

    def apart(labels) -> list[tuple[int, int]]:
        ls = [int(x) for x in labels if x in profiles]
        return [(a, b) for k, a in enumerate(ls) for b in ls[k + 1:]
                if frozenset((a, b)) in split_labels or a in unread or b in unread
                or (profiles[a].orcids and profiles[b].orcids and set(profiles[a].orcids) != set(profiles[b].orcids))]

    group_barred = {i: (b - outside_of.get(i, set())) | (outside_of.get(i, set()) & unread) for i, b in bad.items()}
    for o, nw, bn in calls:
        _assign(run, o, nw, bn, weight, bad, must, outside_of, apart, group_barred)
    run.stats["bounded_candidates"] += len(candidates or ())

    merged = resolve_merges(run.merged_profiles)
    clusters = {m.mention_id: merged.get(int(run.labels[n_old + k]), int(run.labels[n_old + k]))
                for k, m in enumerate(new_mentions)}
    links = {m.mention_id: run.links[m.mention_id] for m in new_mentions}
    _join_across_blocks(clusters, new_mentions, profiles, forms_of, first, overrides, linked, run.stats)
    for mid, c in clusters.items():
        links[mid].cluster = c
    return Assignment(clusters, links, dict(run.stats), merged)


def _assign(run: _Run, old: np.ndarray, new: np.ndarray, bn: BlockNames, weight: np.ndarray,
            bad_of: dict[int, set[int]], must_of: dict[int, set[int]], outside_of: dict[int, set[int]],
            apart=None, group_barred: dict[int, set[int]] | None = None) -> None:
    """_Run.assign with weighted members and the profiles' own constraints. A new mention with
    profiles outside its candidates (``outside_of``: a crowded block's, which it may not join)
    is scored, as aligned pairs, against the members of the others and the call's earlier new
    mentions only, so that its work stays its own candidates' and not the union of every new
    mention's of the block (which grew with the square of the block's new mentions); the
    others against every member of the call, as a matrix (cheaper per pair)."""
    d, cfg, w = run.data, run.cfg, run.model
    run.begin_assign()
    pool = np.concatenate([old, new]).astype(np.int64)
    n_old = len(old)
    lab = np.full(len(pool), -1, dtype=np.int64)
    lab[:n_old] = run.labels[old]
    pw = weight[pool]
    by_label = np.argsort(lab[:n_old], kind="stable")  # the old members grouped by profile
    labels, starts = np.unique(lab[:n_old][by_label], return_index=True)
    ends = np.append(starts[1:], n_old).astype(np.int64)
    everyone = np.arange(len(pool))
    pending: list[tuple[int, int, int, float | None, str]] = []

    def bounded(pos: int) -> bool:
        return bool(outside_of.get(int(pool[pos])))

    def columns(pos: int) -> np.ndarray:  # a bounded mention's: members of its allowed profiles, earlier new ones
        keep = np.flatnonzero(~np.isin(labels, list(outside_of[int(pool[pos])])))
        olds = [by_label[starts[k]:ends[k]] for k in keep.tolist()]
        return np.concatenate([*olds, np.arange(n_old, pos)])

    def decide(pos: int, cols: np.ndarray, p: np.ndarray, cn: np.ndarray, mu: np.ndarray) -> None:
        i = int(pool[pos])
        labs = lab[cols]
        on = np.flatnonzero(labs >= 0)
        outcome, best, score, partner = "new", -1, None, None
        if len(on):
            uniq, inv = np.unique(labs[on], return_inverse=True)
            ww = pw[cols[on]]
            sizes = np.bincount(inv, weights=ww)  # the members the representatives stand for
            mean = np.bincount(inv, weights=p[on] * ww) / sizes
            bad = np.bincount(inv, weights=cn[on].astype(np.float64)) > 0
            forced = np.bincount(inv, weights=mu[on].astype(np.float64)) > 0
            pb, pm = bad_of.get(i, ()), must_of.get(i, ())
            if pb or pm:
                bad |= np.isin(uniq, list(pb))
                forced |= np.isin(uniq, list(pm))
            forced &= ~bad
            outcome, best, score = run.decide(uniq, mean, bad, forced, sizes)
            run.note_reach(i, labs[on], p[on], cn[on])
            if run.new_profile(best):
                run.keep_scores(i, uniq, mean, bad, sizes, pool[cols[on]], labs[on], p[on])
            if best >= 0:
                inside = on[labs[on] == best]
                partner = int(pool[cols[inside[np.argmax(p[inside])]]])
        if best < 0:
            best = run.new_label()
        lab[pos] = best
        run.labels[i] = best
        pending.append((i, partner if partner is not None else -1, best, score, outcome))

    step = max(1, cfg.chunk_cells // max(1, len(pool)))
    pos, end = n_old, len(pool)
    while pos < end:
        if not bounded(pos):  # the following unbounded mentions, rows x every member
            upto = pos
            while upto < end and upto - pos < step and not bounded(upto):
                upto += 1
            rows = pool[pos:upto]
            L, cannot, must, _ = score_pairs(d, rows, pool, bn, w)
            cannot, must = _override_matrices(d, rows, pool, run.ov, cannot.copy(), must.copy())
            P = sigmoid(L)
            for r in range(upto - pos):
                decide(pos + r, everyone, P[r], cannot[r], must[r])
            pos = upto
            continue
        segs: list[tuple[int, np.ndarray]] = []  # the following bounded mentions, at most chunk_cells pairs
        total = 0
        while pos < end and bounded(pos):
            cols = columns(pos)
            if segs and total + len(cols) > cfg.chunk_cells:
                break
            segs.append((pos, cols))
            total += len(cols)
            pos += 1
        rows_all = pool[np.repeat([x for x, _ in segs], [len(c) for _, c in segs])]
        cols_all = pool[np.concatenate([c for _, c in segs])]
        L, cannot, must, _ = score_pairs(d, rows_all, cols_all, bn, w, pairs=True)
        cannot, must = _override_matrices(d, rows_all, cols_all, run.ov, cannot.copy(), must.copy(), pairs=True)
        P = sigmoid(L)
        start = 0
        for x, cols in segs:
            decide(x, cols, P[start:start + len(cols)], cannot[start:start + len(cols)], must[start:start + len(cols)])
            start += len(cols)
    run.record_links(bn, pending, pool=pool, barred=bad_of if group_barred is None else group_barred, apart=apart)


def _join_across_blocks(clusters: dict[str, int], new: list[Mention], profiles: dict[int, Profile],
                        forms_of: dict[int, dict[str, list[Name]]], first: int, overrides: Overrides | None,
                        linked: dict[str, int], stats) -> None:
    """Identical upstream ids and forced links join a new mention's profile to one of
    another name block (join_by_upstream_ids / apply_cross_block_links over profiles)."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while x in parent:
            x = parent[x]
        return x

    splits = overrides.split_set() if overrides else set()

    def members(label: int) -> list[Mention]:
        return [m for m in new if find(clusters[m.mention_id]) == label]

    def refused(la: int, lb: int) -> bool:
        ma, mb = members(la), members(lb)
        oa = {normalize_orcid(m.orcid) for m in ma} - {None}
        ob = {normalize_orcid(m.orcid) for m in mb} - {None}
        for lab, o in ((la, oa), (lb, ob)):
            if lab in profiles:
                o |= set(profiles[lab].orcids)
        if oa and ob and oa != ob:
            return True
        if {m.paper_id for m in ma} & {m.paper_id for m in mb}:
            return True
        ida = {m.mention_id for m in ma} | {x for x, lab in linked.items() if find(lab) == la}
        idb = {m.mention_id for m in mb} | {x for x, lab in linked.items() if find(lab) == lb}
        return any((x in ida and y in idb) or (x in idb and y in ida) for x, y in splits)

    def join(la: int, lb: int, what: str) -> None:
        fa, fb = la >= first and la not in profiles, lb >= first and lb not in profiles
        keep, drop = (lb, la) if fa and not fb else (la, lb) if fb and not fa else (min(la, lb), max(la, lb))
        parent[drop] = keep
        stats[what] += 1

    holders: dict[tuple, list] = defaultdict(list)
    for label in sorted(profiles):
        for key in _profile_keys(profiles[label]):
            holders[key].append(("p", label))
    for m in new:
        for key in mention_id_keys(m):
            holders[key].append(("m", m))
    for key in sorted(holders, key=str):
        hs = holders[key]
        if not any(kind == "m" for kind, _ in hs) or len(hs) < 2:
            continue
        kind, anchor = hs[0]
        if kind == "p":
            a_blocks = set(forms_of[anchor])
            a_names = [n for ns in forms_of[anchor].values() for n in ns]
            a_label = anchor
        else:
            a_blocks, a_names, a_label = {anchor.block}, [anchor.name], clusters[anchor.mention_id]
        for kind, other in hs[1:]:
            if kind != "m":
                continue  # two earlier profiles stay apart (a full re-match revisits them)
            la, lb = find(a_label), find(clusters[other.mention_id])
            if la == lb or other.block in a_blocks:
                continue
            fresh_a = la >= first and la not in profiles
            fresh_b = lb >= first and lb not in profiles
            if not (fresh_a or fresh_b):
                continue
            if not any(names_compatible(n, other.name) for n in a_names):
                continue
            if refused(la, lb):
                stats["id_join_refused"] += 1
                continue
            join(la, lb, "id_join_cross_block")
    for a, b in (overrides.links if overrides else []):
        la = find(clusters[a]) if a in clusters else (find(linked[a]) if a in linked else None)
        lb = find(clusters[b]) if b in clusters else (find(linked[b]) if b in linked else None)
        if la is None or lb is None or la == lb or (a not in clusters and b not in clusters):
            continue
        if refused(la, lb):
            stats["force_link_refused"] += 1
            continue
        join(la, lb, "force_link_cross_block")
    for mid in clusters:
        clusters[mid] = find(clusters[mid])


def update_profiles(profiles: dict[int, Profile], new_mentions: list[Mention], clusters: dict[str, int]) -> dict[int, Profile]:
    """The day's members into their profiles (in place), new profiles built: the touched
    profiles by label."""
    touched: dict[int, Profile] = {}
    fresh: dict[int, list[Mention]] = defaultdict(list)
    for m in sorted(new_mentions, key=lambda m: m.sort_date):
        label = clusters[m.mention_id]
        if label in profiles:
            profiles[label].add(m)
            touched[label] = profiles[label]
        else:
            fresh[label].append(m)
    for label, ms in fresh.items():
        touched[label] = profiles[label] = build_profile(label, ms)
    return touched


def incremental_by_profiles(old: list[Mention], old_clusters: dict[str, int], new: list[Mention],
                            overrides: Overrides | None = None, config: MatchConfig | None = None) -> Assignment:
    """In memory (evaluation): profiles of the existing clusters, the new mentions assigned
    onto them. Returns every mention's cluster."""
    from .profiles import build_profiles

    profiles = build_profiles(old, old_clusters)
    by_id = {m.mention_id: m for m in old}
    reps = {r.mention_id: by_id[r.mention_id] for p in profiles.values() for r in p.representatives}
    first = max(old_clusters.values()) + 1 if old_clusters else 0
    new = [m for m in new if m.mention_id not in old_clusters]
    block_profiles = Counter(b for p in profiles.values() for b in p.blocks)
    candidates = bounded_candidates(crowded(new, block_profiles, config or MatchConfig()), token_postings(profiles),
                                    config or MatchConfig())
    inc = assign_by_profiles(profiles, reps, new, overrides, config,
                             linked={m: c for m, c in old_clusters.items() if overrides and m in overrides.involved()},
                             first_label=first, candidates=candidates)
    clusters = {**{mid: inc.merged.get(c, c) for mid, c in old_clusters.items()}, **inc.clusters}
    links = {mid: Link(mid, c, "existing", None) for mid, c in clusters.items() if mid in old_clusters}
    links.update(inc.links)
    return Assignment(clusters, links, inc.stats, inc.merged)
