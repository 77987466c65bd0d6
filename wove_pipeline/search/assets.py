"""Embeddings stage: wove.papers -> wove.paper_embeddings (sentence-transformers, pgvector)."""


import dagster as dg

from wove_pipeline.arxiv.assets import papers
from wove_pipeline.assets.partition_metadata import per_partition_result
from wove_pipeline.database import access as db
from wove_pipeline.partitions import BACKFILL, daily_partitions, day_range
from wove_pipeline.resources import DatabaseResource
from wove_pipeline.resources.embedder import EmbedderResource
from wove_pipeline.search.embedding import embed_papers

EMBED_RETRY = dg.RetryPolicy(max_retries=2, delay=5, backoff=dg.Backoff.EXPONENTIAL)


@dg.asset(
    partitions_def=daily_partitions,
    backfill_policy=BACKFILL,
    retry_policy=EMBED_RETRY,
    deps=[papers],
    group_name="search",
    kinds={"pytorch", "postgres"},
    code_version="1",
    description=(
        "Embeddings of each paper's clean title + abstract (sentence-transformers; the model is "
        "the embedder resource's configuration) in wove.paper_embeddings, with an HNSW index "
        "(cosine). Only papers whose content hash or model changed are embedded: re-running an "
        "unchanged day embeds nothing, and a model change re-embeds through a backfill."
    ),
)
def paper_embeddings(context: dg.AssetExecutionContext, database: DatabaseResource, embedder: EmbedderResource):
    days = day_range(context)
    emb = embedder.embedder()
    # An autocommit connection: embed_papers writes each chunk in a transaction of its own.
    with database.connection() as conn:
        summary = embed_papers(conn, emb, days=days)
        rows_by_day = {r["day"]: int(r["n"]) for r in db.fetch_all(
            conn,
            "SELECT p.oai_datestamp AS day, count(*) AS n FROM wove.paper_embeddings e JOIN wove.papers p "
            "USING (arxiv_id) WHERE p.oai_datestamp = ANY(%s) AND e.model = %s GROUP BY 1",
            (days.days, emb.config.name),
        )}
    context.log.info(
        f"{summary.embedded} texts embedded, {summary.skipped_unchanged} unchanged "
        f"({summary.texts_per_second:.1f} texts/s)"
    )
    # the row count is each day's; the embedding figures are the run's (one batch over all days)
    run = {
        "embedded": summary.embedded,
        "skipped_unchanged": summary.skipped_unchanged,
        "texts_per_second": round(summary.texts_per_second, 2),
        "encode_seconds": round(summary.seconds_encoding, 2),
    }
    if len(days) > 1:
        run = {f"run_{k}": v for k, v in run.items()}
    return per_partition_result(
        context, {d.isoformat(): {"dagster/row_count": rows_by_day.get(d, 0)} for d in days},
        {**run, "model": emb.config.name, "dimensions": emb.config.dimensions},
    )
