"""Shared pieces of the reliability suite: a tiny world, fast clients, table snapshots, and
the figures docs/reliability.md reports (faults injected, runs completed, rows lost, bad
inputs tried), printed at the end of the run and written to $WOVE_RELIABILITY_FIGURES."""

from __future__ import annotations

import collections
import datetime as dt
import json
import os

import psycopg
import pytest
from psycopg import sql

from wove_pipeline.arxiv import harvest as papers_load
from wove_pipeline.arxiv.client import ArxivOaiClient
from wove_pipeline.database import access as db
from wove_pipeline.upstream.http import RetrySettings
from wove_pipeline.upstream.raw_store import RawStore

FAST_RETRY = RetrySettings(attempts=8, backoff_initial_s=0.005, backoff_max_s=0.02, max_retry_after_s=0.05)

# Columns that record when (wall clock), not what: left out when comparing runs.
VOLATILE = {"fetched_at", "aligned_at", "first_attempt_at", "last_attempt_at", "last_checked_at",
            "last_found_at", "quarantined_at", "harvested_at", "id", "embedded_at", "matched_at", "computed_at"}
CORE_TABLES = {
    "wove.papers": "arxiv_id",
    "wove.paper_authors": "arxiv_id, position",
    "wove.quarantine": "source, partition_key, record_key, reason",
}
ENRICH_TABLES = {
    "wove.s2_papers": "arxiv_id",
    "wove.openalex_works": "arxiv_id",
    "wove.s2_authors": "author_id",
    "wove.openalex_authors": "author_id",
    "wove.openalex_author_redirects": "old_author_id",
    "wove.institutions": "institution_id",
    "wove.authorships": "arxiv_id, position",
    "wove.enrichment_attempts": "arxiv_id, source",
}


class Figures:
    """What the suite did, for docs/reliability.md."""

    def __init__(self):
        self.faults = collections.Counter()  # "arxiv/503" -> injected faults
        self.runs = collections.Counter()  # "completed" / "failed_then_retried_ok" / "killed_then_converged"
        self.rows_lost = 0
        self.rows_compared = 0
        self.bad_inputs = collections.Counter()  # kind -> inputs tried

    def add_faults(self, server) -> None:
        for endpoint, counts in server.fault_counts.items():
            for kind, n in counts.items():
                self.faults[f"{endpoint}/{kind}"] += n
        for counts in server.fault_counts.values():
            counts.clear()

    def as_dict(self) -> dict:
        return {
            "faults_injected": dict(sorted(self.faults.items())),
            "faults_injected_total": sum(self.faults.values()),
            "runs": dict(sorted(self.runs.items())),
            "rows_compared": self.rows_compared,
            "rows_lost": self.rows_lost,
            "bad_inputs_tried": dict(sorted(self.bad_inputs.items())),
            "bad_inputs_tried_total": sum(self.bad_inputs.values()),
        }


FIGURES = Figures()


@pytest.fixture(scope="session")
def figures() -> Figures:
    return FIGURES


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    data = FIGURES.as_dict()
    if not (data["faults_injected_total"] or data["runs"] or data["bad_inputs_tried_total"]):
        return
    terminalreporter.write_sep("-", "reliability figures")
    terminalreporter.write_line(json.dumps(data, indent=2))
    target = os.environ.get("WOVE_RELIABILITY_FIGURES")
    if target:
        with open(target, "w") as fh:
            json.dump(data, fh, indent=2)


@pytest.fixture(scope="session")
def tiny_world():
    """Two days, a dozen papers each: every fault kind can be tried in well under a second."""
    from wove_pipeline.sandbox.generator import generate_world
    return generate_world(seed=3, papers_per_day=12, days=2)


def world_days(world) -> list[dt.date]:
    return sorted({p.datestamp for p in world.papers})


def arxiv_client(server, **kw) -> ArxivOaiClient:
    return ArxivOaiClient(server.url_for("arxiv"), min_interval_s=0, retry=kw.pop("retry", FAST_RETRY),
                          timeout_s=kw.pop("timeout_s", 10.0))


def harvest_and_load(database_url: str, server, store: RawStore, days, **client_kw) -> list:
    """What the two harvest assets do for each day: OAI -> raw Parquet -> one transaction."""
    out = []
    client = arxiv_client(server, **client_kw)
    try:
        for day in days:
            papers_load.harvest_day(client, store, day)
            parsed = papers_load.parse_day(store, day)
            with db.transaction(database_url) as conn:
                out.append(papers_load.load_day(conn, day, parsed))
    finally:
        client.close()
    return out


def table_rows(database_url: str, tables: dict[str, str]) -> dict[str, list[tuple]]:
    out = {}
    with psycopg.connect(database_url) as conn:
        for table, order in tables.items():
            schema, name = table.split(".")
            cols = [r[0] for r in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = %s AND table_name = %s"
                " ORDER BY ordinal_position", (schema, name))]
            keep = [c for c in cols if c not in VOLATILE]
            query = sql.SQL("SELECT {} FROM {} ORDER BY {}").format(
                sql.SQL(", ").join(map(sql.Identifier, keep)), sql.Identifier(schema, name),
                sql.SQL(", ").join(sql.Identifier(c.strip()) for c in order.split(",")))
            out[table] = conn.execute(query).fetchall()
    return out


def compare_tables(expected: dict, actual: dict, figures: Figures) -> None:
    """Assert identical tables; count rows compared and rows lost for the figures."""
    for table, rows in expected.items():
        got = {repr(r) for r in actual[table]}
        lost = [r for r in rows if repr(r) not in got]
        figures.rows_compared += len(rows)
        figures.rows_lost += len(lost)
        assert not lost, f"{table}: {len(lost)} rows lost, e.g. {lost[:1]}"
        assert actual[table] == rows, f"{table}: rows differ"


@pytest.fixture
def new_database(clone_database):
    """new_database() -> URL of a fresh migrated database (several per test)."""
    return clone_database


