"""Enrichment from Semantic Scholar and OpenAlex: fetch to raw Parquet, derive tables from raw.

Dagster-free; the assets in wove_pipeline/enrichment/assets.py are thin loops over this.

Two steps, as for the harvest:

1. *fetch*: decide which ids to ask for, call the upstream at its batch limits, keep every
   response as Parquet (one immutable file per fetch, the request beside each body, never a
   key);
2. *derive*: turn responses into rows and upsert them in one transaction. The same
   function derives from the file just written (incremental) and from every raw file
   (`rebuild_from_raw`, no API call): a record wins when it is the newest response for its
   key, so both give the same tables.

Look-back: upstreams index a new arXiv paper days to weeks after it appears, and a batch
answers `null` until then. A miss is "retry later": `wove.enrichment_attempts` records every
ask, and the fetch for partition days D.. asks for

- every paper of the run's own days not found yet (always), plus
- papers of the previous `lookback_days` days not found yet that are *due*: re-asked with
  doubling spacing (1, 2, 4 ... days, capped at `max_recheck_interval_days`), counted in
  partition days, plus not-yet-due ones that fill the spare room of the batches the run
  makes anyway (free: they ride in calls that are sent regardless).
"""

from __future__ import annotations

import datetime as dt
import logging
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import orjson
import psycopg
import pyarrow.fs as pafs
import pyarrow.parquet as pq
from psycopg.types.json import Jsonb

from wove_pipeline.database import access as db
from wove_pipeline.openalex.client import BudgetExhausted, OpenAlexClient, maybe_truncated
from wove_pipeline.openalex.parser import (
    InstitutionRecord,
    OpenAlexAuthorRecord,
    OpenAlexWorkRecord,
    parse_author,
    parse_authors_page,
    parse_institution,
    parse_institutions_page,
    parse_work,
    parse_works_page,
)
from wove_pipeline.semantic_scholar.client import SemanticScholarClient
from wove_pipeline.semantic_scholar.parser import S2AuthorRecord, S2PaperRecord, parse_author_batch, parse_paper_batch
from wove_pipeline.upstream.gc_pause import gc_paused
from wove_pipeline.upstream.lenient import BadRecord
from wove_pipeline.upstream.raw_store import RawStore

log = logging.getLogger(__name__)

S2, OPENALEX = "s2", "openalex"

# Raw sources (folders of the raw layer) and what each feeds.
RAW_S2_PAPERS = "s2_papers"
RAW_S2_AUTHORS = "s2_authors"
RAW_S2_REFRESH = "s2_refresh"
RAW_OA_WORKS = "openalex_works"
RAW_OA_AUTHORS = "openalex_authors"
RAW_OA_INSTITUTIONS = "openalex_institutions"
RAW_OA_REFRESH = "openalex_refresh"
ALL_RAW_SOURCES = (RAW_S2_PAPERS, RAW_S2_AUTHORS, RAW_S2_REFRESH, RAW_OA_WORKS, RAW_OA_AUTHORS,
                   RAW_OA_INSTITUTIONS, RAW_OA_REFRESH)
# Sources whose paper asks count as enrichment attempts (the refresh re-asks found papers).
ATTEMPT_SOURCES = {RAW_S2_PAPERS: S2, RAW_OA_WORKS: OPENALEX}

DERIVED_TABLES = (
    "wove.s2_papers", "wove.openalex_works", "wove.s2_authors", "wove.openalex_authors",
    "wove.openalex_author_redirects", "wove.institutions", "wove.enrichment_attempts",
    "wove.citation_snapshots", "wove.refresh_state", "wove.authorships",
)


@dataclass(frozen=True)
class EnrichmentSettings:
    lookback_days: int = 60
    max_recheck_interval_days: int = 4

    def __post_init__(self) -> None:
        if self.lookback_days < 0 or self.max_recheck_interval_days < 1:
            raise ValueError("lookback_days must be >= 0 and max_recheck_interval_days >= 1")


# ----------------------------------------------------------------------------------------
# raw layer access


@dataclass(frozen=True)
class RawResponse:
    source: str
    partition: str
    kind: str
    seq: int
    request: dict
    fetched_at: dt.datetime
    body: bytes
    path: str
    # (records, records set aside) as derive parses the body, when the fetch that got it
    # parsed it already (validating it); None for responses read back from raw files
    parsed: tuple[list, list] | None = field(default=None, compare=False, repr=False)


def partition_label(days: Sequence[dt.date]) -> str:
    days = sorted(days)
    return days[0].isoformat() if days[0] == days[-1] else f"{days[0].isoformat()}_{days[-1].isoformat()}"


def _read_file(store: RawStore, path: str) -> list[RawResponse]:
    table = pq.read_table(path, filesystem=store.fs)
    cols = {name: table.column(name).to_pylist() for name in table.column_names}
    out = [
        RawResponse(cols["source"][i], cols["partition"][i], cols["kind"][i], cols["seq"][i],
                    orjson.loads(cols["request"][i]), cols["fetched_at"][i], cols["body"][i], path)
        for i in range(table.num_rows)
    ]
    out.sort(key=lambda r: r.seq)
    return out


def raw_files(store: RawStore, sources: Iterable[str]) -> list[str]:
    """Every raw file of the sources, oldest first (file names start with the UTC time)."""
    paths = []
    for source in sources:
        selector = pafs.FileSelector(f"{store.root}/{source}", allow_not_found=True, recursive=True)
        paths += [i.path for i in store.fs.get_file_info(selector) if i.path.endswith(".parquet")]
    return sorted(paths, key=lambda p: (p.rsplit("/", 1)[-1], p))


def iter_raw(store: RawStore, paths: Iterable[str]) -> Iterator[RawResponse]:
    for path in paths:
        yield from _read_file(store, path)


# One fetched response: (kind, request description, body, (records, records set aside)).
Fetch = tuple[str, str, bytes, tuple[list, list]]


def _write_raw(store: RawStore, source: str, label: str, fetched: list[Fetch], now: dt.datetime) -> str | None:
    if not fetched:
        return None
    return store.write(source, label, [(kind, seq, request, body) for seq, (kind, request, body, _) in enumerate(fetched)],
                       now=now)


