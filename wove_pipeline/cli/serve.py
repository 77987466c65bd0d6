"""`wove serve`: the site's read API (serving/server.py) as a long-lived HTTP JSON server."""

from __future__ import annotations

import argparse
import signal

from wove_pipeline.database.embedded import READER_ROLE
from wove_pipeline.search.query import RELEVANCE_FLOOR
from wove_pipeline.serving.server import DEFAULT_HOST, DEFAULT_PORT, POOL_SIZE


def _port(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {value!r}") from None
    if not 0 <= n <= 65535:
        raise argparse.ArgumentTypeError("must be between 0 and 65535 (0: any free port)")
    return n


def _connections(value: str) -> int:
    if not value.isdigit() or not 1 <= int(value) <= 64:
        raise argparse.ArgumentTypeError(f"must be an integer between 1 and 64, not {value!r}")
    return int(value)


def _floor(value: str) -> float:
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
    from wove_pipeline.serving.server import make_server
    with serving_database_url() as url:
        try:
            server = make_server(url, host=args.host, port=args.port, site_url=args.site_url,
                                 pool_size=args.connections, quiet=args.quiet, floor=args.relevance_floor)
        except OSError as exc:
            raise CliError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
        host, port = server.server_address[:2]
        print(f"wove serve: http://{host}:{port}/ (read-only as {READER_ROLE}; Ctrl-C stops it)",
              flush=True)
        # Ctrl-C and SIGTERM stop it whatever the parent left: an ignored SIGINT is inherited
        # (a shell's background job starts with SIGINT ignored), and Python keeps it ignored
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
    return 0


def add_commands(subparsers) -> None:
    p = subparsers.add_parser(
        "serve", help="serve the site's read API (search, related papers, pages) as HTTP JSON",
        description="A long-lived HTTP JSON server over the published serving schema, read-only as "
                    f"{READER_ROLE}; the embedding model loads once at start. Routes: /search?q=, "
                    "/search/researchers?q=, /search/institutions?q=, /papers/ID, /papers/ID/related, "
                    "/researchers/ID, /institutions/ID, /latest, /health.",
    )
    p.add_argument("--host", default=DEFAULT_HOST,
                   help=f"address to listen on (default {DEFAULT_HOST}, loopback only; 0.0.0.0 for every interface)")
    p.add_argument("--port", type=_port, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free port)")
    p.add_argument("--connections", type=_connections, default=POOL_SIZE,
                   help=f"database connections kept open (default {POOL_SIZE})")
    p.add_argument("--relevance-floor", type=_floor, default=RELEVANCE_FLOOR, metavar="COS",
                   help=f"paper search drops vector hits below this cosine similarity to the query "
                        f"(default {RELEVANCE_FLOOR}, measured: bench/RESULTS.md 'Relevance floor'; -1 keeps all)")
    p.add_argument("--site-url", default="", help="prefix for absolute URLs in structured data")
    p.add_argument("--quiet", action="store_true", help="no access log on stderr")
    p.set_defaults(func=_cmd_serve)
