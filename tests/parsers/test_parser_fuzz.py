"""Property tests: whatever bytes/JSON arrive, parsers raise only their documented errors."""

import copy
import json
import os
from xml.sax.saxutils import escape

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wove_pipeline.arxiv.metadata_formats import parse_arxiv_metadata, parse_arxivraw_metadata
from wove_pipeline.arxiv.oai_pages import parse_oai_page
from wove_pipeline.arxiv.oai_xml import OaiError, OaiParseError, RecordParseError
from wove_pipeline.arxiv.paper_record import merge_paper
from wove_pipeline.arxiv.tex import (
    arxiv_id_from_slug,
    slugify_paper,
    tex_to_text,
    try_normalize_arxiv_id,
)
from wove_pipeline.openalex import parser as oa
from wove_pipeline.semantic_scholar import parser as s2

# WOVE_FUZZ_EXAMPLES=5000 for a deep run; the default keeps the suite fast.
FUZZ = settings(max_examples=int(os.environ.get("WOVE_FUZZ_EXAMPLES", "150")), deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Text that can appear in XML 1.0 (no control characters, no surrogates).
xml_text = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufffe\uffff"), max_size=200
)
tex_alphabet = st.sampled_from(list("\\{}$^_%&~#'\"`a b\nαü-()[],.;:0123456789") + [
    r"\alpha", r"\emph{", r"\ourmethod", r"\frac", r"\begin{itemize}", r"\end{", r"\"", r"\'", r"\href{", r"\url{",
    "$^{", "_{", r"\\", r"\cite{", r"\mathcal{O}", r"\sqrt",
])


def _sample_xml(samples_dir):
    return [p.read_bytes() for p in sorted((samples_dir / "arxiv").glob("*.xml"))]


def _sample_json(samples_dir, sub):
    return [json.loads(p.read_text()) for p in sorted((samples_dir / sub).glob("*.json"))]


def _consume_page(data: bytes) -> None:
    """Run a page and every record through the whole arXiv path, as the asset would."""
    try:
        page = parse_oai_page(data)
    except (OaiParseError, OaiError):
        return
    for rec in page.records:
        try:
            meta = parse_arxiv_metadata(rec.xml) if rec.metadata_prefix == "arXiv" else None
            raw = parse_arxivraw_metadata(rec.xml) if rec.metadata_prefix == "arXivRaw" else None
            paper = merge_paper(meta, raw, rec.datestamp)
        except RecordParseError:
            continue
        row = paper.as_row()
        assert row["arxiv_id"] and row["title"] and row["published"].tzinfo is not None


# ---------------------------------------------------------------------------- XML


@FUZZ
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_only_raise_parse_errors(data):
    _consume_page(data)
    for fn in (parse_arxiv_metadata, parse_arxivraw_metadata):
        try:
            fn(data)
        except RecordParseError:
            pass


@FUZZ
@given(st.data())
def test_mutated_sample_xml(samples_dir, data):
    samples = _sample_xml(samples_dir)
    doc = bytearray(data.draw(st.sampled_from(samples)))
    for _ in range(data.draw(st.integers(1, 8))):
        pos = data.draw(st.integers(0, len(doc) - 1))
        op = data.draw(st.sampled_from(["flip", "delete", "insert", "truncate"]))
        if op == "flip":
            doc[pos] = data.draw(st.integers(0, 255))
        elif op == "delete":
            del doc[pos : pos + data.draw(st.integers(1, 40))]
        elif op == "insert":
            doc[pos:pos] = data.draw(st.sampled_from([b"<", b">", b"&", b"</title>", b"<doi>", b"\xff", b"]]>", b"v0"]))
        else:
            del doc[pos:]
        if not doc:
            doc = bytearray(b"<")
    _consume_page(bytes(doc))


@FUZZ
@given(
    title=xml_text, authors=xml_text, abstract=xml_text, doi=xml_text, comments=xml_text,
    version=st.sampled_from(["v1", "v2", "vX", "", "1", "v999999999999999999999"]),
    date=st.one_of(xml_text, st.sampled_from(["Tue, 3 Apr 2007 22:04:11 GMT", "Mon, 9 Apr 2007 14:45:43 -0500", "Thu, 31 Feb 2007 00:00:00 GMT"])),
    arxiv_id=st.one_of(xml_text, st.sampled_from(["0704.0471", "hep-th/9901001", "2508.06001v2"])),
)
def test_random_field_values_in_arxivraw(title, authors, abstract, doi, comments, version, date, arxiv_id):
    xml = (
        '<arXivRaw xmlns="http://arxiv.org/OAI/arXivRaw/">'
        f"<id>{escape(arxiv_id)}</id><version version=\"{escape(version)}\"><date>{escape(date)}</date><size>1kb</size></version>"
        f"<title>{escape(title)}</title><authors>{escape(authors)}</authors><categories>cs.LG</categories>"
        f"<comments>{escape(comments)}</comments><doi>{escape(doi)}</doi><abstract>{escape(abstract)}</abstract></arXivRaw>"
    ).encode("utf-8")
    try:
        paper = merge_paper(None, parse_arxivraw_metadata(xml), "2025-01-01")
    except RecordParseError:
        return
    assert paper.slug.startswith(paper.arxiv_id.replace("/", "-"))
    assert arxiv_id_from_slug(paper.slug) == paper.arxiv_id
    assert all(d == d.lower() for d in paper.dois)


