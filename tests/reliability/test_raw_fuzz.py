"""End-to-end fuzz of the harvest load: random corruptions of records in raw OAI pages are
quarantined with their reasons, never a crash, never silently dropped:
distinct records in = papers written + older versions skipped + quarantined + deleted.

(Parser-level fuzzing: tests/parsers/test_parser_fuzz.py; search input: tests/search/.)"""

from __future__ import annotations

import re
import shutil
from xml.sax.saxutils import escape

import psycopg
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wove_pipeline.arxiv import harvest as papers_load
from wove_pipeline.cli.runtime import start_sandbox
from wove_pipeline.database import access as db
from wove_pipeline.upstream.raw_store import RawStore

from .conftest import FIGURES, arxiv_client

FIELDS = ("id", "created", "title", "categories", "abstract", "keyname", "forenames", "date", "authors", "datestamp")
CORRUPTIONS = ("drop", "empty", "garbage", "huge", "tex")
# Record-level corruption keeps the page well-formed XML (a page that is not was never stored:
# the client validates every page before the raw write), so only XML-legal characters.
XML_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufffe\uffff"),
                   max_size=12)


@pytest.fixture(scope="module")
def raw_day(tiny_world, tmp_path_factory):
    day = tiny_world.start_day
    root = tmp_path_factory.mktemp("fuzz_raw")
    server = start_sandbox(tiny_world)
    client = arxiv_client(server)
    try:
        papers_load.harvest_day(client, RawStore(root), day)
    finally:
        client.close()
        server.stop()
    table = pq.read_table(RawStore(root).latest_path("arxiv", day.isoformat()))
    pages = list(zip(*(table.column(c).to_pylist() for c in ("kind", "seq", "request", "body"))))
    return day, pages


def _corrupt(body: bytes, record_index: int, field: str, how: str, text: str) -> bytes:
    """Corrupt one field of one record, keeping the page well-formed XML."""
    page = body.decode()
    records = [m.span() for m in re.finditer(r"<record>.*?</record>", page, flags=re.S)]
    if not records:
        return body
    start, end = records[record_index % len(records)]
    record = page[start:end]
    pattern = re.compile(rf"<{field}(\s[^>]*)?>(.*?)</{field}>", flags=re.S)
    replacement = {
        "drop": "",
        "empty": rf"<{field}\1></{field}>",
        "garbage": rf"<{field}\1>{escape(text)}</{field}>",
        "huge": rf"<{field}\1>{escape(text) * 2000}</{field}>",
        "tex": rf"<{field}\1>$\\frac{{{escape(text)}</{field}>",  # unbalanced TeX
    }[how]
    record = pattern.sub(lambda m: pattern.sub(replacement, m.group(0), count=1) if how != "drop" else "", record,
                         count=1)
    return (page[:start] + record + page[end:]).encode()


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(corruptions=st.lists(st.tuples(st.integers(0, 50), st.sampled_from(FIELDS), st.sampled_from(CORRUPTIONS),
                                      XML_TEXT, st.integers(0, 3)), min_size=1, max_size=4))
def test_corrupted_records_are_quarantined_with_reasons_and_counts_add_up(corruptions, raw_day, database_url,
                                                                         tmp_path_factory):
    day, pages = raw_day
    responses = [list(p) for p in pages]
    for record_index, field, how, text, page_index in corruptions:
        page = responses[page_index % len(responses)]
        page[3] = _corrupt(page[3], record_index, field, how, text)
    root = tmp_path_factory.mktemp("fuzz")
    store = RawStore(root)
    store.write("arxiv", day.isoformat(), [tuple(r) for r in responses])
    FIGURES.bad_inputs["corrupted_raw_records"] += len(corruptions)

    try:
        parsed = papers_load.parse_day(store, day)
    except Exception as exc:  # a page that no longer parses at all must fail loudly, not lose records
        pytest.fail(f"parse_day crashed on record-level corruption: {type(exc).__name__}: {exc}")
    identifiers = set()
    for _, _, _, body in responses:
        identifiers.update(re.findall(r"<identifier>(.*?)</identifier>", body.decode(), flags=re.S))
    with db.transaction(database_url) as conn:
        conn.execute("DELETE FROM wove.papers")
        summary = papers_load.load_day(conn, day, parsed)
    accounted = summary.papers_written + summary.papers_skipped_older + summary.quarantined + parsed.deleted
    assert accounted == len(identifiers), (accounted, len(identifiers), corruptions)
    with psycopg.connect(database_url) as conn:
        rows = conn.execute("SELECT record_key, reason, payload FROM wove.quarantine WHERE source = 'arxiv'"
                            " AND partition_key = %s", (day.isoformat(),)).fetchall()
    assert len(rows) == summary.quarantined
    assert all(reason.strip() and payload for _, reason, payload in rows)
    FIGURES.bad_inputs["quarantined_records"] += summary.quarantined
    shutil.rmtree(root, ignore_errors=True)
