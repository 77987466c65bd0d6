"""The bulk backfill path: the sandbox writes S2 Datasets and OpenAlex snapshot files, the
readers read every record back with the right fields, the manifests agree with the files,
and a bulk load gives the same enrichment rows as the API path for the same papers."""

from __future__ import annotations

import datetime as dt
import gzip
import io
import re
import uuid

import psycopg
import pytest
from psycopg import sql

from wove_pipeline.cli.progress import Progress
from wove_pipeline.enrichment import bulk_files
from wove_pipeline.enrichment.bulk import bulk_load
from wove_pipeline.openalex.parser import parse_author as parse_oa_author
from wove_pipeline.openalex.parser import parse_institution, parse_work
from wove_pipeline.openalex.snapshot import OpenAlexSnapshot
from wove_pipeline.sandbox.openalex import OpenAlexEndpoint
from wove_pipeline.sandbox.semantic_scholar import SemanticScholarEndpoint
from wove_pipeline.sandbox.snapshots import write_openalex_snapshot, write_s2_release, write_snapshots
from wove_pipeline.semantic_scholar.client import AUTHOR_FIELDS, PAPER_FIELDS
from wove_pipeline.semantic_scholar.datasets import S2Release, latest_s2_release, s2_author_as_graph, s2_paper_as_graph
from wove_pipeline.semantic_scholar.parser import parse_author, parse_paper


@pytest.fixture(scope="module")
def world():
    from wove_pipeline.sandbox.generator import generate_world
    return generate_world(seed=7, papers_per_day=40, days=8)


def _today(world) -> dt.date:
    return world.end_day + dt.timedelta(days=90)  # upstreams know every paper they ever will


def _spec(fields: str) -> dict:
    return {f: None for f in fields.split(",")}


# --------------------------------------------------------------------------- Semantic Scholar Datasets


def test_s2_release_round_trip(world, tmp_path):
    today = _today(world)
    written = write_s2_release(world, tmp_path / "s2", today, shard_size=64)
    release = latest_s2_release(tmp_path / "s2")
    assert release.release == today.isoformat()

    s2 = SemanticScholarEndpoint(world)
    visible = [p for p in world.papers if s2._visible(p, today)]
    assert len(written.files["papers"]) > 1  # several shards, as real releases have

    # The dataset.json (the Datasets API answer) lists exactly the shards written.
    for dataset in ("papers", "abstracts", "authors"):
        files = release.dataset_files(dataset)
        assert [f.rsplit("/", 1)[-1] for f in files] == [f.rsplit("/", 1)[-1] for f in written.files[dataset]]

    papers = list(release.records("papers"))
    assert len(papers) == len(visible) == written.records["papers"]
    rec = papers[0]
    # Dataset field names and quirks, as S2 writes them.
    assert {"corpusid", "externalids", "url", "title", "authors", "citationcount", "year", "publicationdate"} <= rec.keys()
    assert "paperId" not in rec and "abstract" not in rec
    assert isinstance(rec["externalids"]["CorpusId"], str) and "MAG" in rec["externalids"]

    abstracts = {r["corpusid"]: r["abstract"] for r in release.records("abstracts")}
    by_arxiv = {p.arxiv_id: p for p in visible}
    spec = _spec(PAPER_FIELDS)
    spec["authors"] = {"name"}
    for rec in papers:
        graph = s2_paper_as_graph(rec, abstracts.get(rec["corpusid"]))
        from_bulk = parse_paper(graph)
        from_api = parse_paper(s2.render_paper(by_arxiv[from_bulk.arxiv_id], spec, today))
        assert from_bulk == from_api

    authors = list(release.records("authors"))
    assert authors and {"authorid", "name", "papercount", "citationcount", "hindex", "externalids"} <= authors[0].keys()
    for rec in authors:
        from_bulk = parse_author(s2_author_as_graph(rec))
        from_api = parse_author(s2.render_author(world.s2_authors[rec["authorid"]], _spec(AUTHOR_FIELDS), today))
        assert from_bulk == from_api
    # Batches stream the same records in order.
    assert [r for b in release.batches("authors", size=50) for r in b] == authors


def test_s2_coverage_lag_shows_in_an_early_release(world, tmp_path):
    early = world.start_day + dt.timedelta(days=1)
    write_s2_release(world, tmp_path / "s2", early)
    late = write_s2_release(world, tmp_path / "s2", _today(world))
    releases = tmp_path / "s2"
    n_early = sum(1 for _ in S2Release(str(releases), early.isoformat()).records("papers"))
    assert n_early < late.records["papers"]
    assert latest_s2_release(releases).release == _today(world).isoformat()


# --------------------------------------------------------------------------- OpenAlex snapshot