@FUZZ
@given(keyname=xml_text, forenames=xml_text, created=xml_text)
def test_random_field_values_in_arxiv(keyname, forenames, created):
    xml = (
        '<arXiv xmlns="http://arxiv.org/OAI/arXiv/"><id>2501.00001</id>'
        f"<created>{escape(created)}</created><authors><author><keyname>{escape(keyname)}</keyname>"
        f"<forenames>{escape(forenames)}</forenames></author></authors><title>T</title>"
        "<categories>cs.LG</categories></arXiv>"
    ).encode("utf-8")
    try:
        merge_paper(parse_arxiv_metadata(xml), None, "2025-01-01")
    except RecordParseError:
        pass


# ---------------------------------------------------------------------------- JSON

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=20,
)

S2_FNS = [
    s2.parse_paper_batch, s2.parse_author_batch, s2.parse_citations_page, s2.parse_references_page,
    s2.parse_paper_authors_page, s2.parse_author_papers_page, s2.parse_paper, s2.parse_author,
]
OA_FNS = [
    oa.parse_works_page, oa.parse_work, oa.parse_authors_page, oa.parse_author,
    oa.parse_institutions_page, oa.parse_institution,
]


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node[:5]):  # enough to reach every field shape
            yield from _paths(v, prefix + (i,))


def _mutate(doc, data):
    doc = copy.deepcopy(doc)
    paths = [p for p in _paths(doc) if p]
    for _ in range(data.draw(st.integers(1, 4))):
        path = data.draw(st.sampled_from(paths))
        parent = doc
        try:
            for key in path[:-1]:
                parent = parent[key]
            if data.draw(st.booleans()) and isinstance(parent, dict):
                parent.pop(path[-1], None)
            else:
                parent[path[-1]] = data.draw(json_values)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed this path
    return doc


def _call(fn, payload, errors):
    try:
        fn(payload)
    except errors:
        pass


@FUZZ
@given(json_values)
def test_arbitrary_json_only_raises_parse_errors(payload):
    for fn in S2_FNS:
        _call(fn, payload, s2.S2ParseError)
    for fn in OA_FNS:
        _call(fn, payload, oa.OpenAlexParseError)


@FUZZ
@given(st.data())
def test_mutated_s2_samples(samples_dir, data):
    doc = _mutate(data.draw(st.sampled_from(_sample_json(samples_dir, "semanticscholar"))), data)
    for fn in S2_FNS:
        _call(fn, doc, s2.S2ParseError)


@FUZZ
@given(st.data())
def test_mutated_openalex_samples(samples_dir, data):
    doc = _mutate(data.draw(st.sampled_from(_sample_json(samples_dir, "openalex"))), data)
    for fn in OA_FNS:
        _call(fn, doc, oa.OpenAlexParseError)
    for item in (doc.get("results") if isinstance(doc, dict) and isinstance(doc.get("results"), list) else [doc]):
        _call(oa.parse_work, item, oa.OpenAlexParseError)
        _call(oa.parse_author, item, oa.OpenAlexParseError)
        _call(oa.parse_institution, item, oa.OpenAlexParseError)


# ---------------------------------------------------------------------------- TeX / ids


@FUZZ
@given(st.one_of(st.text(max_size=300), st.lists(tex_alphabet, max_size=60).map("".join)))
def test_tex_to_text_never_raises(s):
    out = tex_to_text(s)
    assert isinstance(out, str)
    assert out == out.strip() and "\n" not in out and "  " not in out


@FUZZ
@given(st.text(max_size=60), st.text(max_size=200))
def test_slug_and_ids_never_raise(raw_id, title):
    norm = try_normalize_arxiv_id(raw_id)
    if norm is None:
        return
    slug = slugify_paper(norm, title)
    assert slug.isascii() and " " not in slug and "/" not in slug
    assert arxiv_id_from_slug(slug) == norm


@pytest.mark.parametrize("id_", ["2508.06001", "0704.0471", "hep-th/9901001", "math.GT/0309136", "cond-mat/0001001"])
@FUZZ
@given(title=st.text(max_size=300))
def test_slug_round_trips_known_ids(id_, title):
    assert arxiv_id_from_slug(slugify_paper(id_, title)) == id_
