"""What joins the day to the publish: the data, not a clock.

The global stages (matching, metrics, the serving publish: the `publish` job) run when a
day's partitions have landed: a run-status sensor (`publish_when_day_lands`) requests the
publish when a run that materialized daily partitions succeeds and every daily asset of
those days is materialized. A day whose latest run failed holds every publish (the
sensor's and the daily catch-up schedule's, `publish_daily`) and each says which day and
which run, until the day is re-run successfully (README: "Re-running failed partitions"):
its papers are in the core tables, but their enrichment is not, and a publish then would
serve metrics built without it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

import dagster as dg

# How far back a failed day holds the publish: older failures are left to the checks.
LOOKBACK = dt.timedelta(days=30)
FAILED = (dg.DagsterRunStatus.FAILURE, dg.DagsterRunStatus.CANCELED)


@dataclass(frozen=True)
class HeldDay:
    partition: str
    run_id: str
    status: str


def run_partitions(run: dg.DagsterRun, partitions_def: dg.PartitionsDefinition) -> list[str]:
    """The partition keys a run targeted (one key, or a range from a backfill policy)."""
    tags = run.tags
    if "dagster/partition" in tags:
        return [tags["dagster/partition"]]
    start, end = tags.get("dagster/asset_partition_range_start"), tags.get("dagster/asset_partition_range_end")
    if start and end:
        return list(partitions_def.get_partition_keys_in_range(dg.PartitionKeyRange(start, end)))
    return []


def _planned_keys(instance: dg.DagsterInstance, run: dg.DagsterRun) -> set[dg.AssetKey]:
    """The assets a run set out to materialize: its asset selection, or (a whole asset job,
    which records none) the materializations it planned."""
    if run.asset_selection:
        return set(run.asset_selection)
    records = instance.get_records_for_run(run.run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION_PLANNED,
                                           limit=1000).records
    return {r.event_log_entry.dagster_event.asset_key for r in records if r.event_log_entry.dagster_event}


def _targets(instance: dg.DagsterInstance, run: dg.DagsterRun, daily_keys: set[dg.AssetKey]) -> bool:
    return bool(_planned_keys(instance, run) & daily_keys)


def held_days(instance: dg.DagsterInstance, daily_keys: Iterable[dg.AssetKey],
              partitions_def: dg.PartitionsDefinition) -> list[HeldDay]:
    """Days whose latest finished run of daily assets failed (or was canceled), newest first."""
    keys = set(daily_keys)
    since = dt.datetime.now(dt.timezone.utc) - LOOKBACK
    records = instance.get_run_records(dg.RunsFilter(statuses=[*FAILED, dg.DagsterRunStatus.SUCCESS],
                                                     created_after=since), limit=2000)
    latest: dict[str, tuple[float, dg.DagsterRun]] = {}
    for record in records:
        run = record.dagster_run
        partitions = run_partitions(run, partitions_def)
        if not partitions or not _targets(instance, run, keys):
            continue
        ended = record.end_time or record.create_timestamp.timestamp()
        for partition in partitions:
            if partition not in latest or latest[partition][0] < ended:
                latest[partition] = (ended, run)
    held = [HeldDay(p, run.run_id, run.status.value) for p, (_, run) in latest.items() if run.status in FAILED]
    return sorted(held, key=lambda h: h.partition, reverse=True)


def landed(instance: dg.DagsterInstance, daily_keys: Iterable[dg.AssetKey], partitions: Iterable[str]) -> list[str]:
    """Of `partitions`, the days every daily asset has a materialization for."""
    done = None
    for key in daily_keys:
        have = instance.get_materialized_partitions(key)
        done = set(have) if done is None else done & set(have)
    return sorted(set(partitions) & (done or set()))


def held_message(held: list[HeldDay]) -> str:
    days = ", ".join(f"{h.partition} (run {h.run_id[:8]} {h.status.lower()})" for h in held[:5])
    more = f" and {len(held) - 5} more" if len(held) > 5 else ""
    return (f"publish held: the latest run of day {days}{more} did not succeed, so those days' rows would be "
            "published without their enrichment; re-run the failed partitions (README, 'Re-running failed "
            "partitions') and the publish follows")


def build(daily_job, publish_job, daily_keys: Iterable[dg.AssetKey], partitions_def: dg.PartitionsDefinition,
          catch_up_cron: str = "0 8 * * *"):
    """The sensor that publishes when days land, the one that says when a day failed, and the
    daily catch-up schedule; all three consult held_days."""
    keys = frozenset(daily_keys)

    @dg.run_status_sensor(
        name="publish_when_day_lands", run_status=dg.DagsterRunStatus.SUCCESS, request_job=publish_job,
        default_status=dg.DefaultSensorStatus.RUNNING, minimum_interval_seconds=30,
        description="Requests the publish job (matching, metrics, serving) when a run of daily assets succeeds "
                    "and every daily asset of its days is materialized; held while a recent day's latest run failed.")
    def publish_when_day_lands(context: dg.RunStatusSensorContext):
        run = context.dagster_run
        if not _targets(context.instance, run, set(keys)):
            return dg.SkipReason(f"run {run.run_id[:8]} materialized no daily asset")
        days = run_partitions(run, partitions_def)
        ready = landed(context.instance, keys, days)
        if not ready:
            return dg.SkipReason(f"days {', '.join(days) or '?'}: not every daily asset is materialized yet")
        held = held_days(context.instance, keys, partitions_def)
        if held:
            return dg.SkipReason(held_message(held))
        return dg.RunRequest(run_key=f"landed-{run.run_id}",
                             tags={"wove/trigger": "days landed", "wove/days": f"{ready[0]}..{ready[-1]}"})

    @dg.run_status_sensor(
        name="publish_held_on_failed_day", run_status=dg.DagsterRunStatus.FAILURE,
        default_status=dg.DefaultSensorStatus.RUNNING, minimum_interval_seconds=30,
        description="Says, on each failed run of daily assets, that its days hold the publish until re-run.")
    def publish_held_on_failed_day(context: dg.RunStatusSensorContext):
        run = context.dagster_run
        if not _targets(context.instance, run, set(keys)):
            return dg.SkipReason(f"run {run.run_id[:8]} materialized no daily asset")
        held = held_days(context.instance, keys, partitions_def)
        message = held_message(held) if held else f"run {run.run_id[:8]} failed; its days were re-run since"
        context.log.warning(message)
        return dg.SkipReason(message)

    @dg.schedule(name="publish_daily", cron_schedule=catch_up_cron, job=publish_job, execution_timezone="UTC",
                 description="08:00 UTC daily catch-up: publishes whatever landed and was not published yet, unless a "
                             "recent day's latest run failed (then it says which).")
    def publish_daily(context: dg.ScheduleEvaluationContext):
        held = held_days(context.instance, keys, partitions_def)
        if held:
            return dg.SkipReason(held_message(held))
        return dg.RunRequest(tags={"wove/trigger": "daily catch-up"})

    return publish_when_day_lands, publish_held_on_failed_day, publish_daily
