"""Enrichment stage: Semantic Scholar and OpenAlex records per paper day, their authors and
institutions, the authorship alignment, and the rolling citation refresh.

Thin assets over wove_pipeline.enrichment.fetch / citation_refresh. Every API-calling asset
runs in its upstream's pool (`semantic_scholar`, `openalex`; limit 1 each in dagster.yaml),
so concurrent runs and backfills never exceed an upstream's rate limit. A backfill runs up
to 31 days per run, and those days' ids are batched together (500 per S2 call, 50 per
OpenAlex call), not day by day.

Upstream drift: a request the upstream refuses (a 4xx other than 408/429, raised by the
HTTP layer as UpstreamRefused) fails its step at once with the upstream's message, as a
`dg.Failure(allow_retries=False)` that the retry policy does not retry: the same request
gets the same 400 however often it is sent. A refused *optional* field (an OpenAlex
`select` field, an S2 `fields` entry) fails nothing: the client drops it and goes on, and
the asset names it in `upstream_fields_dropped` and fails its warning check
`upstream_fields_served`.
"""



import dagster as dg

from wove_pipeline.arxiv.assets import papers
from wove_pipeline.assets.failures import refusals_fail_fast as _refusals_fail_fast
from wove_pipeline.assets.partition_metadata import run_totals
from wove_pipeline.enrichment import fetch as en
from wove_pipeline.enrichment import refresh as cr
from wove_pipeline.partitions import BACKFILL, daily_partitions, partition_days
from wove_pipeline.resources import DatabaseResource, RawStoreResource
from wove_pipeline.resources.enrichment import OpenAlexResource, SemanticScholarResource

ENRICH_RETRY = dg.RetryPolicy(max_retries=3, delay=30, backoff=dg.Backoff.EXPONENTIAL, jitter=dg.Jitter.PLUS_MINUS)
GROUP = "enrich"
FIELDS_CHECK = "upstream_fields_served"


def _fields_check_spec(asset: str) -> dg.AssetCheckSpec:
    return dg.AssetCheckSpec(
        FIELDS_CHECK, asset=asset, blocking=False,
        description=("Every field wove asks the upstream for (OpenAlex `select`, S2 `fields`) was served. "
                     "Warns when the upstream refused one and the run went on without it: the rows lack "
                     "that field until the request is fixed (named in `fields_dropped`)."),
    )


# What every daily API-fetching asset shares: the day partitions, a month per backfill run,
# retries with backoff, the group, the fields check. Each adds its deps, pool, kinds and description.
def daily_fetch_asset(*, name: str, **kw):
    return dg.asset(name=name, partitions_def=daily_partitions, backfill_policy=BACKFILL, retry_policy=ENRICH_RETRY,
                    group_name=GROUP, code_version="1", check_specs=[_fields_check_spec(name)], **kw)


def _with_fields(context: dg.AssetExecutionContext, asset: str, meta: dict, client) -> dg.MaterializeResult:
    """The materialization, with the fields the upstream refused (if any) in its metadata and
    the warning check's verdict."""
    dropped = client.dropped_fields
    meta = {**meta, "upstream_fields_dropped": dg.MetadataValue.json(dropped)}
    if dropped:
        context.log.warning(f"{asset}: the upstream refused {dropped}; the rows lack those fields "
                            "(see the upstream_fields_served check)")
    check = dg.AssetCheckResult(
        check_name=FIELDS_CHECK, asset_key=asset, passed=not dropped, severity=dg.AssetCheckSeverity.WARN,
        metadata={"fields_dropped": dg.MetadataValue.json(dropped)},
    )
    # a run over several days has only the run's figures: named run_* so no day shows them as its own
    return dg.MaterializeResult(metadata=run_totals(context, meta), check_results=[check])


class EnrichConfig(dg.Config):
    lookback_days: int = 60  # re-ask papers of this many earlier days that upstream did not know yet
    max_recheck_interval_days: int = 4  # pending papers are re-asked after 1, 2, 4, ... days, at most this

    def settings(self) -> en.EnrichmentSettings:
        return en.EnrichmentSettings(self.lookback_days, self.max_recheck_interval_days)


def _fetch_metadata(s: en.FetchSummary, table: str) -> dict:
    meta = {
        "dagster/row_count": s.found,
        "dagster/table_name": table,
        "asked": s.asked,
        "asked_own_days": s.asked_own,
        "asked_lookback": s.asked_lookback,
        "found": s.found,
        "hit_rate": round(s.hit_rate, 4),
        "still_pending": s.still_pending,
        "api_calls": s.calls,
        "retries": s.retries,
        "raw_file": s.raw_file or "",
    }
    if s.budget is not None:
        meta["openalex_budget"] = dg.MetadataValue.json(s.budget)
        meta["budget_exhausted"] = s.budget_exhausted
        meta["not_asked_budget"] = s.not_asked
    for k, v in s.extra.items():
        meta[k] = v
    return meta


