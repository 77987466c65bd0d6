"""OpenAlex payload parsing (already-decoded JSON → records).

Pure functions; no I/O. Wire format: ``shared/research/upstream.md`` §3 and
``shared/upstream-samples/openalex/`` (2026 list shapes and a late-2023 single work).

Conventions:

* OpenAlex ids are kept short: ``https://openalex.org/W3038568908`` → ``W3038568908``.
* ORCIDs are bare (``0000-0003-0655-7347``), ROR ids are bare (``055n47h92``), DOIs are
  lower-cased without ``https://doi.org/``.
* Missing optional fields and unknown extra fields are fine; :class:`OpenAlexParseError`
  is raised only for structurally wrong payloads (wrong JSON type, entity without id).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any, NamedTuple

from wove_pipeline.arxiv.tex import try_normalize_arxiv_id
from wove_pipeline.upstream.json_types import JsonTypes
from wove_pipeline.upstream.lenient import BadRecord, parse_each

__all__ = [
    "OpenAlexParseError",
    "WORK_FIELDS",
    "WORK_FIELDS_NOT_SELECTED",
    "AUTHOR_FIELDS",
    "INSTITUTION_FIELDS",
    "OpenAlexInstitutionRef",
    "OpenAlexAuthorship",
    "OpenAlexTopic",
    "OpenAlexWorkRecord",
    "OpenAlexAffiliation",
    "OpenAlexAuthorRecord",
    "InstitutionRecord",
    "short_id",
    "bare_doi",
    "bare_orcid",
    "bare_ror",
    "rebuild_abstract",
    "parse_work",
    "parse_works_page",
    "parse_author",
    "parse_authors_page",
    "parse_institution",
    "parse_institutions_page",
]


class OpenAlexParseError(ValueError):
    """The payload does not have the shape the OpenAlex API documents."""


# ----------------------------------------------------------------------------------------
# the root-level fields each parser below reads
#
# The client asks OpenAlex for these only (`select=`), and the raw layer keeps what came
# back, so a field the parser reads but these lists miss is silently None, now and in every
# rebuild from raw. Reading a new root field means adding it here (and refetching if the
# old raw responses should have it); tests/parsers/test_openalex_select.py parses the real
# samples cut down to these fields and fails when one is missing.
# `select` takes root-level fields only, and OpenAlex rejects unknown ones with a 400, so
# deprecated fields the parsers still accept from old raw files (`last_known_institution`)
# are not listed.

WORK_FIELDS = (
    "id", "doi",  # doi: how a result is matched to the arXiv id asked for
    "title", "display_name", "publication_date", "publication_year", "type", "language",
    "cited_by_count", "counts_by_year", "updated_date",
    # The flag sends a truncated work to a singleton. It is in no recorded sample (none is
    # truncated): were the real API to refuse it in select, every works call would be a
    # 400, loud, where leaving it out would cut author lists at 100 without a word.
    "authorships", "is_authors_truncated",
    "primary_topic", "topics", "abstract_inverted_index", "referenced_works",
)
# Read by parse_work but not asked of the API: they give the arXiv id of a work whose DOI
# is not arXiv's (a snapshot work merged with its published version). Every work the
# client gets answers a filter on its arXiv DOI, or is such a work's singleton, so the DOI
# gives the id and these are never read; they are a fifth of the real 2026 sample work
# and a third of a sandbox work.
WORK_FIELDS_NOT_SELECTED = ("locations", "primary_location", "best_oa_location")
AUTHOR_FIELDS = (
    "id", "display_name", "display_name_alternatives",
    "orcid", "ids",  # ids.orcid: the top-level orcid can be null alone
    "works_count", "cited_by_count", "summary_stats",
    "last_known_institutions", "affiliations", "updated_date",
)
INSTITUTION_FIELDS = (
    "id", "display_name", "display_name_acronyms", "display_name_alternatives",
    "ror", "ids",  # ids.ror: fallback for the top-level ror
    "country_code", "geo",  # geo.country_code: fallback; geo.city
    "type", "lineage", "homepage_url", "works_count", "cited_by_count",
)


# ----------------------------------------------------------------------------------------
# identifier helpers (tolerant: garbage in → None, never raise)


def short_id(url: Any) -> str | None:
    """``https://openalex.org/W123`` → ``W123``; also subfield/field/domain URLs → last segment."""
    if not isinstance(url, str) or not url.strip():
        return None
    return url.strip().rstrip("/").rsplit("/", 1)[-1] or None


