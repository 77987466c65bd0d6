"""The enrichment stage's raw layer: the upstream sources it keeps, reading their responses
back, and writing one fetch's responses as one file.

Every response is kept as Parquet (one immutable file per fetch, the request beside each
body, never a key; wove_pipeline.upstream.raw_store), so the tables can be derived again
from the files alone (wove_pipeline.enrichment.rebuild).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import orjson
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from wove_pipeline.upstream.raw_store import RawStore

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

    @property
    def asked_day(self) -> dt.date:
        """The partition day the ask was made for (``asked_on``), else the fetch's UTC day."""
        day = self.request.get("asked_on")
        return dt.date.fromisoformat(day) if day else self.fetched_at.date()


# One fetched response: (kind, request description, body, (records, records set aside)).
Fetch = tuple[str, str, bytes, tuple[list, list]]


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


def oldest_first(paths: Iterable[str]) -> list[str]:
    """Raw file paths in fetch order (file names start with the UTC time)."""
    return sorted(paths, key=lambda p: (p.rsplit("/", 1)[-1], p))


def raw_files(store: RawStore, sources: Iterable[str]) -> list[str]:
    """Every raw file of the sources, oldest first."""
    paths = []
    for source in sources:
        selector = pafs.FileSelector(f"{store.root}/{source}", allow_not_found=True, recursive=True)
        paths += [i.path for i in store.fs.get_file_info(selector) if i.path.endswith(".parquet")]
    return oldest_first(paths)


def iter_raw(store: RawStore, paths: Iterable[str]) -> Iterator[RawResponse]:
    for path in paths:
        yield from _read_file(store, path)


def write_fetch(store: RawStore, source: str, label: str, fetched: list[Fetch],
                now: dt.datetime) -> list[RawResponse]:
    """One fetch's responses as one raw file (none when nothing was fetched), and the responses
    as written, carrying the records their validation parsed."""
    if not fetched:
        return []
    rows = [(kind, seq, request, body) for seq, (kind, request, body, _) in enumerate(fetched)]
    path = store.write(source, label, rows, now=now)
    return [RawResponse(source, label, kind, seq, orjson.loads(request), now, body, path, parsed)
            for seq, (kind, request, body, parsed) in enumerate(fetched)]
