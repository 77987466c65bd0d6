"""Fault matrix over the three sandbox upstreams, over real HTTP.

Every fault kind (429, 503 with Retry-After, 500, timeout, dropped connection, truncated
body, malformed body) on every upstream must end with the same tables as a fault-free run;
faults that never stop end in a clear failure that leaves no partial partition, and a
retry completes. Unknown extra fields change nothing; missing optional fields change
nothing but those fields.
"""

from __future__ import annotations

import datetime as dt

import psycopg
import pytest
from psycopg import sql

from wove_pipeline.database import access as db
from wove_pipeline.enrichment.authorships import align_days
from wove_pipeline.enrichment.lookback import EnrichmentSettings
from wove_pipeline.openalex.client import OpenAlexClient
from wove_pipeline.openalex.fetch import fetch_institutions, fetch_openalex_authors, fetch_openalex_works
from wove_pipeline.partitions import DayRange
from wove_pipeline.sandbox.mutations import MutatingEndpoint
from wove_pipeline.sandbox.server import FAULT_KINDS, FaultPlan, SandboxServer, default_endpoints
from wove_pipeline.semantic_scholar.client import SemanticScholarClient
from wove_pipeline.semantic_scholar.fetch import fetch_s2_authors, fetch_s2_papers
from wove_pipeline.upstream.http import RetrySettings, UpstreamError
from wove_pipeline.upstream.raw_store import RawStore

from .conftest import (
    CORE_TABLES,
    ENRICH_TABLES,
    FAST_RETRY,
    compare_tables,
    harvest_and_load,
    table_rows,
    world_days,
)

SETTINGS = EnrichmentSettings(lookback_days=30)
CLIENT_TIMEOUT_S = 0.2  # the sandbox "timeout" stalls 0.4 s: every timeout fault is a real client timeout
STALL_S = 0.4


def plan_for(kind: str, seed: int) -> FaultPlan:
    """One fault kind: the first two requests certainly, then a third of the rest."""
    rate = {f"rate_{kind}": 0.3}
    return FaultPlan(**rate, fail_first=2, fail_first_kind=kind, retry_after=0, timeout_seconds=STALL_S, seed=seed)


def server_for(world, *, mutate: str | None = None, late: bool = True) -> SandboxServer:
    endpoints = default_endpoints(world)
    if mutate:
        endpoints = [MutatingEndpoint(e, mutate) for e in endpoints]
    today = world.end_day + dt.timedelta(days=90) if late else None  # upstreams know every paper they will
    return SandboxServer(world, endpoints=endpoints, today=today).start()


def enrich(database_url: str, server: SandboxServer, store: RawStore, days, retry: RetrySettings = FAST_RETRY):
    """Every enrichment step of a run over `days`, in graph order."""
    with SemanticScholarClient(server.url_for("s2"), min_interval_s=0, retry=retry, timeout_s=CLIENT_TIMEOUT_S) as s2, \
            OpenAlexClient(server.url_for("openalex"), min_interval_s=0, retry=retry, budget=None,
                           timeout_s=CLIENT_TIMEOUT_S) as oa, db.connect(database_url, autocommit=True) as conn:
        days = DayRange.of(days)
        fetch_s2_papers(conn, s2, store, days, SETTINGS)
        fetch_openalex_works(conn, oa, store, days, SETTINGS)
        fetch_s2_authors(conn, s2, store, days, SETTINGS)
        fetch_openalex_authors(conn, oa, store, days, SETTINGS)
        fetch_institutions(conn, oa, store, days, SETTINGS)
        align_days(conn, days, SETTINGS)


@pytest.fixture(scope="module")
def fault_free(tiny_world, pg_server, tmp_path_factory):
    """The reference: both days harvested and enriched with no fault, in a database of its own.
    Also a papers-only copy, the starting point of every enrichment run."""
    import uuid

    from tests.conftest import url_for

    names = [f"t_{uuid.uuid4().hex[:12]}" for _ in range(2)]
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE wove_template").format(sql.Identifier(names[0])))
    ref_url = url_for(pg_server.admin_url, names[0])
    days = world_days(tiny_world)
    server = server_for(tiny_world)
    try:
        harvest_and_load(ref_url, server, RawStore(tmp_path_factory.mktemp("ref_raw")), days)
        core = table_rows(ref_url, CORE_TABLES)
        with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(names[1]), sql.Identifier(names[0])))
        enrich(ref_url, server, RawStore(tmp_path_factory.mktemp("ref_raw_enrich")), days)
        enriched = table_rows(ref_url, ENRICH_TABLES)
    finally:
        server.stop()
    assert core["wove.papers"] and enriched["wove.s2_papers"] and enriched["wove.openalex_works"]
    assert not core["wove.quarantine"]
    yield {"core": core, "enrich": enriched, "papers_only": names[1], "days": days}
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        for name in names:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def papers_only_db(fault_free, pg_server):
    """A copy of the reference database before enrichment (papers loaded, nothing else)."""
    import uuid

    from tests.conftest import url_for

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
            sql.Identifier(name), sql.Identifier(fault_free["papers_only"])))
    yield url_for(pg_server.admin_url, name)
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


