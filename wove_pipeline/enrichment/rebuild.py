"""Re-deriving every enrichment table from the raw layer alone (no API call)."""

from __future__ import annotations

from dataclasses import dataclass

import psycopg

from wove_pipeline.database import access as db
from wove_pipeline.enrichment.authorships import align_papers
from wove_pipeline.enrichment.derive import derive
from wove_pipeline.enrichment.raw import ALL_RAW_SOURCES, iter_raw, raw_files
from wove_pipeline.enrichment.writes import write_derived
from wove_pipeline.upstream.raw_store import RawStore

DERIVED_TABLES = (
    "wove.s2_papers", "wove.openalex_works", "wove.s2_authors", "wove.openalex_authors",
    "wove.openalex_author_redirects", "wove.institutions", "wove.enrichment_attempts",
    "wove.citation_snapshots", "wove.refresh_state", "wove.authorships",
)


@dataclass
class RebuildSummary:
    files: int
    responses: int
    counts: dict[str, int]
    authorships: int


def rebuild_from_raw(conn: psycopg.Connection, store: RawStore) -> RebuildSummary:
    """Re-derive every enrichment table from the raw Parquet files alone (no API call):
    truncate, fold all responses oldest first, re-align every paper. One transaction."""
    paths = raw_files(store, ALL_RAW_SOURCES)
    responses = list(iter_raw(store, paths))
    d = derive(responses)
    with conn.transaction():
        db.advisory_lock(conn, "enrich:rebuild")
        conn.execute("TRUNCATE " + ", ".join(DERIVED_TABLES))
        write_derived(conn, d)
        ids = [r[0] for r in conn.execute("SELECT arxiv_id FROM wove.papers ORDER BY arxiv_id")]
        n = align_papers(conn, ids)
    return RebuildSummary(len(paths), len(responses), d.counts(), n)
