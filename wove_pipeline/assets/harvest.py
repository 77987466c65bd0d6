"""Harvest stage: arXiv OAI-PMH day -> raw Parquet (arxiv_records) -> wove.papers (papers)."""
# (no `from __future__ import annotations` here: Dagster reads the context annotation at definition time)


import datetime as dt

import dagster as dg

from wove_pipeline.core import papers_load
from wove_pipeline.partitions import daily_partitions
from wove_pipeline.resources import ArxivResource, DatabaseResource, RawStoreResource

HARVEST_RETRY = dg.RetryPolicy(max_retries=3, delay=10, backoff=dg.Backoff.EXPONENTIAL, jitter=dg.Jitter.PLUS_MINUS)
# A month of days per run: backfills become tens of runs, not hundreds.
BACKFILL = dg.BackfillPolicy.multi_run(max_partitions_per_run=31)


def partition_days(context: dg.AssetExecutionContext) -> list[dt.date]:
    """Every day in the run's partition range (one key for a normal run)."""
    keys = context.partition_keys
    return [dt.date.fromisoformat(k) for k in keys]


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
    store = raw_store.store()
    summaries = []
    with arxiv.client() as client:
        for day in partition_days(context):
            summaries.append(papers_load.harvest_day(client, store, day))
    records = sum(s.records["arXivRaw"] for s in summaries)
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": records,
            "pages": sum(s.pages for s in summaries),
            "records_by_day": dg.MetadataValue.json({s.day.isoformat(): s.records for s in summaries}),
            "raw_files": dg.MetadataValue.json([s.raw_file for s in summaries]),
            "requests": client.http.requests_sent,
            "retries": client.http.retries,
        }
    )


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
    store = raw_store.store()
    summaries = []
    for day in partition_days(context):
        parsed = papers_load.parse_day(store, day)
        # One transaction per day: a day's papers land whole or not at all.
        with database.transaction() as conn:
            summaries.append(papers_load.load_day(conn, day, parsed))
    quarantined = sum(s.quarantined for s in summaries)
    if quarantined:
        context.log.warning(f"{quarantined} arXiv records quarantined (see wove.quarantine)")
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": sum(s.papers_written for s in summaries),
            "new_papers": sum(s.new_papers for s in summaries),
            "authorships": sum(s.authors_written for s in summaries),
            "quarantined": quarantined,
            "skipped_older_than_stored": sum(s.papers_skipped_older for s in summaries),
        }
    )
