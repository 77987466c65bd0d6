"""Matching stage: author positions -> researchers with stable ids (global, incremental)."""
# (no `from __future__ import annotations` here: Dagster reads the context annotation at definition time)

import os

import dagster as dg

from wove_pipeline.arxiv import assets as harvest
from wove_pipeline.enrichment import assets as enrichment
from wove_pipeline.matching import researchers as researchers_load
from wove_pipeline.matching.assignment import MatchConfig
from wove_pipeline.resources import DatabaseResource


class MatchingConfig(dg.Config):
    full: bool = False  # re-cluster everything (ids stay stable through the identity mapping)
    # processes for clustering from scratch (the first run, `full`) and for assigning a
    # large incremental run (PARALLEL_ASSIGN_MIN_PAIRS pairs to score or more; smaller ones
    # assign in this process): name blocks are independent; 0 = one per CPU core.
    workers: int = 0


@dg.asset(
    deps=[harvest.papers, enrichment.authorships],
    group_name="match",
    kinds={"python", "postgres"},
    code_version="1",
    retry_policy=dg.RetryPolicy(max_retries=2, delay=5),
    description=(
        "Researchers with stable integer ids (wove.researchers), the link from every author "
        "position to its researcher with evidence and score (wove.researcher_mentions), and "
        "retired ids (wove.researcher_redirects). Global and incremental: each run assigns only "
        "new or changed author positions, newest first; manual overrides "
        "(wove.match_overrides) apply on every run."
    ),
)
def researchers(context: dg.AssetExecutionContext, config: MatchingConfig, database: DatabaseResource):
    with database.transaction() as conn:
        workers = config.workers or os.cpu_count() or 1
        summary = researchers_load.match_researchers(conn, full=config.full, config=MatchConfig(workers=workers))
    context.log.info(
        f"{summary.mode}: {summary.new_mentions} new mentions, {summary.touched_researchers} researchers touched"
    )
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": summary.researchers,
            "mode": summary.mode,
            "mentions": summary.mentions,
            "positions_loaded": summary.positions_loaded,
            "new_mentions": summary.new_mentions,
            "touched_researchers": summary.touched_researchers,
            "created_ids": summary.created,
            "retired_ids": summary.retired,
            "not_sure_new_profiles": summary.not_sure,
        }
    )
