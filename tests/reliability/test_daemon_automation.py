"""Issue 23's automation bars, end to end with a real `dagster-daemon` on a fresh instance on
the embedded PostgreSQL (test_publish_gate.py evaluates the same sensors with Dagster's test
helpers; test_pool_slots.py frees a killed run's slot outside any backfill):

- a good day is published without a clock: the day's run (a backfill of the day, what
  `wove backfill` records) succeeds, the daemon's `publish_when_day_lands` sensor requests the
  publish, and a paper harvested that day is in serving.papers within 10 minutes of the day's
  run succeeding; a day whose run fails (its arXiv refuses) is followed by no publish, and
  `publish_held_on_failed_day` says which day holds it;
- a run SIGKILLed inside a (multi-run) backfill while its step holds a pool slot: the slot is
  free within 60 s and the backfill's other runs complete.

The daemon's sensors run at their own intervals (30 s, fixed in code), so the tests poll; the
only timed assertions are the bars' limits."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import dagster as dg
import psycopg
import pytest

from wove_pipeline.cli import runtime

from . import _backfill_location
from ._daemon import Daemon, add_asset_backfill, backfill_runs, fresh_instance, sensor_ticks, workspace_file

PUBLISHED_WITHIN_S = 600  # "a harvested paper is in serving within 10 minutes of its day's run succeeding"
FREED_WITHIN_S = 60  # "a run SIGKILLed in a backfill: its pool slot is free within 60 s"
SENSORS = ("publish_when_day_lands", "publish_held_on_failed_day")
POOL = "semantic_scholar"


def _serving_ids(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        if conn.execute("SELECT to_regclass('serving.papers')").fetchone()[0] is None:
            return set()
        return {r[0] for r in conn.execute("SELECT arxiv_id FROM serving.papers")}


def _finished(instance, backfill_id: str, daemon: Daemon, *, expect_success: bool):
    """The backfill's runs once all have finished (None before); fails at once on an unexpected end."""
    runs = backfill_runs(instance, backfill_id)
    if not runs or not all(r.is_finished for r in runs):
        return None
    if expect_success and not all(r.is_success for r in runs):
        failures = [e.dagster_event.message for r in runs if not r.is_success
                    for e in instance.all_logs(r.run_id, of_type=dg.DagsterEventType.STEP_FAILURE)]
        raise AssertionError(f"the day's run did not succeed: {failures}\n{daemon.tail()}")
    return runs


def _failure_text(event: dg.DagsterEvent) -> str:
    data = event.step_failure_data
    described = data.user_failure_data.description if data.user_failure_data else ""
    return f"{described or ''} {data.error.to_string() if data.error else ''}"


def _end_time(instance, run_id: str) -> float:
    (record,) = instance.get_run_records(dg.RunsFilter(run_ids=[run_id]))
    return record.end_time


