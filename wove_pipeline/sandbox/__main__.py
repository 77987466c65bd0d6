"""Serve a sandbox world until killed:

    python -m wove_pipeline.sandbox --port 8765 --seed 7 [--papers-per-day N --days N]
                                    [--start-day YYYY-MM-DD] [--ground-truth DIR]
                                    [--refuse-field openalex:is_authors_truncated ...]

Prints one "name url" line per endpoint, e.g. to export ARXIV_OAI_URL / S2_API_URL /
OPENALEX_API_URL for the pipeline.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import threading
import time

from .generator import generate_world
from .ground_truth import write_ground_truth
from .server import SandboxServer, default_endpoints

ENV_NAMES = {"arxiv": "ARXIV_OAI_URL", "s2": "S2_API_URL", "openalex": "OPENALEX_API_URL"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wove_pipeline.sandbox", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--papers-per-day", type=int, default=250)
    parser.add_argument("--days", type=int, default=10)
    parser.add_argument("--start-day", type=dt.date.fromisoformat, default=dt.date(2025, 8, 4))
    parser.add_argument("--today", type=dt.date.fromisoformat, default=None,
                        help="sandbox clock (default: the day after the last datestamp)")
    parser.add_argument("--ground-truth", metavar="DIR", default=None,
                        help="write persons/authorships jsonl and the S2AND set here")
    parser.add_argument("--refuse-field", action="append", default=[], metavar="ENDPOINT:FIELD",
                        help="refuse this select (openalex) / fields (s2) entry with the API's 400 (repeatable)")
    parser.add_argument("--merge-published", type=float, default=0.0, metavar="SHARE",
                        help="serve this share of the OpenAlex works with a journal DOI as merged into "
                             "their published version (found by that DOI only)")
    args = parser.parse_args(argv)
    refused: dict[str, set[str]] = {}
    for spec in args.refuse_field:
        name, sep, field = spec.partition(":")
        if not sep or name not in ("openalex", "s2") or not field:
            parser.error(f"--refuse-field takes openalex:FIELD or s2:FIELD, not {spec!r}")
        refused.setdefault(name, set()).add(field)

    started = time.perf_counter()
    world = generate_world(args.seed, args.papers_per_day, args.days, args.start_day)
    print(f"world: {len(world.papers)} papers, {len(world.persons)} persons "
          f"({world.start_day}..{world.end_day}) in {time.perf_counter() - started:.1f}s", flush=True)
    if args.ground_truth:
        write_ground_truth(world, args.ground_truth)
        print(f"ground truth: {args.ground_truth}", flush=True)
    server = SandboxServer(world, default_endpoints(world), today=args.today, host=args.host, port=args.port)
    if args.merge_published and "openalex" in server.endpoints:
        merged = server.endpoints["openalex"].merge_published(args.merge_published)
        print(f"openalex: {len(merged)} works merged into their published version", flush=True)
    for name, fields in refused.items():
        server.refuse_fields(name, fields)
        print(f"{name} refuses: {', '.join(sorted(fields))}", flush=True)
    server.start()
    for name in server.endpoints:
        print(f"{ENV_NAMES.get(name, name.upper() + '_URL')}={server.url_for(name)}", flush=True)
    print(f"sandbox clock: {server.today}; Ctrl-C to stop", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
