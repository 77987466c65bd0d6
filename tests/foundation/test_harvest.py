"""Harvest and load of arXiv days from the sandbox over real HTTP into real PostgreSQL."""

import datetime as dt

import dagster as dg
import psycopg

from wove_pipeline.arxiv import harvest as papers_load
from wove_pipeline.arxiv.assets import arxiv_records, papers
from wove_pipeline.arxiv.client import ArxivOaiClient
from wove_pipeline.resources import ArxivResource, DatabaseResource, RawStoreResource
from wove_pipeline.upstream.raw_store import RawStore

PAPER_QUERY = "SELECT * FROM wove.papers ORDER BY arxiv_id"
AUTHOR_QUERY = "SELECT * FROM wove.paper_authors ORDER BY arxiv_id, position"


def _resources(env):
    return {
        "database": DatabaseResource(url=env["WOVE_DATABASE_URL"]),
        "raw_store": RawStoreResource(root=env["WOVE_DATA_DIR"]),
        "arxiv": ArxivResource(base_url=env["ARXIV_OAI_URL"], min_interval_s=0),
    }


def _rows(url, query):
    with psycopg.connect(url) as conn:
        return conn.execute(query).fetchall()


def _busiest_day(world):
    counts = {}
    for p in world.papers:
        counts[p.datestamp] = counts.get(p.datestamp, 0) + 1
    return max(counts, key=lambda d: (counts[d], d))


def _harvest_busiest_day(env, world) -> tuple[str, RawStore, dt.date]:
    """The world's busiest day harvested into the raw store (not loaded): url, store, day."""
    store = RawStore(env["WOVE_DATA_DIR"])
    client = ArxivOaiClient(env["ARXIV_OAI_URL"], min_interval_s=0)
    day = _busiest_day(world)
    papers_load.harvest_day(client, store, day)
    client.close()
    return env["WOVE_DATABASE_URL"], store, day


def test_materializing_a_day_loads_every_record_of_that_day(pipeline_env, small_world):
    day = _busiest_day(small_world)
    result = dg.materialize([arxiv_records, papers], partition_key=day.isoformat(), resources=_resources(pipeline_env))
    assert result.success
    expected = {p.arxiv_id for p in small_world.papers if p.datestamp == day}
    rows = _rows(pipeline_env["WOVE_DATABASE_URL"], "SELECT arxiv_id, oai_datestamp FROM wove.papers")
    assert {r[0] for r in rows} == expected
    assert all(r[1] == day for r in rows)
    meta = result.asset_materializations_for_node("papers")[0].metadata
    assert meta["dagster/row_count"].value == len(expected)
    assert meta["quarantined"].value == 0


def test_materializing_the_same_partition_twice_leaves_papers_identical(pipeline_env, small_world):
    day = _busiest_day(small_world).isoformat()
    resources = _resources(pipeline_env)
    dg.materialize([arxiv_records, papers], partition_key=day, resources=resources)
    first = (_rows(pipeline_env["WOVE_DATABASE_URL"], PAPER_QUERY), _rows(pipeline_env["WOVE_DATABASE_URL"], AUTHOR_QUERY))
    dg.materialize([arxiv_records, papers], partition_key=day, resources=resources)
    second = (_rows(pipeline_env["WOVE_DATABASE_URL"], PAPER_QUERY), _rows(pipeline_env["WOVE_DATABASE_URL"], AUTHOR_QUERY))
    assert first[0] and first[1]
    assert second == first


def test_seed_paper_is_loaded_with_every_field(pipeline_env, small_world):
    seed = next(p for p in small_world.papers if p.arxiv_id == "2508.06001")
    dg.materialize([arxiv_records, papers], partition_key=seed.datestamp.isoformat(), resources=_resources(pipeline_env))
    with psycopg.connect(pipeline_env["WOVE_DATABASE_URL"]) as conn:
        row = conn.execute(
            "SELECT title, authors_display, primary_category, categories, slug, abs_url, pdf_url, published::date, "
            "current_version, jsonb_array_length(versions), withdrawn FROM wove.papers WHERE arxiv_id = '2508.06001'"
        ).fetchone()
        names = conn.execute(
            "SELECT forenames || ' ' || keyname FROM wove.paper_authors WHERE arxiv_id = '2508.06001' ORDER BY position"
        ).fetchall()
    title, authors, primary, categories, slug, abs_url, pdf_url, published, version, n_versions, withdrawn = row
    assert title == "KnapFormer: An Online Load Balancer for Efficient Diffusion Transformers Training"
    assert authors == "Kai Zhang, Peng Wang, Sai Bi, Jianming Zhang, Yuanjun Xiong"
    assert [n[0] for n in names] == ["Kai Zhang", "Peng Wang", "Sai Bi", "Jianming Zhang", "Yuanjun Xiong"]
    assert primary == "cs.DC" and categories[0] == "cs.DC" and "cs.CV" in categories
    assert slug == "2508.06001-knapformer-an-online-load-balancer-for-efficient-diffusion-transformers-training"
    assert abs_url == "https://arxiv.org/abs/2508.06001" and pdf_url == "https://arxiv.org/pdf/2508.06001"
    assert published == dt.date(2025, 8, 8)
    assert version == len(seed.versions) == n_versions
    assert withdrawn is False


