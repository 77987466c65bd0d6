"""Bulk files of the sandbox world, in the Semantic Scholar Datasets and OpenAlex snapshot formats.

The bulk backfill path (``wove_pipeline.enrichment.bulk``) reads these formats; the sandbox writes
small files in them so that path is tested the way the API path is, against data whose
truth is known. Records are what the sandbox API would answer on the same ``today`` (the
same endpoint objects render them), laid out and named as the real bulk products are:

Semantic Scholar Datasets (``GET /datasets/v1/release/{release}/dataset/{name}`` lists
pre-signed URLs of gzipped JSON-lines shards)::

    <root>/<release>/papers/dataset.json         the Datasets API answer (files relative)
    <root>/<release>/papers/part-00000.jsonl.gz  {"corpusid", "externalids", "url", "title", "authors",
                                                  "venue", "year", "referencecount", "citationcount", ...}
    <root>/<release>/abstracts/...               {"corpusid", "openaccessinfo", "abstract"}
    <root>/<release>/authors/...                 {"authorid", "externalids", "url", "name", "aliases",
                                                  "affiliations", "homepage", "papercount", "citationcount",
                                                  "hindex"}

The datasets use lower-case field names, carry every ``externalids`` key (``null`` when
absent; ``CorpusId`` as a string) and split abstracts into their own dataset, as S2 does.

OpenAlex snapshot (``s3://openalex/data/...``)::

    <root>/data/works/manifest                               {"entries": [{"url", "meta": {"content_length",
                                                              "record_count"}}], "meta": {...}}
    <root>/data/works/updated_date=YYYY-MM-DD/part_000.gz    full work objects, one per line
    <root>/data/authors/..., <root>/data/institutions/...
    <root>/data/merged_ids/authors/YYYY-MM-DD.csv.gz         merge_date,id,merge_into_id

Manifest URLs name the real bucket (``s3://openalex/data/...``), as the published manifest
does; readers resolve them against wherever the snapshot was copied.
"""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import io
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from wove_pipeline.sandbox.openalex import OpenAlexEndpoint
from wove_pipeline.sandbox.openalex_records import OA
from wove_pipeline.sandbox.semantic_scholar import SemanticScholarEndpoint
from wove_pipeline.sandbox.world import World

S2_EXTERNAL_ID_KEYS = ("ACL", "DBLP", "ArXiv", "MAG", "CorpusId", "PubMed", "DOI", "PubMedCentral")
# What the pipeline's S2 client asks the Graph API for (the datasets carry the same facts).
_S2_PAPER_SPEC = ["paperId", "corpusId", "externalIds", "url", "title", "abstract", "venue", "year",
                  "publicationDate", "referenceCount", "citationCount", "influentialCitationCount",
                  "fieldsOfStudy", "s2FieldsOfStudy", "authors", "journal", "publicationTypes",
                  "isOpenAccess", "publicationVenue"]
_S2_AUTHOR_SPEC = ["externalIds", "url", "name", "affiliations", "homepage", "paperCount", "citationCount",
                   "hIndex"]
OPENALEX_BUCKET = "s3://openalex"


