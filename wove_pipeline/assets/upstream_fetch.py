"""What the enrichment stage's API-fetching assets share, and the factory of its daily ones.

Every API-calling asset runs in its upstream's pool (`semantic_scholar`, `openalex`; limit 1
each in dagster.yaml), so concurrent runs and backfills never exceed an upstream's rate
limit. A backfill runs up to 31 days per run, and those days' ids are batched together
(500 per S2 call, 50 per OpenAlex call), not day by day.

Upstream drift: a request the upstream refuses (a 4xx other than 408/429, raised by the
HTTP layer as UpstreamRefused) fails its step at once with the upstream's message, as a
`dg.Failure(allow_retries=False)` that the retry policy does not retry: the same request
gets the same 400 however often it is sent. A refused *optional* field (an OpenAlex
`select` field, an S2 `fields` entry) fails nothing: the client drops it and goes on, and
the asset names it in `upstream_fields_dropped` and fails its warning check
`upstream_fields_served`.

The assets themselves: wove_pipeline.semantic_scholar.assets, wove_pipeline.openalex.assets
(and the authorship alignment in wove_pipeline.enrichment.assets).
"""
# (no `from __future__ import annotations` here: Dagster reads annotations at definition time)

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import dagster as dg

from wove_pipeline.assets.failures import refusals_fail_fast
from wove_pipeline.assets.partition_metadata import run_totals
from wove_pipeline.enrichment.fetch import FetchSummary
from wove_pipeline.enrichment.lookback import EnrichmentSettings
from wove_pipeline.enrichment.refresh import RefreshSummary
from wove_pipeline.partitions import BACKFILL, daily_partitions, day_range

ENRICH_RETRY = dg.RetryPolicy(max_retries=3, delay=30, backoff=dg.Backoff.EXPONENTIAL, jitter=dg.Jitter.PLUS_MINUS)
GROUP = "enrich"
FIELDS_CHECK = "upstream_fields_served"


@dataclass(frozen=True)
class Upstream:
    """An upstream as its assets see it: the resource that makes its client, the pool its
    calls run in, and the kind its assets show."""

    resource_key: str
    pool: str
    kind: str

    @property
    def kinds(self) -> set[str]:
        return {self.kind, "parquet", "postgres"}


SEMANTIC_SCHOLAR = Upstream(resource_key="s2", pool="semantic_scholar", kind="semanticscholar")
OPENALEX = Upstream(resource_key="openalex", pool="openalex", kind="openalex")


def fields_check_spec(asset: str) -> dg.AssetCheckSpec:
    return dg.AssetCheckSpec(
        FIELDS_CHECK, asset=asset, blocking=False,
        description=("Every field wove asks the upstream for (OpenAlex `select`, S2 `fields`) was served. "
                     "Warns when the upstream refused one and the run went on without it: the rows lack "
                     "that field until the request is fixed (named in `fields_dropped`)."),
    )


def with_fields(context: dg.AssetExecutionContext, asset: str, meta: dict, client) -> dg.MaterializeResult:
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

    def settings(self) -> EnrichmentSettings:
        return EnrichmentSettings(self.lookback_days, self.max_recheck_interval_days)


def fetch_metadata(s: FetchSummary, table: str) -> dict:
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


def refresh_metadata(s: RefreshSummary) -> dict:
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


def _warn_budget(context: dg.AssetExecutionContext, s: FetchSummary) -> None:
    if s.budget_exhausted:
        context.log.warning(
            f"OpenAlex daily budget reached ({(s.budget or {}).get('reason')}); "
            "what was not asked stays pending and is asked by a later run."
        )


# fetch(conn, client, store, days, settings) -> FetchSummary: a per-source fetch function
FetchFunction = Callable[..., FetchSummary]


def daily_fetch_asset(*, name: str, upstream: Upstream, fetch: FetchFunction, deps: Sequence,
                      description: str) -> dg.AssetsDefinition:
    """A daily API-fetching asset: wove.<name> from ``fetch`` over the run's days. What they all
    share: the day partitions, a month per backfill run, retries with backoff, the group, the
    upstream's pool and kinds, the fields check, the run's figures as metadata."""

    @dg.asset(
        name=name, deps=list(deps), pool=upstream.pool, kinds=upstream.kinds, description=description,
        partitions_def=daily_partitions, backfill_policy=BACKFILL, retry_policy=ENRICH_RETRY, group_name=GROUP,
        code_version="1", check_specs=[fields_check_spec(name)],
        required_resource_keys={upstream.resource_key, "database", "raw_store"},
    )
    def fetch_asset(context: dg.AssetExecutionContext, config: EnrichConfig) -> dg.MaterializeResult:
        resources = context.resources
        with getattr(resources, upstream.resource_key).client() as client, refusals_fail_fast(), \
                resources.database.connection() as conn:
            s = fetch(conn, client, resources.raw_store.store(), day_range(context), config.settings())
        _warn_budget(context, s)
        return with_fields(context, name, fetch_metadata(s, f"wove.{name}"), client)

    return fetch_asset
