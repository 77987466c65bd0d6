"""Enrichment end to end over real HTTP: faults change nothing, rebuilds call no API,
papers upstream learns about late are enriched by a later run."""

from __future__ import annotations

import datetime as dt

import psycopg
import pytest

from wove_pipeline.enrichment.authorships import align_days
from wove_pipeline.enrichment.lookback import EnrichmentSettings
from wove_pipeline.enrichment.rebuild import rebuild_from_raw
from wove_pipeline.openalex.fetch import fetch_institutions, fetch_openalex_authors, fetch_openalex_works
from wove_pipeline.partitions import DayRange
from wove_pipeline.sandbox.server import FaultPlan
from wove_pipeline.semantic_scholar.fetch import fetch_s2_authors, fetch_s2_papers
from wove_pipeline.upstream.raw_store import RawStore

from .conftest import connect, load_days, openalex_client, s2_client, snapshot, world_days

SETTINGS = EnrichmentSettings(lookback_days=30)


def enrich(database_url, server, store, days, **client_kw):
    """Every enrichment step for a run over `days`, in graph order."""
    days = DayRange.of(days)
    with s2_client(server, **client_kw) as s2, openalex_client(server, **client_kw) as oa, \
            connect(database_url) as conn:
        out = {
            "s2_papers": fetch_s2_papers(conn, s2, store, days, SETTINGS),
            "openalex_works": fetch_openalex_works(conn, oa, store, days, SETTINGS),
            "s2_authors": fetch_s2_authors(conn, s2, store, days, SETTINGS),
            "openalex_authors": fetch_openalex_authors(conn, oa, store, days, SETTINGS),
            "institutions": fetch_institutions(conn, oa, store, days, SETTINGS),
        }
        out["authorships"] = align_days(conn, days, SETTINGS)
    return out


@pytest.fixture
def late_sandbox(sandbox, small_world):
    """The sandbox clock well after the world: upstreams know every paper they ever will."""
    sandbox.today = small_world.end_day + dt.timedelta(days=90)
    return sandbox


def test_faulted_run_gives_identical_tables(database_url, clone_database, late_sandbox, small_world, tmp_path):
    days = world_days(small_world)
    # Same harvested papers in both databases (arXiv fault-free: not what this test is about).
    load_days(database_url, late_sandbox, RawStore(tmp_path / "a"), days)
    second_database_url = clone_database(database_url)

    clean = enrich(database_url, late_sandbox, RawStore(tmp_path / "a"), days)
    plan = FaultPlan(rate_429=0.02, rate_500=0.02, rate_timeout=0.02, rate_drop=0.02, rate_truncate=0.02,
                     timeout_seconds=0.3, seed=11)
    late_sandbox.set_faults("s2", plan)
    late_sandbox.set_faults("openalex", FaultPlan(**{**plan.__dict__, "seed": 12}))
    faulted = enrich(second_database_url, late_sandbox, RawStore(tmp_path / "b"), days, timeout_s=0.15)
    late_sandbox.set_faults("s2", None)
    late_sandbox.set_faults("openalex", None)

    faults = sum(sum(c.values()) for c in late_sandbox.fault_counts.values())
    assert faults >= 3, late_sandbox.fault_counts  # the faulted run really met faults...
    assert sum(s.retries for k, s in faulted.items() if k != "authorships") >= faults - 1
    a, b = snapshot(database_url), snapshot(second_database_url)
    assert a["wove.s2_papers"] and a["wove.openalex_works"] and a["wove.institutions"] and a["wove.authorships"]
    for table in a:
        assert a[table] == b[table], table  # ...and the tables are identical


def test_upserts_that_read_their_id_index_pages_ahead_write_the_same_rows(database_url, clone_database, late_sandbox,
                                                                          small_world, tmp_path, monkeypatch,
                                                                          warmed_lookups):
    """A big fetch reads the S2 paper id and OpenAlex work id index pages its rows go into
    through snapshot readers first (writes.WARM_ABOVE: here every fetch does): same tables."""
    from wove_pipeline.enrichment import writes

    days = world_days(small_world)
    load_days(database_url, late_sandbox, RawStore(tmp_path / "a"), days)
    second_database_url = clone_database(database_url)
    enrich(database_url, late_sandbox, RawStore(tmp_path / "a"), days)
    warmed_lookups.clear()  # (the first run's authorships read ahead their author id indexes)
    monkeypatch.setattr(writes, "WARM_ABOVE", 0)
    enrich(second_database_url, late_sandbox, RawStore(tmp_path / "b"), days)
    keys = {("wove.s2_papers", "paper_id"): set(), ("wove.openalex_works", "work_id"): set()}
    for lookups in warmed_lookups:  # (the authorships' author id indexes are read ahead too)
        for table, column, _, k in lookups:
            keys.get((table, column), set()).update(k)
    with psycopg.connect(database_url) as conn:
        for table, column in keys:
            held = {k for (k,) in conn.execute(f"SELECT {column} FROM {table} WHERE {column} IS NOT NULL")}
            assert held and keys[(table, column)] == held, table  # every id written was read ahead
    a, b = snapshot(database_url), snapshot(second_database_url)
    for table in a:
        assert a[table] == b[table], table


