"""Manual overrides: force link / force split between two mentions.

Overrides are keyed by stable mention ids (``"<arxiv_id>:<position>"``), so they survive
re-runs: the pipeline keeps them in a table (``to_rows`` / ``from_rows``) and passes them to
every ``match_all`` / ``assign_incremental`` call, where they act as constraints:

* force split -> cannot-link (the two mentions never end up in one cluster);
* force link -> must-link (distance 0 within a block; across blocks the two clusters are
  joined after clustering unless that would break a force split or two different ORCIDs).

A later override on the same pair replaces an earlier one.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Override:
    mention_a: str
    mention_b: str
    kind: str  # "link" | "split"
    reason: str = ""
    at: dt.datetime | None = None


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


@dataclass
class Overrides:
    _by_pair: dict[tuple[str, str], Override] = field(default_factory=dict)

    def force_link(self, mention_a: str, mention_b: str, reason: str = "", at=None) -> None:
        self._by_pair[_key(mention_a, mention_b)] = Override(mention_a, mention_b, "link", reason, at)

    def force_split(self, mention_a: str, mention_b: str, reason: str = "", at=None) -> None:
        self._by_pair[_key(mention_a, mention_b)] = Override(mention_a, mention_b, "split", reason, at)

    def remove(self, mention_a: str, mention_b: str) -> None:
        self._by_pair.pop(_key(mention_a, mention_b), None)

    @property
    def links(self) -> list[tuple[str, str]]:
        return [k for k, o in self._by_pair.items() if o.kind == "link"]

    @property
    def splits(self) -> list[tuple[str, str]]:
        return [k for k, o in self._by_pair.items() if o.kind == "split"]

    def split_set(self) -> set[tuple[str, str]]:
        return set(self.splits)

    def involved(self) -> set[str]:
        return {x for k in self._by_pair for x in k}

    def __len__(self) -> int:
        return len(self._by_pair)

    def to_rows(self) -> list[dict]:
        return [
            {"mention_a": o.mention_a, "mention_b": o.mention_b, "kind": o.kind, "reason": o.reason, "at": o.at}
            for o in self._by_pair.values()
        ]

    @classmethod
    def from_rows(cls, rows) -> "Overrides":
        ov = cls()
        for r in rows:
            if r["kind"] == "link":
                ov.force_link(r["mention_a"], r["mention_b"], r.get("reason", ""), r.get("at"))
            elif r["kind"] == "split":
                ov.force_split(r["mention_a"], r["mention_b"], r.get("reason", ""), r.get("at"))
            else:
                raise ValueError(f"unknown override kind {r['kind']!r}")
        return ov
