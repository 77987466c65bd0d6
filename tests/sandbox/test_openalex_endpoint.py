"""The sandbox OpenAlex API, over real HTTP on loopback, checked against the real 2026 samples."""

from __future__ import annotations

import datetime as dt
import json

import httpx
import pytest

from wove_pipeline.sandbox.openalex import OpenAlexEndpoint

from .s2_openalex_world import (
    CITED_ARXIV_ID,
    COLLAB_ARXIV_ID,
    LAGGING_ARXIV_ID,
    RETIRED_AUTHOR,
    RETIRED_WORK,
    SAMPLES,
    TODAY,
    build_world,
    key_paths,
    move_clock,
    serve,
    work_id,
)

OA_SAMPLES = SAMPLES / "openalex"
RATE_HEADERS = ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-credits-used", "x-ratelimit-reset")


def _sample(name: str):
    return json.loads((OA_SAMPLES / name).read_text())


def _doi(arxiv_id: str) -> str:
    return f"https://doi.org/10.48550/arxiv.{arxiv_id}"


@pytest.fixture(scope="module")
def world():
    return build_world()


def _client(world, **kwargs):
    endpoint = OpenAlexEndpoint(world, **kwargs)
    server = serve(world, [endpoint])
    client = httpx.Client(base_url=server.url_for("openalex"), timeout=10, follow_redirects=False)
    client.endpoint, client.server = endpoint, server
    return client


@pytest.fixture
def oa(world):
    client = _client(world)
    yield client
    client.close()
    client.server.stop()


def test_works_list_envelope_and_work_shape_match_sample(oa):
    r = oa.get("/works", params={"filter": f"doi:{_doi(CITED_ARXIV_ID)}", "per_page": 1})
    assert r.status_code == 200
    for h in RATE_HEADERS:
        assert h in r.headers
    got = r.json()
    sample = _sample("works_list_2026_W3038568908.json")
    assert list(got) == list(sample) and list(got["meta"]) == list(sample["meta"])
    assert got["meta"]["count"] == 1 and got["group_by"] == []
    work, ref = got["results"][0], sample["results"][0]
    assert list(work) == list(ref)  # same root keys, same order
    # Every nested path the sandbox emits exists in the real payload, and the authorship
    # objects are complete (the sandbox leaves keywords/concepts/... empty lists).
    assert key_paths(work["authorships"]) == key_paths(ref["authorships"])
    assert key_paths(work["primary_location"]) == key_paths(ref["primary_location"])
    for key in ("ids", "open_access", "citation_normalized_percentile", "biblio", "has_content", "primary_topic"):
        assert key_paths(work[key]) <= key_paths(ref[key]), key
    assert work["authorships"][1]["author"]["id"] is None  # group author
    assert [a["author_position"] for a in work["authorships"]] == ["first", "middle", "last"]
    assert work["doi"] == _doi(CITED_ARXIV_ID)
    assert "https://arxiv.org/abs/" + CITED_ARXIV_ID in {loc["landing_page_url"] for loc in work["locations"]}
    assert work["abstract_inverted_index"]["sandbox"] == [7]  # punctuation stays on the word
    assert work["abstract_inverted_index"]["sandbox."] == [5]
    assert "is_authors_truncated" not in work


def test_doi_forms_and_or_filter_limit(oa, world):
    forms = [_doi(CITED_ARXIV_ID), f"10.48550/arxiv.{CITED_ARXIV_ID}", f"10.48550/ARXIV.{CITED_ARXIV_ID}".upper()]
    for form in forms:
        assert oa.get("/works", params={"filter": f"doi:{form}"}).json()["meta"]["count"] == 1, form
    ids = [p.arxiv_id for p in world.papers][:5] + ["9999.99999"]
    r = oa.get("/works", params={"filter": "doi:" + "|".join(_doi(x) for x in ids), "per_page": 100})
    assert r.json()["meta"]["count"] == 5
    fifty = "|".join(_doi(f"2501.{i:05d}") for i in range(50))
    assert oa.get("/works", params={"filter": f"doi:{fifty}"}).status_code == 200
    r = oa.get("/works", params={"filter": f"doi:{fifty}|{_doi('2501.99999')}"})
    assert r.status_code == 400 and set(r.json()) == {"error", "message"}


