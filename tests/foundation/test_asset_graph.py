"""The asset graph, as a snapshot reviewed with every change to it.

``describe()`` writes down what ``wove_pipeline.definitions.defs`` builds: for every asset its
upstream keys, partitions (type, first day, cron, timezone; never the last day), partition
mappings, group, kinds, tags, owners, pools, code version, automation condition, backfill and
freshness policies and the op that materializes it; the asset checks (asset, name, blocking,
extra deps, op); the ops that run several keys; the jobs (selected assets and checks,
partitions), schedules (cron, timezone, job, default status), sensors (type, run status, jobs
requested and monitored), the resources (key and class) and the executor. Descriptions,
metadata values and module paths are left out: moving code must not change the snapshot.

It is built in a fresh interpreter with a fixed environment (no ``WOVE_*`` variable but an
unreachable database URL and a throwaway WOVE_HOME): the same whatever the day, the shell or
earlier tests; loading the definitions needs no database.

The committed snapshot is ``asset_graph.json`` beside this file. After a deliberate change to
the graph, rewrite it and review the diff:

    WOVE_UPDATE_SNAPSHOT=1 .venv/bin/pytest tests/foundation/test_asset_graph.py
    # or: .venv/bin/python -m tests.foundation.test_asset_graph
"""

from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = Path(__file__).with_name("asset_graph.json")
UPDATE_VAR = "WOVE_UPDATE_SNAPSHOT"
REWRITE = f"{UPDATE_VAR}=1 .venv/bin/pytest {Path(__file__).relative_to(ROOT).as_posix()}"


# --- what the snapshot holds (runs in the child interpreter) ------------------------------


def _key(key) -> str:
    return key.to_user_string()


def _check(key) -> str:
    return f"{key.asset_key.to_user_string()}:{key.name}"


def _partitions(pd) -> dict | None:
    if pd is None:
        return None
    import dagster as dg

    if isinstance(pd, dg.TimeWindowPartitionsDefinition):
        # The first day only: the last one follows WOVE_PARTITIONS_END or today.
        return {
            "type": "TimeWindowPartitionsDefinition",
            "start": pd.start.isoformat(),
            "cron_schedule": pd.cron_schedule,
            "timezone": pd.timezone,
            "fmt": pd.fmt,
            "end_offset": pd.end_offset,
        }
    if isinstance(pd, dg.StaticPartitionsDefinition):
        return {"type": "StaticPartitionsDefinition", "keys": list(pd.get_partition_keys())}
    return {"type": type(pd).__name__, "repr": repr(pd)}


def _condition(condition) -> str | None:
    if condition is None:
        return None
    return condition.get_label() or str(condition)


def _freshness(policy) -> str | None:
    if policy is None:
        return None
    windows = {name: getattr(policy, name, None) for name in ("fail_window", "warn_window")}
    if all(w is not None for w in windows.values()):
        parts = ", ".join(f"{name}={w.to_timedelta().total_seconds():g}s" if hasattr(w, "to_timedelta")
                          else f"{name}={w}" for name, w in windows.items())
        return f"{type(policy).__name__}({parts})"
    return repr(policy)


