"""Bulk backfill from the Semantic Scholar Datasets and the OpenAlex snapshot.

Dagster-free. Per-record API calls are right for a day's new papers; for the whole archive
(millions of papers and authors) the bulk products are: S2's Datasets API (weekly releases
of gzipped JSON-lines shards: ``papers``, ``abstracts``, ``authors``, ...) and the OpenAlex
snapshot (``s3://openalex/data/<entity>/updated_date=YYYY-MM-DD/part_NNN.gz`` with a
``manifest`` per entity). ``wove_pipeline/sandbox/snapshots.py`` writes small files in both
formats; the formats are described there.

Readers stream: one gzip shard at a time, one line at a time, records yielded in batches;
memory does not grow with the size of a shard or of the release. Every path is a local
folder or a pyarrow filesystem URI (``s3://bucket/prefix``, ``gs://...``), so a release
mirrored to object storage is read where it lies.

Loading reuses the enrichment module, so bulk and API rows cannot drift apart: dataset
records are put back into the Graph API / OpenAlex API shapes, packed as the responses the
API path keeps (``paper_batch``, ``author_batch``, ``works_filter``, ``authors_filter``,
``institutions_filter``, ``author_singleton`` for merged ids), kept in the raw layer under
the same sources (so ``enrichment.rebuild_from_raw`` sees them), and derived and upserted by
``enrichment.apply_raw_files``. Their ``fetched_at`` is the release/snapshot time (the file
name starts with it), so "newest wins" between a snapshot and fresher API answers holds.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import datetime as dt
import gzip
import io
import json
import logging
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

log = logging.getLogger(__name__)

DEFAULT_BATCH = 1000
S2_PAPER_BATCH = 500  # the Graph API's /paper/batch limit: bulk responses look like API ones
S2_AUTHOR_BATCH = 1000
OPENALEX_PAGE = 100  # per_page maximum


# --------------------------------------------------------------------------- file access


def _fs(uri: str | Path) -> tuple[pafs.FileSystem, str]:
    uri = str(uri)
    if "://" in uri:
        return pafs.FileSystem.from_uri(uri)
    return pafs.LocalFileSystem(), str(Path(uri).resolve())


def _join(base: str, *parts: str) -> str:
    return "/".join([base.rstrip("/"), *(p.strip("/") for p in parts)])


def iter_jsonl_gz(fs: pafs.FileSystem, path: str) -> Iterator[dict]:
    """Records of one gzipped JSON-lines file, one line at a time."""
    with fs.open_input_stream(path, compression=None) as raw, gzip.GzipFile(fileobj=raw) as gz:
        for n, line in enumerate(io.BufferedReader(gz), 1):
            line = line.strip()
            if not line:
                continue
            try:
                yield orjson.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not JSON ({exc})") from exc


def batched(records: Iterable[Any], size: int = DEFAULT_BATCH) -> Iterator[list]:
    batch: list = []
    for r in records:
        batch.append(r)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


# --------------------------------------------------------------------------- Semantic Scholar Datasets


@dataclass(frozen=True)
class S2Release:
    """One release mirrored under ``root`` (``<root>/<release>/<dataset>/...``)."""

    root: str
    release: str

    def dataset_files(self, dataset: str) -> list[str]:
        """Shard paths, from the dataset's ``dataset.json`` (the Datasets API answer) or,
        without one, every ``*.gz`` in the folder."""
        fs, base = _fs(self.root)
        folder = _join(base, self.release, dataset)
        info = fs.get_file_info(_join(folder, "dataset.json"))
        if info.type == pafs.FileType.File:
            with fs.open_input_stream(_join(folder, "dataset.json")) as f:
                meta = orjson.loads(f.read())
            # Real answers hold pre-signed URLs; a mirror keeps the file names.
            return [_join(folder, u.split("?", 1)[0].rsplit("/", 1)[-1]) for u in meta["files"]]
        selector = pafs.FileSelector(folder, allow_not_found=True)
        return sorted(i.path for i in fs.get_file_info(selector) if i.path.endswith(".gz"))

    def records(self, dataset: str) -> Iterator[dict]:
        fs, _ = _fs(self.root)
        for path in self.dataset_files(dataset):
            yield from iter_jsonl_gz(fs, path)

    def batches(self, dataset: str, size: int = DEFAULT_BATCH) -> Iterator[list[dict]]:
        return batched(self.records(dataset), size)

    def has(self, dataset: str) -> bool:
        return bool(self.dataset_files(dataset))


def latest_s2_release(root: str | Path) -> S2Release:
    fs, base = _fs(root)
    names = sorted(i.base_name for i in fs.get_file_info(pafs.FileSelector(base))
                   if i.type == pafs.FileType.Directory)
    if not names:
        raise FileNotFoundError(f"no S2 release under {root}")
    return S2Release(str(root), names[-1])


def _nonnull(d: dict | None) -> dict:
    return {k: v for k, v in (d or {}).items() if v is not None}


def s2_paper_as_graph(rec: dict, abstract: str | None = None) -> dict:
    """A ``papers`` dataset record -> the Graph API paper object the S2 parser reads."""
    ext = _nonnull(rec.get("externalids"))
    if isinstance(ext.get("CorpusId"), str) and ext["CorpusId"].isdigit():
        ext["CorpusId"] = int(ext["CorpusId"])  # the datasets write it as a string
    url = rec.get("url") or ""
    s2fos = rec.get("s2fieldsofstudy") or []
    # The Graph API's fieldsOfStudy are the external (non-model) categories of s2FieldsOfStudy.
    external = list(dict.fromkeys(f["category"] for f in s2fos if f.get("source") == "external" and f.get("category")))
    return {
        "paperId": url.rstrip("/").rsplit("/", 1)[-1],  # the sha: the datasets only carry it in url
        "corpusId": rec.get("corpusid"),
        "externalIds": ext,
        "url": url or None,
        "title": rec.get("title"),
        "abstract": abstract,
        "venue": rec.get("venue"),
        "year": rec.get("year"),
        "publicationDate": rec.get("publicationdate"),
        "referenceCount": rec.get("referencecount"),
        "citationCount": rec.get("citationcount"),
        "influentialCitationCount": rec.get("influentialcitationcount"),
        "fieldsOfStudy": external or None,
        "s2FieldsOfStudy": s2fos,
        "authors": [{"authorId": a.get("authorId"), "name": a.get("name")} for a in rec.get("authors") or []],
    }


def s2_author_as_graph(rec: dict) -> dict:
    """An ``authors`` dataset record -> the Graph API author object."""
    return {
        "authorId": str(rec["authorid"]),
        "externalIds": _nonnull(rec.get("externalids")),
        "url": rec.get("url"),
        "name": rec.get("name"),
        "affiliations": rec.get("affiliations") or [],
        "homepage": rec.get("homepage"),
        "paperCount": rec.get("papercount"),
        "citationCount": rec.get("citationcount"),
        "hIndex": rec.get("hindex"),
    }


# --------------------------------------------------------------------------- OpenAlex snapshot


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
        _, base = _fs(self.root)
        rel = url.split("/data/", 1)[1] if "/data/" in url else url
        return _join(base, "data", rel)

    def manifest(self, entity: str) -> Manifest:
        fs, base = _fs(self.root)
        with fs.open_input_stream(_join(base, "data", entity, "manifest")) as f:
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
        fs, _ = _fs(self.root)
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
        fs, _ = _fs(self.root)
        for e in self.manifest(entity).entries:
            if since is not None and e.updated_date is not None and e.updated_date <= since:
                continue
            yield from iter_jsonl_gz(fs, e.path)

    def batches(self, entity: str, size: int = DEFAULT_BATCH, since: str | None = None) -> Iterator[list[dict]]:
        return batched(self.records(entity, since), size)

    def merged_ids(self, entity: str) -> Iterator[tuple[str, str, str]]:
        """(merge_date, retired id, surviving id) from ``data/merged_ids/<entity>/*.csv.gz``."""
        fs, base = _fs(self.root)
        selector = pafs.FileSelector(_join(base, "data", "merged_ids", entity), allow_not_found=True)
        for path in sorted(i.path for i in fs.get_file_info(selector) if i.path.endswith(".csv.gz")):
            with fs.open_input_stream(path, compression=None) as raw, gzip.GzipFile(fileobj=raw) as gz:
                for row in csv.DictReader(io.TextIOWrapper(gz, encoding="utf-8")):
                    yield row["merge_date"], row["id"], row["merge_into_id"]


def openalex_short(ident: str | None) -> str | None:
    if not ident:
        return None
    return ident.rsplit("/", 1)[-1]


def _openalex_arxiv_id(work: dict) -> str | None:
    from wove_pipeline.openalex.parser import parse_work
    return parse_work(work).arxiv_id


# --------------------------------------------------------------------------- loading into the enrichment tables


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


def _write_raw_at(store, source: str, label: str, at: dt.datetime,
                  responses: Sequence[tuple[str, str, bytes]]) -> str | None:
    """One raw file whose fetch time is the release time (RawStore.write stamps "now").
    Same schema, layout and write-then-rename as the raw store; the name sorts by that time."""
    from wove_pipeline.upstream.raw_store import RAW_SCHEMA
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


def _request(kind: str, ids: Sequence[str], origin: str, **extra: object) -> str:
    return json.dumps({"method": "BULK", "kind": kind, "origin": origin, "ids": list(ids), **extra},
                      separators=(",", ":"))


def _page(results: list[dict]) -> bytes:
    body = {"meta": {"count": len(results), "db_response_time_ms": 0, "page": None, "per_page": OPENALEX_PAGE,
                     "next_cursor": None, "groups_count": None}, "results": results, "group_by": []}
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def _apply(database_url: str, store, paths: list[str], lock: str) -> None:
    from wove_pipeline.database import access as db
    from wove_pipeline.enrichment import fetch as enrichment
    if not paths:
        return
    with db.transaction(database_url) as conn:
        db.advisory_lock(conn, lock)
        for path in paths:  # one file at a time: memory stays at one file's rows
            enrichment.apply_raw_files(conn, store, [path])


def _wanted_ids(database_url: str) -> list[str]:
    import psycopg

    with psycopg.connect(database_url) as conn:
        return [r[0] for r in conn.execute("SELECT arxiv_id FROM wove.papers ORDER BY arxiv_id")]


def load_s2_release(database_url: str, store, release: S2Release, arxiv_ids: Sequence[str] | None = None, *,
                    released_at: dt.datetime | None = None, responses_per_file: int = 100) -> BulkLoadSummary:
    """S2 papers (with abstracts) for our arXiv ids, then the authors on them, into the
    enrichment tables. Papers absent from the release count as a miss (the look-back asks
    the API for them later), exactly as a ``null`` in a batch answer does."""
    from wove_pipeline.enrichment import fetch as enrichment
    wanted = set(arxiv_ids if arxiv_ids is not None else _wanted_ids(database_url))
    at = released_at or _release_time(release.release)
    label = f"bulk_s2_{release.release}"
    summary = BulkLoadSummary(s2_release=release.release, wanted=len(wanted))
    origin = f"s2-datasets:{release.release}"

    # Pass 1: the papers we want (only theirs are kept), pass 2: their abstracts.
    from wove_pipeline.arxiv.tex import try_normalize_arxiv_id
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

    paths: list[str] = []
    responses: list[tuple[str, str, bytes]] = []
    author_ids: set[str] = set()
    for ids in batched(sorted(wanted), S2_PAPER_BATCH):
        answer = []
        for arxiv_id in ids:
            rec = kept.get(arxiv_id)
            if rec is None:
                answer.append(None)
                continue
            answer.append(s2_paper_as_graph(rec, abstracts.get(rec.get("corpusid"))))
            author_ids |= {str(a["authorId"]) for a in rec.get("authors") or [] if a.get("authorId")}
        responses.append(("paper_batch", _request("paper_batch", ids, origin, asked_on=at.date().isoformat()),
                          json.dumps(answer, ensure_ascii=False).encode("utf-8")))
        if len(responses) >= responses_per_file:
            paths.append(_write_raw_at(store, enrichment.RAW_S2_PAPERS, label, at, responses))
            responses = []
    paths.append(_write_raw_at(store, enrichment.RAW_S2_PAPERS, label, at, responses))
    summary.s2_papers = len(kept)
    kept.clear()
    abstracts.clear()

    # Authors: stream the dataset, keep the ones on our papers (null where absent, as the API).
    found: dict[str, dict] = {}
    for rec in release.records("authors"):
        if str(rec.get("authorid")) in author_ids:
            found[str(rec["authorid"])] = s2_author_as_graph(rec)
    responses = []
    for ids in batched(sorted(author_ids), S2_AUTHOR_BATCH):
        answer = [found.get(i) for i in ids]
        responses.append(("author_batch", _request("author_batch", ids, origin, asked_on=at.date().isoformat()),
                          json.dumps(answer, ensure_ascii=False).encode("utf-8")))
    paths.append(_write_raw_at(store, enrichment.RAW_S2_AUTHORS, label, at, responses))
    summary.s2_authors = len(found)
    summary.raw_files = [p for p in paths if p]
    _apply(database_url, store, summary.raw_files, "enrich:s2")
    return summary


def load_openalex_snapshot(database_url: str, store, snapshot: OpenAlexSnapshot,
                           arxiv_ids: Sequence[str] | None = None, *, snapshot_at: dt.datetime,
                           verify: bool = True, since: str | None = None) -> BulkLoadSummary:
    """OpenAlex works for our arXiv ids, the authors on them (merged ids redirected to their
    survivor) and the institutions on both, into the enrichment tables."""
    from wove_pipeline.enrichment import fetch as enrichment
    wanted = set(arxiv_ids if arxiv_ids is not None else _wanted_ids(database_url))
    if verify:
        for entity in ("works", "authors", "institutions"):
            snapshot.verify(entity)
    at = snapshot_at
    label = f"bulk_openalex_{at.date().isoformat()}"
    origin = f"openalex-snapshot:{at.date().isoformat()}"
    summary = BulkLoadSummary(openalex_root=snapshot.root, wanted=len(wanted))
    paths: list[str] = []

    # Works: keep ours, packed as the works_filter pages the API path keeps.
    responses = []
    author_ids: set[str] = set()
    inst_ids: set[str] = set()
    page_ids: list[str] = []
    page: list[dict] = []

    def flush() -> None:
        nonlocal page, page_ids
        if page:
            responses.append(("works_filter", _request("works_filter", page_ids, origin, params={"cursor": "*"},
                                                       asked_on=at.date().isoformat()), _page(page)))
        page, page_ids = [], []

    found_works: set[str] = set()
    for rec in snapshot.records("works", since):
        arxiv_id = _openalex_arxiv_id(rec)
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
        if len(page) >= OPENALEX_PAGE:
            flush()
    flush()
    # The papers no snapshot work matched: asked and not found (a first page with no hit).
    for ids in batched(sorted(wanted - found_works), OPENALEX_PAGE):
        responses.append(("works_filter", _request("works_filter", ids, origin, params={"cursor": "*"},
                                                   asked_on=at.date().isoformat()), _page([])))
    paths.append(_write_raw_at(store, enrichment.RAW_OA_WORKS, label, at, responses))
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
    for ids in batched(sorted(a for a in author_ids if a in records), OPENALEX_PAGE):
        responses.append(("authors_filter", _request("authors_filter", ids, origin, asked_on=at.date().isoformat()),
                          _page([records[i] for i in ids])))
    for old, new in sorted(merged.items()):
        if new in records:
            responses.append(("author_singleton", _request("author_singleton", [old], origin,
                                                           asked_on=at.date().isoformat()),
                              json.dumps(records[new], ensure_ascii=False).encode("utf-8")))
    for rec in (records[a] for a in author_ids if a in records):  # as the API path: authors on the works
        inst_ids |= {openalex_short(i.get("id")) for i in rec.get("last_known_institutions") or [] if i and i.get("id")}
    paths.append(_write_raw_at(store, enrichment.RAW_OA_AUTHORS, label, at, responses))
    summary.openalex_authors = sum(1 for a in author_ids if a in records)
    summary.openalex_redirects = sum(1 for new in merged.values() if new in records)

    # Institutions on the works and the authors' last known ones.
    inst_ids.discard(None)
    responses = []
    for batch in batched((r for r in snapshot.records("institutions") if openalex_short(r.get("id")) in inst_ids),
                         OPENALEX_PAGE):
        ids = [openalex_short(r["id"]) for r in batch]
        responses.append(("institutions_filter", _request("institutions_filter", ids, origin,
                                                          asked_on=at.date().isoformat()), _page(batch)))
        summary.institutions += len(batch)
    paths.append(_write_raw_at(store, enrichment.RAW_OA_INSTITUTIONS, label, at, responses))
    summary.raw_files = [p for p in paths if p]
    _apply(database_url, store, summary.raw_files, "enrich:openalex")
    return summary


def _release_time(release: str) -> dt.datetime:
    try:
        day = dt.date.fromisoformat(release[:10])
    except ValueError:
        return dt.datetime.now(dt.timezone.utc)
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc)


def bulk_load(database_url: str, store, *, s2_root: str | None = None, s2_release: str | None = None,
              openalex_root: str | None = None, snapshot_date: dt.date | None = None,
              arxiv_ids: Sequence[str] | None = None, progress=None) -> BulkLoadSummary:
    """The backfill: S2 release and/or OpenAlex snapshot for our papers, then the authorship
    alignment of those papers (the enrichment module's own), all without an API call.
    ``progress`` (a wove_pipeline.cli.progress.Progress): a line per stage with counts and seconds."""
    from wove_pipeline.database import access as db
    from wove_pipeline.enrichment import fetch as enrichment
    def stage(what: str):
        return progress.stage("bulk", what) if progress is not None else contextlib.nullcontext({})

    ids = list(arxiv_ids) if arxiv_ids is not None else _wanted_ids(database_url)
    if progress is not None:
        progress.line("bulk", f"{len(ids):,} papers in wove.papers to load for")
    total = BulkLoadSummary(wanted=len(ids))
    if s2_root:
        release = S2Release(str(s2_root), s2_release) if s2_release else latest_s2_release(s2_root)
        with stage(f"Semantic Scholar release {release.release}") as done:
            s = load_s2_release(database_url, store, release, ids)
            done["text"] = f"{s.s2_papers:,} papers, {s.s2_authors:,} authors"
        total.s2_release, total.s2_papers, total.s2_authors = s.s2_release, s.s2_papers, s.s2_authors
        total.raw_files += s.raw_files
    if openalex_root:
        day = snapshot_date or dt.datetime.now(dt.timezone.utc).date()
        at = dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc)
        with stage(f"OpenAlex snapshot of {day}") as done:
            o = load_openalex_snapshot(database_url, store, OpenAlexSnapshot(str(openalex_root)), ids, snapshot_at=at)
            done["text"] = (f"{o.openalex_works:,} works, {o.openalex_authors:,} authors, "
                            f"{o.institutions:,} institutions")
        total.openalex_root = o.openalex_root
        total.openalex_works, total.openalex_authors = o.openalex_works, o.openalex_authors
        total.openalex_redirects, total.institutions = o.openalex_redirects, o.institutions
        total.raw_files += o.raw_files
    with stage("authorship alignment") as done, db.transaction(database_url) as conn:
        db.advisory_lock(conn, "enrich:align")
        total.authorships = enrichment.align_papers(conn, ids)
        done["text"] = f"{total.authorships:,} authorships"
    return total


def main(argv: list[str] | None = None) -> int:
    """``python -m wove_pipeline.enrichment.bulk --s2 s3://bucket/s2 --openalex s3://openalex``"""
    import os

    from wove_pipeline.settings import raw_data_dir
    from wove_pipeline.upstream.raw_store import RawStore

    parser = argparse.ArgumentParser(prog="python -m wove_pipeline.enrichment.bulk", description=__doc__.split("\n\n")[0])
    parser.add_argument("--s2", help="folder or URI holding S2 releases (<release>/<dataset>/...)")
    parser.add_argument("--s2-release", help="release id (default: the latest folder)")
    parser.add_argument("--openalex", help="folder or URI holding the OpenAlex snapshot's data/")
    parser.add_argument("--snapshot-date", type=dt.date.fromisoformat, help="the snapshot's date (as_of)")
    args = parser.parse_args(argv)
    if not (args.s2 or args.openalex):
        parser.error("give --s2 and/or --openalex")
    from wove_pipeline.cli.progress import Progress
    url = os.environ["WOVE_DATABASE_URL"]
    # stage lines on stderr as it goes; the summary (JSON) on stdout at the end
    summary = bulk_load(url, RawStore(raw_data_dir()), s2_root=args.s2, s2_release=args.s2_release,
                        openalex_root=args.openalex, snapshot_date=args.snapshot_date, progress=Progress())
    print(json.dumps({k: v for k, v in summary.__dict__.items() if k != "raw_files"}
                     | {"raw_files": len(summary.raw_files)}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
