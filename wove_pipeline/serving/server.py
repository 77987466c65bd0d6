"""`wove serve`: the site's read API as a long-lived HTTP JSON server.

Every route reads through the read-only serving role (``wove_reader``, docs/data-contract.md):
each pooled connection runs ``SET ROLE wove_reader`` and read-only transactions, whatever
login the URL names, so the server can read nothing the public site could not. Paper search
goes through ``serving.search_papers`` (SECURITY DEFINER, as for any consumer) with the
embedding model loaded once at start; pages are ``core/serving.py``'s payloads, the same
JSON ``wove show`` prints.

Routes (GET; JSON answers; errors are ``{"error": CODE, "message": TEXT}`` with 400 for a
bad parameter, 404 for an unknown id or path, 405 for another method, 503 when the
database is unreachable):

    /search?q=Q[&category=C ...][&from=D][&until=D][&limit=N]   hybrid paper search, with the relevance floor
    /search/researchers?q=Q[&limit=N], /search/institutions?q=Q[&limit=N]   name search
    /papers/KEY[?site_url=...]             paper page (id, old id, slug)
    /papers/KEY/related[?limit=N]          related papers (by embedding)
    /researchers/KEY[?category=C][&page=N] researcher page (id or id-slug; retired ids resolve)
    /institutions/KEY                      institution page (id, slug, ROR id or URL, name)
    /latest[?limit=N]                      newest papers (the RSS feed's records)
    /health                                the publication served
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import queue
import re
import sys
import threading
import time
from collections.abc import Iterator
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import orjson
import psycopg
from psycopg import sql

from wove_pipeline.database import access as db
from wove_pipeline.search import query as search
from wove_pipeline.serving import publish as serving

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
POOL_SIZE = 4
STATEMENT_TIMEOUT_MS = 10_000
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


def _default(obj: Any) -> Any:
    if isinstance(obj, decimal.Decimal):
        return int(obj) if obj == obj.to_integral_value() else float(obj)
    if hasattr(obj, "isoformat"):
        return obj.isoformat()
    return str(obj)


def to_json_bytes(payload: Any) -> bytes:
    """JSON bytes of a payload, dates and timestamps in ISO 8601 (as ``wove show``)."""
    return orjson.dumps(payload, default=_default, option=orjson.OPT_NON_STR_KEYS)


# ---------------------------------------------------------------------------------------
# read-only connections


class ReaderPool:
    """A few connections to the serving database, each switched to the read-only role.

    Autocommit: every statement is its own read-only transaction, so no pooled connection
    sits idle in a transaction (a publish's swap waits for readers still on the old schema).
    A connection that fails is dropped and the next request opens a new one."""

    def __init__(self, url: str, size: int = POOL_SIZE, role: str = serving.READER_ROLE):
        self.url, self.size, self.role = url, size, role
        self._idle: queue.LifoQueue[psycopg.Connection] = queue.LifoQueue()
        self._slots = threading.BoundedSemaphore(size)
        self._closed = False

    def _open(self) -> psycopg.Connection:
        conn = db.connect(self.url, autocommit=True)
        try:
            conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(self.role)))
            conn.execute("SET default_transaction_read_only = on")
            conn.execute("SELECT set_config('statement_timeout', %s, false)", (str(STATEMENT_TIMEOUT_MS),))
        except BaseException:
            conn.close()
            raise
        return conn

    @contextlib.contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        if not self._slots.acquire(timeout=30):
            raise ApiError(503, "unavailable", "the server is busy: no database connection free")
        conn = None
        try:
            try:
                conn = self._idle.get_nowait()
            except queue.Empty:
                conn = self._open()
            yield conn
        except psycopg.OperationalError:
            if conn is not None:
                conn.close()
            conn = None
            raise
        finally:
            if conn is not None:
                if self._closed or conn.closed or conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                    conn.close()
                else:
                    self._idle.put(conn)
            self._slots.release()

    def close(self) -> None:
        self._closed = True
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                return


def _publication(conn: psycopg.Connection) -> dict:
    """The publication served (what /health answers)."""
    return db.fetch_all(conn, "SELECT publication_id, published_at, schema_version, as_of FROM serving.publication")[0]


def check_database(pool: ReaderPool) -> dict:
    """At start: the database is reachable, published, readable by the role and by nothing
    more (no USAGE on the core schema); returns the publication served."""
    from wove_pipeline.cli.support import CliError, describe_url
    try:
        with pool.connection() as conn:
            if db.fetch_value(conn, "SELECT to_regclass('serving.publication')") is None:
                raise CliError(f"nothing is published in the serving {describe_url(pool.url)} yet (or {pool.role} "
                               "cannot read it): materialize the `serving` asset, or run `wove demo`")
            if db.fetch_value(conn, "SELECT has_schema_privilege('wove', 'USAGE')"):
                raise CliError(f"role {pool.role} can read the core schema wove: it must read serving only "
                               "(docs/data-contract.md, The role)")
            return _publication(conn)
    except psycopg.errors.InsufficientPrivilege as exc:
        raise CliError(f"cannot switch to the read-only role {pool.role} in the serving {describe_url(pool.url)}: "
                       f"{str(exc).strip().splitlines()[0]} (use a login in {pool.role}, see "
                       "serving.create_reader_login, or GRANT it to this login)") from None
    except psycopg.errors.InvalidParameterValue as exc:
        raise CliError(f"the read-only role {pool.role} does not exist in the serving {describe_url(pool.url)}: "
                       f"{str(exc).strip().splitlines()[0]} (run `wove db migrate`)") from None
    except psycopg.OperationalError as exc:
        raise CliError(f"cannot connect to the serving {describe_url(pool.url)}: "
                       f"{str(exc).strip().splitlines()[0]} (check WOVE_DATABASE_URL)") from None


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
                pub = _publication(conn)
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
            payload = serving.paper_page(conn, key, site_url=self.site_url)
        if payload is None:
            raise not_found(f"paper {key!r} not found (not in the corpus yet: harvesting is continuous, newest first)")
        return payload

    def related(self, key: str, query: str) -> dict:
        p = Params(query, {"limit"})
        limit = p.integer("limit", 10, 1, search.MAX_LIMIT)
        with self.pool.connection() as conn:
            route = serving.resolve_paper(conn, key)
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
            route = serving.resolve_researcher(conn, key)
            payload = None if route is None else serving.researcher_page(
                conn, route["researcher_id"], category=category, page=page, requested=key)
        if payload is None:
            raise not_found(f"researcher {key!r} not found")
        return payload

    def institution(self, key: str, query: str) -> dict:
        Params(query, set())
        with self.pool.connection() as conn:
            payload = serving.institution_page(conn, key, site_url=self.site_url)
        if payload is None:
            raise not_found(f"institution {key!r} not found")
        return payload

    def latest(self, query: str) -> dict:
        p = Params(query, {"limit"})
        limit = p.integer("limit", 50, 1, LATEST_MAX)
        with self.pool.connection() as conn:
            items = serving.latest_papers(conn, limit)
        return {"limit": limit, "count": len(items), "results": items}

    @staticmethod
    def _records(conn, ids: list[str]) -> dict[str, dict]:
        if not ids:
            return {}
        return dict(conn.execute("SELECT arxiv_id, record FROM serving.papers WHERE arxiv_id = ANY(%s)",
                                 (ids,)).fetchall())


# ---------------------------------------------------------------------------------------
# HTTP


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: a site's backend reuses its connections
    # headers and body go out as two writes: with Nagle's algorithm the body waits for the
    # client's delayed ACK (~40 ms a response on Linux)
    disable_nagle_algorithm = True
    server_version = "wove-serve"
    sys_version = ""
    app: App  # set on the subclass make_server builds
    quiet: bool = False

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        started = time.perf_counter()
        self.app.embedder.timing.encode_ms = None
        status, payload = self._dispatch()
        body = to_json_bytes(payload)
        self.send_response(status)
        encode_ms = self.app.embedder.timing.encode_ms
        timing = f"app;dur={(time.perf_counter() - started) * 1000:.1f}"
        self.send_header("Server-Timing", timing if encode_ms is None else f"embed;dur={encode_ms:.1f}, {timing}")
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store" if status >= 400 else "public, max-age=60")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)
        self.log_request(status, took_ms=(time.perf_counter() - started) * 1000)

    def _dispatch(self) -> tuple[int, Any]:
        try:
            parts = urlsplit(self.path)
            return self.app.handle(parts.path, parts.query)
        except ApiError as exc:
            return exc.status, {"error": exc.code, "message": exc.message}
        except UnicodeDecodeError:
            return 400, {"error": "bad_request", "message": "the path is not UTF-8"}
        except psycopg.OperationalError as exc:
            self.log_error("database unavailable: %s", str(exc).strip().splitlines()[0] if str(exc).strip() else exc)
            return 503, {"error": "unavailable", "message": "the database is unavailable; try again shortly"}
        except Exception as exc:  # never a traceback to the client
            self.log_error("internal error: %s: %s", type(exc).__name__, exc)
            return 500, {"error": "internal", "message": "internal error (logged on the server)"}

    def _send_json_error(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        # Closes the connection: a request body this server does not read must not be taken
        # for the next request on a kept-alive connection.
        body = to_json_bytes({"error": code, "message": message})
        self.close_connection = True
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.log_request(status)

    def _not_allowed(self) -> None:
        self._send_json_error(405, "method_not_allowed", f"{self.command} is not served: GET only", {"Allow": "GET"})

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own errors (a malformed request line, an unknown method) as JSON too."""
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "error"
        self._send_json_error(code, phrase.lower().replace(" ", "_"), message or phrase)

    do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _not_allowed  # noqa: N815

    def log_request(self, code: int | str = "-", size: int | str = "-", took_ms: float | None = None) -> None:
        if not self.quiet:
            extra = f" {took_ms:.1f} ms" if took_ms is not None else ""
            sys.stderr.write(f"{self.address_string()} \"{self.requestline}\" {code}{extra}\n")

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's signature)
        sys.stderr.write(f"wove serve: {format % args}\n")

    def send_response(self, code: int, message: str | None = None) -> None:
        # do_GET logs once the body is written (with the time), not when the status line goes out
        self.send_response_only(code, message)
        self.send_header("Server", self.version_string())
        self.send_header("Date", self.date_time_string())


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, handler, pool: ReaderPool):
        super().__init__(address, handler)
        self.pool = pool

    def server_close(self) -> None:
        super().server_close()
        self.pool.close()