# ----------------------------------------------------------------------------------------
# derive: responses -> rows (pure; the same for incremental loads and rebuilds)


@dataclass
class Derived:
    s2_papers: dict[str, tuple] = field(default_factory=dict)
    s2_authors: dict[str, tuple] = field(default_factory=dict)
    oa_works: dict[str, tuple] = field(default_factory=dict)
    oa_authors: dict[str, tuple] = field(default_factory=dict)
    oa_redirects: dict[str, tuple] = field(default_factory=dict)
    institutions: dict[str, tuple] = field(default_factory=dict)
    snapshots: dict[tuple, tuple] = field(default_factory=dict)
    # (arxiv_id, source) -> [first_day, last_day, attempts, found_day, first_at, last_at]
    attempts: dict[tuple[str, str], list] = field(default_factory=dict)
    # (source, kind, id) -> [last_checked_at, last_found_at]
    checked: dict[tuple[str, str, str], list] = field(default_factory=dict)
    # (source, partition_key, record_key) -> (reason, payload): records that did not parse
    quarantined: dict[tuple[str, str, str], tuple[str, str]] = field(default_factory=dict)

    def set_aside(self, resp: "RawResponse", bad: list[BadRecord], keys: Sequence[str] | None = None) -> None:
        """Quarantine the records of one response that did not parse (the rest still count)."""
        for b in bad:
            key = keys[b.index] if keys is not None and b.index < len(keys) else f"{resp.kind}[{b.index}]"
            self.quarantined[(resp.source, _asked_day(resp).isoformat(), key)] = (b.reason, b.payload)

    def check(self, source: str, kind: str, entity_id: str, at: dt.datetime, found: bool) -> None:
        cur = self.checked.setdefault((source, kind, entity_id), [at, None])
        cur[0] = max(cur[0], at)
        if found:
            cur[1] = at if cur[1] is None else max(cur[1], at)

    def attempt(self, arxiv_id: str, source: str, day: dt.date, at: dt.datetime) -> None:
        cur = self.attempts.get((arxiv_id, source))
        if cur is None:
            self.attempts[(arxiv_id, source)] = [day, day, 1, None, at, at]
        else:
            cur[0], cur[1], cur[2] = min(cur[0], day), max(cur[1], day), cur[2] + 1
            cur[4], cur[5] = min(cur[4], at), max(cur[5], at)

    def found(self, arxiv_id: str, source: str, day: dt.date) -> None:
        cur = self.attempts.get((arxiv_id, source))
        if cur is not None:
            cur[3] = day if cur[3] is None else min(cur[3], day)

    def counts(self) -> dict[str, int]:
        return {"s2_papers": len(self.s2_papers), "s2_authors": len(self.s2_authors),
                "openalex_works": len(self.oa_works), "openalex_authors": len(self.oa_authors),
                "institutions": len(self.institutions), "attempts": len(self.attempts)}


def _s2_paper_row(arxiv_id: str, r: S2PaperRecord, at: dt.datetime) -> tuple:
    return (
        arxiv_id, r.paper_id, r.corpus_id, r.doi, r.title, r.abstract, r.year, r.publication_date, r.venue,
        r.citation_count, r.influential_citation_count, r.reference_count, list(r.fields_of_study),
        Jsonb([{"category": f.category, "source": f.source} for f in r.s2_fields_of_study]),
        Jsonb([{"author_id": a.author_id, "name": a.name} for a in r.authors]),
        Jsonb(r.external_ids), r.url, at.date(), at,
    )


S2_PAPER_COLUMNS = (
    "arxiv_id", "paper_id", "corpus_id", "doi", "title", "abstract", "year", "publication_date", "venue",
    "citation_count", "influential_citation_count", "reference_count", "fields_of_study", "s2_fields_of_study",
    "authors", "external_ids", "url", "as_of", "fetched_at",
)


def _s2_author_row(r: S2AuthorRecord, at: dt.datetime) -> tuple:
    return (r.author_id, r.name, r.orcid, list(r.dblp_names), list(r.affiliations), r.homepage, r.url,
            r.paper_count, r.citation_count, r.h_index, at.date(), at)


S2_AUTHOR_COLUMNS = ("author_id", "name", "orcid", "dblp_names", "affiliations", "homepage", "url",
                     "paper_count", "citation_count", "h_index", "as_of", "fetched_at")


def _topic(t) -> dict | None:
    return None if t is None else t._asdict()


def _oa_work_row(arxiv_id: str, r: OpenAlexWorkRecord, complete: bool, at: dt.datetime) -> tuple:
    ships = [
        {
            "position": a.position, "author_position": a.author_position, "author_id": a.author_id,
            "display_name": a.display_name, "raw_author_name": a.raw_author_name, "orcid": a.orcid,
            "institution_ids": [i.institution_id for i in a.institutions if i.institution_id],
            "institution_rors": [i.ror for i in a.institutions if i.ror],
            "raw_affiliation_strings": list(a.raw_affiliation_strings), "is_corresponding": a.is_corresponding,
        }
        for a in r.authorships
    ]
    return (
        arxiv_id, r.work_id, r.doi, r.title, r.publication_date, r.publication_year, r.type, r.language,
        r.cited_by_count, Jsonb([list(x) for x in r.counts_by_year]), Jsonb(_topic(r.primary_topic)),
        Jsonb([_topic(t) for t in r.topics]), r.abstract, Jsonb(ships), complete, at.date(), at,
    )


OA_WORK_COLUMNS = (
    "arxiv_id", "work_id", "doi", "title", "publication_date", "publication_year", "type", "language",
    "cited_by_count", "counts_by_year", "primary_topic", "topics", "abstract", "authorships", "authors_complete",
    "as_of", "fetched_at",
)


def _oa_author_row(r: OpenAlexAuthorRecord, at: dt.datetime) -> tuple:
    return (
        r.author_id, r.display_name, list(r.alternatives), r.orcid, r.works_count, r.cited_by_count, r.h_index,
        r.i10_index, r.two_year_mean_citedness, list(r.last_known_institution_ids),
        Jsonb([{"institution_id": a.institution_id, "years": list(a.years)} for a in r.affiliations]),
        at.date(), at,
    )


