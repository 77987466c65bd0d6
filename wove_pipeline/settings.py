"""Every environment variable wove reads or sets, in one place.

Read at call time, never at import (secrets must not freeze into definitions or leak
into snapshots). README.md lists the same variables. What wove sets for itself and the
processes it starts (the variables `wove demo` / `wove ui` / `wove up` export, a private
XDG_RUNTIME_DIR) is set through :func:`export` too, so nothing else touches ``os.environ``.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field
from pathlib import Path


def wove_home() -> Path:
    """Where the embedded default keeps PostgreSQL, raw Parquet and Dagster state."""
    return Path(os.environ.get("WOVE_HOME", Path.cwd() / ".wove")).resolve()


def raw_data_dir() -> str:
    """Raw layer root (Parquet per source and partition): a local folder, or an object-store
    URI such as s3://bucket/prefix, which is passed through untouched."""
    value = os.environ.get("WOVE_DATA_DIR") or str(wove_home() / "data")
    return value if "://" in value else str(Path(value).resolve())


def dagster_home() -> Path:
    """The Dagster instance's folder: DAGSTER_HOME, else <WOVE_HOME>/dagster_home (what
    `wove ui`, `wove up`, `wove demo` and `wove backfill` share)."""
    value = os.environ.get("DAGSTER_HOME")
    return Path(value) if value else wove_home() / "dagster_home"


def configured_database_urls() -> tuple[str | None, str | None]:
    """(WOVE_DATABASE_URL, DAGSTER_PG_URL) as set, None where unset: an external server when
    both are set, the embedded default when neither is (database.embedded)."""
    return os.environ.get("WOVE_DATABASE_URL") or None, os.environ.get("DAGSTER_PG_URL") or None


def serving_database_url() -> str | None:
    """WOVE_DATABASE_URL, the serving database's libpq URL (None when unset)."""
    return configured_database_urls()[0]


def dagster_pg_url() -> str | None:
    """DAGSTER_PG_URL, the Dagster instance database's SQLAlchemy URL (None when unset)."""
    return configured_database_urls()[1]


def debug() -> bool:
    """WOVE_DEBUG=1: commands re-raise errors (the traceback) instead of one line."""
    return os.environ.get("WOVE_DEBUG") == "1"


def pg_bin_dir() -> Path | None:
    """WOVE_PG_BIN: the folder of pg_dump / pg_restore / psql for an external server."""
    value = os.environ.get("WOVE_PG_BIN")
    return Path(value) if value else None


def environment_without_libpq() -> dict[str, str]:
    """This process's environment less every PG* variable, for a PostgreSQL tool the caller
    then gives exactly the connection parameters it means (database.backup)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PG")}


def child_environment(**extra: str) -> dict[str, str]:
    """This process's environment with ``extra`` on top, for a child process."""
    return {**os.environ, **extra}


def runtime_dir() -> str:
    """XDG_RUNTIME_DIR as set ('' when unset)."""
    return os.environ.get("XDG_RUNTIME_DIR", "")


def export(values: dict[str, str]) -> None:
    """Set variables for this process and every process it starts: the database URLs, the
    raw layer, DAGSTER_HOME and the sandbox's upstream URLs the resources read (cli.runtime),
    the sandbox's partition window, a private XDG_RUNTIME_DIR (database.embedded)."""
    os.environ.update(values)


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


# The partition window (wove_pipeline.partitions): where this deployment's history begins, and
# optionally its last day (default: today, growing every day).
PARTITIONS_START = "2025-01-01"
PARTITIONS_START_VAR = "WOVE_PARTITIONS_START"
PARTITIONS_END_VAR = "WOVE_PARTITIONS_END"


def _day(var: str, default: str | None) -> dt.date | None:
    value = os.environ.get(var) or default
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value.strip())
    except ValueError:
        raise ValueError(f"{var}={value!r} is not a day (YYYY-MM-DD)") from None


def partitions_window() -> tuple[dt.date, dt.date | None]:
    """(first day, last day or None) of the daily partitions."""
    start = _day(PARTITIONS_START_VAR, PARTITIONS_START)
    last = _day(PARTITIONS_END_VAR, None)
    if last is not None and last < start:
        raise ValueError(f"{PARTITIONS_END_VAR}={last} is before {PARTITIONS_START_VAR}={start}")
    return start, last


@dataclass(frozen=True)
class UpstreamKeys:
    """The upstreams' API keys, None where unset. Kept out of every repr, so a key printed by
    accident shows as ``UpstreamKeys()``; the clients hand them to the HTTP layer as secrets."""

    s2: str | None = field(default=None, repr=False)  # S2_API_KEY
    openalex: str | None = field(default=None, repr=False)  # OPENALEX_API_KEY


def upstream_keys() -> UpstreamKeys:
    """S2_API_KEY and OPENALEX_API_KEY, read when a run's client is made (never at import, so
    no key reaches the definitions or their snapshots)."""
    return UpstreamKeys(s2=os.environ.get("S2_API_KEY") or None, openalex=os.environ.get("OPENALEX_API_KEY") or None)


def force_offline_model_loading() -> None:
    """Hugging Face libraries load models offline (HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE, unless
    set): the embedding model's weights are local and there is no route to the Hub anyway."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
