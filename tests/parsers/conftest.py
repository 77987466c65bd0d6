"""Shared fixtures for the parser tests: the real upstream recordings in shared/."""

import json
from pathlib import Path

import pytest

# shared/ lives beside the repository root (/work/shared next to /work/main).
SAMPLES_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "upstream-samples"


@pytest.fixture(scope="session")
def samples_dir() -> Path:
    if not SAMPLES_DIR.is_dir():
        pytest.skip(f"upstream samples not found at {SAMPLES_DIR}")
    return SAMPLES_DIR


@pytest.fixture(scope="session")
def load_json(samples_dir):
    def load(rel: str):
        return json.loads((samples_dir / rel).read_text(encoding="utf-8"))

    return load


@pytest.fixture(scope="session")
def load_bytes(samples_dir):
    def load(rel: str) -> bytes:
        return (samples_dir / rel).read_bytes()

    return load
