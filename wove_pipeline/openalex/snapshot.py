"""Reading a copy of the OpenAlex snapshot.

The snapshot lies at ``s3://openalex/data/<entity>/updated_date=YYYY-MM-DD/part_NNN.gz``
with a ``manifest`` per entity (``wove_pipeline/sandbox/snapshots.py`` writes small files in
the same layout and describes it); a copy is read where it lies (a folder or a filesystem
URI, ``s3://openalex`` itself too), one part and one line at a time. Its records are the
API's own shapes, so they are loaded as the API path's responses
(wove_pipeline.openalex.snapshot_load).
"""

from __future__ import annotations

import csv
import gzip
import io
from collections.abc import Iterator
from dataclasses import dataclass

import orjson
import pyarrow.fs as pafs

from wove_pipeline.enrichment.bulk_files import filesystem, iter_jsonl_gz, join
from wove_pipeline.openalex.parser import parse_work
from wove_pipeline.upstream.batching import chunks

DEFAULT_BATCH = 1000


@dataclass(frozen=True)
class ManifestEntry:
    url: str  # as published (s3://openalex/data/...)
    path: str  # where it lies in this copy
    updated_date: str | None
    content_length: int | None
    record_count: int | None


@dataclass(frozen=True)
class Manifest:
    entity: str
    entries: list[ManifestEntry]
    content_length: int | None
    record_count: int | None


@dataclass(frozen=True)
class OpenAlexSnapshot:
    """A copy of the snapshot: ``root`` holds ``data/`` (``s3://openalex`` itself works too)."""

    root: str

    def _resolve(self, url: str) -> str:
        _, base = filesystem(self.root)
        rel = url.split("/data/", 1)[1] if "/data/" in url else url
        return join(base, "data", rel)

    def manifest(self, entity: str) -> Manifest:
        fs, base = filesystem(self.root)
        with fs.open_input_stream(join(base, "data", entity, "manifest")) as f:
            raw = orjson.loads(f.read())
        entries = []
        for e in raw["entries"]:
            meta = e.get("meta") or {}
            part = next((p for p in e["url"].split("/") if p.startswith("updated_date=")), None)
            entries.append(ManifestEntry(e["url"], self._resolve(e["url"]), part.split("=", 1)[1] if part else None,
                                         meta.get("content_length"), meta.get("record_count")))
        meta = raw.get("meta") or {}
        return Manifest(entity, entries, meta.get("content_length"), meta.get("record_count"))

    def verify(self, entity: str) -> Manifest:
        """The manifest agrees with the files (sizes, per-entry and total counts). OpenAlex
        deletes and rewrites a manifest while it writes a partition: check before loading."""
        fs, _ = filesystem(self.root)
        m = self.manifest(entity)
        total = 0
        for e in m.entries:
            info = fs.get_file_info(e.path)
            if info.type != pafs.FileType.File:
                raise ValueError(f"{entity}: {e.url} listed in the manifest but missing")
            if e.content_length is not None and info.size != e.content_length:
                raise ValueError(f"{entity}: {e.url} is {info.size} bytes, manifest says {e.content_length}")
            n = sum(1 for _ in iter_jsonl_gz(fs, e.path))
            if e.record_count is not None and n != e.record_count:
                raise ValueError(f"{entity}: {e.url} has {n} records, manifest says {e.record_count}")
            total += n
        if m.record_count is not None and total != m.record_count:
            raise ValueError(f"{entity}: {total} records, manifest total says {m.record_count}")
        return m

    def records(self, entity: str, since: str | None = None) -> Iterator[dict]:
        """Every record of an entity; ``since`` keeps only partitions updated after that day
        (the incremental recipe: entries with updated_date > last changefile end)."""
        fs, _ = filesystem(self.root)
        for e in self.manifest(entity).entries:
            if since is not None and e.updated_date is not None and e.updated_date <= since:
                continue
            yield from iter_jsonl_gz(fs, e.path)

    def batches(self, entity: str, size: int = DEFAULT_BATCH, since: str | None = None) -> Iterator[list[dict]]:
        return chunks(self.records(entity, since), size)

    def merged_ids(self, entity: str) -> Iterator[tuple[str, str, str]]:
        """(merge_date, retired id, surviving id) from ``data/merged_ids/<entity>/*.csv.gz``."""
        fs, base = filesystem(self.root)
        selector = pafs.FileSelector(join(base, "data", "merged_ids", entity), allow_not_found=True)
        for path in sorted(i.path for i in fs.get_file_info(selector) if i.path.endswith(".csv.gz")):
            with fs.open_input_stream(path, compression=None) as raw, gzip.GzipFile(fileobj=raw) as gz:
                for row in csv.DictReader(io.TextIOWrapper(gz, encoding="utf-8")):
                    yield row["merge_date"], row["id"], row["merge_into_id"]


def openalex_short(ident: str | None) -> str | None:
    if not ident:
        return None
    return ident.rsplit("/", 1)[-1]


def openalex_arxiv_id(work: dict) -> str | None:
    """The arXiv id of a snapshot work, as the API path's parser finds it."""
    return parse_work(work).arxiv_id
