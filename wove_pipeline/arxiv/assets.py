"""Harvest stage: arXiv OAI-PMH day -> raw Parquet (arxiv_records) -> wove.papers (papers).

A request arXiv refuses (a 4xx other than 408/429: the HTTP layer's UpstreamRefused) fails
the step at once with arXiv's message, as a `dg.Failure(allow_retries=False)` that the retry
policy does not retry (the same request gets the same refusal), as in the enrichment stage.
"""
# (no `from __future__ import annotations` here: Dagster reads the context annotation at definition time)



import dagster as dg

from wove_pipeline.arxiv import harvest
from wove_pipeline.assets.failures import refusals_fail_fast
from wove_pipeline.assets.partition_metadata import per_partition_result
from wove_pipeline.partitions import BACKFILL, daily_partitions, day_range
from wove_pipeline.resources import ArxivResource, DatabaseResource, RawStoreResource

HARVEST_RETRY = dg.RetryPolicy(max_retries=3, delay=10, backoff=dg.Backoff.EXPONENTIAL, jitter=dg.Jitter.PLUS_MINUS)


@dg.asset(
    partitions_def=daily_partitions,
    backfill_policy=BACKFILL,
    retry_policy=HARVEST_RETRY,
    pool="arxiv",
    group_name="harvest",
    kinds={"arxiv", "parquet"},
    code_version="1",
    description=(
        "Raw arXiv OAI-PMH ListRecords responses (arXiv and arXivRaw formats) for each UTC "
        "datestamp day, kept as immutable Parquet. Re-deriving papers never calls arXiv again."
    ),
)
def arxiv_records(context: dg.AssetExecutionContext, arxiv: ArxivResource, raw_store: RawStoreResource):
    with refusals_fail_fast(), arxiv.client() as client:
        summaries = harvest.harvest_days(client, raw_store.store(), day_range(context))
    return per_partition_result(context, {
        s.day.isoformat(): {
            "dagster/row_count": s.records["arXivRaw"],
            "pages": s.pages,
            "records_by_format": dg.MetadataValue.json(s.records),
            "raw_file": s.raw_file,
            "requests": s.requests,
            "retries": s.retries,
        }
        for s in summaries
    })


@dg.asset(
    partitions_def=daily_partitions,
    backfill_policy=BACKFILL,
    deps=[arxiv_records],
    group_name="harvest",
    kinds={"postgres"},
    code_version="1",
    description=(
        "Papers in wove.papers (one row per arXiv id, upserted: a new version updates the row "
        "and extends its history) and their author positions in wove.paper_authors. Records "
        "that cannot be parsed go to wove.quarantine with their reason."
    ),
)
def papers(context: dg.AssetExecutionContext, database: DatabaseResource, raw_store: RawStoreResource):
    # An autocommit connection: load_days writes each day in a transaction of its own.
    with database.connection() as conn:
        summaries = harvest.load_days(conn, raw_store.store(), day_range(context))
    quarantined = sum(s.quarantined for s in summaries)
    if quarantined:
        context.log.warning(f"{quarantined} arXiv records quarantined (see wove.quarantine)")
    return per_partition_result(context, {
        s.day.isoformat(): {
            "dagster/row_count": s.papers_written,
            "new_papers": s.new_papers,
            "authorships": s.authors_written,
            "quarantined": s.quarantined,
            "skipped_older_than_stored": s.papers_skipped_older,
        }
        for s in summaries
    })