def test_openalex_snapshot_round_trip_and_manifests(world, tmp_path):
    today = _today(world)
    written = write_openalex_snapshot(world, tmp_path / "oa", today, part_size=50)
    snap = OpenAlexSnapshot(str(tmp_path / "oa"))
    oa = OpenAlexEndpoint(world, daily_budget_usd=None)

    for entity in ("works", "authors", "institutions"):
        m = snap.verify(entity)  # sizes and counts agree with the files
        assert m.record_count == written.records[entity] == sum(e.record_count for e in m.entries)
        assert all(e.url.startswith("s3://openalex/data/") for e in m.entries)
        assert all(e.updated_date and f"updated_date={e.updated_date}/part_" in e.path for e in m.entries)

    works = list(snap.records("works"))
    visible = [w for w in oa._work_order if oa._work_visible(w, today)]
    assert len(works) == len(visible)
    assert len({e.updated_date for e in snap.manifest("works").entries}) > 1  # partitioned by day
    for rec in works:
        wid = rec["id"].rsplit("/", 1)[-1]
        assert parse_work(rec) == parse_work(oa.render_work(wid, today, full=True))
        assert "is_authors_truncated" not in rec  # snapshots carry the full author list
    assert any(len(r["authorships"]) > 100 for r in works)  # the collaboration papers

    authors = list(snap.records("authors"))
    for rec in authors:
        aid = rec["id"].rsplit("/", 1)[-1]
        assert parse_oa_author(rec) == parse_oa_author(oa.render_author(aid, today))
    insts = list(snap.records("institutions"))
    assert len(insts) == len(world.institutions)
    assert {parse_institution(r).institution_id for r in insts} == set(world.institutions)

    # Incremental: only partitions updated after a day.
    days = sorted({e.updated_date for e in snap.manifest("works").entries})
    later = list(snap.records("works", since=days[0]))
    assert 0 < len(later) < len(works)
    assert all(r["updated_date"][:10] > days[0] for r in later)

    merged = list(snap.merged_ids("authors"))
    expected = {k: v for k, v in oa.redirects.items() if k.startswith("A")}
    assert {old: new for _d, old, new in merged} == expected


def test_manifest_verification_catches_a_changed_partition(world, tmp_path):
    write_openalex_snapshot(world, tmp_path / "oa", _today(world), part_size=50)
    snap = OpenAlexSnapshot(str(tmp_path / "oa"))
    entry = snap.manifest("works").entries[0]
    with gzip.open(entry.path, "rb") as f:
        lines = f.read().splitlines()
    with gzip.open(entry.path, "wb") as f:  # a partition rewritten with one record fewer
        f.write(b"\n".join(lines[:-1]) + b"\n")
    with pytest.raises(ValueError, match="manifest"):
        snap.verify("works")


def test_readers_fail_loudly_on_a_broken_line(tmp_path):
    path = tmp_path / "part-00000.jsonl.gz"
    with gzip.open(path, "wb") as f:
        f.write(b'{"corpusid": 1}\n{"corpusid": 2\n')
    fs, p = bulk_files.filesystem(path)
    it = bulk_files.iter_jsonl_gz(fs, p)
    assert next(it) == {"corpusid": 1}
    with pytest.raises(ValueError, match=":2: not JSON"):
        next(it)


# --------------------------------------------------------------------------- bulk load == API path


def _new_database(pg_server) -> str:
    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE wove_template").format(sql.Identifier(name)))
    head, _, query = pg_server.admin_url.partition("?")
    return f"{head.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")


def _drop(pg_server, url: str) -> None:
    name = url.split("?")[0].rsplit("/", 1)[-1]
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


# What a bulk load and an API run must agree on (the *when* columns aside: a snapshot is
# dated by its release, an API answer by its fetch).
COMPARED = {
    "wove.s2_papers": "arxiv_id",
    "wove.openalex_works": "arxiv_id",
    "wove.s2_authors": "author_id",
    "wove.openalex_authors": "author_id",
    "wove.openalex_author_redirects": "old_author_id",
    "wove.institutions": "institution_id",
    "wove.authorships": "arxiv_id, position",
}
WHEN = {"as_of", "fetched_at", "aligned_at"}


def _tables(url: str) -> dict[str, list[tuple]]:
    out = {}
    with psycopg.connect(url) as conn:
        for table, order in COMPARED.items():
            schema, name = table.split(".")
            cols = [r[0] for r in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = %s AND table_name = %s"
                " ORDER BY ordinal_position", (schema, name)) if r[0] not in WHEN]
            query = sql.SQL("SELECT {} FROM {} ORDER BY " + order).format(
                sql.SQL(", ").join(map(sql.Identifier, cols)), sql.Identifier(schema, name))
            out[table] = conn.execute(query).fetchall()
    return out


