"""`wove backfill FROM TO`: a Dagster backfill of a day range; `wove backfill --retry-failed ID`:
the days a finished backfill did not materialize, as a new backfill.

The backfill goes to the instance the UI and the daemon use (DAGSTER_HOME, default
<WOVE_HOME>/dagster_home; its storage is DAGSTER_PG_URL's database, the embedded default's
when unset), where the daemon (`wove ui`, or `dagster-daemon run`) runs it under the job's
backfill policy (a run per chunk of days) and the pools' limits. Nothing runs here: the
command records the backfill and prints its id.

It is an asset backfill of the job's assets over those days, the one Dagster's UI makes for an
asset job. Dagster has no Python API for creating a backfill outside its GraphQL server, so
both commands build the same ``PartitionBackfill`` its GraphQL mutations do
(``launchPartitionBackfill``, and ``reexecutePartitionBackfill`` with the FROM_FAILURE
strategy: the target less what the backfill materialized, tagged with the parent and root
backfill ids), without a webserver running.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Sequence

DEFAULT_JOB = "daily_harvest"


def _day(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a day (YYYY-MM-DD): {value!r}") from None


def _job(defs, name: str):
    from wove_pipeline.cli.support import CliError
    partitioned = sorted(job.name for job in defs.resolve_all_job_defs()
                         if job.partitions_def is not None and not job.name.startswith("__"))
    try:
        job = defs.resolve_job_def(name)
    except Exception:
        job = None
    if job is None or job.partitions_def is None:
        raise CliError(f"no partitioned job {name!r} in the code location (partitioned jobs: {', '.join(partitioned)})",
                       exit_code=2)
    return job


def day_keys(partitions_def, first: dt.date, last: dt.date) -> list[str]:
    """The partition keys from ``first`` to ``last``, each one a partition of the job."""
    from wove_pipeline.cli.support import CliError
    if last < first:
        raise CliError(f"the range ends ({last}) before it starts ({first})", exit_code=2)
    offered = partitions_def.get_partition_keys()
    wanted = [(first + dt.timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]
    missing = [key for key in wanted if key not in set(offered)]
    if missing:
        window = f"{offered[0]}..{offered[-1]}" if offered else "none"
        raise CliError(f"{missing[0]}{' and more' if len(missing) > 1 else ''} is not a partition of the job "
                       f"(its days: {window}; WOVE_PARTITIONS_START / WOVE_PARTITIONS_END set them)", exit_code=2)
    return wanted


def submit_backfill(instance, defs, job_name: str, keys: Sequence[str], *, title: str | None = None) -> str:
    """Record an asset backfill of ``job_name``'s assets over the partition ``keys``; its id."""
    from dagster._core.execution.backfill import PartitionBackfill
    from dagster._core.utils import make_new_backfill_id
    from dagster._time import get_current_timestamp

    job = _job(defs, job_name)
    backfill = PartitionBackfill.from_asset_partitions(
        backfill_id=make_new_backfill_id(), asset_graph=defs.resolve_asset_graph(), partition_names=list(keys),
        asset_selection=sorted(job.asset_layer.selected_asset_keys), backfill_timestamp=get_current_timestamp(),
        tags={"wove/job": job_name}, dynamic_partitions_store=instance, all_partitions=False,
        title=title, description=f"wove backfill {keys[0]} {keys[-1]} --job {job_name}", run_config=None)
    instance.add_backfill(backfill)
    return backfill.backfill_id


