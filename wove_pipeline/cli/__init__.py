"""The `wove` command: the embedded default, the demo, the UI, and the tools around them."""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import subprocess
import sys
import time

from wove_pipeline.database.embedded import mask_url

DEMO_DAYS = 7
SANDBOX_CATCH_UP_DAYS = 45


def _cmd_demo(args: argparse.Namespace) -> int:
    import dagster as dg

    from wove_pipeline.cli.progress import Progress
    from wove_pipeline.cli.runtime import bring_up, sandbox_partitions_env
    from wove_pipeline.sandbox.generator import generate_world

    # Stage lines (with counts and seconds) go to stderr as the work goes; the summary to stdout.
    progress = Progress()
    progress.line("setup", f"generating the sandbox world (seed {args.seed}) ...")
    world = generate_world(seed=args.seed)
    progress.line("setup", f"sandbox world: {len(world.papers):,} papers over {world.start_day} .. {world.end_day}")
    last = world.start_day + dt.timedelta(days=args.days - 1)
    # The sandbox clock sits weeks after the harvested days, as when a pipeline catches up:
    # the upstreams have indexed most (not all) of those papers by then.
    today = world.end_day + dt.timedelta(days=SANDBOX_CATCH_UP_DAYS)
    os.environ.update(sandbox_partitions_env(world))
    progress.line("setup", "starting the embedded PostgreSQL and the sandbox upstreams ...")
    with bring_up(world=world, serve_sandbox=True, sandbox_today=today) as env:
        progress.line("setup", "database migrated, sandbox serving, Dagster instance ready")
        print(f"serving database: {mask_url(env.urls.serving)}")
        print(f"sandbox arXiv:    {env.exported['ARXIV_OAI_URL']}")
        from wove_pipeline.cli.report import print_summary
        from wove_pipeline.cli.runner import run_pipeline
        with dg.DagsterInstance.get() as instance:
            run_pipeline(instance, world.start_day, last, progress=progress)
        progress.line("done", f"{args.days} sandbox days through every stage in {progress.elapsed():.1f} s")

        print_summary(env.urls.serving, world.start_day, last)
    return 0


def _port_in_use(host: str, port: int) -> str | None:
    """Why the webserver could not listen on host:port (None: it can). Binds as the webserver
    does (SO_REUSEADDR), so a port another process listens on is refused and a closed one is not."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return f"cannot resolve {host}: {exc.strerror}"
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


UI_STOP_GRACE_S = 30


def _cmd_ui(args: argparse.Namespace) -> int:
    import signal

    from wove_pipeline.cli.runtime import REPO_ROOT, bring_up, sandbox_partitions_env
    from wove_pipeline.cli.support import CliError
    from wove_pipeline.sandbox.generator import generate_world
    from wove_pipeline.settings import wove_home

    # Before anything starts: a busy port would let the webserver fail after the database,
    # the sandbox and the daemon are up (and leave them running).
    problem = _port_in_use(args.host, args.port)
    if problem:
        raise CliError(f"cannot serve the UI on {args.host}:{args.port}: {problem} "
                       f"(another wove ui?); choose another port with --port", exit_code=2)
    world = generate_world(seed=args.seed) if not args.no_sandbox else None
    today = world.end_day + dt.timedelta(days=SANDBOX_CATCH_UP_DAYS) if world else None
    if world is not None:
        os.environ.update(sandbox_partitions_env(world))  # the UI offers the sandbox's days
    stop_signal: list[int] = []

    def stop(signum, _frame):  # SIGTERM / SIGINT: stop dagster dev, then the sandbox and database
        stop_signal.append(signum)
        if len(stop_signal) == 1 and child is not None and child.poll() is None:
            child.send_signal(signal.SIGINT)  # dagster dev stops its webserver and daemon on SIGINT

    child: subprocess.Popen | None = None
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        with bring_up(world=world, serve_sandbox=world is not None, sandbox_today=today) as env:
            if stop_signal:
                return 0
            home = env.exported["DAGSTER_HOME"]
            cmd = [sys.executable, "-m", "dagster", "dev", "-w", str(REPO_ROOT / "workspace.yaml"),
                   "-h", args.host, "-p", str(args.port)]
            # Run from DAGSTER_HOME, where dagster.yaml was copied (from the repository root,
            # dagster dev warns that the folder's own dagster.yaml is not used). Its own process
            # group: a terminal's Ctrl-C reaches wove only, which stops it once, in order.
            child = subprocess.Popen(cmd, cwd=home, env={**os.environ, "WOVE_HOME": str(wove_home())},
                                     process_group=0)
            print(f"Dagster UI on http://{args.host}:{args.port} (Ctrl-C stops it, the sandbox and the database)",
                  flush=True)
            deadline = None
            while True:
                try:
                    code = child.wait(timeout=0.5)
                    break
                except subprocess.TimeoutExpired:
                    if stop_signal:
                        deadline = deadline or time.monotonic() + UI_STOP_GRACE_S
                        if time.monotonic() > deadline:  # did not stop in time
                            os.killpg(child.pid, signal.SIGKILL)
            return 0 if stop_signal else code
    finally:
        if child is not None and child.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _cmd_db(args: argparse.Namespace) -> int:
    from wove_pipeline.cli.runtime import bring_up
    env = bring_up()
    print(json.dumps({"serving": mask_url(env.urls.serving), "dagster": mask_url(env.urls.dagster)}, indent=2))
    if args.action == "shell":
        from wove_pipeline.database.embedded import psql_path
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
        ("wove_pipeline.cli.matching", "add_matching_commands"),
        ("wove_pipeline.cli.search", "add_search_commands"),
        ("wove_pipeline.cli.show", "add_show_commands"),
        ("wove_pipeline.serving.server", "add_serve_commands"),
        ("wove_pipeline.cli.backup", "add_backup_commands"),
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
    # A private XDG_RUNTIME_DIR for this command and what it starts (dagster dev, psql),
    # instead of platformdirs' warning on every command (embedded_pg.ensure_runtime_dir).
    from wove_pipeline.database.embedded import ensure_runtime_dir
    ensure_runtime_dir()
    if argv[:1] == ["sandbox"]:
        argv = ["sandbox", "--", *argv[1:]]  # every option is the sandbox's (see build_parser)
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
        if os.environ.get("WOVE_DEBUG") == "1":
            raise
        from wove_pipeline.cli.support import explain
        print(f"{_command_name(args)}: {explain(exc)}", file=sys.stderr)
        return int(getattr(exc, "exit_code", 1) or 1)


if __name__ == "__main__":
    sys.exit(main())
