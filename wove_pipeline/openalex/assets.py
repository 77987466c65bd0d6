"""OpenAlex's assets: the day's works, their authors and institutions (daily, partitioned), and
the rolling citation refresh (unpartitioned), within OpenAlex's daily cost budget. Thin: the
work is in wove_pipeline.openalex.fetch and .refresh; what the fetching assets share is in
wove_pipeline.assets.upstream_fetch."""
# (no `from __future__ import annotations` here: Dagster reads annotations at definition time)

import dagster as dg

from wove_pipeline.arxiv.assets import papers
from wove_pipeline.assets.failures import refusals_fail_fast
from wove_pipeline.assets.upstream_fetch import (
    ENRICH_RETRY,
    GROUP,
    OPENALEX,
    daily_fetch_asset,
    fields_check_spec,
    refresh_metadata,
    with_fields,
)
from wove_pipeline.enrichment.refresh import RefreshBudget
from wove_pipeline.openalex.fetch import fetch_institutions, fetch_openalex_authors, fetch_openalex_works
from wove_pipeline.openalex.refresh import refresh_openalex
from wove_pipeline.resources import DatabaseResource, RawStoreResource
from wove_pipeline.resources.enrichment import OpenAlexResource

openalex_works = daily_fetch_asset(
    name="openalex_works", upstream=OPENALEX, fetch=fetch_openalex_works, deps=[papers],
    description=(
        "OpenAlex works of the day's papers (wove.openalex_works), found through DOI "
        "10.48550/arxiv.<id>, 50 DOIs per filter call; truncated author lists are completed from "
        "the (free) singleton. Re-asks papers OpenAlex does not know yet for `lookback_days` days. "
        "Stops before the daily cost budget is exceeded and reports it."
    ),
)

openalex_authors = daily_fetch_asset(
    name="openalex_authors", upstream=OPENALEX, fetch=fetch_openalex_authors, deps=[openalex_works],
    description=(
        "OpenAlex author profiles (wove.openalex_authors) on the day's works not held yet, 50 ids per "
        "filter call; merged ids are followed through their 301 and kept in "
        "wove.openalex_author_redirects."
    ),
)

institutions = daily_fetch_asset(
    name="institutions", upstream=OPENALEX, fetch=fetch_institutions, deps=[openalex_works, openalex_authors],
    description=(
        "Institutions (wove.institutions; ROR unique, acronyms and alternative names kept as aliases) "
        "on the day's works and their authors' last known institutions, not held yet."
    ),
)


class OpenAlexRefreshConfig(dg.Config):
    work_calls_per_day: int = 2000  # x 50 works
    author_calls_per_day: int = 2000  # x 50 authors


@dg.asset(
    deps=[openalex_works, openalex_authors],
    check_specs=[fields_check_spec("openalex_citation_refresh")],
    pool=OPENALEX.pool,
    retry_policy=ENRICH_RETRY,
    group_name=GROUP,
    kinds=OPENALEX.kinds,
    code_version="1",
    description=(
        "Rolling refresh of OpenAlex citation counts and author statistics, least recently checked "
        "first, within a daily call budget and OpenAlex's daily cost budget."
    ),
)
def openalex_citation_refresh(context: dg.AssetExecutionContext, config: OpenAlexRefreshConfig,
                              openalex: OpenAlexResource, database: DatabaseResource,
                              raw_store: RawStoreResource) -> dg.MaterializeResult:
    budget = RefreshBudget(openalex_work_calls=config.work_calls_per_day,
                           openalex_author_calls=config.author_calls_per_day)
    with openalex.client() as client, refusals_fail_fast(), database.connection() as conn:
        s = refresh_openalex(conn, client, raw_store.store(), budget)
    if s.budget_exhausted:
        context.log.warning("OpenAlex daily budget reached; the refresh resumes tomorrow where it stopped.")
    return with_fields(context, "openalex_citation_refresh", refresh_metadata(s), client)
