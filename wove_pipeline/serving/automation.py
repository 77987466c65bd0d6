"""What joins the day to the publish: the data, not a clock (the decisions, Dagster-free).

The global stages (matching, metrics, the serving publish: the `publish` job) run when a
day's partitions have landed: a run-status sensor (`publish_when_day_lands`) requests the
publish when a run that materialized daily partitions succeeds and every daily asset of
those days is materialized. A day whose latest run failed holds every publish (the
sensor's and the daily catch-up schedule's, `publish_daily`) and each says which day and
which run, until the day is re-run successfully (README: "Re-running failed partitions"):
its papers are in the core tables, but their enrichment is not, and a publish then would
serve metrics built without it.

This module decides from plain values (the finished runs of daily assets, the partitions
each daily asset has materialized); the sensors and the schedule that read those from the
Dagster instance and answer with Dagster's RunRequest / SkipReason are in definitions.py.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

# How far back a failed day holds the publish: older failures are left to the checks.
LOOKBACK = dt.timedelta(days=30)
# Dagster's run statuses (DagsterRunStatus values) of a run that ended without success.
FAILED = frozenset({"FAILURE", "CANCELED"})
SUCCESS = "SUCCESS"

# The run tags Dagster gives a run of one partition, or of a range (a backfill policy).
PARTITION_TAG = "dagster/partition"
RANGE_START_TAG = "dagster/asset_partition_range_start"
RANGE_END_TAG = "dagster/asset_partition_range_end"


@dataclass(frozen=True)
class HeldDay:
    partition: str
    run_id: str
    status: str


@dataclass(frozen=True)
class FinishedRun:
    """A finished run of daily assets: its status (a DagsterRunStatus value), when it ended
    (epoch seconds) and the partitions it targeted."""
    run_id: str
    status: str
    ended: float
    partitions: tuple[str, ...]


@dataclass(frozen=True)
class Decision:
    """Publish (``publish``, with the request's run key and tags) or not (``reason`` says why)."""
    publish: bool
    reason: str = ""
    run_key: str | None = None
    tags: Mapping[str, str] = field(default_factory=dict)


def run_partitions(tags: Mapping[str, str], keys_in_range: Callable[[str, str], Iterable[str]]) -> list[str]:
    """The partition keys a run targeted, from its tags (one key, or a range from a backfill
    policy, expanded by ``keys_in_range(start, end)``)."""
    if PARTITION_TAG in tags:
        return [tags[PARTITION_TAG]]
    start, end = tags.get(RANGE_START_TAG), tags.get(RANGE_END_TAG)
    if start and end:
        return list(keys_in_range(start, end))
    return []


def held_days(runs: Iterable[FinishedRun]) -> list[HeldDay]:
    """Days whose latest finished run of daily assets failed (or was canceled), newest first."""
    latest: dict[str, FinishedRun] = {}
    for run in runs:
        for partition in run.partitions:
            if partition not in latest or latest[partition].ended < run.ended:
                latest[partition] = run
    held = [HeldDay(p, run.run_id, run.status) for p, run in latest.items() if run.status in FAILED]
    return sorted(held, key=lambda h: h.partition, reverse=True)


def landed(materialized: Iterable[Iterable[str]], partitions: Iterable[str]) -> list[str]:
    """Of `partitions`, the days every daily asset has a materialization for
    (``materialized``: each daily asset's materialized partitions)."""
    done = None
    for have in materialized:
        done = set(have) if done is None else done & set(have)
    return sorted(set(partitions) & (done or set()))


def held_message(held: list[HeldDay]) -> str:
    days = ", ".join(f"{h.partition} (run {h.run_id[:8]} {h.status.lower()})" for h in held[:5])
    more = f" and {len(held) - 5} more" if len(held) > 5 else ""
    return (f"publish held: the latest run of day {days}{more} did not succeed, so those days' rows would be "
            "published without their enrichment; re-run the failed partitions (README, 'Re-running failed "
            "partitions') and the publish follows")


def on_run_success(run_id: str, targets_daily: bool, days: list[str], ready: Callable[[list[str]], list[str]],
                   held: Callable[[], list[HeldDay]]) -> Decision:
    """A run succeeded: publish when it materialized daily assets, its days have landed
    (``ready(days)``: those every daily asset has) and no recent day is held."""
    if not targets_daily:
        return Decision(False, f"run {run_id[:8]} materialized no daily asset")
    landed_days = ready(days)
    if not landed_days:
        return Decision(False, f"days {', '.join(days) or '?'}: not every daily asset is materialized yet")
    holding = held()
    if holding:
        return Decision(False, held_message(holding))
    return Decision(True, run_key=f"landed-{run_id}",
                    tags={"wove/trigger": "days landed", "wove/days": f"{landed_days[0]}..{landed_days[-1]}"})


def on_run_failure(run_id: str, targets_daily: bool, held: Callable[[], list[HeldDay]]) -> Decision:
    """A run failed: never a publish; the reason says which days hold it (or that they were re-run)."""
    if not targets_daily:
        return Decision(False, f"run {run_id[:8]} materialized no daily asset")
    holding = held()
    return Decision(False, held_message(holding) if holding else f"run {run_id[:8]} failed; its days were re-run since")


def on_catch_up(held: list[HeldDay]) -> Decision:
    """The daily catch-up: publish what landed, unless a recent day is held."""
    if held:
        return Decision(False, held_message(held))
    return Decision(True, tags={"wove/trigger": "daily catch-up"})
