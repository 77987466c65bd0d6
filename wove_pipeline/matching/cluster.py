"""Blocking, constrained average-linkage clustering and newest-first incremental assignment.

Pair probabilities come from the learned pair model (model.py, features.py); the threshold is
the model's, chosen by cross-validation (train.py), and the same in both modes below. It is the
threshold for two lone mentions: two groups need threshold x (pairs between them) ^ -exponent
(``merge_threshold``; the exponent is cross-validated with the threshold).

* **Blocking**: S2AND block key (first initial + surname key). Every block is scored as a
  dense matrix (vectorized; sparse products for co-authors, affiliations, text).
* **Clustering** (``match_all``): average linkage on distance ``1 - p`` (S2AND, production
  eps 0.61; we cut at ``1 - merge_threshold``). Cannot-links (two different ORCIDs, incompatible
  names, force split) get distance 1e4 *and* are enforced exactly while walking the
  dendrogram (a merge that would put a cannot-link pair together is refused, and so is every
  later merge above it). Must-links (same ORCID + compatible names, force link) get
  distance 0. When the model has a group model (group_merge.py), the groups of the cut are
  then merged by it, greedily, as long as it says "one person" with at least its threshold
  (the cut and that threshold chosen together by cross-validation).
* **Big blocks** (> ``max_block`` mentions, e.g. "y wang"): sub-blocked by connected
  components of compatible full given names; components still too big are clustered chunk
  by chunk (oldest chunk clustered, the rest assigned newest-first); initials-only
  mentions ("P. Wang") are then assigned newest-first onto the block's clusters. The
  assignment in a big block scores each mention against the representatives of a few
  candidate clusters (``big_block``: the daily branch's rule by profile), so its work per
  mention is bounded whatever the block's size (``candidate_clusters=0``: every member).
* **Incremental** (``assign_incremental``): new mentions, newest first, join the
  compatible cluster with the highest *average* probability of those whose average reaches
  their ``merge_threshold`` (one mention and the cluster's members); short of it, from
  ``unsure_low`` (lowered alike) the outcome is "not_sure" and the mention opens
  a new profile (counted in ``stats``); below, a plain new profile. Later new mentions can
  join profiles opened earlier in the same run. Then average linkage's own step: a profile
  the run opened joins the existing profile its members' average reaches the threshold with
  (``_Run.join_new_profiles``; newest 10% of ads after the rest: 0.0064 -> 0.0033 B3 F1 below
  batch), and then the group model's step (``group_merge.join_new_groups``: the profiles the run
  opened may join an existing one, or each other, and an existing one the run's mentions joined
  may merge with another; two the run did not touch never merge). The daily assignment by profile (profile_assign) and a big block's bounded
  assignment (big_block) decide the same way.

* **Across blocks**: identical upstream ids (an ORCID, or both S2 and OpenAlex author ids)
  join clusters of different blocks when the names are compatible ("Wang Peng" printed
  surname-first is "Peng Wang"), unless a cannot-link forbids it.

Every mention gets a ``Link`` with its score (mean probability to the rest of its cluster),
its strongest partner and the evidence of that pair: what each feature adds to its log-odds
(the log-odds minus those with the feature missing), and the pair's "log_odds".

Beside this module: ``assignment`` (``MatchConfig``, ``Link``, ``Assignment``), ``parallel``
(tasks over forked workers), ``cross_block`` (joins across name blocks).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

import numpy as np
from scipy.cluster.hierarchy import linkage
from scipy.spatial.distance import squareform

from .assignment import Assignment, Link, MatchConfig
from .cross_block import apply_cross_block_links, join_by_upstream_ids
from .group_merge import CANDIDATE_FLOOR, join_new_groups, merge_evidence, merge_groups
from .mentions import Mention
from .model import default_model, score_pairs
from .overrides import Overrides
from .parallel import AssignCall, run_assign_calls, run_blocks
from .scoring import BlockNames, MatchData, block_names, build_data, sigmoid

# --------------------------------------------------------------------------- helpers


def _group_blocks(data: MatchData) -> list[np.ndarray]:
    """Indices per block; mentions without a usable name are blocks of their own."""
    codes: dict[str, int] = {}
    bc = np.fromiter(
        (codes.setdefault(b if b.strip() else f"\0{i}", len(codes)) for i, b in enumerate(data.blocks)),
        dtype=np.int64,
        count=len(data),
    )
    order = np.argsort(bc, kind="stable")
    bounds = np.flatnonzero(np.diff(bc[order])) + 1
    return np.split(order, bounds)


def _override_matrices(data: MatchData, rows, cols, overrides: Overrides | None, cannot, must, *,
                       pairs: bool = False):
    """Forced splits and links onto the cannot / must of rows x cols (``pairs``: of the
    aligned pairs rows[k], cols[k])."""
    if not overrides or not len(overrides):
        return cannot, must
    rows, cols = np.asarray(rows), np.asarray(cols)
    rule = (overrides.involved(), overrides.split_set(), set(overrides.links))
    if pairs:
        _override_pairs(data, rows, cols, rule, cannot, must)
        return cannot, must
    for a, i in enumerate(rows.tolist()):  # a row naming a mention with an override, against every column
        if data.mentions[i].mention_id in rule[0]:
            _override_pairs(data, np.full(len(cols), i), cols, rule, cannot[a], must[a])  # rows: views
    return cannot, must


def _override_pairs(data: MatchData, rows: np.ndarray, cols: np.ndarray, rule: tuple[set, set, set],
                    cannot: np.ndarray, must: np.ndarray) -> None:
    involved, splits, links = rule
    named = [i for i in np.unique(rows).tolist() if data.mentions[i].mention_id in involved]
    for k in np.flatnonzero(np.isin(rows, named)).tolist():
        ma, mb = data.mentions[int(rows[k])].mention_id, data.mentions[int(cols[k])].mention_id
        key = (ma, mb) if ma <= mb else (mb, ma)
        if key in splits:
            cannot[k] = True
            must[k] = False
        elif key in links:
            must[k] = True


MERGE_PAIRS_CAP = 100


def merge_threshold(threshold, pairs, exponent: float):
    """The mean pair probability two groups of mentions need to merge, ``pairs`` being the
    pairs between them (the product of their sizes): ``threshold`` for two lone mentions, lower
    as the groups grow. One person's papers drift (topics, co-authors, places), so the mean
    over many pairs of two halves of one person is lower than one pair's probability, while two
    people who share a name stay far below it. The exponent is chosen by cross-validation with
    the threshold (train.py): on the real sets, pairs-only medline_pairs wants a high threshold
    and prolific ads authors a low one, and one threshold for every size served neither.

    It falls no further than at ``MERGE_PAIRS_CAP`` pairs (10 x 10 members): two big clusters
    of namesakes have a low mean but not a zero one, and size alone must not merge them (mean
    held-out B3 F1 over the six real sets: 0.8567 without the cap, 0.8591 with it, 0.8551 at 25)."""
    if not exponent:
        return threshold
    if np.isscalar(pairs):  # the linkage walk asks once per merge: plain floats, not numpy's per-call cost
        return threshold * min(max(float(pairs), 1.0), MERGE_PAIRS_CAP) ** -exponent
    return threshold * np.power(np.clip(pairs, 1, MERGE_PAIRS_CAP), -exponent, dtype=np.float64)


def _constrained_average_linkage(P: np.ndarray, cannot: np.ndarray, must: np.ndarray, threshold: float,
                                 exponent: float = 0.0) -> list[list[int]]:
    n = P.shape[0]
    if n == 1:
        return [[0]]
    D = (1.0 - P).astype(np.float64)
    D[must & ~cannot] = 0.0
    D[cannot] = 1e4
    np.fill_diagonal(D, 0.0)
    D = np.minimum(D, D.T)
    Z = linkage(squareform(D, checks=False), method="average")
    lowest = merge_threshold(threshold, float(n // 2) * (n - n // 2), exponent)  # what any merge needs at least
    members: dict[int, list[int]] = {i: [i] for i in range(n)}
    ok = np.ones(2 * n - 1, dtype=bool)
    for k in range(n - 1):
        a, b, d = int(Z[k, 0]), int(Z[k, 1]), Z[k, 2]
        if d > 1.0 - lowest + 1e-12:
            break  # merges come by growing distance: none after this one can pass
        node = n + k
        if (ok[a] and ok[b] and d <= 1.0 - merge_threshold(threshold, len(members[a]) * len(members[b]), exponent) + 1e-12
                and not cannot[np.ix_(members[a], members[b])].any()):
            members[node] = members.pop(a) + members.pop(b)
        else:
            ok[node] = False
    return list(members.values())


def _explain(data, bn, model, I, J) -> list[dict[str, float]]:
    if len(I) == 0:
        return []
    _, _, _, parts = score_pairs(data, np.asarray(I), np.asarray(J), bn, model, pairs=True, explain=True)
    names = list(parts)
    rows = np.round(np.stack([np.broadcast_to(parts[f], (len(I),)) for f in names], axis=1).astype(np.float64), 3)
    out = []
    for row in rows.tolist():
        out.append({f: v for f, v in zip(names, row) if v != 0.0})
    return out


def decide_link(uniq: np.ndarray, mean: np.ndarray, bad: np.ndarray, forced: np.ndarray, threshold: float,
                unsure_low: float, sizes: np.ndarray, exponent: float) -> tuple[str, int, float | None]:
    """One mention's outcome over the candidate clusters ``uniq``: ``mean`` its probability to
    each, ``sizes`` their members, ``bad`` those it may not join, ``forced`` those an override
    puts it in (none of them bad). Forced: the best forced cluster; otherwise the best viable
    cluster of those whose mean reaches their ``merge_threshold`` (the threshold, lower for a
    bigger cluster), else a new cluster (``not_sure`` from ``unsure_low``, lowered alike, for
    the best viable one). Returns (outcome, cluster or -1 for a new one, the best score or None
    without a viable cluster)."""
    if forced.any():
        k = int(np.flatnonzero(forced)[np.argmax(mean[forced])])
        return "forced", int(uniq[k]), float(mean[k])
    viable = np.flatnonzero(~bad)
    if not len(viable):
        return "new", -1, None
    size = sizes[viable]
    passing = viable[mean[viable] >= merge_threshold(threshold, size, exponent)]
    if len(passing):
        k = int(passing[np.argmax(mean[passing])])
        return "linked", int(uniq[k]), float(mean[k])
    best = int(np.argmax(mean[viable]))
    score = float(mean[viable[best]])
    return ("not_sure" if score >= merge_threshold(unsure_low, size[best], exponent) else "new"), -1, score


def pending_links(data: MatchData, bn: BlockNames, model, pending) -> Iterator[Link]:
    """The links of decided mentions, ``pending`` (mention row, partner row or -1, cluster,
    score, outcome), with the evidence against their partners (explained in one batch)."""
    I = [p[0] for p in pending if p[1] >= 0]
    J = [p[1] for p in pending if p[1] >= 0]
    ev = iter(_explain(data, bn, model, I, J))
    for i, j, lb, sc, oc in pending:
        e = next(ev) if j >= 0 else {}
        yield Link(data.mentions[i].mention_id, lb, oc, None if sc is None else round(sc, 4),
                   data.mentions[j].mention_id if j >= 0 else None, e)


class _Run:
    """State of one match_all / assign_incremental call."""

    def __init__(self, data: MatchData, overrides: Overrides | None, cfg: MatchConfig, first_label: int = 0):
        self.data, self.ov, self.cfg = data, overrides, cfg
        self.model = (cfg.model or default_model()).ready()  # compiled here, before any worker forks
        self.threshold = self.model.threshold if cfg.threshold is None else cfg.threshold
        self.unsure_low = self.model.unsure_low if cfg.unsure_low is None else cfg.unsure_low
        self.size_exponent = self.model.size_exponent if cfg.size_exponent is None else cfg.size_exponent
        self.labels = np.full(len(data), -1, dtype=np.int64)
        self.next_label = first_label
        self.links: dict[str, Link] = {}
        self.stats: dict[str, int] = defaultdict(int)
        self.call_first = first_label  # the first profile the current assignment call opened
        self.kept: dict[int, tuple] = {}  # keep_scores: mention row -> its scores against the profiles
        self.merged_profiles: dict[int, int] = {}  # existing profiles merged by the group model: absorbed -> kept
        self.reached: dict[int, set[int]] = {}  # note_reach: mention row -> profiles it has a strong pair in

    def new_label(self) -> int:
        self.next_label += 1
        return self.next_label - 1

    def begin_assign(self) -> None:
        """A newest-first assignment call starts: the profiles it opens are numbered from here."""
        self.call_first = self.next_label
        self.kept = {}
        self.reached = {}

    def new_profile(self, best: int) -> bool:
        """Whether a decision (``decide_link``'s cluster) opens or joins a profile of this call."""
        return best < 0 or best >= self.call_first

    def decide(self, uniq, mean, bad, forced, sizes) -> tuple[str, int, float | None]:
        """``decide_link`` with this run's threshold, "not sure" band and size exponent."""
        return decide_link(uniq, mean, bad, forced, self.threshold, self.unsure_low, sizes, self.size_exponent)

    def keep_scores(self, i: int, uniq, mean, bad, sizes, rows, labels, p) -> None:
        """What mention ``i``, which opened or joined a profile of this call, scored against the
        profiles of its block (``uniq``: their labels, ``mean`` / ``bad`` / ``sizes`` per label;
        ``rows`` / ``labels`` / ``p``: the members scored): ``join_new_profiles`` reads it."""
        self.kept[i] = (uniq, mean, bad, sizes, rows, labels, p)

    def note_reach(self, i: int, labels: np.ndarray, p: np.ndarray, cannot: np.ndarray) -> None:
        """The profiles (``labels`` of the members scored, ``p`` / ``cannot`` per member) in
        which new mention ``i`` has a pair the group model's step would ask about: a profile it
        joined may then merge with those (group_merge.join_new_groups)."""
        self.reached[i] = set(labels[(p >= CANDIDATE_FLOOR) & ~cannot].tolist())

    def join_new_profiles(self, pending: list) -> list:
        """The step average linkage takes in a batch run, after the newest-first decisions:
        each profile this call opened joins the existing profile with the highest average
        probability over all its members' pairs (each member's mean, averaged), when that
        reaches their merge_threshold and every member may join it. A lone new mention's mean to a
        profile can fall short where the group's does not (the first of three new papers of
        one person at 0.28, the others at 0.35): matched at once, the three merge first and
        then join. ``pending`` as record_links takes it; the moved mentions come back linked
        to their strongest member of the profile they joined."""
        groups: dict[int, list[int]] = defaultdict(list)
        for i, _, label, _, _ in pending:
            if label >= self.call_first:
                groups[label].append(i)
        moved: dict[int, int] = {}
        for label, members in groups.items():
            kept = [self.kept.get(i) for i in members]
            if len(members) < 2 or any(k is None for k in kept):
                continue  # a lone mention's mean is its group's, and it fell short
            labels = np.concatenate([k[0] for k in kept])
            old = labels < self.call_first
            uniq, inv = np.unique(labels[old], return_inverse=True)
            average = np.bincount(inv, weights=np.concatenate([k[1] for k in kept])[old], minlength=len(uniq)) / len(members)
            barred = np.bincount(inv, weights=np.concatenate([k[2] for k in kept])[old], minlength=len(uniq)) > 0
            sizes = np.zeros(len(uniq))
            sizes[inv] = np.concatenate([k[3] for k in kept])[old]  # a profile's size, as each member saw it
            # a profile every member was scored against and may join, and whose mean passes
            viable = (np.bincount(inv, minlength=len(uniq)) == len(members)) & ~barred
            viable &= average >= merge_threshold(self.threshold, len(members) * sizes, self.size_exponent)
            if viable.any():
                moved[label] = int(uniq[int(np.argmax(np.where(viable, average, -1.0)))])
        if not moved:
            return pending
        out = []
        for i, partner, label, score, outcome in pending:
            if label in moved:
                label = moved[label]
                uniq, mean, _, _, rows, labels, p = self.kept[i]
                inside = np.flatnonzero(labels == label)
                partner = int(rows[inside[np.argmax(p[inside])]])
                score, outcome = float(mean[np.searchsorted(uniq, label)]), "linked"
                self.labels[i] = label
            out.append((i, partner, label, score, outcome))
        return out

    def record_links(self, bn: BlockNames, pending, count_as: str = "", pool: np.ndarray | None = None,
                     barred: dict[int, set[int]] | None = None, apart=None) -> None:
        """Keep the links of decided mentions (``pending_links``), after the profiles the
        call opened had their chance to join existing ones (and, given the ``pool`` of the
        call's old and new mentions, the group model's step: ``group_merge.join_new_groups``), and count
        their outcomes."""
        pending = self.join_new_profiles(pending)
        joined: dict[int, dict[str, float]] = {}  # mention row -> why the group model moved it
        if pool is not None:
            pending = join_new_groups(self, pool, bn, pending, barred, joined, apart)
        for (i, *_), link in zip(pending, pending_links(self.data, bn, self.model, pending)):
            link.evidence.update(joined.get(i, {}))
            self.links[link.mention_id] = link
            self.stats[count_as + link.outcome] += 1

    # ---- batch clustering of one (sub-)block
    def cluster(self, idx: np.ndarray, bn: BlockNames, batch: np.ndarray | None = None) -> None:
        """Cluster ``idx``; ``batch`` (block number per mention) packs several small blocks
        into one call: pairs across blocks are cannot-links."""
        d, w = self.data, self.model
        if len(idx) == 1:
            i = int(idx[0])
            self.labels[i] = self.new_label()
            self.links[d.mentions[i].mention_id] = Link(d.mentions[i].mention_id, int(self.labels[i]), "singleton", None)
            self.stats["singleton"] += 1
            return
        L, cannot, must, _ = score_pairs(d, idx, idx, bn, w, symmetric=True)
        cannot, must = cannot.copy(), must.copy()
        if batch is not None:
            cannot |= batch[:, None] != batch[None, :]
        cannot, must = _override_matrices(d, idx, idx, self.ov, cannot, must)
        P = sigmoid(L)
        groups = _constrained_average_linkage(P, cannot, must, self.threshold, self.size_exponent)
        joined: dict[int, dict[str, float]] = {}  # position -> why its group joined another
        if w.group is not None and len(groups) > 1:
            merges: list = []
            merged = merge_groups(w.group.predict, w.group.threshold, d, idx, P, cannot, groups, bn, record=merges)
            self.stats["group_merges"] += len(groups) - len(merged)
            groups = merged
            for (a, b, _), why in zip(merges, merge_evidence(w.group, merges)):
                for k in (b if len(b) <= len(a) else a):  # the smaller side joined; its first merge
                    joined.setdefault(k, why)
        I, J, meta = [], [], []
        for g in groups:
            lab = self.new_label()
            gi = idx[g]
            self.labels[gi] = lab
            if len(g) == 1:
                mid = d.mentions[int(gi[0])].mention_id
                self.links[mid] = Link(mid, lab, "singleton", None)
                self.stats["singleton"] += 1
                continue
            sub = P[np.ix_(g, g)].copy()
            np.fill_diagonal(sub, -1.0)
            best = sub.argmax(1)
            np.fill_diagonal(sub, 0.0)
            mean = sub.sum(1) / (len(g) - 1)
            for k, li in enumerate(g):
                I.append(int(idx[li]))
                J.append(int(idx[g[best[k]]]))
                forced = bool(must[li, g[best[k]]])
                meta.append((lab, float(mean[k]), "forced" if forced else "clustered", li))
        ev = _explain(d, bn, w, I, J)
        for (i, j, (lab, sc, oc, li), e) in zip(I, J, meta, ev):
            mid = d.mentions[i].mention_id
            self.links[mid] = Link(mid, lab, oc, round(sc, 4), d.mentions[j].mention_id, {**e, **joined.get(li, {})})
            self.stats[oc] += 1

    # ---- newest-first assignment of `new` onto labelled `old` (same block)
    def assign(self, old: np.ndarray, new: np.ndarray, bn: BlockNames, *, count_as: str = "") -> None:
        d, cfg, w = self.data, self.cfg, self.model
        if len(new) == 0:
            return
        self.begin_assign()
        pool = np.concatenate([old, new]).astype(np.int64)
        n_old = len(old)
        lab = np.full(len(pool), -1, dtype=np.int64)
        lab[:n_old] = self.labels[old]
        # dense local cluster ids
        step = max(1, cfg.chunk_cells // max(1, len(pool)))
        pending_explain: list[tuple[int, int, int, float, str]] = []
        for s0 in range(0, len(new), step):
            rows = new[s0 : s0 + step]
            L, cannot, must, _ = score_pairs(d, rows, pool, bn, w)
            cannot, must = cannot.copy(), must.copy()
            cannot, must = _override_matrices(d, rows, pool, self.ov, cannot, must)
            P = sigmoid(L)
            for r in range(len(rows)):
                pos = n_old + s0 + r
                assigned = np.flatnonzero(lab >= 0)
                i = int(rows[r])
                outcome, best_lab, score, partner = "new", -1, None, None
                if len(assigned):
                    labs = lab[assigned]
                    uniq, inv = np.unique(labs, return_inverse=True)
                    cnt = np.bincount(inv)
                    mean = np.bincount(inv, weights=P[r, assigned]) / cnt
                    bad = np.bincount(inv, weights=cannot[r, assigned].astype(np.float64)) > 0
                    forced = (np.bincount(inv, weights=must[r, assigned].astype(np.float64)) > 0) & ~bad
                    # A cluster the mention may not join (cannot-link: another block of the
                    # pack, the same paper, a forced split) is no candidate: with none left
                    # the mention starts a profile with no score, whatever the pack holds.
                    outcome, best_lab, score = self.decide(uniq, mean, bad, forced, cnt)
                    self.note_reach(i, labs, P[r, assigned], cannot[r, assigned])
                    if self.new_profile(best_lab):
                        self.keep_scores(i, uniq, mean, bad, cnt, pool[assigned], labs, P[r, assigned])
                    if best_lab >= 0:
                        inside = assigned[labs == best_lab]
                        partner = int(pool[inside[np.argmax(P[r, inside])]])
                if best_lab < 0:
                    best_lab = self.new_label()
                lab[pos] = best_lab
                self.labels[i] = best_lab
                pending_explain.append((i, partner if partner is not None else -1, best_lab, score, outcome))
        self.record_links(bn, pending_explain, count_as, pool=pool)

    # ---- one block of match_all
    def cluster_block(self, idx: np.ndarray) -> None:
        d, cfg = self.data, self.cfg
        bn = block_names(d, idx)
        if len(idx) <= cfg.max_block:
            self.cluster(idx, bn)
            return
        self.stats["big_blocks"] += 1
        if cfg.candidate_clusters:
            from .big_block import assign_bounded

            def assign(old, new, bn, count_as):
                assign_bounded(self, old, new, bn, count_as=count_as)
        else:
            assign = self.assign
        names = [d.variants[g] for g in bn.uniq]
        initial = np.array([n.first_is_initial or not n.given for n in names])
        # connected components among full-name variants
        v = len(names)
        parent = list(range(v))

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        full = np.flatnonzero(~initial)
        sub = bn.compat[np.ix_(full, full)]
        for a, b in zip(*np.nonzero(np.triu(sub, 1))):
            ra, rb = find(full[a]), find(full[b])
            if ra != rb:
                parent[ra] = rb
        local = np.searchsorted(bn.uniq, d.variant[idx])
        init_mask = initial[local]
        comp = np.array([find(int(x)) for x in local])
        order_key = np.array([d.mentions[i].sort_date[0] for i in idx])
        for c in np.unique(comp[~init_mask]):
            cidx = idx[(comp == c) & ~init_mask]
            if len(cidx) <= cfg.max_block:
                self.cluster(cidx, bn)
            else:
                ck = order_key[np.searchsorted(idx, cidx)] if np.all(np.diff(idx) > 0) else np.array(
                    [d.mentions[i].sort_date[0] for i in cidx]
                )
                o = cidx[np.argsort(ck, kind="stable")]  # oldest first
                head, rest = o[: cfg.max_block], o[cfg.max_block :]
                self.cluster(head, bn)
                assign(head, rest[::-1], bn, count_as="chunk_")
        inits = idx[init_mask]
        if len(inits):
            done = idx[~init_mask]
            keys = np.array([d.mentions[i].sort_date[0] for i in inits])
            assign(done, inits[np.argsort(-keys, kind="stable")], bn, count_as="initials_")


# --------------------------------------------------------------------------- public API


def resolve_merges(merged: dict[int, int]) -> dict[int, int]:
    """Absorbed cluster -> the cluster it ends in, following chains (a profile merged into one
    that merged into a third in a later call)."""
    out = {}
    for a in merged:
        b = merged[a]
        while b in merged:
            b = merged[b]
        out[a] = b
    return out


def match_all(
    mentions: list[Mention], overrides: Overrides | None = None, config: MatchConfig | None = None
) -> Assignment:
    """Cluster every mention from scratch. Cluster labels are arbitrary ints (see identity.py)."""
    cfg = config or MatchConfig()
    if not mentions:
        return Assignment({}, {}, {})
    data = build_data(mentions)
    run = _Run(data, overrides, cfg)
    run_blocks(run, _group_blocks(data))
    clusters = {m.mention_id: int(l) for m, l in zip(mentions, run.labels)}
    by_id = {m.mention_id: m for m in mentions}
    join_by_upstream_ids(clusters, by_id, overrides, run.stats)
    apply_cross_block_links(clusters, by_id, overrides, run.stats)
    for mid, c in clusters.items():
        run.links[mid].cluster = c
    return Assignment(clusters, run.links, dict(run.stats))


def assign_incremental(
    existing_mentions: list[Mention],
    existing: Assignment | dict[str, int],
    new_mentions: list[Mention],
    overrides: Overrides | None = None,
    config: MatchConfig | None = None,
) -> Assignment:
    """Assign new mentions, newest first, onto an existing clustering.

    ``existing`` maps mention_id -> integer cluster label (researcher ids work) or is a
    previous ``Assignment``. ``existing_mentions`` needs only the mentions of the blocks the
    new mentions fall in (the pipeline loads those by block key); clusters elsewhere are
    carried over untouched. New profiles get labels above the largest existing label.
    Existing mentions move only where two existing clusters merge: the group model's step
    (``group_merge.join_new_groups``) may merge a cluster the new mentions joined with another
    of their block, as matching everything at once would (``Assignment.merged``: absorbed ->
    kept; every mention of the absorbed cluster moves). Otherwise re-cluster a block with
    ``match_all`` to revisit them. A new mention's profile may join an existing one of another
    block through identical upstream ids (``cross_block.join_by_upstream_ids``).
    """
    cfg = config or MatchConfig()
    prev_links = existing.links if isinstance(existing, Assignment) else {}
    prev = dict(existing.clusters if isinstance(existing, Assignment) else existing)
    new_mentions = [m for m in new_mentions if m.mention_id not in prev]
    new_blocks = {m.block for m in new_mentions}
    old = [m for m in existing_mentions if m.mention_id in prev and m.block in new_blocks]
    first = (max(prev.values()) + 1) if prev else 0
    clusters = dict(prev)
    links = {
        mid: prev_links.get(mid) or Link(mid, c, "existing", None) for mid, c in prev.items()
    }
    if not new_mentions:
        return Assignment(clusters, links, {})
    data = build_data(old + new_mentions)
    run = _Run(data, overrides, cfg, first_label=first)
    run.labels[: len(old)] = [prev[m.mention_id] for m in old]
    n_old = len(old)
    # Small blocks are packed into one scoring call of about batch_size mentions (as in
    # match_all): pairs across blocks have incompatible names, hence cannot-links, so a
    # pack decides exactly what its blocks would alone, at a fraction of the per-call cost.
    calls: list[AssignCall] = []
    pack: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    size = 0

    def flush() -> None:
        if pack:
            calls.append(AssignCall(np.concatenate([o for o, _, _ in pack]), np.concatenate([nw for _, nw, _ in pack]),
                                     [idx for _, _, idx in pack], packed=True))
            pack.clear()

    for idx in _group_blocks(data):
        o = idx[idx < n_old]
        nw = idx[idx >= n_old]
        if len(nw) == 0:
            continue
        keys = [data.mentions[i].sort_date for i in nw]
        order = sorted(range(len(nw)), key=keys.__getitem__, reverse=True)
        if len(idx) > cfg.batch_size // 2:
            calls.append(AssignCall(o, nw[order], [idx], packed=False))
            continue
        if size + len(idx) > cfg.batch_size:
            flush()
            size = 0
        pack.append((o, nw[order], idx))
        size += len(idx)
    flush()
    run_assign_calls(run, calls)
    for m, l in zip(new_mentions, run.labels[n_old:]):
        clusters[m.mention_id] = int(l)
    merged = resolve_merges(run.merged_profiles)
    if merged:
        clusters = {mid: merged.get(c, c) for mid, c in clusters.items()}
    links.update({mid: run.links[mid] for mid in (m.mention_id for m in new_mentions)})
    by_id = {m.mention_id: m for m in existing_mentions if m.mention_id in prev}
    by_id.update((m.mention_id, m) for m in new_mentions)
    join_by_upstream_ids(clusters, by_id, overrides, run.stats, only={m.mention_id for m in new_mentions})
    apply_cross_block_links(clusters, by_id, overrides, run.stats)
    for mid, c in clusters.items():
        if links[mid].cluster != c:
            links[mid].cluster = c
    return Assignment(clusters, links, dict(run.stats), merged)