OA_AUTHOR_COLUMNS = (
    "author_id", "display_name", "display_name_alternatives", "orcid", "works_count", "cited_by_count", "h_index",
    "i10_index", "two_year_mean_citedness", "last_known_institution_ids", "affiliations", "as_of", "fetched_at",
)


def _institution_row(r: InstitutionRecord, at: dt.datetime) -> tuple:
    return (r.institution_id, r.ror, r.display_name, r.country_code, r.type, list(r.aliases), list(r.lineage),
            r.homepage_url, r.city, r.works_count, r.cited_by_count, at.date(), at)


INSTITUTION_COLUMNS = ("institution_id", "ror", "display_name", "country_code", "type", "aliases", "lineage",
                       "homepage_url", "city", "works_count", "cited_by_count", "as_of", "fetched_at")
SNAPSHOT_COLUMNS = ("source", "entity_kind", "entity_id", "as_of", "citation_count", "influential_citation_count",
                    "works_count", "h_index", "i10_index")


def _asked_day(resp: RawResponse) -> dt.date:
    day = resp.request.get("asked_on")
    return dt.date.fromisoformat(day) if day else resp.fetched_at.date()


_PAGE_PARSERS = {"works_filter": parse_works_page, "works_doi_filter": parse_works_page,
                 "authors_filter": parse_authors_page,
                 "institutions_filter": parse_institutions_page}
_ONE_PARSERS = {"work_singleton": parse_work, "author_singleton": parse_author,
                "institution_singleton": parse_institution}


def _parse_body(kind: str, body: bytes, ids: list[str]) -> tuple[list, list[BadRecord]]:
    """The records of one raw body, as the clients' validation parsed them when it was
    fetched, and the records set aside."""
    bad: list[BadRecord] = []
    payload = orjson.loads(body)
    if kind == "paper_batch":
        return parse_paper_batch(payload, expected_len=len(ids), bad=bad), bad
    if kind == "author_batch":
        return parse_author_batch(payload, expected_len=len(ids), bad=bad), bad
    if kind in _PAGE_PARSERS:
        return _PAGE_PARSERS[kind](payload, bad=bad)[0], bad
    return ([_ONE_PARSERS[kind](payload)] if kind in _ONE_PARSERS else []), bad


def derive(responses: Iterable[RawResponse], out: Derived | None = None) -> Derived:
    """Fold responses (oldest first) into rows: for each key the newest record wins; a
    `null` never erases a record found earlier."""
    out = out or Derived()
    for resp in responses:
        at, kind = resp.fetched_at, resp.kind
        ids: list[str] = resp.request.get("ids", [])
        attempt_source = ATTEMPT_SOURCES.get(resp.source)
        records, bad = resp.parsed if resp.parsed is not None else _parse_body(kind, resp.body, ids)
        if kind == "paper_batch":
            out.set_aside(resp, bad, ids)
            for arxiv_id, rec in zip(ids, records):
                if attempt_source:
                    out.attempt(arxiv_id, attempt_source, _asked_day(resp), at)
                out.check(S2, "paper", arxiv_id, at, rec is not None)
                if rec is not None:
                    if attempt_source:
                        out.found(arxiv_id, attempt_source, _asked_day(resp))
                    out.s2_papers[arxiv_id] = _s2_paper_row(arxiv_id, rec, at)
                    out.snapshots[(S2, "paper", arxiv_id, at.date())] = (
                        rec.citation_count, rec.influential_citation_count, None, None, None)
        elif kind == "author_batch":
            out.set_aside(resp, bad, ids)
            for author_id, rec in zip(ids, records):
                out.check(S2, "author", author_id, at, rec is not None)
                if rec is not None:
                    out.s2_authors[rec.author_id] = _s2_author_row(rec, at)
                    out.snapshots[(S2, "author", rec.author_id, at.date())] = (
                        rec.citation_count, None, rec.paper_count, rec.h_index, None)
        elif kind in ("works_filter", "work_singleton", "works_doi_filter"):
            out.set_aside(resp, bad)
            first_page = kind == "works_filter" and resp.request.get("params", {}).get("cursor") == "*"
            wanted = set(ids)
            # A lookup by published DOI (a merged preprint) matches results by that DOI.
            by_doi = dict(zip(resp.request.get("dois", []), ids)) if kind == "works_doi_filter" else {}
            # Was the truncation flag asked for (not refused in select)? Without it, a list
            # result holding the most authorships a list holds may have been cut.
            select = resp.request.get("params", {}).get("select")
            flag_asked = select is None or "is_authors_truncated" in select.split(",")
            hits = {}
            for rec in records:
                if by_doi:
                    key = by_doi.get(rec.doi or "")
                elif rec.arxiv_id in wanted:
                    key = rec.arxiv_id
                else:
                    key = ids[0] if kind == "work_singleton" and ids else None
                if key is not None:
                    hits[key] = rec
            for arxiv_id in ids:
                if attempt_source and first_page:
                    out.attempt(arxiv_id, attempt_source, _asked_day(resp), at)
                if first_page or arxiv_id in hits:
                    out.check(OPENALEX, "paper", arxiv_id, at, arxiv_id in hits)
            for arxiv_id, rec in hits.items():
                if attempt_source:
                    out.found(arxiv_id, attempt_source, _asked_day(resp))
                complete = kind == "work_singleton" or not maybe_truncated(rec, flag_asked)
                out.oa_works[arxiv_id] = _oa_work_row(arxiv_id, rec, complete, at)
                out.snapshots[(OPENALEX, "paper", arxiv_id, at.date())] = (rec.cited_by_count, None, None, None, None)
        elif kind in ("authors_filter", "author_singleton"):
            out.set_aside(resp, bad)
            returned = {r.author_id for r in records}
            for rec in records:
                out.oa_authors[rec.author_id] = _oa_author_row(rec, at)
                out.check(OPENALEX, "author", rec.author_id, at, True)
                out.snapshots[(OPENALEX, "author", rec.author_id, at.date())] = (
                    rec.cited_by_count, None, rec.works_count, rec.h_index, rec.i10_index)
            if kind == "author_singleton" and ids and records and records[0].author_id != ids[0]:
                out.oa_redirects[ids[0]] = (ids[0], records[0].author_id, at.date())
                out.check(OPENALEX, "author", ids[0], at, True)
            elif kind == "authors_filter":
                for author_id in ids:
                    if author_id not in returned:
                        out.check(OPENALEX, "author", author_id, at, False)
        elif kind in ("institutions_filter", "institution_singleton"):
            out.set_aside(resp, bad)
            for rec in records:
                out.institutions[rec.institution_id] = _institution_row(rec, at)
        else:
            log.warning("unknown raw response kind %r in %s", kind, resp.path)
    return out


