"""Semantic Scholar's assets: the day's papers and their authors (daily, partitioned), and the
rolling citation refresh (unpartitioned). Thin: the work is in wove_pipeline.semantic_scholar.fetch
and .refresh; what the fetching assets share is in wove_pipeline.assets.upstream_fetch."""
# (no `from __future__ import annotations` here: Dagster reads annotations at definition time)

import dagster as dg

from wove_pipeline.arxiv.assets import papers
from wove_pipeline.assets.failures import refusals_fail_fast
from wove_pipeline.assets.upstream_fetch import (
    ENRICH_RETRY,
    GROUP,
    SEMANTIC_SCHOLAR,
    daily_fetch_asset,
    fields_check_spec,
    refresh_metadata,
    with_fields,
)
from wove_pipeline.enrichment.refresh import RefreshBudget
from wove_pipeline.resources import DatabaseResource, RawStoreResource
from wove_pipeline.resources.enrichment import SemanticScholarResource
from wove_pipeline.semantic_scholar.fetch import fetch_s2_authors, fetch_s2_papers
from wove_pipeline.semantic_scholar.refresh import refresh_s2

s2_papers = daily_fetch_asset(
    name="s2_papers", upstream=SEMANTIC_SCHOLAR, fetch=fetch_s2_papers, deps=[papers],
    description=(
        "Semantic Scholar records of the day's papers (wove.s2_papers, keyed by the arXiv id asked "
        "for), batched 500 ids per call. Papers S2 does not know yet are re-asked by later runs for "
        "`lookback_days` days (wove.enrichment_attempts). Raw responses are kept as Parquet."
    ),
)

s2_authors = daily_fetch_asset(
    name="s2_authors", upstream=SEMANTIC_SCHOLAR, fetch=fetch_s2_authors, deps=[s2_papers],
    description=(
        "Semantic Scholar author profiles (wove.s2_authors: h-index, citations, papers, ORCID when "
        "claimed) of the authors on the day's S2 papers not held yet, 1000 ids per call. Kept fresh "
        "by the citation refresh."
    ),
)


class S2RefreshConfig(dg.Config):
    paper_calls_per_day: int = 200  # x 500 papers
    author_calls_per_day: int = 100  # x 1000 authors


@dg.asset(
    deps=[s2_papers, s2_authors],
    check_specs=[fields_check_spec("s2_citation_refresh")],
    pool=SEMANTIC_SCHOLAR.pool,
    retry_policy=ENRICH_RETRY,
    group_name=GROUP,
    kinds=SEMANTIC_SCHOLAR.kinds,
    code_version="1",
    description=(
        "Rolling refresh of S2 citation counts and author statistics across the whole corpus, least "
        "recently checked first, within a daily call budget (counted across runs in wove.api_usage). "
        "Every value keeps its as-of day; history in wove.citation_snapshots."
    ),
)
def s2_citation_refresh(context: dg.AssetExecutionContext, config: S2RefreshConfig, s2: SemanticScholarResource,
                        database: DatabaseResource, raw_store: RawStoreResource) -> dg.MaterializeResult:
    budget = RefreshBudget(s2_paper_calls=config.paper_calls_per_day, s2_author_calls=config.author_calls_per_day)
    with s2.client() as client, refusals_fail_fast(), database.connection() as conn:
        s = refresh_s2(conn, client, raw_store.store(), budget)
    return with_fields(context, "s2_citation_refresh", refresh_metadata(s), client)
