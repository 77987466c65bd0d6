"""What an operator meets in the UI: the days the partition definition offers and the
launchpad's scaffold."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from wove_pipeline import partitions
from wove_pipeline.cli.runtime import REPO_ROOT, sandbox_partitions_env


def test_partitions_default_from_2025_and_growing(monkeypatch):
    monkeypatch.delenv(partitions.START_VAR, raising=False)
    monkeypatch.delenv(partitions.END_VAR, raising=False)
    keys = partitions.build_daily_partitions().get_partition_keys()
    assert keys[0] == "2025-01-01" and len(keys) > 300


def test_sandbox_partitions_are_the_worlds_days(monkeypatch, small_world):
    for var, value in sandbox_partitions_env(small_world).items():
        monkeypatch.setenv(var, value)
    keys = partitions.build_daily_partitions().get_partition_keys()
    days = sorted({p.datestamp.isoformat() for p in small_world.papers})
    assert keys[0] == small_world.start_day.isoformat() == days[0]
    assert keys[-1] == small_world.end_day.isoformat() == days[-1]
    assert len(keys) == (small_world.end_day - small_world.start_day).days + 1 == 8
    # a launch dialog's "last 90 days" now takes every sandbox day
    assert set(days) <= set(keys[-90:])


def test_a_bad_partition_day_is_named(monkeypatch):
    monkeypatch.setenv(partitions.START_VAR, "2025-13-01")
    with pytest.raises(ValueError, match="WOVE_PARTITIONS_START"):
        partitions.build_daily_partitions()
    monkeypatch.setenv(partitions.START_VAR, "2025-08-10")
    monkeypatch.setenv(partitions.END_VAR, "2025-08-01")
    with pytest.raises(ValueError, match="before"):
        partitions.build_daily_partitions()


def test_code_location_loads_the_configured_days():
    """What `wove ui` hands dagster dev reaches the code location's jobs and assets."""
    env = {**os.environ, partitions.START_VAR: "2025-08-04", partitions.END_VAR: "2025-08-13"}
    code = ("import json; from wove_pipeline.definitions import defs; "
            "keys = defs.resolve_job_def('daily_harvest').partitions_def.get_partition_keys(); "
            "a = defs.resolve_assets_def('papers').partitions_def.get_partition_keys(); "
            "print(json.dumps([keys[0], keys[-1], len(keys), a == keys]))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == ["2025-08-04", "2025-08-13", 10, True]


def test_launchpad_scaffold_shows_export_dir():
    """The launchpad starts from the config schema's defaults (rootDefaultYaml): a field
    without a default (export_dir was `str | None = None`) is not in it."""
    import yaml
    from dagster._core.snap.snap_to_yaml import default_values_yaml_from_type_snap

    from wove_pipeline.definitions import defs
    snap = defs.resolve_job_def("publish").get_job_snapshot()
    schema = snap.config_schema_snapshot
    root = schema.get_config_snap(snap.mode_def_snaps[0].root_config_key)
    scaffold = yaml.safe_load(default_values_yaml_from_type_snap(schema, root))
    assert scaffold["ops"]["serving"]["config"]["export_dir"] == ""
