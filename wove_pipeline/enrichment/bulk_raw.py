"""Bulk records as the API path's raw responses, and loading them.

Dataset and snapshot records are packed as the responses the API path keeps
(``paper_batch``, ``author_batch``, ``works_filter``, ``authors_filter``,
``institutions_filter``, ``author_singleton`` for merged ids), kept in the raw layer under
the same sources (so ``rebuild_from_raw`` sees them), and derived and upserted as any raw
file is (wove_pipeline.enrichment.writes.apply_raw_files): bulk and API rows cannot drift
apart. Their ``fetched_at`` is the release/snapshot time (the file name starts with it), so
"newest wins" between a snapshot and fresher API answers holds.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

import psycopg
import pyarrow as pa
import pyarrow.parquet as pq

from wove_pipeline.database import access as db
from wove_pipeline.enrichment.writes import apply_raw_files
from wove_pipeline.upstream.raw_store import RAW_SCHEMA, RawStore

# One packed response: (kind, request description, body).
Packed = tuple[str, str, bytes]


@dataclass
class BulkLoadSummary:
    s2_release: str | None = None
    openalex_root: str | None = None
    wanted: int = 0
    s2_papers: int = 0
    s2_authors: int = 0
    openalex_works: int = 0
    openalex_authors: int = 0
    openalex_redirects: int = 0
    institutions: int = 0
    authorships: int = 0
    raw_files: list[str] = field(default_factory=list)


def request(kind: str, ids: Sequence[str], origin: str, **extra: object) -> str:
    """The request description a bulk response is kept with: what it answers, and where from."""
    return json.dumps({"method": "BULK", "kind": kind, "origin": origin, "ids": list(ids), **extra},
                      separators=(",", ":"))


def body(answer: object) -> bytes:
    return json.dumps(answer, ensure_ascii=False).encode("utf-8")


def write_raw_at(store: RawStore, source: str, label: str, at: dt.datetime, responses: Sequence[Packed]) -> str | None:
    """One raw file whose fetch time is the release time (RawStore.write stamps "now").
    Same schema, layout and write-then-rename as the raw store; the name sorts by that time."""
    if not responses:
        return None
    table = pa.table({
        "source": [source] * len(responses), "partition": [label] * len(responses),
        "kind": [r[0] for r in responses], "seq": list(range(len(responses))),
        "request": [r[1] for r in responses], "fetched_at": [at] * len(responses),
        "body": [r[2] for r in responses],
    }, schema=RAW_SCHEMA)
    directory = f"{store.root}/{source}/{label}"
    store.fs.create_dir(directory, recursive=True)
    path = f"{directory}/{at.strftime('%Y%m%dT%H%M%S%fZ')}-bulk-{uuid.uuid4().hex[:8]}.parquet"
    pq.write_table(table, path + ".tmp", filesystem=store.fs, compression="zstd")
    store.fs.move(path + ".tmp", path)
    return path


def apply_files(conn: psycopg.Connection, store: RawStore, paths: list[str], lock: str) -> None:
    """Derive and upsert the files written, in one transaction."""
    if not paths:
        return
    with conn.transaction():
        db.advisory_lock(conn, lock)
        for path in paths:  # one file at a time: memory stays at one file's rows
            apply_raw_files(conn, store, [path])


def wanted_ids(conn: psycopg.Connection) -> list[str]:
    """Every paper in wove.papers: what a bulk load loads for, unless told otherwise."""
    return [r[0] for r in conn.execute("SELECT arxiv_id FROM wove.papers ORDER BY arxiv_id")]
