"""The `wove` command: the embedded default, the demo, the UI, and the tools around them."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys

from wove_pipeline.core.embedded_pg import mask_url

DEMO_DAYS = 7
SANDBOX_CATCH_UP_DAYS = 45


def _cmd_demo(args: argparse.Namespace) -> int:
    import dagster as dg

    from wove_pipeline.runtime import bring_up
    from wove_pipeline.sandbox.generator import generate_world

    world = generate_world(seed=args.seed)
    last = world.start_day + dt.timedelta(days=args.days - 1)
    # The sandbox clock sits weeks after the harvested days, as when a pipeline catches up:
    # the upstreams have indexed most (not all) of those papers by then.
    today = world.end_day + dt.timedelta(days=SANDBOX_CATCH_UP_DAYS)
    with bring_up(world=world, serve_sandbox=True, sandbox_today=today) as env:
        print(f"serving database: {mask_url(env.urls.serving)}")
        print(f"sandbox arXiv:    {env.exported['ARXIV_OAI_URL']}")
        from wove_pipeline.report import print_summary
        from wove_pipeline.runner import run_pipeline

        with dg.DagsterInstance.get() as instance:
            run_pipeline(instance, world.start_day, last)

        print_summary(env.urls.serving, world.start_day, last)
    return 0


def _cmd_ui(args: argparse.Namespace) -> int:
    from wove_pipeline.runtime import REPO_ROOT, bring_up
    from wove_pipeline.sandbox.generator import generate_world

    world = generate_world(seed=args.seed) if not args.no_sandbox else None
    today = world.end_day + dt.timedelta(days=SANDBOX_CATCH_UP_DAYS) if world else None
    with bring_up(world=world, serve_sandbox=world is not None, sandbox_today=today):
        print(f"Dagster UI on http://{args.host}:{args.port} (Ctrl-C stops it, the sandbox and the database)")
        cmd = [sys.executable, "-m", "dagster", "dev", "-w", str(REPO_ROOT / "workspace.yaml"),
               "-h", args.host, "-p", str(args.port)]
        try:
            return subprocess.call(cmd, cwd=REPO_ROOT, env=os.environ.copy())
        except KeyboardInterrupt:
            return 0


def _cmd_db(args: argparse.Namespace) -> int:
    from wove_pipeline.runtime import bring_up

    env = bring_up()
    print(json.dumps({"serving": mask_url(env.urls.serving), "dagster": mask_url(env.urls.dagster)}, indent=2))
    if args.action == "shell":
        from wove_pipeline.core.embedded_pg import psql_path

        subprocess.call([psql_path(), env.urls.serving])
    env.close()
    return 0


def _cmd_sandbox(args: argparse.Namespace) -> int:
    from wove_pipeline.sandbox.__main__ import main as sandbox_main

    rest = args.rest[1:] if args.rest[:1] == ["--"] else args.rest
    return sandbox_main(rest)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("wove-pipeline")
    except PackageNotFoundError:
        return "(not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="wove", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="run the pipeline on the embedded default against the sandbox world")
    demo.add_argument("--days", type=int, default=DEMO_DAYS, help="sandbox days to materialize")
    demo.add_argument("--seed", type=int, default=7, help="sandbox world seed: the same seed, the same world (default 7)")
    demo.set_defaults(func=_cmd_demo)

    ui = sub.add_parser("ui", help="start the Dagster UI and daemon on the embedded default")
    ui.add_argument("--host", default="127.0.0.1", help="address the webserver listens on (default 127.0.0.1)")
    ui.add_argument("--port", type=int, default=3000, help="webserver port (default 3000)")
    ui.add_argument("--seed", type=int, default=7, help="sandbox world seed (default 7)")
    ui.add_argument("--no-sandbox", action="store_true", help="use the upstream URLs from the environment")
    ui.set_defaults(func=_cmd_ui)

    dbp = sub.add_parser("db", help="start the embedded database, apply migrations, print the URLs")
    dbp.add_argument("action", choices=["migrate", "shell"], nargs="?", default="migrate",
                     help="migrate: apply migrations and print the URLs (default); shell: then open psql")
    dbp.set_defaults(func=_cmd_db)

    # `wove sandbox ARGS` hands ARGS to the sandbox's own parser (main() does, before this
    # parser sees them), so `wove sandbox --help` lists the sandbox's real options.
    sandbox = sub.add_parser("sandbox", add_help=False,
                             help="serve the sandbox upstream (--port, --seed, ...: `wove sandbox --help`)")
    sandbox.add_argument("rest", nargs=argparse.REMAINDER)
    sandbox.set_defaults(func=_cmd_sandbox)

    for module, hook in (
        ("wove_pipeline.core.matching.cli", "add_matching_commands"),
        ("wove_pipeline.core.search_cli", "add_search_commands"),
        ("wove_pipeline.serving_cli", "add_show_commands"),
        ("wove_pipeline.serve", "add_serve_commands"),
        ("wove_pipeline.backup_cli", "add_backup_commands"),
    ):
        try:
            mod = __import__(module, fromlist=[hook])
        except ImportError:
            continue
        getattr(mod, hook)(sub)
    return parser


def _command_name(args: argparse.Namespace) -> str:
    return " ".join(["wove", *(getattr(args, k) for k in ("command", "matching_command")
                               if isinstance(getattr(args, k, None), str))])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["sandbox"]:
        argv = ["sandbox", "--", *argv[1:]]  # every option is the sandbox's (see build_parser)
    parser = build_parser()
    if argv[:1] == ["search"]:
        from wove_pipeline.core.search_cli import parse_search_args

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
        if os.environ.get("WOVE_DEBUG") == "1":
            raise
        from wove_pipeline.cli_support import explain

        print(f"{_command_name(args)}: {explain(exc)}", file=sys.stderr)
        return int(getattr(exc, "exit_code", 1) or 1)


if __name__ == "__main__":
    sys.exit(main())