_DOI_URL = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", re.IGNORECASE)


def bare_doi(s: Any) -> str | None:
    if not isinstance(s, str) or not s.strip():
        return None
    d = _DOI_URL.sub("", s.strip()).lower()
    return d if d.startswith("10.") else None


_ORCID = re.compile(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])", re.IGNORECASE)


def bare_orcid(s: Any) -> str | None:
    if not isinstance(s, str):
        return None
    m = _ORCID.search(s)
    return m.group(1).upper() if m else None


def bare_ror(s: Any) -> str | None:
    if not isinstance(s, str) or not s.strip():
        return None
    return s.strip().rstrip("/").rsplit("/", 1)[-1] or None


_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/(.+)$", re.IGNORECASE)


def _arxiv_from_doi(doi: str | None) -> str | None:
    m = _ARXIV_DOI.match(doi or "")
    return try_normalize_arxiv_id(m.group(1)) if m else None


# ----------------------------------------------------------------------------------------
# typed getters: missing/null → None/empty, wrong JSON type → OpenAlexParseError


_json = JsonTypes(OpenAlexParseError, numeric_strings=True)  # the 2023 shape sends some scores as strings
_dict, _opt_dict, _list, _opt_str, _opt_num, _opt_int, _strs = (
    _json.object, _json.opt_object, _json.opt_array, _json.opt_str, _json.opt_num, _json.opt_int, _json.strs)


def _entity_id(d: dict, what: str) -> str:
    sid = short_id(d.get("id")) if isinstance(d.get("id"), str) else None
    if not sid:
        raise OpenAlexParseError(f"{what}: missing or invalid 'id': {d.get('id')!r}")
    return sid


def _date(s: str | None) -> date | None:
    if not s:
        return None
    try:
        return date.fromisoformat(s[:10])
    except ValueError:
        return None  # OpenAlex dates can be wrong; not a reason to drop the record


def _dedupe(items) -> tuple:
    return tuple(dict.fromkeys(x for x in items if x))


# ----------------------------------------------------------------------------------------
# works


class OpenAlexInstitutionRef(NamedTuple):
    institution_id: str | None
    ror: str | None
    display_name: str | None
    country_code: str | None
    type: str | None


class OpenAlexAuthorship(NamedTuple):
    position: int  # 0-based index in authorships (the reliable cross-source alignment key)
    author_position: str | None  # "first" | "middle" | "last"
    author_id: str | None  # null for some group authors
    display_name: str | None
    raw_author_name: str | None
    orcid: str | None
    institutions: tuple[OpenAlexInstitutionRef, ...]
    raw_affiliation_strings: tuple[str, ...]
    is_corresponding: bool


class OpenAlexTopic(NamedTuple):
    topic_id: str | None
    display_name: str | None
    score: float | None
    subfield_id: str | None
    subfield: str | None
    field_id: str | None
    field: str | None
    domain_id: str | None
    domain: str | None


@dataclass(frozen=True)
class OpenAlexWorkRecord:
    work_id: str
    doi: str | None
    arxiv_id: str | None
    title: str | None
    publication_date: date | None
    publication_year: int | None
    type: str | None
    cited_by_count: int | None
    counts_by_year: tuple[tuple[int, int], ...]  # (year, cited_by_count), as sent
    is_authors_truncated: bool
    authorships: tuple[OpenAlexAuthorship, ...]
    primary_topic: OpenAlexTopic | None
    topics: tuple[OpenAlexTopic, ...]
    abstract: str | None
    language: str | None = None
    referenced_works: tuple[str, ...] = ()
    updated_date: str | None = None


def rebuild_abstract(index: Any, what: str = "abstract_inverted_index") -> str | None:
    """``{"word": [positions]}`` → text. Works from (position, word) pairs, so a bogus huge
    position cannot allocate a huge list."""
    if index is None:
        return None
    index = _dict(index, what)
    pairs: list[tuple[int, str]] = []
    for word, positions in index.items():
        if not isinstance(positions, list):
            raise OpenAlexParseError(f"{what}[{word!r}]: expected an array of positions")
        for p in positions:
            if isinstance(p, bool) or not isinstance(p, int):
                raise OpenAlexParseError(f"{what}[{word!r}]: bad position {p!r}")
            pairs.append((p, word))
    if not pairs:
        return None
    pairs.sort()
    return " ".join(w for _, w in pairs)


