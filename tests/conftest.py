"""Shared fixtures: one embedded PostgreSQL for the session (for each worker, under `make
test`'s two pytest-xdist workers), a fresh database per test, and the sandbox world served
over real HTTP on loopback."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from wove_pipeline.database.embedded import scratch_postgres
from wove_pipeline.database.migrations import migrate

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
TEMPLATE_DB = "wove_template"

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def url_for(admin_url: str, database: str) -> str:
    """The URL of another database on the same server."""
    head, _, query = admin_url.partition("?")
    return f"{head.rsplit('/', 1)[0]}/{database}" + (f"?{query}" if query else "")


def pytest_collection_modifyitems(config, items):
    """Files holding a slow test first (stable: the order within them stays). Under `make
    test`'s two workers, a file to a worker, the longest files then start at once instead of
    trailing at the end of the run."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)


@pytest.fixture(scope="session")
def pg_server():
    with scratch_postgres("wove-test-pg-") as (server, _):
        with psycopg.connect(server.admin_url, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(TEMPLATE_DB)))
        migrate(url_for(server.admin_url, TEMPLATE_DB))
        yield server


@pytest.fixture
def clone_database(pg_server):
    """clone(source_url=None) -> URL of a new database copied from `source_url`, by default
    from the migrated template (CREATE DATABASE ... TEMPLATE: fast). Dropped after the test."""
    made = []

    def clone(source_url: str | None = None) -> str:
        source = TEMPLATE_DB if source_url is None else source_url.split("?")[0].rsplit("/", 1)[-1]
        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name), sql.Identifier(source)))
        made.append(name)
        return url_for(pg_server.admin_url, name)

    yield clone
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        for name in made:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def database_url(clone_database) -> str:
    """A fresh, migrated serving database for one test."""
    return clone_database()


@pytest.fixture
def warmed_lookups(monkeypatch) -> list:
    """Every lookup list db.SnapshotReaders.warm_indexes reads ahead while the test runs (it
    still reads them)."""
    from wove_pipeline.database import access as db

    warmed: list = []
    real_warm = db.SnapshotReaders.warm_indexes
    monkeypatch.setattr(db.SnapshotReaders, "warm_indexes",
                        lambda self, lookups: warmed.append(lookups) or real_warm(self, lookups))
    return warmed


@pytest.fixture(scope="session")
def small_world():
    """A small but complete sandbox world (every kind of hard case, fast to harvest)."""
    from wove_pipeline.sandbox.generator import generate_world
    return generate_world(seed=7, papers_per_day=40, days=8)


@pytest.fixture
def sandbox(small_world):
    from wove_pipeline.cli.runtime import start_sandbox
    server = start_sandbox(small_world)
    yield server
    server.stop()


@pytest.fixture
def pipeline_env(database_url, sandbox, tmp_path, monkeypatch):
    """Environment variables a Dagster run reads, pointed at a fresh database, a fresh raw
    layer and the sandbox."""
    from wove_pipeline.cli.runtime import sandbox_env
    env = {"WOVE_DATABASE_URL": database_url, "WOVE_DATA_DIR": str(tmp_path / "raw"), **sandbox_env(sandbox)}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env
