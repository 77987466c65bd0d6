"""Resources for the enrichment upstreams: Semantic Scholar and OpenAlex.

Keys: definitions.py leaves `api_key` unset, and `client()` then takes S2_API_KEY /
OPENALEX_API_KEY from wove_pipeline.settings.upstream_keys() when the run makes its client
(never at import, so no key is in the definitions or their snapshots); without one the
client runs keyless. A deployment may set `api_key` instead (e.g. `dg.EnvVar(...)` in its
own definitions). Keys are handed to the HTTP layer as secrets (redacted from every
message) and never reach raw files or metadata.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import dagster as dg

from wove_pipeline.openalex.client import LIST_CALL_USD, OpenAlexBudget, OpenAlexClient
from wove_pipeline.semantic_scholar.client import SemanticScholarClient
from wove_pipeline.settings import upstream_keys, upstream_settings
from wove_pipeline.upstream.http import RetrySettings


class _RetryFields(dg.ConfigurableResource):
    retry_attempts: int = 8
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 60.0
    timeout_s: float = 60.0

    def retry_settings(self) -> RetrySettings:
        return RetrySettings(attempts=self.retry_attempts, backoff_initial_s=self.backoff_initial_s,
                             backoff_max_s=self.backoff_max_s)


class SemanticScholarResource(_RetryFields):
    """Semantic Scholar Graph API v1 (paper batches of 500, author batches of 1000)."""

    base_url: str | None = None  # None: S2_API_URL, else the public API
    api_key: str | None = None  # None: S2_API_KEY when the client is made, if set
    # 1 request/s is what a key gets; S2_MIN_INTERVAL_S overrides (the sandbox sets 0).
    min_interval_s: float | None = None
    concurrency: int = 2  # batches in flight at once (their starts still 1 s apart)

    @contextlib.contextmanager
    def client(self) -> Iterator[SemanticScholarClient]:
        key = self.api_key if self.api_key is not None else upstream_keys().s2
        interval = self.min_interval_s if self.min_interval_s is not None else upstream_settings().s2_min_interval_s
        client = SemanticScholarClient(
            self.base_url or upstream_settings().s2_api_url, api_key=key, min_interval_s=interval,
            timeout_s=self.timeout_s, retry=self.retry_settings(), concurrency=self.concurrency,
        )
        try:
            yield client
        finally:
            client.close()


class OpenAlexResource(_RetryFields):
    """OpenAlex (OR-filters of 50, per_page 100, cursor paging) within a daily cost budget."""

    base_url: str | None = None  # None: OPENALEX_API_URL, else the public API
    api_key: str | None = None  # None: OPENALEX_API_KEY when the client is made, if set
    daily_budget_usd: float | None = 1.0  # a free key's daily allowance (2026); None: no own limit
    list_call_usd: float = LIST_CALL_USD  # pricing changes often: configuration, not code
    min_interval_s: float | None = None  # 100 requests/s on every plan; OPENALEX_MIN_INTERVAL_S overrides
    concurrency: int = 4  # filter calls in flight at once

    @contextlib.contextmanager
    def client(self) -> Iterator[OpenAlexClient]:
        key = self.api_key if self.api_key is not None else upstream_keys().openalex
        interval = (self.min_interval_s if self.min_interval_s is not None
                    else upstream_settings().openalex_min_interval_s)
        client = OpenAlexClient(
            self.base_url or upstream_settings().openalex_api_url, api_key=key,
            budget=OpenAlexBudget(daily_usd=self.daily_budget_usd, list_call_usd=self.list_call_usd),
            min_interval_s=interval, timeout_s=self.timeout_s, retry=self.retry_settings(),
            concurrency=self.concurrency,
        )
        try:
            yield client
        finally:
            client.close()