def test_a_newer_version_updates_the_row_and_an_older_day_never_rolls_it_back(pipeline_env, small_world):
    # A paper revised inside the world: its row must end at its latest datestamp whatever the load order.
    url = pipeline_env["WOVE_DATABASE_URL"]
    store = RawStore(pipeline_env["WOVE_DATA_DIR"])
    client = ArxivOaiClient(pipeline_env["ARXIV_OAI_URL"], min_interval_s=0)
    target = next(p for p in small_world.papers if len(p.versions) > 1 and p.datestamp > small_world.start_day)
    newer_day = target.datestamp
    for day in (newer_day,):
        papers_load.harvest_day(client, store, day)
        with psycopg.connect(url) as conn, conn.transaction():
            papers_load.load_day(conn, day, papers_load.parse_day(store, day))
    # Now replay an older day with a hand-made older record of the same paper.
    parsed = papers_load.parse_day(store, newer_day)
    older = [p for p in parsed.papers if p.arxiv_id == target.arxiv_id]
    older_day = newer_day - dt.timedelta(days=3)
    import dataclasses

    rolled_back = [dataclasses.replace(older[0], oai_datestamp=older_day, title="stale title", current_version=1,
                                       versions=older[0].versions[:1])]
    with psycopg.connect(url) as conn, conn.transaction():
        summary = papers_load.load_day(conn, older_day, papers_load.ParsedDay(papers=rolled_back))
    assert summary.papers_written == 0 and summary.papers_skipped_older == 1
    with psycopg.connect(url) as conn:
        title, version, stamp = conn.execute(
            "SELECT title, current_version, oai_datestamp FROM wove.papers WHERE arxiv_id = %s", (target.arxiv_id,)
        ).fetchone()
    assert title != "stale title" and version == len(target.versions) and stamp == newer_day
    client.close()


def test_a_revision_rewrites_only_the_author_positions_that_changed(pipeline_env, small_world):
    """Re-harvested papers keep the author rows (and so the researcher links hanging off
    them) that the new version repeats; changed and removed positions lose theirs, and only
    the paper whose authors changed is matched again."""
    import dataclasses

    from wove_pipeline.matching import researchers as researchers_load
    url, store, day = _harvest_busiest_day(pipeline_env, small_world)
    parsed = papers_load.parse_day(store, day)
    with psycopg.connect(url) as conn, conn.transaction():
        papers_load.load_day(conn, day, parsed)
        assert researchers_load.match_researchers(conn).mode == "full"
    kept, edited = [p for p in parsed.papers if len(p.authors) >= 3][:2]

    def links(arxiv_id):
        with psycopg.connect(url) as conn:
            return conn.execute("SELECT position, researcher_id, matched_at FROM wove.researcher_mentions"
                                " WHERE arxiv_id = %s ORDER BY position", (arxiv_id,)).fetchall()

    kept_links, edited_links = links(kept.arxiv_id), links(edited.arxiv_id)
    # The next day: one revision with the same authors (new title), one whose second author
    # is someone else and whose last author left.
    later = day + dt.timedelta(days=1)
    other = dataclasses.replace(edited.authors[1], keyname="Quennell", forenames="Zebedee")
    revised = [dataclasses.replace(kept, oai_datestamp=later, title="A revised title"),
               dataclasses.replace(edited, oai_datestamp=later,
                                   authors=(edited.authors[0], other, *edited.authors[2:-1]))]
    with psycopg.connect(url) as conn, conn.transaction():
        summary = papers_load.load_day(conn, later, papers_load.ParsedDay(papers=revised))
    assert summary.authors_written == len(kept.authors) + len(edited.authors) - 1

    assert links(kept.arxiv_id) == kept_links
    assert links(edited.arxiv_id) == [edited_links[0], *edited_links[2:-1]]
    authors = _rows(url, f"SELECT position, keyname, forenames FROM wove.paper_authors"
                         f" WHERE arxiv_id = '{edited.arxiv_id}' ORDER BY position")
    assert authors == [(i, a.keyname, a.forenames) for i, a in enumerate(revised[1].authors)]

    with psycopg.connect(url) as conn, conn.transaction():
        rematch = researchers_load.match_researchers(conn)
    assert rematch.mode == "incremental" and rematch.new_mentions == len(revised[1].authors)
    assert links(kept.arxiv_id) == kept_links


