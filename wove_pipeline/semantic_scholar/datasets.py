"""Reading a Semantic Scholar Datasets release, and its records as Graph API objects.

S2's Datasets API publishes weekly releases of gzipped JSON-lines shards (``papers``,
``abstracts``, ``authors``, ...); ``wove_pipeline/sandbox/snapshots.py`` writes small files
in the same format and describes it. A release is read from a mirror
(``<root>/<release>/<dataset>/...``: a folder or a filesystem URI), one shard and one line
at a time. Its records are put back into the Graph API's shapes so that the S2 parser, and
so the same derivation as the API path, reads them (wove_pipeline.semantic_scholar.datasets_load).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson
import pyarrow.fs as pafs

from wove_pipeline.enrichment.bulk_files import filesystem, iter_jsonl_gz, join
from wove_pipeline.upstream.batching import chunks

DEFAULT_BATCH = 1000


@dataclass(frozen=True)
class S2Release:
    """One release mirrored under ``root`` (``<root>/<release>/<dataset>/...``)."""

    root: str
    release: str

    def dataset_files(self, dataset: str) -> list[str]:
        """Shard paths, from the dataset's ``dataset.json`` (the Datasets API answer) or,
        without one, every ``*.gz`` in the folder."""
        fs, base = filesystem(self.root)
        folder = join(base, self.release, dataset)
        info = fs.get_file_info(join(folder, "dataset.json"))
        if info.type == pafs.FileType.File:
            with fs.open_input_stream(join(folder, "dataset.json")) as f:
                meta = orjson.loads(f.read())
            # Real answers hold pre-signed URLs; a mirror keeps the file names.
            return [join(folder, u.split("?", 1)[0].rsplit("/", 1)[-1]) for u in meta["files"]]
        selector = pafs.FileSelector(folder, allow_not_found=True)
        return sorted(i.path for i in fs.get_file_info(selector) if i.path.endswith(".gz"))

    def records(self, dataset: str) -> Iterator[dict]:
        fs, _ = filesystem(self.root)
        for path in self.dataset_files(dataset):
            yield from iter_jsonl_gz(fs, path)

    def batches(self, dataset: str, size: int = DEFAULT_BATCH) -> Iterator[list[dict]]:
        return chunks(self.records(dataset), size)

    def has(self, dataset: str) -> bool:
        return bool(self.dataset_files(dataset))


def latest_s2_release(root: str | Path) -> S2Release:
    fs, base = filesystem(root)
    names = sorted(i.base_name for i in fs.get_file_info(pafs.FileSelector(base))
                   if i.type == pafs.FileType.Directory)
    if not names:
        raise FileNotFoundError(f"no S2 release under {root}")
    return S2Release(str(root), names[-1])


def release_time(release: str) -> dt.datetime:
    """When a release was made: the day its id starts with (``2025-08-05``), else now."""
    try:
        day = dt.date.fromisoformat(release[:10])
    except ValueError:
        return dt.datetime.now(dt.timezone.utc)
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc)


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
