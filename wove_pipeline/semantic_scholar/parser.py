"""Semantic Scholar Graph API v1 payload parsing (already-decoded JSON → records).

Pure functions; no I/O. Wire format: ``shared/research/upstream.md`` §2 and
``shared/upstream-samples/semanticscholar/``.

* Batch endpoints answer a list aligned with the request; unknown ids are ``null`` and
  stay ``None`` here, in place (a new arXiv paper is often not in S2 yet: "retry later").
* Optional fields may be missing (only requested fields come back) or ``null``; unknown
  extra fields are ignored.
* :class:`S2ParseError` is raised only for structurally wrong payloads (not a list/dict
  where one is required, a record without its id, a field of the wrong JSON type).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any, NamedTuple

from wove_pipeline.arxiv.tex import try_normalize_arxiv_id
from wove_pipeline.upstream.json_types import JsonTypes
from wove_pipeline.upstream.lenient import BadRecord, parse_each

__all__ = [
    "S2ParseError",
    "S2PaperAuthor",
    "S2FieldOfStudy",
    "S2PaperRecord",
    "S2AuthorRecord",
    "parse_paper",
    "parse_paper_batch",
    "parse_author",
    "parse_author_batch",
    "parse_citations_page",
    "parse_references_page",
    "parse_paper_authors_page",
    "parse_author_papers_page",
]


class S2ParseError(ValueError):
    """The payload does not have the shape the S2 Graph API documents."""


class S2PaperAuthor(NamedTuple):
    author_id: str | None  # S2 still emits authors without an id
    name: str


class S2FieldOfStudy(NamedTuple):
    category: str
    source: str | None  # "external" | "s2-fos-model"


@dataclass(frozen=True)
class S2PaperRecord:
    paper_id: str
    corpus_id: int | None
    arxiv_id: str | None  # externalIds.ArXiv, normalized (no version)
    doi: str | None  # externalIds.DOI, lower-cased
    title: str | None
    abstract: str | None  # null for Springer and others
    year: int | None
    publication_date: date | None
    venue: str | None
    citation_count: int | None
    influential_citation_count: int | None
    reference_count: int | None
    fields_of_study: tuple[str, ...]
    s2_fields_of_study: tuple[S2FieldOfStudy, ...]
    authors: tuple[S2PaperAuthor, ...]
    external_ids: dict[str, Any] = field(default_factory=dict)
    url: str | None = None


@dataclass(frozen=True)
class S2AuthorRecord:
    author_id: str
    name: str | None
    orcid: str | None  # externalIds.ORCID (claimed profiles only)
    dblp_names: tuple[str, ...]
    affiliations: tuple[str, ...]
    homepage: str | None
    paper_count: int | None
    citation_count: int | None
    h_index: int | None
    url: str | None = None
    papers: tuple[S2PaperRecord, ...] = ()  # only when `papers` fields were requested


# ----------------------------------------------------------------------------------------
# typed getters: missing/null → None, wrong JSON type → S2ParseError


_json = JsonTypes(S2ParseError)
_dict, _list, _opt_str, _opt_int, _opt_list, _str_items = (
    _json.object, _json.array, _json.opt_str, _json.opt_int, _json.opt_array, _json.strs)


def _id(d: dict, key: str, what: str) -> str:
    """S2 ids are strings on the wire; accept an int too (some clients coerce them)."""
    v = d.get(key)
    if isinstance(v, bool) or not isinstance(v, (str, int)) or v == "":
        raise S2ParseError(f"{what}: missing or invalid {key!r}: {v!r}")
    return str(v)


def _or_empty(v: Any) -> Any:
    """null → {} (S2 sends `externalIds: {}` or omits it); keep any other value to type-check."""
    return {} if v is None else v


def _date(s: str | None) -> date | None:
    if not s:
        return None
    try:
        return date.fromisoformat(s)
    except ValueError:
        return None  # a malformed date is an upstream glitch, not a reason to drop the paper


# ----------------------------------------------------------------------------------------
# papers


def parse_paper(payload: Any) -> S2PaperRecord:
    """One paper object (``GET /paper/{id}`` or an element of a batch/list)."""
    d = _dict(payload, "paper")
    paper_id = _id(d, "paperId", "paper")
    what = f"paper {paper_id}"
    ext = _dict(_or_empty(d.get("externalIds")), f"{what}.externalIds")
    arxiv = ext.get("ArXiv")
    doi = ext.get("DOI")
    corpus_id = _opt_int(d, "corpusId", what)
    if corpus_id is None:
        corpus_id = _opt_int(ext, "CorpusId", f"{what}.externalIds")

    authors = []
    for i, a in enumerate(_opt_list(d, "authors", what)):
        a = _dict(a, f"{what}.authors[{i}]")
        aid = a.get("authorId")
        if aid is not None and (isinstance(aid, bool) or not isinstance(aid, (str, int))):
            raise S2ParseError(f"{what}.authors[{i}].authorId: bad type {type(aid).__name__}")
        authors.append(
            S2PaperAuthor(str(aid) if aid not in (None, "") else None,
                          _opt_str(a, "name", f"{what}.authors[{i}]") or "")
        )

    s2_fos = []
    for i, f in enumerate(_opt_list(d, "s2FieldsOfStudy", what)):
        f = _dict(f, f"{what}.s2FieldsOfStudy[{i}]")
        cat = _opt_str(f, "category", f"{what}.s2FieldsOfStudy[{i}]")
        if cat:
            s2_fos.append(S2FieldOfStudy(cat, _opt_str(f, "source", f"{what}.s2FieldsOfStudy[{i}]")))

    return S2PaperRecord(
        paper_id=paper_id,
        corpus_id=corpus_id,
        arxiv_id=try_normalize_arxiv_id(arxiv) if isinstance(arxiv, str) else None,
        doi=doi.strip().lower() if isinstance(doi, str) and doi.strip() else None,
        title=_opt_str(d, "title", what),
        abstract=_opt_str(d, "abstract", what),
        year=_opt_int(d, "year", what),
        publication_date=_date(_opt_str(d, "publicationDate", what)),
        venue=_opt_str(d, "venue", what) or None,  # "" means unknown
        citation_count=_opt_int(d, "citationCount", what),
        influential_citation_count=_opt_int(d, "influentialCitationCount", what),
        reference_count=_opt_int(d, "referenceCount", what),
        fields_of_study=_str_items(_opt_list(d, "fieldsOfStudy", what), f"{what}.fieldsOfStudy"),
        s2_fields_of_study=tuple(s2_fos),
        authors=tuple(authors),
        external_ids=dict(ext),
        url=_opt_str(d, "url", what),
    )


def parse_paper_batch(
    payload: Any, expected_len: int | None = None, bad: list[BadRecord] | None = None
) -> list[S2PaperRecord | None]:
    """``POST /paper/batch`` response → list aligned with the request (``None`` = unknown id).

    Pass ``expected_len`` (the number of ids sent) to turn a misaligned answer into an
    error rather than silently attaching data to the wrong paper. Pass ``bad`` to set
    unparseable records aside (``None`` in place) instead of raising.
    """
    items = _list(payload, "paper batch")
    if expected_len is not None and len(items) != expected_len:
        raise S2ParseError(f"paper batch: {len(items)} results for {expected_len} ids")
    return parse_each(items, parse_paper, S2ParseError, bad)


# ----------------------------------------------------------------------------------------
# authors


def parse_author(payload: Any) -> S2AuthorRecord:
    """One author object (``GET /author/{id}``, batch element, or ``/paper/{id}/authors`` item)."""
    d = _dict(payload, "author")
    author_id = _id(d, "authorId", "author")
    what = f"author {author_id}"
    ext = _dict(_or_empty(d.get("externalIds")), f"{what}.externalIds")
    orcid = ext.get("ORCID")
    dblp = ext.get("DBLP")
    if dblp is None:
        dblp = []
    if isinstance(dblp, str):  # on paper objects DBLP is a key string; be lenient
        dblp = [dblp]
    return S2AuthorRecord(
        author_id=author_id,
        name=_opt_str(d, "name", what),
        orcid=orcid.strip() if isinstance(orcid, str) and orcid.strip() else None,
        dblp_names=_str_items(_list(dblp, f"{what}.externalIds.DBLP"), f"{what}.externalIds.DBLP"),
        affiliations=_str_items(_opt_list(d, "affiliations", what), f"{what}.affiliations"),
        homepage=_opt_str(d, "homepage", what),
        paper_count=_opt_int(d, "paperCount", what),
        citation_count=_opt_int(d, "citationCount", what),
        h_index=_opt_int(d, "hIndex", what),
        url=_opt_str(d, "url", what),
        papers=tuple(parse_paper(p) for p in _opt_list(d, "papers", what)),
    )


def parse_author_batch(
    payload: Any, expected_len: int | None = None, bad: list[BadRecord] | None = None
) -> list[S2AuthorRecord | None]:
    """``POST /author/batch`` response → list aligned with the request (``None`` = unknown).
    ``bad`` as in :func:`parse_paper_batch`."""
    items = _list(payload, "author batch")
    if expected_len is not None and len(items) != expected_len:
        raise S2ParseError(f"author batch: {len(items)} results for {expected_len} ids")
    return parse_each(items, parse_author, S2ParseError, bad)


# ----------------------------------------------------------------------------------------
# offset/next pages


def _page(payload: Any, what: str) -> tuple[list, int | None]:
    """``{"offset": N, "next": M, "data": [...]}``; ``next`` is absent on the last page."""
    d = _dict(payload, what)
    if "data" not in d:
        raise S2ParseError(f"{what}: no 'data' array")
    data = _list(d["data"], f"{what}.data")
    nxt = _opt_int(d, "next", what)
    return data, nxt


def _linked_ids(payload: Any, key: str, what: str) -> tuple[list[str], int | None]:
    data, nxt = _page(payload, what)
    ids: list[str] = []
    for i, item in enumerate(data):
        item = _dict(item, f"{what}.data[{i}]")
        linked = item.get(key)
        if linked is None:
            continue
        linked = _dict(linked, f"{what}.data[{i}].{key}")
        pid = linked.get("paperId")
        # S2 lists citations it could not resolve with paperId null: nothing to link to.
        if isinstance(pid, str) and pid:
            ids.append(pid)
        elif pid is not None:
            raise S2ParseError(f"{what}.data[{i}].{key}.paperId: bad value {pid!r}")
    return ids, nxt


def parse_citations_page(payload: Any) -> tuple[list[str], int | None]:
    """``GET /paper/{id}/citations`` page → (citing paper ids, next offset or None)."""
    return _linked_ids(payload, "citingPaper", "citations page")


def parse_references_page(payload: Any) -> tuple[list[str], int | None]:
    """``GET /paper/{id}/references`` page → (cited paper ids, next offset or None)."""
    return _linked_ids(payload, "citedPaper", "references page")


def parse_paper_authors_page(payload: Any) -> tuple[list[S2AuthorRecord], int | None]:
    """``GET /paper/{id}/authors`` page → (authors in order, next offset or None)."""
    data, nxt = _page(payload, "paper authors page")
    return [parse_author(a) for a in data], nxt


def parse_author_papers_page(payload: Any) -> tuple[list[S2PaperRecord], int | None]:
    """``GET /author/{id}/papers`` page → (papers, next offset or None)."""
    data, nxt = _page(payload, "author papers page")
    return [parse_paper(p) for p in data], nxt
