"""The rolling citation refresh, and the Dagster assets end to end with API keys that must
never show up in raw files, logs or metadata."""

from __future__ import annotations

import datetime as dt
import logging

import dagster as dg
import psycopg
import pyarrow.parquet as pq
import pytest

from wove_pipeline.arxiv.assets import arxiv_records, papers
from wove_pipeline.enrichment import assets
from wove_pipeline.enrichment.refresh import RefreshBudget
from wove_pipeline.openalex.fetch import fetch_openalex_authors, fetch_openalex_works
from wove_pipeline.openalex.refresh import refresh_openalex
from wove_pipeline.partitions import DayRange
from wove_pipeline.resources import ArxivResource, DatabaseResource, RawStoreResource
from wove_pipeline.resources.enrichment import OpenAlexResource, SemanticScholarResource
from wove_pipeline.sandbox.arxiv_oai import ArxivOaiEndpoint
from wove_pipeline.sandbox.openalex import OpenAlexEndpoint
from wove_pipeline.sandbox.semantic_scholar import SemanticScholarEndpoint
from wove_pipeline.sandbox.server import SandboxServer
from wove_pipeline.semantic_scholar.fetch import fetch_s2_papers
from wove_pipeline.semantic_scholar.refresh import refresh_s2
from wove_pipeline.upstream.raw_store import RawStore

from .conftest import connect, load_days, openalex_client, s2_client, world_days

S2_KEY = "s2-SECRET-key-4f9a2c"
OA_KEY = "oa-SECRET-key-7b1e0d"


def test_refresh_goes_least_recently_checked_first_within_the_daily_budget(database_url, sandbox, small_world,
                                                                           tmp_path):
    store = RawStore(tmp_path / "raw")
    sandbox.today = small_world.end_day + dt.timedelta(days=90)
    days = world_days(small_world)[:3]
    load_days(database_url, sandbox, store, days)
    with s2_client(sandbox) as s2, connect(database_url) as conn:
        fetch_s2_papers(conn, s2, store, DayRange.of(days))
    with psycopg.connect(database_url) as conn:
        n = conn.execute("SELECT count(*) FROM wove.s2_papers").fetchone()[0]
        # Make the check times distinct and known: paper i was checked i hours ago + 1 day.
        conn.execute(
            "UPDATE wove.refresh_state r SET last_checked_at = now() - interval '1 day' - o.i * interval '1 hour'"
            " FROM (SELECT arxiv_id, row_number() OVER (ORDER BY arxiv_id) AS i FROM wove.s2_papers) o"
            " WHERE r.source = 's2' AND r.entity_kind = 'paper' AND r.entity_id = o.arxiv_id")
        oldest = [r[0] for r in conn.execute(
            "SELECT entity_id FROM wove.refresh_state WHERE source = 's2' AND entity_kind = 'paper'"
            " ORDER BY last_checked_at LIMIT 40")]
    assert n > 60
    budget = RefreshBudget(s2_paper_calls=2, s2_author_calls=0)
    day1 = dt.date(2030, 1, 1)
    with s2_client(sandbox, paper_batch_size=20) as s2, connect(database_url) as conn:
        first = refresh_s2(conn, s2, store, budget, today=day1)
        again = refresh_s2(conn, s2, store, budget, today=day1)  # same day: budget spent
        next_day = refresh_s2(conn, s2, store, budget, today=day1 + dt.timedelta(days=1))
    assert first.calls == 2 and first.papers_checked == 40 and first.papers_found == 40
    assert again.calls == 0 and again.papers_checked == 0
    assert next_day.calls == 2
    with psycopg.connect(database_url) as conn:
        refreshed = {r[0] for r in conn.execute(
            "SELECT entity_id FROM wove.refresh_state WHERE source = 's2' AND entity_kind = 'paper'"
            " AND last_checked_at > now() - interval '1 hour'"
            " AND entity_id IN (SELECT arxiv_id FROM wove.s2_papers)")}
        snaps = conn.execute(
            "SELECT count(DISTINCT entity_id), min(as_of) FROM wove.citation_snapshots WHERE source = 's2'"
            " AND entity_kind = 'paper'").fetchone()
        as_of = conn.execute("SELECT count(*) FROM wove.s2_papers WHERE as_of IS NULL OR citation_count IS NULL"
                             ).fetchone()[0]
    assert set(oldest) <= refreshed and len(refreshed) == 80  # the 40 oldest first, then the next 40
    assert snaps[0] == n and as_of == 0  # every count has a source row and an as-of day


