"""One loopback HTTP server hosting the sandbox endpoints, with switchable faults.

    with SandboxServer(world) as server:          # arXiv OAI-PMH registered by default
        url = server.url_for("arxiv")              # "http://127.0.0.1:PORT/oai"
        server.set_faults("arxiv", FaultPlan(rate_503=0.2, retry_after=0))

Endpoints (see endpoint.py) are routed by path prefix, longest first. The server owns the
sockets, the sandbox clock (``today``), per-endpoint request counters and fault injection;
an endpoint only answers requests.

Faults are drawn per request from a seeded RNG per endpoint, so a single-threaded client
sees the same fault sequence on every run. ``fail_first=N`` makes the first N requests
(after ``set_faults``) fault with ``fail_first_kind``, for tests that need certainty.

Upstream drift: ``refuse_fields("openalex", {"is_authors_truncated"})`` makes an endpoint
refuse those ``select`` (OpenAlex) or ``fields`` (S2) entries with the real API's 400, as
when an upstream stops serving a field; ``refuse_fields(name, ())`` accepts them again.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import signal
import socket
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from .endpoint import Endpoint, Request, Response
from .world import World

FAULT_KINDS = ("429", "503", "500", "timeout", "drop", "truncate", "malformed")


@dataclass
class FaultPlan:
    """Fault rates (0..1, summed, checked in FAULT_KINDS order) for one endpoint."""

    rate_429: float = 0.0
    rate_503: float = 0.0
    rate_500: float = 0.0
    rate_timeout: float = 0.0
    rate_drop: float = 0.0  # close the socket without any response
    rate_truncate: float = 0.0  # full Content-Length, half the body, then close
    rate_malformed: float = 0.0  # 200 with garbage bytes
    retry_after: int = 1  # seconds, sent with 503 (0 keeps tests fast)
    timeout_seconds: float = 2.0  # how long a "timeout" stalls before answering
    fail_first: int = 0  # the first N requests fault deterministically...
    fail_first_kind: str = "503"  # ...with this kind
    seed: int = 0
    latency_s: float = 0.0  # every answer waits this long first: a remote upstream's round trip

    def __post_init__(self) -> None:
        if self.fail_first_kind not in FAULT_KINDS:
            raise ValueError(f"fail_first_kind must be one of {FAULT_KINDS}")
        if self.total_rate() > 1.0 + 1e-9:
            raise ValueError("fault rates sum to more than 1")

    def rates(self) -> list[tuple[str, float]]:
        return [("429", self.rate_429), ("503", self.rate_503), ("500", self.rate_500),
                ("timeout", self.rate_timeout), ("drop", self.rate_drop),
                ("truncate", self.rate_truncate), ("malformed", self.rate_malformed)]

    def total_rate(self) -> float:
        return sum(r for _, r in self.rates())


class _FaultState:
    def __init__(self, plan: FaultPlan):
        self.plan = plan
        self.rng = random.Random(plan.seed)
        self.seen = 0

    def draw(self) -> str | None:
        """The fault for the next request, or None."""
        self.seen += 1
        if self.seen <= self.plan.fail_first:
            return self.plan.fail_first_kind
        x = self.rng.random()
        acc = 0.0
        for kind, rate in self.plan.rates():
            acc += rate
            if x < acc:
                return kind
        return None


def default_endpoints(world: World) -> list[Endpoint]:
    """arXiv OAI-PMH plus the Semantic Scholar and OpenAlex endpoints when importable
    (imported lazily: they live in their own modules and may be absent)."""
    from .arxiv_oai import ArxivOaiEndpoint

    endpoints: list[Endpoint] = [ArxivOaiEndpoint(world)]
    try:
        from .semantic_scholar import SemanticScholarEndpoint

        endpoints.append(SemanticScholarEndpoint(world))
    except ImportError:
        pass
    try:
        from .openalex import OpenAlexEndpoint

        endpoints.append(OpenAlexEndpoint(world))
    except ImportError:
        pass
    return endpoints


class SandboxServer:
    """ThreadingHTTPServer in a daemon thread. ``endpoints=None`` hosts arXiv only; pass
    ``default_endpoints(world)`` for all three."""

    def __init__(self, world: World, endpoints: list[Endpoint] | None = None,
                 today: dt.date | None = None, host: str = "127.0.0.1", port: int = 0):
        if endpoints is None:
            from .arxiv_oai import ArxivOaiEndpoint

            endpoints = [ArxivOaiEndpoint(world)]
        self.world = world
        self.endpoints: dict[str, Endpoint] = {e.name: e for e in endpoints}
        # longest prefix first, so "/s2/graph/v1" wins over a hypothetical "/s2"
        self._routes = sorted(endpoints, key=lambda e: len(e.prefix), reverse=True)
        self.today: dt.date = today or (world.end_day + dt.timedelta(days=1))
        self.host = host
        self._port = port
        self._lock = threading.Lock()
        self.request_counts: dict[str, int] = {name: 0 for name in self.endpoints}
        self.fault_counts: dict[str, dict[str, int]] = {name: {} for name in self.endpoints}
        self._faults: dict[str, _FaultState] = {}
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> "SandboxServer":
        if self._httpd is not None:
            return self
        handler = type("_BoundHandler", (_Handler,), {"sandbox": self})
        self._httpd = ThreadingHTTPServer((self.host, self._port), handler)
        self._httpd.daemon_threads = True
        # a short poll interval keeps stop() fast in tests
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="sandbox-http", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        self._httpd = None
        self._thread = None

    def __enter__(self) -> "SandboxServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("server not started")
        return self._httpd.server_address[1]

    def url_for(self, name: str) -> str:
        return f"http://{self.host}:{self.port}{self.endpoints[name].prefix}"

    # -- faults ---------------------------------------------------------------------------

    def set_faults(self, name: str, plan: FaultPlan | None) -> None:
        """Switch faults for one endpoint at runtime; ``None`` clears them."""
        if name not in self.endpoints:
            raise KeyError(name)
        with self._lock:
            if plan is None:
                self._faults.pop(name, None)
            else:
                self._faults[name] = _FaultState(plan)

    def refuse_fields(self, name: str, fields) -> None:
        """Make endpoint `name` refuse these select/fields entries with its 400 (deterministic:
        every request asking for one of them)."""
        endpoint = self.endpoints[name]
        if not hasattr(endpoint, "refused_fields"):
            raise ValueError(f"endpoint {name!r} has no fields to refuse")
        endpoint.refused_fields = set(fields)

    def _next_fault(self, name: str) -> tuple[str | None, FaultPlan | None]:
        with self._lock:
            self.request_counts[name] += 1
            state = self._faults.get(name)
            if state is None:
                return None, None
            kind = state.draw()
            if kind:
                counts = self.fault_counts[name]
                counts[kind] = counts.get(kind, 0) + 1
            return kind, state.plan

    def _route(self, path: str) -> tuple[Endpoint | None, str]:
        for endpoint in self._routes:
            p = endpoint.prefix
            if path == p or path.startswith(p + "/") or path.startswith(p + "?"):
                return endpoint, path[len(p):] or "/"
        return None, path


class ForkedSandbox:
    """A SandboxServer serving from a forked child process, for benchmarks: the upstreams'
    work (world lookups, JSON encoding) then runs beside the pipeline instead of under the
    pipeline's GIL, and the pipeline's process no longer holds the world (whose millions of
    objects every full garbage collection would walk), as with a remote upstream. Only the
    URLs cross the process boundary; request counters and faults stay in the child, so
    tests that read or switch them use SandboxServer itself. Configure before forking."""

    def __init__(self, server: SandboxServer):
        if server._httpd is not None:
            raise RuntimeError("fork a SandboxServer before starting it")
        self.host = server.host
        self.today = server.today
        self.prefixes = {name: e.prefix for name, e in server.endpoints.items()}
        read_end, write_end = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: serve until terminated
            try:
                os.close(read_end)
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # for sigwait (and the threads)
                server.start()
                os.write(write_end, str(server.port).encode())
                os.close(write_end)  # the parent reads to the end
                signal.sigwait({signal.SIGTERM})
            finally:
                os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as f:
            self.port = int(f.read() or 0)
        if not self.port:
            raise RuntimeError("the forked sandbox did not start")

    def url_for(self, name: str) -> str:
        return f"http://{self.host}:{self.port}{self.prefixes[name]}"

    def stop(self) -> None:
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGTERM)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            self.pid = 0


class _Handler(BaseHTTPRequestHandler):
    sandbox: SandboxServer  # bound per server in start()
    protocol_version = "HTTP/1.1"  # keep-alive: arXiv etiquette is one connection
    server_version = "wove-sandbox"
    sys_version = ""

    def setup(self) -> None:
        super().setup()
        # headers and body go out in separate writes; without TCP_NODELAY every keep-alive
        # request waits ~40 ms on Nagle + delayed ACK
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - quiet test output
        pass

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def _serve(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        endpoint, sub_path = self.sandbox._route(parts.path)
        if endpoint is None:
            self._send(Response(404, b"Not Found", {"Content-Type": "text/plain"}))
            return
        kind, plan = self.sandbox._next_fault(endpoint.name)
        if plan is not None and plan.latency_s:
            time.sleep(plan.latency_s)
        if kind in ("429", "503", "500", "drop"):
            self._fault(kind, plan, endpoint.name)
            return
        if kind == "timeout":
            time.sleep(plan.timeout_seconds)
        request = Request(method=method, path=sub_path,
                          query=parse_qs(parts.query, keep_blank_values=True),
                          headers={k.lower(): v for k, v in self.headers.items()},
                          body=body, client=self.client_address[0])
        try:
            response = endpoint.handle(request, self.sandbox.today)
        except Exception as exc:  # an endpoint bug must show as a 500, not a hung socket
            response = Response(500, f"sandbox endpoint error: {exc!r}".encode(), {"Content-Type": "text/plain"})
        if kind == "truncate":
            self._send(response, truncate=True)
        elif kind == "malformed":
            garbage = b"\x00\xff<<<garbled {" + bytes(range(0x80, 0xa0)) + b" not-" + response.body[:20][::-1]
            self._send(Response(200, garbage, dict(response.headers)))
        else:
            self._send(response)

    def _fault(self, kind: str, plan: FaultPlan, name: str) -> None:
        if kind == "drop":
            # no status line at all: the client sees the connection closed
            self.close_connection = True
            return
        headers = {"Content-Type": "application/json" if name != "arxiv" else "text/plain"}
        if kind == "429":
            # S2 sends 429 without Retry-After; clients must back off on their own
            body = b'{"message": "Too Many Requests. Please wait and try again or apply for a key for higher rate limits.", "code": "429"}'
        elif kind == "503":
            headers["Retry-After"] = str(plan.retry_after)
            body = b"Service Unavailable: retry after the indicated delay"
        else:
            body = b"Internal Server Error"
        self._send(Response(int(kind), body, headers))

    def _send(self, response: Response, truncate: bool = False) -> None:
        self.send_response(response.status)
        for key, value in response.headers.items():
            if key.lower() != "content-length":
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(response.body)))
        if truncate:
            self.send_header("Connection", "close")
        self.end_headers()
        if truncate:
            self.wfile.write(response.body[: len(response.body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(response.body)
