"""Security of the embedded default: every connection authenticates with a password
(scram-sha-256), the generated secret lives in a 0600 file under WOVE_HOME and is never
printed, and the read-only role cannot create temporary tables."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from psycopg import conninfo, sql

from wove_pipeline.database.migrations import migrate
from wove_pipeline.serving import publish as serving

from ..conftest import url_for

ROOT = Path(__file__).resolve().parents[2]


def _as(url: str, user: str, password: str | None = None, *, passfile: bool = True) -> str:
    """`url` (the superuser's) for another user / password, keeping the socket."""
    params = conninfo.conninfo_to_dict(url)
    params["user"] = user
    params.pop("password", None)
    if password is not None:
        params["password"] = password
    if not passfile:
        params.pop("passfile", None)
    return conninfo.make_conninfo("", **params)


@pytest.fixture
def reader_login(pg_server):
    """(name, password) of a login in wove_reader (the role made by migration 0005)."""
    name, password = f"site_reader_{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'wove_reader')"
                     " THEN CREATE ROLE wove_reader NOLOGIN; END IF; END $$")
        serving.create_reader_login(conn, name, password)
    yield name, password
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(name)))


def test_a_wrong_password_or_none_is_refused(pg_server, reader_login):
    name, password = reader_login
    admin = url_for(pg_server.admin_url, "wove_template")
    with psycopg.connect(_as(admin, name, password)) as conn:
        assert conn.execute("SELECT current_user").fetchone()[0] == name
    refused = [
        _as(admin, name, "wrong-" + password),  # a wrong password as the reader
        _as(admin, name),  # no password at all
        _as(admin, "postgres", "wrong", passfile=False),  # the superuser without its password file
        _as(admin, "postgres", passfile=False),
    ]
    for url in refused:
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(url, connect_timeout=10).close()
    # pg_hba.conf allows no trust, peer or ident line, on the socket or over TCP
    with psycopg.connect(admin) as conn:
        methods = conn.execute("SELECT type, auth_method FROM pg_hba_file_rules WHERE error IS NULL").fetchall()
    assert {m for _, m in methods} == {"scram-sha-256"}
    assert {t for t, _ in methods} >= {"local", "host"}


def test_the_reader_cannot_create_temporary_tables(pg_server, reader_login):
    name, password = reader_login
    database = f"t_temp_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    url = url_for(pg_server.admin_url, database)
    try:
        migrate(url)  # a fresh serving database, as `wove db migrate` makes it on any server
        with psycopg.connect(_as(url, name, password), autocommit=True) as conn:
            assert conn.execute("SELECT count(*) FROM information_schema.schemata"
                                " WHERE schema_name = 'serving'").fetchone()[0] == 1
            for statement in ("CREATE TEMP TABLE evil (x int)", "CREATE TEMPORARY TABLE evil AS SELECT 1 AS x",
                              "CREATE TEMP VIEW evil AS SELECT 1", "CREATE TEMP SEQUENCE evil"):
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute(statement)
        with psycopg.connect(url, autocommit=True) as conn:  # the pipeline's role keeps TEMP
            conn.execute("CREATE TEMP TABLE mine (x int)")
    finally:
        with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(database)))


def test_the_embedded_databases_keep_the_reader_to_serving_without_temp(pg_server, reader_login):
    name, password = reader_login
    urls = pg_server.ensure_databases()  # what every start of the embedded default runs
    with psycopg.connect(_as(urls.serving, name, password), autocommit=True) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("CREATE TEMP TABLE evil (x int)")
    dagster = urls.dagster.replace("postgresql+psycopg2://", "postgresql://")
    for url in (dagster, pg_server.admin_url):  # the instance's and the maintenance database
        with pytest.raises(psycopg.OperationalError, match="permission denied"):
            psycopg.connect(_as(url, name, password)).close()


def _wove(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items()
            if k not in ("WOVE_DATABASE_URL", "DAGSTER_PG_URL", "DAGSTER_HOME", "WOVE_DATA_DIR")}
    full.update(WOVE_HOME=str(home), **env)
    return subprocess.run([sys.executable, "-m", "wove_pipeline.cli", *args], cwd=ROOT, env=full,
                          capture_output=True, text=True, timeout=300)


def test_the_generated_secret_is_private_and_never_printed(tmp_path):
    home = Path(f"/tmp/wove-sec-{uuid.uuid4().hex[:8]}")  # under /tmp: see README, running as root
    try:
        first = _wove(home, "db")
        assert first.returncode == 0, first.stderr[-2000:]
        passfile = home / "secrets" / "pgpass"
        assert stat.S_IMODE(passfile.stat().st_mode) == 0o600
        assert stat.S_IMODE(passfile.parent.stat().st_mode) == 0o700
        password = passfile.read_text().strip().rsplit(":", 1)[1]
        assert len(password) >= 32
        urls = json.loads(first.stdout[first.stdout.index("{"):])
        # `wove db` stops the server it started; this process holds it up for the rest
        from wove_pipeline.database.embedded import EmbeddedPostgres
        server = EmbeddedPostgres(home / "pgdata").start()
        try:
            # the printed URLs work as they are (the password comes from the file)
            with psycopg.connect(urls["serving"]) as conn:
                assert conn.execute("SELECT current_database()").fetchone()[0] == "wove"
            second = _wove(home, "db")  # a restart reuses the secret
            assert second.returncode == 0, second.stderr[-2000:]
            assert passfile.read_text().strip().rsplit(":", 1)[1] == password
            # the same URLs with the password written in, as for an external server: printed masked
            with_password = {k: v.replace("postgres@/", f"postgres:{password}@/").split("&passfile=")[0]
                             for k, v in urls.items()}
            external = _wove(home, "db", WOVE_DATABASE_URL=with_password["serving"],
                             DAGSTER_PG_URL=with_password["dagster"])
        finally:
            server.stop()
        assert external.returncode == 0, external.stderr[-2000:]
        assert "***" in external.stdout
        for out in (first, second, external):
            assert password not in out.stdout + out.stderr
        # nor in any file wove wrote outside the password file (server log, Dagster home, ...)
        for path in home.rglob("*"):
            if path.is_file() and path != passfile and not path.name.startswith(".lock"):
                assert password.encode() not in path.read_bytes(), path
    finally:
        subprocess.run(["rm", "-rf", str(home)], check=False)


def test_mask_url_hides_passwords_in_both_places():
    from wove_pipeline.database.embedded import mask_url
    assert mask_url("postgresql://u:s3cret@db.example:5432/wove") == "postgresql://u:***@db.example:5432/wove"
    assert mask_url("postgresql+psycopg2://u:s3cret@/dagster?host=/tmp/x") == "postgresql+psycopg2://u:***@/dagster?host=/tmp/x"
    assert mask_url("postgresql://u@/wove?host=/s&password=s3cret") == "postgresql://u@/wove?host=/s&password=***"
    assert mask_url("postgresql://u@/wove?host=/s&passfile=/p") == "postgresql://u@/wove?host=/s&passfile=/p"