def test_openalex_refresh_counts_against_the_daily_budget(database_url, sandbox, small_world, tmp_path):
    store = RawStore(tmp_path / "raw")
    sandbox.today = small_world.end_day + dt.timedelta(days=90)
    days = world_days(small_world)[:2]
    load_days(database_url, sandbox, store, days)
    with openalex_client(sandbox) as oa, connect(database_url) as conn:
        fetch_openalex_works(conn, oa, store, DayRange.of(days))
        fetch_openalex_authors(conn, oa, store, DayRange.of(days))
        s = refresh_openalex(conn, oa, store, RefreshBudget(openalex_work_calls=1, openalex_author_calls=1))
    assert s.papers_checked == 50 and s.authors_checked == 50
    assert s.budget["spent_today_usd"] > 0
    with psycopg.connect(database_url) as conn:
        calls = dict(conn.execute("SELECT source, calls FROM wove.api_usage").fetchall())
    assert calls["openalex_refresh_works"] == 1 and calls["openalex_refresh_authors"] == 1


@pytest.fixture
def keyed_sandbox(small_world):
    endpoints = [ArxivOaiEndpoint(small_world), SemanticScholarEndpoint(small_world, api_key=S2_KEY),
                 OpenAlexEndpoint(small_world, require_api_key=OA_KEY)]
    with SandboxServer(small_world, endpoints=endpoints,
                       today=small_world.end_day + dt.timedelta(days=90)) as server:
        yield server


def test_assets_materialize_with_keys_that_never_leak(database_url, keyed_sandbox, small_world, tmp_path,
                                                      caplog, monkeypatch):
    caplog.set_level(logging.DEBUG)
    raw = tmp_path / "raw"
    fast = dict(backoff_initial_s=0.01, backoff_max_s=0.05, min_interval_s=0)
    resources = {
        "database": DatabaseResource(url=database_url),
        "raw_store": RawStoreResource(root=str(raw)),
        "arxiv": ArxivResource(base_url=keyed_sandbox.url_for("arxiv"), min_interval_s=0),
        "s2": SemanticScholarResource(base_url=keyed_sandbox.url_for("s2"), api_key=S2_KEY, **fast),
        # the OpenAlex key comes from the environment at run time
        "openalex": OpenAlexResource(base_url=keyed_sandbox.url_for("openalex"), **fast),
    }
    monkeypatch.setenv("OPENALEX_API_KEY", OA_KEY)
    day = small_world.start_day.isoformat()
    graph = [arxiv_records, papers, *assets.daily_enrichment_assets]
    result = dg.materialize(graph, partition_key=day, resources=resources)
    assert result.success
    refresh = dg.materialize([*assets.refresh_assets], resources=resources,
                             selection=dg.AssetSelection.assets(*assets.refresh_assets))
    assert refresh.success

    meta = {node: result.asset_materializations_for_node(node)[0].metadata
            for node in ("s2_papers", "openalex_works", "s2_authors", "openalex_authors", "institutions",
                         "authorships")}
    assert meta["s2_papers"]["dagster/row_count"].value > 0 and meta["s2_papers"]["api_calls"].value == 1
    assert meta["openalex_works"]["hit_rate"].value > 0.5
    assert meta["authorships"]["positions_with_openalex"].value > 0
    assert meta["institutions"]["dagster/row_count"].value > 0

    # Scan everything that was written or said.
    texts = [repr(e) for e in result.all_events] + [repr(e) for e in refresh.all_events]
    texts += [r.getMessage() for r in caplog.records]
    for path in raw.rglob("*.parquet"):
        table = pq.read_table(path)
        texts += [str(x) for x in table.column("request").to_pylist()]
        texts += [bytes(x).decode("utf-8", "replace") for x in table.column("body").to_pylist()]
        texts.append(path.read_bytes().decode("latin-1"))
    blob = "\n".join(texts)
    assert S2_KEY not in blob
    assert OA_KEY not in blob
    assert keyed_sandbox.endpoints["s2"].calls["POST /paper/batch"] >= 1  # the keys were really used