def describe() -> dict:
    """The asset graph of ``wove_pipeline.definitions.defs`` as sorted, JSON-ready data."""
    from wove_pipeline.definitions import defs

    graph = defs.resolve_asset_graph()
    repo = defs.get_repository_def()

    op_of = {}
    ops = {}
    for assets_def in graph.assets_defs:
        if not assets_def.is_executable:
            continue
        name = assets_def.node_def.name
        for key in assets_def.keys:
            op_of[_key(key)] = name
        for key in assets_def.check_keys:
            op_of[_check(key)] = name
        entities = sorted(map(_key, assets_def.keys)) + sorted(map(_check, assets_def.check_keys))
        if len(entities) > 1 or assets_def.can_subset:
            ops[name] = {"keys": entities, "can_subset": assets_def.can_subset}

    assets = {}
    for node in graph.asset_nodes:
        key = _key(node.key)
        assets[key] = {
            "deps": sorted(map(_key, node.parent_keys)),
            "partitions": _partitions(node.partitions_def),
            "partition_mappings": {_key(k): repr(v) for k, v in sorted(node.partition_mappings.items(),
                                                                         key=lambda kv: _key(kv[0]))},
            "group": node.group_name,
            "kinds": sorted(node.kinds),
            "tags": dict(sorted(node.tags.items())),
            "owners": sorted(node.owners),
            "pools": sorted(node.pools),
            "code_version": node.code_version,
            "automation_condition": _condition(node.automation_condition),
            "backfill_policy": str(node.backfill_policy) if node.backfill_policy else None,
            "freshness_policy": _freshness(node.freshness_policy),
            "metadata_keys": sorted(node.metadata),
            "execution_type": node.execution_type.value,
            "op": op_of.get(key),
        }

    checks = {}
    for check_key in graph.asset_check_keys:
        spec = graph.get_check_spec(check_key)
        checks[_check(check_key)] = {
            "asset": _key(spec.asset_key),
            "name": spec.name,
            "blocking": spec.blocking,
            "additional_deps": sorted(_key(dep.asset_key) for dep in spec.additional_deps),
            "automation_condition": _condition(spec.automation_condition),
            "partitions": _partitions(spec.partitions_def),
            "op": op_of.get(_check(check_key)),
        }

    jobs = {}
    for job in defs.jobs:
        resolved = repo.get_job(job.name)
        selection = getattr(job, "selection", None)
        if selection is None:  # an op job (the full re-match by shard): its ops in graph order
            jobs[job.name] = {
                "ops": [node.name for node in resolved.graph.nodes_in_topological_order],
                "tags": dict(sorted((job.tags or {}).items())),
                "executor": resolved.executor_def.name,
            }
            continue
        jobs[job.name] = {
            "assets": sorted(map(_key, selection.resolve(graph))),
            "checks": sorted(map(_check, selection.resolve_checks(graph))),
            "partitions": _partitions(resolved.partitions_def),
            "tags": dict(sorted((job.tags or {}).items())),
            "run_tags": dict(sorted((getattr(job, "run_tags", None) or {}).items())),
            "executor": resolved.executor_def.name,
        }

    schedules = {
        schedule.name: {
            "cron": schedule.cron_schedule,
            "timezone": schedule.execution_timezone,
            "job": schedule.job_name,
            "default_status": schedule.default_status.value,
        }
        for schedule in repo.schedule_defs
    }

    sensors = {}
    for sensor in repo.sensor_defs:
        monitored = getattr(sensor, "_monitored_jobs", None) or []
        run_status = getattr(sensor, "run_status", None) or getattr(sensor, "_run_status", None)
        sensors[sensor.name] = {
            "type": sensor.sensor_type.value,
            "jobs": sorted(target.job_name for target in sensor.targets),
            "run_status": run_status.value if run_status is not None else None,
            "monitored_jobs": sorted(getattr(j, "name", str(j)) for j in monitored),
            "asset_selection": repr(sensor.asset_selection) if sensor.asset_selection is not None else None,
            "minimum_interval_seconds": sensor.minimum_interval_seconds,
            "default_status": sensor.default_status.value,
        }

    return {
        "assets": dict(sorted(assets.items())),
        "asset_checks": dict(sorted(checks.items())),
        "multi_key_ops": dict(sorted(ops.items())),
        "jobs": dict(sorted(jobs.items())),
        "schedules": dict(sorted(schedules.items())),
        "sensors": dict(sorted(sensors.items())),
        "resources": {name: type(value).__name__ for name, value in sorted(defs.resources.items())},
        "executor": defs.executor.name if defs.executor is not None else None,
    }


def render(data: dict) -> str:
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


# --- the test ---------------------------------------------------------------------------------


def _env(home: str, hash_seed: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WOVE_")}
    env.update({
        "PYTHONHASHSEED": hash_seed,
        "HF_HUB_OFFLINE": "1",
        "WOVE_HOME": home,
        # Loading the definitions must not need a database: point at one that is not there.
        "WOVE_DATABASE_URL": "postgresql://nobody@127.0.0.1:9/none",
        **extra,
    })
    return env


def _render_in_child(envs: list[dict[str, str]]) -> list[str]:
    """The snapshot, built in a fresh interpreter per environment (run side by side)."""
    code = "import sys; from tests.foundation.test_asset_graph import describe, render; sys.stdout.write(render(describe()))"
    children = [subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE) for env in envs]
    outputs = []
    for child in children:
        out, err = child.communicate(timeout=300)
        if child.returncode != 0:
            pytest.fail(f"loading wove_pipeline.definitions to build the snapshot failed:\n{err}", pytrace=False)
        outputs.append(out)
    return outputs


def build_snapshot() -> str:
    """The snapshot as the test builds it: twice, in fresh interpreters with other hash seeds
    and another last partition day, which must agree."""
    with tempfile.TemporaryDirectory(prefix="wove-graph-") as home:
        first, second = _render_in_child([
            _env(home, "0"),
            _env(home, "1", WOVE_PARTITIONS_END="2025-06-30"),
        ])
    assert first == second, (
        "the snapshot is not stable (set order, the partitions' last day or the hash seed leak in):\n"
        + "".join(difflib.unified_diff(first.splitlines(True), second.splitlines(True), "run 1", "run 2")))
    return first


def test_asset_graph_matches_the_snapshot():
    now = build_snapshot()
    if os.environ.get(UPDATE_VAR) == "1":
        SNAPSHOT.write_text(now)
        return
    if not SNAPSHOT.exists():
        pytest.fail(f"no snapshot at {SNAPSHOT.relative_to(ROOT)}: write it with `{REWRITE}`", pytrace=False)
    committed = SNAPSHOT.read_text()
    if committed != now:
        diff = "".join(difflib.unified_diff(committed.splitlines(True), now.splitlines(True),
                                            f"{SNAPSHOT.name} (committed)", "asset graph (now)"))
        pytest.fail(
            "The asset graph differs from the committed snapshot (- committed, + now).\n"
            "If the change is deliberate, rewrite the snapshot and commit it with the change:\n"
            f"    {REWRITE}\n\n{diff}", pytrace=False)


if __name__ == "__main__":
    # .venv/bin/python -m tests.foundation.test_asset_graph: rewrite the snapshot (as the variable does)
    SNAPSHOT.write_text(build_snapshot())
    print(f"wrote {SNAPSHOT.relative_to(ROOT)}")
