"""Concurrency pools on a PostgreSQL-backed instance: the first runs of a fresh instance do
not race each other initialising a pool (issue 23: one of the first two concurrent runs
failed with ``InFailedSqlTransaction ... UPDATE concurrency_limits``)."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import uuid

import dagster as dg
import psycopg
import pytest
from psycopg import sql

from wove_pipeline.cli import runtime
from wove_pipeline.database.embedded import to_sqlalchemy_psycopg2

from ..conftest import url_for

INSTANCES = 20
DAGSTER_TEMPLATE = "dagster_template"


# Tiny assets in the code location's real pools (limit 1 each, dagster.yaml).
@dg.asset(pool="semantic_scholar")
def s2_tiny() -> int:
    return 1


@dg.asset(pool="semantic_scholar")
def s2_tiny_too() -> int:
    return 2


@dg.asset(pool="openalex")
def openalex_tiny() -> int:
    return 3


RUNS = ([s2_tiny, openalex_tiny], [s2_tiny_too])


def _fresh_instance_database(pg_server, template: str) -> str:
    """A new database copied from the template (a fresh instance's schema): its name."""
    name = f"t_dagster_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name), sql.Identifier(template)))
    return name


def _drop(pg_server, name: str) -> None:
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture(scope="module")
def dagster_template(pg_server, tmp_path_factory):
    """A database holding a fresh Dagster instance's schema (no runs, no pools): each test
    instance is a copy (CREATE DATABASE ... TEMPLATE, a fraction of a second)."""
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(DAGSTER_TEMPLATE)))
    home = tmp_path_factory.mktemp("dagster-template-home")
    shutil.copyfile(runtime.REPO_ROOT / "dagster.yaml", home / "dagster.yaml")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DAGSTER_PG_URL", to_sqlalchemy_psycopg2(url_for(pg_server.admin_url, DAGSTER_TEMPLATE)))
        with dg.DagsterInstance.from_config(str(home)) as instance:  # creates the schema
            assert not instance.event_log_storage.get_pool_limits()
    yield DAGSTER_TEMPLATE
    _drop(pg_server, DAGSTER_TEMPLATE)


def _run(which: int, env: dict[str, str], go, results) -> None:
    """A forked child: run RUNS[which] on the instance `env` names, once `go` is set."""
    import os

    os.environ.update(env)  # (the fork server's environment is the first test instance's)
    assets = RUNS[which]
    try:
        with dg.DagsterInstance.get() as instance:
            go.wait(60)
            result = dg.materialize(assets, instance=instance, raise_on_error=False)
            errors = [str(e.event_specific_data)[:600] for e in result.all_events if e.is_failure]
            results.put((result.success, errors))
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which fails the test
        results.put((False, [repr(exc)[:600]]))


@pytest.mark.slow
def test_two_concurrent_runs_on_each_of_20_fresh_instances_all_succeed(pg_server, dagster_template, tmp_path,
                                                                       monkeypatch):
    # Children forked from a server that imported dagster and this module once (fast), and that
    # runs no threads (a fork of this process could inherit a held logging lock).
    fork = multiprocessing.get_context("forkserver")
    fork.set_forkserver_preload(["dagster", __name__])
    pools = runtime.code_location_pools()
    assert {"arxiv", "semantic_scholar", "openalex"} <= pools
    failures = []
    for i in range(INSTANCES):
        name = _fresh_instance_database(pg_server, dagster_template)
        try:
            monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / name))
            monkeypatch.setenv("DAGSTER_PG_URL", to_sqlalchemy_psycopg2(url_for(pg_server.admin_url, name)))
            runtime.prepare_dagster_home()
            # what bring_up (wove ui / demo / db) does before any run
            limits = runtime.prepare_dagster_instance(pools)
            assert limits == {pool: 1 for pool in pools}
            env = {k: os.environ[k] for k in ("DAGSTER_HOME", "DAGSTER_PG_URL")}
            go, results = fork.Event(), fork.Queue()
            children = [fork.Process(target=_run, args=(which, env, go, results))
                        for which in range(len(RUNS))]
            for child in children:
                child.start()
            go.set()  # both runs meet their pools at the same moment
            outcomes = [results.get(timeout=180) for _ in children]
            for child in children:
                child.join(30)
            failures += [(i, errors) for ok, errors in outcomes if not ok]
            with dg.DagsterInstance.get() as instance:
                runs = instance.get_run_records()
                assert len(runs) == len(RUNS) and all(r.dagster_run.is_success for r in runs)
                # nothing left holding a slot
                assert not instance.event_log_storage.get_concurrency_run_ids()
        finally:
            _drop(pg_server, name)
    assert not failures, failures[:2]