def test_a_bad_record_is_quarantined_and_the_rest_of_the_day_lands(pipeline_env, small_world, tmp_path):
    url, store, day = _harvest_busiest_day(pipeline_env, small_world)
    # Corrupt one record's title element in the stored arXiv-format page (a real-world broken record).
    table = store.read_latest("arxiv", day.isoformat())
    bodies = table.column("body").to_pylist()
    victim = next(p for p in small_world.papers if p.datestamp == day)
    rows = []
    for kind, seq, request, body in zip(
        table.column("kind").to_pylist(), table.column("seq").to_pylist(), table.column("request").to_pylist(), bodies
    ):
        marker = f"<id>{victim.arxiv_id}</id>".encode()
        if marker in body:
            start = body.index(marker)
            end = body.index(b"</metadata>", start)
            chunk = body[start:end]
            import re

            chunk = re.sub(rb"<title>.*?</title>", b"<title></title>", chunk, flags=re.S)
            body = body[:start] + chunk + body[end:]
        rows.append((kind, seq, request, body))
    store.write("arxiv", day.isoformat(), rows)
    parsed = papers_load.parse_day(store, day)
    with psycopg.connect(url) as conn, conn.transaction():
        summary = papers_load.load_day(conn, day, parsed)
    expected = {p.arxiv_id for p in small_world.papers if p.datestamp == day}
    assert summary.quarantined == 1
    with psycopg.connect(url) as conn:
        loaded = {r[0] for r in conn.execute("SELECT arxiv_id FROM wove.papers")}
        q = conn.execute("SELECT source, partition_key, record_key, reason, payload FROM wove.quarantine").fetchall()
    assert loaded == expected - {victim.arxiv_id}
    assert len(q) == 1 and q[0][0] == "arxiv" and q[0][1] == day.isoformat()
    assert victim.arxiv_id in q[0][2] and "title" in q[0][3].lower() and victim.arxiv_id in q[0][4]


def test_a_week_in_one_run_through_the_daily_job(pipeline_env, small_world):
    """The demo path: one Dagster run over a partition range materializes every day."""
    from wove_pipeline.cli.runner import run_days
    first = small_world.start_day
    last = first + dt.timedelta(days=6)
    with dg.DagsterInstance.ephemeral() as instance:
        result = run_days("daily_harvest", first, last, instance)
    assert result.success
    expected = {p.arxiv_id for p in small_world.papers if first <= p.datestamp <= last}
    loaded = {r[0] for r in _rows(pipeline_env["WOVE_DATABASE_URL"], "SELECT arxiv_id FROM wove.papers")}
    assert loaded == expected and len(expected) > 100