# ----------------------------------------------------------------------------------------
# write derived rows (one transaction, called by the caller)


def _newer(table: str) -> str:
    return f"EXCLUDED.fetched_at >= {table.split('.')[-1]}.fetched_at"


def _ror_conflicts(conn: psycopg.Connection, rows: dict[str, tuple]) -> None:
    """ROR is unique: a second OpenAlex id for the same ROR keeps its row but not the ROR."""
    by_ror: dict[str, str] = {
        r: i for i, r in conn.execute(
            "SELECT institution_id, ror FROM wove.institutions WHERE ror = ANY(%s)",
            ([row[1] for row in rows.values() if row[1]],),
        )
    }
    for inst_id, row in sorted(rows.items()):
        ror = row[1]
        if not ror:
            continue
        owner = by_ror.setdefault(ror, inst_id)
        if owner != inst_id:
            log.warning("ROR %s is on both %s and %s; kept on %s", ror, owner, inst_id, owner)
            rows[inst_id] = (row[0], None, *row[2:])


def write_derived(conn: psycopg.Connection, d: Derived) -> None:
    db.upsert_rows(conn, "wove.s2_papers", S2_PAPER_COLUMNS, d.s2_papers.values(), key=("arxiv_id",),
                   only_if=_newer("wove.s2_papers"))
    db.upsert_rows(conn, "wove.s2_authors", S2_AUTHOR_COLUMNS, d.s2_authors.values(), key=("author_id",),
                   only_if=_newer("wove.s2_authors"))
    db.upsert_rows(conn, "wove.openalex_works", OA_WORK_COLUMNS, d.oa_works.values(), key=("arxiv_id",),
                   only_if=_newer("wove.openalex_works"))
    db.upsert_rows(conn, "wove.openalex_authors", OA_AUTHOR_COLUMNS, d.oa_authors.values(), key=("author_id",),
                   only_if=_newer("wove.openalex_authors"))
    db.upsert_rows(conn, "wove.openalex_author_redirects", ("old_author_id", "new_author_id", "as_of"),
                   d.oa_redirects.values(), key=("old_author_id",))
    if d.institutions:
        _ror_conflicts(conn, d.institutions)
        db.upsert_rows(conn, "wove.institutions", INSTITUTION_COLUMNS, d.institutions.values(),
                       key=("institution_id",), only_if=_newer("wove.institutions"))
    db.upsert_rows(conn, "wove.citation_snapshots", SNAPSHOT_COLUMNS, (k + v for k, v in d.snapshots.items()),
                   key=("source", "entity_kind", "entity_id", "as_of"))
    _merge_attempts(conn, d.attempts)
    _merge_checked(conn, d.checked)
    _write_quarantine(conn, d.quarantined)


def _write_quarantine(conn: psycopg.Connection, rows: dict[tuple[str, str, str], tuple[str, str]]) -> None:
    """Records that did not parse, with reason and payload; re-deriving replaces, never repeats."""
    if not rows:
        return
    keys = list(rows)
    conn.execute(
        "DELETE FROM wove.quarantine q USING unnest(%s::text[], %s::text[], %s::text[]) AS k(source, part, rec) "
        "WHERE q.source = k.source AND q.partition_key = k.part AND q.record_key = k.rec",
        ([k[0] for k in keys], [k[1] for k in keys], [k[2] for k in keys]),
    )
    db.copy_rows(conn, "wove.quarantine", ("source", "partition_key", "record_key", "reason", "payload"),
                 (k + v for k, v in rows.items()))


def _merge_attempts(conn: psycopg.Connection, attempts: dict[tuple[str, str], list]) -> None:
    if not attempts:
        return
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS staging_attempts (LIKE wove.enrichment_attempts) ON COMMIT DROP")
    conn.execute("TRUNCATE staging_attempts")
    cols = ("arxiv_id", "source", "first_attempt", "last_attempt", "attempts", "found_at", "first_attempt_at",
            "last_attempt_at")
    db.copy_rows(conn, "staging_attempts", cols, (k + tuple(v) for k, v in attempts.items()))
    conn.execute(
        "INSERT INTO wove.enrichment_attempts AS t SELECT * FROM staging_attempts "
        "ON CONFLICT (arxiv_id, source) DO UPDATE SET "
        " first_attempt = LEAST(t.first_attempt, EXCLUDED.first_attempt),"
        " last_attempt = GREATEST(t.last_attempt, EXCLUDED.last_attempt),"
        " attempts = t.attempts + EXCLUDED.attempts,"
        " found_at = LEAST(t.found_at, EXCLUDED.found_at),"  # LEAST ignores NULLs
        " first_attempt_at = LEAST(t.first_attempt_at, EXCLUDED.first_attempt_at),"
        " last_attempt_at = GREATEST(t.last_attempt_at, EXCLUDED.last_attempt_at)"
    )


def _merge_checked(conn: psycopg.Connection, checked: dict[tuple[str, str, str], list]) -> None:
    if not checked:
        return
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS staging_checked (LIKE wove.refresh_state) ON COMMIT DROP")
    conn.execute("TRUNCATE staging_checked")
    cols = ("source", "entity_kind", "entity_id", "last_checked_at", "last_found_at")
    db.copy_rows(conn, "staging_checked", cols, (k + tuple(v) for k, v in checked.items()))
    conn.execute(
        "INSERT INTO wove.refresh_state AS t SELECT * FROM staging_checked "
        "ON CONFLICT (source, entity_kind, entity_id) DO UPDATE SET "
        " last_checked_at = GREATEST(t.last_checked_at, EXCLUDED.last_checked_at),"
        " last_found_at = GREATEST(t.last_found_at, EXCLUDED.last_found_at)"
    )


