"""Every environment variable wove reads, in one place.

Read at call time, never at import (secrets must not freeze into definitions or leak
into snapshots). README.md lists the same variables.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def wove_home() -> Path:
    """Where the embedded default keeps PostgreSQL, raw Parquet and Dagster state."""
    return Path(os.environ.get("WOVE_HOME", Path.cwd() / ".wove")).resolve()


def raw_data_dir() -> str:
    """Raw layer root (Parquet per source and partition): a local folder, or an object-store
    URI such as s3://bucket/prefix, which is passed through untouched."""
    value = os.environ.get("WOVE_DATA_DIR") or str(wove_home() / "data")
    return value if "://" in value else str(Path(value).resolve())


@dataclass(frozen=True)
class UpstreamSettings:
    arxiv_oai_url: str
    s2_api_url: str
    openalex_api_url: str
    arxiv_min_interval_s: float
    s2_min_interval_s: float
    openalex_min_interval_s: float


def upstream_settings() -> UpstreamSettings:
    return UpstreamSettings(
        arxiv_oai_url=os.environ.get("ARXIV_OAI_URL", "https://oaipmh.arxiv.org/oai"),
        s2_api_url=os.environ.get("S2_API_URL", "https://api.semanticscholar.org/graph/v1"),
        openalex_api_url=os.environ.get("OPENALEX_API_URL", "https://api.openalex.org"),
        # arXiv asks for one request every 3 s; the sandbox sets 0.
        arxiv_min_interval_s=float(os.environ.get("ARXIV_MIN_INTERVAL_S") or 3),
        # A Semantic Scholar key gets 1 request/s; OpenAlex allows 100 requests/s on every plan.
        s2_min_interval_s=float(os.environ.get("S2_MIN_INTERVAL_S") or 1),
        openalex_min_interval_s=float(os.environ.get("OPENALEX_MIN_INTERVAL_S") or 0.01),
    )
