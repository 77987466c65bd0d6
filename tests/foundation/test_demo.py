"""The README's run command, end to end, in a fresh WOVE_HOME: embedded PostgreSQL, the
Dagster instance in PostgreSQL, the sandbox, and a real summary read back."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import psycopg
import pytest

from wove_pipeline.cli.runtime import REPO_ROOT


@pytest.mark.slow
def test_wove_demo_materializes_days_into_papers():
    home = Path(tempfile.mkdtemp(prefix="wove-demo-test-"))
    try:
        _demo_in(home)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _demo_in(home: Path) -> None:
    env = {**os.environ, "WOVE_HOME": str(home)}
    # no XDG_RUNTIME_DIR (cron, containers, ssh without a login session): nothing may warn about it
    for var in ("WOVE_DATABASE_URL", "DAGSTER_PG_URL", "DAGSTER_HOME", "WOVE_DATA_DIR", "XDG_RUNTIME_DIR"):
        env.pop(var, None)
    out = subprocess.run(
        [sys.executable, "-m", "wove_pipeline.cli", "demo", "--days", "2"],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=900,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "wove materialized sandbox days 2025-08-04 .. 2025-08-05" in out.stdout
    # Progress a person can follow: a line per stage on stderr, with its figures and seconds.
    stages = out.stderr
    for pattern in (
        r"\] harvest +arxiv_records: [\d,]+ records \(2 days\) in \d+\.\d s",
        r"\] harvest +papers: [\d,]+ papers \(2 days\) in \d+\.\d s",
        r"\] enrichment +s2_papers: [\d,]+ papers found in Semantic Scholar \(2 days\) in \d+\.\d s",
        r"\] embedding +paper_embeddings \.\.\.",
        r"\] embedding +paper_embeddings: [1-9][\d,]* texts embedded \(2 days\) in \d+\.\d s",
        r"\] matching +researchers: [1-9][\d,]* researchers in \d+\.\d s",
        r"\] publish +serving: [1-9][\d,]* papers published in \d+\.\d s",
        r"\] checks +\d+ of \d+ asset checks passed",
        r"\] done +2 sandbox days through every stage in \d+\.\d s",
    ):
        assert re.search(pattern, stages), f"no line like {pattern!r} in:\n{stages[-3000:]}"
    assert "XDG_RUNTIME_DIR" not in stages and "RuntimeDirWarning" not in stages
    # The run is recorded in the PostgreSQL-backed Dagster instance, and raw Parquet is on disk.
    assert list((home / "data" / "arxiv" / "2025-08-04").glob("*.parquet"))
    from wove_pipeline.database.embedded import EmbeddedPostgres
    server = EmbeddedPostgres(home / "pgdata").start()
    try:
        urls = server.urls()
        with psycopg.connect(urls.serving) as conn:
            papers = conn.execute("SELECT count(*) FROM wove.papers").fetchone()[0]
        with psycopg.connect(urls.dagster.replace("postgresql+psycopg2://", "postgresql://")) as conn:
            runs = conn.execute("SELECT count(*) FROM runs WHERE status = 'SUCCESS'").fetchone()[0]
    finally:
        server.stop()
    assert f"papers {papers:>9,}".split() == [l for l in out.stdout.splitlines() if l.strip().startswith("papers ")][0].split()
    assert papers > 50 and runs >= 1