def apply_raw_files(conn: psycopg.Connection, store: RawStore, paths: Sequence[str]) -> Derived:
    """Derive rows from the given raw files and upsert them (inside the caller's transaction)."""
    d = derive(iter_raw(store, sorted(paths, key=lambda p: (p.rsplit("/", 1)[-1], p))))
    write_derived(conn, d)
    return d


# ----------------------------------------------------------------------------------------
# API usage across runs (budgets are per UTC day)


def usage_today(conn: psycopg.Connection, source: str, day: dt.date | None = None) -> tuple[int, float]:
    row = conn.execute("SELECT calls, cost_usd FROM wove.api_usage WHERE source = %s AND day = %s",
                       (source, day or utc_today())).fetchone()
    return (0, 0.0) if row is None else (int(row[0]), float(row[1]))


def add_usage(conn: psycopg.Connection, source: str, calls: int, cost_usd: float = 0.0,
              day: dt.date | None = None) -> None:
    if not calls and not cost_usd:
        return
    conn.execute(
        "INSERT INTO wove.api_usage (source, day, calls, cost_usd) VALUES (%s, %s, %s, %s) "
        "ON CONFLICT (source, day) DO UPDATE SET calls = api_usage.calls + EXCLUDED.calls,"
        " cost_usd = api_usage.cost_usd + EXCLUDED.cost_usd",
        (source, day or utc_today(), calls, cost_usd),
    )


def utc_today() -> dt.date:
    return dt.datetime.now(dt.timezone.utc).date()


# ----------------------------------------------------------------------------------------
# which papers to ask for


@dataclass(frozen=True)
class Candidates:
    own: list[str]  # the run's own days, not found yet
    due: list[str]  # look-back, not found, due for a re-ask
    filler: list[str]  # look-back, not due, riding in spare batch room

    @property
    def ids(self) -> list[str]:
        return self.own + self.due + self.filler


def select_candidates(conn: psycopg.Connection, source: str, days: Sequence[dt.date], settings: EnrichmentSettings,
                      batch_size: int) -> Candidates:
    first, last = min(days), max(days)
    rows = db.fetch_all(
        conn,
        "SELECT p.arxiv_id, p.oai_datestamp = ANY(%(days)s) AS own, a.last_attempt, a.attempts "
        "FROM wove.papers p LEFT JOIN wove.enrichment_attempts a ON a.arxiv_id = p.arxiv_id AND a.source = %(src)s "
        "WHERE p.oai_datestamp BETWEEN %(start)s AND %(last)s AND a.found_at IS NULL "
        "ORDER BY p.oai_datestamp DESC, p.arxiv_id",
        {"days": list(days), "src": source, "start": first - dt.timedelta(days=settings.lookback_days),
         "last": last},
    )
    own, due, rest = [], [], []
    for r in rows:
        if r["own"]:
            own.append(r["arxiv_id"])
        elif r["last_attempt"] is None:
            due.append(r["arxiv_id"])
        else:
            spacing = min(2 ** max(r["attempts"] - 1, 0), settings.max_recheck_interval_days)
            age = (last - r["last_attempt"]).days
            (due if age >= spacing else rest).append((r["last_attempt"], r["arxiv_id"]))
    due = [x if isinstance(x, str) else x[1] for x in due]
    n = len(own) + len(due)
    room = (math.ceil(n / batch_size) * batch_size - n) if n else 0
    rest.sort()  # least recently asked first
    return Candidates(own, due, [x[1] for x in rest[:room]])


# ----------------------------------------------------------------------------------------
# fetch + derive, per upstream


@dataclass
class FetchSummary:
    source: str
    days: list[dt.date]
    asked: int = 0
    asked_own: int = 0
    asked_lookback: int = 0
    found: int = 0
    still_pending: int = 0
    calls: int = 0
    retries: int = 0
    raw_file: str | None = None
    budget: dict | None = None
    budget_exhausted: bool = False
    not_asked: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def hit_rate(self) -> float:
        return self.found / self.asked if self.asked else 1.0


@gc_paused()  # every response is decoded and parsed into records as it arrives
def _collect(batches: Iterator, fetched: list[Fetch]) -> None:
    for b in batches:
        fetched.append((b.kind, b.request, b.body, (b.records, b.bad)))


@gc_paused()
def _finish(database_url: str, store: RawStore, source: str, label: str,
            fetched: list[Fetch], lock: str) -> tuple[str | None, Derived]:
    """Keep what was fetched (even when the fetch failed half-way) and derive from it: from
    the responses as written, with the records their validation parsed (a rebuild from the
    file parses the same bodies into the same records; parsing twice was most of a fetch)."""
    now = dt.datetime.now(dt.timezone.utc)
    path = _write_raw(store, source, label, fetched, now)
    if path is None:
        return None, Derived()
    responses = [RawResponse(source, label, kind, seq, orjson.loads(request), now, body, path, parsed)
                 for seq, (kind, request, body, parsed) in enumerate(fetched)]
    with db.transaction(database_url) as conn:
        db.advisory_lock(conn, lock)
        derived = derive(responses)
        write_derived(conn, derived)
        return path, derived


def fetch_s2_papers(database_url: str, client: SemanticScholarClient, store: RawStore, days: Sequence[dt.date],
                    settings: EnrichmentSettings = EnrichmentSettings()) -> FetchSummary:
    days = sorted(days)
    with db.transaction(database_url) as conn:
        cand = select_candidates(conn, S2, days, settings, client.paper_batch_size)
    summary = FetchSummary(S2, days, asked=len(cand.ids), asked_own=len(cand.own),
                           asked_lookback=len(cand.due) + len(cand.filler))
    fetched: list[Fetch] = []
    calls0, retries0 = client.http.requests_sent, client.http.retries
    try:
        _collect(client.paper_batches(cand.ids, asked_on=days[-1].isoformat()), fetched)
    finally:
        summary.calls, summary.retries = client.http.requests_sent - calls0, client.http.retries - retries0
        summary.raw_file, derived = _finish(database_url, store, RAW_S2_PAPERS, partition_label(days), fetched,
                                            "enrich:s2")
        with db.transaction(database_url) as conn:
            add_usage(conn, S2, summary.calls)
    summary.found = len(derived.s2_papers)
    summary.still_pending = summary.asked - summary.found
    return summary