def test_a_three_day_run_records_each_days_own_figures(pipeline_env, small_world):
    """A run over several partitions (the backfill policy's way) records one materialization
    per day, each with that day's counts, not the run's totals on every day."""
    days = [small_world.start_day + dt.timedelta(days=i) for i in range(3)]
    with dg.DagsterInstance.ephemeral() as instance:
        result = dg.materialize([arxiv_records, papers], instance=instance, resources=_resources(pipeline_env), tags={
            "dagster/asset_partition_range_start": days[0].isoformat(),
            "dagster/asset_partition_range_end": days[-1].isoformat()})
        assert result.success
        got = {}
        for key in ("arxiv_records", "papers"):
            records = instance.fetch_materializations(dg.AssetKey(key), limit=10).records
            got[key] = {r.partition_key: {k: v.value for k, v in r.asset_materialization.metadata.items()}
                        for r in records}
    url = pipeline_env["WOVE_DATABASE_URL"]
    papers_by_day = dict(_rows(url, "SELECT oai_datestamp, count(*) FROM wove.papers GROUP BY 1"))
    authors_by_day = dict(_rows(url, "SELECT p.oai_datestamp, count(*) FROM wove.paper_authors a "
                                     "JOIN wove.papers p USING (arxiv_id) GROUP BY 1"))
    assert set(got["papers"]) == set(got["arxiv_records"]) == {d.isoformat() for d in days}
    assert len({got["papers"][d.isoformat()]["dagster/row_count"] for d in days}) > 1  # days differ
    for day in days:
        key = day.isoformat()
        world_day = sum(1 for p in small_world.papers if p.datestamp == day)
        assert got["arxiv_records"][key]["dagster/row_count"] == world_day, key
        assert got["arxiv_records"][key]["requests"] >= 2  # both formats asked for this day
        assert key in got["arxiv_records"][key]["raw_file"]
        assert got["papers"][key]["dagster/row_count"] == papers_by_day[day] == world_day, key
        assert got["papers"][key]["authorships"] == authors_by_day[day], key
        assert got["papers"][key]["run_partitions"] == 3


def test_a_stage_with_only_run_figures_names_them_run_totals(pipeline_env, small_world):
    """Enrichment fetches a run's days in one batch: over several days its figures are the
    run's, named run_* on each day, and no day carries the run's total as its row count."""
    from wove_pipeline.enrichment.assets import s2_papers
    from wove_pipeline.resources.enrichment import SemanticScholarResource
    days = [small_world.start_day, small_world.start_day + dt.timedelta(days=1)]
    resources = {**_resources(pipeline_env), "s2": SemanticScholarResource(
        base_url=pipeline_env["S2_API_URL"], min_interval_s=0, backoff_initial_s=0.01, backoff_max_s=0.05)}
    with dg.DagsterInstance.ephemeral() as instance:
        def run(first, last):
            result = dg.materialize([arxiv_records, papers, s2_papers], instance=instance, resources=resources, tags={
                "dagster/asset_partition_range_start": first.isoformat(),
                "dagster/asset_partition_range_end": last.isoformat()})
            assert result.success
            return {r.partition_key: {k: v.value for k, v in r.asset_materialization.metadata.items()}
                    for r in instance.fetch_materializations(dg.AssetKey("s2_papers"), limit=10).records
                    if r.run_id == result.run_id}

        one = run(days[0], days[0])
        both = run(days[0], days[1])  # day 1's papers are new to S2: run_row_count > 0
    assert set(both) == {d.isoformat() for d in days}
    for key, meta in both.items():
        assert "dagster/row_count" not in meta and meta["run_partitions"] == 2, meta
        assert meta["run_row_count"] > 0 and meta["dagster/table_name"] == "wove.s2_papers"
    # a run of one day keeps the stage's own names: the row count is that day's
    assert one[days[0].isoformat()]["dagster/row_count"] > 0 and "run_row_count" not in one[days[0].isoformat()]


def test_a_refused_request_fails_the_harvest_step_at_once_without_retries(tmp_path):
    """arXiv answering 403 (say, a blocked client): the step fails with arXiv's words and the
    step retry policy does not ask again (UpstreamRefused as dg.Failure(allow_retries=False))."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from wove_pipeline.arxiv.assets import HARVEST_RETRY
    assert HARVEST_RETRY.max_retries > 0  # the policy would retry any other failure
    calls = []

    class Refusing(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            calls.append(self.path)
            body = b"Access denied: this client is blocked for not honouring the rate limit"
            self.send_response(403)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        result = dg.materialize(
            [arxiv_records], partition_key="2025-08-04", raise_on_error=False,
            resources={"raw_store": RawStoreResource(root=str(tmp_path / "raw")),
                       "arxiv": ArxivResource(base_url=f"http://127.0.0.1:{server.server_address[1]}/oai",
                                              min_interval_s=0)})
    finally:
        server.shutdown()
        server.server_close()
    assert not result.success
    failures = [e for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_FAILURE]
    assert [e.step_key for e in failures] == ["arxiv_records"]
    assert "this client is blocked" in failures[0].step_failure_data.error.message
    assert failures[0].step_failure_data.user_failure_data.metadata["status"].value == 403
    retried = {dg.DagsterEventType.STEP_UP_FOR_RETRY, dg.DagsterEventType.STEP_RESTARTED}
    assert not [e for e in result.all_events if e.event_type in retried]
    assert len(calls) == 1  # asked once: no HTTP retry, no step retry