def _institution_ref(d: Any, what: str) -> OpenAlexInstitutionRef:
    d = _dict(d, what)
    return OpenAlexInstitutionRef(
        institution_id=short_id(_opt_str(d, "id", what)),
        ror=bare_ror(_opt_str(d, "ror", what)),
        display_name=_opt_str(d, "display_name", what),
        country_code=_opt_str(d, "country_code", what),
        type=_opt_str(d, "type", what),
    )


def _topic(d: Any, what: str) -> OpenAlexTopic:
    d = _dict(d, what)

    def part(key: str) -> tuple[str | None, str | None]:
        sub = _opt_dict(d, key, what) or {}
        return short_id(_opt_str(sub, "id", f"{what}.{key}")), _opt_str(sub, "display_name", f"{what}.{key}")

    sf, f, dm = part("subfield"), part("field"), part("domain")
    return OpenAlexTopic(
        topic_id=short_id(_opt_str(d, "id", what)),
        display_name=_opt_str(d, "display_name", what),
        score=_opt_num(d, "score", what),
        subfield_id=sf[0], subfield=sf[1],
        field_id=f[0], field=f[1],
        domain_id=dm[0], domain=dm[1],
    )


def _authorship(index: int, d: Any, what: str) -> OpenAlexAuthorship:
    d = _dict(d, what)
    author = _opt_dict(d, "author", what) or {}
    # 2023 shape has the singular `raw_affiliation_string` (the plural joined with "; ")
    # next to the plural; 2025+ has the plural and `affiliations[].raw_affiliation_string`.
    raw_affs = list(_strs(_list(d, "raw_affiliation_strings", what), f"{what}.raw_affiliation_strings"))
    if not raw_affs:
        single = _opt_str(d, "raw_affiliation_string", what)
        if single:
            raw_affs = [single]
    if not raw_affs:
        for i, a in enumerate(_list(d, "affiliations", what)):
            raw_affs.append(_opt_str(_dict(a, f"{what}.affiliations[{i}]"), "raw_affiliation_string", what) or "")
    corr = d.get("is_corresponding")
    return OpenAlexAuthorship(
        position=index,
        author_position=_opt_str(d, "author_position", what),
        author_id=short_id(_opt_str(author, "id", f"{what}.author")),
        display_name=_opt_str(author, "display_name", f"{what}.author"),
        raw_author_name=_opt_str(d, "raw_author_name", what),
        orcid=bare_orcid(_opt_str(author, "orcid", f"{what}.author")),
        institutions=tuple(
            _institution_ref(x, f"{what}.institutions[{i}]")
            for i, x in enumerate(_list(d, "institutions", what))
        ),
        raw_affiliation_strings=_dedupe(s.strip() for s in raw_affs),
        is_corresponding=corr is True,
    )


def _arxiv_from_locations(d: dict, what: str) -> str | None:
    locs = list(_list(d, "locations", what))
    for key in ("primary_location", "best_oa_location"):
        loc = d.get(key)
        if loc is not None:
            locs.append(loc)
    for i, loc in enumerate(locs):
        loc = _dict(loc, f"{what}.locations[{i}]")
        for key in ("landing_page_url", "pdf_url"):
            url = loc.get(key)
            m = _ARXIV_URL.search(url) if isinstance(url, str) else None
            if m:
                found = try_normalize_arxiv_id(m.group(1))
                if found:
                    return found
    return None