def test_bulk_load_gives_the_same_rows_as_the_api_path(pg_server, sandbox, small_world, tmp_path):
    from wove_pipeline.arxiv import harvest as papers_load
    from wove_pipeline.arxiv.client import ArxivOaiClient
    from wove_pipeline.database import access as db
    from wove_pipeline.enrichment.authorships import align_days
    from wove_pipeline.enrichment.lookback import EnrichmentSettings
    from wove_pipeline.enrichment.rebuild import rebuild_from_raw
    from wove_pipeline.openalex.client import OpenAlexClient
    from wove_pipeline.openalex.fetch import fetch_institutions, fetch_openalex_authors, fetch_openalex_works
    from wove_pipeline.partitions import DayRange
    from wove_pipeline.semantic_scholar.client import SemanticScholarClient
    from wove_pipeline.semantic_scholar.fetch import fetch_s2_authors, fetch_s2_papers
    from wove_pipeline.upstream.http import RetrySettings
    from wove_pipeline.upstream.raw_store import RawStore
    sandbox.today = _today(small_world)
    days = sorted({p.datestamp for p in small_world.papers})
    retry = RetrySettings(attempts=5, backoff_initial_s=0.01, backoff_max_s=0.05)
    api_url, bulk_url = _new_database(pg_server), _new_database(pg_server)
    try:
        # The same harvested papers in both databases.
        arxiv = ArxivOaiClient(sandbox.url_for("arxiv"), min_interval_s=0, retry=retry)
        harvest_store = RawStore(tmp_path / "harvest")
        try:
            for day in days:
                papers_load.harvest_day(arxiv, harvest_store, day)
        finally:
            arxiv.close()
        for url in (api_url, bulk_url):
            for day in days:
                with db.transaction(url) as conn:
                    papers_load.load_day(conn, day, papers_load.parse_day(harvest_store, day))

        # The API path, every enrichment step in graph order.
        settings = EnrichmentSettings(lookback_days=60)
        api_store = RawStore(tmp_path / "api")
        run = DayRange.of(days)
        with SemanticScholarClient(sandbox.url_for("s2"), min_interval_s=0, retry=retry) as s2, \
                OpenAlexClient(sandbox.url_for("openalex"), min_interval_s=0, retry=retry) as oa, \
                db.connect(api_url, autocommit=True) as conn:
            fetch_s2_papers(conn, s2, api_store, run, settings)
            fetch_openalex_works(conn, oa, api_store, run, settings)
            fetch_s2_authors(conn, s2, api_store, run, settings)
            fetch_openalex_authors(conn, oa, api_store, run, settings)
            fetch_institutions(conn, oa, api_store, run, settings)
            align_days(conn, run, settings)
        calls_after_api = dict(sandbox.request_counts)

        # The bulk path: files written as of the same day, loaded without an API call.
        s2_files, oa_files = write_snapshots(small_world, tmp_path / "bulk", sandbox.today, shard_size=100,
                                             part_size=100)
        bulk_store = RawStore(tmp_path / "bulk_raw")
        lines = io.StringIO()
        with db.connect(bulk_url, autocommit=True) as conn:
            summary = bulk_load(conn, bulk_store, s2_root=str(tmp_path / "bulk" / "s2"),
                                openalex_root=str(tmp_path / "bulk" / "openalex"), snapshot_date=sandbox.today,
                                progress=Progress(lines))
        # a line per stage as it goes, with its figures and seconds
        said = lines.getvalue()
        assert re.search(rf"\] bulk +Semantic Scholar release \S+: {summary.s2_papers:,} papers, "
                         rf"{summary.s2_authors:,} authors in \d+\.\d s", said), said
        assert re.search(rf"\] bulk +OpenAlex snapshot of {sandbox.today}: {summary.openalex_works:,} works, ", said), said
        assert re.search(rf"\] bulk +authorship alignment: {summary.authorships:,} authorships in \d+\.\d s", said), said
        assert dict(sandbox.request_counts) == calls_after_api  # no request reached the sandbox
        assert summary.s2_papers and summary.openalex_works and summary.institutions and summary.authorships

        api, bulk_rows = _tables(api_url), _tables(bulk_url)
        for table in COMPARED:
            if table != "wove.openalex_author_redirects":  # the small world may retire no author on its works
                assert api[table], f"{table} empty: the comparison would prove nothing"
            assert bulk_rows[table] == api[table], table

        # Dated by the snapshot, and kept in the raw layer: a rebuild reproduces the tables.
        with psycopg.connect(bulk_url) as conn:
            assert conn.execute("SELECT DISTINCT as_of FROM wove.s2_papers").fetchall() == [(sandbox.today,)]
            attempts = conn.execute("SELECT count(*) FROM wove.enrichment_attempts").fetchone()[0]
        assert attempts > 0  # misses become look-back work for the API path
        with db.connect(bulk_url, autocommit=True) as conn:
            rebuild_from_raw(conn, bulk_store)
        assert _tables(bulk_url) == bulk_rows
    finally:
        _drop(pg_server, api_url)
        _drop(pg_server, bulk_url)


def test_readers_take_filesystem_uris(world, tmp_path):
    """Paths are pyarrow filesystem URIs (s3://, gs://, file://): the same code reads a
    release or a snapshot where it lies on object storage."""
    s2_files, oa_files = write_snapshots(world, tmp_path, _today(world), shard_size=100, part_size=100)
    release = latest_s2_release(f"file://{tmp_path / 's2'}")
    assert sum(1 for _ in release.records("papers")) == s2_files.records["papers"]
    snap = OpenAlexSnapshot(f"file://{tmp_path / 'openalex'}")
    assert snap.verify("works").record_count == oa_files.records["works"]
    assert sum(1 for _ in snap.records("institutions")) == oa_files.records["institutions"]