def _openalex_prepare(conn: psycopg.Connection, client: OpenAlexClient) -> None:
    """What other runs spent today (this client's own spending is already in the table)."""
    client.budget.spent_before_usd = max(0.0, usage_today(conn, OPENALEX)[1] - client.budget.spent_usd)


def _openalex_usage(database_url: str, client: OpenAlexClient, list0: int, calls0: int) -> None:
    with db.transaction(database_url) as conn:
        lists = client.budget.list_calls - list0
        add_usage(conn, OPENALEX, client.http.requests_sent - calls0, lists * client.budget.list_call_usd)


def fetch_openalex_works(database_url: str, client: OpenAlexClient, store: RawStore, days: Sequence[dt.date],
                         settings: EnrichmentSettings = EnrichmentSettings()) -> FetchSummary:
    days = sorted(days)
    with db.transaction(database_url) as conn:
        cand = select_candidates(conn, OPENALEX, days, settings, client.or_values)
        _openalex_prepare(conn, client)
    summary = FetchSummary(OPENALEX, days, asked_own=len(cand.own), asked_lookback=len(cand.due) + len(cand.filler))
    fetched: list[Fetch] = []
    calls0, retries0, list0 = client.http.requests_sent, client.http.retries, client.budget.list_calls
    try:
        _collect(client.works_by_arxiv_ids(cand.ids, asked_on=days[-1].isoformat()), fetched)
        # Preprints OpenAlex merged into their published version answer to that DOI only.
        pairs = _published_dois(database_url, _unmatched(fetched))
        summary.extra["asked_by_published_doi"] = len({a for a, _ in pairs})
        _collect(client.works_by_published_dois(pairs, asked_on=days[-1].isoformat()), fetched)
    except BudgetExhausted as exc:
        summary.budget_exhausted = True
        log.warning("OpenAlex: %s; unasked papers stay pending for the next run", exc)
    finally:
        summary.calls, summary.retries = client.http.requests_sent - calls0, client.http.retries - retries0
        summary.raw_file, derived = _finish(database_url, store, RAW_OA_WORKS, partition_label(days), fetched,
                                            "enrich:openalex")
        _openalex_usage(database_url, client, list0, calls0)
        summary.budget = client.budget.summary()
    summary.asked = sum(1 for (_i, _s), v in derived.attempts.items())
    summary.not_asked = len(cand.ids) - summary.asked
    summary.found = len(derived.oa_works)
    summary.still_pending = summary.asked - summary.found
    summary.extra["truncated_refetched"] = sum(1 for kind, *_ in fetched if kind == "work_singleton")
    found_by_doi = {a for kind, request, _b, (records, _) in fetched if kind == "works_doi_filter"
                    for a in _doi_hits(orjson.loads(request), records)}
    summary.extra["found_by_published_doi"] = len(found_by_doi & derived.oa_works.keys())
    return summary


def _unmatched(fetched: list[Fetch]) -> list[str]:
    """The arXiv ids asked by their arXiv DOI that no work answered."""
    asked: dict[str, None] = {}
    found: set[str] = set()
    for kind, request, _body, (records, _bad) in fetched:
        if kind == "works_filter":
            asked.update(dict.fromkeys(orjson.loads(request).get("ids", [])))
        found |= {r.arxiv_id for r in records if r.arxiv_id}
    return [i for i in asked if i not in found]


def _doi_hits(request: dict, records: list) -> list[str]:
    by_doi = dict(zip(request.get("dois", []), request.get("ids", [])))
    return [by_doi[r.doi] for r in records if r.doi in by_doi]


def _published_dois(database_url: str, arxiv_ids: Sequence[str]) -> list[tuple[str, str]]:
    """(arxiv_id, DOI) for every non-arXiv DOI of these papers that arXiv (`papers.dois`) or
    S2 (`externalIds.DOI`) knows: the published version's, which a merged work carries."""
    if not arxiv_ids:
        return []
    with db.transaction(database_url) as conn:
        rows = conn.execute(
            "SELECT p.arxiv_id, d.doi FROM wove.papers p LEFT JOIN wove.s2_papers s USING (arxiv_id),"
            " LATERAL (SELECT lower(x) AS doi FROM unnest(p.dois || s.doi) AS x WHERE x IS NOT NULL) d"
            " WHERE p.arxiv_id = ANY(%s) AND d.doi NOT LIKE '10.48550/%%' ORDER BY p.arxiv_id, d.doi",
            (list(arxiv_ids),)).fetchall()
    return list(dict.fromkeys((a, d) for a, d in rows))


def _window(days: Sequence[dt.date], settings: EnrichmentSettings) -> tuple[dt.date, dt.date]:
    return min(days) - dt.timedelta(days=settings.lookback_days), max(days)


