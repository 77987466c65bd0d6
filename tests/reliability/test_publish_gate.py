"""Publish driven by the data (issue 23): a failed daily run is never followed by a publish
of its day, by the sensor or by the 08:00 catch-up, and each says which day holds it; a good
day's run requests the publish itself, and its papers reach serving with no clock involved.

The sensors and the schedule are evaluated with Dagster's test helpers against an instance
that holds real runs (the daemon evaluates the same functions)."""

from __future__ import annotations

import datetime as dt

import dagster as dg
import psycopg
import pytest

from wove_pipeline.cli.runner import run_days, run_job
from wove_pipeline.definitions import DAILY_KEYS, defs
from wove_pipeline.partitions import daily_partitions


@dg.asset(name="papers", partitions_def=daily_partitions)
def broken_papers() -> None:
    """Stands in for a daily run that fails (the real assets' retry policies wait minutes)."""
    raise RuntimeError("upstream refused every request")


@dg.asset(name="papers", partitions_def=daily_partitions)
def papers_alone() -> None:
    """A run that materializes one daily asset of a day, not the whole day."""


def _event(instance: dg.DagsterInstance, run_id: str, kind: dg.DagsterEventType) -> dg.DagsterEvent:
    (record,) = instance.all_logs(run_id, of_type=kind)
    return record.dagster_event


def _sensor(name: str, instance: dg.DagsterInstance, run_id: str, kind: dg.DagsterEventType):
    sensor = defs.resolve_sensor_def(name)
    run = instance.get_run_by_id(run_id)
    context = dg.build_run_status_sensor_context(sensor_name=name, dagster_event=_event(instance, run_id, kind),
                                                 dagster_instance=instance, dagster_run=run)
    return sensor(context)


def _catch_up(instance: dg.DagsterInstance):
    schedule = defs.resolve_schedule_def("publish_daily")
    context = dg.build_schedule_context(instance=instance,
                                        scheduled_execution_time=dt.datetime(2030, 1, 2, 8, 0, tzinfo=dt.timezone.utc))
    return schedule(context)


def _serving_ids(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        exists = conn.execute("SELECT to_regclass('serving.papers')").fetchone()[0]
        return {r[0] for r in conn.execute("SELECT arxiv_id FROM serving.papers")} if exists else set()


@pytest.fixture
def instance():
    # persistent (a schedule's context reopens it from its reference); SQLite in a temp folder
    with dg.instance_for_test() as inst:
        yield inst


def test_a_failed_day_holds_every_publish_and_a_good_day_publishes_itself(pipeline_env, small_world, instance):
    url = pipeline_env["WOVE_DATABASE_URL"]
    day = small_world.start_day
    key = day.isoformat()
    # the publish schedule is no clock any more: no failure, nothing to hold, it catches up
    assert isinstance(_catch_up(instance), dg.RunRequest)

    failed = dg.materialize([broken_papers], partition_key=key, instance=instance, raise_on_error=False)
    assert not failed.success
    # nothing publishes the failed day: not the failure sensor, not the catch-up; both say why
    said = _sensor("publish_held_on_failed_day", instance, failed.run_id, dg.DagsterEventType.RUN_FAILURE)
    held = _catch_up(instance)
    for answer in (said, held):
        assert isinstance(answer, dg.SkipReason), answer
        assert key in answer.skip_message and failed.run_id[:8] in answer.skip_message
        assert "publish held" in answer.skip_message

    # the day re-run, successfully: the success sensor asks for the publish, itself
    good = run_days("daily_harvest", day, day, instance)
    assert good.success
    request = _sensor("publish_when_day_lands", instance, good.run_id, dg.DagsterEventType.RUN_SUCCESS)
    assert isinstance(request, dg.RunRequest), request
    assert request.tags["wove/days"] == f"{key}..{key}"
    assert defs.resolve_sensor_def("publish_when_day_lands").job_name == "publish"
    assert not _serving_ids(url)  # nothing was published before the request
    assert run_job("publish", instance).success
    day_papers = {p.arxiv_id for p in small_world.papers if p.datestamp == day}
    assert day_papers and day_papers <= _serving_ids(url)
    # the publish run's own success requests nothing (no loop)
    publish_run = instance.get_runs(dg.RunsFilter(job_name="publish"))[0]
    again = _sensor("publish_when_day_lands", instance, publish_run.run_id, dg.DagsterEventType.RUN_SUCCESS)
    assert isinstance(again, dg.SkipReason)
    assert isinstance(_catch_up(instance), dg.RunRequest)  # the re-run cleared the hold


def test_a_run_of_part_of_the_day_does_not_publish(instance):
    """Only days with every daily asset materialized are published (e.g. a harvest-only backfill)."""
    ok = dg.materialize([papers_alone], partition_key="2025-08-04", instance=instance)
    answer = _sensor("publish_when_day_lands", instance, ok.run_id, dg.DagsterEventType.RUN_SUCCESS)
    assert isinstance(answer, dg.SkipReason) and "not every daily asset" in answer.skip_message
    assert len(DAILY_KEYS) > 2
