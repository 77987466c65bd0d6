"""Run assets over a range of day partitions in one Dagster run (in-process executor).

Used by `wove demo`, the tests and the benches: one run for many partitions avoids
Dagster's per-step process start-up, exactly as the backfill policies do in the UI.
"""

from __future__ import annotations

import datetime as dt

import dagster as dg

# Dagster's console logger prints every engine event at DEBUG; INFO keeps asset logs readable.
RUN_CONFIG = {"loggers": {"console": {"config": {"log_level": "INFO"}}}}


def run_days(job_name: str, first: dt.date, last: dt.date, instance: dg.DagsterInstance | None = None):
    from wove_pipeline.definitions import defs

    job = defs.resolve_job_def(job_name)
    tags = {
        "dagster/asset_partition_range_start": first.isoformat(),
        "dagster/asset_partition_range_end": last.isoformat(),
    }
    result = job.execute_in_process(
        instance=instance or dg.DagsterInstance.get(), tags=tags, run_config=RUN_CONFIG, raise_on_error=True
    )
    return result


def run_job(job_name: str, instance: dg.DagsterInstance | None = None):
    from wove_pipeline.definitions import defs

    return defs.resolve_job_def(job_name).execute_in_process(
        instance=instance or dg.DagsterInstance.get(), run_config=RUN_CONFIG, raise_on_error=True
    )


def run_pipeline(instance: dg.DagsterInstance, first: dt.date, last: dt.date) -> list:
    """The whole pipeline for a range of days: the daily job over the range in one run,
    then the global (unpartitioned) jobs once, in graph order."""
    from wove_pipeline.definitions import GLOBAL_JOBS

    results = [run_days("daily_harvest", first, last, instance)]
    for name in GLOBAL_JOBS:
        results.append(run_job(name, instance))
    return results
