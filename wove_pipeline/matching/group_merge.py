"""Second stage of clustering: merge the groups average linkage left apart, by a model of
group pairs.

Average linkage (cluster._constrained_average_linkage) merges two groups when the mean
probability over their mention pairs is high. One person's papers drift (topics,
co-authors, places), so two halves of a prolific author can share a name, co-authors and
a field and still have a low mean over their pairs; two namesakes of one field can have a
higher one. A group pair carries evidence no mention pair does: the co-authors, venues,
words and sentence vectors of each whole group, and how the pairs between them spread
(their best pairs, the mean of each side's best match). The group model (LightGBM, trained
by ``wove matching train`` on the groups that held-out clustering leaves on each labelled
set: train.group_examples) reads these, and groups merge greedily, most probable first,
while a pair reaches the model's group threshold, each group once a round, then the
features of the merged groups are taken again.

Measured on the six real sets, each held out (bench/RESULTS.md, "Author matching quality";
2026-12-04, training pairs sampled per set): average linkage cut at 0.6 (no size exponent) and
merged here at 0.9, against the best cut of average linkage alone (0.7, exponent 0.2), B3 F1
acl_blocks 0.799 -> 0.806, acl_homonyms 0.625 -> 0.658, ads 0.932 -> 0.943, aminer110 0.872 ->
0.885, medline_pairs 0.974 -> 0.970, pubmed_sanyal 0.907 -> 0.902; mean 0.851 -> 0.861, mean B3
precision 0.890 -> 0.934 (0.938 or more on all but acl_homonyms). How much of that is the
training sample's luck: "Author matching quality across training samples" (the same figures
under other seeds); the figure with every model nested: "Author matching quality, fully
nested" (the held-out group model learns from groups cut by the other sets' held-out pair
models, which saw the scored set).

Features are ratios and cosines, not counts: counts grow with the groups' size, and two big
groups of namesakes would share more co-authors by count than two small groups of one
person. A group pair is a candidate only when some mention pair between them reaches
CANDIDATE_FLOOR: what no single pair supports is not merged, and a block of thousands of
groups asks the model about few pairs.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .model import contributions, score_pairs
from .scoring import BlockNames, MatchData, sigmoid, used_columns

GROUP_FEATURES: tuple[str, ...] = (
    "p_mean",  # mean pair probability between the groups
    "p_max",  # their most probable pair
    "best_match_min",  # mean over a group's members of each one's best pair in the other: the lower side
    "best_match_max",  # ... the higher side
    "grade_max",  # highest name grade (features.name_grade's codes) at which both reach one form of the block (_grades)
    "grade_min",  # lowest grade at which both reach one form
    "coauthors_named_share",  # co-authors by full name in common / the smaller group's distinct ones
    "coauthors_share",  # co-author blocks in common / the smaller group's
    "embedding_cosine",  # cosine of the groups' mean sentence vectors
    "text_cosine",  # cosine of the groups' summed TF-IDF texts
    "venue_cosine",
    "affiliation_cosine",
    "year_gap",  # years between their spans (0 when they overlap)
    "ids_shared",  # both carry upstream author ids: 1 some id in common
    "surname_variety",  # name_prior: the larger side (how common the name is)
    "first_name_variety",
)

# more of this evidence never makes "one person" less likely (the trees may not learn a set's
# accidents against it)
GROUP_MONOTONE = {
    "p_mean": 1, "p_max": 1, "best_match_min": 1, "best_match_max": 1, "grade_max": 1, "grade_min": 1,
    "coauthors_named_share": 1, "coauthors_share": 1, "embedding_cosine": 1, "text_cosine": 1,
    "venue_cosine": 1, "affiliation_cosine": 1, "year_gap": -1, "ids_shared": 1, "surname_variety": -1,
    "first_name_variety": -1,
}

CANDIDATE_FLOOR = 0.5  # a group pair is asked about only when one of its mention pairs reaches this


def _labels(groups: list[list[int]], n: int) -> tuple[np.ndarray, np.ndarray]:
    lab = np.empty(n, dtype=np.int64)
    for c, g in enumerate(groups):
        lab[g] = c
    return lab, np.bincount(lab, minlength=len(groups)).astype(np.float64)


def _indicator(lab: np.ndarray, k: int, cols: np.ndarray, width: int) -> sp.csr_matrix:
    """groups x columns, 1 where a member of the group has the column."""
    M = sp.csr_matrix((np.ones(len(cols)), (lab, cols)), shape=(k, max(width, 1)))
    M.data[:] = 1.0
    return M


def _row_dot(A: sp.csr_matrix, I: np.ndarray, J: np.ndarray) -> np.ndarray:
    return np.asarray(A[I].multiply(A[J]).sum(1)).ravel()


def _unit_rows(A: sp.csr_matrix) -> tuple[sp.csr_matrix, np.ndarray]:
    norms = np.sqrt(np.asarray(A.multiply(A).sum(1)).ravel())
    return sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ A, norms > 0


def group_pairs(data: MatchData, idx: np.ndarray, P: np.ndarray, cannot: np.ndarray, groups: list[list[int]],
                bn: BlockNames, fixed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The candidate group pairs ``(I, J, X)``: I < J index ``groups`` (lists of positions in
    ``idx``), no cannot-link between them, some mention pair at CANDIDATE_FLOOR or above and
    not both ``fixed``; X their features in GROUP_FEATURES order (NaN: missing evidence)."""
    n, k = len(idx), len(groups)
    empty = np.zeros(0, dtype=np.int64)
    if k < 2:
        return empty, empty, np.zeros((0, len(GROUP_FEATURES)))
    lab, sizes = _labels(groups, n)
    order = np.argsort(lab, kind="stable")
    starts = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int64)
    Pp = P[np.ix_(order, order)].astype(np.float64)
    p_max = np.maximum.reduceat(np.maximum.reduceat(Pp, starts, 0), starts, 1)
    bad = np.logical_or.reduceat(np.logical_or.reduceat(cannot[np.ix_(order, order)], starts, 0), starts, 1)
    candidate = (p_max >= CANDIDATE_FLOOR) & ~bad
    if fixed is not None:
        candidate &= ~np.logical_and.outer(fixed, fixed)
    I, J = np.nonzero(np.triu(candidate, 1))
    if not len(I):
        return empty, empty, np.zeros((0, len(GROUP_FEATURES)))
    f: dict[str, np.ndarray] = {}
    S = np.add.reduceat(np.add.reduceat(Pp, starts, 0), starts, 1)
    f["p_mean"] = S[I, J] / (sizes[I] * sizes[J])
    f["p_max"] = p_max[I, J]
    best = np.add.reduceat(np.maximum.reduceat(Pp, starts, 1), starts, 0) / sizes[:, None]  # [a, b]: a's members' best in b
    f["best_match_min"] = np.minimum(best[I, J], best[J, I])
    f["best_match_max"] = np.maximum(best[I, J], best[J, I])

    # everything below reads each group's members: only the groups some candidate pair holds
    # (``held``), as rows 0.. of the aggregates (a batch block's step asks about a few pairs
    # of its hundreds of groups); ``a``, ``b``: each pair's ends among them
    held, ends = np.unique(np.concatenate([I, J]), return_inverse=True)
    a, b = ends[:len(I)], ends[len(I):]
    row_of = np.full(k, -1, dtype=np.int64)
    row_of[held] = np.arange(len(held))
    mine = np.flatnonzero(row_of[lab] >= 0)  # the mentions of those groups, in the call's order
    g_of, at = row_of[lab[mine]], idx[mine]
    f["grade_max"], f["grade_min"] = _grades(g_of, np.searchsorted(bn.uniq, data.variant[at]), len(held), bn.grade, a, b)

    # held groups x their mentions: each sum below adds a group's members in the order the
    # call's every mention had them added (the same features, to the last bit)
    member = sp.csr_matrix((np.ones(len(mine)), (g_of, np.arange(len(mine)))), shape=(len(held), len(mine)))
    for name, X in (("coauthors_named_share", data.coauthor_names), ("coauthors_share", data.coauthors)):
        B = (member @ used_columns(X[at])).tocsr()
        B.data[:] = 1.0
        count = np.asarray(B.sum(1)).ravel()
        smaller = np.minimum(count[a], count[b])
        f[name] = np.where(smaller > 0, _row_dot(B, a, b) / np.maximum(smaller, 1), np.nan)

    rows = data.paper_row[at]
    E = (member @ (data.embedding[rows].astype(np.float64) * data.has_embedding[at][:, None]))
    norms = np.linalg.norm(E, axis=1)
    E /= np.where(norms > 0, norms, 1.0)[:, None]
    f["embedding_cosine"] = np.where((norms[a] > 0) & (norms[b] > 0), np.einsum("ij,ij->i", E[a], E[b]), np.nan)
    for name, X in (("text_cosine", data.text[rows]), ("venue_cosine", data.venue[at]),
                    ("affiliation_cosine", data.affil[at])):
        A, has = _unit_rows((member @ used_columns(X)).tocsr())
        f[name] = np.where(has[a] & has[b], _row_dot(A, a, b), np.nan)

    year = data.year[at]
    known = np.isfinite(year)
    lo = np.full(len(held), np.inf)
    hi = np.full(len(held), -np.inf)
    np.minimum.at(lo, g_of[known], year[known])
    np.maximum.at(hi, g_of[known], year[known])
    gap = np.maximum(0.0, np.maximum(lo[a], lo[b]) - np.minimum(hi[a], hi[b]))
    f["year_gap"] = np.where(np.isfinite(lo[a]) & np.isfinite(lo[b]), gap, np.nan)

    shared = np.zeros(len(I), dtype=bool)
    has_a, has_b = np.zeros(len(I), dtype=bool), np.zeros(len(I), dtype=bool)
    for codes in (data.s2, data.oa, data.orcid):
        c = codes[at]
        ok = c >= 0
        if not ok.any():
            continue
        _, cc = np.unique(c[ok], return_inverse=True)
        Ind = _indicator(g_of[ok], len(held), cc, int(cc.max()) + 1)
        carries = np.asarray(Ind.sum(1)).ravel() > 0
        has_a |= carries[a]
        has_b |= carries[b]
        shared |= _row_dot(Ind, a, b) > 0
    f["ids_shared"] = np.where(has_a & has_b, shared.astype(np.float64), np.nan)

    for name, per_variant in (("surname_variety", data.surname_variety), ("first_name_variety", data.first_name_variety)):
        most = np.full(len(held), -np.inf)
        np.maximum.at(most, g_of, per_variant[data.variant[at]])
        f[name] = np.maximum(most[a], most[b])
    X = np.column_stack([f[name] for name in GROUP_FEATURES]).astype(np.float64)
    return I.astype(np.int64), J.astype(np.int64), X


