"""The sandbox S2 Graph API, over real HTTP on loopback, checked against the real samples."""

from __future__ import annotations

import datetime as dt
import json

import httpx
import pytest

from wove_pipeline.sandbox.semantic_scholar import SemanticScholarEndpoint

from .s2_openalex_world import (
    CITED_ARXIV_ID,
    LAGGING_ARXIV_ID,
    OLD_STYLE_ID,
    SAMPLES,
    TODAY,
    build_world,
    key_paths,
    move_clock,
    s2_id,
    serve,
)

S2_SAMPLES = SAMPLES / "semanticscholar"
# The field list of the recorded batch request (README of upstream-samples).
SAMPLE_BATCH_FIELDS = (
    "abstract,authors,citationCount,citationStyles,corpusId,externalIds,fieldsOfStudy,"
    "influentialCitationCount,isOpenAccess,journal,openAccessPdf,paperId,publicationDate,"
    "publicationTypes,publicationVenue,referenceCount,s2FieldsOfStudy,title,url,venue,year"
)
AUTHOR_PAGE_FIELDS = "affiliations,authorId,citationCount,externalIds,hIndex,homepage,name,paperCount,url"


def _sample(name: str):
    return json.loads((S2_SAMPLES / name).read_text())


@pytest.fixture(scope="module")
def world():
    return build_world()


@pytest.fixture
def s2(world):
    endpoint = SemanticScholarEndpoint(world)
    server = serve(world, [endpoint])
    with httpx.Client(base_url=server.url_for("s2"), timeout=10) as client:
        client.endpoint, client.server = endpoint, server
        yield client
    server.stop()


def test_paper_batch_matches_sample_shape_and_keeps_nulls_in_place(s2):
    ids = ["CorpusId:1", f"ARXIV:{CITED_ARXIV_ID}", "nonsense", f"arXiv:{OLD_STYLE_ID}", f"ARXIV:{LAGGING_ARXIV_ID}"]
    r = s2.post("/paper/batch", params={"fields": SAMPLE_BATCH_FIELDS}, json={"ids": ids})
    assert r.status_code == 200
    got = r.json()
    assert len(got) == len(ids)
    assert got[0] is None and got[2] is None
    assert got[4] is None  # coverage lag: not known to S2 yet
    sample = _sample("paper_batch_with_null.json")
    sample_paper = next(x for x in sample if x)
    for paper in (got[1], got[3]):
        assert list(paper) == list(sample_paper)  # same keys, same order
        assert isinstance(paper["corpusId"], int) and isinstance(paper["externalIds"]["CorpusId"], int)
        assert {a.keys() == {"authorId", "name"} for a in paper["authors"]} == {True}
    assert got[1]["externalIds"]["ArXiv"] == CITED_ARXIV_ID
    assert got[1]["authors"][1] == {"authorId": None, "name": "ATLAS Collaboration"}
    assert got[3]["externalIds"]["DOI"] == "10.1103/PhysRevD.59.000001"
    for key in ("openAccessPdf", "journal", "citationStyles"):
        assert set(got[1][key]) <= set(sample_paper[key]) | {"volume"}


def test_batch_resolves_every_id_form(s2, world):
    paper = next(p for p in world.papers if p.arxiv_id == OLD_STYLE_ID)
    ids = [paper.s2.paper_id, paper.s2.paper_id.upper(), f"CorpusId:{paper.s2.corpus_id}",
           "DOI:10.1103/physrevd.59.000001", "10.1103/PhysRevD.59.000001", f"ARXIV:{OLD_STYLE_ID}",
           f"URL:https://arxiv.org/abs/{OLD_STYLE_ID}", f"ARXIV:{OLD_STYLE_ID}v1"]
    got = s2.post("/paper/batch", json={"ids": ids}).json()
    assert [g and g["paperId"] for g in got] == [paper.s2.paper_id] * 7 + [None]  # versions are not ids
    assert set(got[0]) == {"paperId", "title"}  # default fields