@dataclass
class WrittenFiles:
    """What a writer produced (relative paths), for tests and for the README of a mirror."""

    root: Path
    files: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    records: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def _write_jsonl_gz(path: Path, records: list[dict]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    # mtime=0: the same world gives byte-identical files.
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz:
        for r in records:
            gz.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
    path.write_bytes(buf.getvalue())
    return len(buf.getvalue())


def _shards(records: list[dict], size: int) -> list[list[dict]]:
    size = max(1, size)
    return [records[i: i + size] for i in range(0, len(records), size)] or [[]]


# --------------------------------------------------------------------------- Semantic Scholar


def s2_dataset_paper(rendered: dict) -> dict:
    """A Graph API paper object -> the ``papers`` dataset record (no paperId, no abstract)."""
    ext = {k: None for k in S2_EXTERNAL_ID_KEYS}
    for k, v in (rendered.get("externalIds") or {}).items():
        ext[k] = str(v) if k == "CorpusId" and v is not None else v
    venue = rendered.get("publicationVenue") or {}
    return {
        "corpusid": rendered["corpusId"],
        "externalids": ext,
        "url": rendered["url"],
        "title": rendered.get("title"),
        "authors": [{"authorId": a.get("authorId"), "name": a.get("name")} for a in rendered.get("authors") or []],
        "venue": rendered.get("venue"),
        "publicationvenueid": venue.get("id"),
        "year": rendered.get("year"),
        "referencecount": rendered.get("referenceCount"),
        "citationcount": rendered.get("citationCount"),
        "influentialcitationcount": rendered.get("influentialCitationCount"),
        "isopenaccess": rendered.get("isOpenAccess"),
        "s2fieldsofstudy": rendered.get("s2FieldsOfStudy"),
        "publicationtypes": rendered.get("publicationTypes"),
        "publicationdate": rendered.get("publicationDate"),
        "journal": rendered.get("journal"),
    }


def s2_dataset_author(rendered: dict) -> dict:
    ext = rendered.get("externalIds") or {}
    return {
        "authorid": rendered["authorId"],
        "externalids": {"DBLP": ext.get("DBLP"), "ORCID": ext.get("ORCID")},
        "url": rendered.get("url"),
        "name": rendered.get("name"),
        "aliases": list(ext.get("DBLP") or []),
        "affiliations": rendered.get("affiliations") or [],
        "homepage": rendered.get("homepage"),
        "papercount": rendered.get("paperCount"),
        "citationcount": rendered.get("citationCount"),
        "hindex": rendered.get("hIndex"),
    }


def write_s2_release(world: World, root: str | Path, today: dt.date, *, release: str | None = None,
                     shard_size: int = 200) -> WrittenFiles:
    """The ``papers``, ``abstracts`` and ``authors`` datasets of one release, as S2 knows the
    world on ``today`` (coverage lag applies: papers S2 has not ingested yet are absent)."""
    release = release or today.isoformat()
    out = WrittenFiles(Path(root) / release)
    s2 = SemanticScholarEndpoint(world)
    spec = {f: None for f in _S2_PAPER_SPEC}
    spec["authors"] = {"name"}
    papers, abstracts = [], []
    for p in sorted(world.papers, key=lambda p: p.s2.corpus_id if p.s2 else 0):
        if not s2._visible(p, today):
            continue
        rendered = s2.render_paper(p, spec, today)
        papers.append(s2_dataset_paper(rendered))
        abstracts.append({
            "corpusid": rendered["corpusId"],
            "openaccessinfo": {"externalids": {"ArXiv": p.arxiv_id, "DOI": p.s2.doi},
                               "license": None, "url": f"https://arxiv.org/abs/{p.arxiv_id}", "status": "GREEN"},
            "abstract": rendered.get("abstract"),
        })
    authors = []
    for author_id in sorted(world.s2_authors):
        a = s2.find_author(author_id, today)
        if a is None:
            continue
        rendered = s2.render_author(a, {f: None for f in _S2_AUTHOR_SPEC}, today)
        authors.append(s2_dataset_author(rendered))
    descriptions = {
        "papers": "Core paper metadata",
        "abstracts": "Paper abstract text, where allowed by publisher",
        "authors": "Core attributes for authors",
    }
    for dataset, records in (("papers", papers), ("abstracts", abstracts), ("authors", authors)):
        files = []
        for i, shard in enumerate(_shards(records, shard_size)):
            name = f"part-{i:05d}.jsonl.gz"
            _write_jsonl_gz(out.root / dataset / name, shard)
            files.append(name)
            out.files[dataset].append(f"{dataset}/{name}")
        out.records[dataset] = len(records)
        (out.root / dataset / "dataset.json").write_text(json.dumps({
            "name": dataset, "description": descriptions[dataset],
            "README": f"Semantic Scholar {dataset} dataset (sandbox release {release}).",
            "files": files,
        }, indent=1))
    return out


# --------------------------------------------------------------------------- OpenAlex


def _write_entity(out: WrittenFiles, entity: str, by_day: dict[str, list[dict]], part_size: int) -> None:
    entries = []
    total_len = total_n = 0
    for day in sorted(by_day):
        for i, part in enumerate(_shards(by_day[day], part_size)):
            rel = f"data/{entity}/updated_date={day}/part_{i:03d}.gz"
            size = _write_jsonl_gz(out.root / rel, part)
            entries.append({"url": f"{OPENALEX_BUCKET}/{rel}", "meta": {"content_length": size, "record_count": len(part)}})
            out.files[entity].append(rel)
            total_len += size
            total_n += len(part)
    out.records[entity] = total_n
    manifest = {"entries": entries, "meta": {"content_length": total_len, "record_count": total_n}}
    path = out.root / "data" / entity / "manifest"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest, indent=2))


