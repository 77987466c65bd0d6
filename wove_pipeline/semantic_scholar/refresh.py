"""Semantic Scholar's part of the rolling citation refresh (wove_pipeline.enrichment.refresh):
papers and authors checked least recently, within the day's call budget per entity kind."""

from __future__ import annotations

import datetime as dt

import psycopg

from wove_pipeline.enrichment.fetch import UpstreamFetch, summarize, upstream_fetch
from wove_pipeline.enrichment.raw import RAW_S2_REFRESH, S2
from wove_pipeline.enrichment.refresh import RefreshBudget, RefreshSummary, least_recently_checked, oldest_checked
from wove_pipeline.enrichment.usage import add_usage, calls_left, utc_today
from wove_pipeline.semantic_scholar.client import SemanticScholarClient
from wove_pipeline.upstream.raw_store import RawStore

PAPER_USAGE, AUTHOR_USAGE = "s2_refresh_papers", "s2_refresh_authors"


def refresh_s2(conn: psycopg.Connection, client: SemanticScholarClient, store: RawStore,
               budget: RefreshBudget = RefreshBudget(), today: dt.date | None = None) -> RefreshSummary:
    today = today or utc_today()
    summary = RefreshSummary(S2)
    with conn.transaction():
        paper_calls = calls_left(conn, PAPER_USAGE, budget.s2_paper_calls, today)
        author_calls = calls_left(conn, AUTHOR_USAGE, budget.s2_author_calls, today)
        papers = least_recently_checked(conn, S2, "paper", "wove.s2_papers", "arxiv_id",
                                        paper_calls * client.paper_batch_size)
        authors = least_recently_checked(conn, S2, "author", "wove.s2_authors", "author_id",
                                         author_calls * client.author_batch_size)
        summary.oldest_checked_before = oldest_checked(conn, S2)
    paper_calls_used = None  # set once the paper phase is done

    def record_usage(conn: psycopg.Connection, fetch: UpstreamFetch) -> None:
        used = fetch.calls if paper_calls_used is None else paper_calls_used
        add_usage(conn, PAPER_USAGE, used, day=today)
        add_usage(conn, AUTHOR_USAGE, fetch.calls - used, day=today)
        add_usage(conn, S2, fetch.calls)
        summary.calls_left_today = {
            "papers": calls_left(conn, PAPER_USAGE, budget.s2_paper_calls, today),
            "authors": calls_left(conn, AUTHOR_USAGE, budget.s2_author_calls, today),
        }

    with upstream_fetch(conn, client, store, RAW_S2_REFRESH, today.isoformat(), "refresh:s2",
                        record_usage=record_usage) as fetch:
        fetch.collect(client.paper_batches(papers, asked_on=today.isoformat(), refresh=True))
        paper_calls_used = fetch.calls
        fetch.collect(client.author_batches(authors, asked_on=today.isoformat(), refresh=True))
    summarize(summary, fetch)
    summary.papers_checked, summary.authors_checked = len(papers), len(authors)
    summary.papers_found, summary.authors_found = len(fetch.derived.s2_papers), len(fetch.derived.s2_authors)
    return summary
