"""Backup and restore with pg_dump / pg_restore: back up, damage, restore, rows identical."""

from __future__ import annotations

import uuid

import psycopg
import pytest
from psycopg import sql

from tests.conftest import url_for
from wove_pipeline.cli import main as wove_main
from wove_pipeline.database.backup import BackupError, restore
from wove_pipeline.serving import publish as serving
from wove_pipeline.upstream.raw_store import RawStore

from .conftest import CORE_TABLES, compare_tables, harvest_and_load, table_rows, world_days

SERVED = {"serving.papers": "arxiv_id", "serving.publication": "publication_id"}


def _state(url):
    rows = table_rows(url, {**CORE_TABLES, **SERVED})
    with psycopg.connect(url) as conn:
        # Table grants in serving, and the schema gate (wove_reader may use serving, never wove).
        # (Tables in wove carry SELECT for wove_reader through the default privileges of 0005;
        # without USAGE on the schema they stay unreadable: the gate is what counts.)
        grants = conn.execute(
            "SELECT table_schema, table_name, privilege_type FROM information_schema.role_table_grants"
            " WHERE grantee = 'wove_reader' AND table_schema = 'serving' ORDER BY 1, 2, 3").fetchall()
        grants.append(conn.execute("SELECT has_schema_privilege('wove_reader', 'serving', 'USAGE'),"
                                   " has_schema_privilege('wove_reader', 'wove', 'USAGE')").fetchone())
    return rows, grants


def test_backup_damage_restore_gives_identical_rows(database_url, sandbox, small_world, tmp_path, monkeypatch,
                                                    pg_server, figures):
    harvest_and_load(database_url, sandbox, RawStore(tmp_path / "raw"), world_days(small_world)[:2])
    with psycopg.connect(database_url, autocommit=True) as conn:
        serving.publish(conn)
    before_rows, before_grants = _state(database_url)
    assert before_rows["wove.papers"] and before_rows["serving.papers"] and before_grants

    monkeypatch.setenv("WOVE_DATABASE_URL", database_url)
    dump = tmp_path / "backups" / "wove.dump"
    assert wove_main(["backup", str(dump)]) == 0
    assert dump.stat().st_size > 0 and not dump.with_name("wove.dump.tmp").exists()

    with psycopg.connect(database_url) as conn:  # an operator's bad day
        conn.execute("DELETE FROM wove.paper_authors WHERE position > 0")
        conn.execute("UPDATE wove.papers SET title = 'oops'")
        conn.execute("DROP SCHEMA serving CASCADE")
        conn.execute("CREATE TABLE wove.stray (x int)")

    assert wove_main(["restore", str(dump)]) == 0
    after_rows, after_grants = _state(database_url)
    compare_tables(before_rows, after_rows, figures)
    assert after_grants == before_grants  # the consumer role still reads serving

    # --into a database that does not exist yet: created, then identical.
    other = url_for(pg_server.admin_url, f"t_{uuid.uuid4().hex[:12]}")
    try:
        assert wove_main(["restore", str(dump), "--into", other]) == 0
        compare_tables(before_rows, _state(other)[0], figures)
    finally:
        with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                sql.Identifier(other.split("?")[0].rsplit("/", 1)[-1])))
    figures.runs["backup_restored_identical"] += 2


def test_restore_of_a_damaged_file_fails_and_changes_nothing(database_url, tmp_path, figures):
    with psycopg.connect(database_url) as conn:
        conn.execute("CREATE TABLE wove.keep_me (x int)")
        conn.execute("INSERT INTO wove.keep_me VALUES (1)")
    bad = tmp_path / "bad.dump"
    bad.write_bytes(b"PGDMP" + bytes(200))
    with pytest.raises(BackupError):
        restore(bad, database_url)
    with psycopg.connect(database_url) as conn:
        assert conn.execute("SELECT x FROM wove.keep_me").fetchall() == [(1,)]
    figures.bad_inputs["damaged_backup_file"] += 1