def test_rebuild_from_raw_makes_no_api_call_and_reproduces_tables(database_url, late_sandbox, small_world, tmp_path):
    store = RawStore(tmp_path / "raw")
    days = world_days(small_world)
    load_days(database_url, late_sandbox, store, days)
    enrich(database_url, late_sandbox, store, days[:4])
    enrich(database_url, late_sandbox, store, days[4:])
    before = snapshot(database_url)
    calls = dict(late_sandbox.request_counts)

    with connect(database_url) as conn:
        summary = rebuild_from_raw(conn, store)

    assert late_sandbox.request_counts == calls  # not one request to any upstream
    assert summary.files > 0 and summary.counts["s2_papers"] == len(before["wove.s2_papers"])
    assert snapshot(database_url) == before


def test_wove_rebuild_rederives_the_tables_from_the_raw_layer(database_url, late_sandbox, small_world, tmp_path,
                                                              monkeypatch, capsys):
    from wove_pipeline.cli import main as wove_main
    store = RawStore(tmp_path / "raw")
    days = world_days(small_world)[:2]
    load_days(database_url, late_sandbox, store, days)
    enrich(database_url, late_sandbox, store, days)
    before = snapshot(database_url)
    with connect(database_url) as conn:
        conn.execute("DELETE FROM wove.authorships")  # what the rebuild must put back
        conn.execute("UPDATE wove.s2_papers SET title = 'oops'")
    calls = dict(late_sandbox.request_counts)
    monkeypatch.setenv("WOVE_DATABASE_URL", database_url)
    monkeypatch.setenv("WOVE_DATA_DIR", str(tmp_path / "raw"))
    assert wove_main(["rebuild"]) == 0
    out = capsys.readouterr()
    assert '"files"' in out.out and "enrichment tables from the raw layer" in out.err
    assert late_sandbox.request_counts == calls
    assert snapshot(database_url) == before


def test_paper_unknown_at_harvest_is_enriched_by_a_later_run(database_url, sandbox, small_world, tmp_path):
    store = RawStore(tmp_path / "raw")
    day = small_world.start_day
    lagging = [p for p in small_world.papers if p.datestamp == day and p.s2 and p.openalex
               and p.s2.available_from > day + dt.timedelta(days=1)
               and p.openalex.available_from > day + dt.timedelta(days=1)
               and max(p.s2.available_from, p.openalex.available_from) <= day + dt.timedelta(days=25)]
    assert lagging
    sandbox.today = day + dt.timedelta(days=1)  # the morning after: harvest and enrich day D
    load_days(database_url, sandbox, store, [day])
    first = enrich(database_url, sandbox, store, [day])
    target = lagging[0]
    with psycopg.connect(database_url) as conn:
        assert conn.execute("SELECT 1 FROM wove.s2_papers WHERE arxiv_id = %s", (target.arxiv_id,)).fetchone() is None
        pending = conn.execute(
            "SELECT source, attempts, found_at FROM wove.enrichment_attempts WHERE arxiv_id = %s ORDER BY source",
            (target.arxiv_id,)).fetchall()
    assert pending == [("openalex", 1, None), ("s2", 1, None)]
    assert first["s2_papers"].still_pending >= 1

    # Weeks later upstream knows the paper; the run for a later day looks back and finds it.
    later = max(target.s2.available_from, target.openalex.available_from)
    sandbox.today = later + dt.timedelta(days=1)
    enrich(database_url, sandbox, store, [later])
    with psycopg.connect(database_url) as conn:
        s2 = conn.execute("SELECT paper_id, as_of FROM wove.s2_papers WHERE arxiv_id = %s", (target.arxiv_id,)).fetchone()
        oa = conn.execute("SELECT work_id FROM wove.openalex_works WHERE arxiv_id = %s", (target.arxiv_id,)).fetchone()
        attempts = conn.execute(
            "SELECT source, attempts, found_at FROM wove.enrichment_attempts WHERE arxiv_id = %s ORDER BY source",
            (target.arxiv_id,)).fetchall()
        aligned = conn.execute(
            "SELECT count(*) FILTER (WHERE s2_author_id IS NOT NULL), count(*) FILTER (WHERE openalex_author_id IS NOT NULL)"
            " FROM wove.authorships WHERE arxiv_id = %s", (target.arxiv_id,)).fetchone()
    assert s2 is not None and s2[0] == target.s2.paper_id
    assert oa is not None and oa[0] == target.openalex.work_id
    assert attempts == [("openalex", 2, later), ("s2", 2, later)]
    assert aligned[0] > 0 and aligned[1] > 0  # the late paper is aligned by the later run too


def test_lookback_window_is_configurable(database_url, sandbox, small_world, tmp_path):
    store = RawStore(tmp_path / "raw")
    day = small_world.start_day
    sandbox.today = day + dt.timedelta(days=1)
    load_days(database_url, sandbox, store, [day])
    with s2_client(sandbox) as s2, connect(database_url) as conn:
        fetch_s2_papers(conn, s2, store, DayRange.day(day), SETTINGS)
        far = day + dt.timedelta(days=10)
        short = fetch_s2_papers(conn, s2, store, DayRange.day(far), EnrichmentSettings(lookback_days=5))
        wide = fetch_s2_papers(conn, s2, store, DayRange.day(far), EnrichmentSettings(lookback_days=30))
    assert short.asked == 0  # day D is outside a 5-day window
    assert wide.asked > 0
