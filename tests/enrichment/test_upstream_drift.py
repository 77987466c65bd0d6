"""Upstream drift through Dagster: a refused optional field costs the day nothing but that
field (named in metadata and a warning check); a deterministic 400 fails its step at once,
with the upstream's message, and neither the HTTP layer nor the retry policy asks again."""

from __future__ import annotations

import datetime as dt
import time

import dagster as dg
import psycopg
import pytest

from wove_pipeline.arxiv.assets import arxiv_records, papers
from wove_pipeline.assets.upstream_fetch import FIELDS_CHECK
from wove_pipeline.enrichment import assets
from wove_pipeline.resources import ArxivResource, DatabaseResource, RawStoreResource
from wove_pipeline.resources.enrichment import OpenAlexResource, SemanticScholarResource

from .conftest import COMPARED_TABLES, VOLATILE, snapshot

GRAPH = [arxiv_records, papers, *assets.daily_enrichment_assets]


@pytest.fixture
def late(sandbox, small_world):
    sandbox.today = small_world.end_day + dt.timedelta(days=90)
    return sandbox


def _resources(database_url, server, raw):
    fast = dict(backoff_initial_s=0.01, backoff_max_s=0.05, min_interval_s=0)
    return {
        "database": DatabaseResource(url=database_url),
        "raw_store": RawStoreResource(root=str(raw)),
        "arxiv": ArxivResource(base_url=server.url_for("arxiv"), min_interval_s=0),
        "s2": SemanticScholarResource(base_url=server.url_for("s2"), **fast),
        "openalex": OpenAlexResource(base_url=server.url_for("openalex"), **fast),
    }


def _works_without(database_url: str, column: str) -> list[tuple]:
    with psycopg.connect(database_url) as conn:
        cols = [r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = 'wove'"
            " AND table_name = 'openalex_works' ORDER BY ordinal_position")]
        keep = [c for c in cols if c not in VOLATILE and c != column]
        return conn.execute(f"SELECT {', '.join(keep)} FROM wove.openalex_works ORDER BY arxiv_id").fetchall()


def _checks(result) -> dict[str, dg.AssetCheckEvaluation]:
    return {e.asset_key.to_user_string(): e for e in result.get_asset_check_evaluations()
            if e.check_name == FIELDS_CHECK}


def test_a_refused_select_field_costs_the_day_only_that_field(late, small_world, clone_database, tmp_path):
    day = small_world.start_day.isoformat()
    base_url, drift_url = clone_database(), clone_database()
    base = dg.materialize(GRAPH, partition_key=day, resources=_resources(base_url, late, tmp_path / "a"))
    assert base.success
    assert not any(e.passed is False for e in _checks(base).values())

    late.refuse_fields("openalex", {"language"})  # OpenAlex stops serving a field wove selects
    drift = dg.materialize(GRAPH, partition_key=day, resources=_resources(drift_url, late, tmp_path / "b"))
    assert drift.success

    # The same rows everywhere, apart from the refused field.
    with psycopg.connect(drift_url) as conn:
        assert conn.execute("SELECT count(*) FROM wove.openalex_works WHERE language IS NOT NULL").fetchone()[0] == 0
    with psycopg.connect(base_url) as conn:
        assert conn.execute("SELECT count(*) FROM wove.openalex_works WHERE language IS NOT NULL").fetchone()[0] > 0
    assert _works_without(drift_url, "language") == _works_without(base_url, "language")
    before, after = snapshot(base_url), snapshot(drift_url)
    for table in COMPARED_TABLES:
        if table != "wove.openalex_works":
            assert after[table] == before[table], table

    # Named in the works' metadata, and a warning (not an error) check; nothing else flagged.
    meta = drift.asset_materializations_for_node("openalex_works")[0].metadata
    assert meta["upstream_fields_dropped"].value == {"works": ["language"]}
    checks = _checks(drift)
    assert checks["openalex_works"].passed is False
    assert checks["openalex_works"].severity == dg.AssetCheckSeverity.WARN
    assert checks["openalex_works"].metadata["fields_dropped"].value == {"works": ["language"]}
    assert all(c.passed for key, c in checks.items() if key != "openalex_works")
    assert {"s2_papers", "s2_authors", "openalex_authors", "institutions"} <= set(checks)


def test_a_deterministic_400_fails_its_step_at_once_with_the_upstreams_message(late, small_world, database_url,
                                                                              tmp_path):
    late.refuse_fields("openalex", {"doi"})  # the works are matched by their DOI: no way on without it
    works = late.endpoints["openalex"]
    started = time.monotonic()
    result = dg.materialize(GRAPH, partition_key=small_world.start_day.isoformat(),
                            resources=_resources(database_url, late, tmp_path / "raw"), raise_on_error=False)
    elapsed = time.monotonic() - started
    assert not result.success
    failures = [e for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_FAILURE]
    assert [e.step_key for e in failures] == ["openalex_works"]
    error = failures[0].step_failure_data.error
    assert "doi is not a valid select field" in error.message
    assert failures[0].step_failure_data.user_failure_data.metadata["status"].value == 400
    # Asked once: no HTTP retry, no step retry.
    assert works.calls["GET /works"] == 1
    retried = {dg.DagsterEventType.STEP_UP_FOR_RETRY, dg.DagsterEventType.STEP_RESTARTED}
    assert not [e for e in result.all_events if e.event_type in retried]
    assert result.is_node_success("s2_papers")  # the other upstream's steps are not held up
    print(f"failed in {elapsed:.1f} s")