@pytest.mark.slow
def test_a_good_day_is_published_without_a_clock_and_a_failed_day_is_held(pg_server, database_url, tiny_world,
                                                                          tmp_path):
    from wove_pipeline.cli.backfill import submit_backfill
    from wove_pipeline.definitions import DAILY_KEYS, defs

    good, failed = (day.isoformat() for day in (tiny_world.start_day, tiny_world.end_day))
    assert good != failed
    day_papers = {p.arxiv_id for p in tiny_world.papers if p.datestamp == tiny_world.start_day}
    assert day_papers
    sandbox = runtime.start_sandbox(tiny_world)
    try:
        pipeline = {"WOVE_DATABASE_URL": database_url, "WOVE_DATA_DIR": str(tmp_path / "raw"),
                    **runtime.sandbox_env(sandbox)}
        workspace = workspace_file(tmp_path / "workspace.yaml", "wove", module="wove_pipeline.definitions")
        with (fresh_instance(pg_server, tmp_path / "dagster_home", extra_env=pipeline) as env,
              Daemon(workspace, env, tmp_path / "daemon.log") as daemon,
              dg.DagsterInstance.get() as instance):
            # a run-status sensor starts from the events present at its first tick: wait for it
            started = time.time()
            daemon.wait("the publish sensors' first ticks", lambda: all(sensor_ticks(instance, s) for s in SENSORS), 300)
            assert not _serving_ids(database_url)

            good_backfill = submit_backfill(instance, defs, "daily_harvest", [good])

            def day_landed():  # every run of the backfill ended well and every daily asset has the day
                runs = _finished(instance, good_backfill, daemon, expect_success=True)
                return runs if runs and all(good in instance.get_materialized_partitions(key)
                                            for key in DAILY_KEYS) else None

            runs = daemon.wait(f"the run of {good}", day_landed, 480, every=1)
            succeeded_at = max(_end_time(instance, r.run_id) for r in runs)
            print(f"\n{good}: the day's run succeeded {succeeded_at - started:.1f} s after the daemon started")

            def publish_runs():
                return list(instance.get_runs(dg.RunsFilter(job_name="publish")))

            (publish,) = daemon.wait("the publish run the sensor requests", publish_runs, PUBLISHED_WITHIN_S + 60)
            assert publish.tags.get("wove/trigger") == "days landed", publish.tags
            assert publish.tags.get("wove/days") == f"{good}..{good}", publish.tags

            # meanwhile a day whose arXiv refuses (HTTP 404 from an unknown route: not retried)
            refusing = {"resources": {"arxiv": {"config": {"base_url": f"http://{sandbox.host}:{sandbox.port}/gone"}}}}
            failed_backfill = add_asset_backfill(instance, defs.resolve_asset_graph(), DAILY_KEYS, [failed],
                                                 run_config=refusing)

            daemon.wait(f"a paper of {good} in serving.papers", lambda: _serving_ids(database_url) & day_papers,
                        PUBLISHED_WITHIN_S + 60, every=1)
            published_after = time.time() - succeeded_at
            print(f"{good}: a harvested paper in serving {published_after:.1f} s after the day's run succeeded")
            assert published_after < PUBLISHED_WITHIN_S, f"published {published_after:.0f} s after the day's run"
            assert day_papers <= _serving_ids(database_url)
            assert daemon.wait("the publish run to end", lambda: instance.get_run_by_id(publish.run_id).is_finished
                               and instance.get_run_by_id(publish.run_id), 300).is_success

            (failed_run,) = daemon.wait(f"the run of {failed} to fail",
                                        lambda: _finished(instance, failed_backfill, daemon, expect_success=False),
                                        300, every=1)
            assert failed_run.status == dg.DagsterRunStatus.FAILURE
            refusals = [_failure_text(e.dagster_event) for e in
                        instance.all_logs(failed_run.run_id, of_type=dg.DagsterEventType.STEP_FAILURE)]
            assert any("the upstream refused the request" in m for m in refusals), refusals
            failed_at = _end_time(instance, failed_run.run_id)

            def held_said():
                return [t for t in sensor_ticks(instance, "publish_held_on_failed_day")
                        if failed in (t.skip_reason or "") and failed_run.run_id[:8] in t.skip_reason]

            (said, *_) = daemon.wait(f"publish_held_on_failed_day to name {failed}", held_said, 180)
            assert "publish held" in said.skip_reason, said.skip_reason
            print(f"{failed}: {said.skip_reason}")
            # the success sensor has looked again since the failure (it would have seen a success)
            daemon.wait("publish_when_day_lands to tick after the failure", lambda: any(
                t.timestamp > failed_at for t in sensor_ticks(instance, "publish_when_day_lands")), 180)
            after = [r for r in publish_runs() if r.run_id != publish.run_id]
            assert not after, f"a publish followed the failed day {failed}: {[r.tags for r in after]}"
            assert all(failed not in (r.tags.get("wove/days") or "") for r in publish_runs())
    finally:
        sandbox.stop()


@pytest.mark.slow
def test_a_run_killed_in_a_backfill_frees_its_pool_slot_within_a_minute(pg_server, tmp_path):
    victim_file = tmp_path / "victim"
    workspace = workspace_file(tmp_path / "workspace.yaml", "backfill_pools",
                               python_file=Path(_backfill_location.__file__))
    with (fresh_instance(pg_server, tmp_path / "dagster_home", [POOL],
                         extra_env={"WOVE_TEST_VICTIM_FILE": str(victim_file)}) as env,
          Daemon(workspace, env, tmp_path / "daemon.log") as daemon,
          dg.DagsterInstance.get() as instance):
        storage = instance.event_log_storage
        days = _backfill_location.DAYS.get_partition_keys()
        assert len(days) == 3
        backfill_id = add_asset_backfill(instance, _backfill_location.defs.resolve_asset_graph(),
                                         [dg.AssetKey("day_in_pool")], days)

        pid, run_id, day = daemon.wait("a backfill run's step in the pool", lambda: victim_file.exists()
                                       and victim_file.read_text().split(), 300)
        run = instance.get_run_by_id(run_id)
        assert run.tags.get("dagster/backfill") == backfill_id, run.tags
        assert run_id in daemon.wait("its pool slot claimed", storage.get_concurrency_run_ids, 30)
        # another run of the backfill is under way, waiting for the slot
        daemon.wait("a second run of the backfill", lambda: len(backfill_runs(instance, backfill_id)) >= 2, 120)

        os.kill(int(pid), signal.SIGKILL)
        killed_at = time.monotonic()

        def freed():
            return all(slot.run_id != run_id for slot in storage.get_concurrency_info(POOL).claimed_slots)

        daemon.wait("the killed run's slot to be freed", freed, FREED_WITHIN_S + 60)
        freed_after = time.monotonic() - killed_at
        print(f"\nthe pool slot of run {run_id[:8]} ({day}, SIGKILLed in backfill {backfill_id}) "
              f"free {freed_after:.1f} s after the kill")
        assert freed_after < FREED_WITHIN_S, f"slot freed {freed_after:.0f} s after the kill"
        assert instance.get_run_by_id(run_id).status == dg.DagsterRunStatus.FAILURE

        def others_done():
            runs = backfill_runs(instance, backfill_id)
            done = {r.tags.get("dagster/partition"): r for r in runs if r.is_success}
            return set(days) - {day} <= set(done) and done

        started = time.monotonic()
        done = daemon.wait("the backfill's other runs to succeed", others_done, 300, every=1)
        print(f"the backfill's other days {sorted(set(done) - {day})} succeeded "
              f"{time.monotonic() - started:.1f} s after the slot was freed")
