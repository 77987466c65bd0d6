"""Loading a Semantic Scholar Datasets release into the enrichment tables, without an API call:
its records packed as the Graph API batch answers the API path keeps
(wove_pipeline.enrichment.bulk_raw)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import psycopg

from wove_pipeline.arxiv.tex import try_normalize_arxiv_id
from wove_pipeline.enrichment.bulk_raw import (
    BulkLoadSummary,
    Packed,
    apply_files,
    body,
    request,
    wanted_ids,
    write_raw_at,
)
from wove_pipeline.enrichment.raw import RAW_S2_AUTHORS, RAW_S2_PAPERS
from wove_pipeline.semantic_scholar.client import AUTHOR_BATCH_MAX, PAPER_BATCH_MAX
from wove_pipeline.semantic_scholar.datasets import S2Release, release_time, s2_author_as_graph, s2_paper_as_graph
from wove_pipeline.upstream.batching import chunks
from wove_pipeline.upstream.raw_store import RawStore



def load_s2_release(conn: psycopg.Connection, store: RawStore, release: S2Release,
                    arxiv_ids: Sequence[str] | None = None, *, released_at: dt.datetime | None = None,
                    responses_per_file: int = 100) -> BulkLoadSummary:
    """S2 papers (with abstracts) for our arXiv ids, then the authors on them, into the
    enrichment tables. Papers absent from the release count as a miss (the look-back asks
    the API for them later), exactly as a ``null`` in a batch answer does."""
    wanted = set(arxiv_ids if arxiv_ids is not None else wanted_ids(conn))
    at = released_at or release_time(release.release)
    label = f"bulk_s2_{release.release}"
    summary = BulkLoadSummary(s2_release=release.release, wanted=len(wanted))
    origin = f"s2-datasets:{release.release}"

    # Pass 1: the papers we want (only theirs are kept), pass 2: their abstracts.
    kept: dict[str, dict] = {}
    for rec in release.records("papers"):
        arxiv = (rec.get("externalids") or {}).get("ArXiv")
        arxiv = try_normalize_arxiv_id(arxiv) if isinstance(arxiv, str) else None
        if arxiv in wanted:
            kept[arxiv] = rec
    abstracts: dict[int, str | None] = {}
    if kept and release.has("abstracts"):
        corpus = {r["corpusid"] for r in kept.values()}
        for rec in release.records("abstracts"):
            if rec.get("corpusid") in corpus:
                abstracts[rec["corpusid"]] = rec.get("abstract")

    paths: list[str | None] = []
    responses: list[Packed] = []
    author_ids: set[str] = set()
    # The API's batch limits: bulk responses look like API ones.
    for ids in chunks(sorted(wanted), PAPER_BATCH_MAX):
        answer = []
        for arxiv_id in ids:
            rec = kept.get(arxiv_id)
            if rec is None:
                answer.append(None)
                continue
            answer.append(s2_paper_as_graph(rec, abstracts.get(rec.get("corpusid"))))
            author_ids |= {str(a["authorId"]) for a in rec.get("authors") or [] if a.get("authorId")}
        responses.append(("paper_batch", request("paper_batch", ids, origin, asked_on=at.date().isoformat()),
                          body(answer)))
        if len(responses) >= responses_per_file:
            paths.append(write_raw_at(store, RAW_S2_PAPERS, label, at, responses))
            responses = []
    paths.append(write_raw_at(store, RAW_S2_PAPERS, label, at, responses))
    summary.s2_papers = len(kept)
    kept.clear()
    abstracts.clear()

    # Authors: stream the dataset, keep the ones on our papers (null where absent, as the API).
    found: dict[str, dict] = {}
    for rec in release.records("authors"):
        if str(rec.get("authorid")) in author_ids:
            found[str(rec["authorid"])] = s2_author_as_graph(rec)
    responses = []
    for ids in chunks(sorted(author_ids), AUTHOR_BATCH_MAX):
        answer = [found.get(i) for i in ids]
        responses.append(("author_batch", request("author_batch", ids, origin, asked_on=at.date().isoformat()),
                          body(answer)))
    paths.append(write_raw_at(store, RAW_S2_AUTHORS, label, at, responses))
    summary.s2_authors = len(found)
    summary.raw_files = [p for p in paths if p]
    apply_files(conn, store, summary.raw_files, "enrich:s2")
    return summary