def make_server(url: str, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, embedder=None,
                floor: float | None = search.RELEVANCE_FLOOR, site_url: str = "", pool_size: int = POOL_SIZE,
                quiet: bool = False) -> Server:
    """A ready server (bound, not yet serving): the database checked, the model loaded and
    warmed. ``port=0`` picks a free port (``server.server_address``)."""
    pool = ReaderPool(url, pool_size)
    check_database(pool)
    if embedder is None:
        from wove_pipeline.search.embedding import Embedder
        embedder = Embedder()
    embedder.encode(["warm up"])  # loads the model once, before the first request
    app = App(pool, embedder, floor=floor, site_url=site_url)
    handler = type("BoundHandler", (Handler,), {"app": app, "quiet": quiet})
    try:
        return Server((host, port), handler, pool)
    except OSError:
        pool.close()
        raise


# ---------------------------------------------------------------------------------------
# the command


def _port(value: str) -> int:
    import argparse

    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {value!r}") from None
    if not 0 <= n <= 65535:
        raise argparse.ArgumentTypeError("must be between 0 and 65535 (0: any free port)")
    return n


def _connections(value: str) -> int:
    import argparse

    if not value.isdigit() or not 1 <= int(value) <= 64:
        raise argparse.ArgumentTypeError(f"must be an integer between 1 and 64, not {value!r}")
    return int(value)