def _updated_day(record: dict) -> str:
    return record["updated_date"][:10]


def write_openalex_snapshot(world: World, root: str | Path, today: dt.date, *, part_size: int = 200) -> WrittenFiles:
    """``works``, ``authors``, ``institutions`` and ``merged_ids`` as OpenAlex knows the world
    on ``today``: full work objects (no truncated author lists), partitioned by updated date."""
    out = WrittenFiles(Path(root))
    oa = OpenAlexEndpoint(world, daily_budget_usd=None)
    works: dict[str, list[dict]] = defaultdict(list)
    for work_id in oa._work_order:
        if oa._work_visible(work_id, today):
            record = oa.render_work(work_id, today, full=True)
            works[_updated_day(record)].append(record)
    _write_entity(out, "works", works, part_size)

    authors: dict[str, list[dict]] = defaultdict(list)
    for author_id in sorted(world.openalex_authors, key=lambda x: int(x[1:]) if x[1:].isdigit() else 0):
        a = world.openalex_authors[author_id]
        if oa._author_visible(a, today):
            record = oa.render_author(author_id, today)
            authors[_updated_day(record)].append(record)
    _write_entity(out, "authors", authors, part_size)

    institutions: dict[str, list[dict]] = defaultdict(list)
    for inst_id in sorted(world.institutions):
        record = oa.render_institution(inst_id, today)
        institutions[_updated_day(record)].append(record)
    _write_entity(out, "institutions", institutions, part_size)

    # Retired ids: OpenAlex publishes them as merged_ids/<entity>/<date>.csv.gz.
    merged: dict[str, list[tuple[str, str]]] = {"works": [], "authors": []}
    for old, new in sorted(oa.redirects.items()):
        entity = "works" if old.startswith("W") else "authors" if old.startswith("A") else None
        if entity:
            merged[entity].append((old, new))
    for entity, rows in merged.items():
        rel = f"data/merged_ids/{entity}/{today.isoformat()}.csv.gz"
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["merge_date", "id", "merge_into_id"])
        for old, new in rows:
            writer.writerow([today.isoformat(), old, new])
        path = out.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with gzip.GzipFile(path, "wb", mtime=0) as gz:
            gz.write(buf.getvalue().encode("utf-8"))
        out.files[f"merged_ids/{entity}"].append(rel)
        out.records[f"merged_ids/{entity}"] = len(rows)
    return out


def write_snapshots(world: World, root: str | Path, today: dt.date | None = None,
                    **kw) -> tuple[WrittenFiles, WrittenFiles]:
    """Both bulk products under ``root``: ``s2/<release>/...`` and ``openalex/data/...``."""
    today = today or (world.end_day + dt.timedelta(days=1))
    root = Path(root)
    s2 = write_s2_release(world, root / "s2", today, shard_size=kw.get("shard_size", 200))
    oa = write_openalex_snapshot(world, root / "openalex", today, part_size=kw.get("part_size", 200))
    return s2, oa


__all__ = ["OA", "WrittenFiles", "write_s2_release", "write_openalex_snapshot", "write_snapshots",
           "s2_dataset_paper", "s2_dataset_author"]
