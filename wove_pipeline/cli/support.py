"""What the `wove` commands share: errors a person can cause, told in one line.

``cli.main`` turns every exception a command raises into one line on stderr and a
non-zero exit (``WOVE_DEBUG=1`` re-raises, for the traceback). Commands raise
:class:`CliError` for what they can explain best, and check the serving database's state
with :func:`connect_serving` before reading it, so a database that is missing, never
migrated or never published is named as such instead of failing on an SQL error.
"""

from __future__ import annotations

import json
import re
from typing import Literal

import psycopg
from psycopg import conninfo


class CliError(Exception):
    """An error the person running the command can fix; ``str()`` is the whole message."""

    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(message)
        self.exit_code = exit_code


def one_line(text: str, limit: int = 400) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_url(url: str) -> str:
    """'database D on HOST:PORT' (never the password)."""
    try:
        params = conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "the database (the URL does not parse)"
    host = params.get("host") or "localhost"
    where = f"{host}:{params['port']}" if params.get("port") else host
    return f"database {params.get('dbname') or '(default)'!r} on {where}"


_CONNECT_NOISE = re.compile(r'^(connection failed: )?(connection to server (at "[^"]*", port \d+|on socket "[^"]*") failed: )?')


def _connect_reason(exc: psycopg.OperationalError) -> str:
    first = one_line(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
    return _CONNECT_NOISE.sub("", first).replace("FATAL: ", "")


def connect_serving(url: str, need: Literal["connect", "migrated", "published"] = "published") -> psycopg.Connection:
    """A connection to the serving database, once it is in the state ``need`` asks for:
    migrated (wove's core tables and search functions) or published (the serving tables)."""
    from wove_pipeline.database import access as db
    try:
        conn = db.connect(url)
    except psycopg.OperationalError as exc:
        raise CliError(f"cannot connect to the serving {describe_url(url)}: {_connect_reason(exc)} "
                       "(check WOVE_DATABASE_URL)") from None
    if need == "connect":
        return conn
    try:
        migrated = db.fetch_value(conn, "SELECT to_regclass('wove.schema_migrations')") is not None
        published = migrated and db.fetch_value(conn, "SELECT to_regclass('serving.publication')") is not None
    except BaseException:
        conn.close()
        raise
    if not migrated:
        conn.close()
        raise CliError(f"the serving {describe_url(url)} is not a wove database: no migrations applied "
                       "(`wove db migrate` applies them; or check WOVE_DATABASE_URL)")
    if need == "published" and not published:
        conn.close()
        raise CliError(f"nothing is published in the serving {describe_url(url)} yet: the serving tables "
                       "appear with the first publish (materialize the `serving` asset, or run `wove demo`)")
    return conn


def explain(exc: BaseException) -> str:
    """One line for any exception a command raised."""
    from wove_pipeline.database.backup import BackupError
    if isinstance(exc, CliError):
        return one_line(str(exc))
    if isinstance(exc, BackupError):
        return one_line(str(exc))
    if isinstance(exc, psycopg.OperationalError):
        return f"cannot reach the database: {_connect_reason(exc)}"
    if isinstance(exc, psycopg.Error):
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"database error: {one_line(first)}"
    if isinstance(exc, OSError) and exc.strerror:
        return one_line(f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror)
    if isinstance(exc, json.JSONDecodeError):
        return one_line(f"not valid JSON: {exc}")
    return (f"unexpected error: {type(exc).__name__}: {one_line(str(exc), 300)} "
            "(WOVE_DEBUG=1 shows the traceback)")
