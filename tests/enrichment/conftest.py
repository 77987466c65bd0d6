"""Helpers for the enrichment tests: load harvested days straight into the database, build
fast clients (tiny backoff) against the sandbox, and snapshot the enrichment tables."""

from __future__ import annotations

import datetime as dt

import psycopg
from psycopg import sql

from wove_pipeline.arxiv import harvest as papers_load
from wove_pipeline.arxiv.client import ArxivOaiClient
from wove_pipeline.database import access as db
from wove_pipeline.openalex.client import OpenAlexBudget, OpenAlexClient
from wove_pipeline.semantic_scholar.client import SemanticScholarClient
from wove_pipeline.upstream.http import RetrySettings
from wove_pipeline.upstream.raw_store import RawStore

FAST_RETRY = RetrySettings(attempts=8, backoff_initial_s=0.01, backoff_max_s=0.05)

# Columns that record *when* (wall clock), not *what*: excluded when comparing runs.
VOLATILE = {"fetched_at", "aligned_at", "first_attempt_at", "last_attempt_at", "last_checked_at", "last_found_at"}
COMPARED_TABLES = {
    "wove.s2_papers": "arxiv_id",
    "wove.openalex_works": "arxiv_id",
    "wove.s2_authors": "author_id",
    "wove.openalex_authors": "author_id",
    "wove.openalex_author_redirects": "old_author_id",
    "wove.institutions": "institution_id",
    "wove.authorships": "arxiv_id, position",
    "wove.enrichment_attempts": "arxiv_id, source",
    "wove.citation_snapshots": "source, entity_kind, entity_id, as_of",
    "wove.refresh_state": "source, entity_kind, entity_id",
}


def s2_client(server, **kw) -> SemanticScholarClient:
    return SemanticScholarClient(server.url_for("s2"), min_interval_s=0, retry=FAST_RETRY,
                                 timeout_s=kw.pop("timeout_s", 10.0), **kw)


def openalex_client(server, budget: OpenAlexBudget | None = None, **kw) -> OpenAlexClient:
    return OpenAlexClient(server.url_for("openalex"), min_interval_s=0, retry=FAST_RETRY, budget=budget,
                          timeout_s=kw.pop("timeout_s", 10.0), **kw)


def load_days(database_url: str, server, store: RawStore, days) -> None:
    """Harvest arXiv days from the sandbox and load them (what the harvest assets do)."""
    client = ArxivOaiClient(server.url_for("arxiv"), min_interval_s=0, retry=FAST_RETRY)
    try:
        for day in days:
            papers_load.harvest_day(client, store, day)
            parsed = papers_load.parse_day(store, day)
            with db.transaction(database_url) as conn:
                papers_load.load_day(conn, day, parsed)
    finally:
        client.close()


def connect(database_url: str) -> psycopg.Connection:
    """An autocommit connection, as the assets hand the core (DatabaseResource.connection)."""
    return db.connect(database_url, autocommit=True)


def world_days(world) -> list[dt.date]:
    return sorted({p.datestamp for p in world.papers})


def snapshot(database_url: str) -> dict[str, list[tuple]]:
    out = {}
    with psycopg.connect(database_url) as conn:
        for table, order in COMPARED_TABLES.items():
            schema, name = table.split(".")
            cols = [r[0] for r in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = %s AND table_name = %s"
                " ORDER BY ordinal_position", (schema, name))]
            keep = [c for c in cols if c not in VOLATILE]
            query = sql.SQL("SELECT {} FROM {} ORDER BY " + order).format(
                sql.SQL(", ").join(map(sql.Identifier, keep)), sql.Identifier(schema, name))
            out[table] = conn.execute(query).fetchall()
    return out


