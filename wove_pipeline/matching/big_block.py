"""Newest-first assignment inside a huge name block with bounded work per mention.

``cluster._Run.assign`` scores each new mention against *every* earlier member of its
(sub-)block: in a block of n mentions that is n^2 / 2 pairs, and on a realistic archive the
big blocks grow with it ("y wang", "j li": tens of thousands of mentions; a full re-match of
10M mentions would score ~10^10 pairs). Here a mention of a huge block is decided by the
daily branch's rule (``profile_assign``: the same learned pair model, threshold, "not sure"
band and ``cluster.decide_link``), against the **representatives** of a few **candidate
clusters** instead of every member:

* **candidates**: the clusters whose members share an identifying token with the mention
  (an S2, OpenAlex or ORCID author id, a co-author key, an institution id, an affiliation
  term), ranked by how many tokens they share, the first ``MatchConfig.candidate_clusters``;
  a token held by more than ``TOKEN_POSTING`` members of the block (a co-author key like
  "w wang" in "y zhang") tells nobody apart and selects no candidate. A cluster sharing
  nothing with the mention is no candidate: the mention opens a new cluster (it could only
  join one by its name and text, which in a block this crowded is below the threshold);
* **mean**: the representatives' probabilities weighted by the members each stands for
  (``profiles.select_representatives`` picks them; a member that joins becomes one while
  there is room, else the closest stands for it: ``profiles.Profile.add``'s rule), exact
  while every member is a representative (clusters of at most ``MAX_REPRESENTATIVES``);
* **cannot- / must-links** from the cluster's aggregates over every member: a name form
  incompatible with the mention, another ORCID, a position of the same paper (cannot), the
  same ORCID (must) - what the pairwise constraints give over every member;
* mentions decided in one scoring call (``ROWS``) also see the earlier ones of the call
  that share a token with them (and the clusters they opened), members of weight 1.

Work per mention: at most ``candidate_clusters * MAX_REPRESENTATIVES`` pairs, whatever the
block's size. Blocks up to ``MatchConfig.max_block`` never come here (they are clustered
exactly); overrides that name a mention of the call send it to the exact assignment.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from .model import score_pairs
from .profiles import (
    MAX_REPRESENTATIVES,
    _jaccard,
    mention_tokens,
    select_representatives,
)
from .scoring import BlockNames, MatchData, sigmoid

if TYPE_CHECKING:
    from .cluster import _Run

TOKEN_POSTING = 256  # a token held by more members than this selects no candidates
ROWS = 256  # new mentions decided per scoring call


@dataclass(slots=True)
class _Cluster:
    reps: list[list] = field(default_factory=list)  # [pool position, weight, tokens]
    papers: set[int] = field(default_factory=set)
    orcids: set[int] = field(default_factory=set)
    forms: set[int] = field(default_factory=set)  # local name variants


def token_matrix(d: MatchData, pool: np.ndarray) -> sp.csr_matrix:
    """pool x tokens (binary): co-author keys, institution ids, affiliation terms, S2 /
    OpenAlex / ORCID author ids; tokens held by one member or more than TOKEN_POSTING dropped."""
    parts = [d.coauthors[pool], d.inst[pool], d.affil[pool]]
    n = len(pool)
    for codes in (d.s2, d.oa, d.orcid):
        c = codes[pool]
        ok = np.flatnonzero(c >= 0)
        parts.append(sp.csr_matrix((np.ones(len(ok), dtype=np.float32), (ok, c[ok])),
                                   shape=(n, int(c.max()) + 1 if len(ok) else 1)))
    T = sp.hstack(parts, format="csr", dtype=np.float32)
    T.data[:] = 1.0
    df = np.bincount(T.indices, minlength=T.shape[1])
    keep = np.flatnonzero((df >= 2) & (df <= TOKEN_POSTING))
    return T[:, keep].tocsr()


def _add_member(c: _Cluster, pos: int, toks: frozenset, k: int = MAX_REPRESENTATIVES) -> None:
    """profiles.Profile.add's rule for the representatives (one block)."""
    reps = c.reps
    if len(reps) < k:
        reps.append([pos, 1.0, toks])
        return
    covered = frozenset().union(*(r[2] for r in reps))
    if len(toks - covered) >= 2:
        best, pair = -1.0, (0, 1)
        for a in range(len(reps)):
            for b in range(a + 1, len(reps)):
                s = _jaccard(reps[a][2], reps[b][2])
                if s > best:
                    best, pair = s, (a, b)
        a, b = pair
        reps[b][1] += reps[a][1]  # the later (newer) one stays
        del reps[a]
        reps.append([pos, 1.0, toks])
        return
    max(reps, key=lambda r: _jaccard(r[2], toks))[1] += 1.0


