"""Bulk backfill from the Semantic Scholar Datasets and the OpenAlex snapshot.

Per-record API calls are right for a day's new papers; for the whole archive (millions of
papers and authors) the bulk products are: S2's Datasets API (weekly releases of gzipped
JSON-lines shards; read by wove_pipeline.semantic_scholar.datasets, loaded by
...datasets_load) and the OpenAlex snapshot (``s3://openalex/data/<entity>/...`` with a
``manifest`` per entity; wove_pipeline.openalex.snapshot, ...snapshot_load). Both are
loaded as the API path's raw responses (wove_pipeline.enrichment.bulk_raw), then the
authorship alignment runs on the papers, all without an API call. ``wove bulk``
(wove_pipeline.cli.bulk) runs it from the command line.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Sequence

import psycopg

from wove_pipeline.database import access as db
from wove_pipeline.enrichment.authorships import align_papers
from wove_pipeline.enrichment.bulk_raw import BulkLoadSummary, wanted_ids
from wove_pipeline.openalex.snapshot import OpenAlexSnapshot
from wove_pipeline.openalex.snapshot_load import load_openalex_snapshot
from wove_pipeline.semantic_scholar.datasets import S2Release, latest_s2_release
from wove_pipeline.semantic_scholar.datasets_load import load_s2_release
from wove_pipeline.upstream.raw_store import RawStore


def bulk_load(conn: psycopg.Connection, store: RawStore, *, s2_root: str | None = None,
              s2_release: str | None = None, openalex_root: str | None = None, snapshot_date: dt.date | None = None,
              arxiv_ids: Sequence[str] | None = None, progress=None) -> BulkLoadSummary:
    """The backfill: S2 release and/or OpenAlex snapshot for our papers, then the authorship
    alignment of those papers (the enrichment stage's own), all without an API call; each
    part in a transaction of its own on ``conn``.
    ``progress`` (a wove_pipeline.cli.progress.Progress): a line per stage with counts and seconds."""
    def stage(what: str):
        return progress.stage("bulk", what) if progress is not None else contextlib.nullcontext({})

    ids = list(arxiv_ids) if arxiv_ids is not None else wanted_ids(conn)
    if progress is not None:
        progress.line("bulk", f"{len(ids):,} papers in wove.papers to load for")
    total = BulkLoadSummary(wanted=len(ids))
    if s2_root:
        release = S2Release(str(s2_root), s2_release) if s2_release else latest_s2_release(s2_root)
        with stage(f"Semantic Scholar release {release.release}") as done:
            s = load_s2_release(conn, store, release, ids)
            done["text"] = f"{s.s2_papers:,} papers, {s.s2_authors:,} authors"
        total.s2_release, total.s2_papers, total.s2_authors = s.s2_release, s.s2_papers, s.s2_authors
        total.raw_files += s.raw_files
    if openalex_root:
        day = snapshot_date or dt.datetime.now(dt.timezone.utc).date()
        at = dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc)
        with stage(f"OpenAlex snapshot of {day}") as done:
            o = load_openalex_snapshot(conn, store, OpenAlexSnapshot(str(openalex_root)), ids, snapshot_at=at)
            done["text"] = (f"{o.openalex_works:,} works, {o.openalex_authors:,} authors, "
                            f"{o.institutions:,} institutions")
        total.openalex_root = o.openalex_root
        total.openalex_works, total.openalex_authors = o.openalex_works, o.openalex_authors
        total.openalex_redirects, total.institutions = o.openalex_redirects, o.institutions
        total.raw_files += o.raw_files
    with stage("authorship alignment") as done, conn.transaction():
        db.advisory_lock(conn, "enrich:align")
        total.authorships = align_papers(conn, ids)
        done["text"] = f"{total.authorships:,} authorships"
    return total
