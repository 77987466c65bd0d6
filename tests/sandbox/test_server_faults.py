"""SandboxServer: routing, clock, counters and every fault kind over real HTTP."""

from __future__ import annotations

import datetime as dt

import httpx
import pytest
from lxml import etree

from wove_pipeline.sandbox.endpoint import Request, Response
from wove_pipeline.sandbox.generator import generate_world
from wove_pipeline.sandbox.server import FaultPlan, SandboxServer

IDENTIFY = {"verb": "Identify"}


class EchoEndpoint:
    name = "echo"
    prefix = "/echo"

    def handle(self, request: Request, today: dt.date) -> Response:
        body = f"{request.method} {request.path} {sorted(request.query)} {today} {len(request.body)}"
        return Response(200, body.encode(), {"Content-Type": "text/plain"})


@pytest.fixture(scope="module")
def world():
    return generate_world(seed=3, papers_per_day=30, days=10)


@pytest.fixture()
def server(world):
    from wove_pipeline.sandbox.arxiv_oai import ArxivOaiEndpoint
    with SandboxServer(world, [ArxivOaiEndpoint(world), EchoEndpoint()]) as s:
        yield s


def test_routing_clock_and_counts(server, world):
    assert server.url_for("arxiv").endswith("/oai") and server.url_for("arxiv").startswith("http://127.0.0.1:")
    assert server.today == world.end_day + dt.timedelta(days=1)
    base = server.url_for("echo").removesuffix("/echo")
    r = httpx.post(base + "/echo/a/b?x=1", content=b"abc")
    assert r.text == f"POST /a/b ['x'] {server.today} 3"
    assert httpx.get(base + "/echo").text.startswith("GET / ")
    assert httpx.get(base + "/nowhere").status_code == 404
    server.today = dt.date(2030, 1, 1)
    assert httpx.get(base + "/echo").text.split()[3] == "2030-01-01"
    assert server.request_counts == {"arxiv": 0, "echo": 3}


def test_default_endpoints_and_arxiv_by_default(world):
    with SandboxServer(world) as s:
        assert list(s.endpoints) == ["arxiv"]
        root = etree.fromstring(httpx.get(s.url_for("arxiv"), params=IDENTIFY).content)
        assert root.tag.endswith("OAI-PMH")
        url = s.url_for("arxiv")
    with pytest.raises(httpx.TransportError):
        httpx.get(url, params=IDENTIFY, timeout=2)  # stopped


def test_429_without_retry_after(server):
    server.set_faults("arxiv", FaultPlan(fail_first=1, fail_first_kind="429"))
    r = httpx.get(server.url_for("arxiv"), params=IDENTIFY)
    assert r.status_code == 429 and "retry-after" not in r.headers
    assert httpx.get(server.url_for("arxiv"), params=IDENTIFY).status_code == 200


def test_503_with_retry_after(server):
    server.set_faults("arxiv", FaultPlan(fail_first=2, fail_first_kind="503", retry_after=0))
    for _ in range(2):
        r = httpx.get(server.url_for("arxiv"), params=IDENTIFY)
        assert r.status_code == 503 and r.headers["retry-after"] == "0"
    assert httpx.get(server.url_for("arxiv"), params=IDENTIFY).status_code == 200
    assert server.fault_counts["arxiv"] == {"503": 2}
    assert server.request_counts["arxiv"] == 3


def test_500(server):
    server.set_faults("arxiv", FaultPlan(fail_first=1, fail_first_kind="500"))
    assert httpx.get(server.url_for("arxiv"), params=IDENTIFY).status_code == 500


def test_timeout(server):
    server.set_faults("arxiv", FaultPlan(fail_first=1, fail_first_kind="timeout", timeout_seconds=1.0))
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(server.url_for("arxiv"), params=IDENTIFY, timeout=0.2)
    assert httpx.get(server.url_for("arxiv"), params=IDENTIFY, timeout=5).status_code == 200


def test_dropped_connection(server):
    server.set_faults("arxiv", FaultPlan(fail_first=1, fail_first_kind="drop"))
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.get(server.url_for("arxiv"), params=IDENTIFY)


def test_truncated_body(server):
    server.set_faults("arxiv", FaultPlan(fail_first=1, fail_first_kind="truncate"))
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.get(server.url_for("arxiv"), params={"verb": "ListRecords", "metadataPrefix": "arXiv"})


def test_malformed_body(server):
    server.set_faults("arxiv", FaultPlan(fail_first=1, fail_first_kind="malformed"))
    r = httpx.get(server.url_for("arxiv"), params=IDENTIFY)
    assert r.status_code == 200
    with pytest.raises(etree.XMLSyntaxError):
        etree.fromstring(r.content)


def test_rates_are_seeded_and_switchable(server):
    plan = FaultPlan(rate_429=0.2, rate_503=0.2, rate_500=0.2, retry_after=0, seed=42)

    def run() -> list[int]:
        server.set_faults("arxiv", plan)
        with httpx.Client() as c:
            return [c.get(server.url_for("arxiv"), params=IDENTIFY).status_code for _ in range(40)]

    first = run()
    assert first == run()  # same seed, same sequence
    assert {429, 503, 500, 200} == set(first)
    server.set_faults("arxiv", None)
    assert httpx.get(server.url_for("arxiv"), params=IDENTIFY).status_code == 200
    with pytest.raises(ValueError):
        FaultPlan(rate_500=0.7, rate_503=0.7)
