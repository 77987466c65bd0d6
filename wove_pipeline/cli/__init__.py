"""The `wove` command: the embedded default, the demo, the UI, and the tools around them.

The one command-line entry point of wove (`wove = wove_pipeline.cli:main`, and `python -m
wove_pipeline.cli`). Every subcommand lives in a module of this package and is registered
in COMMANDS below, each module's hook adding its subparsers.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# (module, hook): hook(subparsers) adds that module's commands; `wove --help` lists them in this order.
COMMANDS = (
    ("wove_pipeline.cli.demo", "add_commands"),
    ("wove_pipeline.cli.ui", "add_commands"),
    ("wove_pipeline.cli.db", "add_commands"),
    ("wove_pipeline.cli.backfill", "add_commands"),
    ("wove_pipeline.cli.sandbox", "add_commands"),
    ("wove_pipeline.cli.matching", "add_matching_commands"),
    ("wove_pipeline.cli.search", "add_search_commands"),
    ("wove_pipeline.cli.show", "add_show_commands"),
    ("wove_pipeline.cli.serve", "add_commands"),
    ("wove_pipeline.cli.backup", "add_backup_commands"),
    ("wove_pipeline.cli.bulk", "add_bulk_commands"),
)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("wove-pipeline")
    except PackageNotFoundError:
        return "(not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="wove", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    for module, hook in COMMANDS:
        getattr(importlib.import_module(module), hook)(sub)
    return parser


def _command_name(args: argparse.Namespace) -> str:
    return " ".join(["wove", *(getattr(args, k) for k in ("command", "matching_command")
                               if isinstance(getattr(args, k, None), str))])


def main(argv: list[str] | None = None) -> int:
    from wove_pipeline import settings
    argv = sys.argv[1:] if argv is None else list(argv)
    # A private XDG_RUNTIME_DIR for this command and what it starts (dagster dev, psql),
    # instead of platformdirs' warning on every command (embedded.ensure_runtime_dir).
    from wove_pipeline.database.embedded import ensure_runtime_dir
    ensure_runtime_dir()
    if argv[:1] == ["sandbox"]:
        argv = ["sandbox", "--", *argv[1:]]  # every option is the sandbox's (cli/sandbox.py)
    parser = build_parser()
    if argv[:1] == ["search"]:
        from wove_pipeline.cli.search import parse_search_args
        args = parse_search_args(parser, argv)
    else:
        args = parser.parse_args(argv)
    # Every error a person can cause ends in one line on stderr and a non-zero exit;
    # WOVE_DEBUG=1 shows the traceback instead.
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print(f"{_command_name(args)}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if settings.debug():
            raise
        from wove_pipeline.cli.support import explain
        print(f"{_command_name(args)}: {explain(exc)}", file=sys.stderr)
        return int(getattr(exc, "exit_code", 1) or 1)
