"""Rolling citation refresh: keep counts and author statistics fresh across the corpus.

Not tied to a paper's day. Each run re-asks the upstreams about the records checked least
recently (wove.refresh_state, which enrichment also stamps), as many as a daily call budget
allows, at the batch limits (S2: 500 papers / 1000 authors per call; OpenAlex: 50 per
filter call). Responses go to the raw layer (sources s2_refresh / openalex_refresh) and
through the same derivation as enrichment, so every count in the entity tables carries its
source and as-of day, and wove.citation_snapshots keeps one row per entity, source and day.

The daily budget is counted in wove.api_usage (per UTC day, across runs), so running the
refresh twice in a day only spends what is left; OpenAlex's own cost budget applies on top.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass, field

from wove_pipeline.database import access as db
from wove_pipeline.enrichment import fetch as en
from wove_pipeline.openalex.client import BudgetExhausted, OpenAlexClient
from wove_pipeline.semantic_scholar.client import SemanticScholarClient
from wove_pipeline.upstream.raw_store import RawStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RefreshBudget:
    """Calls per UTC day spent on the refresh, per upstream and entity kind."""

    s2_paper_calls: int = 200  # x 500 papers
    s2_author_calls: int = 100  # x 1000 authors
    openalex_work_calls: int = 2000  # x 50 works ($0.20 at 2026 prices)
    openalex_author_calls: int = 2000  # x 50 authors


@dataclass
class RefreshSummary:
    source: str
    papers_checked: int = 0
    authors_checked: int = 0
    papers_found: int = 0
    authors_found: int = 0
    calls: int = 0
    retries: int = 0
    calls_left_today: dict = field(default_factory=dict)
    oldest_checked_before: str | None = None
    raw_file: str | None = None
    budget: dict | None = None
    budget_exhausted: bool = False


def _least_recent(conn, source: str, kind: str, table: str, key: str, limit: int) -> list[str]:
    if limit <= 0:
        return []
    return [r[0] for r in conn.execute(
        f"SELECT t.{key} FROM {table} t LEFT JOIN wove.refresh_state r"  # identifiers from code only
        f" ON r.source = %s AND r.entity_kind = %s AND r.entity_id = t.{key}"
        f" ORDER BY r.last_checked_at NULLS FIRST, t.{key} LIMIT %s",
        (source, kind, limit),
    )]


def _oldest(conn, source: str) -> str | None:
    v = db.fetch_value(conn, "SELECT min(last_checked_at) FROM wove.refresh_state WHERE source = %s", (source,))
    return None if v is None else v.isoformat()


def _calls_left(conn, usage_source: str, per_day: int, day: dt.date) -> int:
    return max(0, per_day - en.usage_today(conn, usage_source, day)[0])


def refresh_s2(database_url: str, client: SemanticScholarClient, store: RawStore,
               budget: RefreshBudget = RefreshBudget(), today: dt.date | None = None) -> RefreshSummary:
    today = today or en.utc_today()
    summary = RefreshSummary(en.S2)
    with db.transaction(database_url) as conn:
        paper_calls = _calls_left(conn, "s2_refresh_papers", budget.s2_paper_calls, today)
        author_calls = _calls_left(conn, "s2_refresh_authors", budget.s2_author_calls, today)
        papers = _least_recent(conn, en.S2, "paper", "wove.s2_papers", "arxiv_id",
                               paper_calls * client.paper_batch_size)
        authors = _least_recent(conn, en.S2, "author", "wove.s2_authors", "author_id",
                                author_calls * client.author_batch_size)
        summary.oldest_checked_before = _oldest(conn, en.S2)
    fetched: list[en.Fetch] = []
    calls0, retries0 = client.http.requests_sent, client.http.retries
    paper_calls_used = None  # set once the paper phase is done
    try:
        en._collect(client.paper_batches(papers, asked_on=today.isoformat(), refresh=True), fetched)
        paper_calls_used = client.http.requests_sent - calls0
        en._collect(client.author_batches(authors, asked_on=today.isoformat(), refresh=True), fetched)
    finally:
        summary.calls, summary.retries = client.http.requests_sent - calls0, client.http.retries - retries0
        summary.raw_file, derived = en._finish(database_url, store, en.RAW_S2_REFRESH, today.isoformat(), fetched,
                                               "refresh:s2")
        with db.transaction(database_url) as conn:
            paper_calls_used = summary.calls if paper_calls_used is None else paper_calls_used
            en.add_usage(conn, "s2_refresh_papers", paper_calls_used, day=today)
            en.add_usage(conn, "s2_refresh_authors", summary.calls - paper_calls_used, day=today)
            en.add_usage(conn, en.S2, summary.calls)
            summary.calls_left_today = {
                "papers": _calls_left(conn, "s2_refresh_papers", budget.s2_paper_calls, today),
                "authors": _calls_left(conn, "s2_refresh_authors", budget.s2_author_calls, today),
            }
    summary.papers_checked, summary.authors_checked = len(papers), len(authors)
    summary.papers_found, summary.authors_found = len(derived.s2_papers), len(derived.s2_authors)
    return summary


def refresh_openalex(database_url: str, client: OpenAlexClient, store: RawStore,
                     budget: RefreshBudget = RefreshBudget(), today: dt.date | None = None) -> RefreshSummary:
    today = today or en.utc_today()
    summary = RefreshSummary(en.OPENALEX)
    with db.transaction(database_url) as conn:
        work_calls = _calls_left(conn, "openalex_refresh_works", budget.openalex_work_calls, today)
        author_calls = _calls_left(conn, "openalex_refresh_authors", budget.openalex_author_calls, today)
        works = _least_recent(conn, en.OPENALEX, "paper", "wove.openalex_works", "arxiv_id",
                              work_calls * client.or_values)
        authors = _least_recent(conn, en.OPENALEX, "author", "wove.openalex_authors", "author_id",
                                author_calls * client.or_values)
        # A work OpenAlex merged into the published version answers to that DOI only.
        published = conn.execute(
            "SELECT arxiv_id, doi FROM wove.openalex_works WHERE arxiv_id = ANY(%s) AND doi IS NOT NULL"
            " AND doi NOT LIKE '10.48550/arxiv.%%' ORDER BY arxiv_id", (works,)).fetchall()
        merged = {a for a, _ in published}
        # Two sets of calls within the day's: all published-DOI ones, the arXiv-DOI ones what is left.
        arxiv_doi_calls = max(0, work_calls - -(-len(published) // client.or_values))
        by_arxiv_doi = [w for w in works if w not in merged][: arxiv_doi_calls * client.or_values]
        works = by_arxiv_doi + [a for a, _ in published]
        summary.oldest_checked_before = _oldest(conn, en.OPENALEX)
        en._openalex_prepare(conn, client)
    fetched: list[en.Fetch] = []
    calls0, retries0, list0 = client.http.requests_sent, client.http.retries, client.budget.list_calls
    work_lists = None  # set once the works phase is done
    try:
        en._collect(client.works_by_arxiv_ids(by_arxiv_doi, asked_on=today.isoformat(), refresh=True), fetched)
        en._collect(client.works_by_published_dois(published, asked_on=today.isoformat(), refresh=True), fetched)
        work_lists = client.budget.list_calls - list0
        en._collect(client.authors_by_ids(authors, asked_on=today.isoformat(), refresh=True), fetched)
    except BudgetExhausted as exc:
        summary.budget_exhausted = True
        log.warning("OpenAlex refresh stopped: %s", exc)
    finally:
        summary.calls, summary.retries = client.http.requests_sent - calls0, client.http.retries - retries0
        summary.raw_file, derived = en._finish(database_url, store, en.RAW_OA_REFRESH, today.isoformat(), fetched,
                                               "refresh:openalex")
        en._openalex_usage(database_url, client, list0, calls0)
        lists = client.budget.list_calls - list0
        work_lists = lists if work_lists is None else work_lists
        with db.transaction(database_url) as conn:
            en.add_usage(conn, "openalex_refresh_works", work_lists, day=today)
            en.add_usage(conn, "openalex_refresh_authors", lists - work_lists, day=today)
            summary.calls_left_today = {
                "works": _calls_left(conn, "openalex_refresh_works", budget.openalex_work_calls, today),
                "authors": _calls_left(conn, "openalex_refresh_authors", budget.openalex_author_calls, today),
            }
        summary.budget = client.budget.summary()
    summary.papers_checked, summary.authors_checked = len(works), len(authors)
    summary.papers_found, summary.authors_found = len(derived.oa_works), len(derived.oa_authors)
    return summary
