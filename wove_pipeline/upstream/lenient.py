"""Per-record parsing of list responses: one bad record is set aside with its reason and
raw payload (for the quarantine table), and the rest of the response is kept.

Envelope problems (a body that is not JSON, a list that is not a list, a misaligned batch)
still raise: those are transport faults the HTTP layer retries.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, TypeVar

T = TypeVar("T")


class BadRecord(NamedTuple):
    index: int  # position in the response's list
    reason: str
    payload: str  # the record as JSON


def parse_each(
    items: Sequence[Any],
    parse_one: Callable[[Any], T],
    error: type[Exception],
    bad: list[BadRecord] | None,
) -> list[T | None]:
    """parse_one over items, in order; a JSON null stays None. With `bad` given, an item
    whose parse raises `error` becomes None and is appended to `bad`; without it, it raises."""
    out: list[T | None] = []
    for i, item in enumerate(items):
        if item is None:
            out.append(None)
            continue
        try:
            out.append(parse_one(item))
        except error as exc:
            if bad is None:
                raise
            bad.append(BadRecord(i, f"{type(exc).__name__}: {exc}", json.dumps(item, ensure_ascii=False, default=str)))
            out.append(None)
    return out
