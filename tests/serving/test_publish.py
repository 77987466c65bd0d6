"""Publishing: atomic swap, functions carried over, the read-only role, route resolution,
feeds, and the Parquet export with its manifest."""

from __future__ import annotations

import json
import threading
import uuid

import psycopg
import pyarrow.parquet as pq
import pytest
from psycopg import sql

from wove_pipeline.database import access as db
from wove_pipeline.metrics import compute as metrics
from wove_pipeline.sandbox.seed_fixtures import KNAPFORMER_ID, SEED_PENG_WANG_ID
from wove_pipeline.serving import pages, tables
from wove_pipeline.serving import publish as publishing

from .world_db import load_papers, load_static, publish, researcher_id


@pytest.fixture
def small_published(database_url, small_world):
    with db.transaction(database_url) as conn:
        load_static(conn, small_world)
        load_papers(conn, small_world, small_world.papers)
        metrics.update_metrics(conn)
    publish(database_url)
    return database_url


def _login_url(url: str, role: str, password: str) -> str:
    head, _, query = url.partition("?")
    scheme, rest = head.split("://", 1)
    _, at, hostpart = rest.rpartition("@")
    return f"{scheme}://{role}:{password}@{hostpart if at else rest}" + (f"?{query}" if query else "")


def test_reader_role_reads_serving_and_cannot_write(small_published):
    role = f"reader_{uuid.uuid4().hex[:8]}"
    with db.connect(small_published, autocommit=True) as conn:
        publishing.create_reader_login(conn, role, "pw")
    try:
        with psycopg.connect(small_published, autocommit=True) as conn:
            conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(role)))
            assert conn.execute("SELECT count(*) FROM serving.papers").fetchone()[0] > 0
            assert conn.execute("SELECT count(*) FROM serving.sitemap").fetchone()[0] > 0
            conn.execute("SELECT * FROM serving.search_papers('transformer', NULL::vector)").fetchall()
            for statement in (
                "INSERT INTO serving.paper_routes VALUES ('x', 'y')",
                "UPDATE serving.researchers SET papers_here = 0",
                "DELETE FROM serving.papers",
                "CREATE TABLE serving.mine (x int)",
                "SELECT count(*) FROM wove.papers",
                "DROP TABLE serving.papers",
            ):
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute(statement)
    finally:
        with psycopg.connect(small_published, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


def test_republish_keeps_functions_grants_and_leaves_no_old_schema(small_published):
    result = publish(small_published, full=True)
    assert result.mode == "full"
    assert set(result.moved_functions) >= {"search_papers", "related_papers"}
    result = publish(small_published)  # incremental: the schema stays, with its functions
    assert result.mode == "incremental"
    with db.connect(small_published) as conn:
        assert {r[0] for r in conn.execute("SELECT p.proname FROM pg_proc p JOIN pg_namespace n"
                                           " ON n.oid = p.pronamespace WHERE n.nspname = 'serving'")} \
            >= {"search_papers", "related_papers", "route_key"}
    with db.connect(small_published) as conn:
        schemas = {r[0] for r in conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'serving%'")}
        assert schemas == {"serving"}
        assert conn.execute("SELECT has_schema_privilege('wove_reader', 'serving', 'USAGE')").fetchone()[0]
        assert conn.execute("SELECT has_table_privilege('wove_reader', 'serving.researchers', 'SELECT')").fetchone()[0]
        assert not conn.execute("SELECT has_table_privilege('wove_reader', 'serving.researchers', 'INSERT')").fetchone()[0]
        assert not conn.execute("SELECT has_schema_privilege('wove_reader', 'wove', 'USAGE')").fetchone()[0]
        pub = db.fetch_all(conn, "SELECT * FROM serving.publication")
        assert len(pub) == 1 and pub[0]["publication_id"] == result.publication_id
        assert pub[0]["schema_version"] == tables.SCHEMA_VERSION


def test_serving_tables_are_vacuumed_by_their_dead_rows_not_by_a_days_inserts(small_published):
    # PostgreSQL 18 weighs inserts against a table's unfrozen part: on a frozen archive every
    # incremental publish's inserts started a vacuum through the whole indexes (tables.STORAGE)
    publish(small_published)
    with db.connect(small_published) as conn:
        options = dict(conn.execute(
            "SELECT c.relname, c.reloptions FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = 'serving' AND c.relkind = 'r'").fetchall())
    assert set(options) >= {t.name for t in tables.TABLE_DEFINITIONS}
    for t in tables.TABLE_DEFINITIONS:
        assert "autovacuum_vacuum_insert_threshold=-1" in options[t.name], t.name
        assert "autovacuum_vacuum_scale_factor" not in " ".join(options[t.name]), t.name


def test_a_failed_publish_leaves_the_previous_one_untouched(small_published, monkeypatch):
    with db.connect(small_published) as conn:
        before = conn.execute("SELECT publication_id FROM serving.publication").fetchone()[0]
    broken = list(tables.VIEW_DEFINITIONS) + ["SELECT * FROM {s}.no_such_table"]
    monkeypatch.setattr(tables, "VIEW_DEFINITIONS", broken)
    with pytest.raises(psycopg.errors.UndefinedTable):
        publish(small_published)  # the definition changed: a full rebuild
    with db.connect(small_published) as conn:
        assert conn.execute("SELECT publication_id FROM serving.publication").fetchone()[0] == before
        assert conn.execute("SELECT count(*) FROM serving.papers").fetchone()[0] > 0
        assert not conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = 'serving_build'").fetchone()


def test_readers_never_see_half_a_publish(small_published):
    """While publishes run, every read sees one whole publication (row counts agree)."""
    stop = threading.Event()
    seen, errors = [], []

    def reader():
        with psycopg.connect(small_published, autocommit=True) as conn:
            while not stop.is_set():
                try:
                    row = conn.execute(
                        "SELECT p.publication_id, (p.row_counts->>'researchers')::int, "
                        "(SELECT count(*) FROM serving.researchers), (SELECT count(*) FROM serving.papers) "
                        "FROM serving.publication p").fetchone()
                    seen.append(row)
                except psycopg.Error as exc:  # never expected
                    errors.append(exc)

    t = threading.Thread(target=reader)
    t.start()
    try:
        for _ in range(2):
            publish(small_published)
    finally:
        stop.set()
        t.join()
    assert not errors
    assert len({r[0] for r in seen}) >= 2
    assert all(r[1] == r[2] for r in seen)


def test_parquet_export_matches_the_serving_tables(small_published, tmp_path):
    result = publish(small_published, export_dir=tmp_path / "bulk")
    manifest = json.loads((tmp_path / "bulk" / "manifest.json").read_text())
    assert manifest["schema_version"] == tables.SCHEMA_VERSION
    assert manifest["publication_id"] == result.publication_id
    assert manifest["as_of"]
    assert set(manifest["tables"]) == set(tables.TABLES)
    assert set(manifest["views"]) == set(tables.VIEWS)  # the views consumers read, exported too
    with db.connect(small_published) as conn:
        for table, entry in [*manifest["tables"].items(), *manifest["views"].items()]:
            n = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier("serving", table))).fetchone()[0]
            parquet = pq.read_table(tmp_path / "bulk" / entry["file"])
            assert entry["rows"] == n == parquet.num_rows
            assert parquet.column_names == [c["name"] for c in entry["columns"]]
    papers = pq.read_table(tmp_path / "bulk" / "papers.parquet").to_pylist()
    row = next(p for p in papers if p["arxiv_id"] == KNAPFORMER_ID)
    assert row["categories"] == ["cs.DC", "cs.CV"] and json.loads(row["record"])["arxiv_id"] == KNAPFORMER_ID
    assert row["published"].tzinfo is not None
    latest = pq.read_table(tmp_path / "bulk" / "latest_papers.parquet")
    assert 0 < latest.num_rows <= tables.LATEST_LIMIT and "record" in latest.column_names
    assert result.export.rows["sitemap"] == manifest["views"]["sitemap"]["rows"] > 0


