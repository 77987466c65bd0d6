"""What the researchers tests share: the sandbox serving each module's own ``world`` fixture,
and the resources the stage's assets run with."""

import datetime as dt

import pytest

from wove_pipeline.resources import ArxivResource, DatabaseResource, RawStoreResource
from wove_pipeline.resources.enrichment import OpenAlexResource, SemanticScholarResource


@pytest.fixture
def env(database_url, world, tmp_path, monkeypatch):
    from wove_pipeline.cli.runtime import sandbox_env, start_sandbox
    server = start_sandbox(world, today=world.end_day + dt.timedelta(days=70))
    for key, value in sandbox_env(server).items():
        monkeypatch.setenv(key, value)
    resources = {
        "database": DatabaseResource(url=database_url),
        "raw_store": RawStoreResource(root=str(tmp_path / "raw")),
        "arxiv": ArxivResource(),
        "s2": SemanticScholarResource(backoff_initial_s=0.01, backoff_max_s=0.05),
        "openalex": OpenAlexResource(backoff_initial_s=0.01, backoff_max_s=0.05),
    }
    yield database_url, resources
    server.stop()
