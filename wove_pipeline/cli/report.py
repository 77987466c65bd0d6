"""What `wove demo` prints at the end: what the pipeline produced, read back from PostgreSQL."""

from __future__ import annotations

import datetime as dt

from psycopg import sql

from wove_pipeline.database import access as db

# (label, table) for every table worth counting; tables that do not exist yet are skipped.
TABLES = [
    ("papers", "wove.papers"),
    ("author positions", "wove.paper_authors"),
    ("Semantic Scholar papers", "wove.s2_papers"),
    ("OpenAlex works", "wove.openalex_works"),
    ("Semantic Scholar authors", "wove.s2_authors"),
    ("OpenAlex authors", "wove.openalex_authors"),
    ("institutions", "wove.institutions"),
    ("aligned authorships", "wove.authorships"),
    ("paper embeddings", "wove.paper_embeddings"),
    ("researchers", "wove.researchers"),
    ("researcher redirects", "wove.researcher_redirects"),
    ("quarantined records", "wove.quarantine"),
]


def print_summary(url: str, first: dt.date, last: dt.date) -> None:
    with db.connect(url) as conn:
        print(f"\nwove materialized sandbox days {first} .. {last}:")
        for label, table in TABLES:
            exists = db.fetch_value(conn, "SELECT to_regclass(%s) IS NOT NULL", (table,))
            if exists:
                n = db.fetch_value(conn, sql.SQL("SELECT count(*) FROM {}").format(db.qualified(table)))
                print(f"  {label:<24} {n:>9,}")
        rows = db.fetch_all(
            conn,
            "SELECT arxiv_id, primary_category, published::date AS published, title FROM wove.papers "
            "ORDER BY published DESC, arxiv_id LIMIT 5",
        )
        print("\nnewest papers:")
        for r in rows:
            print(f"  {r['arxiv_id']:<14} {r['primary_category']:<9} {r['published']}  {r['title'][:70]}")