def _floor(value: str) -> float:
    import argparse

    try:
        f = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not -1.0 <= f <= 1.0:
        raise argparse.ArgumentTypeError("must be a cosine similarity between -1 and 1")
    return f


def _cmd_serve(args) -> int:
    from wove_pipeline.cli.runtime import serving_database_url
    from wove_pipeline.cli.support import CliError
    with serving_database_url() as url:
        try:
            server = make_server(url, host=args.host, port=args.port, site_url=args.site_url,
                                 pool_size=args.connections, quiet=args.quiet, floor=args.relevance_floor)
        except OSError as exc:
            raise CliError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
        host, port = server.server_address[:2]
        print(f"wove serve: http://{host}:{port}/ (read-only as {serving.READER_ROLE}; Ctrl-C stops it)",
              flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
    return 0


def add_serve_commands(subparsers) -> None:
    p = subparsers.add_parser(
        "serve", help="serve the site's read API (search, related papers, pages) as HTTP JSON",
        description="A long-lived HTTP JSON server over the published serving schema, read-only as "
                    f"{serving.READER_ROLE}; the embedding model loads once at start. Routes: /search?q=, "
                    "/search/researchers?q=, /search/institutions?q=, /papers/ID, /papers/ID/related, "
                    "/researchers/ID, /institutions/ID, /latest, /health.",
    )
    p.add_argument("--host", default=DEFAULT_HOST,
                   help=f"address to listen on (default {DEFAULT_HOST}, loopback only; 0.0.0.0 for every interface)")
    p.add_argument("--port", type=_port, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free port)")
    p.add_argument("--connections", type=_connections, default=POOL_SIZE,
                   help=f"database connections kept open (default {POOL_SIZE})")
    p.add_argument("--relevance-floor", type=_floor, default=search.RELEVANCE_FLOOR, metavar="COS",
                   help=f"paper search drops vector hits below this cosine similarity to the query "
                        f"(default {search.RELEVANCE_FLOOR}, measured: bench/RESULTS.md 'Relevance floor'; -1 keeps all)")
    p.add_argument("--site-url", default="", help="prefix for absolute URLs in structured data")
    p.add_argument("--quiet", action="store_true", help="no access log on stderr")
    p.set_defaults(func=_cmd_serve)
