"""The sandbox arXiv OAI-PMH endpoint over real HTTP (plain httpx + lxml, no pipeline code)."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from urllib.parse import parse_qs, unquote

import httpx
import pytest
from lxml import etree

from wove_pipeline.sandbox.generator import generate_world
from wove_pipeline.sandbox.seed_fixtures import KNAPFORMER_ID
from wove_pipeline.sandbox.server import SandboxServer

OAI = "http://www.openarchives.org/OAI/2.0/"
ARXIV = "http://arxiv.org/OAI/arXiv/"
RAW = "http://arxiv.org/OAI/arXivRaw/"
NS = {"o": OAI, "a": ARXIV, "r": RAW}
SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "upstream-samples" / "arxiv"


@pytest.fixture(scope="module")
def world():
    # 6,000 records: more than two 2,500-record pages
    return generate_world(seed=7, papers_per_day=600, days=10)


@pytest.fixture(scope="module")
def server(world):
    with SandboxServer(world) as s:
        yield s


@pytest.fixture(scope="module")
def client():
    with httpx.Client(timeout=30) as c:
        yield c


def oai(client, server, **params) -> etree._Element:
    r = client.get(server.url_for("arxiv"), params=params)
    assert r.status_code == 200  # OAI errors included
    assert r.headers["content-type"].startswith("text/xml")
    return etree.fromstring(r.content)


def error_code(root) -> str | None:
    err = root.find("o:error", NS)
    return err.get("code") if err is not None else None


def harvest(client, server, **params) -> tuple[list[etree._Element], list[etree._Element]]:
    """All records of a list request following resumption tokens; also the token elements."""
    records, tokens = [], []
    root = oai(client, server, verb="ListRecords", **params)
    while True:
        assert error_code(root) is None, etree.tostring(root)[:500]
        records += root.findall("o:ListRecords/o:record", NS)
        token = root.find("o:ListRecords/o:resumptionToken", NS)
        if token is None:
            break
        tokens.append(token)
        if not token.text:
            break
        root = oai(client, server, verb="ListRecords", resumptionToken=token.text)
    return records, tokens


def ids_of(records) -> list[str]:
    return [r.findtext("o:header/o:identifier", namespaces=NS).removeprefix("oai:arXiv.org:") for r in records]


def test_full_harvest_pages_with_stateless_tokens(client, server, world):
    records, tokens = harvest(client, server, metadataPrefix="arXiv")
    assert len(records) == len(world.papers) == 6000
    expected = [p.arxiv_id for p in sorted(world.papers, key=lambda p: (p.datestamp, p.arxiv_id))]
    assert ids_of(records) == expected
    assert len(tokens) == 3  # two full tokens then the empty last-page token
    for token in tokens[:-1]:
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T00:00:00Z", token.get("expirationDate"))
        assert token.get("cursor") is None and token.get("completeListSize") is None
        assert token.text.startswith("verb%3DListRecords%26from%3D")
        decoded = parse_qs(unquote(token.text))
        assert decoded["metadataPrefix"] == ["arXiv"] and int(decoded["skip"][0]) > 0
    assert tokens[-1].text is None and not tokens[-1].attrib  # <resumptionToken/>


def test_token_moves_from_to_the_last_day_shown(client, server, world):
    root = oai(client, server, verb="ListRecords", metadataPrefix="arXivRaw", **{"from": "2025-08-04"})
    page = root.findall("o:ListRecords/o:record", NS)
    assert len(page) == 2500
    last_day = page[-1].findtext("o:header/o:datestamp", namespaces=NS)
    decoded = parse_qs(unquote(root.find("o:ListRecords/o:resumptionToken", NS).text))
    shown_that_day = sum(1 for r in page if r.findtext("o:header/o:datestamp", namespaces=NS) == last_day)
    assert decoded["from"] == [last_day] and decoded["skip"] == [str(shown_that_day)]


def test_inclusive_single_day(client, server, world):
    day = dt.date(2025, 8, 6)
    records, _ = harvest(client, server, metadataPrefix="arXiv", **{"from": "2025-08-06", "until": "2025-08-06"})
    assert sorted(ids_of(records)) == sorted(p.arxiv_id for p in world.papers if p.datestamp == day)
    assert all(r.findtext("o:header/o:datestamp", namespaces=NS) == "2025-08-06" for r in records)


def test_set_filtering(client, server, world):
    for spec, match in [
        ("cs", lambda c: c.startswith("cs.")),
        ("cs:cs:LG", lambda c: c == "cs.LG"),
        ("physics:hep-th", lambda c: c == "hep-th"),
        ("physics:astro-ph:CO", lambda c: c == "astro-ph.CO"),
        ("physics:astro-ph", lambda c: c.startswith("astro-ph")),
    ]:
        records, _ = harvest(client, server, metadataPrefix="arXiv", set=spec, **{"from": "2025-08-11"})
        expected = {p.arxiv_id for p in world.papers
                    if p.datestamp >= dt.date(2025, 8, 11) and any(match(c) for c in p.categories)}
        assert expected and set(ids_of(records)) == expected, spec
    root = oai(client, server, verb="ListRecords", metadataPrefix="arXiv", set="moo")
    assert error_code(root) == "badArgument" and root.findtext("o:error", namespaces=NS) == "Set does not exist"
    root = oai(client, server, verb="ListRecords", metadataPrefix="arXiv", set="cs:cs:OS", **{"from": "2025-08-11"})
    assert error_code(root) == "noRecordsMatch"  # a real set with nothing in range


def test_header_set_specs_one_per_category(client, server):
    root = oai(client, server, verb="GetRecord", metadataPrefix="arXiv", identifier=f"oai:arXiv.org:{KNAPFORMER_ID}")
    assert [e.text for e in root.findall(".//o:header/o:setSpec", NS)] == ["cs:cs:DC", "cs:cs:CV"]


def test_errors(client, server):
    assert error_code(oai(client, server, verb="ListRecords", metadataPrefix="arXiv",
                          **{"from": "2001-01-01", "until": "2005-12-31"})) == "badArgument"  # before earliest
    assert error_code(oai(client, server, verb="ListRecords", metadataPrefix="arXiv",
                          **{"from": "2010-01-01", "until": "2010-01-31"})) == "noRecordsMatch"
    for bad in ("2025-08-04T00:00:00Z", "2025-8-4", "20250804", "2025-02-30"):
        assert error_code(oai(client, server, verb="ListRecords", metadataPrefix="arXiv", **{"from": bad})) == "badArgument"
    tomorrow = server.today + dt.timedelta(days=1)
    assert error_code(oai(client, server, verb="ListIdentifiers", metadataPrefix="arXiv",
                          **{"from": "2025-08-13", "until": tomorrow.isoformat()})) is None
    assert error_code(oai(client, server, verb="ListRecords", metadataPrefix="arXiv",
                          until=(tomorrow + dt.timedelta(days=1)).isoformat())) == "badArgument"
    assert error_code(oai(client, server, verb="ListRecords", metadataPrefix="marc")) == "cannotDisseminateFormat"
    assert error_code(oai(client, server, verb="Nope")) == "badVerb"
    assert error_code(oai(client, server, verb="ListRecords", metadataPrefix="arXiv", bogus="1")) == "badArgument"
    r = client.get(server.url_for("arxiv") + "?verb=ListRecords&metadataPrefix=arXiv&metadataPrefix=arXiv")
    assert error_code(etree.fromstring(r.content)) == "badArgument"  # repeated argument
    token = "verb%3DListRecords%26from%3D2025-08-04%26metadataPrefix%3DarXiv%26skip%3D10"
    assert error_code(oai(client, server, verb="ListRecords", resumptionToken=token)) is None
    assert error_code(oai(client, server, verb="ListRecords", resumptionToken=token, metadataPrefix="arXiv")) == "badArgument"
    assert error_code(oai(client, server, verb="ListRecords", resumptionToken="garbage!!")) == "badResumptionToken"
    assert error_code(oai(client, server, verb="ListIdentifiers", resumptionToken=token)) == "badResumptionToken"
    assert error_code(oai(client, server, verb="GetRecord", metadataPrefix="arXiv",
                          identifier="oai:arXiv.org:9999.99999")) == "idDoesNotExist"


def test_post_and_identify(client, server):
    r = client.post(server.url_for("arxiv"), data={"verb": "ListIdentifiers", "metadataPrefix": "arXivRaw",
                                                   "from": "2025-08-09", "until": "2025-08-09"})
    root = etree.fromstring(r.content)
    assert error_code(root) is None and root.findall("o:ListIdentifiers/o:header", NS)
    ident = oai(client, server, verb="Identify")
    assert ident.findtext("o:Identify/o:granularity", namespaces=NS) == "YYYY-MM-DD"
    assert ident.findtext("o:Identify/o:earliestDatestamp", namespaces=NS) == "2005-09-16"
    sets = oai(client, server, verb="ListSets")
    specs = [e.text for e in sets.findall("o:ListSets/o:set/o:setSpec", NS)]
    assert {"cs", "cs:cs:LG", "physics:hep-th", "physics:astro-ph:CO"} <= set(specs)


def _tags(root, ns_uri: str) -> set[str]:
    return {etree.QName(e).localname for e in root.iter() if isinstance(e.tag, str) and etree.QName(e).namespace == ns_uri}


def _sample(name: str):
    return etree.parse(str(SAMPLES / name)).getroot()


# XSD elements the samples happen not to show (arXiv.xsd / arXivRaw.xsd)
EXTRA_ARXIV = {"suffix", "proxy", "msc-class", "acm-class", "report-no", "journal-ref", "doi", "updated"}
EXTRA_RAW = {"source_type", "proxy", "report-no", "acm-class"}


def test_structure_matches_the_samples(client, server, world):
    sample_arxiv = _sample("listrecords_arXiv_legacy_physics-hep-ex.xml")
    sample_collab = _sample("getrecord_arXiv_legacy_collaboration_affiliations.xml")
    sample_raw = _sample("listrecords_arXivRaw_legacy_with_token.xml")
    ours_arxiv = oai(client, server, verb="ListRecords", metadataPrefix="arXiv", **{"from": "2025-08-12", "until": "2025-08-12"})
    ours_raw = oai(client, server, verb="ListRecords", metadataPrefix="arXivRaw", **{"from": "2025-08-12", "until": "2025-08-12"})
    # the OAI envelope and record skeleton
    for ours, sample in ((ours_arxiv, sample_arxiv), (ours_raw, sample_raw)):
        assert ours.tag == sample.tag == f"{{{OAI}}}OAI-PMH"
        assert [etree.QName(c).localname for c in ours][:2] == [etree.QName(c).localname for c in sample][:2]
        assert _tags(ours, OAI) - {"resumptionToken"} == _tags(sample, OAI) - {"resumptionToken"}
        ours_rec, sample_rec = ours.find(".//o:record", NS), sample.find(".//o:record", NS)
        assert [etree.QName(c).localname for c in ours_rec] == [etree.QName(c).localname for c in sample_rec]
        assert [etree.QName(c).localname for c in ours_rec.find("o:header", NS)][:2] == ["identifier", "datestamp"]
    sample_tags = _tags(sample_arxiv, ARXIV) | _tags(sample_collab, ARXIV)
    assert _tags(ours_arxiv, ARXIV) - sample_tags <= EXTRA_ARXIV
    assert {"arXiv", "id", "created", "authors", "author", "keyname", "forenames", "title", "categories",
            "abstract"} <= _tags(ours_arxiv, ARXIV)
    assert _tags(ours_raw, RAW) - _tags(sample_raw, RAW) <= EXTRA_RAW
    assert {"arXivRaw", "id", "submitter", "version", "date", "size", "title", "authors", "categories",
            "abstract"} <= _tags(ours_raw, RAW)
    # field shapes: hard-wrapped abstracts with two leading spaces, RFC-822 version dates
    abstract = ours_arxiv.findtext(".//a:abstract", namespaces=NS)
    assert abstract.startswith("  ") and abstract.endswith("\n") and "\n" in abstract.strip()
    assert all(len(line) <= 81 for line in abstract.splitlines())
    date = ours_raw.findtext(".//r:version/r:date", namespaces=NS)
    assert re.fullmatch(r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT", date)
    assert ours_raw.find(".//r:authors", NS).text and not ours_raw.findall(".//r:authors/*", NS)


def test_record_fields(client, server, world):
    by_id = {p.arxiv_id: p for p in world.papers}
    root = oai(client, server, verb="GetRecord", metadataPrefix="arXiv", identifier=f"oai:arXiv.org:{KNAPFORMER_ID}")
    names = [(a.findtext("a:forenames", namespaces=NS), a.findtext("a:keyname", namespaces=NS))
             for a in root.findall(".//a:author", NS)]
    assert names == [("Kai", "Zhang"), ("Peng", "Wang"), ("Sai", "Bi"), ("Jianming", "Zhang"), ("Yuanjun", "Xiong")]
    assert root.findtext(".//a:categories", namespaces=NS) == "cs.DC cs.CV"
    assert root.findtext(".//a:created", namespaces=NS) == "2025-08-08"
    assert root.find(".//a:updated", NS) is None  # one version only
    # collaboration papers keep every author, the legacy "Collaboration"/"ATLAS" artefact first
    big = max(world.papers, key=lambda p: len(p.authors))
    root = oai(client, server, verb="GetRecord", metadataPrefix="arXiv", identifier=f"oai:arXiv.org:{big.arxiv_id}")
    authors = root.findall(".//a:author", NS)
    assert len(authors) == len(big.authors) >= 1000
    assert (authors[0].findtext("a:keyname", namespaces=NS), authors[0].findtext("a:forenames", namespaces=NS)) == ("Collaboration", "ATLAS")
    raw = oai(client, server, verb="GetRecord", metadataPrefix="arXivRaw", identifier=f"oai:arXiv.org:{big.arxiv_id}")
    assert raw.findtext(".//r:authors", namespaces=NS).startswith("ATLAS Collaboration: ")
    # multi-version, withdrawn, several DOIs, old-style id
    multi = next(p for p in world.papers if len(p.dois) > 1)
    root = oai(client, server, verb="GetRecord", metadataPrefix="arXiv", identifier=f"oai:arXiv.org:{multi.arxiv_id}")
    assert root.findtext(".//a:doi", namespaces=NS) == " ".join(multi.dois)
    withdrawn = next(p for p in world.papers if p.withdrawn)
    raw = oai(client, server, verb="GetRecord", metadataPrefix="arXivRaw", identifier=f"oai:arXiv.org:{withdrawn.arxiv_id}")
    versions = raw.findall(".//r:version", NS)
    assert len(versions) == len(withdrawn.versions) > 1
    assert versions[-1].findtext("r:source_type", namespaces=NS) == "W"
    old = next(p for p in world.papers if "/" in p.arxiv_id)
    root = oai(client, server, verb="GetRecord", metadataPrefix="arXiv", identifier=f"oai:arXiv.org:{old.arxiv_id}")
    assert root.findtext(".//a:id", namespaces=NS) == old.arxiv_id == by_id[old.arxiv_id].arxiv_id
    # TeX survives as source
    tex = next(p for p in world.papers if "$" in p.title and len(p.title) < 60)
    root = oai(client, server, verb="GetRecord", metadataPrefix="arXivRaw", identifier=f"oai:arXiv.org:{tex.arxiv_id}")
    assert root.findtext(".//r:title", namespaces=NS) == tex.title


def test_oai_dc(client, server):
    root = oai(client, server, verb="GetRecord", metadataPrefix="oai_dc", identifier=f"oai:arXiv.org:{KNAPFORMER_ID}")
    creators = [e.text for e in root.iter("{http://purl.org/dc/elements/1.1/}creator")]
    assert creators[:2] == ["Zhang, Kai", "Wang, Peng"]
