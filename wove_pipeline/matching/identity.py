"""Stable researcher ids across re-clusterings.

Rules (DESIGN.md "Identity"):

* a new cluster whose mentions all carried one old id keeps it;
* each old id goes to its *largest part* (the new cluster holding most of its mentions;
  ties: the larger cluster, then the smallest mention id) — so a **split keeps the id on
  the larger part** and the other parts get fresh ids (from ``next_id``), recorded as
  ``split`` rows (old id stays live);
* a new cluster that is the largest part of several old ids is a **merge**: it keeps the
  id with the most mentions (ties: lowest id); the others are retired with a ``merge``
  redirect to it;
* old ids whose mentions all disappeared are retired with reason ``orphaned`` (redirect to
  ``None``) — this only happens when papers are deleted;
* clusters untouched by a change keep their id, and redirect chains are compressed so every
  retired id points at a live id.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Redirect:
    old_id: int
    new_id: int | None
    reason: str  # "merge" (old id retired) | "split" (new id carved out of a live old id) | "orphaned"
    at: dt.datetime | None = None


@dataclass
class IdentityResult:
    mention_ids: dict[str, int]  # mention -> researcher id
    new_redirects: list[Redirect]  # rows produced by this run
    redirects: dict[int, Redirect]  # full retired-id table (old_id -> row), chains compressed
    next_id: int  # next free id
    created: list[int] = field(default_factory=list)
    retired: list[int] = field(default_factory=list)


def resolve(redirects: dict[int, Redirect], rid: int) -> int | None:
    """Follow merge redirects to the live id (None if orphaned)."""
    seen = set()
    cur: int | None = rid
    while cur is not None and cur in redirects and cur not in seen:
        seen.add(cur)
        cur = redirects[cur].new_id
    return cur


def assign_ids(
    previous: dict[str, int],
    clusters: dict[str, object],
    *,
    redirects: dict[int, Redirect] | list[Redirect] | None = None,
    next_id: int | None = None,
    at: dt.datetime | None = None,
) -> IdentityResult:
    """Map a new clustering (mention -> any cluster label) to stable researcher ids.

    ``previous`` is the last run's mention -> researcher id map, ``redirects`` its retired
    ids. ``next_id`` defaults to one above every id seen.
    """
    at = at or dt.datetime.now(dt.timezone.utc)
    red: dict[int, Redirect] = {}
    for r in (redirects.values() if isinstance(redirects, dict) else (redirects or [])):
        red[r.old_id] = r
    prev = {m: (resolve(red, i) if i in red else i) for m, i in previous.items()}
    prev = {m: i for m, i in prev.items() if i is not None}
    counter = next_id if next_id is not None else (
        max([*prev.values(), *red.keys(), *(r.new_id for r in red.values() if r.new_id is not None), 0]) + 1
    )

    members: dict[object, list[str]] = defaultdict(list)
    for m, c in clusters.items():
        members[c].append(m)
    old_size = Counter(prev.values())
    # overlap of each old id with each new cluster
    overlap: dict[int, Counter] = defaultdict(Counter)
    for c, ms in members.items():
        for m in ms:
            o = prev.get(m)
            if o is not None:
                overlap[o][c] += 1
    min_member = {c: min(ms) for c, ms in members.items()}
    home: dict[int, object] = {}
    for o, cnt in overlap.items():
        home[o] = max(cnt, key=lambda c: (cnt[c], len(members[c]), _neg(min_member[c])))
    claims: dict[object, list[int]] = defaultdict(list)
    for o, c in home.items():
        claims[c].append(o)

    out: dict[str, int] = {}
    rows: list[Redirect] = []
    created: list[int] = []
    retired: list[int] = []
    # deterministic order: clusters by their smallest mention id
    for c in sorted(members, key=lambda c: min_member[c]):
        ids = claims.get(c, [])
        if ids:
            keep = min(ids, key=lambda i: (-old_size[i], i))
            for o in sorted(ids):
                if o != keep:
                    rows.append(Redirect(o, keep, "merge", at))
                    retired.append(o)
        else:
            keep = counter
            counter += 1
            created.append(keep)
            parents = sorted({prev[m] for m in members[c] if m in prev})
            for o in parents:
                rows.append(Redirect(o, keep, "split", at))
        for m in members[c]:
            out[m] = keep
    # old ids with no surviving mention
    for o in sorted(set(prev.values()) - set(overlap)):
        rows.append(Redirect(o, None, "orphaned", at))
        retired.append(o)
    new_red = dict(red)
    for r in rows:
        if r.reason != "split":
            new_red[r.old_id] = r
    # compress chains: every retired id points at a live id
    for o, r in list(new_red.items()):
        if r.new_id is not None:
            tgt = resolve(new_red, o)
            if tgt != r.new_id:
                new_red[o] = Redirect(o, tgt, r.reason, r.at)
    return IdentityResult(out, rows, new_red, counter, created, retired)


def _neg(s: str):
    # max() with "smallest mention id wins" on ties
    return tuple(-ord(ch) for ch in s)
