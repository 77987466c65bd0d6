"""Harvest arXiv days into the raw layer, and load them into wove.papers.

Two steps, matching the two assets: `harvest_days` calls the OAI server and writes each
day's responses to Parquet (the raw partition of a day is ``DayRange.day(day).label``);
`load_days` re-derives each day's papers from that file alone (no API call) and writes them
in one transaction per day, so a day lands whole or not at all.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass, field

import psycopg
from psycopg.types.json import Jsonb

from wove_pipeline.arxiv.client import METADATA_PREFIXES, ArxivOaiClient
from wove_pipeline.arxiv.metadata_formats import parse_arxiv_metadata, parse_arxivraw_metadata
from wove_pipeline.arxiv.oai_pages import parse_oai_page
from wove_pipeline.arxiv.paper_record import merge_paper
from wove_pipeline.database import access as db
from wove_pipeline.partitions import DayRange
from wove_pipeline.upstream.gc_pause import gc_paused
from wove_pipeline.upstream.raw_store import RawStore

SOURCE = "arxiv"

PAPER_COLUMNS = (
    "arxiv_id", "is_old_style", "current_version", "versions", "title_tex", "title", "abstract_tex",
    "abstract", "authors", "authors_display", "categories", "primary_category", "published", "updated",
    "dois", "journal_ref", "comments", "report_no", "license", "withdrawn", "slug", "abs_url", "pdf_url",
    "oai_datestamp", "content_hash",
)
AUTHOR_COLUMNS = ("arxiv_id", "position", "keyname", "forenames", "suffix", "affiliations", "is_collaboration")


@dataclass
class HarvestSummary:
    day: dt.date
    pages: int
    records: dict[str, int]
    raw_file: str
    requests: int = 0  # HTTP requests this day took (retries included)
    retries: int = 0


@dataclass
class Quarantined:
    record_key: str | None
    reason: str
    payload: str


@dataclass
class ParsedDay:
    papers: list = field(default_factory=list)  # PaperRecord
    quarantined: list[Quarantined] = field(default_factory=list)
    deleted: int = 0


@dataclass
class LoadSummary:
    day: dt.date
    papers_written: int
    papers_skipped_older: int
    authors_written: int  # author positions of the papers now at this day's version
    quarantined: int
    new_papers: int  # first version submitted on this day or the day before (announcement lag)


def harvest_days(client: ArxivOaiClient, store: RawStore, days: DayRange) -> list[HarvestSummary]:
    """`harvest_day` for each day of the range, in order."""
    return [harvest_day(client, store, day) for day in days]


def harvest_day(client: ArxivOaiClient, store: RawStore, day: dt.date) -> HarvestSummary:
    """Fetch both metadata formats for one OAI day and keep every page as raw Parquet."""
    requests, retries = client.http.requests_sent, client.http.retries
    responses: list[tuple[str, int, str, bytes]] = []
    records: dict[str, int] = {}
    for prefix in METADATA_PREFIXES:
        records[prefix] = 0
        for page in client.list_records(day, day, prefix):
            responses.append((prefix, page.page_number, page.request, page.body))
            records[prefix] += len(page.page.records)
    path = store.write(SOURCE, DayRange.day(day).label, responses)
    return HarvestSummary(day=day, pages=len(responses), records=records, raw_file=path,
                          requests=client.http.requests_sent - requests, retries=client.http.retries - retries)


@gc_paused()
def parse_day(store: RawStore, day: dt.date) -> ParsedDay:
    """Papers of one day from the newest raw file; bad records go to quarantine, never lost."""
    table = store.read_latest(SOURCE, DayRange.day(day).label)
    if table is None:
        raise FileNotFoundError(f"no raw arXiv harvest for {day}: materialize arxiv_records first")
    by_prefix: dict[str, dict[str, object]] = {p: {} for p in METADATA_PREFIXES}
    result = ParsedDay()
    for kind, body in zip(table.column("kind").to_pylist(), table.column("body").to_pylist()):
        for record in parse_oai_page(body).records:
            if record.deleted:
                result.deleted += 1
                continue
            by_prefix[kind][record.identifier] = record
    arxiv, raw = by_prefix["arXiv"], by_prefix["arXivRaw"]
    for identifier in sorted(set(arxiv) | set(raw)):
        a, r = arxiv.get(identifier), raw.get(identifier)
        try:
            meta = parse_arxiv_metadata(a.element) if a is not None else None
            raw_meta = parse_arxivraw_metadata(r.element) if r is not None else None
            datestamp = (a or r).datestamp
            result.papers.append(merge_paper(meta, raw_meta, datestamp))
        except Exception as exc:  # any failure of one record quarantines that record only
            payload = b"\n".join(x.xml for x in (a, r) if x is not None).decode("utf-8", "replace")
            result.quarantined.append(Quarantined(identifier, f"{type(exc).__name__}: {exc}", payload))
    return result


def content_hash(title: str, abstract: str | None) -> str:
    return hashlib.sha256(f"{title}\n{abstract or ''}".encode()).hexdigest()


def _paper_row(row: dict) -> tuple:
    values = []
    for column in PAPER_COLUMNS:
        if column == "content_hash":
            values.append(content_hash(row["title"], row["abstract"]))
        elif column in ("versions", "authors"):
            values.append(Jsonb(row[column]))
        else:
            values.append(row[column])
    return tuple(values)


def load_days(conn: psycopg.Connection, store: RawStore, days: DayRange) -> list[LoadSummary]:
    """Parse and load each day of the range. `conn` is an autocommit connection: each day is
    written in a transaction of its own (a day's papers land whole or not at all), and none
    is held while the next day's raw file is parsed."""
    summaries = []
    for day in days:
        parsed = parse_day(store, day)
        with conn.transaction():
            summaries.append(load_day(conn, day, parsed))
    return summaries


def load_day(conn: psycopg.Connection, day: dt.date, parsed: ParsedDay) -> LoadSummary:
    """Write one day's papers, authors and quarantine rows. Call inside a transaction."""
    partition = DayRange.day(day).label
    db.advisory_lock(conn, f"papers:{partition}")
    rows = [p.as_row() for p in parsed.papers]
    ids = [r["arxiv_id"] for r in rows]
    db.upsert_rows(
        conn, "wove.papers", PAPER_COLUMNS, (_paper_row(r) for r in rows), key=("arxiv_id",),
        # Re-loading an old day must never roll a paper back to older metadata.
        only_if="EXCLUDED.oai_datestamp >= papers.oai_datestamp",
    )
    # The rows that now hold this day's version are the ones whose authors we replace.
    current = {
        r[0]
        for r in conn.execute(
            "SELECT arxiv_id FROM wove.papers WHERE arxiv_id = ANY(%s) AND oai_datestamp = %s", (ids, day)
        )
    }
    author_rows = [
        (r["arxiv_id"], i, a["keyname"], a.get("forenames"), a.get("suffix"), a.get("affiliations") or [],
         bool(a.get("is_collaboration")))
        for r in rows if r["arxiv_id"] in current
        for i, a in enumerate(r["authors"])
    ]
    # Only positions that changed are rewritten: a revision that keeps its authors keeps
    # their researcher links (researcher_mentions cascades from paper_authors), so the
    # matcher does not re-decide them.
    db.replace_rows(conn, "wove.paper_authors", AUTHOR_COLUMNS, author_rows, key=("arxiv_id", "position"),
                    scope=("arxiv_id", sorted(current)))
    conn.execute("DELETE FROM wove.quarantine WHERE source = %s AND partition_key = %s", (SOURCE, partition))
    db.copy_rows(
        conn, "wove.quarantine", ("source", "partition_key", "record_key", "reason", "payload"),
        ((SOURCE, partition, q.record_key, q.reason, q.payload) for q in parsed.quarantined),
    )
    new_papers = sum(1 for r in rows if (day - r["published"].date()).days <= 1)
    return LoadSummary(
        day=day,
        papers_written=len(current),
        papers_skipped_older=len(ids) - len(current),
        authors_written=len(author_rows),
        quarantined=len(parsed.quarantined),
        new_papers=new_papers,
    )
