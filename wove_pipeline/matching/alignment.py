"""Align an arXiv author list with S2's / OpenAlex's author list for the same paper.

The upstream lists may differ in length (dropped or collapsed authors, collaborations),
order, and spelling ("P. Wang" vs "Peng Wang", diacritics). We score every pair by name
similarity plus a small position prior and solve the assignment optimally
(Hungarian algorithm, ``scipy.optimize.linear_sum_assignment``). Pairs whose names are
incompatible are never aligned.
"""

from __future__ import annotations

import numpy as np
from rapidfuzz import fuzz
from scipy.optimize import linear_sum_assignment

from .names import Name, name_evidence, parse_name

_GRADE = {"full_exact": 1.0, "full_nick": 0.85, "partial": 0.8, "initials": 0.7}


def _pair_score(a: Name, b: Name, i: int, j: int, n: int, m: int) -> float:
    grade = name_evidence(a, b)
    if grade == "incompatible":
        # surname typo / transliteration difference: allow only very close strings
        r = fuzz.ratio(a.display, b.display) / 100.0
        if r < 0.85 or a.first_initial != b.first_initial:
            return 0.0
        base = 0.5 * r
    else:
        base = _GRADE[grade]
    # position prior: relative positions agree -> up to +0.1
    rel = abs(i / max(n - 1, 1) - j / max(m - 1, 1)) if n > 1 and m > 1 else float(i != j)
    return base * (0.9 + 0.1 * (1.0 - min(1.0, rel)))


def align_authorships(
    arxiv_names: list[str], other_names: list[str]
) -> list[tuple[int, int | None, float]]:
    """Align two author lists of one paper.

    Returns one tuple per arXiv position: ``(arxiv_pos, other_pos or None, confidence)``
    with confidence in [0, 1] (0 when unaligned). Positions are 0-based. The common case of
    identical lists costs O(n).
    """
    n, m = len(arxiv_names), len(other_names)
    if n == 0:
        return []
    if m == 0:
        return [(i, None, 0.0) for i in range(n)]
    a_names = [parse_name(s) for s in arxiv_names]
    b_names = [parse_name(s) for s in other_names]
    # fast path: same length and every position compatible
    if n == m:
        scores = [_pair_score(a, b, i, i, n, m) for i, (a, b) in enumerate(zip(a_names, b_names))]
        if all(s >= 0.6 for s in scores) and _unambiguous(a_names):
            return [(i, i, round(s, 3)) for i, s in enumerate(scores)]
    if n * m > 4_000_000:  # giant collaborations: positional fallback with name check
        out = []
        for i, a in enumerate(a_names):
            if i < m:
                s = _pair_score(a, b_names[i], i, i, n, m)
                out.append((i, i if s >= 0.6 else None, round(s, 3) if s >= 0.6 else 0.0))
            else:
                out.append((i, None, 0.0))
        return out
    S = np.zeros((n, m))
    # block by surname key to keep large lists cheap
    by_last: dict[str, list[int]] = {}
    for j, b in enumerate(b_names):
        by_last.setdefault(b.last_key[:3], []).append(j)
    for i, a in enumerate(a_names):
        cand = by_last.get(a.last_key[:3], []) if n * m > 10_000 else range(m)
        for j in cand:
            S[i, j] = _pair_score(a, b_names[j], i, j, n, m)
    rows, cols = linear_sum_assignment(-S)
    best = {int(r): (int(c), float(S[r, c])) for r, c in zip(rows, cols)}
    out = []
    for i in range(n):
        c, s = best.get(i, (None, 0.0))
        if c is None or s < 0.3:
            out.append((i, None, 0.0))
        else:
            # confidence drops when another column in this row scores almost as well
            row = S[i].copy()
            row[c] = 0.0
            margin = s - row.max() if m > 1 else s
            conf = s * (0.5 + 0.5 * min(1.0, max(0.0, margin) / 0.3))
            out.append((i, c, round(conf, 3)))
    return out


def _unambiguous(names: list[Name]) -> bool:
    keys = [n.block for n in names]
    return len(set(keys)) == len(keys)
