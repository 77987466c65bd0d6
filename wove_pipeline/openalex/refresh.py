"""OpenAlex's part of the rolling citation refresh (wove_pipeline.enrichment.refresh): works
and authors checked least recently, within the day's call budget per entity kind and
OpenAlex's daily cost budget. A work OpenAlex merged into its published version is asked for
by that DOI."""

from __future__ import annotations

import datetime as dt

import psycopg

from wove_pipeline.enrichment.fetch import UpstreamFetch, summarize, upstream_fetch
from wove_pipeline.enrichment.raw import OPENALEX, RAW_OA_REFRESH
from wove_pipeline.enrichment.refresh import RefreshBudget, RefreshSummary, least_recently_checked, oldest_checked
from wove_pipeline.enrichment.usage import add_usage, calls_left, openalex_spent_by_others, record_openalex, utc_today
from wove_pipeline.openalex.client import OpenAlexClient
from wove_pipeline.upstream.raw_store import RawStore

WORK_USAGE, AUTHOR_USAGE = "openalex_refresh_works", "openalex_refresh_authors"


def refresh_openalex(conn: psycopg.Connection, client: OpenAlexClient, store: RawStore,
                     budget: RefreshBudget = RefreshBudget(), today: dt.date | None = None) -> RefreshSummary:
    today = today or utc_today()
    summary = RefreshSummary(OPENALEX)
    with conn.transaction():
        work_calls = calls_left(conn, WORK_USAGE, budget.openalex_work_calls, today)
        author_calls = calls_left(conn, AUTHOR_USAGE, budget.openalex_author_calls, today)
        works = least_recently_checked(conn, OPENALEX, "paper", "wove.openalex_works", "arxiv_id",
                                       work_calls * client.or_values)
        authors = least_recently_checked(conn, OPENALEX, "author", "wove.openalex_authors", "author_id",
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
        summary.oldest_checked_before = oldest_checked(conn, OPENALEX)
        openalex_spent_by_others(conn, client)
    work_lists = None  # set once the works phase is done

    def record_usage(conn: psycopg.Connection, fetch: UpstreamFetch) -> None:
        record_openalex(conn, fetch)
        lists = fetch.list_calls
        used = lists if work_lists is None else work_lists
        add_usage(conn, WORK_USAGE, used, day=today)
        add_usage(conn, AUTHOR_USAGE, lists - used, day=today)
        summary.calls_left_today = {
            "works": calls_left(conn, WORK_USAGE, budget.openalex_work_calls, today),
            "authors": calls_left(conn, AUTHOR_USAGE, budget.openalex_author_calls, today),
        }

    with upstream_fetch(conn, client, store, RAW_OA_REFRESH, today.isoformat(), "refresh:openalex",
                        record_usage=record_usage, budget_note="OpenAlex refresh stopped: %s") as fetch:
        fetch.collect(client.works_by_arxiv_ids(by_arxiv_doi, asked_on=today.isoformat(), refresh=True))
        fetch.collect(client.works_by_published_dois(published, asked_on=today.isoformat(), refresh=True))
        work_lists = fetch.list_calls
        fetch.collect(client.authors_by_ids(authors, asked_on=today.isoformat(), refresh=True))
    summarize(summary, fetch)
    summary.papers_checked, summary.authors_checked = len(works), len(authors)
    summary.papers_found, summary.authors_found = len(fetch.derived.oa_works), len(fetch.derived.oa_authors)
    return summary
