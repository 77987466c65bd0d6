"""The site's read API as an application, HTTP-free: a path and a query string in, a status
and a JSON-able payload out (``App.handle``); ``server.py`` serves it over HTTP.

Routes (GET; errors are ``ApiError``: 400 for a bad parameter, 404 for an unknown id or
path; ``server.py`` answers 503 when the database is unreachable or no connection is free):

    /search?q=Q[&category=C ...][&from=D][&until=D][&limit=N]   hybrid paper search, with the relevance floor
    /search/researchers?q=Q[&limit=N], /search/institutions?q=Q[&limit=N]   name search
    /papers/KEY[?site_url=...]             paper page (id, old id, slug)
    /papers/KEY/related[?limit=N]          related papers (by embedding)
    /researchers/KEY[?category=C][&page=N] researcher page (id or id-slug; retired ids resolve)
    /institutions/KEY                      institution page (id, slug, ROR id or URL, name)
    /latest[?limit=N]                      newest papers (the RSS feed's records)
    /health                                the publication served

Pages are ``pages.py``'s payloads, the same JSON ``wove show`` prints; paper search goes
through ``serving.search_papers`` with the embedding model loaded once.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote

from psycopg import sql

from wove_pipeline.search import query as search
from wove_pipeline.serving import pages

if TYPE_CHECKING:
    from wove_pipeline.database.reader_pool import ReaderPool

MAX_PAGE = 10_000
LATEST_MAX = 100


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def bad_request(message: str) -> ApiError:
    return ApiError(400, "bad_request", message)


def not_found(message: str) -> ApiError:
    return ApiError(404, "not_found", message)



# ---------------------------------------------------------------------------------------
# parameters


class Params:
    """A query string's parameters: each route says which it takes; anything else is a 400."""

    def __init__(self, query: str, allowed: set[str], repeatable: frozenset[str] = frozenset()):
        try:
            self.values = parse_qs(query, keep_blank_values=True, strict_parsing=False, errors="strict")
        except UnicodeDecodeError:
            raise bad_request("the query string is not UTF-8") from None
        unknown = sorted(set(self.values) - allowed)
        if unknown:
            raise bad_request(f"unknown parameter {unknown[0]!r} (this route takes: "
                              f"{', '.join(sorted(allowed)) or 'none'})")
        for name, vals in self.values.items():
            if len(vals) > 1 and name not in repeatable:
                raise bad_request(f"parameter {name!r} given {len(vals)} times (once at most)")

    def text(self, name: str) -> str | None:
        vals = self.values.get(name)
        return vals[0] if vals else None

    def texts(self, name: str) -> list[str]:
        return list(self.values.get(name, []))

    def integer(self, name: str, default: int, low: int, high: int) -> int:
        raw = self.text(name)
        if raw is None:
            return default
        if not re.fullmatch(r"[+]?\d{1,9}", raw.strip()):
            raise bad_request(f"{name} must be an integer between {low} and {high}, not {raw!r}")
        value = int(raw)
        if not low <= value <= high:
            raise bad_request(f"{name} must be an integer between {low} and {high}, not {value}")
        return value

    def date(self, name: str) -> dt.date | None:
        raw = self.text(name)
        if raw is None or raw == "":
            return None
        try:
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", raw):
                raise ValueError
            return dt.date.fromisoformat(raw)
        except ValueError:
            raise bad_request(f"{name} must be a date YYYY-MM-DD, not {raw!r}") from None



# ---------------------------------------------------------------------------------------
# the application (HTTP-free: path + query -> status, payload)


def _paper_link(record: dict | None) -> dict:
    if record is None:
        return {}
    return {"slug": record["slug"], "url": f"/papers/{record['slug']}"}


