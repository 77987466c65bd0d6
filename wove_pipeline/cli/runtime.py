"""Bring up what a run needs, the same way for the demo, the UI, the tests and benches.

`Environment` starts (or attaches to) the database, applies migrations, optionally serves
the sandbox world on loopback, and exports the environment variables the Dagster
resources read. Nothing here is specific to one caller, so all of them share one path.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from wove_pipeline.database.embedded import DatabaseUrls, EmbeddedPostgres, resolve_database_urls
from wove_pipeline.database.migrations import migrate
from wove_pipeline import settings
from wove_pipeline.settings import raw_data_dir

REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Environment:
    urls: DatabaseUrls
    embedded: EmbeddedPostgres | None
    sandbox: object | None = None  # SandboxServer (or ForkedSandbox) when serving the sandbox world
    world: object | None = None
    exported: dict[str, str] = field(default_factory=dict)

    def close(self) -> None:
        if self.sandbox is not None:
            self.sandbox.stop()
        if self.embedded is not None:
            self.embedded.stop()

    def __enter__(self) -> "Environment":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def prepare_dagster_home() -> Path:
    """A DAGSTER_HOME under WOVE_HOME holding the repository's dagster.yaml (run state stays out of git)."""
    home = settings.dagster_home()
    home.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(REPO_ROOT / "dagster.yaml", home / "dagster.yaml")
    return home


def code_location_pools() -> set[str]:
    """Every pool an asset or asset check of the code location declares (``pool=``)."""
    from wove_pipeline.definitions import defs
    graph = defs.resolve_asset_graph()
    pools: set[str] = set()
    for key in graph.get_all_asset_keys():
        pools |= set(graph.get(key).pools or ())
    for job in defs.resolve_all_job_defs():
        pools |= {node.pool for node in job.graph.node_defs if getattr(node, "pool", None)}
    return pools


def initialize_pools(instance, pools: Iterable[str]) -> dict[str, int]:
    """Give every pool its limit (dagster.yaml's ``concurrency.pools.default_limit``) before any
    run claims a slot in it; returns pool -> limit.

    Dagster otherwise creates a pool's limit row lazily, when the first step (or the run queue)
    meets the pool: it INSERTs the row and, on a unique violation, UPDATEs it in the same
    transaction. On PostgreSQL the violation has already aborted that transaction, so of two
    runs that meet a new pool at the same moment one fails with ``InFailedSqlTransaction ...
    UPDATE concurrency_limits`` (every fresh instance's first concurrent runs). The same path
    runs, and fails, whenever default_limit changes. Rows written here, one process at a time
    (a PostgreSQL advisory lock), leave runs nothing to initialise.
    """
    storage = instance.event_log_storage
    if not storage.supports_global_concurrency_limits:
        return {}
    default = instance.global_op_concurrency_default_limit
    if default is None:
        return {}
    with _instance_lock(instance):
        have = {limit.name: limit for limit in storage.get_pool_limits()}
        for pool in sorted(set(pools)):
            current = have.get(pool)
            if current is not None and (not current.from_default or current.limit == default):
                continue  # set by hand (UI, `dagster instance concurrency set`), or already right
            if current is not None:
                storage.delete_concurrency_limit(pool)  # the default changed: a new row, not an UPDATE
            storage.initialize_concurrency_limit_to_default(pool)
        return {limit.name: limit.limit for limit in storage.get_pool_limits() if limit.name in set(pools)}


@contextlib.contextmanager
def _instance_lock(instance) -> Iterator[None]:
    """A session advisory lock on the instance's PostgreSQL database (no-op on other storage)."""
    url = settings.dagster_pg_url()
    if not url or type(instance.event_log_storage).__name__ != "PostgresEventLogStorage":
        yield
        return
    from wove_pipeline.database import access as db
    plain = "postgresql://" + url.split("://", 1)[1]
    with db.connect(plain, autocommit=True) as conn, conn.transaction():
        db.advisory_lock(conn, "wove-dagster-pools")
        yield


def prepare_dagster_instance(pools: Iterable[str] | None = None) -> dict[str, int]:
    """What a fresh instance needs before its first run: its storage schema (created by opening
    it) and every pool's limit (see initialize_pools). Reads DAGSTER_HOME / DAGSTER_PG_URL."""
    import dagster as dg

    with dg.DagsterInstance.get() as instance:
        return initialize_pools(instance, code_location_pools() if pools is None else pools)


def start_sandbox(world, *, today=None, setup=None, fork: bool = False):
    """Serve the world on loopback. ``setup(server)`` configures the endpoints before they
    serve; ``fork`` serves from a child process (benchmarks: see ForkedSandbox)."""
    from wove_pipeline.sandbox.server import ForkedSandbox, SandboxServer, default_endpoints
    server = SandboxServer(world, endpoints=default_endpoints(world), today=today)
    if setup is not None:
        setup(server)
    return ForkedSandbox(server) if fork else server.start()


def sandbox_env(server) -> dict[str, str]:
    # The sandbox has no politeness limits to honour; the real hosts get their defaults.
    env = {
        "ARXIV_OAI_URL": server.url_for("arxiv"),
        "ARXIV_MIN_INTERVAL_S": "0",
        "S2_MIN_INTERVAL_S": "0",
        "OPENALEX_MIN_INTERVAL_S": "0",
    }
    for name, var in (("s2", "S2_API_URL"), ("openalex", "OPENALEX_API_URL")):
        try:
            env[var] = server.url_for(name)
        except KeyError:
            pass  # endpoint not hosted
    return env


def sandbox_partitions_env(world) -> dict[str, str]:
    """The partition definition's days set to the sandbox world's (partitions.py): the UI
    offers the days that have data, and its launch dialog's default range selects them."""
    from wove_pipeline.partitions import END_VAR, START_VAR
    return {START_VAR: world.start_day.isoformat(), END_VAR: world.end_day.isoformat()}


def bring_up(*, world=None, serve_sandbox: bool = False, sandbox_today=None, sandbox_setup=None,
             sandbox_fork: bool = False, dagster_instance: bool = True) -> Environment:
    """Database, migrations, (sandbox), exported variables and, with ``dagster_instance``, the
    Dagster instance prepared for concurrent runs (prepare_dagster_instance)."""
    urls, embedded = resolve_database_urls()
    migrate(urls.serving)
    # a forked sandbox holds the world in its own process: this one can let go of it
    env = Environment(urls=urls, embedded=embedded, world=None if sandbox_fork else world)
    exported = {
        "WOVE_DATABASE_URL": urls.serving,
        "DAGSTER_PG_URL": urls.dagster,
        "WOVE_DATA_DIR": raw_data_dir(),
    }
    if serve_sandbox:
        env.sandbox = start_sandbox(world, today=sandbox_today, setup=sandbox_setup, fork=sandbox_fork)
        exported.update(sandbox_env(env.sandbox))
    exported["DAGSTER_HOME"] = str(prepare_dagster_home())
    settings.export(exported)
    env.exported = exported
    if dagster_instance:
        try:
            prepare_dagster_instance()
        except BaseException:
            env.close()
            raise
    return env


@contextlib.contextmanager
def serving_database_url() -> Iterator[str]:
    """For commands that only read or copy the serving database: WOVE_DATABASE_URL when set,
    else the embedded default, started for the command and stopped after it."""
    url = settings.serving_database_url()
    if url:
        yield url
        return
    env = bring_up(dagster_instance=False)
    try:
        yield env.urls.serving
    finally:
        env.close()
