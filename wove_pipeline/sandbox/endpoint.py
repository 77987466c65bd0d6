"""What every sandbox endpoint implements, so one HTTP server can host all three.

The server (``server.py``) owns sockets, routing by path prefix and fault injection; an
endpoint only turns a parsed request into a response, as the real service would.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Protocol


@dataclass
class Request:
    method: str  # "GET" | "POST"
    path: str  # path below the endpoint's prefix, e.g. "/paper/batch" (never empty: "/" at least)
    query: dict[str, list[str]]  # parsed with urllib.parse.parse_qs(keep_blank_values=True)
    headers: dict[str, str]  # names lower-cased
    body: bytes = b""
    client: str = "127.0.0.1"  # remote address, for per-client rate limits


@dataclass
class Response:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)  # Content-Type etc.; Content-Length is added by the server


class Endpoint(Protocol):
    name: str  # "arxiv" | "s2" | "openalex": the key faults are configured under
    prefix: str  # "/oai" | "/s2/graph/v1" | "/openalex"

    def handle(self, request: Request, today: dt.date) -> Response:
        """Answer one request. ``today`` is the sandbox clock (drives coverage lag)."""
        ...