def test_invalid_filter_select_and_per_page(oa):
    r = oa.get("/works", params={"filter": "colour:blue"})
    assert r.status_code == 400
    assert r.json() == {"error": "Invalid filter", "message": "Unknown filter field: colour"}
    for bad in (0, 101):
        assert oa.get("/works", params={"per_page": bad}).status_code == 400
    assert oa.get("/works", params={"per_page": 100}).status_code == 200
    r = oa.get("/works", params={"select": "id,doi,display_name", "per_page": 2})
    assert [set(w) for w in r.json()["results"]] == [{"id", "doi", "display_name"}] * 2
    assert oa.get("/works", params={"select": "id,authorships.author"}).status_code == 400
    assert oa.get("/works", params={"select": "nope"}).status_code == 400


def test_cursor_paging_over_an_authors_works_is_complete(oa, world):
    seen, cursor, pages = [], "*", 0
    while True:
        r = oa.get("/works", params={"filter": "authorships.author.id:A5000000001", "per_page": 3, "cursor": cursor})
        meta, results = r.json()["meta"], r.json()["results"]
        pages += 1
        seen += [w["id"] for w in results]
        if meta["next_cursor"] is None:
            assert results == []  # OpenAlex ends with an empty page and a null cursor
            break
        cursor = meta["next_cursor"]
    # 8 works + the cited paper; the lagging one is not there yet; the collaboration lists
    # Wang at position 119, beyond what the author filter sees.
    assert meta["count"] == 9 and len(seen) == len(set(seen)) == 9 and pages == 4
    assert "https://openalex.org/" + work_id(23) not in seen
    page2 = oa.get("/works", params={"filter": "author.id:https://openalex.org/A5000000001", "per_page": 5,
                                     "page": 2}).json()
    assert page2["meta"]["page"] == 2 and len(page2["results"]) == 4 and "next_cursor" not in page2["meta"]


def test_list_truncates_authorships_singleton_does_not(oa):
    listed = oa.get("/works", params={"filter": f"doi:{_doi(COLLAB_ARXIV_ID)}"}).json()["results"][0]
    assert len(listed["authorships"]) == 100 and listed["is_authors_truncated"] is True
    single = oa.get(f"/works/doi:10.48550/arxiv.{COLLAB_ARXIV_ID}")
    assert single.status_code == 200 and len(single.json()["authorships"]) == 120
    assert "is_authors_truncated" not in single.json()
    assert single.headers["x-ratelimit-credits-used"] == "0"  # singletons are free


def test_singletons_by_every_id_form_and_404(oa):
    wid = work_id(20)
    for path in (f"/works/{wid}", f"/works/https://openalex.org/{wid}", f"/works/doi:10.48550/arxiv.{CITED_ARXIV_ID}",
                 f"/works/https://doi.org/10.48550/arXiv.{CITED_ARXIV_ID}"):
        r = oa.get(path)
        assert r.status_code == 200 and r.json()["id"] == "https://openalex.org/" + wid, path
    assert oa.get("/works/W1").status_code == 404
    assert oa.get("/works/doi:10.48550/arxiv.9999.99999").status_code == 404
    assert set(oa.get(f"/works/{wid}", params={"select": "id,title"}).json()) == {"id", "title"}


def test_merged_ids_answer_301_to_the_survivor(oa):
    r = oa.get(f"/works/{RETIRED_WORK}", params={"select": "id"})
    assert r.status_code == 301
    assert r.headers["location"].endswith(f"/openalex/works/{work_id(20)}?select=id")
    follow = oa.get(r.headers["location"])
    assert follow.json() == {"id": "https://openalex.org/" + work_id(20)}
    r = oa.get(f"/authors/{RETIRED_AUTHOR}")
    assert r.status_code == 301 and r.headers["location"].endswith("/openalex/authors/A5000000001")


def test_coverage_lag_with_a_moved_clock(oa):
    flt = {"filter": f"doi:{_doi(LAGGING_ARXIV_ID)}"}
    assert oa.get("/works", params=flt).json()["meta"]["count"] == 0
    assert oa.get(f"/works/doi:10.48550/arxiv.{LAGGING_ARXIV_ID}").status_code == 404
    move_clock(oa.server, TODAY + dt.timedelta(days=3))
    assert oa.get("/works", params=flt).json()["meta"]["count"] == 1
    assert oa.get(f"/works/doi:10.48550/arxiv.{LAGGING_ARXIV_ID}").status_code == 200


