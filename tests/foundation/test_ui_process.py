"""`wove ui` as an operator runs it: a busy port is refused before anything starts, and a
SIGTERM stops dagster dev, the sandbox and the embedded PostgreSQL (none left running), with
no warning on stderr nobody can act on (XDG_RUNTIME_DIR, the folder's dagster.yaml)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from wove_pipeline.cli.runtime import REPO_ROOT


def _env(home: Path) -> dict[str, str]:
    env = {**os.environ, "WOVE_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    for var in ("WOVE_DATABASE_URL", "DAGSTER_PG_URL", "DAGSTER_HOME", "WOVE_DATA_DIR", "XDG_RUNTIME_DIR",
                "WOVE_DEBUG"):
        env.pop(var, None)
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _processes_of(home: Path) -> list[int]:
    """Processes started with this WOVE_HOME in their environment (dagster dev and its children)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"WOVE_HOME={home}".encode() in environ and _alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def _clean_up(home: Path) -> None:
    """Whatever a failed run left: processes with this WOVE_HOME (dagster dev and its children,
    the embedded PostgreSQL), then the folder."""
    for pid in _processes_of(home):
        os.kill(pid, signal.SIGKILL)
    pidfile = home / "pgdata" / "postmaster.pid"
    if pidfile.exists():
        pid = int(pidfile.read_text().split()[0])
        if _alive(pid):
            os.kill(pid, signal.SIGINT)  # PostgreSQL's fast shutdown
            time.sleep(2)
    shutil.rmtree(home, ignore_errors=True)


def test_ui_on_a_busy_port_says_so_and_starts_nothing():
    home = Path(tempfile.mkdtemp(prefix="wove-ui-busy-", dir="/tmp"))
    try:
        with socket.socket() as busy:
            busy.bind(("127.0.0.1", 0))
            busy.listen()
            port = busy.getsockname()[1]
            out = subprocess.run(
                [sys.executable, "-m", "wove_pipeline.cli", "ui", "--no-sandbox", "--port", str(port)],
                cwd=REPO_ROOT, env=_env(home), capture_output=True, text=True, timeout=120)
        assert out.returncode != 0
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1, out.stderr
        assert f"127.0.0.1:{port}" in lines[0] and "in use" in lines[0] and "--port" in lines[0]
        assert "Dagster UI on" not in out.stdout  # never announced
        assert not (home / "pgdata").exists()  # nor was the database started
    finally:
        _clean_up(home)


def test_sigterm_stops_ui_and_its_database_without_warnings():
    home = Path(tempfile.mkdtemp(prefix="wove-ui-term-", dir="/tmp"))
    log = home / "ui.log"
    proc = None
    try:
        with open(log, "wb") as sink:
            proc = subprocess.Popen(
                [sys.executable, "-m", "wove_pipeline.cli", "ui", "--no-sandbox", "--port", str(_free_port())],
                cwd=REPO_ROOT, env=_env(home), stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        # Up to dagster dev's own start: its warnings come before "Launching Dagster services".
        deadline = time.monotonic() + 180
        while "Launching Dagster services" not in log.read_text(errors="replace"):
            assert proc.poll() is None, log.read_text(errors="replace")
            assert time.monotonic() < deadline, log.read_text(errors="replace")
            time.sleep(0.5)
        pg_pid = int((home / "pgdata" / "postmaster.pid").read_text().split()[0])
        assert _alive(pg_pid)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=90) == 0
        deadline = time.monotonic() + 30
        while _alive(pg_pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        output = log.read_text(errors="replace")
        assert not _alive(pg_pid), f"the embedded PostgreSQL (pid {pg_pid}) still runs:\n{output[-2000:]}"
        # dagster dev, webserver, daemon: gone. A child still being spawned when the signal came
        # (stopped right after "Launching Dagster services") ends on its own when it finds its
        # parent gone (a code server's heartbeat): seen once in a full CI run under load.
        deadline = time.monotonic() + 60
        while _processes_of(home) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not _processes_of(home), output[-2000:]
        assert "XDG_RUNTIME_DIR" not in output, output
        assert "dagster.yaml" not in output, output  # "... will not be used to configure Dagster"
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        _clean_up(home)
