"""`wove backfill FROM TO` records a backfill of exactly those days in the instance the UI and
daemon use (a PostgreSQL-backed DAGSTER_HOME), and `wove backfill --retry-failed ID` records one
of exactly the days a finished backfill did not materialize. Nothing is run: the daemon would."""

from __future__ import annotations

import uuid

import dagster as dg
import psycopg
import pytest
from dagster._core.execution.asset_backfill import AssetBackfillData
from dagster._core.execution.backfill import BulkActionStatus
from dagster._core.storage.tags import PARENT_BACKFILL_ID_TAG, ROOT_BACKFILL_ID_TAG
from psycopg import sql

from tests.conftest import url_for
from wove_pipeline import cli
from wove_pipeline.database.embedded import to_sqlalchemy_psycopg2
from wove_pipeline.definitions import DAILY_KEYS, defs

DAYS = ["2025-08-04", "2025-08-05", "2025-08-06"]


@pytest.fixture
def instance_env(pg_server, database_url, tmp_path, monkeypatch):
    """The variables `wove up` exports, pointed at a fresh serving and Dagster database."""
    name = f"dagster_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    env = {"WOVE_DATABASE_URL": database_url, "DAGSTER_PG_URL": to_sqlalchemy_psycopg2(url_for(pg_server.admin_url, name)),
           "DAGSTER_HOME": str(tmp_path / "dagster_home"), "WOVE_DATA_DIR": str(tmp_path / "raw"),
           "WOVE_HOME": str(tmp_path / "home")}
    for key, value in env.items():
        monkeypatch.setenv(key, value)  # what the command exports is undone after the test
    yield env
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def _wove(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _partitions_by_asset(backfill) -> dict[dg.AssetKey, set[str]]:
    data = backfill.get_asset_backfill_data(defs.resolve_asset_graph())
    found: dict[dg.AssetKey, set[str]] = {}
    for key in data.target_subset.iterate_asset_partitions():
        found.setdefault(key.asset_key, set()).add(key.partition_key)
    return found


def test_backfill_has_exactly_the_days_and_retry_exactly_the_failed_ones(instance_env, capsys):
    rc, out, err = _wove(capsys, "backfill", DAYS[0], DAYS[-1])
    assert rc == 0, err
    backfill_id = out.strip()
    assert len(out.splitlines()) == 1 and backfill_id in err and "3 day(s)" in err
    with dg.DagsterInstance.get() as instance:
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"  # the instance the UI uses
        backfill = instance.get_backfill(backfill_id)
        assert backfill is not None and backfill.status == BulkActionStatus.REQUESTED
        assert backfill.is_asset_backfill
        assert _partitions_by_asset(backfill) == {key: set(DAYS) for key in DAILY_KEYS}

        # a retry refuses a backfill still in progress
        rc, out, err = _wove(capsys, "backfill", "--retry-failed", backfill_id)
        assert rc == 1 and out == "" and len(err.splitlines()) == 1 and "still requested" in err, err

        # the backfill finishes: the first and last day materialized, the middle one failed
        graph = defs.resolve_asset_graph()
        data = backfill.get_asset_backfill_data(graph)
        good = AssetBackfillData.from_asset_partitions(
            asset_graph=graph, partition_names=[DAYS[0], DAYS[2]], asset_selection=list(DAILY_KEYS),
            dynamic_partitions_store=instance, backfill_start_timestamp=backfill.backfill_timestamp,
            all_partitions=False).target_subset
        finished = data._replace(materialized_subset=good, requested_subset=data.target_subset,
                                 failed_and_downstream_subset=data.target_subset - good)
        instance.update_backfill(backfill.with_asset_backfill_data(finished, instance, graph)
                                 .with_status(BulkActionStatus.COMPLETED_FAILED))

    rc, out, err = _wove(capsys, "backfill", "--retry-failed", backfill_id)
    assert rc == 0, err
    retry_id = out.strip()
    assert retry_id != backfill_id and DAYS[1] in err
    with dg.DagsterInstance.get() as instance:
        retry = instance.get_backfill(retry_id)
        assert retry.status == BulkActionStatus.REQUESTED
        assert _partitions_by_asset(retry) == {key: {DAYS[1]} for key in DAILY_KEYS}
        assert retry.tags[PARENT_BACKFILL_ID_TAG] == backfill_id == retry.tags[ROOT_BACKFILL_ID_TAG]


def test_backfill_errors_are_one_line(instance_env, capsys):
    for argv, words in (
        (["backfill", DAYS[2], DAYS[0]], "before it starts"),
        (["backfill", "2024-12-31", DAYS[0]], "is not a partition of the job"),
        (["backfill", DAYS[0], DAYS[1], "--job", "publish"], "no partitioned job 'publish'"),
        (["backfill", "--retry-failed", "nosuchid"], "no backfill 'nosuchid'"),
        (["backfill", DAYS[0]], "give the day range FROM TO"),
    ):
        rc, out, err = _wove(capsys, *argv)
        assert rc == 2 and out == "", (argv, out, err)
        assert len(err.splitlines()) == 1 and err.startswith("wove backfill: ") and words in err, (argv, err)
