"""S2 and OpenAlex clients against the sandbox over real HTTP: batch sizes at the limits,
nulls in place, 301s, budget accounting, backoff on S2's 429."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json

import httpx
import pytest

from wove_pipeline.openalex.client import SELECT, BudgetExhausted, OpenAlexBudget
from wove_pipeline.openalex.parser import AUTHOR_FIELDS, INSTITUTION_FIELDS, WORK_FIELDS
from wove_pipeline.sandbox.openalex import OpenAlexEndpoint
from wove_pipeline.sandbox.semantic_scholar import SemanticScholarEndpoint
from wove_pipeline.sandbox.server import FaultPlan, SandboxServer
from wove_pipeline.upstream.http import UpstreamError, UpstreamRefused

from .conftest import openalex_client, s2_client


@pytest.fixture
def late(sandbox, small_world):
    sandbox.today = small_world.end_day + dt.timedelta(days=90)
    return sandbox


def _known(world, attr):
    return [p.arxiv_id for p in world.papers if getattr(p, attr) is not None]


def test_s2_paper_batches_are_500_ids_with_nulls_in_place(late, small_world):
    known = _known(small_world, "s2")
    unknown = [f"2599.{i:05d}" for i in range(501 - len(known) + 1)]
    ids = known[:250] + unknown + known[250:]  # > 500 ids, unknown ones in the middle
    with s2_client(late) as client:
        batches = list(client.paper_batches(ids))
    assert [len(b.ids) for b in batches] == [500, len(ids) - 500]
    assert late.endpoints["s2"].calls["POST /paper/batch"] == 2
    records = [r for b in batches for r in b.records]
    for arxiv_id, rec in zip(ids, records):
        assert (rec is None) == (arxiv_id in unknown)
        if rec is not None:
            assert rec.arxiv_id == arxiv_id  # aligned with the request, not reordered
    req = json.loads(batches[0].request)
    assert req["ids"] == ids[:500] and "fields" in req and "citationCount" in req["fields"]


def test_s2_author_batches_are_1000_ids(late, small_world):
    ids = sorted(small_world.s2_authors)[:10] + [str(900000000 + i) for i in range(995)]
    with s2_client(late) as client:
        batches = list(client.author_batches(ids))
    assert [len(b.ids) for b in batches] == [1000, 5]
    recs = [r for b in batches for r in b.records]
    assert all(r is not None for r in recs[:10]) and all(r is None for r in recs[10:])


def test_s2_429_without_retry_after_is_backed_off_and_retried(late, small_world):
    late.set_faults("s2", FaultPlan(fail_first=3, fail_first_kind="429"))
    with s2_client(late) as client:
        batch = next(client.paper_batches(_known(small_world, "s2")[:5]))
    assert all(r is not None for r in batch.records)
    assert client.http.retries == 3 and client.http.requests_sent == 4


def test_openalex_works_50_dois_per_call_one_page_each(late, small_world):
    ids = _known(small_world, "openalex")[:120]
    with openalex_client(late) as client:
        pages = [f for f in client.works_by_arxiv_ids(ids) if f.kind == "works_filter"]
    assert [len(p.ids) for p in pages] == [50, 50, 20]  # one call per 50 DOIs: no empty last page
    assert client.budget.list_calls == 3
    found = {r.arxiv_id for p in pages for r in p.records}
    assert found == set(ids)
    params = json.loads(pages[0].request)["params"]
    assert params["per_page"] == 100 and params["filter"].count("|") == 49
    assert params["filter"].startswith("doi:10.48550/arxiv.")


def test_concurrent_fetches_answer_exactly_what_one_at_a_time_does(late, small_world):
    """Several calls in flight (the default) must give the same answers, in the same order,
    for the same number of calls as one call at a time."""
    works = _known(small_world, "openalex")[:420]
    papers = _known(small_world, "s2")[:1300]

    def fetch(concurrency):
        with openalex_client(late, concurrency=concurrency) as oa, s2_client(late, concurrency=concurrency,
                                                                              paper_batch_size=100) as s2:
            got = list(oa.works_by_arxiv_ids(works)) + list(s2.paper_batches(papers))
            return ([(f.kind, f.ids, f.request, f.body) for f in got],
                    oa.budget.list_calls, oa.budget.singleton_calls, oa.calls + s2.calls)

    sequential, concurrent = fetch(1), fetch(4)
    assert concurrent == sequential
    filter_calls, batch_calls = -(-len(works) // 50), -(-len(papers) // 100)
    assert filter_calls >= 4 and batch_calls >= 4  # enough chunks to have several in flight
    assert sequential[1] == filter_calls and sequential[3] == filter_calls + sequential[2] + batch_calls


def test_openalex_truncated_authorships_are_fetched_in_full(late, small_world):
    big = [p for p in small_world.papers if p.openalex and len(p.openalex.authorships) > 100]
    assert big, "the world has collaboration papers"
    with openalex_client(late) as client:
        fetched = list(client.works_by_arxiv_ids([big[0].arxiv_id]))
    kinds = [f.kind for f in fetched]
    assert kinds == ["works_filter", "work_singleton"]
    assert fetched[0].records[0].is_authors_truncated
    assert len(fetched[1].records[0].authorships) == len(big[0].openalex.authorships)
    assert client.budget.list_calls == 1 and client.budget.singleton_calls == 1  # singletons are free


def test_openalex_merged_author_id_follows_the_301(late, small_world):
    retired = sorted((old, new) for old, new in small_world.openalex_redirects.items() if old.startswith("A"))
    assert retired
    old, new = retired[0]
    with openalex_client(late) as client:
        fetched = list(client.authors_by_ids([old]))
    assert [f.kind for f in fetched] == ["authors_filter", "author_singleton"]
    assert fetched[0].records == []  # a retired id is not listed under its old id
    assert fetched[1].ids == [old]
    assert fetched[1].records[0].author_id == new


def test_openalex_stops_before_exceeding_its_own_daily_budget(late, small_world):
    ids = _known(small_world, "openalex")[:250]  # 5 filter calls wanted
    budget = OpenAlexBudget(daily_usd=0.0003, list_call_usd=0.0001, spent_before_usd=0.0)
    before = late.endpoints["openalex"].calls["GET /works"]
    got = []
    with openalex_client(late, budget=budget) as client:
        with pytest.raises(BudgetExhausted):
            for f in client.works_by_arxiv_ids(ids):
                got.append(f)
    assert late.endpoints["openalex"].calls["GET /works"] - before == 3  # never a 4th call
    assert budget.exhausted and budget.summary()["remaining_usd"] == 0.0
    assert len([f for f in got if f.kind == "works_filter"]) == 3


def test_openalex_stops_when_upstream_says_nothing_is_left(small_world):
    endpoint = OpenAlexEndpoint(small_world, daily_budget_usd=0.0002)  # two list calls a day
    with SandboxServer(small_world, endpoints=[endpoint],
                       today=small_world.end_day + dt.timedelta(days=90)) as server:
        budget = OpenAlexBudget(daily_usd=None)
        with openalex_client(server, budget=budget) as client:
            with pytest.raises(BudgetExhausted):
                list(client.works_by_arxiv_ids(_known(small_world, "openalex")[:200]))
        assert endpoint.calls["GET /works"] == 2  # stopped on X-RateLimit-Remaining: 0, no 429
        assert budget.upstream_remaining == "0"


def test_wrong_s2_key_is_an_error_not_retried(small_world):
    endpoint = SemanticScholarEndpoint(small_world, api_key="right-key")
    with SandboxServer(small_world, endpoints=[endpoint]) as server:
        with s2_client(server, api_key="wrong-key-123") as client:
            with pytest.raises(UpstreamError) as err:
                next(client.paper_batches(["2508.06001"]))
    assert err.value.status == 403
    assert "wrong-key-123" not in str(err.value)
    assert endpoint.calls["POST /paper/batch"] == 1


def test_openalex_every_call_selects_the_fields_the_parser_reads(late, small_world):
    """List calls, the singleton of a truncated work, the 301 of a merged author and the 404
    of an unknown institution all carry `select=`; what comes back holds those fields only."""
    collab = next(p.arxiv_id for p in small_world.papers if p.openalex and len(p.openalex.authorships) > 100)
    works = [collab] + _known(small_world, "openalex")[:60]
    retired = sorted(old for old in small_world.openalex_redirects if old.startswith("A"))[0]
    authors = [retired] + sorted(small_world.openalex_authors)[:10]
    institutions = sorted(small_world.institutions)[:5] + ["I1"]  # I1: unknown, a singleton's 404
    sent: list[httpx.URL] = []
    with openalex_client(late) as client:
        # Every request httpx sends, redirects and retries included (the HTTP layer's own client).
        client.http._client.event_hooks["request"].append(lambda request: sent.append(request.url))
        fetched = [*client.works_by_arxiv_ids(works), *client.authors_by_ids(authors),
                   *client.institutions_by_ids(institutions)]
    assert {f.kind for f in fetched} == {"works_filter", "work_singleton", "authors_filter", "author_singleton",
                                         "institutions_filter"}
    paths = [url.path.removeprefix("/openalex") for url in sent]
    assert {p.count("/") for p in paths} == {1, 2}  # lists and singletons
    assert sum(p.startswith("/authors/") for p in paths) == 2  # the retired id, then its survivor
    assert "/institutions/I1" in paths
    for url, path in zip(sent, paths):
        assert url.params.get_list("select") == [SELECT[path.split("/")[1]]], url
    fields = {"works": WORK_FIELDS, "authors": AUTHOR_FIELDS, "institutions": INSTITUTION_FIELDS}
    for f in fetched:
        request = json.loads(f.request)  # as kept in the raw layer
        entity = request["path"].split("/")[1]
        assert request["params"]["select"] == SELECT[entity]
        body = json.loads(f.body)
        for record in body.get("results", [body]):
            assert set(record) <= set(fields[entity]), f.kind


def _records(fetched):
    return [(f.kind, f.ids, r) for f in fetched for r in f.records]


def test_openalex_drops_a_refused_select_field_once_and_gets_the_same_works(late, small_world, caplog):
    """Upstream drift: the API refuses `is_authors_truncated` in select (a real 2026 400).
    The client asks once more without it, warns once, names it, and the works are the same:
    a list result with the 100 authorships a list holds is completed from its singleton."""
    big = next(p.arxiv_id for p in small_world.papers if p.openalex and len(p.openalex.authorships) > 100)
    ids = [big] + _known(small_world, "openalex")[:300]
    endpoint = late.endpoints["openalex"]
    with openalex_client(late) as client:
        before = _records(client.works_by_arxiv_ids(ids))
    assert client.dropped_fields == {}
    calls0 = sum(endpoint.calls.values())
    late.refuse_fields("openalex", {"is_authors_truncated"})
    caplog.set_level("WARNING", logger="wove_pipeline.openalex.client")
    with openalex_client(late) as client:  # four calls in flight: they may all meet the 400
        fetched = list(client.works_by_arxiv_ids(ids))
    after = _records(fetched)
    assert client.dropped_fields == {"works": ["is_authors_truncated"]}
    warned = [r for r in caplog.records if "is_authors_truncated" in r.getMessage()]
    assert len(warned) == 1 and warned[0].levelname == "WARNING"
    assert "not a valid select field" in warned[0].getMessage()  # the upstream's own words
    # Same works, same full author lists (the flag is the one difference: False when not asked).
    assert [(k, i, dataclasses.replace(r, is_authors_truncated=False)) for k, i, r in before] == after
    singleton = next(r for k, _i, r in after if k == "work_singleton")
    assert len(singleton.authorships) > 100
    for f in fetched:  # what the raw layer keeps says what was asked
        assert "is_authors_truncated" not in json.loads(f.request)["params"]["select"].split(",")
    refused = sum(endpoint.calls.values()) - calls0 - len(fetched)
    assert 1 <= refused <= client.concurrency  # the 400s: at most one per call in flight, then none


def test_openalex_refused_optional_field_leaves_the_rest_of_the_record(late, small_world):
    ids = _known(small_world, "openalex")[:60]
    with openalex_client(late) as client:
        before = _records(client.works_by_arxiv_ids(ids))
    late.refuse_fields("openalex", {"language"})
    with openalex_client(late, concurrency=1) as client:
        after = _records(client.works_by_arxiv_ids(ids))
    assert client.dropped_fields == {"works": ["language"]}
    assert any(r.language for _k, _i, r in before)
    assert [(k, i, dataclasses.replace(r, language=None)) for k, i, r in before] == after
    assert late.endpoints["openalex"].calls["GET /works"] == 2 + 2 + 1  # one 400, asked again once


def test_openalex_refusing_a_field_the_matching_needs_fails_fast_with_the_message(late, small_world):
    late.refuse_fields("openalex", {"doi"})
    with openalex_client(late) as client:
        with pytest.raises(UpstreamRefused) as info:
            list(client.works_by_arxiv_ids(_known(small_world, "openalex")[:10]))
    assert info.value.status == 400 and "doi is not a valid select field" in str(info.value)
    assert late.endpoints["openalex"].calls["GET /works"] == 1 and client.http.retries == 0


def test_s2_drops_a_refused_field_once_and_gets_the_same_records(late, small_world, caplog):
    ids = _known(small_world, "s2")[:300]
    with s2_client(late, paper_batch_size=100) as client:
        before = [r for b in client.paper_batches(ids) for r in b.records]
    late.refuse_fields("s2", {"venue"})
    caplog.set_level("WARNING", logger="wove_pipeline.semantic_scholar.client")
    with s2_client(late, paper_batch_size=100, concurrency=1) as client:
        batches = list(client.paper_batches(ids))
    after = [r for b in batches for r in b.records]
    assert client.dropped_fields == {"paper": ["venue"]}
    assert len([r for r in caplog.records if "venue" in r.getMessage()]) == 1
    assert any(r.venue for r in before if r)
    assert [r and dataclasses.replace(r, venue=None) for r in before] == after
    assert all("venue" not in json.loads(b.request)["fields"].split(",") for b in batches)
    assert late.endpoints["s2"].calls["POST /paper/batch"] == 3 + 3 + 1
    late.refuse_fields("s2", {"paperId"})  # the id a record is keyed by: no way on without it
    with s2_client(late) as client:
        with pytest.raises(UpstreamRefused, match=r"Unrecognized or unsupported fields: \[paperId\]"):
            list(client.paper_batches(ids[:5]))
