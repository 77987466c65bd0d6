"""Crashes and races: a process SIGKILLed while it writes leaves nothing half-written that a
consumer can see, and the next run converges; two runs of one partition at once give one
result with no duplicates."""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pyarrow.parquet as pq
import pytest

from wove_pipeline.arxiv import harvest as papers_load
from wove_pipeline.cli.runtime import start_sandbox
from wove_pipeline.database import access as db
from wove_pipeline.upstream.raw_store import RawStore

from .conftest import CORE_TABLES, arxiv_client, compare_tables, table_rows

CHILD = Path(__file__).with_name("_child.py")
REPO = Path(__file__).resolve().parents[2]


def _busiest_day(world) -> dt.date:
    counts: dict[dt.date, int] = {}
    for p in world.papers:
        counts[p.datestamp] = counts.get(p.datestamp, 0) + 1
    return max(counts, key=lambda d: (counts[d], d))


def _spawn(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, str(CHILD), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=REPO)


def _wait_for_line(proc: subprocess.Popen, wanted: str, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line.strip() == wanted:
            return
        if not line and proc.poll() is not None:
            raise AssertionError(f"child exited {proc.returncode} before {wanted}: {proc.stderr.read()[-3000:]}")
    raise AssertionError(f"child did not reach {wanted}")


def _run_together(tmp_path: Path, arg_lists) -> list[tuple[int, str, str]]:
    """Start the children, wait until each is ready, then release them at the same instant."""
    go = tmp_path / f"go-{time.monotonic_ns()}"
    procs = [_spawn(*args, "--go-file", str(go)) for args in arg_lists]
    for proc in procs:
        _wait_for_line(proc, "READY")
    go.touch()
    outs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        outs.append((proc.returncode, out, err[-2000:]))
    return outs


def _count(url: str, query: str, params=()) -> int:
    with psycopg.connect(url) as conn:
        return conn.execute(query, params).fetchone()[0]


def _wait_backend_gone(url: str, pid_before: set[int], timeout: float = 20.0) -> None:
    """After the client dies, its server backend notices and rolls back; wait for that."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with psycopg.connect(url) as conn:
            alive = {r[0] for r in conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")}
        if not (alive - pid_before):
            return
        time.sleep(0.1)
    raise AssertionError("the killed run's backend is still there")


@pytest.fixture(scope="module")
def harvested(small_world, tmp_path_factory):
    """The busiest small-world day, harvested once to raw Parquet (plus the papers it should give)."""
    day = _busiest_day(small_world)
    root = tmp_path_factory.mktemp("raw")
    server = start_sandbox(small_world)
    client = arxiv_client(server)
    try:
        papers_load.harvest_day(client, RawStore(root), day)
    finally:
        client.close()
        server.stop()
    return day, root


def _reference(url: str, root: Path, day: dt.date) -> dict:
    with db.transaction(url) as conn:
        papers_load.load_day(conn, day, papers_load.parse_day(RawStore(root), day))
    return table_rows(url, CORE_TABLES)


def test_kill_during_load_leaves_nothing_visible_and_the_rerun_converges(harvested, new_database, figures):
    day, root = harvested
    reference = _reference(new_database(), root, day)
    url = new_database()
    with psycopg.connect(url) as conn:
        before = {r[0] for r in conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")}

    proc = _spawn("papers", url, str(root), day.isoformat(), "--pause-in-copy", "20")
    try:
        _wait_for_line(proc, "WRITING")
        # Mid-write: the papers are upserted and 20 author rows are in the COPY stream, uncommitted.
        with psycopg.connect(url) as conn:
            states = [r[0] for r in conn.execute(
                "SELECT state FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                " AND xact_start IS NOT NULL")]
        assert states, "the child's transaction should be open"
        assert _count(url, "SELECT count(*) FROM wove.papers") == 0
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    _wait_backend_gone(url, before)
    assert _count(url, "SELECT count(*) FROM wove.papers") == 0
    assert _count(url, "SELECT count(*) FROM wove.paper_authors") == 0
    assert _count(url, "SELECT count(*) FROM wove.quarantine") == 0

    # The next run (the same asset, in this process) converges to the fault-free rows.
    import dagster as dg

    from wove_pipeline.arxiv.assets import papers
    from wove_pipeline.resources import DatabaseResource, RawStoreResource
    result = dg.materialize([papers], partition_key=day.isoformat(),
                            resources={"database": DatabaseResource(url=url), "raw_store": RawStoreResource(root=str(root))})
    assert result.success
    compare_tables(reference, table_rows(url, CORE_TABLES), figures)
    figures.runs["killed_mid_write_then_converged"] += 1
    figures.faults["process/sigkill"] += 1


def test_kill_during_publish_keeps_the_previous_publication(harvested, new_database, figures):
    from wove_pipeline.serving import publish as serving
    day, root = harvested
    url = new_database()
    _reference(url, root, day)  # papers loaded
    with db.connect(url, autocommit=True) as conn:
        serving.publish(conn)
    first = _count(url, "SELECT publication_id FROM serving.publication")
    served = _count(url, "SELECT count(*) FROM serving.papers")
    assert served > 0
    with db.transaction(url) as conn:  # a change the next publish would carry
        conn.execute("DELETE FROM wove.papers WHERE arxiv_id = (SELECT min(arxiv_id) FROM wove.papers)")
    with psycopg.connect(url) as conn:
        before = {r[0] for r in conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")}

    proc = _spawn("publish", url, "--pause-in-publish")
    try:
        _wait_for_line(proc, "WRITING")
        # The new schema is fully built inside the open transaction; consumers still read the old one.
        assert _count(url, "SELECT publication_id FROM serving.publication") == first
        assert _count(url, "SELECT count(*) FROM serving.papers") == served
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        proc.stderr.close()
    _wait_backend_gone(url, before)
    assert _count(url, "SELECT publication_id FROM serving.publication") == first
    assert _count(url, "SELECT count(*) FROM serving.papers") == served
    assert _count(url, "SELECT count(*) FROM pg_namespace WHERE nspname = 'serving_build'") == 0

    with db.connect(url, autocommit=True) as conn:
        serving.publish(conn)  # the next publish converges
    assert _count(url, "SELECT publication_id FROM serving.publication") != first
    assert _count(url, "SELECT count(*) FROM serving.papers") == served - 1
    figures.runs["killed_mid_write_then_converged"] += 1
    figures.faults["process/sigkill"] += 1


def test_half_written_raw_file_never_wins(harvested, tmp_path, new_database, figures):
    """A crash during the raw write leaves a *.tmp file at most: the complete file still wins."""
    day, root = harvested
    store = RawStore(root)
    good = store.latest_path("arxiv", day.isoformat())
    torn = Path(good).with_name("99999999T999999999999Z-deadbeef.parquet.tmp")
    torn.write_bytes(Path(good).read_bytes()[:100])  # what a killed writer leaves
    try:
        assert store.latest_path("arxiv", day.isoformat()) == good
        url = new_database()
        reference = _reference(url, root, day)
        assert reference["wove.papers"]
    finally:
        torn.unlink()
    figures.faults["process/torn_raw_file"] += 1


def _corrupt_one_record(root: Path, day: dt.date) -> int:
    """Write a newer raw file in which one record has lost its title (quarantine material)."""
    store = RawStore(root)
    table = pq.read_table(store.latest_path("arxiv", day.isoformat()), filesystem=store.fs)
    responses = []
    for kind, seq, request, body in zip(*(table.column(c).to_pylist() for c in ("kind", "seq", "request", "body"))):
        if seq == 0:
            text = body.decode()
            start = text.index("<title>")
            end = text.index("</title>", start) + len("</title>")
            body = (text[:start] + text[end:]).encode()
        responses.append((kind, seq, request, body))
    store.write("arxiv", day.isoformat(), responses)
    return 1


def test_two_runs_of_one_partition_at_once_give_one_result(harvested, tmp_path, new_database, figures):
    import shutil

    day, src = harvested
    root = tmp_path / "raw"
    shutil.copytree(src, root)
    _corrupt_one_record(root, day)
    reference = _reference(new_database(), root, day)
    assert len(reference["wove.quarantine"]) == 1

    url = new_database()
    outs = _run_together(tmp_path, [("papers", url, str(root), day.isoformat())] * 2)
    assert all(rc == 0 and "DONE" in out for rc, out, _ in outs), outs
    rows = table_rows(url, CORE_TABLES)
    compare_tables(reference, rows, figures)
    assert len(rows["wove.quarantine"]) == 1  # not one per run
    figures.runs["concurrent_same_partition"] += 2


def test_two_runs_harvesting_one_partition_at_once(small_world, tmp_path, new_database, figures):
    """The whole partition (harvest + load) twice at once: two raw files, one set of rows."""
    day = _busiest_day(small_world)
    server = start_sandbox(small_world)
    try:
        url = new_database()
        root = tmp_path / "raw"
        args = ("papers", url, str(root), day.isoformat(), "--arxiv-url", server.url_for("arxiv"))
        outs = _run_together(tmp_path, [args] * 2)
    finally:
        server.stop()
    assert all(rc == 0 and "DONE" in out for rc, out, _ in outs), outs
    assert len(list((root / "arxiv" / day.isoformat()).glob("*.parquet"))) == 2
    reference = _reference(new_database(), root, day)
    compare_tables(reference, table_rows(url, CORE_TABLES), figures)
    assert _count(url, "SELECT count(*) FROM wove.papers") == sum(1 for p in small_world.papers if p.datestamp == day)
    figures.runs["concurrent_same_partition"] += 2
