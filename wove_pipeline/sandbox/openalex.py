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
from collections import Counter, defaultdict
from typing import Callable
from urllib.parse import unquote, urlencode

from wove_pipeline.sandbox.endpoint import Request, Response
from wove_pipeline.sandbox.openalex_records import (
    OpenAlexRecords,
    bare_doi,
    bare_orcid,
    bare_ror,
    short_id,
)
from wove_pipeline.sandbox.world import World

LIST_CALL_USD = 0.0001  # $0.10 per 1,000 list/filter calls (2026 pricing)
PER_PAGE_MAX = 100
BASIC_PAGING_MAX_RESULTS = 10_000
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


class _ApiError(Exception):
    def __init__(self, status: int, error: str, message: str):
        super().__init__(message)
        self.status, self.error, self.message = status, error, message


def _invalid(message: str) -> _ApiError:
    return _ApiError(400, "Invalid query parameters error.", message)


class OpenAlexEndpoint(OpenAlexRecords):
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
        self.require_api_key = require_api_key
        self.max_or_values = max_or_values
        # Budget in credits of one list call each, so there is no float drift.
        self.daily_credits = None if daily_budget_usd is None else int(round(daily_budget_usd / LIST_CALL_USD))
        self.clock = clock  # wall clock, only for the time of day in X-RateLimit-Reset
        # Upstream drift: select fields this API no longer accepts ("is_authors_truncated",
        # or "works.is_authors_truncated" for one entity), refused with the real 400.
        self.refused_fields: set[str] = set()
        self.calls: Counter[str] = Counter()
        self._spent: dict[str | None, int] = defaultdict(int)  # credits used today, per api_key
        self._budget_day: dt.date | None = None
        super().__init__(world)

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
                found = self.work_by_doi.get(bare_doi(ident))
            else:
                found = short_id(ident)
            if found in self.redirects:
                return self._redirect(entity, self.redirects[found], request)
            if found is not None and self._work_visible(found, today):
                return 200, self._select(self.render_work(found, today, full=True), select), {}
        elif entity == "authors":
            if low.startswith(("orcid:", "https://orcid.org/")):
                found = self.author_by_orcid.get(bare_orcid(ident))
            else:
                found = short_id(ident)
            if found in self.redirects:
                return self._redirect(entity, self.redirects[found], request)
            if self._author_visible(self.world.openalex_authors.get(found), today):
                return 200, self._select(self.render_author(found, today), select), {}
        else:
            if low.startswith(("ror:", "https://ror.org/")):
                found = self.inst_by_ror.get(bare_ror(ident))
            else:
                found = short_id(ident)
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
            return {short_id(v) for v in values}
        if kind == "doi":
            return {w for w in (self.work_by_doi.get(bare_doi(v)) for v in values) if w is not None}
        if kind == "author":
            return {w for v in values for w in self.works_of_author.get(short_id(v), [])}
        return None

    def _matcher(self, entity: str, kind: str, values: list[str]) -> Callable[[str], bool]:
        if kind == "id":
            wanted = {short_id(v) for v in values}
            return lambda x: x in wanted
        if kind == "doi":
            wanted_ids = {self.work_by_doi.get(bare_doi(v)) for v in values}
            return lambda x: x in wanted_ids
        if kind == "author":
            hits = {w for v in values for w in self.works_of_author.get(short_id(v), [])}
            return lambda x: x in hits
        if kind == "orcid":
            wanted = {bare_orcid(v) for v in values}
            return lambda x: bool(self.world.openalex_authors[x].orcid) and bare_orcid(
                self.world.openalex_authors[x].orcid) in wanted
        if kind == "ror":
            wanted = {bare_ror(v) for v in values}
            return lambda x: bare_ror(self.world.institutions[x].ror) in wanted
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


