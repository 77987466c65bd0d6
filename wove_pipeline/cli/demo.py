"""`wove demo`: the sandbox world through every stage on the embedded default, then a summary."""

from __future__ import annotations

import argparse
import datetime as dt

from wove_pipeline import settings
from wove_pipeline.database.embedded import mask_url

DEMO_DAYS = 7
# The sandbox clock sits weeks after the harvested days, as when a pipeline catches up:
# the upstreams have indexed most (not all) of those papers by then.
SANDBOX_CATCH_UP_DAYS = 45


def sandbox_today(world) -> dt.date:
    """The sandbox's 'today' for a world (see SANDBOX_CATCH_UP_DAYS)."""
    return world.end_day + dt.timedelta(days=SANDBOX_CATCH_UP_DAYS)


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
    settings.export(sandbox_partitions_env(world))
    progress.line("setup", "starting the embedded PostgreSQL and the sandbox upstreams ...")
    with bring_up(world=world, serve_sandbox=True, sandbox_today=sandbox_today(world)) as env:
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


def add_commands(sub) -> None:
    demo = sub.add_parser("demo", help="run the pipeline on the embedded default against the sandbox world")
    demo.add_argument("--days", type=int, default=DEMO_DAYS, help="sandbox days to materialize")
    demo.add_argument("--seed", type=int, default=7, help="sandbox world seed: the same seed, the same world (default 7)")
    demo.set_defaults(func=_cmd_demo)
