"""Derive: raw responses -> the rows of the enrichment tables.

Pure (no I/O), and the same for an incremental load and a rebuild: responses are folded
oldest first, and for each key the newest record wins, so deriving from the file just
written and from every raw file (wove_pipeline.enrichment.rebuild) give the same tables.
Besides the entity rows it counts what each response says about the asking: enrichment
attempts (a paper asked for, found or not), when each entity was last checked and found,
citation snapshots, and the records that did not parse (quarantined, the rest kept).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import orjson

from wove_pipeline.enrichment import rows
from wove_pipeline.enrichment.raw import ATTEMPT_SOURCES, OPENALEX, S2, RawResponse
from wove_pipeline.openalex.client import maybe_truncated
from wove_pipeline.openalex.parser import (
    parse_author,
    parse_authors_page,
    parse_institution,
    parse_institutions_page,
    parse_work,
    parse_works_page,
)
from wove_pipeline.semantic_scholar.parser import parse_author_batch, parse_paper_batch
from wove_pipeline.upstream.lenient import BadRecord

log = logging.getLogger(__name__)


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

    def set_aside(self, resp: RawResponse, bad: list[BadRecord], keys: Sequence[str] | None = None) -> None:
        """Quarantine the records of one response that did not parse (the rest still count)."""
        for b in bad:
            key = keys[b.index] if keys is not None and b.index < len(keys) else f"{resp.kind}[{b.index}]"
            self.quarantined[(resp.source, resp.asked_day.isoformat(), key)] = (b.reason, b.payload)

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
                    out.attempt(arxiv_id, attempt_source, resp.asked_day, at)
                out.check(S2, "paper", arxiv_id, at, rec is not None)
                if rec is not None:
                    if attempt_source:
                        out.found(arxiv_id, attempt_source, resp.asked_day)
                    out.s2_papers[arxiv_id] = rows.s2_paper_row(arxiv_id, rec, at)
                    out.snapshots[(S2, "paper", arxiv_id, at.date())] = (
                        rec.citation_count, rec.influential_citation_count, None, None, None)
        elif kind == "author_batch":
            out.set_aside(resp, bad, ids)
            for author_id, rec in zip(ids, records):
                out.check(S2, "author", author_id, at, rec is not None)
                if rec is not None:
                    out.s2_authors[rec.author_id] = rows.s2_author_row(rec, at)
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
                    out.attempt(arxiv_id, attempt_source, resp.asked_day, at)
                if first_page or arxiv_id in hits:
                    out.check(OPENALEX, "paper", arxiv_id, at, arxiv_id in hits)
            for arxiv_id, rec in hits.items():
                if attempt_source:
                    out.found(arxiv_id, attempt_source, resp.asked_day)
                complete = kind == "work_singleton" or not maybe_truncated(rec, flag_asked)
                out.oa_works[arxiv_id] = rows.oa_work_row(arxiv_id, rec, complete, at)
                out.snapshots[(OPENALEX, "paper", arxiv_id, at.date())] = (rec.cited_by_count, None, None, None, None)
        elif kind in ("authors_filter", "author_singleton"):
            out.set_aside(resp, bad)
            returned = {r.author_id for r in records}
            for rec in records:
                out.oa_authors[rec.author_id] = rows.oa_author_row(rec, at)
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
                out.institutions[rec.institution_id] = rows.institution_row(rec, at)
        else:
            log.warning("unknown raw response kind %r in %s", kind, resp.path)
    return out