def retry_failed(instance, defs, backfill_id: str) -> tuple[str, list[str]]:
    """A new backfill of what the finished backfill ``backfill_id`` did not materialize (its
    failed days and what they hold back); (its id, its partition keys)."""
    from dagster._core.execution.backfill import BULK_ACTION_TERMINAL_STATUSES, BulkActionStatus, PartitionBackfill
    from dagster._core.storage.tags import PARENT_BACKFILL_ID_TAG, ROOT_BACKFILL_ID_TAG
    from dagster._core.utils import make_new_backfill_id
    from dagster._time import get_current_timestamp

    from wove_pipeline.cli.support import CliError
    backfill = instance.get_backfill(backfill_id)
    if backfill is None:
        raise CliError(f"no backfill {backfill_id!r} in the instance at {instance.root_directory} "
                       "(check DAGSTER_HOME / DAGSTER_PG_URL)", exit_code=2)
    if backfill.status not in BULK_ACTION_TERMINAL_STATUSES:
        raise CliError(f"backfill {backfill_id} is still {backfill.status.value.lower()}: retry it once it has finished")
    tags = {**backfill.tags, PARENT_BACKFILL_ID_TAG: backfill.backfill_id,
            ROOT_BACKFILL_ID_TAG: backfill.tags.get(ROOT_BACKFILL_ID_TAG, backfill.backfill_id)}
    title = f"Re-execution of {backfill.title}" if backfill.title else None
    if backfill.is_asset_backfill:
        data = backfill.get_asset_backfill_data(defs.resolve_asset_graph())
        # Dagster's FROM_FAILURE: everything targeted and not materialized (failed, held back
        # by a failure, or never launched because the backfill was canceled).
        missing = data.target_subset - data.materialized_subset
        if missing.num_partitions_and_non_partitioned_assets == 0:
            raise CliError(f"backfill {backfill_id} materialized everything it targeted: nothing to retry")
        retry = PartitionBackfill.from_asset_graph_subset(
            backfill_id=make_new_backfill_id(), asset_graph_subset=missing, dynamic_partitions_store=instance,
            tags=tags, backfill_timestamp=get_current_timestamp(), title=title, description=backfill.description,
            run_config=backfill.run_config)
        keys = sorted({key.partition_key for key in missing.iterate_asset_partitions() if key.partition_key})
    else:  # a job backfill (launched from a job's page in the UI): re-executed from failure per partition
        retry = PartitionBackfill(
            backfill_id=make_new_backfill_id(), partition_set_origin=backfill.partition_set_origin,
            status=BulkActionStatus.REQUESTED, partition_names=backfill.partition_names, from_failure=True,
            reexecution_steps=backfill.reexecution_steps, tags=tags, backfill_timestamp=get_current_timestamp(),
            asset_selection=backfill.asset_selection, title=title, description=backfill.description)
        keys = list(backfill.partition_names or ())
    instance.add_backfill(retry)
    return retry.backfill_id, keys


def _cmd_backfill(args: argparse.Namespace) -> int:
    import dagster as dg

    from wove_pipeline.cli.runtime import bring_up
    from wove_pipeline.cli.support import CliError
    if args.retry_failed and (args.first or args.last):
        raise CliError("give FROM TO or --retry-failed BACKFILL_ID, not both", exit_code=2)
    if not args.retry_failed and not (args.first and args.last):
        raise CliError("give the day range FROM TO (YYYY-MM-DD), or --retry-failed BACKFILL_ID", exit_code=2)
    from wove_pipeline.definitions import defs

    with bring_up() as env, dg.DagsterInstance.get() as instance:
        if args.retry_failed:
            backfill_id, keys = retry_failed(instance, defs, args.retry_failed)
            what = f"re-drives {len(keys)} day(s) backfill {args.retry_failed} did not materialize"
        else:
            keys = day_keys(_job(defs, args.job).partitions_def, args.first, args.last)
            backfill_id = submit_backfill(instance, defs, args.job, keys)
            what = f"{len(keys)} day(s) {keys[0]}..{keys[-1]} of job {args.job}"
        print(backfill_id, flush=True)
        print(f"wove backfill: backfill {backfill_id} {what}"
              f"{': ' + ', '.join(keys) if len(keys) <= 10 else ''}; the daemon runs it (`wove ui` starts one; "
              f"DAGSTER_HOME={env.exported['DAGSTER_HOME']})", file=sys.stderr)
    return 0


def add_commands(sub) -> None:
    p = sub.add_parser("backfill", help="submit a backfill of a day range to the Dagster instance (or re-drive a "
                                        "finished backfill's failed days with --retry-failed)",
                       description="Records a Dagster backfill of the job's days FROM..TO (inclusive) in the "
                                   "instance the UI and daemon use and prints its id; the daemon runs it. "
                                   "--retry-failed BACKFILL_ID records a new backfill of the days that finished "
                                   "backfill did not materialize.")
    p.add_argument("first", nargs="?", type=_day, metavar="FROM", help="first day (YYYY-MM-DD)")
    p.add_argument("last", nargs="?", type=_day, metavar="TO", help="last day, inclusive (YYYY-MM-DD)")
    p.add_argument("--job", default=DEFAULT_JOB, help=f"the partitioned job whose assets to backfill (default {DEFAULT_JOB})")
    p.add_argument("--retry-failed", metavar="BACKFILL_ID",
                   help="re-drive the partitions a finished backfill did not materialize, as a new backfill")
    p.set_defaults(func=_cmd_backfill)
