"""A run SIGKILLed while its step holds a pool slot: the Dagster daemon frees the slot within
60 s of the death (issue 23: a killed run's `semantic_scholar` slot blocked two other runs for
about 300 s), and the run waiting for the slot then runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import pytest

from wove_pipeline.cli import runtime

from ._daemon import fresh_instance

LOCATION = Path(__file__).with_name("_pool_location.py")
FREED_WITHIN_S = 60
POOL = "semantic_scholar"


def _wait(what: str, predicate, timeout: float, proc: subprocess.Popen, log: Path, every: float = 0.5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        if proc.poll() is not None:
            raise AssertionError(f"the daemon exited ({proc.returncode}) while waiting for {what}:\n"
                                 + log.read_text(errors="replace")[-3000:])
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}:\n" + log.read_text(errors="replace")[-3000:])


def _launch(job: str, workspace: Path, env: dict[str, str]) -> None:
    out = subprocess.run([sys.executable, "-m", "dagster", "job", "launch", "-w", str(workspace), "-j", job,
                          "--tags", '{"dagster/max_retries": "0"}'],
                         env=env, capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]


@pytest.fixture
def dagster_instance_env(pg_server, tmp_path):
    """A fresh instance (its own database, the repository's dagster.yaml) and the
    environment the daemon and the CLI run with."""
    with fresh_instance(pg_server, tmp_path / "dagster_home", [POOL],
                        extra_env={"WOVE_TEST_PID_FILE": str(tmp_path / "step.pid")}) as env:
        yield env


@pytest.mark.slow
def test_a_killed_runs_pool_slot_is_free_within_a_minute(dagster_instance_env, tmp_path):
    env = dagster_instance_env
    workspace = tmp_path / "workspace.yaml"
    workspace.write_text(f"load_from:\n  - python_file:\n      relative_path: {LOCATION}\n"
                         f"      working_directory: {runtime.REPO_ROOT}\n      location_name: pools\n")
    log = tmp_path / "daemon.log"
    with open(log, "wb") as out:
        daemon = subprocess.Popen([str(Path(sys.executable).with_name("dagster-daemon")), "run", "-w", str(workspace)],
                                  env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        with dg.DagsterInstance.get() as instance:
            storage = instance.event_log_storage
            _launch("slow_job", workspace, env)
            pid_file = Path(env["WOVE_TEST_PID_FILE"])
            _wait("the step to start", pid_file.exists, 240, daemon, log)
            holder = _wait("the slot to be claimed", lambda: storage.get_concurrency_run_ids(), 30, daemon, log)
            (killed_run,) = holder
            _launch("quick_job", workspace, env)  # waits for the slot behind the slow run
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
            killed_at = time.monotonic()

            def freed():
                info = storage.get_concurrency_info(POOL)
                return all(slot.run_id != killed_run for slot in info.claimed_slots)

            _wait("the killed run's slot to be freed", freed, FREED_WITHIN_S + 30, daemon, log)
            freed_after = time.monotonic() - killed_at
            assert instance.get_run_by_id(killed_run).status == dg.DagsterRunStatus.FAILURE
            assert freed_after < FREED_WITHIN_S, f"slot freed {freed_after:.0f} s after the kill"

            def quick_done():
                runs = [r for r in instance.get_runs() if r.job_name == "quick_job"]
                return runs and runs[0].is_finished and runs[0]

            quick = _wait("the waiting run to finish", quick_done, 120, daemon, log)
            assert quick.is_success
    finally:
        _stop_group(daemon)


def _stop_group(proc: subprocess.Popen) -> None:
    """The daemon, its code server and any run worker left: one process group (its session)."""
    for sig, grace in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(grace)
            break
        except subprocess.TimeoutExpired:
            continue
