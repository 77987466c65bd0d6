"""Loading a copy of the OpenAlex snapshot into the enrichment tables, without an API call:
works for our arXiv ids, the authors on them (merged ids redirected to their survivor) and
the institutions on both, packed as the API path's responses (wove_pipeline.enrichment.bulk_raw)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import psycopg

from wove_pipeline.enrichment.bulk_raw import (
    BulkLoadSummary,
    Packed,
    apply_files,
    body,
    request,
    wanted_ids,
    write_raw_at,
)
from wove_pipeline.enrichment.raw import RAW_OA_AUTHORS, RAW_OA_INSTITUTIONS, RAW_OA_WORKS
from wove_pipeline.openalex.client import PER_PAGE
from wove_pipeline.openalex.snapshot import OpenAlexSnapshot, openalex_arxiv_id, openalex_short
from wove_pipeline.upstream.batching import chunks
from wove_pipeline.upstream.raw_store import RawStore



def _page(results: list[dict]) -> bytes:
    """A list answer holding these results, as the API sends one."""
    page = {"meta": {"count": len(results), "db_response_time_ms": 0, "page": None, "per_page": PER_PAGE,
                     "next_cursor": None, "groups_count": None}, "results": results, "group_by": []}
    return body(page)


def load_openalex_snapshot(conn: psycopg.Connection, store: RawStore, snapshot: OpenAlexSnapshot,
                           arxiv_ids: Sequence[str] | None = None, *, snapshot_at: dt.datetime,
                           verify: bool = True, since: str | None = None) -> BulkLoadSummary:
    """OpenAlex works for our arXiv ids, the authors on them (merged ids redirected to their
    survivor) and the institutions on both, into the enrichment tables."""
    wanted = set(arxiv_ids if arxiv_ids is not None else wanted_ids(conn))
    if verify:
        for entity in ("works", "authors", "institutions"):
            snapshot.verify(entity)
    at = snapshot_at
    label = f"bulk_openalex_{at.date().isoformat()}"
    origin = f"openalex-snapshot:{at.date().isoformat()}"
    summary = BulkLoadSummary(openalex_root=snapshot.root, wanted=len(wanted))
    paths: list[str | None] = []

    # Works: keep ours, packed as the works_filter pages the API path keeps.
    responses: list[Packed] = []
    author_ids: set[str] = set()
    inst_ids: set[str] = set()
    page_ids: list[str] = []
    page: list[dict] = []

    def flush() -> None:
        nonlocal page, page_ids
        if page:
            responses.append(("works_filter", request("works_filter", page_ids, origin, params={"cursor": "*"},
                                                      asked_on=at.date().isoformat()), _page(page)))
        page, page_ids = [], []

    found_works: set[str] = set()
    for rec in snapshot.records("works", since):
        arxiv_id = openalex_arxiv_id(rec)
        if arxiv_id not in wanted or arxiv_id in found_works:
            continue
        found_works.add(arxiv_id)
        page.append(rec)
        page_ids.append(arxiv_id)
        for a in rec.get("authorships") or []:
            aid = openalex_short((a.get("author") or {}).get("id"))
            if aid:
                author_ids.add(aid)
            inst_ids |= {openalex_short(i.get("id")) for i in a.get("institutions") or [] if i.get("id")}
        if len(page) >= PER_PAGE:
            flush()
    flush()
    # The papers no snapshot work matched: asked and not found (a first page with no hit).
    for ids in chunks(sorted(wanted - found_works), PER_PAGE):
        responses.append(("works_filter", request("works_filter", ids, origin, params={"cursor": "*"},
                                                  asked_on=at.date().isoformat()), _page([])))
    paths.append(write_raw_at(store, RAW_OA_WORKS, label, at, responses))
    summary.openalex_works = len(found_works)

    # Authors on those works; a retired id is answered with its survivor (what the API's
    # 301 gives), which the enrichment derive records as a redirect.
    responses, page, page_ids = [], [], []
    records: dict[str, dict] = {}
    for rec in snapshot.records("authors", since):
        aid = openalex_short(rec.get("id"))
        if aid in author_ids:
            records[aid] = rec
    merged = {old: new for _d, old, new in snapshot.merged_ids("authors") if old in author_ids and old not in records}
    survivors_needed = set(merged.values()) - set(records)
    if survivors_needed:
        for rec in snapshot.records("authors"):
            if openalex_short(rec.get("id")) in survivors_needed:
                records[openalex_short(rec["id"])] = rec
    for ids in chunks(sorted(a for a in author_ids if a in records), PER_PAGE):
        responses.append(("authors_filter", request("authors_filter", ids, origin, asked_on=at.date().isoformat()),
                          _page([records[i] for i in ids])))
    for old, new in sorted(merged.items()):
        if new in records:
            responses.append(("author_singleton", request("author_singleton", [old], origin,
                                                          asked_on=at.date().isoformat()), body(records[new])))
    for rec in (records[a] for a in author_ids if a in records):  # as the API path: authors on the works
        inst_ids |= {openalex_short(i.get("id")) for i in rec.get("last_known_institutions") or [] if i and i.get("id")}
    paths.append(write_raw_at(store, RAW_OA_AUTHORS, label, at, responses))
    summary.openalex_authors = sum(1 for a in author_ids if a in records)
    summary.openalex_redirects = sum(1 for new in merged.values() if new in records)

    # Institutions on the works and the authors' last known ones.
    inst_ids.discard(None)
    responses = []
    for batch in chunks((r for r in snapshot.records("institutions") if openalex_short(r.get("id")) in inst_ids),
                        PER_PAGE):
        ids = [openalex_short(r["id"]) for r in batch]
        responses.append(("institutions_filter", request("institutions_filter", ids, origin,
                                                         asked_on=at.date().isoformat()), _page(batch)))
        summary.institutions += len(batch)
    paths.append(write_raw_at(store, RAW_OA_INSTITUTIONS, label, at, responses))
    summary.raw_files = [p for p in paths if p]
    apply_files(conn, store, summary.raw_files, "enrich:openalex")
    return summary
