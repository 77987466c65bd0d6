"""Semantic Scholar for a run's days: the papers (Graph API /paper/batch, 500 arXiv ids a call)
and the profiles of their authors (/author/batch, 1000 a call), through the enrichment fetch
skeleton (wove_pipeline.enrichment.fetch): raw Parquet first, then rows.
"""

from __future__ import annotations

import psycopg

from wove_pipeline.enrichment.fetch import FetchSummary, summarize, upstream_fetch
from wove_pipeline.enrichment.lookback import EnrichmentSettings, select_candidates, window_authors_not_held
from wove_pipeline.enrichment.raw import RAW_S2_AUTHORS, RAW_S2_PAPERS, S2
from wove_pipeline.enrichment.usage import record_s2
from wove_pipeline.partitions import DayRange
from wove_pipeline.semantic_scholar.client import SemanticScholarClient
from wove_pipeline.upstream.raw_store import RawStore


def fetch_s2_papers(conn: psycopg.Connection, client: SemanticScholarClient, store: RawStore, days: DayRange,
                    settings: EnrichmentSettings = EnrichmentSettings()) -> FetchSummary:
    """S2 records of the days' papers not found yet, and of the look-back's papers due for a re-ask
    (wove_pipeline.enrichment.lookback)."""
    with conn.transaction():
        cand = select_candidates(conn, S2, days, settings, client.paper_batch_size)
    summary = FetchSummary(S2, days, asked=len(cand.ids), asked_own=len(cand.own),
                           asked_lookback=len(cand.due) + len(cand.filler))
    with upstream_fetch(conn, client, store, RAW_S2_PAPERS, days.label, "enrich:s2", record_usage=record_s2) as fetch:
        fetch.collect(client.paper_batches(cand.ids, asked_on=days.last.isoformat()))
    summarize(summary, fetch)
    summary.found = len(fetch.derived.s2_papers)
    summary.still_pending = summary.asked - summary.found
    return summary


def fetch_s2_authors(conn: psycopg.Connection, client: SemanticScholarClient, store: RawStore, days: DayRange,
                     settings: EnrichmentSettings = EnrichmentSettings()) -> FetchSummary:
    """S2 profiles of the authors of the window's papers that we do not hold yet."""
    ids = window_authors_not_held(
        conn, days, settings,
        "SELECT DISTINCT a->>'author_id' FROM wove.s2_papers s JOIN wove.papers p USING (arxiv_id),"
        " jsonb_array_elements(s.authors) a WHERE p.oai_datestamp BETWEEN %(start)s AND %(end)s"
        " AND a->>'author_id' IS NOT NULL",
        "SELECT x.id FROM unnest(%(ids)s::text[]) x(id)"
        " WHERE EXISTS (SELECT 1 FROM wove.s2_authors a WHERE a.author_id = x.id)")
    summary = FetchSummary(S2, days, asked=len(ids))
    with upstream_fetch(conn, client, store, RAW_S2_AUTHORS, days.label, "enrich:s2_authors",
                        record_usage=record_s2) as fetch:
        fetch.collect(client.author_batches(ids, asked_on=days.last.isoformat()))
    summarize(summary, fetch)
    summary.found = len(fetch.derived.s2_authors)
    summary.still_pending = summary.asked - summary.found
    return summary
