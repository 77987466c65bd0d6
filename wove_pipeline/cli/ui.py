"""`wove ui`: the Dagster UI and daemon (dagster dev) on the embedded default, with the
sandbox upstreams unless --no-sandbox; SIGTERM / Ctrl-C stops all of it, in order."""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time

from wove_pipeline import settings

UI_STOP_GRACE_S = 30


def port_in_use(host: str, port: int) -> str | None:
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


def _cmd_ui(args: argparse.Namespace) -> int:
    import signal

    from wove_pipeline.cli.demo import sandbox_today
    from wove_pipeline.cli.runtime import REPO_ROOT, bring_up, sandbox_partitions_env
    from wove_pipeline.cli.support import CliError
    from wove_pipeline.sandbox.generator import generate_world

    # Before anything starts: a busy port would let the webserver fail after the database,
    # the sandbox and the daemon are up (and leave them running).
    problem = port_in_use(args.host, args.port)
    if problem:
        raise CliError(f"cannot serve the UI on {args.host}:{args.port}: {problem} "
                       f"(another wove ui?); choose another port with --port", exit_code=2)
    world = generate_world(seed=args.seed) if not args.no_sandbox else None
    today = sandbox_today(world) if world else None
    if world is not None:
        settings.export(sandbox_partitions_env(world))  # the UI offers the sandbox's days
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
            child = subprocess.Popen(cmd, cwd=home, env=settings.child_environment(WOVE_HOME=str(settings.wove_home())),
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


def add_commands(sub) -> None:
    ui = sub.add_parser("ui", help="start the Dagster UI and daemon on the embedded default")
    ui.add_argument("--host", default="127.0.0.1", help="address the webserver listens on (default 127.0.0.1)")
    ui.add_argument("--port", type=int, default=3000, help="webserver port (default 3000)")
    ui.add_argument("--seed", type=int, default=7, help="sandbox world seed (default 7)")
    ui.add_argument("--no-sandbox", action="store_true",
                    help="use the upstream URLs from the environment (the real APIs by default, or what `wove up` "
                         "exported)")
    ui.set_defaults(func=_cmd_ui)
