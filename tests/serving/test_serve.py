"""`wove serve` over real HTTP on an ephemeral loopback port, against a published database
(the small sandbox world, ground-truth matching, metrics, publish, and embeddings for part
of it): the pages are the payloads `wove show` prints, search is core/search.py's hybrid
search with the relevance floor, errors are JSON (400 / 404 / 405), and every request reads
as the read-only role."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import threading
import uuid
from urllib.parse import quote

import httpx
import psycopg
import pytest
from psycopg import sql

from tests.conftest import TEMPLATE_DB, url_for
from tests.search.conftest import embedder  # noqa: F401 (the session's loaded model, a fixture)
from wove_pipeline.database import access as db
from wove_pipeline.metrics import compute as metrics
from wove_pipeline.sandbox.seed_fixtures import KNAPFORMER_ID, SEED_PENG_WANG_ID
from wove_pipeline.search import query as search
from wove_pipeline.search.embedding import embed_papers
from wove_pipeline.serving import pages, tables
from wove_pipeline.serving import publish as publishing
from wove_pipeline.serving import server as serve

from .world_db import load_papers, load_static, publish, researcher_id

# measured on this database: its best cosine to any paper is far below the floor
NONSENSE = "zqxj vlorp kwyjibo"
EMBEDDED = 120  # papers embedded (besides the seed papers): enough for a vector list, fast


@pytest.fixture(scope="module")
def published(pg_server, small_world, embedder):  # noqa: F811
    name = f"t_serve_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name), sql.Identifier(TEMPLATE_DB)))
    url = url_for(pg_server.admin_url, name)
    with db.transaction(url) as conn:
        load_static(conn, small_world)
        conn.execute("UPDATE wove.institutions SET ror = regexp_replace(ror, '^.*/', '') WHERE ror IS NOT NULL")
        load_papers(conn, small_world, small_world.papers)
        metrics.update_metrics(conn)
    seed = [p.arxiv_id for p in small_world.papers if any(a.person_id == SEED_PENG_WANG_ID for a in p.authors)]
    ids = list(dict.fromkeys([KNAPFORMER_ID, *seed, *(p.arxiv_id for p in small_world.papers[:EMBEDDED])]))
    with db.connect(url, autocommit=True) as conn:
        embed_papers(conn, embedder, arxiv_ids=ids)
    publish(url)
    yield url
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture(scope="module")
def server(published, embedder):  # noqa: F811
    srv = serve.make_server(published, host="127.0.0.1", port=0, embedder=embedder, quiet=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(10)


@pytest.fixture(scope="module")
def http(server):
    host, port = server.server_address[:2]
    with httpx.Client(base_url=f"http://{host}:{port}", timeout=60) as client:
        yield client


@pytest.fixture
def conn(published):
    with db.connect(published) as c:
        yield c


def shown(payload) -> object:
    """A payload as `wove show` prints it, read back."""
    return json.loads(pages.to_json(payload))


def get_json(http, path: str, status: int = 200):
    response = http.get(path)
    assert response.status_code == status, (path, response.text)
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    return response.json()


# ---------------------------------------------------------------------------------------
# pages: the same payloads as `wove show`

def test_paper_page_is_the_show_payload(http, conn, small_world):
    page = get_json(http, f"/papers/{KNAPFORMER_ID}")
    assert page == shown(pages.paper_page(conn, KNAPFORMER_ID))
    assert page["arxiv_id"] == KNAPFORMER_ID and page["redirect"] is True  # the id alone: redirect to the slug
    assert page["title"] == "KnapFormer: An Online Load Balancer for Efficient Diffusion Transformers Training"
    assert [a["name"] for a in page["author_list"]] == ["Kai Zhang", "Peng Wang", "Sai Bi", "Jianming Zhang",
                                                         "Yuanjun Xiong"]
    assert page["authors_short"] == "Kai Zhang, Peng Wang, Sai Bi et al."
    assert page["primary_category"] == "cs.DC" and page["categories"] == ["cs.DC", "cs.CV"]
    assert page["published"].startswith("2025-08-08")
    by_slug = get_json(http, f"/papers/{page['slug']}")
    assert by_slug["redirect"] is False and by_slug == {**page, "redirect": False}
    old = next((p for p in small_world.papers if "/" in p.arxiv_id), None)
    if old is not None:  # an old-style id carries a '/' in the path
        assert get_json(http, f"/papers/{old.arxiv_id}")["arxiv_id"] == old.arxiv_id


def test_researcher_page_is_the_show_payload(http, conn):
    rid = researcher_id(SEED_PENG_WANG_ID)
    key = f"{rid}-peng-wang"
    page = get_json(http, f"/researchers/{key}?category=cs.DC")
    route = pages.resolve_researcher(conn, key)
    assert page == shown(pages.researcher_page(conn, route["researcher_id"], category="cs.DC", requested=key))
    assert page["id"] == rid and page["display_name"] == "Peng Wang" and page["redirect"] is False
    assert [p["arxiv_id"] for p in page["papers"]["items"]] == [KNAPFORMER_ID]  # the cs.DC filter: KnapFormer only
    assert page["papers"]["total"] == 1 and page["papers"]["category"] == "cs.DC"
    full = get_json(http, f"/researchers/{rid}?page=1")
    assert full["redirect"] is True and full["papers"]["total"] == full["papers_here"] == 6
    assert full["author_position"]["middle"] == 6


def test_institution_page_by_ror_url(http, conn, small_world):
    inst = next(i for i in small_world.institutions.values() if i.display_name == "Adobe Research")
    bare = inst.ror.rstrip("/").rsplit("/", 1)[1]
    for key in (quote(f"https://ror.org/{bare}", safe=""), f"https://ror.org/{bare}", inst.institution_id,
                quote("Adobe Research")):
        page = get_json(http, f"/institutions/{key}")
        assert page == shown(pages.institution_page(conn, inst.institution_id)) | {"resolved_by": page["resolved_by"]}
        assert page["id"] == inst.institution_id and page["json_ld"][0]["sameAs"] == [f"https://ror.org/{bare}"]


# ---------------------------------------------------------------------------------------
# search, related papers, the relevance floor

def test_search_is_core_search_with_the_floor(http, conn, embedder):  # noqa: F811
    q = "online load balancer knapsack diffusion transformers"
    body = get_json(http, f"/search?q={quote(q)}&limit=10")
    hits = search.search_papers(conn, embedder, q, limit=10, min_similarity=search.RELEVANCE_FLOOR)
    assert [r["arxiv_id"] for r in body["results"]] == [h.arxiv_id for h in hits]
    assert body["results"][0]["arxiv_id"] == KNAPFORMER_ID
    top, hit = body["results"][0], hits[0]
    record = pages.paper_page(conn, KNAPFORMER_ID)
    assert top == {
        "arxiv_id": KNAPFORMER_ID, "slug": record["slug"], "url": f"/papers/{record['slug']}",
        "title": record["title"], "authors": record["authors"], "primary_category": "cs.DC",
        "categories": ["cs.DC", "cs.CV"], "published": record["published"],
        "cited_by_count": record["cited_by_count"], "score": hit.score, "similarity": hit.similarity,
        "ranks": {"lexical": hit.lexical_rank, "vector": hit.vector_rank, "title": hit.title_rank},
    }
    assert top["ranks"]["lexical"] == 1 and top["similarity"] > search.RELEVANCE_FLOOR
    assert {k: body[k] for k in ("query", "filters", "limit", "relevance_floor", "count")} == {
        "query": q, "filters": {"category": None, "from": None, "until": None}, "limit": 10,
        "relevance_floor": search.RELEVANCE_FLOOR, "count": len(hits)}
    # every vector-only hit clears the floor
    assert all(r["similarity"] >= search.RELEVANCE_FLOOR for r in body["results"] if r["ranks"]["lexical"] is None
               and r["ranks"]["title"] is None)
    # filters reach core search
    body = get_json(http, f"/search?q={quote(q)}&category=cs.CV&category=cs.GR&from=2025-08-08&until=2025-08-08")
    hits = search.search_papers(conn, embedder, q, categories=["cs.CV", "cs.GR"], published_from=dt.date(2025, 8, 8),
                                published_until=dt.date(2025, 8, 8), min_similarity=search.RELEVANCE_FLOOR)
    assert [r["arxiv_id"] for r in body["results"]] == [h.arxiv_id for h in hits]
    assert body["filters"] == {"category": ["cs.CV", "cs.GR"], "from": "2025-08-08", "until": "2025-08-08"}


def test_a_nonsense_query_finds_nothing(http, conn, embedder):  # noqa: F811
    body = get_json(http, f"/search?q={quote(NONSENSE)}")
    assert body["results"] == [] and body["count"] == 0
    # without the floor the vector list would have answered with weak neighbours
    weak = search.search_papers(conn, embedder, NONSENSE)
    assert len(weak) == 24 and all(h.lexical_rank is None and h.title_rank is None for h in weak)
    assert max(h.similarity for h in weak) < search.RELEVANCE_FLOOR


def test_related_papers(http, conn):
    body = get_json(http, f"/papers/{KNAPFORMER_ID}/related?limit=3")
    hits = search.related_papers(conn, KNAPFORMER_ID, limit=3)
    assert len(hits) == 3
    assert [(r["arxiv_id"], r["similarity"]) for r in body["results"]] == [(h.arxiv_id, h.similarity) for h in hits]
    assert body["arxiv_id"] == KNAPFORMER_ID and body["count"] == 3
    assert all(r["url"] == f"/papers/{r['slug']}" for r in body["results"])


def test_name_search(http):
    body = get_json(http, "/search/researchers?q=Peng%20Wang&limit=50")
    same = [r for r in body["results"] if r["display_name"] == "Peng Wang"]
    assert researcher_id(SEED_PENG_WANG_ID) in {r["id"] for r in same} and len(same) >= 3
    assert all(r["url"] == f"/researchers/{r['slug']}" and r["summary"] for r in same)
    body = get_json(http, "/search/institutions?q=Adobe")
    assert body["results"][0]["display_name"] == "Adobe Research" and body["results"][0]["ror"]


# ---------------------------------------------------------------------------------------
# errors

@pytest.mark.parametrize("path", [
    "/papers/2501.99999", "/papers/2501.99999/related", "/researchers/999999999", "/researchers/not-a-number",
    "/institutions/No%20Such%20Institute", "/nowhere", "/", "/search/papers?q=x",
])
def test_unknown_ids_and_paths_are_404(http, path):
    body = get_json(http, path, 404)
    assert body["error"] == "not_found" and body["message"]


@pytest.mark.parametrize("path, words", [
    ("/search", "give a query"),
    ("/search?q=", "empty"),
    ("/search?q=%20%20", "empty"),
    ("/search?q=" + "x" * 501, "too long"),
    ("/search?q=graph&limit=0", "limit must be an integer between 1 and 200"),
    ("/search?q=graph&limit=201", "between 1 and 200"),
    ("/search?q=graph&limit=ten", "not 'ten'"),
    ("/search?q=graph&limit=1&limit=2", "given 2 times"),
    ("/search?q=graph&from=2025-13-01", "from must be a date"),
    ("/search?q=graph&from=2025-08-09&until=2025-08-01", "after the 'until' date"),
    ("/search?q=graph&category=cs.LG%27%3B--", "not an arXiv category"),
    ("/search?q=graph&lmit=3", "unknown parameter 'lmit'"),
    (f"/papers/{KNAPFORMER_ID}?page=2", "unknown parameter 'page'"),
    (f"/papers/{KNAPFORMER_ID}/related?limit=0", "limit must be"),
    ("/researchers/200001?page=0", "page must be"),
    ("/researchers/200001?category=x%20y", "not an arXiv category"),
    ("/search/researchers", "give a name"),
    ("/latest?limit=101", "between 1 and 100"),
    ("/papers/%FF", "not UTF-8"),
])
def test_bad_parameters_are_400(http, path, words):
    body = get_json(http, path, 400)
    assert body["error"] == "bad_request" and words in body["message"], body


def test_other_methods_are_405(http):
    response = http.post("/search?q=graph", content=b"{}")
    assert response.status_code == 405 and response.headers["allow"] == "GET"
    assert response.json()["error"] == "method_not_allowed"
    assert get_json(http, "/health")["status"] == "ok"  # the unread body is not taken for a request
    response = http.request("BREW", "/health")  # http.server's own errors are JSON too
    assert response.status_code == 501 and response.json()["error"] == "not_implemented"


def test_latest_and_health(http, conn):
    body = get_json(http, "/latest?limit=5")
    assert body["results"] == shown(pages.latest_papers(conn, 5))
    health = get_json(http, "/health")
    pub = db.fetch_all(conn, "SELECT publication_id, schema_version FROM serving.publication")[0]
    assert health["status"] == "ok" and health["publication_id"] == pub["publication_id"]
    assert health["schema_version"] == pub["schema_version"]


# ---------------------------------------------------------------------------------------
# the read-only role

def test_every_connection_is_the_read_only_role(server):
    with server.pool.connection() as c:
        assert c.execute("SELECT current_user").fetchone()[0] == tables.READER_ROLE
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            c.execute("SELECT count(*) FROM wove.papers")
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            c.execute("CREATE TABLE serving.x (a int)")


def test_a_reader_login_serves_too_and_a_missing_database_is_one_line(published, embedder):  # noqa: F811
    name = f"site_{uuid.uuid4().hex[:6]}"
    with db.connect(published, autocommit=True) as c:
        publishing.create_reader_login(c, name, "pw")
    head, _, _ = published.partition("?")
    params = psycopg.conninfo.conninfo_to_dict(published)
    reader_url = psycopg.conninfo.make_conninfo(
        **{k: v for k, v in params.items() if k not in ("passfile", "password", "user")}, user=name, password="pw")
    srv = serve.make_server(reader_url, port=0, embedder=embedder, quiet=True)
    try:
        thread = threading.Thread(target=srv.serve_forever, daemon=True)
        thread.start()
        host, port = srv.server_address[:2]
        assert httpx.get(f"http://{host}:{port}/papers/{KNAPFORMER_ID}").json()["arxiv_id"] == KNAPFORMER_ID
    finally:
        srv.shutdown()
        srv.server_close()
    from wove_pipeline.cli.support import CliError
    with pytest.raises(CliError, match="cannot connect"):
        serve.make_server(head.rsplit("/", 1)[0] + "/no_such_db_here", port=0, embedder=embedder)


def test_the_wove_serve_command(published):
    """The real command: it prints its URL, answers, and stops on SIGINT."""
    import signal

    env = {**os.environ, "WOVE_DATABASE_URL": published, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "wove_pipeline.cli", "serve", "--port", "0", "--quiet"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("wove serve: http://127.0.0.1:"), (line, proc.stderr.read() if proc.poll() else "")
        base = line.split()[2]
        assert httpx.get(f"{base}health", timeout=60).json()["status"] == "ok"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
