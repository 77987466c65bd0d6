"""The one shape of every enrichment fetch (Semantic Scholar, OpenAlex, their citation refresh).

Two steps, as for the harvest:

1. *fetch*: decide which ids to ask for (in a short transaction of its own,
   wove_pipeline.enrichment.lookback), call the upstream at its batch limits with no
   transaction open, and keep every response as Parquet (wove_pipeline.enrichment.raw);
2. *derive*: turn the responses into rows (wove_pipeline.enrichment.derive) and upsert them
   (wove_pipeline.enrichment.writes) in one transaction, then count the calls spent
   (wove_pipeline.enrichment.usage) in another.

What was fetched is kept and derived even when the fetch fails half-way: the next run
asks only for what is still missing. ``upstream_fetch`` is that skeleton::

    with conn.transaction():
        ids = ...  # select
    with upstream_fetch(conn, client, store, RAW_S2_PAPERS, days.label, "enrich:s2",
                        record_usage=record_s2) as fetch:
        fetch.collect(client.paper_batches(ids, asked_on=...))
    fetch.derived, fetch.raw_file, fetch.calls  # what it wrote
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

import psycopg

from wove_pipeline.database import access as db
from wove_pipeline.enrichment.derive import Derived, derive
from wove_pipeline.enrichment.raw import Fetch, write_fetch
from wove_pipeline.enrichment.writes import write_derived
from wove_pipeline.openalex.client import BudgetExhausted
from wove_pipeline.partitions import DayRange
from wove_pipeline.upstream.gc_pause import gc_paused
from wove_pipeline.upstream.raw_store import RawStore

log = logging.getLogger(__name__)
S = TypeVar("S")


@dataclass
class FetchSummary:
    source: str
    days: DayRange
    asked: int = 0
    asked_own: int = 0
    asked_lookback: int = 0
    found: int = 0
    still_pending: int = 0
    calls: int = 0
    retries: int = 0
    raw_file: str | None = None
    budget: dict | None = None
    budget_exhausted: bool = False
    not_asked: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def hit_rate(self) -> float:
        return self.found / self.asked if self.asked else 1.0


class UpstreamFetch:
    """One fetch from one upstream client into one raw file of ``source``/``label``: the
    responses as they arrive, the calls and retries the client made meanwhile, and (once
    kept) the file and the rows derived from it."""

    def __init__(self, conn: psycopg.Connection, client, store: RawStore, source: str, label: str,
                 lock: str) -> None:
        self.conn, self.client, self.store = conn, client, store
        self.source, self.label, self.lock = source, label, lock
        self.fetched: list[Fetch] = []
        self.raw_file: str | None = None
        self.derived = Derived()
        self.budget_exhausted = False
        self._calls0, self._retries0 = client.http.requests_sent, client.http.retries
        # OpenAlex clients carry a cost budget that counts list calls; S2 clients have none.
        budget = getattr(client, "budget", None)
        self._lists0 = budget.list_calls if budget is not None else 0

    @property
    def calls(self) -> int:
        return self.client.http.requests_sent - self._calls0

    @property
    def retries(self) -> int:
        return self.client.http.retries - self._retries0

    @property
    def list_calls(self) -> int:
        budget = getattr(self.client, "budget", None)
        return budget.list_calls - self._lists0 if budget is not None else 0

    @gc_paused()  # every response is decoded and parsed into records as it arrives
    def collect(self, batches: Iterable) -> None:
        """Take the client's answers (FetchedBatch / Fetched), in order."""
        for b in batches:
            self.fetched.append((b.kind, b.request, b.body, (b.records, b.bad)))

    @gc_paused()
    def keep(self) -> Derived:
        """Write what was fetched to the raw layer and derive from it, in one transaction: from
        the responses as written, with the records their validation parsed (a rebuild from the
        file parses the same bodies into the same records; parsing twice was most of a fetch)."""
        responses = write_fetch(self.store, self.source, self.label, self.fetched, dt.datetime.now(dt.timezone.utc))
        if not responses:
            return self.derived
        with self.conn.transaction():
            db.advisory_lock(self.conn, self.lock)
            self.derived = derive(responses)
            write_derived(self.conn, self.derived, warm=True)
        self.raw_file = responses[0].path
        return self.derived


@contextlib.contextmanager
def upstream_fetch(conn: psycopg.Connection, client, store: RawStore, source: str, label: str, lock: str, *,
                   record_usage: Callable[[psycopg.Connection, UpstreamFetch], None],
                   budget_note: str | None = None) -> Iterator[UpstreamFetch]:
    """The fetch the block makes (``fetch.collect(...)``), kept and derived when the block ends
    however it ends, then its usage recorded (``record_usage``, in its own transaction).
    ``budget_note``: an OpenAlex fetch that reaches the daily cost budget stops there and
    logs this (``%s``: why); what it fetched counts and ``fetch.budget_exhausted`` says so."""
    fetch = UpstreamFetch(conn, client, store, source, label, lock)
    try:
        yield fetch
    except BudgetExhausted as exc:
        if budget_note is None:
            raise
        fetch.budget_exhausted = True
        log.warning(budget_note, exc)
    finally:
        fetch.keep()
        with conn.transaction():
            record_usage(conn, fetch)


def summarize(summary: S, fetch: UpstreamFetch) -> S:
    """The fetch's calls, retries, raw file and budget state, into its summary (a FetchSummary
    or the refresh's RefreshSummary)."""
    summary.calls, summary.retries, summary.raw_file = fetch.calls, fetch.retries, fetch.raw_file
    summary.budget_exhausted = summary.budget_exhausted or fetch.budget_exhausted
    budget = getattr(fetch.client, "budget", None)
    if budget is not None:
        summary.budget = budget.summary()
    return summary
