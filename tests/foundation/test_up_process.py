"""`wove up` as an operator runs it: it starts the embedded PostgreSQL and the sandbox
upstreams, prints the `export` lines a second shell needs (never the password), keeps them
running until SIGTERM, then exits 0 with the server stopped."""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import psycopg

from tests.foundation.test_ui_process import _alive, _clean_up, _env
from wove_pipeline.cli.runtime import REPO_ROOT


def _exports(proc: subprocess.Popen, deadline_s: float = 180) -> dict[str, str]:
    """The `export NAME=VALUE` lines up to the first line that is neither one nor a comment."""
    found: dict[str, str] = {}
    deadline = time.monotonic() + deadline_s
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("export "):
            name, _, value = line[len("export "):].strip().partition("=")
            found[name] = shlex.split(value)[0]
        if "WOVE_PARTITIONS_END" in found:  # the last line of the sandbox's exports
            break
    return found


def test_up_serves_the_database_and_the_sandbox_until_sigterm():
    home = Path(tempfile.mkdtemp(prefix="wove-up-", dir="/tmp"))
    proc = None
    try:
        proc = subprocess.Popen([sys.executable, "-m", "wove_pipeline.cli", "up"], cwd=REPO_ROOT, env=_env(home),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        exports = _exports(proc)
        assert {"WOVE_DATABASE_URL", "DAGSTER_PG_URL", "DAGSTER_HOME", "WOVE_HOME", "ARXIV_OAI_URL",
                "WOVE_PARTITIONS_START"} <= set(exports), exports
        assert proc.poll() is None  # still running: it is long-lived
        url = exports["WOVE_DATABASE_URL"]
        assert "passfile=" in url
        password = (home / "secrets" / "pgpass").read_text().strip().rsplit(":", 1)[1]
        assert password and all(password not in value for value in exports.values())
        with psycopg.connect(url) as conn:  # a second shell's connection, with the printed URL alone
            assert conn.execute("SELECT to_regclass('wove.schema_migrations') IS NOT NULL").fetchone()[0]
        with urllib.request.urlopen(exports["ARXIV_OAI_URL"] + "?verb=Identify", timeout=30) as answer:
            assert answer.status == 200
        pg_pid = int((home / "pgdata" / "postmaster.pid").read_text().split()[0])
        assert _alive(pg_pid)

        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=90) == 0
        stderr = proc.stderr.read()
        assert password not in stderr and "Traceback" not in stderr, stderr
        deadline = time.monotonic() + 30
        while _alive(pg_pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(pg_pid), f"the embedded PostgreSQL (pid {pg_pid}) still runs after wove up stopped"
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        _clean_up(home)