def test_batch_limits_and_bad_fields(s2):
    assert s2.post("/paper/batch", json={"ids": ["x"] * 500}).status_code == 200
    r = s2.post("/paper/batch", json={"ids": ["x"] * 501})
    assert r.status_code == 400 and "error" in r.json()
    assert s2.post("/paper/batch", json={"ids": []}).status_code == 400
    assert s2.post("/author/batch", json={"ids": ["1"] * 1000}).status_code == 200
    assert s2.post("/author/batch", json={"ids": ["1"] * 1001}).status_code == 400
    r = s2.post("/paper/batch", params={"fields": "title,unknown"}, json={"ids": ["x"]})
    assert r.status_code == 400 and r.json() == {"error": "Unrecognized or unsupported fields: [unknown]"}
    r = s2.get(f"/paper/ARXIV:{CITED_ARXIV_ID}", params={"fields": "authors.bogus"})
    assert r.status_code == 400


def test_author_batch_and_author_shapes(s2):
    r = s2.post("/author/batch", params={"fields": "name"}, json={"ids": ["0", "1001", "1005", "1002"]})
    got = r.json()
    sample = _sample("author_batch_with_null.json")
    assert got[0] is None and got[2] is None  # unknown; known only through a lagging paper
    assert set(got[1]) == set(sample[1]) and isinstance(got[1]["authorId"], str)
    detail_fields = AUTHOR_PAGE_FIELDS + ",papers.title,papers.externalIds"
    one = s2.get("/author/1001", params={"fields": detail_fields}).json()
    sample_detail = _sample("author_detail_with_papers.json")
    assert list(one) == list(sample_detail)
    assert one["externalIds"] == {"DBLP": ["Peng Wang 0001"], "ORCID": "0000-0002-1825-0097"}
    assert LAGGING_ARXIV_ID not in {p["externalIds"]["ArXiv"] for p in one["papers"]}
    r = s2.get("/author/0")
    assert r.status_code == 404 and r.json() == {"error": "Author with id 0 not found"}


def test_paper_singleton_and_404(s2):
    r = s2.get(f"/paper/ARXIV:{OLD_STYLE_ID}", params={"fields": "title,authors.name,authors.hIndex"})
    assert r.status_code == 200
    assert r.json()["authors"] == [{"authorId": "1004", "name": "Ana Lopez", "hIndex": 1}]
    r = s2.get("/paper/0")
    assert r.status_code == 404 and r.json() == {"error": "Paper with id 0 not found"}


def test_lag_honoured_when_the_clock_moves(s2):
    ident = f"ARXIV:{LAGGING_ARXIV_ID}"
    assert s2.get(f"/paper/{ident}").status_code == 404
    move_clock(s2.server, TODAY + dt.timedelta(days=3))
    assert s2.get(f"/paper/{ident}").json()["paperId"] == s2_id(LAGGING_ARXIV_ID)
    assert s2.post("/author/batch", json={"ids": ["1005"]}).json()[0]["authorId"] == "1005"


def test_citations_paging_is_complete_and_last_page_has_no_next(s2, world):
    cited = next(p for p in world.papers if p.arxiv_id == CITED_ARXIV_ID)
    seen, offset, pages = [], 0, []
    while True:
        r = s2.get(f"/paper/ARXIV:{CITED_ARXIV_ID}/citations",
                   params={"offset": offset, "limit": 100, "fields": "title,year,isInfluential"})
        assert r.status_code == 200
        page = r.json()
        pages.append(page)
        assert page["offset"] == offset
        seen += [item["citingPaper"]["paperId"] for item in page["data"]]
        if "next" not in page:
            break
        offset = page["next"]
    assert [p["offset"] for p in pages] == [0, 100, 200]
    assert seen == cited.s2.citing_paper_ids  # all 250, in order, no duplicates
    assert set(pages[0]["data"][0]) == {"isInfluential", "citingPaper"}
    assert set(pages[0]["data"][0]["citingPaper"]) == {"paperId", "title", "year"}
    assert s2.get(f"/paper/ARXIV:{CITED_ARXIV_ID}/citations", params={"limit": 1001}).status_code == 400