def test_route_resolution(small_published, small_world):
    old = next((p for p in small_world.papers if "/" in p.arxiv_id), None)
    with db.connect(small_published) as conn:
        slug = conn.execute("SELECT slug FROM serving.papers WHERE arxiv_id = %s", (KNAPFORMER_ID,)).fetchone()[0]
        assert pages.resolve_paper(conn, slug) == {"arxiv_id": KNAPFORMER_ID, "slug": slug, "redirect": False}
        for key in (KNAPFORMER_ID, f"{KNAPFORMER_ID}v2", f"arXiv:{KNAPFORMER_ID}", f"{KNAPFORMER_ID}-old-title"):
            assert pages.resolve_paper(conn, key) == {"arxiv_id": KNAPFORMER_ID, "slug": slug, "redirect": True}
        assert pages.resolve_paper(conn, "2501.99999") is None
        if old is not None:
            assert pages.resolve_paper(conn, old.arxiv_id)["arxiv_id"] == old.arxiv_id
            assert pages.resolve_paper(conn, old.arxiv_id.replace("/", "-"))["arxiv_id"] == old.arxiv_id
        # researchers: the id alone, the slug, and a retired id through a redirect chain
        rid = researcher_id(SEED_PENG_WANG_ID)
        assert pages.resolve_researcher(conn, str(rid))["researcher_id"] == rid
        assert pages.resolve_researcher(conn, f"{rid}-peng-wang")["redirect"] is False
        # institutions: id, ROR (URL and bare), name and alias, any case
        inst = next(i for i in small_world.institutions.values() if i.display_name == "Adobe Research")
        keys = [inst.institution_id, inst.institution_id.lower(), inst.ror, inst.ror.rsplit("/", 1)[1],
                inst.display_name, inst.display_name.upper(), *inst.aliases]
        for key in keys:
            got = pages.resolve_institution(conn, key)
            assert got is not None and got["institution_id"] == inst.institution_id, key
        assert pages.resolve_institution(conn, "No Such University") is None
    # retire Peng Wang's id into another id chain: 1 -> new, and old ids resolve to it
    with db.transaction(small_published) as conn:
        conn.execute("INSERT INTO wove.researcher_redirects (old_id, new_id, reason) VALUES (1, 2, 'merge'), (2, %s, 'merge')",
                     (rid,))
    publish(small_published)
    with db.connect(small_published) as conn:
        assert pages.resolve_researcher(conn, "1") == {"researcher_id": rid, "slug": f"{rid}-peng-wang", "redirect": True}
        page = pages.researcher_page(conn, 1)
        assert page["id"] == rid and page["redirect"] is True and "redirected" not in page
        page = pages.researcher_page(conn, rid, requested=f"{rid}-peng-wang")
        assert page["redirect"] is False and page["requested_id"] == f"{rid}-peng-wang"
        assert pages.researcher_page(conn, rid, requested=str(rid))["redirect"] is True  # not the slug


