"""A real Dagster daemon for the end-to-end tests (test_daemon_automation.py): a fresh instance
on the embedded PostgreSQL with the repository's dagster.yaml, a workspace, the daemon (and
the code server and run workers it starts) in one process group, and what the tests read
back (sensor ticks, backfill runs)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import psycopg
from psycopg import sql

from wove_pipeline.cli import runtime
from wove_pipeline.database.embedded import to_sqlalchemy_psycopg2

from ..conftest import url_for

INSTANCE_VARS = ("DAGSTER_HOME", "DAGSTER_PG_URL")


@contextlib.contextmanager
def fresh_instance(pg_server, home: Path, pools: Iterable[str] | None = None,
                   extra_env: dict[str, str] | None = None) -> Iterator[dict[str, str]]:
    """A fresh instance (its own database, dagster.yaml copied into ``home``, the pools' limits
    set as `wove` sets them); yields the environment the daemon runs with. DAGSTER_HOME and
    DAGSTER_PG_URL are set in this process too (DagsterInstance.get()) and restored after."""
    name = f"t_dagster_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    env = {**os.environ, **(extra_env or {}), "DAGSTER_HOME": str(home),
           "DAGSTER_PG_URL": to_sqlalchemy_psycopg2(url_for(pg_server.admin_url, name)),
           "PYTHONPATH": str(runtime.REPO_ROOT)}
    saved = {k: os.environ.get(k) for k in INSTANCE_VARS}
    os.environ.update({k: env[k] for k in INSTANCE_VARS})
    try:
        runtime.prepare_dagster_home()
        runtime.prepare_dagster_instance(pools)
        yield env
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def workspace_file(path: Path, location: str, *, module: str | None = None, python_file: Path | None = None) -> Path:
    """A workspace.yaml with one code location (a module, or a Python file)."""
    if module:
        entry = f"  - python_module:\n      module_name: {module}\n"
    else:
        entry = f"  - python_file:\n      relative_path: {python_file}\n"
    path.write_text(f"load_from:\n{entry}      working_directory: {runtime.REPO_ROOT}\n"
                    f"      location_name: {location}\n")
    return path


class Daemon:
    """`dagster-daemon run -w WORKSPACE` in its own session (so its code server and run workers
    are stopped with it); its output in ``log``."""

    def __init__(self, workspace: Path, env: dict[str, str], log: Path):
        self.log = log
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(
                [str(Path(sys.executable).with_name("dagster-daemon")), "run", "-w", str(workspace)],
                env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def tail(self, n: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-n:]

    def wait(self, what: str, predicate: Callable[[], object], timeout: float, every: float = 0.5):
        """Poll ``predicate`` until it returns something true (returned); fail with the daemon's
        log when ``timeout`` passes or the daemon exits."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if self.proc.poll() is not None:
                raise AssertionError(f"the daemon exited ({self.proc.returncode}) while waiting for {what}:\n"
                                     + self.tail())
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}:\n" + self.tail())
            time.sleep(every)

    def stop(self) -> None:
        """The daemon, its code server and any run worker left: one process group. SIGTERM
        first, so that the daemon ends cleanly; then SIGKILL to whatever of the group is left,
        the daemon gone or not (a code server outlived its SIGTERMed daemon by half an hour)."""
        for sig, grace in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(grace)
            except subprocess.TimeoutExpired:
                pass  # SIGKILL next

    def __enter__(self) -> "Daemon":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def sensor_ticks(instance, name: str) -> list:
    """The ticks the daemon recorded for the sensor ``name`` (newest first; none before its first)."""
    from dagster._core.scheduler.instigation import InstigatorType
    ticks = []
    for state in instance.all_instigator_state(instigator_type=InstigatorType.SENSOR):
        if state.instigator_name == name:
            ticks += instance.get_ticks(state.instigator_origin_id, state.selector_id)
    return sorted(ticks, key=lambda t: t.timestamp, reverse=True)


def backfill_runs(instance, backfill_id: str) -> list:
    import dagster as dg
    return list(instance.get_runs(dg.RunsFilter(tags={"dagster/backfill": backfill_id})))


def add_asset_backfill(instance, asset_graph, asset_keys, partitions: list[str], *, run_config=None,
                       tags: dict[str, str] | None = None) -> str:
    """Record an asset backfill (what `wove backfill` and the UI record) for the daemon; its id."""
    from dagster._core.execution.backfill import PartitionBackfill
    from dagster._core.utils import make_new_backfill_id
    from dagster._time import get_current_timestamp

    backfill = PartitionBackfill.from_asset_partitions(
        backfill_id=make_new_backfill_id(), asset_graph=asset_graph, partition_names=partitions,
        asset_selection=sorted(asset_keys), backfill_timestamp=get_current_timestamp(), tags=tags or {},
        dynamic_partitions_store=instance, all_partitions=False, title=None, description=None,
        run_config=run_config)
    instance.add_backfill(backfill)
    return backfill.backfill_id
