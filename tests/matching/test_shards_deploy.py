"""The re-match's deployment files are valid: the Kubernetes run config fits the job's config
schema (the k8s executor's part where dagster-k8s is installed, as in the image)."""

import importlib.util
from pathlib import Path

import dagster as dg
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def _run_config() -> dict:
    return yaml.safe_load((ROOT / "deploy" / "rematch-k8s.yaml").read_text())


def test_the_k8s_run_config_fits_the_rematch_ops(monkeypatch):
    monkeypatch.setenv("WOVE_DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")  # validated, never used
    from wove_pipeline.definitions import defs

    config = _run_config()
    job = defs.get_job_def("full_rematch")
    local = {"ops": config["ops"], "execution": {"config": {"max_concurrent": config["execution"]["config"]["max_concurrent"]}}}
    assert dg.validate_run_config(job, local)


@pytest.mark.skipif(importlib.util.find_spec("dagster_k8s") is None, reason="dagster-k8s is installed in the image only")
def test_the_k8s_run_config_fits_the_k8s_job(monkeypatch):
    monkeypatch.setenv("WOVE_DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")
    from wove_pipeline.definitions import defs

    assert dg.validate_run_config(defs.get_job_def("full_rematch_k8s"), _run_config())
