"""Run assets over a range of day partitions in one Dagster run (in-process executor).

Used by `wove demo`, the tests and the benches: one run for many partitions avoids
Dagster's per-step process start-up, exactly as the backfill policies do in the UI.
"""

from __future__ import annotations

import contextlib
import datetime as dt

import dagster as dg

# Dagster's console logger prints every engine event at DEBUG; INFO keeps asset logs readable.
from wove_pipeline.cli.progress import Progress, RunWatcher

RUN_CONFIG = {"loggers": {"console": {"config": {"log_level": "INFO"}}}}


def _execute(job_name: str, instance: dg.DagsterInstance | None, tags: dict, progress: Progress | None):
    """The job in process; with ``progress``, a line per step as it starts and ends (stderr)."""
    from dagster._core.utils import make_new_run_id

    from wove_pipeline.definitions import defs
    instance = instance or dg.DagsterInstance.get()
    job = defs.resolve_job_def(job_name)
    run_id = make_new_run_id()
    watch = (RunWatcher(instance, run_id, progress, check_steps=_check_steps(job)) if progress is not None
             else contextlib.nullcontext())
    with watch:
        return job.execute_in_process(
            instance=instance, tags=tags, run_config=RUN_CONFIG, raise_on_error=True, run_id=run_id)


def _check_steps(job) -> set[str]:
    """The job's steps that only evaluate asset checks (progress gives them one line)."""
    from dagster._core.definitions.dependency import NodeHandle

    steps = set()
    for node in job.graph.nodes:
        keys = job.asset_layer.get_selected_entity_keys_for_node(NodeHandle(node.name, None))
        if keys and all(isinstance(k, dg.AssetCheckKey) for k in keys):
            steps.add(node.name)
    return steps


def run_days(job_name: str, first: dt.date, last: dt.date, instance: dg.DagsterInstance | None = None,
             progress: Progress | None = None):
    tags = {
        "dagster/asset_partition_range_start": first.isoformat(),
        "dagster/asset_partition_range_end": last.isoformat(),
    }
    return _execute(job_name, instance, tags, progress)


def run_job(job_name: str, instance: dg.DagsterInstance | None = None, progress: Progress | None = None):
    return _execute(job_name, instance, {}, progress)


def run_pipeline(instance: dg.DagsterInstance, first: dt.date, last: dt.date,
                 progress: Progress | None = None) -> list:
    """The whole pipeline for a range of days: the daily job over the range in one run,
    then the global (unpartitioned) jobs once, in graph order. ``progress``: a line per
    stage with its figures and seconds (progress.py)."""
    from wove_pipeline.definitions import GLOBAL_JOBS
    if progress is not None:
        progress.line("run", f"daily_harvest over {first} .. {last} ({(last - first).days + 1} days)")
    results = [run_days("daily_harvest", first, last, instance, progress)]
    for name in GLOBAL_JOBS:
        if progress is not None:
            progress.line("run", f"{name}")
        results.append(run_job(name, instance, progress))
    return results