def fetch_s2_authors(database_url: str, client: SemanticScholarClient, store: RawStore, days: Sequence[dt.date],
                     settings: EnrichmentSettings = EnrichmentSettings()) -> FetchSummary:
    """S2 profiles of the authors of the window's papers that we do not hold yet."""
    days = sorted(days)
    start, end = _window(days, settings)
    with db.transaction(database_url) as conn:
        ids = [r[0] for r in conn.execute(
            "SELECT DISTINCT a->>'author_id' FROM wove.s2_papers s JOIN wove.papers p USING (arxiv_id),"
            " jsonb_array_elements(s.authors) a WHERE p.oai_datestamp BETWEEN %s AND %s"
            " AND a->>'author_id' IS NOT NULL"
            " AND NOT EXISTS (SELECT 1 FROM wove.s2_authors x WHERE x.author_id = a->>'author_id')"
            " ORDER BY 1", (start, end))]
    summary = FetchSummary(S2, days, asked=len(ids))
    fetched: list[Fetch] = []
    calls0, retries0 = client.http.requests_sent, client.http.retries
    try:
        _collect(client.author_batches(ids, asked_on=days[-1].isoformat()), fetched)
    finally:
        summary.calls, summary.retries = client.http.requests_sent - calls0, client.http.retries - retries0
        summary.raw_file, derived = _finish(database_url, store, RAW_S2_AUTHORS, partition_label(days), fetched,
                                            "enrich:s2_authors")
        with db.transaction(database_url) as conn:
            add_usage(conn, S2, summary.calls)
    summary.found = len(derived.s2_authors)
    summary.still_pending = summary.asked - summary.found
    return summary


def _fetch_openalex_entities(database_url: str, client: OpenAlexClient, store: RawStore, days: Sequence[dt.date],
                             ids_sql: str, params: tuple, raw_source: str, method: str) -> FetchSummary:
    days = sorted(days)
    with db.transaction(database_url) as conn:
        ids = [r[0] for r in conn.execute(ids_sql, params)]
        _openalex_prepare(conn, client)
    summary = FetchSummary(OPENALEX, days, asked=len(ids))
    fetched: list[Fetch] = []
    calls0, retries0, list0 = client.http.requests_sent, client.http.retries, client.budget.list_calls
    try:
        _collect(getattr(client, method)(ids, asked_on=days[-1].isoformat()), fetched)
    except BudgetExhausted as exc:
        summary.budget_exhausted = True
        log.warning("OpenAlex: %s; the rest is fetched by the next run", exc)
    finally:
        summary.calls, summary.retries = client.http.requests_sent - calls0, client.http.retries - retries0
        summary.raw_file, derived = _finish(database_url, store, raw_source, partition_label(days), fetched,
                                            f"enrich:{raw_source}")
        _openalex_usage(database_url, client, list0, calls0)
        summary.budget = client.budget.summary()
    summary.found = len(derived.oa_authors) if method == "authors_by_ids" else len(derived.institutions)
    summary.extra["redirects"] = len(derived.oa_redirects)
    summary.still_pending = max(0, summary.asked - summary.found - len(derived.oa_redirects))
    return summary


def fetch_openalex_authors(database_url: str, client: OpenAlexClient, store: RawStore, days: Sequence[dt.date],
                           settings: EnrichmentSettings = EnrichmentSettings()) -> FetchSummary:
    """OpenAlex profiles of the authors on the window's works that we do not hold yet."""
    start, end = _window(days, settings)
    sql = (
        "SELECT DISTINCT a->>'author_id' FROM wove.openalex_works w JOIN wove.papers p USING (arxiv_id),"
        " jsonb_array_elements(w.authorships) a WHERE p.oai_datestamp BETWEEN %s AND %s"
        " AND a->>'author_id' IS NOT NULL"
        " AND NOT EXISTS (SELECT 1 FROM wove.openalex_authors x WHERE x.author_id = a->>'author_id')"
        " AND NOT EXISTS (SELECT 1 FROM wove.openalex_author_redirects r WHERE r.old_author_id = a->>'author_id')"
        " ORDER BY 1"
    )
    return _fetch_openalex_entities(database_url, client, store, days, sql, (start, end), RAW_OA_AUTHORS,
                                    "authors_by_ids")


def fetch_institutions(database_url: str, client: OpenAlexClient, store: RawStore, days: Sequence[dt.date],
                       settings: EnrichmentSettings = EnrichmentSettings()) -> FetchSummary:
    """Institutions on the window's works (and their authors' last known ones) not held yet."""
    start, end = _window(days, settings)
    sql = (
        "WITH works AS (SELECT w.authorships FROM wove.openalex_works w JOIN wove.papers p USING (arxiv_id)"
        "  WHERE p.oai_datestamp BETWEEN %s AND %s),"
        " ids AS ("
        "  SELECT jsonb_array_elements_text(a->'institution_ids') AS id FROM works, jsonb_array_elements(works.authorships) a"
        "  UNION SELECT unnest(oa.last_known_institution_ids) FROM works, jsonb_array_elements(works.authorships) a"
        "   JOIN wove.openalex_authors oa ON oa.author_id = a->>'author_id')"
        " SELECT DISTINCT id FROM ids WHERE id IS NOT NULL"
        " AND NOT EXISTS (SELECT 1 FROM wove.institutions i WHERE i.institution_id = ids.id) ORDER BY 1"
    )
    return _fetch_openalex_entities(database_url, client, store, days, sql, (start, end), RAW_OA_INSTITUTIONS,
                                    "institutions_by_ids")


# ----------------------------------------------------------------------------------------
# authorship alignment (no API: from wove.paper_authors, wove.s2_papers, wove.openalex_works)


def _align(arxiv_names: list[str], other_names: list[str]) -> list[tuple[int, int | None, float]]:
    from wove_pipeline.matching.alignment import align_authorships
    return align_authorships(arxiv_names, other_names)


AUTHORSHIP_COLUMNS = (
    "arxiv_id", "position", "arxiv_name", "s2_position", "s2_author_id", "s2_name", "s2_confidence",
    "openalex_position", "openalex_author_id", "openalex_name", "openalex_confidence", "orcid", "institution_ids",
    "raw_affiliations", "is_corresponding",
)


def _arxiv_name(keyname: str, forenames: str | None, suffix: str | None) -> str:
    return " ".join(x for x in (forenames, keyname, suffix) if x)