# --------------------------------------------------------------------------------------
# arXiv


@pytest.mark.parametrize("kind", FAULT_KINDS)
def test_arxiv_fault_kind_gives_fault_free_tables(kind, tiny_world, fault_free, database_url, tmp_path, figures):
    server = server_for(tiny_world)
    try:
        server.set_faults("arxiv", plan_for(kind, seed=len(kind)))
        harvest_and_load(database_url, server, RawStore(tmp_path), fault_free["days"], timeout_s=CLIENT_TIMEOUT_S)
        assert server.fault_counts["arxiv"].get(kind, 0) >= 2
        figures.add_faults(server)
    finally:
        server.stop()
    compare_tables(fault_free["core"], table_rows(database_url, CORE_TABLES), figures)
    figures.runs["completed_under_faults"] += 1


def test_arxiv_503_waits_what_retry_after_says(tiny_world, tmp_path, figures):
    """arXiv's 503 carries Retry-After: the client waits exactly that, not its own backoff."""
    from .conftest import arxiv_client

    server = server_for(tiny_world)
    try:
        server.set_faults("arxiv", FaultPlan(fail_first=2, fail_first_kind="503", retry_after=7))
        waits: list[float] = []
        client = arxiv_client(server, retry=RetrySettings(attempts=5, backoff_initial_s=0.001))
        client.http._sleep = waits.append  # record the waits instead of sleeping them
        day = tiny_world.start_day
        pages = list(client.list_records(day, day, "arXiv"))
        client.close()
        assert pages and waits == [7.0, 7.0]
        figures.add_faults(server)
    finally:
        server.stop()


@pytest.mark.parametrize("kind", ["503", "drop", "malformed"])
def test_arxiv_faults_that_never_stop_fail_clearly_and_a_retry_completes(
        kind, tiny_world, fault_free, database_url, tmp_path, figures):
    """Retries run out: a clear UpstreamError, no raw file, no row of the day; the next run converges."""
    day = fault_free["days"][-1]
    store = RawStore(tmp_path)
    server = server_for(tiny_world)
    try:
        server.set_faults("arxiv", FaultPlan(**{f"rate_{kind}": 1.0}, retry_after=0))
        with pytest.raises(UpstreamError, match="gave up after 3 attempts"):
            harvest_and_load(database_url, server, store, [day],
                             retry=RetrySettings(attempts=3, backoff_initial_s=0.001, backoff_max_s=0.002))
        assert store.latest_path("arxiv", day.isoformat()) is None
        with psycopg.connect(database_url) as conn:
            assert conn.execute("SELECT count(*) FROM wove.papers").fetchone()[0] == 0
            assert conn.execute("SELECT count(*) FROM wove.paper_authors").fetchone()[0] == 0
        figures.add_faults(server)
        figures.runs["failed_clearly"] += 1
        server.set_faults("arxiv", None)
        harvest_and_load(database_url, server, store, fault_free["days"])
    finally:
        server.stop()
    compare_tables(fault_free["core"], table_rows(database_url, CORE_TABLES), figures)
    figures.runs["retried_after_failure_and_converged"] += 1


def test_arxiv_failure_on_the_second_format_keeps_nothing_of_the_day(tiny_world, fault_free, database_url,
                                                                     tmp_path, figures):
    """The day's first format arrives, the second never does: nothing of the day is kept."""
    day = fault_free["days"][0]
    store = RawStore(tmp_path)
    server = server_for(tiny_world)
    arxiv = server.endpoints["arxiv"]
    answered = []

    class FailSecond:
        name, prefix = arxiv.name, arxiv.prefix

        def handle(self, request, today):
            from wove_pipeline.sandbox.endpoint import Response
            if request.query.get("metadataPrefix") == ["arXivRaw"] or answered:
                return Response(503, b"down", {"Retry-After": "0"})
            answered.append(1)
            return arxiv.handle(request, today)

    server.endpoints["arxiv"] = FailSecond()
    server._routes = [FailSecond() if e is arxiv else e for e in server._routes]
    try:
        with pytest.raises(UpstreamError):
            harvest_and_load(database_url, server, store, [day],
                             retry=RetrySettings(attempts=2, backoff_initial_s=0.001, backoff_max_s=0.002))
        figures.faults["arxiv/503"] += 2
        assert answered and store.latest_path("arxiv", day.isoformat()) is None
        with psycopg.connect(database_url) as conn:
            assert conn.execute("SELECT count(*) FROM wove.papers").fetchone()[0] == 0
    finally:
        server.stop()
    figures.runs["failed_clearly"] += 1


# --------------------------------------------------------------------------------------
# Semantic Scholar and OpenAlex


