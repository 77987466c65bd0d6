"""`wove db` (start the database, migrate, print the URLs, stop) and `wove up` (start the
database and the sandbox upstreams, print what a second shell needs, keep them running)."""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import threading

from wove_pipeline import settings
from wove_pipeline.database.embedded import mask_url


def _cmd_db(args: argparse.Namespace) -> int:
    from wove_pipeline.cli.runtime import bring_up
    env = bring_up()
    print(json.dumps({"serving": mask_url(env.urls.serving), "dagster": mask_url(env.urls.dagster)}, indent=2))
    if args.action == "shell":
        from wove_pipeline.database.embedded import psql_path
        subprocess.call([psql_path(), env.urls.serving])
    env.close()
    return 0


def second_shell_exports(exported: dict[str, str]) -> list[str]:
    """`export NAME=VALUE` lines for what `wove up` started (passwords masked: the embedded
    URLs name the password file, never the password)."""
    values = {"WOVE_HOME": str(settings.wove_home()), **exported}
    return [f"export {name}={shlex.quote(mask_url(value) if name.endswith('_URL') else value)}"
            for name, value in values.items()]


def _cmd_up(args: argparse.Namespace) -> int:
    import signal

    from wove_pipeline.cli.demo import sandbox_today
    from wove_pipeline.cli.runtime import bring_up, sandbox_partitions_env

    stopping = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stopping.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        world = None
        partitions: dict[str, str] = {}
        if not args.no_sandbox:
            from wove_pipeline.sandbox.generator import generate_world
            world = generate_world(seed=args.seed)
            partitions = sandbox_partitions_env(world)
            settings.export(partitions)
        with bring_up(world=world, serve_sandbox=world is not None,
                      sandbox_today=sandbox_today(world) if world else None) as env:
            started = "the embedded PostgreSQL" if env.embedded is not None else "nothing (the database is external)"
            if world is not None:
                started += f" and the sandbox upstreams (seed {args.seed}, days {world.start_day}..{world.end_day})"
            lines = [f"# wove up: {started} running; Ctrl-C or SIGTERM stops {'them' if world else 'it'}.",
                     "# In a second shell, these variables point wove and dagster at them "
                     "(e.g. `wove ui --no-sandbox`, `wove backfill FROM TO`, `wove search ...`):",
                     *second_shell_exports({**env.exported, **partitions})]
            print("\n".join(lines), flush=True)
            while not stopping.wait(0.5):
                pass
            print("# wove up: stopping", file=sys.stderr, flush=True)
        return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def add_commands(sub) -> None:
    dbp = sub.add_parser("db", help="start the embedded database, apply migrations, print the URLs, stop it "
                                    "(`wove up` keeps it running)")
    dbp.add_argument("action", choices=["migrate", "shell"], nargs="?", default="migrate",
                     help="migrate: apply migrations and print the URLs (default); shell: then open psql")
    dbp.set_defaults(func=_cmd_db)

    up = sub.add_parser("up", help="start the embedded database (and the sandbox upstreams), print the variables "
                                   "a second shell needs, keep running until Ctrl-C / SIGTERM",
                        description="Long-lived: starts the embedded PostgreSQL (migrated, the Dagster instance "
                                    "prepared) and, unless --no-sandbox, the sandbox upstreams on loopback; prints "
                                    "`export` lines for a second shell (never a password) and runs until Ctrl-C or "
                                    "SIGTERM, then stops them.")
    up.add_argument("--no-sandbox", action="store_true",
                    help="start the database only (the pipeline then uses the upstream URLs of its environment)")
    up.add_argument("--seed", type=int, default=7, help="sandbox world seed (default 7)")
    up.set_defaults(func=_cmd_up)
