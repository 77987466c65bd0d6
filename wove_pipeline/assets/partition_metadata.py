"""Materialization metadata per partition.

A backfill runs many partitions per run (the backfill policy), and Dagster records one
materialization per partition. Metadata returned in the MaterializeResult goes on every one
of them, so a 3-day run would show its total (``row_count 691``) on each day as if it were
that day's. Figures a stage has per day go on that day's materialization
(``context.add_asset_metadata(..., partition_key=day)``); figures only known for the whole
run are named ``run_*`` and go on every partition with ``run_partitions`` (how many
partitions the run materialized), so nobody reads them as one day's.
"""

# (no `from __future__ import annotations`: Dagster modules read annotations at definition time)

from collections.abc import Mapping

import dagster as dg

RUN_PARTITIONS = "run_partitions"  # on every partition of a run that records per-partition figures


def per_partition_result(context: dg.AssetExecutionContext, by_partition: Mapping[str, Mapping],
                         run_metadata: Mapping | None = None, **kw) -> dg.MaterializeResult:
    """Each partition's own figures on its own materialization; ``run_metadata`` (keys
    named ``run_*``) on every partition of the run. ``kw`` goes to the MaterializeResult
    (check_results, ...)."""
    for key, metadata in by_partition.items():
        context.add_asset_metadata(dict(metadata), partition_key=key)
    return dg.MaterializeResult(metadata={RUN_PARTITIONS: len(by_partition), **(run_metadata or {})}, **kw)


def run_totals(context: dg.AssetExecutionContext, metadata: Mapping) -> dict:
    """For a stage whose figures are the whole run's: unchanged on a run of one partition;
    over several, every key is renamed ``run_<key>`` (``dagster/row_count`` becomes
    ``run_row_count``: a run total is no partition's row count, and the row-count checks
    leave it out) and ``run_partitions`` says over how many partitions."""
    keys = context.partition_keys if context.has_partition_key_range or context.has_partition_key else []
    if len(keys) <= 1:
        return dict(metadata)
    out: dict = {RUN_PARTITIONS: len(keys)}
    for key, value in metadata.items():
        out[key if key in NOT_FIGURES else "run_" + key.split("/")[-1]] = value
    return out


NOT_FIGURES = frozenset({"dagster/table_name"})  # the same for every partition: never renamed
