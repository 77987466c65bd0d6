"""The wove code location: assets, checks, jobs, schedules and resources, in one place.

The asset graph reads like the diagram in DESIGN.md:

    arxiv_records -> papers -+-> s2_papers, openalex_works -> s2_authors, openalex_authors,
                             |   institutions -> authorships -> researchers -> researcher_metrics -> serving
                             +-> paper_embeddings ------------------------------------------------^
"""

import datetime as dt
import gc

import dagster as dg

from wove_pipeline.arxiv import assets as harvest
from wove_pipeline.assets import checks
from wove_pipeline.enrichment import assets as enrichment
from wove_pipeline.matching import assets as matching
from wove_pipeline.metrics import assets as metrics
from wove_pipeline.partitions import daily_partitions
from wove_pipeline.resources import ArxivResource, DatabaseResource, RawStoreResource
from wove_pipeline.resources.embedder import EmbedderResource
from wove_pipeline.resources.enrichment import OpenAlexResource, SemanticScholarResource
from wove_pipeline.search import assets as embeddings
from wove_pipeline.serving import assets as serving
from wove_pipeline.serving import automation

# Partitioned by OAI day: one run per day (or per month in a backfill).
daily_assets = [
    harvest.arxiv_records,
    harvest.papers,
    *enrichment.daily_enrichment_assets,
    embeddings.paper_embeddings,
]
# Global and incremental: they recompute only what the new days touched.
global_assets = [matching.researchers, metrics.researcher_metrics, serving.serving]

daily_job = dg.define_asset_job(
    "daily_harvest",
    selection=dg.AssetSelection.assets(*daily_assets),
    description="Harvest one OAI day, enrich and embed its papers.",
)
# the publish's checks but the one that counts every serving row (the weekly audit's)
PUBLISH_SELECTION = dg.AssetSelection.assets(*global_assets) - dg.AssetSelection.checks(checks.SERVING_ROW_COUNTS)
publish_job = dg.define_asset_job(
    "publish",
    selection=PUBLISH_SELECTION,
    description="Match new author positions, recompute affected metrics, publish the serving schema.",
)
# A day's checks cost the day; what only a scan of the archive can tell runs once a week.
serving_audit_job = dg.define_asset_job(
    "serving_audit",
    selection=dg.AssetSelection.checks(checks.SERVING_ROW_COUNTS),
    description="Count every serving table's rows against the publication's counts.",
)
serving_audit_schedule = dg.ScheduleDefinition(
    name="serving_audit_weekly", job=serving_audit_job, cron_schedule="0 12 * * 0", execution_timezone="UTC",
    description="Sundays 12:00 UTC: the serving_audit job (every serving row counted).",
)

# Unpartitioned jobs that run after the daily job, in graph order.
GLOBAL_JOBS: list[str] = ["publish"]

# arXiv announces around 20:00 US Eastern, Sunday to Thursday; by 06:00 UTC the previous
# UTC day's datestamps are complete. Weekend days are harvested too (metadata fixes land
# every day; an empty day is a normal, cheap noRecordsMatch).
daily_schedule = dg.build_schedule_from_partitioned_job(
    daily_job, hour_of_day=6, minute_of_hour=0,
    description="06:00 UTC: the daily_harvest job for the previous UTC day (its OAI datestamps are complete).",
)
# Publishing follows the data, not a clock (serving/automation.py decides): a sensor requests
# the publish job as soon as a run of daily assets succeeds and its days are complete; a failed
# day holds every publish (and says so) until it is re-run; a 08:00 UTC schedule catches up on
# the rest. What follows reads the instance for those decisions and answers in Dagster's terms.
DAILY_KEYS = [key for asset in daily_assets for key in asset.keys]
_FAILED = [dg.DagsterRunStatus.FAILURE, dg.DagsterRunStatus.CANCELED]


def _run_partitions(run: dg.DagsterRun) -> list[str]:
    return automation.run_partitions(run.tags, lambda start, end: daily_partitions.get_partition_keys_in_range(
        dg.PartitionKeyRange(start, end)))


def _targets_daily(instance: dg.DagsterInstance, run: dg.DagsterRun) -> bool:
    """Whether a run set out to materialize a daily asset: its asset selection, or (a whole
    asset job, which records none) the materializations it planned."""
    planned = set(run.asset_selection or ())
    if not planned:
        records = instance.get_records_for_run(
            run.run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION_PLANNED, limit=1000).records
        planned = {r.event_log_entry.dagster_event.asset_key for r in records if r.event_log_entry.dagster_event}
    return bool(planned & set(DAILY_KEYS))