def test_latest_feed_and_sitemap(small_published):
    with db.connect(small_published) as conn:
        feed = pages.latest_papers(conn, 20)
        assert feed == sorted(feed, key=lambda r: (r["published"], r["arxiv_id"]), reverse=True)
        newest = conn.execute("SELECT max(published) FROM wove.papers WHERE NOT withdrawn").fetchone()[0]
        assert feed[0]["published"] == newest.isoformat()
        kinds = dict(conn.execute("SELECT kind, count(*) FROM serving.sitemap GROUP BY kind").fetchall())
        assert kinds["paper"] == conn.execute("SELECT count(*) FROM serving.papers").fetchone()[0]
        assert kinds["researcher"] == conn.execute("SELECT count(*) FROM serving.researchers").fetchone()[0]
        assert conn.execute("SELECT count(*) FROM serving.sitemap WHERE loc IS NULL").fetchone()[0] == 0


def test_institution_page_figures(small_published, small_world):
    inst = next(i for i in small_world.institutions.values() if i.display_name == "Adobe Research")
    papers, people = set(), set()
    for p in small_world.papers:
        ships = p.openalex.authorships if p.openalex else []
        for a in p.authors:
            if a.position < len(ships) and inst.institution_id in ships[a.position].institution_ids:
                papers.add(p.arxiv_id)
                if not small_world.persons[a.person_id].is_collaboration:
                    people.add(a.person_id)
    cites = sum((p.s2.citation_count if p.s2 else p.openalex.cited_by_count if p.openalex else 0) or 0
                for p in small_world.papers if p.arxiv_id in papers)
    with db.connect(small_published) as conn:
        page = pages.institution_page(conn, inst.ror)
    assert (page["papers"], page["researchers"], page["citations"]) == (len(papers), len(people), cites)
    assert page["id"] == inst.institution_id and page["resolved_by"] == "ror"
    assert len(page["latest_papers"]) == min(24, len(papers))