def _grades(group: np.ndarray, form: np.ndarray, k: int, grade: np.ndarray, a: np.ndarray,
            b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """grade_max and grade_min of the group pairs (``a[p]``, ``b[p]``); ``group`` and ``form``:
    each mention's group (0..k-1) and form (a row of ``grade``, the block's forms x forms in
    features.name_grade's codes). As the group model was trained on them: grade_max is the
    highest grade g such that some form of the block is at g or above from a form of each
    group, grade_min the lowest grade g such that some form is at exactly g from a form of
    each (through a form both reach, not form to form: a direct reading would need the
    group model trained again)."""
    codes = np.unique(group * len(grade) + form)  # each group's distinct forms, by group
    start = np.searchsorted(codes // len(grade), np.arange(k))  # every group has a member
    rows = grade[codes % len(grade)]
    grade_max, grade_min = np.zeros(len(a)), np.full(len(a), 4.0)
    for g in (1, 2, 3, 4):
        reach = np.logical_or.reduceat(rows >= g, start, axis=0)  # group x form: at g or above from one of its forms
        grade_max[(reach[a] & reach[b]).any(1)] = g
    for g in (3, 2, 1, 0):
        reach = np.logical_or.reduceat(rows == g, start, axis=0)
        grade_min[(reach[a] & reach[b]).any(1)] = g
    return grade_max, grade_min


def _open_pairs(data: MatchData, idx: np.ndarray, P: np.ndarray, cannot: np.ndarray, groups: list[list[int]],
                bn: BlockNames, fixed: list[bool]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """group_pairs where most groups are ``fixed`` (an incremental call: the profiles the call
    did not open up), over the groups a candidate pair can hold: the open ones and those with
    a member at CANDIDATE_FLOOR or above to a member of an open one. The same pairs in the same
    order with the same features (a pair's features read its two groups only), without the
    block's every group: most of a day's group step went to aggregating groups no candidate
    pair holds."""
    open_rows = [k for g, f in zip(groups, fixed) if not f for k in g]
    if not open_rows:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros((0, len(GROUP_FEATURES)))
    near = (P[open_rows] >= CANDIDATE_FLOOR).any(0)
    keep = np.array([c for c, (g, f) in enumerate(zip(groups, fixed)) if not f or near[g].any()], dtype=np.int64)
    rows = np.concatenate([np.asarray(groups[c], dtype=np.int64) for c in keep])
    local = np.empty(len(idx), dtype=np.int64)
    local[rows] = np.arange(len(rows))
    I, J, X = group_pairs(data, idx[rows], P[np.ix_(rows, rows)], cannot[np.ix_(rows, rows)],
                          [local[groups[c]].tolist() for c in keep], bn, np.asarray(fixed, dtype=bool)[keep])
    return keep[I], keep[J], X


def merge_groups(predict, threshold: float, data: MatchData, idx: np.ndarray, P: np.ndarray, cannot: np.ndarray,
                 groups: list[list[int]], bn: BlockNames, fixed: list[bool] | None = None,
                 record: list | None = None, before_round=None) -> list[list[int]]:
    """Merge ``groups`` while the group model (``predict``: features -> probability) gives a
    candidate pair at least ``threshold``: each round the most probable pairs first, a group
    in one merge a round, then the pairs are scored again with the merged groups.
    ``fixed`` (incremental assignment): the groups that never merge with each other (the
    existing profiles the call did not touch); a group that merged is not fixed any more.
    ``before_round(groups, fixed flags)``: called before each round's pairs are taken (the
    incremental step scores the open groups' members there). ``record``: each merge is
    appended to it as (one group's members, the other's, the features the model read):
    merge_evidence explains them."""
    groups = [list(g) for g in groups]
    flags = None if fixed is None else list(fixed)
    while len(groups) > 1:
        if before_round is not None:
            before_round(groups, flags)
        if flags is None:
            I, J, X = group_pairs(data, idx, P, cannot, groups, bn)
        else:
            I, J, X = _open_pairs(data, idx, P, cannot, groups, bn, flags)
        if not len(I):
            break
        p = predict(X)
        taken: set[int] = set()
        into: dict[int, int] = {}
        row_of: dict[int, int] = {}  # the merge's row of X
        for o in np.argsort(-p, kind="stable"):
            if p[o] < threshold:
                break
            a, b = int(I[o]), int(J[o])
            if a in taken or b in taken:
                continue
            taken |= {a, b}
            into[b] = a
            row_of[b] = int(o)
        if not into:
            break
        for b, a in into.items():
            if record is not None:
                record.append((groups[a], groups[b], X[row_of[b]]))
            groups[a] = groups[a] + groups[b]
            if flags is not None:
                flags[a] = False
        groups = [g for c, g in enumerate(groups) if c not in into]
        if flags is not None:
            flags = [f for c, f in enumerate(flags) if c not in into]
    return groups


def merge_evidence(group, merges: list) -> list[dict[str, float]]:
    """Why each recorded merge (merge_groups' ``record``) was made, as a link's evidence says
    why of its pair: what each group feature added to the group model's log-odds
    ("group:<feature>", as PairModel.contributions) and the log-odds ("group:log_odds"). The
    links of the group that joined carry it beside their pair's evidence: without it a link
    shows only the pair inside its own group, not what joined the two groups."""
    if not merges:
        return []
    C = np.round(contributions(group.predict, np.array([x for _, _, x in merges])), 3)
    return [{**{f"group:{f}": float(v) for f, v in zip(GROUP_FEATURES, row[:-1]) if v != 0.0},
             "group:log_odds": float(row[-1])} for row in C]


def join_new_groups(run, pool: np.ndarray, bn: BlockNames, pending: list,
                    barred: dict[int, set[int]] | None = None, joined: dict | None = None,
                    apart=None) -> list:
    """The group model's step in an assignment call of ``run`` (cluster._Run), as match_all
    takes it after average linkage, over the call's ``pool`` (its old and new mentions): the
    groups this call opened join an existing profile or each other, and an existing profile a
    new mention joined may join another existing profile, when the group model says so. A
    new paper can be what two halves of one person have in common (a co-author of each, a
    topic between them): matched at once the halves merge through it, so a day's run lets the
    profiles it touched merge too (held out on the real sets, the newest 10% assigned after
    the rest stayed further from matching at once without it: with the same models aminer110
    0.0065 B3 F1 below against 0.0039, acl_homonyms 0.012 against 0.003). Two profiles the call did not touch never merge, nor do two that
    ``apart`` (labels -> pairs of labels: the daily run's profile-level constraints) names; a
    mention never joins a profile ``barred`` to it (mention row -> labels). The merges of
    existing profiles are kept in ``run.merged_profiles`` (absorbed label -> kept label): the
    caller moves the absorbed profile's other members. Skipped above max_block mentions (a
    big block's assignment, and a crowded block's by profile, are bounded per mention:
    big_block, profile_assign). ``joined`` (mention row -> evidence) gets why the group model
    moved each new mention it moved (merge_evidence).

    A bridged pair merges on the group model's word alone, even when the two profiles' earlier
    members by themselves already reach its threshold. A veto of such merges (5c1e928 to
    2026-12-06: "the run that placed them saw more of them and kept them apart") was measured
    on the real sets held out (bench/RESULTS.md, "Author matching quality"): every merge it
    blocked on ads and aminer110, 18 of 18, joined two pieces of one person, and it kept the
    ads newest 10% by profile 0.0074 B3 F1 below matching at once (-0.0001 without it). What
    it had stopped were the bench archive's copied twins (bench/archive_people.py: until
    9ce354c a copy could repeat a person's papers word for word under the same name), not
    real people."""
    from .cluster import _override_matrices

    d, w = run.data, run.model
    if w.group is None or len(pool) > run.cfg.max_block:
        return pending
    labels = run.labels[pool]
    uniq, inv = np.unique(labels, return_inverse=True)
    if len(uniq) < 2:
        return pending
    new_rows = np.isin(pool, [p[0] for p in pending])
    # an existing profile may merge with another when a new mention it holds has a strong pair
    # in another existing profile (``run.note_reach``): the new paper is the bridge. The others
    # stay fixed: asking about every profile a day touched took a 10k archive's day's group
    # step from 2 to 14 s (sampled, beside another bench).
    bridging = np.zeros(len(uniq), dtype=bool)
    for k in np.flatnonzero(new_rows).tolist():
        own = int(labels[k])
        if any(x != own and x < run.call_first for x in run.reached.get(int(pool[k]), ())):
            bridging[inv[k]] = True
    fixed = (uniq < run.call_first) & ~bridging
    if fixed.all():
        return pending  # no profile opened, none bridged: nothing may merge
    groups = [np.flatnonzero(inv == k).tolist() for k in range(len(uniq))]
    n = len(pool)
    P = np.zeros((n, n), dtype=np.float32)
    cannot = np.zeros((n, n), dtype=bool)
    for a, b in (apart(uniq[uniq < run.call_first]) if apart is not None else ()):
        ia, ib = np.flatnonzero(labels == a), np.flatnonzero(labels == b)
        cannot[np.ix_(ia, ib)] = cannot[np.ix_(ib, ia)] = True
    scored = np.zeros(n, dtype=bool)

    def score_open_groups(groups: list[list[int]], flags: list[bool]) -> None:
        """Score the members of the groups that may merge (once): a group of a profile the
        call did not touch is scored only after it merged with one that may."""
        rows = np.array([k for g, f in zip(groups, flags) if not f for k in g if not scored[k]], dtype=np.int64)
        if not len(rows):
            return
        L, c, m, _ = score_pairs(d, pool[rows], pool, bn, w)
        c, _ = _override_matrices(d, pool[rows], pool, run.ov, c.copy(), m.copy())
        for r, k in enumerate(rows.tolist()):
            barred_labels = (barred or {}).get(int(pool[k]))
            if barred_labels:
                c[r] |= np.isin(labels, list(barred_labels))
        p = sigmoid(L)
        P[rows], P[:, rows] = p, p.T
        cannot[rows] |= c
        cannot[:, rows] |= c.T
        scored[rows] = True

    merges: list = []
    merged = merge_groups(w.group.predict, w.group.threshold, d, pool, P, cannot, groups, bn,
                          fixed=list(fixed), record=merges, before_round=score_open_groups)
    run.stats["group_merges"] += len(groups) - len(merged)
    moved: dict[int, int] = {}  # mention row -> its new label
    for g in merged:
        target = int(labels[g].min())  # the kept profile's label when the group holds one
        for absorbed in {int(x) for x in labels[g]} - {target}:
            if absorbed < run.call_first:
                run.merged_profiles[absorbed] = target
                run.stats["profile_merges"] += 1
        moved.update((int(pool[k]), target) for k in g if labels[k] != target)
    if not moved:
        return pending
    if joined is not None:
        for (a, b, _), why in zip(merges, merge_evidence(w.group, merges)):
            for k in a + b:
                if new_rows[k] and int(pool[k]) in moved:
                    joined.setdefault(int(pool[k]), why)
    run.labels[list(moved)] = list(moved.values())
    after = run.labels[pool]
    position = {int(r): k for k, r in enumerate(pool)}
    out = []
    for i, partner, label, score, outcome in pending:
        if i in moved:
            label, row = moved[i], P[position[i]]
            inside = np.flatnonzero((after == label) & (pool != i))
            partner = int(pool[inside[np.argmax(row[inside])]])
            score, outcome = float(row[inside].mean()), "linked"
        out.append((i, partner, label, score, outcome))
    return out
