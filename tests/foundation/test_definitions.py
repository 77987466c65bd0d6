import dagster as dg

from wove_pipeline.definitions import defs


def test_definitions_load_and_validate():
    dg.Definitions.validate_loadable(defs)
    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert {"arxiv_records", "papers"} <= keys
    # papers depends on the raw harvest
    assert dg.AssetKey("arxiv_records") in graph.get(dg.AssetKey("papers")).parent_keys


def test_every_asset_is_grouped_described_and_kinded():
    for node in defs.resolve_asset_graph().asset_nodes:
        spec = node.to_asset_spec()
        assert spec.group_name and spec.group_name != "default", spec.key
        assert spec.description, spec.key
        assert spec.kinds, spec.key


def test_daily_schedule_targets_the_previous_day():
    ctx = dg.build_schedule_context(scheduled_execution_time=__import__("datetime").datetime(2025, 8, 9, 6, 0))
    schedule = defs.resolve_schedule_def("daily_harvest_schedule")
    requests = list(schedule.evaluate_tick(ctx).run_requests)
    assert [r.partition_key for r in requests] == ["2025-08-08"]


def test_dagster_yaml_is_a_valid_instance_config(tmp_path, monkeypatch):
    import shutil

    from dagster._core.instance.config import dagster_instance_config

    from wove_pipeline.cli.runtime import REPO_ROOT
    shutil.copyfile(REPO_ROOT / "dagster.yaml", tmp_path / "dagster.yaml")
    monkeypatch.setenv("DAGSTER_PG_URL", "postgresql+psycopg2://u:p@127.0.0.1:1/dagster")
    config, _ = dagster_instance_config(str(tmp_path))
    assert config["concurrency"]["pools"]["default_limit"] == 1
    assert config["run_retries"]["enabled"] is True
    assert config["run_monitoring"]["enabled"] is True


def test_every_job_and_schedule_is_described_and_the_docs_name_them_right():
    import re

    from wove_pipeline.cli.runtime import REPO_ROOT
    schedules = {s.name: s for s in defs.schedules}
    for job in defs.jobs:
        assert job.description, job.name
    for name, schedule in schedules.items():
        assert schedule.description, name
    # every `..._schedule` or schedule name the docs mention in backticks is a real one
    for doc in ("docs/scale-out.md", "docs/reliability.md", "README.md"):
        text = (REPO_ROOT / doc).read_text()
        for named in re.findall(r"`([a-z_]+)` schedule", text) + re.findall(r"`([a-z_]+_schedule)`", text):
            assert named in schedules, (doc, named)
