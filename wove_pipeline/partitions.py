"""The one partition definition: UTC days of the OAI datestamp (last-modification day).

Its days run from WOVE_PARTITIONS_START (default 2025-01-01: where this deployment's history
begins; a backfill reaches further by widening it, not by a second definition) to
WOVE_PARTITIONS_END (inclusive; default: today, growing every day). `wove demo` and `wove ui`
on the sandbox set both to the sandbox world's days, so the UI offers the days that have data
and its launch dialog's default range selects them. Read when the code location loads.
"""

import datetime as dt
import os

import dagster as dg

PARTITIONS_START = "2025-01-01"
START_VAR = "WOVE_PARTITIONS_START"
END_VAR = "WOVE_PARTITIONS_END"


def _day(var: str, default: str | None) -> dt.date | None:
    value = os.environ.get(var) or default
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value.strip())
    except ValueError:
        raise ValueError(f"{var}={value!r} is not a day (YYYY-MM-DD)") from None


def build_daily_partitions() -> dg.DailyPartitionsDefinition:
    start = _day(START_VAR, PARTITIONS_START)
    last = _day(END_VAR, None)
    if last is not None and last < start:
        raise ValueError(f"{END_VAR}={last} is before {START_VAR}={start}")
    # Dagster's end_date is exclusive: the day after the last one.
    end = (last + dt.timedelta(days=1)).isoformat() if last is not None else None
    return dg.DailyPartitionsDefinition(start_date=start.isoformat(), end_date=end, timezone="UTC", end_offset=0)


daily_partitions = build_daily_partitions()