@pytest.mark.parametrize("upstream", ["s2", "openalex"])
@pytest.mark.parametrize("kind", FAULT_KINDS)
def test_enrichment_fault_kind_gives_fault_free_tables(upstream, kind, tiny_world, fault_free, papers_only_db,
                                                       tmp_path, figures):
    server = server_for(tiny_world)
    try:
        server.set_faults(upstream, plan_for(kind, seed=len(kind) + len(upstream)))
        enrich(papers_only_db, server, RawStore(tmp_path), fault_free["days"])
        assert server.fault_counts[upstream].get(kind, 0) >= 2
        figures.add_faults(server)
    finally:
        server.stop()
    compare_tables(fault_free["enrich"], table_rows(papers_only_db, ENRICH_TABLES), figures)
    figures.runs["completed_under_faults"] += 1


@pytest.mark.parametrize("upstream", ["s2", "openalex"])
def test_enrichment_faults_that_never_stop_fail_clearly_and_a_retry_completes(
        upstream, tiny_world, fault_free, papers_only_db, tmp_path, figures):
    store = RawStore(tmp_path)
    server = server_for(tiny_world)
    try:
        server.set_faults(upstream, FaultPlan(rate_500=1.0))
        with pytest.raises(UpstreamError, match="gave up after 2 attempts"):
            enrich(papers_only_db, server, store, fault_free["days"],
                   retry=RetrySettings(attempts=2, backoff_initial_s=0.001, backoff_max_s=0.002))
        table = "wove.s2_papers" if upstream == "s2" else "wove.openalex_works"
        with psycopg.connect(papers_only_db) as conn:
            query = sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(*table.split(".")))
            assert conn.execute(query).fetchone()[0] == 0
        figures.add_faults(server)
        figures.runs["failed_clearly"] += 1
        server.set_faults(upstream, None)
        enrich(papers_only_db, server, store, fault_free["days"])
    finally:
        server.stop()
    rows = table_rows(papers_only_db, ENRICH_TABLES)
    expected = dict(fault_free["enrich"])
    # The failed run asked and was refused: the attempt bookkeeping remembers that ask (by
    # design), every record table is identical.
    expected.pop("wove.enrichment_attempts")
    compare_tables(expected, rows, figures)
    figures.runs["retried_after_failure_and_converged"] += 1


# --------------------------------------------------------------------------------------
# unknown extra fields, missing optional fields (all three upstreams at once)


def test_unknown_extra_fields_change_nothing(tiny_world, fault_free, database_url, tmp_path, figures):
    server = server_for(tiny_world, mutate="extra")
    try:
        harvest_and_load(database_url, server, RawStore(tmp_path / "a"), fault_free["days"])
        enrich(database_url, server, RawStore(tmp_path / "b"), fault_free["days"])
        mutated = {name: e.mutated for name, e in server.endpoints.items()}
    finally:
        server.stop()
    assert all(mutated.values()), mutated
    for name, n in mutated.items():
        figures.faults[f"{name}/extra_fields"] += n
    compare_tables(fault_free["core"], table_rows(database_url, CORE_TABLES), figures)
    compare_tables(fault_free["enrich"], table_rows(database_url, ENRICH_TABLES), figures)
    figures.runs["completed_under_faults"] += 1


def test_missing_optional_fields_lose_only_those_fields(tiny_world, fault_free, database_url, tmp_path, figures):
    server = server_for(tiny_world, mutate="missing")
    try:
        harvest_and_load(database_url, server, RawStore(tmp_path / "a"), fault_free["days"])
        enrich(database_url, server, RawStore(tmp_path / "b"), fault_free["days"])
        mutated = {name: e.mutated for name, e in server.endpoints.items()}
    finally:
        server.stop()
    assert all(mutated.values()), mutated
    for name, n in mutated.items():
        figures.faults[f"{name}/missing_optional_fields"] += n
    core, enriched = table_rows(database_url, CORE_TABLES), table_rows(database_url, ENRICH_TABLES)
    assert not core["wove.quarantine"]  # nothing optional is a reason to quarantine
    # Every record still arrives (same keys), only the optional values are gone.
    for expected, actual in ((fault_free["core"], core), (fault_free["enrich"], enriched)):
        for table in ("wove.papers", "wove.paper_authors", "wove.s2_papers", "wove.openalex_works",
                      "wove.s2_authors", "wove.openalex_authors", "wove.institutions"):
            if table in expected:
                key = 2 if table == "wove.paper_authors" else 1
                assert [r[:key] for r in actual[table]] == [r[:key] for r in expected[table]], table
                figures.rows_compared += len(expected[table])
    with psycopg.connect(database_url) as conn:
        assert conn.execute("SELECT count(*) FROM wove.papers WHERE journal_ref IS NOT NULL OR comments IS NOT NULL"
                            " OR cardinality(dois) > 0").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM wove.paper_authors WHERE cardinality(affiliations) > 0"
                            ).fetchone()[0] == 0
    figures.runs["completed_under_faults"] += 1
