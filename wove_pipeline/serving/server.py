"""`wove serve`'s HTTP side: the read API (``routes.App``) served as a long-lived HTTP JSON
server over a small pool of read-only connections.

Every route reads through the read-only serving role (``wove_reader``, docs/data-contract.md):
each pooled connection runs ``SET ROLE wove_reader`` and read-only transactions, whatever
login the URL names, so the server can read nothing the public site could not. Paper search
goes through ``serving.search_papers`` (SECURITY DEFINER, as for any consumer) with the
embedding model loaded once at start; pages are ``pages.py``'s payloads, the same JSON
``wove show`` prints. The routes are listed in ``routes.py``.

Answers are JSON; errors are ``{"error": CODE, "message": TEXT}`` with 400 for a bad
parameter, 404 for an unknown id or path, 405 for another method, 503 when the database is
unreachable.
"""

from __future__ import annotations

import decimal
import sys
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import orjson
import psycopg

from wove_pipeline.database import access as db
from wove_pipeline.database.reader_pool import PoolBusy, ReaderPool
from wove_pipeline.search import query as search
from wove_pipeline.serving import pages
from wove_pipeline.serving.routes import ApiError, App
from wove_pipeline.serving.tables import READER_ROLE

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
POOL_SIZE = 4
STATEMENT_TIMEOUT_MS = 10_000


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
# read-only connections (database/reader_pool.py)


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
            return pages.served_publication(conn)
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
        except PoolBusy as exc:
            return 503, {"error": "unavailable", "message": str(exc)}
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
    pool = ReaderPool(url, pool_size, READER_ROLE, STATEMENT_TIMEOUT_MS)
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