def test_paper_authors_page_matches_sample(s2):
    r = s2.get(f"/paper/ARXIV:{CITED_ARXIV_ID}/authors",
               params={"fields": AUTHOR_PAGE_FIELDS, "offset": 0, "limit": 100})
    page = r.json()
    sample = _sample("paper_authors_page.json")
    assert set(page) == set(sample) == {"offset", "data"}
    # 1001 also has an ORCID (claimed profile), which the sample authors lack; 1002 has neither
    assert key_paths(page["data"][0]) == key_paths(sample["data"][0]) | {"externalIds.ORCID"}
    assert key_paths(page["data"][2]) == key_paths(sample["data"][2])
    assert [a["authorId"] for a in page["data"]] == ["1001", None, "1002"]
    two = s2.get(f"/paper/ARXIV:{CITED_ARXIV_ID}/authors", params={"limit": 2}).json()
    assert two["next"] == 2 and [set(a) for a in two["data"]] == [{"authorId", "name"}] * 2


def test_api_key_and_rate_limit_429_without_retry_after(world):
    now = [0.0]
    endpoint = SemanticScholarEndpoint(world, rate_per_second=1.0, api_key="secret", clock=lambda: now[0])
    server = serve(world, [endpoint])
    try:
        with httpx.Client(base_url=server.url_for("s2"), timeout=10) as client:
            assert client.get("/paper/0", headers={"x-api-key": "wrong"}).status_code == 403
            ok = client.get(f"/paper/ARXIV:{CITED_ARXIV_ID}", headers={"x-api-key": "secret"})
            assert ok.status_code == 200
            r = client.get(f"/paper/ARXIV:{CITED_ARXIV_ID}", headers={"x-api-key": "secret"})
            assert r.status_code == 429
            assert "retry-after" not in r.headers
            assert r.json() == {
                "message": "Too Many Requests. Please wait and try again or apply for a key for higher rate "
                "limits. https://www.semanticscholar.org/product/api#api-key-form",
                "code": "429",
            }
            now[0] += 1.0  # one second later the client may call again
            assert client.get(f"/paper/ARXIV:{CITED_ARXIV_ID}", headers={"x-api-key": "secret"}).status_code == 200
        assert endpoint.calls["GET /paper/{id}"] == 4
    finally:
        server.stop()


def test_calls_are_counted_by_route(s2):
    s2.post("/paper/batch", json={"ids": ["x"]})
    s2.post("/paper/batch", json={"ids": ["x"]})
    s2.get(f"/paper/ARXIV:{CITED_ARXIV_ID}/citations")
    assert s2.endpoint.calls["POST /paper/batch"] == 2
    assert s2.endpoint.calls["GET /paper/{id}/citations"] == 1


def test_a_refused_field_answers_s2s_400_until_accepted_again(s2):
    """The drift switch: a field S2 stops serving is refused like an unknown one."""
    params = {"fields": "paperId,title,venue"}
    body = {"ids": [f"ARXIV:{CITED_ARXIV_ID}"]}
    assert s2.post("/paper/batch", params=params, json=body).status_code == 200
    s2.server.refuse_fields("s2", {"venue"})
    r = s2.post("/paper/batch", params=params, json=body)
    assert r.status_code == 400 and r.json() == {"error": "Unrecognized or unsupported fields: [venue]"}
    assert s2.post("/paper/batch", params={"fields": "paperId,title"}, json=body).status_code == 200
    s2.server.refuse_fields("s2", {"hIndex"})
    r = s2.post("/author/batch", params={"fields": "name,hIndex"}, json={"ids": ["1"]})
    assert r.status_code == 400 and r.json() == {"error": "Unrecognized or unsupported fields: [hIndex]"}
    s2.server.refuse_fields("s2", ())
    assert s2.post("/paper/batch", params=params, json=body).status_code == 200