def _warn_budget(context: dg.AssetExecutionContext, s) -> None:
    if s.budget_exhausted:
        context.log.warning(
            f"OpenAlex daily budget reached ({(s.budget or {}).get('reason')}); "
            "what was not asked stays pending and is asked by a later run."
        )


@daily_fetch_asset(
    name="s2_papers",
    deps=[papers],
    pool="semantic_scholar",
    kinds={"semanticscholar", "parquet", "postgres"},
    description=(
        "Semantic Scholar records of the day's papers (wove.s2_papers, keyed by the arXiv id asked "
        "for), batched 500 ids per call. Papers S2 does not know yet are re-asked by later runs for "
        "`lookback_days` days (wove.enrichment_attempts). Raw responses are kept as Parquet."
    ),
)
def s2_papers(context: dg.AssetExecutionContext, config: EnrichConfig, s2: SemanticScholarResource,
              database: DatabaseResource, raw_store: RawStoreResource) -> dg.MaterializeResult:
    with s2.client() as client, _refusals_fail_fast():
        s = en.fetch_s2_papers(database.url, client, raw_store.store(), partition_days(context), config.settings())
    return _with_fields(context, "s2_papers", _fetch_metadata(s, "wove.s2_papers"), client)


@daily_fetch_asset(
    name="openalex_works",
    deps=[papers],
    pool="openalex",
    kinds={"openalex", "parquet", "postgres"},
    description=(
        "OpenAlex works of the day's papers (wove.openalex_works), found through DOI "
        "10.48550/arxiv.<id>, 50 DOIs per filter call; truncated author lists are completed from "
        "the (free) singleton. Re-asks papers OpenAlex does not know yet for `lookback_days` days. "
        "Stops before the daily cost budget is exceeded and reports it."
    ),
)
def openalex_works(context: dg.AssetExecutionContext, config: EnrichConfig, openalex: OpenAlexResource,
                   database: DatabaseResource, raw_store: RawStoreResource) -> dg.MaterializeResult:
    with openalex.client() as client, _refusals_fail_fast():
        s = en.fetch_openalex_works(database.url, client, raw_store.store(), partition_days(context),
                                    config.settings())
    _warn_budget(context, s)
    return _with_fields(context, "openalex_works", _fetch_metadata(s, "wove.openalex_works"), client)


@daily_fetch_asset(
    name="s2_authors",
    deps=[s2_papers],
    pool="semantic_scholar",
    kinds={"semanticscholar", "parquet", "postgres"},
    description=(
        "Semantic Scholar author profiles (wove.s2_authors: h-index, citations, papers, ORCID when "
        "claimed) of the authors on the day's S2 papers not held yet, 1000 ids per call. Kept fresh "
        "by the citation refresh."
    ),
)
def s2_authors(context: dg.AssetExecutionContext, config: EnrichConfig, s2: SemanticScholarResource,
               database: DatabaseResource, raw_store: RawStoreResource) -> dg.MaterializeResult:
    with s2.client() as client, _refusals_fail_fast():
        s = en.fetch_s2_authors(database.url, client, raw_store.store(), partition_days(context), config.settings())
    return _with_fields(context, "s2_authors", _fetch_metadata(s, "wove.s2_authors"), client)


@daily_fetch_asset(
    name="openalex_authors",
    deps=[openalex_works],
    pool="openalex",
    kinds={"openalex", "parquet", "postgres"},
    description=(
        "OpenAlex author profiles (wove.openalex_authors) on the day's works not held yet, 50 ids per "
        "filter call; merged ids are followed through their 301 and kept in "
        "wove.openalex_author_redirects."
    ),
)
def openalex_authors(context: dg.AssetExecutionContext, config: EnrichConfig, openalex: OpenAlexResource,
                     database: DatabaseResource, raw_store: RawStoreResource) -> dg.MaterializeResult:
    with openalex.client() as client, _refusals_fail_fast():
        s = en.fetch_openalex_authors(database.url, client, raw_store.store(), partition_days(context),
                                      config.settings())
    _warn_budget(context, s)
    return _with_fields(context, "openalex_authors", _fetch_metadata(s, "wove.openalex_authors"), client)


