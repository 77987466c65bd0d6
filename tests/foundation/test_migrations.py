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


def test_profile_identity_keys_reach_the_profiles_already_there(pg_server, monkeypatch):
    """Migration 0033 on a database with profiles: their ORCIDs and S2 + OpenAlex id pairs become
    keys of wove.profile_keys (the daily run finds profiles across name blocks by them), the
    GIN indexes that held them go, and the triggers keep the keys as the ids change."""
    from tests.conftest import url_for

    name = "t_upgrade_0033"
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    url = url_for(pg_server.admin_url, name)
    try:
        every = migrations.available()
        monkeypatch.setattr(migrations, "available", lambda: [m for m in every if m[0] < 33])
        migrate(url)
        with psycopg.connect(url) as conn:
            conn.execute("INSERT INTO wove.researchers (researcher_id, display_name, normalized_name, mention_count)"
                         " VALUES (7, 'Peng Wang', 'peng wang', 2)")
            conn.execute(
                "INSERT INTO wove.researcher_profiles (researcher_id, blocks, mention_count, name_forms, coauthors,"
                " venues, affiliations, categories, centroid, s2_author_ids, openalex_author_ids, orcids, id_counts,"
                " representatives, match_tokens, built_at) VALUES (7, '{p wang}', 2, '{}', '{}', '{}', '{}', '{}',"
                " '', '{S1,S2}', '{A1}', '{0000-0001-2345-6789}',"
                """ '{"pairs": {"S1|A1": 1, "S2|A1": 1}}', '[]', '{p wang|c:j li}', now())""")
        monkeypatch.setattr(migrations, "available", lambda: every)
        assert [n for n in migrate(url) if n.startswith("0033")]
        with psycopg.connect(url) as conn:
            keys = lambda: sorted(k for (k,) in conn.execute(  # noqa: E731
                "SELECT key FROM wove.profile_keys WHERE researcher_id = 7"))
            assert keys() == ["#p:S1|A1", "#p:S2|A1", "#r:0000-0001-2345-6789", "p wang", "p wang|c:j li"]
            indexes = {r for (r,) in conn.execute(
                "SELECT indexname FROM pg_indexes WHERE tablename = 'researcher_profiles'")}
            assert indexes == {"researcher_profiles_pkey"}
            conn.execute("""UPDATE wove.researcher_profiles SET orcids = '{}',"""
                         """ id_counts = '{"pairs": {"S2|A1": 1, "S3|A2": 1}}' WHERE researcher_id = 7""")
            assert keys() == ["#p:S2|A1", "#p:S3|A2", "p wang", "p wang|c:j li"]
            conn.execute("DELETE FROM wove.researchers WHERE researcher_id = 7")  # the profile goes by cascade
            assert keys() == []
    finally:
        with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