def parse_work(payload: Any) -> OpenAlexWorkRecord:
    """One work object (``/works/W…`` singleton or a list element; 2023 and 2026 shapes)."""
    d = _dict(payload, "work")
    work_id = _entity_id(d, "work")
    what = f"work {work_id}"
    doi = bare_doi(_opt_str(d, "doi", what))
    counts = []
    for i, c in enumerate(_list(d, "counts_by_year", what)):
        c = _dict(c, f"{what}.counts_by_year[{i}]")
        year = _opt_int(c, "year", f"{what}.counts_by_year[{i}]")
        if year is not None:
            counts.append((year, _opt_int(c, "cited_by_count", f"{what}.counts_by_year[{i}]") or 0))
    primary = d.get("primary_topic")
    return OpenAlexWorkRecord(
        work_id=work_id,
        doi=doi,
        # locations only for a DOI that is not arXiv's: never for the API's works (WORK_FIELDS_NOT_SELECTED)
        arxiv_id=_arxiv_from_doi(doi) or _arxiv_from_locations(d, what),
        title=_opt_str(d, "title", what) or _opt_str(d, "display_name", what),
        publication_date=_date(_opt_str(d, "publication_date", what)),
        publication_year=_opt_int(d, "publication_year", what),
        type=_opt_str(d, "type", what),
        cited_by_count=_opt_int(d, "cited_by_count", what),
        counts_by_year=tuple(counts),
        is_authors_truncated=d.get("is_authors_truncated") is True,
        authorships=tuple(
            _authorship(i, a, f"{what}.authorships[{i}]")
            for i, a in enumerate(_list(d, "authorships", what))
        ),
        primary_topic=None if primary is None else _topic(primary, f"{what}.primary_topic"),
        topics=tuple(_topic(t, f"{what}.topics[{i}]") for i, t in enumerate(_list(d, "topics", what))),
        abstract=rebuild_abstract(d.get("abstract_inverted_index"), f"{what}.abstract_inverted_index"),
        language=_opt_str(d, "language", what),
        referenced_works=_dedupe(
            short_id(x) for x in _strs(_list(d, "referenced_works", what), f"{what}.referenced_works")
        ),
        updated_date=_opt_str(d, "updated_date", what),
    )


def _list_page(payload: Any, what: str) -> tuple[list, str | None, int | None]:
    """``{"meta": {"count", "next_cursor"?}, "results": [...]}``."""
    d = _dict(payload, what)
    if "results" not in d:
        raise OpenAlexParseError(f"{what}: no 'results' array")
    results = d["results"]
    if not isinstance(results, list):
        raise OpenAlexParseError(f"{what}.results: expected an array")
    meta = _opt_dict(d, "meta", what) or {}
    next_cursor = _opt_str(meta, "next_cursor", f"{what}.meta") or None
    return results, next_cursor, _opt_int(meta, "count", f"{what}.meta")


def parse_works_page(payload: Any, bad: list[BadRecord] | None = None) -> tuple[list[OpenAlexWorkRecord], str | None, int | None]:
    """``/works?…`` → (works, next_cursor or None, meta.count).

    Cursor paging ends when ``next_cursor`` is None (or the results are empty).
    """
    results, nxt, count = _list_page(payload, "works page")
    # With `bad` given, an unparseable record is set aside instead of failing the page.
    return [r for r in parse_each(results, parse_work, OpenAlexParseError, bad) if r is not None], nxt, count


# ----------------------------------------------------------------------------------------
# authors


class OpenAlexAffiliation(NamedTuple):
    institution_id: str | None
    years: tuple[int, ...]
    institution: OpenAlexInstitutionRef


@dataclass(frozen=True)
class OpenAlexAuthorRecord:
    author_id: str
    display_name: str | None
    alternatives: tuple[str, ...]
    orcid: str | None  # top-level orcid, else ids.orcid (top-level can be null alone)
    works_count: int | None
    cited_by_count: int | None
    h_index: int | None
    i10_index: int | None
    two_year_mean_citedness: float | None
    last_known_institution_ids: tuple[str, ...]
    affiliations: tuple[OpenAlexAffiliation, ...]
    updated_date: str | None = None


