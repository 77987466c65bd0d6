"""Matching stage: author positions -> researchers with stable ids (global, incremental)."""
# (no `from __future__ import annotations` here: Dagster reads the context annotation at definition time)

import os

import dagster as dg

from wove_pipeline.arxiv import assets as harvest
from wove_pipeline.enrichment import assets as enrichment
from wove_pipeline.matching import researchers as researchers_load
from wove_pipeline.matching.assignment import MatchConfig
from wove_pipeline.resources import DatabaseResource
from wove_pipeline.search.assets import paper_embeddings


class MatchingConfig(dg.Config):
    full: bool = False  # re-cluster everything (ids stay stable through the identity mapping)
    # processes for clustering from scratch (the first run, `full`) and for assigning a
    # large incremental run (PARALLEL_ASSIGN_MIN_PAIRS pairs to score or more; smaller ones
    # assign in this process): name blocks are independent; 0 = one per CPU core.
    workers: int = 0


@dg.asset(
    # the papers' sentence vectors are evidence too (embedding_cosine): embedded before matching
    deps=[harvest.papers, enrichment.authorships, paper_embeddings],
    group_name="match",
    kinds={"python", "postgres"},
    code_version="1",
    retry_policy=dg.RetryPolicy(max_retries=2, delay=5),
    description=(
        "Researchers with stable integer ids (wove.researchers), the link from every author "
        "position to its researcher with evidence and score (wove.researcher_mentions), and "
        "retired ids (wove.researcher_redirects). Global and incremental: each run assigns only "
        "new or changed author positions, newest first, by profile; manual overrides "
        "(wove.match_overrides, added by `wove matching override`) apply on every run."
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


# --------------------------------------------------------------------------- full re-match by shard
# The first run on a large archive, or a model change: plan -> one step per shard (fanned out
# dynamically over the shards that hold blocks) -> finish. Locally the shards run in N worker
# processes (the multiprocess executor; `max_concurrent` in the run config); on Kubernetes,
# `full_rematch_k8s` runs each shard in a pod of its own (k8s_job_executor; deploy/rematch.yaml,
# docs/scale-out.md). See matching/rematch.py.

from wove_pipeline.matching import rematch  # noqa: E402
from wove_pipeline.matching.streaming import CHUNK_MENTIONS  # noqa: E402


class RematchShardConfig(dg.Config):
    chunk_mentions: int = CHUNK_MENTIONS  # mentions clustered at once (whole blocks): bounds a step's memory


@dg.op(out=dg.DynamicOut(int), tags={"kind": "postgres"},
       description="Block keys and shards of every position, text terms, corpus statistics, input fingerprints.")
def rematch_plan(context: dg.OpExecutionContext, database: DatabaseResource):
    with database.transaction() as conn:
        summary = rematch.plan(conn)
        shards = rematch.planned_shards(conn)
    context.log.info(f"{summary.positions} positions of {summary.papers} papers in {len(shards)} shards")
    for shard in shards:
        yield dg.DynamicOutput(shard, mapping_key=f"shard_{shard:02d}")


@dg.op(description="Cluster one shard's name blocks chunk by chunk; results wait in wove.rematch_results.",
       # a pod per shard on Kubernetes (k8s_job_executor reads this tag): sized for the largest chunk
       tags={"dagster-k8s/config": {"container_config": {"resources": {
           "requests": {"cpu": "1", "memory": "3Gi"}, "limits": {"memory": "6Gi"}}}}})
def rematch_shard(context: dg.OpExecutionContext, config: RematchShardConfig, database: DatabaseResource,
                  shard: int) -> int:
    with database.transaction() as conn:
        positions = rematch.shard(conn, shard, MatchConfig(workers=1), chunk_mentions=config.chunk_mentions)
    context.log.info(f"shard {shard}: {positions} positions")
    return positions


@dg.op(description="Joins across name blocks, stable researcher ids, links, researcher rows, matching state.")
def rematch_finish(context: dg.OpExecutionContext, database: DatabaseResource, positions: list[int]):
    with database.transaction() as conn:
        summary = rematch.finish(conn)
    context.log.info(f"{summary.links_written} links, {summary.researchers} researchers")
    yield dg.AssetMaterialization(asset_key=researchers.key, metadata={
        "dagster/row_count": summary.researchers, "mode": "full (by shard)", "mentions": summary.mentions,
        "shard_positions": sum(positions), "created_ids": summary.created, "retired_ids": summary.retired})
    yield dg.Output(summary.links_written)


@dg.graph(description="Full re-match of every author position by shard of the name blocks.")
def full_rematch_graph():
    rematch_finish(rematch_plan().map(rematch_shard).collect())


full_rematch_job = full_rematch_graph.to_job(
    name="full_rematch",
    executor_def=dg.multiprocess_executor,  # the shards over `max_concurrent` local processes
    # a fork server started with the code location imported: a shard step starts in a fraction of a second
    config={"execution": {"config": {"max_concurrent": 2, "start_method": {"forkserver": {
        "preload_modules": ["wove_pipeline.definitions"]}}}}},
)


def full_rematch_k8s_job():
    """The same graph with a pod per step, where dagster-k8s is installed (the image): None here."""
    try:
        from dagster_k8s import k8s_job_executor
    except ImportError:
        return None
    return full_rematch_graph.to_job(name="full_rematch_k8s", executor_def=k8s_job_executor)