def _held_days(instance: dg.DagsterInstance) -> list[automation.HeldDay]:
    since = dt.datetime.now(dt.timezone.utc) - automation.LOOKBACK
    records = instance.get_run_records(dg.RunsFilter(statuses=[*_FAILED, dg.DagsterRunStatus.SUCCESS],
                                                     created_after=since), limit=2000)
    runs = []
    for record in records:
        run = record.dagster_run
        partitions = _run_partitions(run)
        if partitions and _targets_daily(instance, run):
            runs.append(automation.FinishedRun(run.run_id, run.status.value,
                                               record.end_time or record.create_timestamp.timestamp(),
                                               tuple(partitions)))
    return automation.held_days(runs)


def _landed(instance: dg.DagsterInstance, days: list[str]) -> list[str]:
    return automation.landed((instance.get_materialized_partitions(key) for key in DAILY_KEYS), days)


def _answer(decision: automation.Decision):
    if decision.publish:
        return dg.RunRequest(run_key=decision.run_key, tags=dict(decision.tags))
    return dg.SkipReason(decision.reason)


@dg.run_status_sensor(
    name="publish_when_day_lands", run_status=dg.DagsterRunStatus.SUCCESS, request_job=publish_job,
    default_status=dg.DefaultSensorStatus.RUNNING, minimum_interval_seconds=30,
    description="Requests the publish job (matching, metrics, serving) when a run of daily assets succeeds "
                "and every daily asset of its days is materialized; held while a recent day's latest run failed.")
def publish_when_day_lands(context: dg.RunStatusSensorContext):
    run, instance = context.dagster_run, context.instance
    return _answer(automation.on_run_success(
        run.run_id, _targets_daily(instance, run), _run_partitions(run),
        ready=lambda days: _landed(instance, days), held=lambda: _held_days(instance)))


@dg.run_status_sensor(
    name="publish_held_on_failed_day", run_status=dg.DagsterRunStatus.FAILURE,
    default_status=dg.DefaultSensorStatus.RUNNING, minimum_interval_seconds=30,
    description="Says, on each failed run of daily assets, that its days hold the publish until re-run.")
def publish_held_on_failed_day(context: dg.RunStatusSensorContext):
    run, instance = context.dagster_run, context.instance
    targets = _targets_daily(instance, run)
    decision = automation.on_run_failure(run.run_id, targets, held=lambda: _held_days(instance))
    if targets:
        context.log.warning(decision.reason)
    return _answer(decision)


@dg.schedule(name="publish_daily", cron_schedule="0 8 * * *", job=publish_job, execution_timezone="UTC",
             description="08:00 UTC daily catch-up: publishes whatever landed and was not published yet, unless a "
                         "recent day's latest run failed (then it says which).")
def publish_schedule(context: dg.ScheduleEvaluationContext):
    return _answer(automation.on_catch_up(_held_days(context.instance)))

# Daily assets carry a freshness policy; every asset gets its integrity checks.
all_assets = checks.apply_freshness([*daily_assets, *global_assets, *enrichment.refresh_assets])

defs = dg.Definitions(
    assets=all_assets,
    # Steps run in the run's own process: the multiprocess default starts a Python process
    # (seconds of imports) per step, more than most of wove's steps take on a day's data
    # (measured: a realistic day 4-5x slower with it, ~2x with a fork server; bench/RESULTS.md,
    # "Realistic day by executor"); the API-bound steps are throttled by pools anyway. On
    # Kubernetes, bind k8s_job_executor instead for a pod per step (docs/scale-out.md).
    executor=dg.in_process_executor,
    asset_checks=checks.checks_for(all_assets),
    jobs=[daily_job, publish_job, serving_audit_job, enrichment.citation_refresh_job, matching.full_rematch_job,
          *filter(None, [matching.full_rematch_k8s_job()])],
    schedules=[daily_schedule, publish_schedule, serving_audit_schedule, enrichment.citation_refresh_schedule],
    sensors=[publish_when_day_lands, publish_held_on_failed_day],
    resources={
        "database": DatabaseResource(url=dg.EnvVar("WOVE_DATABASE_URL")),
        "raw_store": RawStoreResource(),
        "arxiv": ArxivResource(),
        # Keys are read from S2_API_KEY / OPENALEX_API_KEY when a run starts, never at import.
        "s2": SemanticScholarResource(),
        "openalex": OpenAlexResource(),
        "embedder": EmbedderResource(),
    },
)

# What importing this code location made (dagster, numpy, scikit-learn, the assets: ~235,000
# objects) lives as long as the process: out of the cyclic collector's sight, a full
# collection during a run walks what the run made instead (a realistic day's two took 0.40 s,
# 0.16 s with this).
gc.freeze()
