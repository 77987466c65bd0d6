"""The full re-match job end to end on PostgreSQL: what `full_rematch` costs on a grown archive,
its reads and writes included (bench_matching --streaming times the same streaming core over a
spooled synthetic corpus, without the database).

    .venv/bin/python -m bench.bench_day_after --papers 100000 --people other --keep --no-write
    .venv/bin/python -m bench.bench_full_rematch_db --home /tmp/wove-bench-day-after-XXXX --processes 2,1

``--home``: an archive a ``bench_day_after --keep`` run left (its embedded PostgreSQL is started
again; the archive is re-matched in place, so run it on a copy you can lose). For each
``--processes`` value, the `full_rematch` job as an operator launches it (the multiprocess
executor, ``max_concurrent`` shard steps at once, a fork server), one run after the other:
wall time; each step's seconds (STEP_SUCCESS): the plan (every position's block key and
shard, the corpus statistics), the shard steps (their sum, and the wall from the first shard's
start to the last one's end), the finish (joins across blocks, ids, links, researcher rows,
profiles, matching state); CPU of the job's processes and of the PostgreSQL server; the peak
PSS of the job's processes (sampled every 0.2 s) and the ids the run created and retired.
A second run re-matches the first's output: the same inputs, so the same work.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_day import execute_job, load_average, timed_run  # noqa: E402
from bench.bench_matching import PssSampler  # noqa: E402

SECTION = "Full re-match job on PostgreSQL"


def _archive(url: str) -> dict:
    import psycopg

    with psycopg.connect(url) as conn:
        one = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
        return {"papers": one("SELECT count(*) FROM wove.papers"),
                "positions": one("SELECT count(*) FROM wove.paper_authors"),
                "researchers": one("SELECT count(*) FROM wove.researchers"),
                "largest_block": one("SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM"
                                     " wove.researcher_mentions GROUP BY block) b"),
                "database_gib": one("SELECT pg_database_size(current_database())") / 2**30}


def rematch_job():
    """The job as the code location defines it, with its resources (reconstructed by name)."""
    from wove_pipeline.definitions import defs

    return defs.resolve_job_def("full_rematch")


def run_rematch(processes: int) -> dict:
    import dagster as dg

    run_config = {"execution": {"config": {"max_concurrent": processes, "start_method": {"forkserver": {
        "preload_modules": ["wove_pipeline.definitions"]}}}}}
    # by module name: run as `python -m bench.bench_full_rematch_db`, this module is __main__
    recon = dg.build_reconstructable_job("bench.bench_full_rematch_db", "rematch_job")
    load = load_average()
    with PssSampler() as pss, dg.DagsterInstance.get() as instance:
        run = timed_run(instance, lambda: execute_job(recon, instance, run_config))
    md = run.metadata.get("researchers", {})
    shards = [k for k in run.steps if k.startswith("rematch_shard")]
    return {"processes": processes, "wall_s": run.wall, "cpu_py_s": run.cpu_py, "cpu_pg_s": run.cpu_pg,
            "peak_gib": pss.peak / 2**30, "plan_s": run.steps.get("rematch_plan", 0.0),
            "finish_s": run.steps.get("rematch_finish", 0.0), "shards": len(shards),
            "shard_sum_s": sum(run.steps[k] for k in shards),
            "shard_wall_s": max(run.ended[k] for k in shards) - min(run.started[k] for k in shards) if shards else 0.0,
            "created": md.get("created_ids"), "retired": md.get("retired_ids"), "mentions": md.get("mentions"),
            "researchers": md.get("dagster/row_count"), "load_before": load, "load_after": load_average(),
            "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def render(archive: dict, runs: list[dict]) -> str:
    lines = [
        f"Archive: {archive['papers']:,} papers, {archive['positions']:,} author positions, {archive['researchers']:,}"
        f" researchers, largest name block {archive['largest_block']:,} positions, database {archive['database_gib']:.1f}"
        " GiB (grown by `bench_day_after --keep`, people renamed: `--people other`). Each run is the `full_rematch`"
        " job as launched from the UI or `dagster job launch`, its shards over N processes; a later run"
        " re-matches the earlier's output (same inputs, same work).",
        "",
        "| processes | **wall** | plan s | shard steps: wall s (sum s) | finish s | CPU job s | CPU PostgreSQL s |"
        " **peak PSS, job processes** (GiB) | ids created / retired | load before -> after | date |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for r in runs:
        lines.append(f"| {r['processes']} | **{r['wall_s']:.0f} s** ({r['wall_s'] / 60:.1f} min) | {r['plan_s']:.0f} |"
                     f" {r['shard_wall_s']:.0f} ({r['shard_sum_s']:.0f}) | {r['finish_s']:.0f} | {r['cpu_py_s']:.0f} |"
                     f" {r['cpu_pg_s']:.0f} | **{r['peak_gib']:.2f}** | {r['created']:,} / {r['retired']:,} |"
                     f" {r['load_before']} -> {r['load_after']} | {r['date']} |")
    if len(runs) > 1:
        by = {r["processes"]: r["wall_s"] for r in runs}
        if 1 in by and max(by) > 1:
            lines.append("")
            lines.append(f"{max(by)} processes against 1: **{by[1] / by[max(by)]:.2f}x** faster"
                         f" ({by[max(by)]:.0f} s against {by[1]:.0f} s).")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, required=True, help="an archive a bench_day_after --keep run left")
    ap.add_argument("--processes", default="2,1", help="shard processes of each run, in order")
    ap.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md as it is")
    ap.add_argument("--record", type=Path, help="append each run's figures (JSON lines) to this file")
    args = ap.parse_args(argv)
    for var in ("WOVE_DATABASE_URL", "DAGSTER_PG_URL", "DAGSTER_HOME", "WOVE_DATA_DIR"):
        os.environ.pop(var, None)
    os.environ["WOVE_HOME"] = str(args.home)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from wove_pipeline.cli.runtime import bring_up

    env = bring_up()
    try:
        archive = _archive(env.urls.serving)
        print(f"archive: {archive}", flush=True)
        runs = []
        for n in (int(x) for x in args.processes.split(",")):
            run = run_rematch(n)
            print(json.dumps(run), flush=True)
            if args.record:
                with args.record.open("a") as f:
                    f.write(json.dumps({**run, "archive": archive}) + "\n")
            runs.append(run)
    finally:
        env.close()
    from bench.results import report

    report(SECTION, render(archive, runs), "python -m bench.bench_full_rematch_db " + " ".join(argv or sys.argv[1:]),
           write=not args.no_write)


if __name__ == "__main__":
    main()
