"""`wove sandbox ARGS`: serve the sandbox upstreams (the sandbox's own parser reads ARGS)."""

from __future__ import annotations

import argparse


def _cmd_sandbox(args: argparse.Namespace) -> int:
    from wove_pipeline.sandbox.__main__ import main as sandbox_main
    rest = args.rest[1:] if args.rest[:1] == ["--"] else args.rest
    return sandbox_main(rest)


def add_commands(sub) -> None:
    # `wove sandbox ARGS` hands ARGS to the sandbox's own parser (cli.main inserts `--` before
    # them), so `wove sandbox --help` lists the sandbox's real options.
    sandbox = sub.add_parser("sandbox", add_help=False,
                             help="serve the sandbox upstream (--port, --seed, ...: `wove sandbox --help`)")
    sandbox.add_argument("rest", nargs=argparse.REMAINDER)
    sandbox.set_defaults(func=_cmd_sandbox)
