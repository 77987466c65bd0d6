"""The partition, in one place: UTC days of the OAI datestamp (last-modification day).

- ``DayRange``: the days one run covers (a day, or a backfill's range of days), the one name
  every stage and the raw layer use for them. Dagster-free: the core imports it.
- ``daily_partitions``: the Dagster partition definition. Its days run from
  WOVE_PARTITIONS_START (default 2025-01-01: where this deployment's history begins; a
  backfill reaches further by widening it, not by a second definition) to WOVE_PARTITIONS_END
  (inclusive; default: today, growing every day). `wove demo` and `wove ui` on the sandbox set
  both to the sandbox world's days, so the UI offers the days that have data and its launch
  dialog's default range selects them. Read when the code location loads.
- ``BACKFILL``: the backfill policy (many days per run).
- ``day_range(context)``: the run's DayRange.

The Dagster objects are built on first use (module ``__getattr__``), so that importing
``DayRange`` does not import Dagster.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from wove_pipeline.settings import PARTITIONS_END_VAR as END_VAR
from wove_pipeline.settings import PARTITIONS_START_VAR as START_VAR
from wove_pipeline.settings import partitions_window

__all__ = ["BACKFILL", "END_VAR", "START_VAR", "DayRange", "build_daily_partitions", "daily_partitions", "day_range"]


@dataclass(frozen=True, order=True)
class DayRange:
    """Consecutive UTC days, first..last inclusive."""

    first: dt.date
    last: dt.date

    def __post_init__(self) -> None:
        if self.last < self.first:
            raise ValueError(f"a day range ends ({self.last}) before it starts ({self.first})")

    @classmethod
    def of(cls, days: Iterable[dt.date | str]) -> "DayRange":
        """The range spanning these days (partition keys or dates; at least one)."""
        parsed = sorted(d if isinstance(d, dt.date) else dt.date.fromisoformat(d) for d in days)
        if not parsed:
            raise ValueError("a day range needs at least one day")
        return cls(parsed[0], parsed[-1])

    @classmethod
    def day(cls, day: dt.date) -> "DayRange":
        return cls(day, day)

    @property
    def days(self) -> list[dt.date]:
        return [self.first + dt.timedelta(days=i) for i in range(len(self))]

    @property
    def label(self) -> str:
        """How the raw layer and the logs name the range: ``2025-08-04`` or ``2025-08-04_2025-08-10``."""
        first = self.first.isoformat()
        return first if self.first == self.last else f"{first}_{self.last.isoformat()}"

    def __iter__(self) -> Iterator[dt.date]:
        return iter(self.days)

    def __len__(self) -> int:
        return (self.last - self.first).days + 1

    def __contains__(self, day: object) -> bool:
        return isinstance(day, dt.date) and self.first <= day <= self.last

    def __str__(self) -> str:
        return self.first.isoformat() if self.first == self.last else f"{self.first} .. {self.last}"


# A month of days per run: backfills become tens of runs, not hundreds.
MAX_DAYS_PER_RUN = 31


def build_daily_partitions():
    """A fresh partition definition from the current environment (``daily_partitions`` is the one
    built when the code location loads; tests change the window)."""
    import dagster as dg

    start, last = partitions_window()
    # Dagster's end_date is exclusive: the day after the last one.
    end = (last + dt.timedelta(days=1)).isoformat() if last is not None else None
    return dg.DailyPartitionsDefinition(start_date=start.isoformat(), end_date=end, timezone="UTC", end_offset=0)


def _build_backfill_policy():
    import dagster as dg

    return dg.BackfillPolicy.multi_run(max_partitions_per_run=MAX_DAYS_PER_RUN)


_LAZY = {"daily_partitions": build_daily_partitions, "BACKFILL": _build_backfill_policy}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import warnings

    import dagster as dg

    # Backfill policies (many partitions per run) are deliberate here; Dagster 1.13 still marks
    # them beta and would warn on every import.
    warnings.filterwarnings("ignore", category=dg.BetaWarning)
    value = _LAZY[name]()
    globals()[name] = value  # built once
    return value


def day_range(context) -> DayRange:
    """The days of a Dagster run's partition range (one key for a normal run)."""
    return DayRange.of(context.partition_keys)
