import psycopg
import pytest

from wove_pipeline.database import migrations
from wove_pipeline.database.migrations import MigrationError, migrate


def test_reapplying_migrations_is_a_no_op(database_url):
    with psycopg.connect(database_url) as conn:
        before = conn.execute("SELECT version, checksum, applied_at FROM wove.schema_migrations ORDER BY version").fetchall()
    assert migrate(database_url) == []
    with psycopg.connect(database_url) as conn:
        after = conn.execute("SELECT version, checksum, applied_at FROM wove.schema_migrations ORDER BY version").fetchall()
    assert after == before
    assert [v for v, *_ in after] == [v for v, _, _ in migrations.available()]


def test_extensions_are_installed(database_url):
    with psycopg.connect(database_url) as conn:
        names = {r[0] for r in conn.execute("SELECT extname FROM pg_extension")}
    assert {"vector", "pg_trgm", "unaccent"} <= names


def test_a_changed_migration_is_refused(database_url, monkeypatch):
    original = migrations.available()
    version, name, text = original[0]
    monkeypatch.setattr(migrations, "available", lambda: [(version, name, text + "\n-- edited")] + original[1:])
    with pytest.raises(MigrationError, match="changed after it was applied"):
        migrate(database_url)


def test_raw_data_dir_passes_object_store_uris_through(monkeypatch, tmp_path):
    from wove_pipeline.settings import raw_data_dir
    monkeypatch.setenv("WOVE_DATA_DIR", "s3://wove-raw/raw")
    assert raw_data_dir() == "s3://wove-raw/raw"
    monkeypatch.setenv("WOVE_DATA_DIR", str(tmp_path / "raw"))
    assert raw_data_dir() == str((tmp_path / "raw").resolve())