def parse_author(payload: Any) -> OpenAlexAuthorRecord:
    d = _dict(payload, "author")
    author_id = _entity_id(d, "author")
    what = f"author {author_id}"
    ids = _opt_dict(d, "ids", what) or {}
    stats = _opt_dict(d, "summary_stats", what) or {}
    last_known = [
        _institution_ref(x, f"{what}.last_known_institutions[{i}]").institution_id
        for i, x in enumerate(_list(d, "last_known_institutions", what))
    ]
    if not last_known and d.get("last_known_institution") is not None:  # deprecated singular
        last_known = [_institution_ref(d["last_known_institution"], f"{what}.last_known_institution").institution_id]
    affiliations = []
    for i, a in enumerate(_list(d, "affiliations", what)):
        a = _dict(a, f"{what}.affiliations[{i}]")
        inst = _institution_ref(a.get("institution") or {}, f"{what}.affiliations[{i}].institution")
        years = []
        for y in _list(a, "years", f"{what}.affiliations[{i}]"):
            if isinstance(y, bool) or not isinstance(y, int):
                raise OpenAlexParseError(f"{what}.affiliations[{i}].years: bad year {y!r}")
            years.append(y)
        affiliations.append(OpenAlexAffiliation(inst.institution_id, tuple(years), inst))
    return OpenAlexAuthorRecord(
        author_id=author_id,
        display_name=_opt_str(d, "display_name", what),
        alternatives=_strs(_list(d, "display_name_alternatives", what), f"{what}.display_name_alternatives"),
        orcid=bare_orcid(_opt_str(d, "orcid", what)) or bare_orcid(_opt_str(ids, "orcid", f"{what}.ids")),
        works_count=_opt_int(d, "works_count", what),
        cited_by_count=_opt_int(d, "cited_by_count", what),
        h_index=_opt_int(stats, "h_index", f"{what}.summary_stats"),
        i10_index=_opt_int(stats, "i10_index", f"{what}.summary_stats"),
        two_year_mean_citedness=_opt_num(stats, "2yr_mean_citedness", f"{what}.summary_stats"),
        last_known_institution_ids=_dedupe(last_known),
        affiliations=tuple(affiliations),
        updated_date=_opt_str(d, "updated_date", what),
    )


def parse_authors_page(payload: Any, bad: list[BadRecord] | None = None) -> tuple[list[OpenAlexAuthorRecord], str | None, int | None]:
    """``/authors?…`` → (authors, next_cursor or None, meta.count)."""
    results, nxt, count = _list_page(payload, "authors page")
    # With `bad` given, an unparseable record is set aside instead of failing the page.
    return [r for r in parse_each(results, parse_author, OpenAlexParseError, bad) if r is not None], nxt, count


# ----------------------------------------------------------------------------------------
# institutions


@dataclass(frozen=True)
class InstitutionRecord:
    institution_id: str
    ror: str | None
    display_name: str | None
    country_code: str | None
    type: str | None
    aliases: tuple[str, ...]  # display_name_acronyms + display_name_alternatives, de-duplicated
    lineage: tuple[str, ...]  # short ids, self included (as OpenAlex sends it)
    homepage_url: str | None = None
    city: str | None = None
    works_count: int | None = None
    cited_by_count: int | None = None


def parse_institution(payload: Any) -> InstitutionRecord:
    d = _dict(payload, "institution")
    inst_id = _entity_id(d, "institution")
    what = f"institution {inst_id}"
    geo = _opt_dict(d, "geo", what) or {}
    ids = _opt_dict(d, "ids", what) or {}
    aliases = _strs(_list(d, "display_name_acronyms", what), f"{what}.display_name_acronyms") + _strs(
        _list(d, "display_name_alternatives", what), f"{what}.display_name_alternatives"
    )
    return InstitutionRecord(
        institution_id=inst_id,
        ror=bare_ror(_opt_str(d, "ror", what)) or bare_ror(_opt_str(ids, "ror", f"{what}.ids")),
        display_name=_opt_str(d, "display_name", what),
        country_code=_opt_str(d, "country_code", what) or _opt_str(geo, "country_code", f"{what}.geo"),
        type=_opt_str(d, "type", what),
        aliases=_dedupe(aliases),
        lineage=_dedupe(short_id(x) for x in _strs(_list(d, "lineage", what), f"{what}.lineage")),
        homepage_url=_opt_str(d, "homepage_url", what),
        city=_opt_str(geo, "city", f"{what}.geo"),
        works_count=_opt_int(d, "works_count", what),
        cited_by_count=_opt_int(d, "cited_by_count", what),
    )


def parse_institutions_page(payload: Any, bad: list[BadRecord] | None = None) -> tuple[list[InstitutionRecord], str | None, int | None]:
    """``/institutions?…`` → (institutions, next_cursor or None, meta.count)."""
    results, nxt, count = _list_page(payload, "institutions page")
    # With `bad` given, an unparseable record is set aside instead of failing the page.
    return [r for r in parse_each(results, parse_institution, OpenAlexParseError, bad) if r is not None], nxt, count
