"""One upstream record that cannot be parsed is quarantined with its reason and payload;
the rest of its batch lands and the run completes (real HTTP, real PostgreSQL)."""

import datetime as dt
import json

import psycopg

from wove_pipeline.enrichment.lookback import EnrichmentSettings
from wove_pipeline.openalex.fetch import fetch_openalex_works
from wove_pipeline.partitions import DayRange
from wove_pipeline.sandbox.endpoint import Response
from wove_pipeline.sandbox.openalex import OpenAlexEndpoint
from wove_pipeline.sandbox.semantic_scholar import SemanticScholarEndpoint
from wove_pipeline.sandbox.server import SandboxServer
from wove_pipeline.semantic_scholar.fetch import fetch_s2_papers
from wove_pipeline.upstream.raw_store import RawStore

from .conftest import connect, load_days, openalex_client, s2_client, world_days


class BreakOne:
    """Wraps an endpoint and breaks the first record of every list it answers."""

    def __init__(self, inner, route: str, list_key: str | None):
        self.inner, self.route, self.list_key = inner, route, list_key
        self.name, self.prefix = inner.name, inner.prefix
        self.broken: list[dict] = []

    def handle(self, request, today):
        response = self.inner.handle(request, today)
        if response.status != 200 or not request.path.startswith(self.route):
            return response
        body = json.loads(response.body)
        items = body[self.list_key] if self.list_key else body
        victim = next((x for x in items if x), None)
        if victim is not None:
            # A record of the right envelope but the wrong shape: its id is not a string.
            victim["paperId" if "paperId" in victim else "id"] = {"unexpected": True}
            self.broken.append(victim)
        return Response(response.status, json.dumps(body).encode(), response.headers)


def test_a_bad_record_is_quarantined_and_its_batch_still_lands(database_url, small_world, tmp_path):
    s2 = BreakOne(SemanticScholarEndpoint(small_world), "/paper/batch", None)
    oa = BreakOne(OpenAlexEndpoint(small_world), "/works", "results")
    from wove_pipeline.sandbox.arxiv_oai import ArxivOaiEndpoint
    server = SandboxServer(small_world, endpoints=[ArxivOaiEndpoint(small_world), s2, oa],
                           today=small_world.end_day + dt.timedelta(days=90)).start()
    try:
        store = RawStore(tmp_path / "raw")
        days = world_days(small_world)[:3]
        load_days(database_url, server, store, days)
        with s2_client(server) as s2c, openalex_client(server) as oac, connect(database_url) as conn:
            s2_summary = fetch_s2_papers(conn, s2c, store, DayRange.of(days), EnrichmentSettings())
            oa_summary = fetch_openalex_works(conn, oac, store, DayRange.of(days), EnrichmentSettings())
    finally:
        server.stop()
    assert s2.broken and oa.broken
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT source, partition_key, record_key, reason, payload FROM wove.quarantine "
            "WHERE source <> 'arxiv' ORDER BY source, record_key").fetchall()
        s2_rows = conn.execute("SELECT count(*) FROM wove.s2_papers").fetchone()[0]
        oa_rows = conn.execute("SELECT count(*) FROM wove.openalex_works").fetchone()[0]
    by_source = {}
    for source, _, key, reason, payload in rows:
        by_source.setdefault(source, []).append((key, reason, json.loads(payload)))
    # Each broken record is in quarantine with a reason and its exact payload ...
    assert len(by_source) == 2 and all(by_source.values())
    s2_source = next(s for s in by_source if "s2" in s)
    assert [p for _, _, p in by_source[s2_source]] == s2.broken
    assert all("ParseError" in reason for items in by_source.values() for _, reason, _ in items)
    # ... it is not in the table, and every other record of those batches landed.
    broken_arxiv = {b["externalIds"]["ArXiv"] for b in s2.broken}
    with psycopg.connect(database_url) as conn:
        landed = {r[0] for r in conn.execute("SELECT arxiv_id FROM wove.s2_papers")}
    assert broken_arxiv and not (broken_arxiv & landed)
    assert s2_summary.found == s2_rows > 0 and oa_summary.found == oa_rows > 0
    assert {k for k, _, _ in by_source[s2_source]} == broken_arxiv
