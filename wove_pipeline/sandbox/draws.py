"""Seeded random draws the generator shares (only ``random.Random(seed)``: one seed, one world)."""

from __future__ import annotations

import datetime as dt
import random


def weighted(rng: random.Random, items: list[tuple[object, float]]):
    """Draw one item from (item, weight) pairs (precomputed cumulative weights are cached)."""
    key = id(items)
    cum = _CUM_CACHE.get(key)
    if cum is None or cum[0] is not items:
        acc, total = [], 0.0
        for _, w in items:
            total += w
            acc.append(total)
        cum = (items, acc, total)
        _CUM_CACHE[key] = cum
    _, acc, total = cum
    return items[min(cumulative_index(acc, rng.random() * total), len(items) - 1)][0]


_CUM_CACHE: dict[int, tuple] = {}


def cumulative_index(acc: list[float], x: float) -> int:
    lo, hi = 0, len(acc)
    while lo < hi:
        mid = (lo + hi) // 2
        if acc[mid] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def at_random_time(day: dt.date, rng: random.Random) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, rng.randint(0, 23), rng.randint(0, 59),
                       rng.randint(0, 59), tzinfo=dt.timezone.utc)
