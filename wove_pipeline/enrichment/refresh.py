"""Rolling citation refresh, what both upstreams share: keep counts and author statistics
fresh across the corpus.

Not tied to a paper's day. Each run re-asks the upstreams about the records checked least
recently (wove.refresh_state, which enrichment also stamps), as many as a daily call budget
allows, at the batch limits (S2: 500 papers / 1000 authors per call; OpenAlex: 50 per
filter call). Responses go to the raw layer (sources s2_refresh / openalex_refresh) and
through the same fetch skeleton and derivation as enrichment (wove_pipeline.enrichment.fetch),
so every count in the entity tables carries its source and as-of day, and
wove.citation_snapshots keeps one row per entity, source and day. The refreshes themselves:
wove_pipeline.semantic_scholar.refresh and wove_pipeline.openalex.refresh.

The daily budget is counted in wove.api_usage (per UTC day, across runs), so running the
refresh twice in a day only spends what is left; OpenAlex's own cost budget applies on top.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import psycopg
from psycopg import sql

from wove_pipeline.database import access as db


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


def least_recently_checked(conn: psycopg.Connection, source: str, kind: str, table: str, key: str,
                           limit: int) -> list[str]:
    """Up to ``limit`` keys of ``table`` (names from code), never checked first, then oldest checked."""
    if limit <= 0:
        return []
    query = sql.SQL(
        "SELECT t.{key} FROM {table} t LEFT JOIN wove.refresh_state r"
        " ON r.source = %s AND r.entity_kind = %s AND r.entity_id = t.{key}"
        " ORDER BY r.last_checked_at NULLS FIRST, t.{key} LIMIT %s"
    ).format(key=sql.Identifier(key), table=db.qualified(table))
    return [r[0] for r in conn.execute(query, (source, kind, limit))]


def oldest_checked(conn: psycopg.Connection, source: str) -> str | None:
    v = db.fetch_value(conn, "SELECT min(last_checked_at) FROM wove.refresh_state WHERE source = %s", (source,))
    return None if v is None else v.isoformat()