class _LockedEmbedder:
    """The model is shared by every request thread; a fast tokenizer is not safe to call from
    two threads at once, so queries are embedded one at a time (a few ms each)."""

    def __init__(self, embedder):
        self.embedder = embedder
        self.config = embedder.config
        self._lock = threading.Lock()
        self.timing = threading.local()  # this thread's last encode, for the Server-Timing header

    def encode(self, texts):
        started = time.perf_counter()
        with self._lock:
            out = self.embedder.encode(texts)
        self.timing.encode_ms = (time.perf_counter() - started) * 1000
        return out


# /search/KIND: the name search and the id column of serving.KIND
_NAME_SEARCH = {"researchers": (search.search_researchers, "researcher_id"),
                "institutions": (search.search_institutions, "institution_id")}


class App:
    def __init__(self, pool: ReaderPool, embedder, *, floor: float | None = search.RELEVANCE_FLOOR,
                 site_url: str = ""):
        self.pool = pool
        self.embedder = _LockedEmbedder(embedder)
        self.floor = floor
        self.site_url = site_url

    def handle(self, path: str, query: str) -> tuple[int, Any]:
        segments = [unquote(s, errors="strict") for s in path.split("/")[1:]]
        if segments and segments[-1] == "" and len(segments) > 1:
            segments = segments[:-1]  # a trailing slash
        head = segments[0] if segments else ""
        if head == "search" and len(segments) == 1:
            return 200, self.search(query)
        if head == "search" and len(segments) == 2 and segments[1] in _NAME_SEARCH:
            return 200, self.search_names(segments[1], query)
        if head == "papers" and len(segments) >= 2:
            rest = segments[1:]
            if len(rest) >= 2 and rest[-1] == "related":
                return 200, self.related("/".join(rest[:-1]), query)
            return 200, self.paper("/".join(rest), query)  # old-style ids carry a '/'
        if head == "researchers" and len(segments) == 2:
            return 200, self.researcher(segments[1], query)
        if head == "institutions" and len(segments) >= 2:
            return 200, self.institution("/".join(segments[1:]), query)  # a ROR URL may carry '/'
        if head == "latest" and len(segments) == 1:
            return 200, self.latest(query)
        if head == "health" and len(segments) == 1:
            Params(query, set())
            with self.pool.connection() as conn:
                pub = pages.served_publication(conn)
            return 200, {"status": "ok", **pub}
        raise not_found(f"no such route: {path} (see /health, /search, /papers/ID, /researchers/ID, "
                        "/institutions/ID)")

    # routes ------------------------------------------------------------------------------

    def search(self, query: str) -> dict:
        p = Params(query, {"q", "category", "from", "until", "limit"}, frozenset({"category"}))
        q = p.text("q")
        if q is None:
            raise bad_request("give a query: /search?q=...")
        limit = p.integer("limit", 24, 1, search.MAX_LIMIT)
        categories = [c for c in p.texts("category") if c != ""] or None
        published_from, published_until = p.date("from"), p.date("until")
        with self.pool.connection() as conn:
            try:
                hits = search.search_papers(
                    conn, self.embedder, q, categories=categories, published_from=published_from,
                    published_until=published_until, limit=limit, min_similarity=self.floor)
            except search.SearchInputError as exc:
                raise bad_request(str(exc)) from None
            records = self._records(conn, [h.arxiv_id for h in hits])
        results = []
        for h in hits:
            record = records.get(h.arxiv_id)
            if record is None:  # in the core tables, not published yet: the site has no page for it
                continue
            results.append({
                "arxiv_id": h.arxiv_id, **_paper_link(record), "title": record["title"],
                "authors": record["authors"], "primary_category": record["primary_category"],
                "categories": record["categories"], "published": record["published"],
                "cited_by_count": record["cited_by_count"], "score": h.score, "similarity": h.similarity,
                "ranks": {"lexical": h.lexical_rank, "vector": h.vector_rank, "title": h.title_rank},
            })
        return {"query": search.clean_query(q), "filters": {"category": categories, "from": published_from,
                                                           "until": published_until},
                "limit": limit, "relevance_floor": self.floor, "count": len(results), "results": results}

    def search_names(self, kind: str, query: str) -> dict:
        p = Params(query, {"q", "limit"})
        q = p.text("q")
        if q is None:
            raise bad_request(f"give a name: /search/{kind}?q=...")
        limit = p.integer("limit", 24, 1, search.MAX_LIMIT)
        find, id_column = _NAME_SEARCH[kind]
        with self.pool.connection() as conn:
            try:
                hits = find(conn, q, limit=limit)
            except search.SearchInputError as exc:
                raise bad_request(str(exc)) from None
            statement = sql.SQL("SELECT {id}, slug FROM {table} WHERE {id} = ANY(%s)").format(
                id=sql.Identifier(id_column), table=sql.Identifier("serving", kind))
            slugs = dict(conn.execute(statement, ([h.id for h in hits],)).fetchall())
        extra = "summary" if kind == "researchers" else "ror"
        results = [{"id": h.id, "display_name": h.display_name, "slug": slugs.get(h.id),
                    "url": f"/{kind}/{slugs[h.id]}" if h.id in slugs else None,
                    "similarity": h.similarity, extra: h.extra} for h in hits]
        return {"query": search.clean_query(q), "limit": limit, "count": len(results), "results": results}

    def paper(self, key: str, query: str) -> dict:
        Params(query, set())
        with self.pool.connection() as conn:
            payload = pages.paper_page(conn, key, site_url=self.site_url)
        if payload is None:
            raise not_found(f"paper {key!r} not found (not in the corpus yet: harvesting is continuous, newest first)")
        return payload

    def related(self, key: str, query: str) -> dict:
        p = Params(query, {"limit"})
        limit = p.integer("limit", 10, 1, search.MAX_LIMIT)
        with self.pool.connection() as conn:
            route = pages.resolve_paper(conn, key)
            if route is None:
                raise not_found(f"paper {key!r} not found (not in the corpus yet)")
            hits = search.related_papers(conn, route["arxiv_id"], limit=limit)
            records = self._records(conn, [h.arxiv_id for h in hits])
        results = [{"arxiv_id": h.arxiv_id, **_paper_link(records[h.arxiv_id]), "title": h.title,
                    "authors": records[h.arxiv_id]["authors"], "primary_category": h.primary_category,
                    "published": h.published, "similarity": h.similarity}
                   for h in hits if h.arxiv_id in records]
        return {"arxiv_id": route["arxiv_id"], "slug": route["slug"], "url": f"/papers/{route['slug']}",
                "limit": limit, "count": len(results), "results": results}

    def researcher(self, key: str, query: str) -> dict:
        p = Params(query, {"category", "page"})
        category = p.text("category") or None
        if category is not None:
            try:
                search._check_categories([category])
            except search.SearchInputError as exc:
                raise bad_request(str(exc)) from None
        page = p.integer("page", 1, 1, MAX_PAGE)
        with self.pool.connection() as conn:
            route = pages.resolve_researcher(conn, key)
            payload = None if route is None else pages.researcher_page(
                conn, route["researcher_id"], category=category, page=page, requested=key)
        if payload is None:
            raise not_found(f"researcher {key!r} not found")
        return payload

    def institution(self, key: str, query: str) -> dict:
        Params(query, set())
        with self.pool.connection() as conn:
            payload = pages.institution_page(conn, key, site_url=self.site_url)
        if payload is None:
            raise not_found(f"institution {key!r} not found")
        return payload

    def latest(self, query: str) -> dict:
        p = Params(query, {"limit"})
        limit = p.integer("limit", 50, 1, LATEST_MAX)
        with self.pool.connection() as conn:
            items = pages.latest_papers(conn, limit)
        return {"limit": limit, "count": len(items), "results": items}

    @staticmethod
    def _records(conn, ids: list[str]) -> dict[str, dict]:
        if not ids:
            return {}
        return dict(conn.execute("SELECT arxiv_id, record FROM serving.papers WHERE arxiv_id = ANY(%s)",
                                 (ids,)).fetchall())