def assign_bounded(run: _Run, old: np.ndarray, new: np.ndarray, bn: BlockNames, *, count_as: str = "") -> None:
    """``_Run.assign`` (``new`` newest first onto the labelled ``old`` of one block) with the
    work per mention bounded (see the module's docstring)."""
    d, cfg, w = run.data, run.cfg, run.model
    if len(new) == 0:
        return
    pool = np.concatenate([old, new]).astype(np.int64)
    if run.ov and len(run.ov):
        involved = run.ov.involved()
        if any(d.mentions[int(i)].mention_id in involved for i in pool):
            run.assign(old, new, bn, count_as=count_as)
            return
    run.begin_assign()
    n_old = len(old)
    lab = np.full(len(pool), -1, dtype=np.int64)
    lab[:n_old] = run.labels[old]
    vloc = np.searchsorted(bn.uniq, d.variant[pool])
    paper = d.paper_row[pool]
    orcid = d.orcid[pool]
    compat = bn.compat
    clusters: dict[int, _Cluster] = {}
    members: dict[int, list[int]] = {}
    for p, lb in enumerate(lab[:n_old].tolist()):
        members.setdefault(lb, []).append(p)
    for lb, ps in members.items():
        c = clusters[lb] = _Cluster()
        reps = select_representatives([d.mentions[int(pool[p])] for p in ps])
        at = {d.mentions[int(pool[p])].mention_id: p for p in ps}
        c.reps = [[at[r.mention_id], r.weight, r.tokens] for r in reps]
        c.papers = set(paper[ps].tolist())
        c.orcids = {o for o in orcid[ps].tolist() if o >= 0}
        c.forms = set(vloc[ps].tolist())
    del members
    T = token_matrix(d, pool)
    TT = T.T.tocsr()
    k_max = max(1, int(cfg.candidate_clusters))
    pending: list[tuple[int, int, int, float | None, str]] = []
    for s0 in range(0, len(new), ROWS):
        here = np.arange(n_old + s0, min(n_old + s0 + ROWS, len(pool)))
        S = (T[here] @ TT).tocsr()
        segs: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # per row: labels (-1: an earlier row), pos, weight
        J: list[np.ndarray] = []
        for r, pos in enumerate(here.tolist()):
            cols = S.indices[S.indptr[r]:S.indptr[r + 1]]
            vals = S.data[S.indptr[r]:S.indptr[r + 1]]
            lc = lab[cols]
            on = lc >= 0
            rl, rp, rw = [], [], []
            if on.any():
                u, inv = np.unique(lc[on], return_inverse=True)
                shared = np.bincount(inv, weights=vals[on])
                for lb in u[np.argsort(-shared, kind="stable")[:k_max]].tolist():
                    for rep in clusters[lb].reps:
                        rl.append(lb)
                        rp.append(rep[0])
                        rw.append(rep[1])
            earlier = cols[~on & (cols >= n_old + s0) & (cols < pos)]
            seg_p = np.concatenate([np.asarray(rp, dtype=np.int64), earlier])
            seg_l = np.concatenate([np.asarray(rl, dtype=np.int64), np.full(len(earlier), -1, dtype=np.int64)])
            seg_w = np.concatenate([np.asarray(rw, dtype=np.float64), np.ones(len(earlier))])
            segs.append((seg_l, seg_p, seg_w))
            J.append(seg_p)
        counts = [len(j) for j in J]
        cols_all = np.concatenate(J) if J else np.zeros(0, dtype=np.int64)
        rows_all = np.repeat(here, counts)
        if len(cols_all):
            L, cannot, must, _ = score_pairs(d, pool[rows_all], pool[cols_all], bn, w, pairs=True)
            P = sigmoid(L)
        else:
            P = cannot = must = np.zeros(0)
        start = 0
        for r, pos in enumerate(here.tolist()):
            seg_l, seg_p, seg_w = segs[r]
            end = start + len(seg_p)
            i = int(pool[pos])
            outcome, best, score, partner = "new", -1, None, None
            if len(seg_p):
                labs = np.where(seg_l >= 0, seg_l, lab[seg_p])
                p, cn, mu = P[start:end], cannot[start:end], must[start:end]
                uniq, inv = np.unique(labs, return_inverse=True)
                sizes = np.bincount(inv, weights=seg_w)
                mean = np.bincount(inv, weights=p * seg_w) / sizes
                bad = np.bincount(inv, weights=cn.astype(np.float64)) > 0
                forced = np.bincount(inv, weights=mu.astype(np.float64)) > 0
                v, pp, oo = int(vloc[pos]), int(paper[pos]), int(orcid[pos])
                for k, lb in enumerate(uniq.tolist()):
                    c = clusters[lb]
                    if pp in c.papers or (oo >= 0 and (c.orcids - {oo})) or not all(compat[v, f] for f in c.forms):
                        bad[k] = True
                    elif oo >= 0 and oo in c.orcids:
                        forced[k] = True
                forced &= ~bad
                outcome, best, score = run.decide(uniq, mean, bad, forced, sizes)
                if run.new_profile(best):
                    run.keep_scores(i, uniq, mean, bad, sizes, pool[seg_p], labs, p)
                if best >= 0:
                    inside = np.flatnonzero(labs == best)
                    partner = int(pool[seg_p[inside[np.argmax(p[inside])]]])
            start = end
            if best < 0:
                best = run.new_label()
                clusters[best] = _Cluster()
            c = clusters[best]
            _add_member(c, pos, mention_tokens(d.mentions[i]))
            c.papers.add(int(paper[pos]))
            if orcid[pos] >= 0:
                c.orcids.add(int(orcid[pos]))
            c.forms.add(int(vloc[pos]))
            lab[pos] = best
            run.labels[i] = best
            pending.append((i, partner if partner is not None else -1, best, score, outcome))
    run.record_links(bn, pending, count_as)
    run.stats[count_as + "bounded"] += len(new)
