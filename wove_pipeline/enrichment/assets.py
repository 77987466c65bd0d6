"""Enrichment stage: Semantic Scholar and OpenAlex records per paper day, their authors and
institutions (wove_pipeline.semantic_scholar.assets, wove_pipeline.openalex.assets), the
authorship alignment (here), and the rolling citation refresh with its job and schedule.

What the API-fetching assets share (pools, retries, the fields check, the factory of the
daily ones): wove_pipeline.assets.upstream_fetch.
"""
# (no `from __future__ import annotations` here: Dagster reads annotations at definition time)

import dagster as dg

from wove_pipeline.arxiv.assets import papers
from wove_pipeline.assets.partition_metadata import run_totals
from wove_pipeline.assets.upstream_fetch import GROUP, EnrichConfig
from wove_pipeline.enrichment.authorships import align_days
from wove_pipeline.openalex.assets import institutions, openalex_authors, openalex_citation_refresh, openalex_works
from wove_pipeline.partitions import BACKFILL, daily_partitions, day_range
from wove_pipeline.resources import DatabaseResource
from wove_pipeline.semantic_scholar.assets import s2_authors, s2_citation_refresh, s2_papers

__all__ = [
    "authorships", "citation_refresh_job", "citation_refresh_schedule", "daily_enrichment_assets",
    "institutions", "openalex_authors", "openalex_citation_refresh", "openalex_works", "refresh_assets",
    "s2_authors", "s2_citation_refresh", "s2_papers",
]


@dg.asset(
    partitions_def=daily_partitions,
    backfill_policy=BACKFILL,
    # openalex_authors: an authorship without an ORCID takes its profile's (ids.orcid)
    deps=[papers, s2_papers, openalex_works, openalex_authors],
    group_name=GROUP,
    kinds={"postgres"},
    code_version="1",
    description=(
        "Each arXiv author position aligned to its S2 author and its OpenAlex authorship "
        "(wove.authorships), with the alignment confidence per side, ORCID (the authorship's, else "
        "its OpenAlex profile's), institutions and raw "
        "affiliations. Re-aligns look-back papers whose upstream records arrived or changed. No API call."
    ),
)
def authorships(context: dg.AssetExecutionContext, config: EnrichConfig,
                database: DatabaseResource) -> dg.MaterializeResult:
    with database.connection() as conn:
        s = align_days(conn, day_range(context), config.settings())
    return dg.MaterializeResult(metadata=run_totals(context, {
        "dagster/row_count": s.rows,
        "dagster/table_name": "wove.authorships",
        "papers_aligned": s.papers,
        "positions_with_s2": s.with_s2,
        "positions_with_openalex": s.with_openalex,
        "s2_coverage": round(s.with_s2 / s.rows, 4) if s.rows else 0.0,
        "openalex_coverage": round(s.with_openalex / s.rows, 4) if s.rows else 0.0,
        "mean_s2_confidence": s.mean_s2_confidence,
        "mean_openalex_confidence": s.mean_openalex_confidence,
    }))


daily_enrichment_assets = [s2_papers, openalex_works, s2_authors, openalex_authors, institutions, authorships]
# rolling citation refresh (unpartitioned; one asset per upstream so each runs in its pool)
refresh_assets = [s2_citation_refresh, openalex_citation_refresh]

citation_refresh_job = dg.define_asset_job(
    "citation_refresh",
    selection=dg.AssetSelection.assets(*refresh_assets),
    description="Refresh citation counts and author statistics, least recently checked first, within budget.",
)
# After the daily harvest/enrichment (06:00 UTC) has had time to finish.
citation_refresh_schedule = dg.ScheduleDefinition(
    name="citation_refresh_daily", job=citation_refresh_job, cron_schedule="0 9 * * *", execution_timezone="UTC",
    description="09:00 UTC: the citation_refresh job (citation counts and author statistics, within budget).",
)