@daily_fetch_asset(
    name="institutions",
    deps=[openalex_works, openalex_authors],
    pool="openalex",
    kinds={"openalex", "parquet", "postgres"},
    description=(
        "Institutions (wove.institutions; ROR unique, acronyms and alternative names kept as aliases) "
        "on the day's works and their authors' last known institutions, not held yet."
    ),
)
def institutions(context: dg.AssetExecutionContext, config: EnrichConfig, openalex: OpenAlexResource,
                 database: DatabaseResource, raw_store: RawStoreResource) -> dg.MaterializeResult:
    with openalex.client() as client, _refusals_fail_fast():
        s = en.fetch_institutions(database.url, client, raw_store.store(), partition_days(context),
                                  config.settings())
    _warn_budget(context, s)
    return _with_fields(context, "institutions", _fetch_metadata(s, "wove.institutions"), client)


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
    s = en.align_days(database.url, partition_days(context), config.settings())
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


# ----------------------------------------------------------------------------------------
# rolling citation refresh (unpartitioned; one asset per upstream so each runs in its pool)


class S2RefreshConfig(dg.Config):
    paper_calls_per_day: int = 200  # x 500 papers
    author_calls_per_day: int = 100  # x 1000 authors


class OpenAlexRefreshConfig(dg.Config):
    work_calls_per_day: int = 2000  # x 50 works
    author_calls_per_day: int = 2000  # x 50 authors


def _refresh_metadata(s: cr.RefreshSummary) -> dict:
    meta = {
        "dagster/row_count": s.papers_found + s.authors_found,
        "papers_checked": s.papers_checked,
        "papers_found": s.papers_found,
        "authors_checked": s.authors_checked,
        "authors_found": s.authors_found,
        "api_calls": s.calls,
        "retries": s.retries,
        "calls_left_today": dg.MetadataValue.json(s.calls_left_today),
        "oldest_checked_before": s.oldest_checked_before or "",
        "raw_file": s.raw_file or "",
    }
    if s.budget is not None:
        meta["openalex_budget"] = dg.MetadataValue.json(s.budget)
        meta["budget_exhausted"] = s.budget_exhausted
    return meta


@dg.asset(
    deps=[s2_papers, s2_authors],
    check_specs=[_fields_check_spec("s2_citation_refresh")],
    pool="semantic_scholar",
    retry_policy=ENRICH_RETRY,
    group_name=GROUP,
    kinds={"semanticscholar", "parquet", "postgres"},
    code_version="1",
    description=(
        "Rolling refresh of S2 citation counts and author statistics across the whole corpus, least "
        "recently checked first, within a daily call budget (counted across runs in wove.api_usage). "
        "Every value keeps its as-of day; history in wove.citation_snapshots."
    ),
)
def s2_citation_refresh(context: dg.AssetExecutionContext, config: S2RefreshConfig, s2: SemanticScholarResource,
                        database: DatabaseResource, raw_store: RawStoreResource) -> dg.MaterializeResult:
    budget = cr.RefreshBudget(s2_paper_calls=config.paper_calls_per_day, s2_author_calls=config.author_calls_per_day)
    with s2.client() as client, _refusals_fail_fast():
        s = cr.refresh_s2(database.url, client, raw_store.store(), budget)
    return _with_fields(context, "s2_citation_refresh", _refresh_metadata(s), client)


@dg.asset(
    deps=[openalex_works, openalex_authors],
    check_specs=[_fields_check_spec("openalex_citation_refresh")],
    pool="openalex",
    retry_policy=ENRICH_RETRY,
    group_name=GROUP,
    kinds={"openalex", "parquet", "postgres"},
    code_version="1",
    description=(
        "Rolling refresh of OpenAlex citation counts and author statistics, least recently checked "
        "first, within a daily call budget and OpenAlex's daily cost budget."
    ),
)
def openalex_citation_refresh(context: dg.AssetExecutionContext, config: OpenAlexRefreshConfig,
                              openalex: OpenAlexResource, database: DatabaseResource,
                              raw_store: RawStoreResource) -> dg.MaterializeResult:
    budget = cr.RefreshBudget(openalex_work_calls=config.work_calls_per_day,
                              openalex_author_calls=config.author_calls_per_day)
    with openalex.client() as client, _refusals_fail_fast():
        s = cr.refresh_openalex(database.url, client, raw_store.store(), budget)
    if s.budget_exhausted:
        context.log.warning("OpenAlex daily budget reached; the refresh resumes tomorrow where it stopped.")
    return _with_fields(context, "openalex_citation_refresh", _refresh_metadata(s), client)


daily_enrichment_assets = [s2_papers, openalex_works, s2_authors, openalex_authors, institutions, authorships]
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