def test_author_shape_and_filters(oa):
    sample = _sample("authors_list_2026_A5043579160.json")
    r = oa.get("/authors", params={"filter": "openalex:A5000000001|A5000000004"})
    got = r.json()
    assert got["meta"]["count"] == 2 and list(got) == list(sample)
    wang, lopez = got["results"]
    ref = sample["results"][0]
    assert list(wang) == list(ref)
    for key in ("summary_stats", "ids", "affiliations", "last_known_institutions", "counts_by_year",
                "parsed_longest_name", "topics", "topic_share"):
        assert key_paths(wang[key]) == key_paths(ref[key]), key
    assert wang["orcid"] == "https://orcid.org/0000-0002-1825-0097"
    # Like the sample: top-level orcid null while ids.orcid is set.
    assert lopez["orcid"] is None and lopez["ids"]["orcid"] == "https://orcid.org/0000-0003-0000-0004"
    by_orcid = oa.get("/authors", params={"filter": "orcid:0000-0003-0000-0004"}).json()
    assert [a["id"] for a in by_orcid["results"]] == ["https://openalex.org/A5000000004"]
    assert oa.get("/authors/orcid:0000-0002-1825-0097").json()["id"] == "https://openalex.org/A5000000001"
    assert oa.get("/authors/A5999999999").status_code == 404


def test_institution_shape_and_lookups(oa):
    sample = _sample("institutions_list_2026_I27837315.json")
    got = oa.get("/institutions", params={"filter": "ror:https://ror.org/0abcdef30"}).json()
    inst, ref = got["results"][0], sample["results"][0]
    assert list(inst) == list(ref)
    for key in ("summary_stats", "ids", "geo", "counts_by_year", "roles"):
        assert key_paths(inst[key]) == key_paths(ref[key]), key
    assert inst["display_name_acronyms"] == ["TUM"]
    for path in ("/institutions/I300", "/institutions/ror:0abcdef30", "/institutions/https://ror.org/0abcdef30"):
        assert oa.get(path).json()["id"] == "https://openalex.org/I300", path
    assert oa.get("/institutions", params={"filter": "openalex:I100|I200"}).json()["meta"]["count"] == 2


def test_daily_budget_exhaustion_429_and_reset_next_day(world):
    client = _client(world, daily_budget_usd=0.0003, require_api_key="k")
    try:
        assert client.get("/works").status_code == 401  # no key
        for remaining in ("2", "1", "0"):
            r = client.get("/works", params={"api_key": "k", "per_page": 1})
            assert r.status_code == 200 and r.headers["x-ratelimit-remaining"] == remaining
            assert r.headers["x-ratelimit-limit"] == "3" and r.headers["x-ratelimit-credits-used"] == "1"
            assert 0 < int(r.headers["x-ratelimit-reset"]) <= 86400
        r = client.get("/works", params={"api_key": "k"})
        assert r.status_code == 429 and set(r.json()) == {"error", "message"}
        assert "x-ratelimit-reset" in r.headers
        # Singletons stay free once the list budget is gone.
        assert client.get(f"/works/{work_id(20)}", params={"api_key": "k"}).status_code == 200
        move_clock(client.server, TODAY + dt.timedelta(days=1))
        assert client.get("/works", params={"api_key": "k"}).status_code == 200
        assert client.endpoint.calls["GET /works"] == 6 and client.endpoint.calls["GET /works/{id}"] == 1
    finally:
        client.close()
        client.server.stop()


def test_a_refused_select_field_answers_the_real_400_until_accepted_again(oa):
    """The drift switch: a field the API stops serving is refused like an unknown one."""
    select = "id,doi,authorships,is_authors_truncated"
    params = {"filter": f"doi:{_doi(COLLAB_ARXIV_ID)}", "select": select}
    assert oa.get("/works", params=params).status_code == 200
    oa.server.refuse_fields("openalex", {"is_authors_truncated"})
    r = oa.get("/works", params=params)
    assert r.status_code == 400
    body = r.json()
    assert body["error"] == "Invalid query parameters error."
    assert body["message"].startswith("is_authors_truncated is not a valid select field. Valid fields for select are: ")
    assert "is_authors_truncated" not in body["message"].split(":", 1)[1]
    work = oa.get("/works", params={**params, "select": "id,doi,authorships"}).json()["results"][0]
    assert set(work) == {"id", "doi", "authorships"} and len(work["authorships"]) == 100
    # Entity-scoped: works.X leaves the other entities alone; singletons are refused too.
    oa.server.refuse_fields("openalex", {"works.ids"})
    assert oa.get("/authors", params={"select": "id,ids", "per_page": 1}).status_code == 200
    assert oa.get(f"/works/{work['id'].rsplit('/', 1)[1]}", params={"select": "id,ids"}).status_code == 400
    oa.server.refuse_fields("openalex", ())
    assert oa.get("/works", params=params).status_code == 200