def test_pool_limits_follow_a_changed_default(pg_server, dagster_template, tmp_path, monkeypatch):
    """Dagster's own path for a changed default_limit (INSERT, then UPDATE on the unique
    violation, in one transaction) fails on PostgreSQL; initialize_pools rewrites the row."""
    name = _fresh_instance_database(pg_server, dagster_template)
    try:
        home = tmp_path / "home"
        home.mkdir()
        monkeypatch.setenv("DAGSTER_PG_URL", to_sqlalchemy_psycopg2(url_for(pg_server.admin_url, name)))
        config = (runtime.REPO_ROOT / "dagster.yaml").read_text()
        assert "default_limit: 1" in config
        (home / "dagster.yaml").write_text(config)
        with dg.DagsterInstance.from_config(str(home)) as instance:
            assert runtime.initialize_pools(instance, ["openalex"]) == {"openalex": 1}
            instance.event_log_storage.set_concurrency_slots("semantic_scholar", 3)  # set by hand: kept
        (home / "dagster.yaml").write_text(config.replace("default_limit: 1", "default_limit: 2"))
        with dg.DagsterInstance.from_config(str(home)) as instance:
            assert runtime.initialize_pools(instance, ["openalex", "semantic_scholar"]) == {
                "openalex": 2, "semantic_scholar": 3}
            assert dg.materialize([openalex_tiny], instance=instance).success
    finally:
        _drop(pg_server, name)


def test_a_step_queued_while_the_slot_is_freed_still_gets_it(pg_server, dagster_template, tmp_path, monkeypatch):
    """The interleaving that left a run blocked for ever (resources/dagster_storage.py): B asks
    for a slot while A holds it (none unassigned), A frees it, then B's pending row lands
    unassigned. Dagster's own claim keeps B blocked on every poll; the instance's storage
    (dagster.yaml) gives B the free slot, and still holds one step at a time."""
    from dagster_postgres import PostgresEventLogStorage

    from wove_pipeline.resources.dagster_storage import PoolQueueSafeEventLogStorage

    name = _fresh_instance_database(pg_server, dagster_template)
    try:
        home = tmp_path / "home"
        home.mkdir()
        shutil.copyfile(runtime.REPO_ROOT / "dagster.yaml", home / "dagster.yaml")
        monkeypatch.setenv("DAGSTER_PG_URL", to_sqlalchemy_psycopg2(url_for(pg_server.admin_url, name)))
        pool = "semantic_scholar"
        with dg.DagsterInstance.from_config(str(home)) as instance:
            runtime.initialize_pools(instance, [pool])
            storage = instance.event_log_storage
            assert isinstance(storage, PoolQueueSafeEventLogStorage)
            assert instance.get_ref().storage_data.class_name == "PoolQueueSafePostgresStorage"  # run workers
            assert storage.claim_concurrency_slot(pool, "run_a", "step_a").is_claimed
            assert not storage.has_unassigned_slots(pool)  # what B's registration reads first
            storage.free_concurrency_slot_for_step("run_a", "step_a")  # A ends in between
            storage.add_pending_step(pool, "run_b", "step_b", should_assign=False)  # B's row lands
            dagsters = PostgresEventLogStorage.claim_concurrency_slot(storage, pool, "run_b", "step_b")
            assert not dagsters.is_claimed and not dagsters.is_assigned  # blocked, and nothing will assign it
            assert storage.claim_concurrency_slot(pool, "run_b", "step_b").is_claimed
            assert not storage.claim_concurrency_slot(pool, "run_c", "step_c").is_claimed  # one at a time
            storage.free_concurrency_slot_for_step("run_b", "step_b")
            assert storage.claim_concurrency_slot(pool, "run_c", "step_c").is_claimed  # the queue moves on
    finally:
        _drop(pg_server, name)
