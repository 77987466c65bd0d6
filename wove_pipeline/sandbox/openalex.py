"""Sandbox OpenAlex API, answering like ``api.openalex.org`` in 2026.

Wire format follows ``shared/upstream-samples/openalex/*_2026_*.json`` and
``shared/research/upstream.md`` §3: the ``meta``/``results``/``group_by`` envelope, ``filter``
with ``|`` ORs (capped), ``per_page`` 1..100, basic and cursor paging, root-level ``select``,
301 for merged ids, ``X-RateLimit-*`` headers and a daily cost budget (list calls cost
$0.0001, singletons are free) that answers 429 once spent.

This module shares no code with the pipeline's OpenAlex client or parsers (DESIGN.md).
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
import threading
from collections import Counter, defaultdict
from typing import Callable
from urllib.parse import unquote, urlencode

from wove_pipeline.sandbox.endpoint import Request, Response
from wove_pipeline.sandbox.world import Institution, OpenAlexAuthor, OpenAlexWork, Paper, World

OA = "https://openalex.org/"
LIST_CALL_USD = 0.0001  # $0.10 per 1,000 list/filter calls (2026 pricing)
PER_PAGE_MAX = 100
BASIC_PAGING_MAX_RESULTS = 10_000
LIST_AUTHORSHIPS_MAX = 100  # list responses cut authorships here and flag it
ALLOWED_PARAMS = {"filter", "per_page", "per-page", "page", "cursor", "select", "api_key", "mailto"}

# Root-level keys of each entity, in the order of the 2026 samples (select= accepts only these).
# `is_authors_truncated` is in no sample (none is truncated), but it is a root-level key of a
# truncated list result, so select takes it like the others.
WORK_KEYS = [
    "id", "doi", "title", "display_name", "publication_year", "publication_date", "ids",
    "language", "primary_location", "type", "indexed_in", "open_access", "authorships",
    "is_authors_truncated", "institutions", "countries_distinct_count", "institutions_distinct_count",
    "corresponding_author_ids", "corresponding_institution_ids", "apc_list", "apc_paid", "fwci",
    "has_fulltext", "cited_by_count", "citation_normalized_percentile",
    "cited_by_percentile_year", "biblio", "is_retracted", "is_paratext", "is_xpac",
    "primary_topic", "topics", "keywords", "concepts", "mesh", "locations_count", "locations",
    "best_oa_location", "sustainable_development_goals", "awards", "funders", "has_content",
    "content_urls", "referenced_works_count", "referenced_works", "related_works",
    "abstract_inverted_index", "counts_by_year", "updated_date", "created_date",
]
AUTHOR_KEYS = [
    "id", "orcid", "display_name", "display_name_alternatives", "works_count", "cited_by_count",
    "summary_stats", "ids", "affiliations", "last_known_institutions", "topics", "topic_share",
    "x_concepts", "counts_by_year", "longest_name", "parsed_longest_name", "block_key",
    "works_api_url", "updated_date", "created_date",
]
INSTITUTION_KEYS = [
    "id", "ror", "display_name", "country_code", "type", "type_id", "lineage", "homepage_url",
    "image_url", "image_thumbnail_url", "display_name_acronyms", "display_name_alternatives",
    "repositories", "works_count", "cited_by_count", "summary_stats", "ids", "geo",
    "international", "associated_institutions", "counts_by_year", "roles", "topics",
    "topic_share", "is_super_system", "works_api_url", "updated_date", "created_date",
]
# Filter fields each list accepts, mapped to the sandbox's own predicate name.
WORK_FILTERS = {
    "doi": "doi", "openalex": "id", "ids.openalex": "id", "openalex_id": "id",
    "authorships.author.id": "author", "author.id": "author",
    "publication_year": "year", "from_publication_date": "from", "to_publication_date": "to",
}
AUTHOR_FILTERS = {"id": "id", "openalex": "id", "ids.openalex": "id", "openalex_id": "id", "orcid": "orcid"}
INSTITUTION_FILTERS = {"id": "id", "openalex": "id", "ids.openalex": "id", "openalex_id": "id", "ror": "ror"}

_COUNTRIES = {
    "US": "United States", "GB": "United Kingdom", "DE": "Germany", "FR": "France", "CN": "China",
    "JP": "Japan", "CH": "Switzerland", "IT": "Italy", "IN": "India", "CA": "Canada", "NL": "Netherlands",
    "ES": "Spain", "KR": "South Korea", "AU": "Australia", "BR": "Brazil", "IL": "Israel", "SE": "Sweden",
    "RU": "Russia", "PL": "Poland", "AT": "Austria", "BE": "Belgium", "DK": "Denmark",
}
_ARXIV_SOURCE = {
    "id": "https://openalex.org/S4306400194",
    "display_name": "arXiv (Cornell University)",
    "issn_l": None,
    "issn": None,
    "is_oa": True,
    "is_in_doaj": False,
    "is_core": False,
    "host_organization": "https://openalex.org/I205783295",
    "host_organization_name": "Cornell University",
    "host_organization_lineage": ["https://openalex.org/I205783295"],
    "host_organization_lineage_names": ["Cornell University"],
    "type": "repository",
}
_DATACITE_SOURCE = dict(
    _ARXIV_SOURCE, id="https://openalex.org/S4393918464", display_name="ArXiv.org", is_core=False
)


class _ApiError(Exception):
    def __init__(self, status: int, error: str, message: str):
        super().__init__(message)
        self.status, self.error, self.message = status, error, message


def _invalid(message: str) -> _ApiError:
    return _ApiError(400, "Invalid query parameters error.", message)


def _short(ident: str) -> str:
    """'https://openalex.org/W12' / 'w12' -> 'W12' (OpenAlex accepts ids in either form)."""
    # "https:/openalex.org/": some servers collapse the "//" of a URL that sits in a path
    ident = ident.strip().removeprefix(OA).removeprefix("https:/openalex.org/").removeprefix("openalex.org/")
    return ident[:1].upper() + ident[1:]


def _bare_doi(doi: str) -> str:
    doi = doi.strip().lower()
    for pre in ("https://doi.org/", "http://doi.org/", "https:/doi.org/", "doi.org/", "doi:"):
        if doi.startswith(pre):
            return doi[len(pre):]
    return doi


def _bare_orcid(orcid: str) -> str:
    return orcid.strip().lower().removeprefix("https://orcid.org/").removeprefix("orcid:").upper()


def _orcid_url(orcid: str | None) -> str | None:
    return f"https://orcid.org/{_bare_orcid(orcid)}" if orcid else None


def _bare_ror(ror: str) -> str:
    return ror.strip().lower().removeprefix("https://ror.org/").removeprefix("ror:")


class OpenAlexEndpoint:
    """OpenAlex over a :class:`World`. ``calls`` counts requests by route."""

    name = "openalex"
    prefix = "/openalex"

    def __init__(
        self,
        world: World,
        daily_budget_usd: float | None = 1.0,
        require_api_key: str | None = None,
        *,
        max_or_values: int = 50,
        clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.timezone.utc),
    ):
        self.world = world
        self.require_api_key = require_api_key
        self.max_or_values = max_or_values
        # Budget in credits of one list call each, so there is no float drift.
        self.daily_credits = None if daily_budget_usd is None else int(round(daily_budget_usd / LIST_CALL_USD))
        self.clock = clock  # wall clock, only for the time of day in X-RateLimit-Reset
        # Upstream drift: select fields this API no longer accepts ("is_authors_truncated",
        # or "works.is_authors_truncated" for one entity), refused with the real 400.
        self.refused_fields: set[str] = set()
        # work id -> the published DOI of a preprint served as merged into its published
        # version (see merge_published); empty: every work is the arXiv copy
        self.published_doi: dict[str, str] = {}
        self.calls: Counter[str] = Counter()
        self._spent: dict[str | None, int] = defaultdict(int)  # credits used today, per api_key
        self._budget_day: dt.date | None = None
        self._lock = threading.Lock()
        self._index()

    # ------------------------------------------------------------------ indexes

    def _index(self) -> None:
        w = self.world
        self.works: dict[str, tuple[Paper, OpenAlexWork]] = {}
        self.work_by_doi: dict[str, str] = {}
        self.works_of_author: dict[str, list[str]] = defaultdict(list)  # only positions < 100
        self.all_works_of_author: dict[str, list[str]] = defaultdict(list)
        self.works_of_institution: dict[str, list[str]] = defaultdict(list)
        self.redirects: dict[str, str] = {_short(k): _short(v) for k, v in w.openalex_redirects.items()}
        for p in w.papers:
            work = p.openalex
            if work is None:
                continue
            if work.merged_into:
                self.redirects[work.work_id] = _short(work.merged_into)
                continue
            self.works[work.work_id] = (p, work)
            self.work_by_doi[_bare_doi(work.doi)] = work.work_id
            for i, a in enumerate(work.authorships):
                if a.author_id:
                    if i < LIST_AUTHORSHIPS_MAX:  # OpenAlex's author filter does not see past 100
                        self.works_of_author[a.author_id].append(work.work_id)
                    self.all_works_of_author[a.author_id].append(work.work_id)
                for inst in a.institution_ids:
                    self.works_of_institution[inst].append(work.work_id)
        for a in w.openalex_authors.values():
            if a.merged_into:
                self.redirects[a.author_id] = _short(a.merged_into)
        self.author_by_orcid: dict[str, str] = {
            _bare_orcid(a.orcid): a.author_id for a in w.openalex_authors.values() if a.orcid and not a.merged_into
        }
        self.inst_by_ror = {_bare_ror(i.ror): i.institution_id for i in w.institutions.values()}
        # Sort orders for list results: numeric id order keeps cursor paging stable.
        self._work_order = sorted(self.works, key=lambda x: int(x[1:]) if x[1:].isdigit() else 0)

    def merge_published(self, share: float) -> list[str]:
        """Serve `share` of the works whose paper has a journal DOI as OpenAlex serves a
        preprint it merged into its published version: the work's DOI is the published one
        (type article, the journal first among the locations), and a lookup by the arXiv DOI
        finds nothing; the arXiv copy survives only in `locations`. Deterministic (by work
        id). Returns the arXiv ids of the works so served."""
        with self._lock:
            self.published_doi = {}
            merged = []
            for p in self.world.papers:
                w = p.openalex
                if w is None or w.merged_into or not p.dois or w.work_id not in self.works:
                    continue
                if int(re.sub(r"\D", "", w.work_id) or 0) % 1000 < share * 1000:
                    self.published_doi[w.work_id] = _bare_doi(p.dois[0])
                    merged.append(p.arxiv_id)
            self.work_by_doi = {}
            for work_id, (_p, w) in self.works.items():
                self.work_by_doi[self.published_doi.get(work_id) or _bare_doi(w.doi)] = work_id
        return merged

    def _work_visible(self, work_id: str, today: dt.date) -> bool:
        entry = self.works.get(work_id)
        return entry is not None and entry[1].available_from <= today  # coverage lag

    def _author_visible(self, a: OpenAlexAuthor | None, today: dt.date) -> bool:
        if a is None or a.merged_into:
            return False
        works = self.all_works_of_author.get(a.author_id, [])
        # An author known only through works OpenAlex has not ingested yet does not exist yet.
        return not works or any(self._work_visible(x, today) for x in works)

    # ------------------------------------------------------------------ HTTP

    def handle(self, request: Request, today: dt.date) -> Response:
        parts = [unquote(x) for x in request.path.strip("/").split("/", 1)]
        entity = parts[0] if parts and parts[0] else ""
        ident = parts[1] if len(parts) > 1 else None
        is_list = ident is None
        route = f"{request.method} /{entity}" + ("" if is_list else "/{id}")
        api_key = request.query.get("api_key", [None])[-1]
        with self._lock:
            self.calls[route] += 1
            if self._budget_day != today:  # the daily budget resets at (sandbox) midnight UTC
                self._budget_day = today
                self._spent.clear()
            cost = 1 if is_list and entity in ("works", "authors", "institutions") else 0
            try:
                if self.require_api_key is not None and api_key != self.require_api_key:
                    raise _ApiError(401, "Unauthorized", "A valid api_key query parameter is required.")
                if request.method != "GET":
                    raise _ApiError(405, "Method Not Allowed", "Only GET is supported.")
                if cost and self.daily_credits is not None and self._spent[api_key] + cost > self.daily_credits:
                    raise _ApiError(
                        429,
                        "Rate limit exceeded",
                        "You have exceeded your daily budget. It resets at midnight UTC. "
                        "See https://developers.openalex.org/api-reference/authentication",
                    )
            except _ApiError as e:
                return self._respond(e.status, {"error": e.error, "message": e.message}, api_key, 0)
        try:
            status, body, headers = self._dispatch(entity, ident, request, today)
        except _ApiError as e:
            return self._respond(e.status, {"error": e.error, "message": e.message}, api_key, 0)
        charged = cost if status == 200 else 0  # failed calls are not billed
        with self._lock:
            self._spent[api_key] += charged
        return self._respond(status, body, api_key, charged, headers)

    def _respond(self, status: int, body, api_key: str | None, used: int, headers: dict | None = None) -> Response:
        now = self.clock()
        midnight = (now + dt.timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
        hdrs = {"Content-Type": "application/json"}
        if self.daily_credits is not None:
            hdrs["X-RateLimit-Limit"] = str(self.daily_credits)
            hdrs["X-RateLimit-Remaining"] = str(max(0, self.daily_credits - self._spent[api_key]))
        else:
            hdrs["X-RateLimit-Limit"] = "unlimited"
            hdrs["X-RateLimit-Remaining"] = "unlimited"
        hdrs["X-RateLimit-Credits-Used"] = str(used)
        hdrs["X-RateLimit-Reset"] = str(int((midnight - now).total_seconds()))
        hdrs.update(headers or {})
        data = b"" if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        return Response(status, data, hdrs)

    def _dispatch(self, entity: str, ident: str | None, request: Request, today: dt.date):
        q = request.query
        unknown = sorted(set(q) - ALLOWED_PARAMS)
        if unknown:
            raise _invalid(f"{unknown[0]} is not a valid parameter. Valid parameters are: "
                           + ", ".join(sorted(ALLOWED_PARAMS - {'per-page'})) + ".")
        if entity == "works":
            keys, render = WORK_KEYS, self.render_work
        elif entity == "authors":
            keys, render = AUTHOR_KEYS, self.render_author
        elif entity == "institutions":
            keys, render = INSTITUTION_KEYS, self.render_institution
        else:
            raise _ApiError(404, "Not Found", f"The requested URL /{entity} was not found on this server.")
        select = self._parse_select(q, [k for k in keys if k not in self.refused_fields
                                        and f"{entity}.{k}" not in self.refused_fields])
        if ident is not None:
            return self._singleton(entity, ident, request, today, select)
        ids = self._filter(entity, q.get("filter", [""])[-1], today)
        return 200, self._list_page(ids, q, today, render, select), {}

    # ------------------------------------------------------------------ singletons

    def _singleton(self, entity: str, ident: str, request: Request, today: dt.date, select):
        low = ident.lower()
        found: str | None = None
        if entity == "works":
            if low.startswith(("doi:", "https://doi.org/", "http://doi.org/", "https:/doi.org/", "10.")):
                found = self.work_by_doi.get(_bare_doi(ident))
            else:
                found = _short(ident)
            if found in self.redirects:
                return self._redirect(entity, self.redirects[found], request)
            if found is not None and self._work_visible(found, today):
                return 200, self._select(self.render_work(found, today, full=True), select), {}
        elif entity == "authors":
            if low.startswith(("orcid:", "https://orcid.org/")):
                found = self.author_by_orcid.get(_bare_orcid(ident))
            else:
                found = _short(ident)
            if found in self.redirects:
                return self._redirect(entity, self.redirects[found], request)
            if self._author_visible(self.world.openalex_authors.get(found), today):
                return 200, self._select(self.render_author(found, today), select), {}
        else:
            if low.startswith(("ror:", "https://ror.org/")):
                found = self.inst_by_ror.get(_bare_ror(ident))
            else:
                found = _short(ident)
            if found in self.world.institutions:
                return 200, self._select(self.render_institution(found, today), select), {}
        raise _ApiError(404, "Not Found", f"The requested {entity[:-1]} {ident} was not found.")

    def _redirect(self, entity: str, target: str, request: Request):
        host = request.headers.get("host")
        path = f"{self.prefix}/{entity}/{target}"
        query = urlencode([(k, v) for k, vs in request.query.items() for v in vs])
        location = (f"http://{host}" if host else "") + path + (f"?{query}" if query else "")
        return 301, None, {"Location": location}

    # ------------------------------------------------------------------ lists

    def _filter(self, entity: str, raw: str, today: dt.date) -> list[str]:
        table = {"works": WORK_FILTERS, "authors": AUTHOR_FILTERS, "institutions": INSTITUTION_FILTERS}[entity]
        clauses: list[tuple[str, list[str]]] = []
        for clause in (c for c in raw.split(",") if c.strip()):
            field, sep, value = clause.partition(":")
            field = field.strip()
            if not sep or field not in table:
                raise _ApiError(400, "Invalid filter", f"Unknown filter field: {field}")
            values = [v for v in value.split("|")]
            if len(values) > self.max_or_values:
                raise _invalid(
                    f"Maximum number of values exceeded for {field}. Decrease values to "
                    f"{self.max_or_values} or below, or consider downloading the full dataset at "
                    "https://docs.openalex.org/download-snapshot"
                )
            clauses.append((table[field], values))
        # A clause naming ids, DOIs or an author names its candidates: start from those rather
        # than from the whole world, so a backfill's cost stays linear in the papers it asks for.
        candidates: set[str] | None = None
        for kind, values in clauses:
            named = self._named(kind, values)
            if named is not None:
                candidates = named if candidates is None else candidates & named
        numeric = lambda x: int(x[1:]) if x[1:].isdigit() else 0  # noqa: E731 - stable cursor order
        if entity == "works":
            pool = self._work_order if candidates is None else sorted(candidates & self.works.keys(), key=numeric)
            ids = [x for x in pool if self._work_visible(x, today)]
        elif entity == "authors":
            authors = self.world.openalex_authors
            pool = authors.values() if candidates is None else [authors[x] for x in candidates if x in authors]
            ids = sorted((a.author_id for a in pool if self._author_visible(a, today)), key=numeric)
        else:
            pool = self.world.institutions if candidates is None else candidates & self.world.institutions.keys()
            ids = sorted(pool, key=numeric)
        for kind, values in clauses:
            keep = self._matcher(entity, kind, values)
            ids = [x for x in ids if keep(x)]
        return ids

    def _named(self, kind: str, values: list[str]) -> set[str] | None:
        """The ids a selective clause can match, or None for clauses that only narrow."""
        if kind == "id":
            return {_short(v) for v in values}
        if kind == "doi":
            return {w for w in (self.work_by_doi.get(_bare_doi(v)) for v in values) if w is not None}
        if kind == "author":
            return {w for v in values for w in self.works_of_author.get(_short(v), [])}
        return None

    def _matcher(self, entity: str, kind: str, values: list[str]) -> Callable[[str], bool]:
        if kind == "id":
            wanted = {_short(v) for v in values}
            return lambda x: x in wanted
        if kind == "doi":
            wanted_ids = {self.work_by_doi.get(_bare_doi(v)) for v in values}
            return lambda x: x in wanted_ids
        if kind == "author":
            hits = {w for v in values for w in self.works_of_author.get(_short(v), [])}
            return lambda x: x in hits
        if kind == "orcid":
            wanted = {_bare_orcid(v) for v in values}
            return lambda x: bool(self.world.openalex_authors[x].orcid) and _bare_orcid(
                self.world.openalex_authors[x].orcid) in wanted
        if kind == "ror":
            wanted = {_bare_ror(v) for v in values}
            return lambda x: _bare_ror(self.world.institutions[x].ror) in wanted
        if kind in ("year", "from", "to"):
            try:
                if kind == "year":
                    years = {int(v) for v in values}
                else:
                    bound = dt.date.fromisoformat(values[0])
            except ValueError:
                raise _invalid(f"Value for param {kind} must be a valid date or year.") from None
            def keep(x: str) -> bool:
                d = self.works[x][1].publication_date
                if kind == "year":
                    return d.year in years
                return d >= bound if kind == "from" else d <= bound
            return keep
        raise AssertionError(kind)

    def _list_page(self, ids: list[str], q: dict, today: dt.date, render, select) -> dict:
        raw_pp = (q.get("per_page") or q.get("per-page") or ["25"])[-1]
        try:
            per_page = int(raw_pp)
        except ValueError:
            raise _invalid("per-page parameter must be an integer.") from None
        if not 1 <= per_page <= PER_PAGE_MAX:
            raise _invalid(f"per-page parameter must be between 1 and {PER_PAGE_MAX}")
        cursor = q.get("cursor", [None])[-1]
        meta: dict = {"count": len(ids), "db_response_time_ms": 3 + len(ids) % 40, "page": None,
                      "per_page": per_page, "groups_count": None}
        if cursor is not None:
            if "page" in q:
                raise _invalid("Cannot use page parameter with cursor pagination.")
            start = self._decode_cursor(cursor)
            chunk = ids[start: start + per_page]
            # Like OpenAlex: a cursor is handed out while results come back; the call after the
            # last page answers empty results and a null cursor.
            meta["next_cursor"] = self._encode_cursor(start + per_page) if chunk else None
        else:
            try:
                page = int(q.get("page", ["1"])[-1])
            except ValueError:
                raise _invalid("page parameter must be an integer.") from None
            if page < 1:
                raise _invalid("page parameter must be greater than 0.")
            if page * per_page > BASIC_PAGING_MAX_RESULTS:
                raise _invalid(
                    "Maximum results size of 10,000 records is exceeded. Cursor pagination is "
                    "required for records beyond 10,000. See: https://docs.openalex.org/how-to-use-the-api/"
                    "get-lists-of-entities/paging#cursor-paging"
                )
            meta["page"] = page
            chunk = ids[(page - 1) * per_page: page * per_page]
        results = [self._select(render(x, today), select) for x in chunk]
        return {"meta": meta, "results": results, "group_by": []}

    @staticmethod
    def _encode_cursor(offset: int) -> str:
        return base64.urlsafe_b64encode(f"sandbox-offset:{offset}".encode()).decode().rstrip("=")

    @staticmethod
    def _decode_cursor(cursor: str) -> int:
        if cursor == "*":
            return 0
        try:
            text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
            if text.startswith("sandbox-offset:"):
                return int(text.split(":", 1)[1])
        except (ValueError, UnicodeDecodeError):
            pass
        raise _invalid("Invalid cursor.")

    @staticmethod
    def _parse_select(q: dict, keys: list[str]) -> list[str] | None:
        raw = q.get("select", [None])[-1]
        if raw is None:
            return None
        fields = [f.strip() for f in raw.split(",") if f.strip()]
        for f in fields:
            if f not in keys:
                raise _invalid(f"{f} is not a valid select field. Valid fields for select are: "
                               + ", ".join(keys) + ".")
        return fields

    @staticmethod
    def _select(obj: dict, select: list[str] | None) -> dict:
        if select is None:
            return obj
        return {k: obj[k] for k in select if k in obj}

    # ------------------------------------------------------------------ rendering

    def _inst_dehydrated(self, inst_id: str, with_ror_first: bool = False) -> dict | None:
        inst = self.world.institutions.get(inst_id)
        if inst is None:
            return None
        if with_ror_first:  # author affiliations put ror before display_name (sample)
            return {"id": OA + inst.institution_id, "ror": inst.ror, "display_name": inst.display_name,
                    "country_code": inst.country_code, "type": inst.type, "lineage": [OA + inst.institution_id]}
        return {"id": OA + inst.institution_id, "display_name": inst.display_name, "ror": inst.ror,
                "country_code": inst.country_code, "type": inst.type, "lineage": [OA + inst.institution_id]}

    def _affiliations(self, raw_strings: list[str], inst_ids: list[str]) -> list[dict]:
        """Pair raw affiliation strings with institution ids (the world keeps them apart)."""
        if len(raw_strings) == len(inst_ids):
            return [{"raw_affiliation_string": s, "institution_ids": [OA + i]} for s, i in zip(raw_strings, inst_ids)]
        out = []
        for s in raw_strings:
            low = s.lower()
            hits = []
            for i in inst_ids:
                inst = self.world.institutions.get(i)
                names = [inst.display_name, *inst.aliases] if inst else []
                if any(n and n.lower() in low for n in names):
                    hits.append(OA + i)
            out.append({"raw_affiliation_string": s, "institution_ids": hits})
        return out

    def render_work(self, work_id: str, today: dt.date, full: bool = False) -> dict:
        paper, w = self.works[work_id]
        wid = OA + w.work_id
        published = self.published_doi.get(w.work_id)
        doi_url = "https://doi.org/" + (published or _bare_doi(w.doi))
        authorships = []
        for i, a in enumerate(w.authorships):
            insts = [x for x in (self._inst_dehydrated(i_) for i_ in a.institution_ids) if x]
            n = len(w.authorships)
            authorships.append({
                "author_position": "first" if i == 0 else ("last" if i == n - 1 else "middle"),
                "author": {"id": OA + a.author_id if a.author_id else None,
                           "display_name": a.display_name, "orcid": _orcid_url(a.orcid)},
                "institutions": insts,
                "countries": sorted({x["country_code"] for x in insts if x["country_code"]}),
                "is_corresponding": a.is_corresponding,
                "raw_author_name": a.raw_author_name,
                "raw_affiliation_strings": list(a.raw_affiliation_strings),
                "affiliations": self._affiliations(a.raw_affiliation_strings, a.institution_ids),
            })
        truncated = not full and len(authorships) > LIST_AUTHORSHIPS_MAX
        if truncated:
            authorships = authorships[:LIST_AUTHORSHIPS_MAX]
        all_insts = {i for a in w.authorships for i in a.institution_ids}
        arxiv_loc = {
            "id": f"pmh:oai:arXiv.org:{paper.arxiv_id}",
            "is_oa": True,
            "landing_page_url": f"https://arxiv.org/abs/{paper.arxiv_id}",
            "pdf_url": f"https://arxiv.org/pdf/{paper.arxiv_id}",
            "source": dict(_ARXIV_SOURCE),
            "license": paper.license and "other-oa",
            "license_id": paper.license and "https://openalex.org/licenses/other-oa",
            "version": "submittedVersion",
            "is_accepted": False,
            "is_published": False,
            "raw_source_name": None,
            "raw_type": "text",
        }
        doi_loc = dict(arxiv_loc, id="doi:" + _bare_doi(w.doi), landing_page_url=doi_url, pdf_url=None,
                       source=dict(_DATACITE_SOURCE), raw_source_name="ArXiv.org", raw_type="article")
        if published:  # merged into the published version: the journal's copy leads
            journal = (paper.journal_ref or "Journal").split(" (")[0]
            doi_loc = dict(doi_loc, id="doi:" + published, is_oa=False, version="publishedVersion",
                           is_accepted=True, is_published=True, raw_source_name=journal, raw_type="journal-article",
                           source=dict(_DATACITE_SOURCE, id="https://openalex.org/S%d" % (4300000000 + len(journal)),
                                       display_name=journal, type="journal", host_organization=None,
                                       host_organization_name=None, host_organization_lineage=[],
                                       host_organization_lineage_names=[]))
        cby = [{"year": y, "cited_by_count": c} for y, c in sorted(w.counts_by_year, reverse=True) if c]
        pct = (sum(map(ord, w.work_id)) % 1000) / 1000  # deterministic stand-in, no meaning
        out = {
            "id": wid,
            "doi": doi_url,
            "title": w.title,
            "display_name": w.title,
            "publication_year": w.publication_date.year,
            "publication_date": w.publication_date.isoformat(),
            "ids": {"openalex": wid, "doi": doi_url},
            "language": "en",
            "primary_location": dict(doi_loc),
            "type": "article" if published else w.type,
            "indexed_in": ["arxiv", "datacite"],
            "open_access": {"is_oa": True, "oa_status": "green", "oa_url": arxiv_loc["pdf_url"],
                            "any_repository_has_fulltext": True},
            "authorships": authorships,
            "institutions": [],  # always empty in 2026 payloads (sample)
            "countries_distinct_count": len({self.world.institutions[i].country_code
                                             for i in all_insts if i in self.world.institutions}),
            "institutions_distinct_count": len(all_insts),
            "corresponding_author_ids": [OA + a.author_id for a in w.authorships if a.is_corresponding and a.author_id],
            "corresponding_institution_ids": sorted({OA + i for a in w.authorships if a.is_corresponding
                                                     for i in a.institution_ids}),
            "apc_list": None,
            "apc_paid": None,
            "fwci": None,
            "has_fulltext": False,
            "cited_by_count": w.cited_by_count,
            "citation_normalized_percentile": {"value": pct, "is_in_top_1_percent": pct >= 0.99,
                                               "is_in_top_10_percent": pct >= 0.9},
            "cited_by_percentile_year": {"min": int(pct * 90), "max": int(pct * 90) + 10},
            "biblio": {"volume": None, "issue": None, "first_page": None, "last_page": None},
            "is_retracted": False,
            "is_paratext": False,
            "is_xpac": False,
            "primary_topic": w.primary_topic,
            "topics": list(w.topics),
            "keywords": [],
            "concepts": [],
            "mesh": [],
            "locations_count": 2,
            "locations": [doi_loc, arxiv_loc],
            "best_oa_location": dict(arxiv_loc),
            "sustainable_development_goals": [],
            "awards": [],
            "funders": [],
            "has_content": {"grobid_xml": False, "pdf": False},
            "content_urls": None,
            "referenced_works_count": 0,
            "referenced_works": [],
            "related_works": [],
            "abstract_inverted_index": self._inverted(w.abstract),
            "counts_by_year": cby,
            "updated_date": f"{max(w.available_from, paper.datestamp).isoformat()}T00:00:00",
            "created_date": f"{w.available_from.isoformat()}T00:00:00",
        }
        if truncated:
            # Inserted right after authorships, where OpenAlex puts it.
            items = list(out.items())
            pos = [k for k, _ in items].index("authorships") + 1
            out = dict(items[:pos] + [("is_authors_truncated", True)] + items[pos:])
        return out

    @staticmethod
    def _inverted(text: str | None) -> dict | None:
        if not text:
            return None
        index: dict[str, list[int]] = {}
        for pos, word in enumerate(text.split()):
            index.setdefault(word, []).append(pos)
        return index

    def _visible_works_of(self, author_id: str, today: dt.date) -> list[OpenAlexWork]:
        return [self.works[x][1] for x in self.all_works_of_author.get(author_id, []) if self._work_visible(x, today)]

    def render_author(self, author_id: str, today: dt.date) -> dict:
        a = self.world.openalex_authors[author_id]
        aid = OA + a.author_id
        orcid = _orcid_url(a.orcid)
        # OpenAlex sometimes leaves the top-level orcid null while ids.orcid is set (sample);
        # do the same, deterministically, for about one profile in four.
        top_orcid = None if orcid and int(re.sub(r"\D", "", a.author_id) or 0) % 4 == 0 else orcid
        works = self._visible_works_of(a.author_id, today)
        by_year: dict[int, list[int]] = defaultdict(lambda: [0, 0])
        topics: Counter = Counter()
        topic_obj: dict[str, dict] = {}
        for w in works:
            by_year[w.publication_date.year][0] += 1
            for y, c in w.counts_by_year:
                by_year[y][1] += c
            if w.primary_topic:
                topics[w.primary_topic["id"]] += 1
                topic_obj[w.primary_topic["id"]] = w.primary_topic
        total = sum(topics.values()) or 1
        names = [a.display_name, *a.display_name_alternatives]
        longest = max(names, key=len)
        tokens = longest.lower().split()
        first = tokens[0] if tokens else ""
        last = tokens[-1] if len(tokens) > 1 else ""
        ids = {"openalex": aid}
        if orcid:
            ids["orcid"] = orcid
        return {
            "id": aid,
            "orcid": top_orcid,
            "display_name": a.display_name,
            "display_name_alternatives": sorted(set(names)),
            "works_count": a.works_count,
            "cited_by_count": a.cited_by_count,
            "summary_stats": {"2yr_mean_citedness": a.two_year_mean_citedness, "h_index": a.h_index,
                              "i10_index": a.i10_index},
            "ids": ids,
            "affiliations": [
                {"institution": self._inst_dehydrated(i, with_ror_first=True), "years": sorted(years, reverse=True)}
                for i, years in a.affiliations if i in self.world.institutions
            ],
            "last_known_institutions": [
                self._inst_dehydrated(i, with_ror_first=True) for i in a.last_known_institution_ids
                if i in self.world.institutions
            ],
            "topics": [dict(topic_obj[t], count=n) for t, n in topics.most_common(25)],
            "topic_share": [
                {k: v for k, v in (dict(topic_obj[t], value=round(n / total, 7))).items() if k != "score"}
                for t, n in topics.most_common(25)
            ],
            "x_concepts": [],
            "counts_by_year": [
                {"year": y, "works_count": c[0], "oa_works_count": c[0], "cited_by_count": c[1]}
                for y, c in sorted(by_year.items())
            ],
            "longest_name": longest,
            "parsed_longest_name": {"first": first, "middle": " ".join(tokens[1:-1]), "last": last,
                                    "suffix": "", "nickname": ""},
            "block_key": f"{first[:1]} {last}".strip(),
            "works_api_url": f"https://api.openalex.org/works?filter=author.id:{a.author_id}",
            "updated_date": f"{today.isoformat()}T00:00:00",
            "created_date": f"{min((w.available_from for w in works), default=today).isoformat()}T00:00:00",
        }

    def render_institution(self, inst_id: str, today: dt.date) -> dict:
        inst: Institution = self.world.institutions[inst_id]
        iid = OA + inst.institution_id
        works = [self.works[x][1] for x in dict.fromkeys(self.works_of_institution.get(inst_id, []))
                 if self._work_visible(x, today)]
        acronyms = [x for x in inst.aliases if x.isupper() and " " not in x]
        alternatives = [x for x in inst.aliases if x not in acronyms]
        by_year: dict[int, list[int]] = defaultdict(lambda: [0, 0])
        for w in works:
            by_year[w.publication_date.year][0] += 1
            for y, c in w.counts_by_year:
                by_year[y][1] += c
        return {
            "id": iid,
            "ror": inst.ror,
            "display_name": inst.display_name,
            "country_code": inst.country_code,
            "type": inst.type,
            "type_id": f"https://openalex.org/institution-types/{inst.type}",
            "lineage": [iid],
            "homepage_url": None,
            "image_url": None,
            "image_thumbnail_url": None,
            "display_name_acronyms": acronyms,
            "display_name_alternatives": alternatives,
            "repositories": [],
            "works_count": len(works),
            "cited_by_count": sum(w.cited_by_count for w in works),
            "summary_stats": {"2yr_mean_citedness": 0.0, "h_index": 0, "i10_index": 0},
            "ids": {"openalex": iid, "ror": inst.ror, "grid": None, "wikipedia": None, "wikidata": None},
            "geo": {"city": None, "geonames_city_id": None, "region": None, "country_code": inst.country_code,
                    "country": _COUNTRIES.get(inst.country_code), "latitude": None, "longitude": None},
            "international": {},
            "associated_institutions": [],
            "counts_by_year": [
                {"year": y, "works_count": c[0], "oa_works_count": c[0], "cited_by_count": c[1]}
                for y, c in sorted(by_year.items(), reverse=True)
            ],
            "roles": [{"role": "institution", "id": iid, "works_count": len(works)}],
            "topics": [],
            "topic_share": [],
            "is_super_system": False,
            "works_api_url": f"https://api.openalex.org/works?filter=institutions.id:{inst.institution_id}",
            "updated_date": f"{today.isoformat()}T00:00:00",
            "created_date": "2016-06-24T00:00:00",
        }