def align_papers(conn: psycopg.Connection, arxiv_ids: Sequence[str]) -> int:
    """(Re)write wove.authorships for these papers. Returns rows written."""
    if not arxiv_ids:
        return 0
    ids = list(arxiv_ids)
    authors: dict[str, list[str]] = {}
    for arxiv_id, keyname, forenames, suffix in conn.execute(
        "SELECT arxiv_id, keyname, forenames, suffix FROM wove.paper_authors WHERE arxiv_id = ANY(%s)"
        " ORDER BY arxiv_id, position", (ids,)
    ):
        authors.setdefault(arxiv_id, []).append(_arxiv_name(keyname, forenames, suffix))
    s2 = dict(conn.execute("SELECT arxiv_id, authors FROM wove.s2_papers WHERE arxiv_id = ANY(%s)", (ids,)).fetchall())
    oa = dict(conn.execute("SELECT arxiv_id, authorships FROM wove.openalex_works WHERE arxiv_id = ANY(%s)",
                           (ids,)).fetchall())
    # An authorship's ORCID, else its OpenAlex profile's: OpenAlex can leave `orcid` null on
    # the profile and give it in `ids.orcid` only (the recorded 2026 author does), and the
    # dehydrated author on a work then has none either.
    oa_ids = sorted({a["author_id"] for ships in oa.values() for a in ships or () if a.get("author_id")})
    profile_orcid = dict(conn.execute(
        "SELECT o.author_id, coalesce(a.orcid, m.orcid) FROM unnest(%s::text[]) AS o(author_id)"
        " LEFT JOIN wove.openalex_authors a ON a.author_id = o.author_id"
        " LEFT JOIN wove.openalex_author_redirects r ON r.old_author_id = o.author_id"
        " LEFT JOIN wove.openalex_authors m ON m.author_id = r.new_author_id"
        " WHERE coalesce(a.orcid, m.orcid) IS NOT NULL", (oa_ids,)).fetchall()) if oa_ids else {}
    rows = []
    for arxiv_id in sorted(authors):
        names = authors[arxiv_id]
        s2_list = s2.get(arxiv_id) or []
        oa_list = oa.get(arxiv_id) or []
        s2_al = _align(names, [a["name"] or "" for a in s2_list]) if s2_list else [(i, None, 0.0) for i in range(len(names))]
        oa_al = (_align(names, [a.get("raw_author_name") or a.get("display_name") or "" for a in oa_list])
                 if oa_list else [(i, None, 0.0) for i in range(len(names))])
        for (pos, s_pos, s_conf), (_p, o_pos, o_conf) in zip(s2_al, oa_al):
            s = s2_list[s_pos] if s_pos is not None else {}
            o = oa_list[o_pos] if o_pos is not None else {}
            rows.append((
                arxiv_id, pos, names[pos], s_pos, s.get("author_id"), s.get("name"), float(s_conf),
                o_pos, o.get("author_id"), o.get("raw_author_name") or o.get("display_name"), float(o_conf),
                o.get("orcid") or profile_orcid.get(o.get("author_id")), o.get("institution_ids") or [],
                o.get("raw_affiliation_strings") or [],
                bool(o.get("is_corresponding")),
            ))
    conn.execute("DELETE FROM wove.authorships WHERE arxiv_id = ANY(%s)", (ids,))
    return db.copy_rows(conn, "wove.authorships", AUTHORSHIP_COLUMNS, rows)


@dataclass
class AlignSummary:
    papers: int
    rows: int
    with_s2: int
    with_openalex: int
    mean_s2_confidence: float | None
    mean_openalex_confidence: float | None


def align_days(database_url: str, days: Sequence[dt.date],
               settings: EnrichmentSettings = EnrichmentSettings()) -> AlignSummary:
    """Align the run's own papers, and papers of the look-back window whose upstream
    records are newer than their alignment (found late, or refreshed)."""
    days = sorted(days)
    start, end = _window(days, settings)
    with db.transaction(database_url) as conn:
        db.advisory_lock(conn, "enrich:authorships")
        ids = [r[0] for r in conn.execute(
            "SELECT p.arxiv_id FROM wove.papers p"
            " LEFT JOIN wove.s2_papers s USING (arxiv_id) LEFT JOIN wove.openalex_works w USING (arxiv_id)"
            " LEFT JOIN LATERAL (SELECT min(aligned_at) AS aligned_at FROM wove.authorships x"
            "   WHERE x.arxiv_id = p.arxiv_id) al ON true"
            # the window first (the run's days are in it): an index range, not every paper
            " WHERE p.oai_datestamp BETWEEN %s AND %s AND (p.oai_datestamp = ANY(%s)"
            "  OR ((s.arxiv_id IS NOT NULL OR w.arxiv_id IS NOT NULL)"
            "      AND (al.aligned_at IS NULL OR s.fetched_at > al.aligned_at OR w.fetched_at > al.aligned_at)))",
            (start, end, days))]
        n = align_papers(conn, ids)
        stats = conn.execute(
            "SELECT count(*) FILTER (WHERE s2_position IS NOT NULL), count(*) FILTER (WHERE openalex_position IS NOT NULL),"
            " avg(s2_confidence) FILTER (WHERE s2_position IS NOT NULL),"
            " avg(openalex_confidence) FILTER (WHERE openalex_position IS NOT NULL)"
            " FROM wove.authorships WHERE arxiv_id = ANY(%s)", (ids,)).fetchone()
    return AlignSummary(len(ids), n, stats[0], stats[1], None if stats[2] is None else round(float(stats[2]), 3),
                        None if stats[3] is None else round(float(stats[3]), 3))


# ----------------------------------------------------------------------------------------
# rebuild


@dataclass
class RebuildSummary:
    files: int
    responses: int
    counts: dict[str, int]
    authorships: int


def rebuild_from_raw(database_url: str, store: RawStore) -> RebuildSummary:
    """Re-derive every enrichment table from the raw Parquet files alone (no API call):
    truncate, fold all responses oldest first, re-align every paper. One transaction."""
    paths = raw_files(store, ALL_RAW_SOURCES)
    responses = list(iter_raw(store, paths))
    d = derive(responses)
    with db.transaction(database_url) as conn:
        db.advisory_lock(conn, "enrich:rebuild")
        conn.execute("TRUNCATE " + ", ".join(DERIVED_TABLES))
        write_derived(conn, d)
        ids = [r[0] for r in conn.execute("SELECT arxiv_id FROM wove.papers ORDER BY arxiv_id")]
        n = align_papers(conn, ids)
    return RebuildSummary(len(paths), len(responses), d.counts(), n)
