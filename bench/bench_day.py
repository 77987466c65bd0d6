"""One realistic arXiv day end to end through every stage, beside the same asset graph with
no-op bodies run in the same process, then the day's embedding on its own.

    .venv/bin/python -m bench.bench_day [--papers-per-day 1700] [--history-days 7] [--no-embedding]
                                        [--executors forkserver,multiprocess]

What it does:

1. Generates a sandbox world of ``history_days + 1`` days ending on a Tuesday (the busiest
   weekday of the generator; with seed 7 and 8 days a holiday falls in the week, so the
   Tuesday gets about 1.5x the mean day): 2,588 OAI records with the defaults. The sandbox clock sits 60 days
   after the last day, so S2 and OpenAlex know most papers (coverage lag).
2. Starts a fresh embedded PostgreSQL in a temporary WOVE_HOME under /tmp, migrates it and
   serves the world on loopback (``wove_pipeline.cli.runtime.bring_up``).
3. History (not timed as the day): the days before it in one range run of the daily assets
   (every one but paper_embeddings), then ``publish``: the benchmarked day lands on a
   database that already holds researchers, as in daily operation.
4. The day: one run of every daily asset but paper_embeddings for that partition, then
   ``publish`` (researchers -> researcher_metrics -> serving), both with
   ``execute_in_process`` and with the asset checks of those assets, as in production.
   Per-step seconds come from the runs' STEP_SUCCESS events in the instance event log.
5. The same asset graph with no-op bodies (same keys, deps, partitions, backfill policies,
   pools, retry policies, resources and check steps; bodies return at once), run the same way
   on the same instance.
6. paper_embeddings for the day alone (texts/s).
7. With ``--executors``: steps 1-5 again in a fresh environment per executor named, the day
   and the no-op graph run with Dagster's multiprocess executor (``EXECUTORS``) instead of in
   the run's process; their walls go side by side with the in-process ones.

The day's figures go to bench/RESULTS.md. The helpers (``BenchEnv``, ``StepTimes``,
``noop_defs``) are reused by bench/bench_backfill.py.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import gc
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dagster as dg  # noqa: E402

RUN_CONFIG = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
EMBEDDINGS = dg.AssetKey("paper_embeddings")
DAILY_ORDER = ["arxiv_records", "papers", "s2_papers", "openalex_works", "s2_authors", "openalex_authors",
               "institutions", "authorships"]
GLOBAL_ORDER = ["researchers", "researcher_metrics", "serving"]
CATCH_UP_DAYS = 60
DAY_BAR_S = 60.0  # issue #8: a realistic day in at most 60 s


def load_average() -> str:
    with open("/proc/loadavg") as f:
        return " / ".join(f.read().split()[:3])


# ----------------------------------------------------------------------------------------
# Definitions: the real graph without embeddings, and the same graph with no-op bodies


def real_defs() -> dg.Definitions:
    """wove's definitions plus two bench jobs: the daily assets but paper_embeddings, and
    paper_embeddings alone. The asset checks of the selected assets run in the same runs."""
    from wove_pipeline import definitions as wd
    daily_keys = [k for a in wd.daily_assets for k in a.keys if k != EMBEDDINGS]
    jobs = [
        dg.define_asset_job("bench_daily", selection=dg.AssetSelection.assets(*daily_keys)),
        dg.define_asset_job("bench_embed", selection=dg.AssetSelection.assets(EMBEDDINGS)),
        dg.define_asset_job("bench_publish", selection=wd.PUBLISH_SELECTION),
    ]
    d = wd.defs
    return dg.Definitions(assets=d.assets, asset_checks=d.asset_checks, resources=d.resources, jobs=jobs)


def noop_defs(real: dg.Definitions) -> dg.Definitions:
    """The same asset graph with no-op bodies: every asset of the bench jobs with its key,
    deps, partitions, backfill policy, pool, retry policy and resources, and one no-op check
    step per real check step with that check's resources. Only the bodies differ: the
    resources are built and the pools' slots claimed as in the real runs."""
    graph = real.resolve_asset_graph()
    check_resources = {key: c.required_resource_keys for c in real.asset_checks for key in c.check_keys}
    wanted = [dg.AssetKey(k) for k in DAILY_ORDER + GLOBAL_ORDER]
    assets, checks = [], []
    for key in wanted:
        node = graph.get(key)
        op = node.assets_def.op
        deps = sorted(node.parent_keys, key=lambda k: k.to_user_string())

        def body(context):
            return dg.MaterializeResult(metadata={"dagster/row_count": 0})

        assets.append(dg.asset(
            key=key, deps=deps, partitions_def=node.partitions_def, backfill_policy=node.backfill_policy,
            pool=op.pool, retry_policy=op.retry_policy,
            required_resource_keys=node.assets_def.required_resource_keys - {"io_manager"}, group_name="noop",
        )(body))
        for check_key in node.check_keys:
            def check_body(context):
                return dg.AssetCheckResult(passed=True)

            checks.append(dg.asset_check(
                asset=key, name=check_key.name, blocking=True,
                # checks the asset yields itself (check specs, e.g. upstream_fields_served) need no resources
                required_resource_keys=check_resources.get(check_key, set()) - {"io_manager"},
            )(check_body))
    # paper_embeddings is a dep of serving but outside the benchmarked graph: an external spec.
    emb = graph.get(EMBEDDINGS)
    externals = [dg.AssetSpec(EMBEDDINGS, deps=list(emb.parent_keys), partitions_def=emb.partitions_def)]
    daily = [k for k in wanted if k.path[0] in DAILY_ORDER]
    jobs = [
        dg.define_asset_job("bench_daily", selection=dg.AssetSelection.assets(*daily)),
        dg.define_asset_job("bench_publish", selection=dg.AssetSelection.assets(*[dg.AssetKey(k) for k in GLOBAL_ORDER])),
    ]
    return dg.Definitions(assets=[*assets, *externals], asset_checks=checks, jobs=jobs, resources=real.resources)


@functools.cache
def bench_defs(kind: str) -> dg.Definitions:
    """The bench jobs' definitions: "real" (real_defs) or "noop" (noop_defs of the real ones)."""
    return real_defs() if kind == "real" else noop_defs(bench_defs("real"))


def bench_job(kind: str, name: str) -> dg.JobDefinition:
    """A bench job by kind and name: what executors that run steps in their own processes
    rebuild it from (dg.build_reconstructable_job points here)."""
    return bench_defs(kind).resolve_job_def(name)


# How the steps of a run are executed. wove ships the in-process executor (definitions.py);
# the others are Dagster's multiprocess executor, measured beside it (--executors): its
# default start method (spawn: every step a fresh Python process that imports everything)
# and a fork server that has Dagster, wove and the bench imported once.
EXECUTORS: dict[str, dict | None] = {
    "in_process": None,
    "multiprocess": {},
    "forkserver": {"start_method": {"forkserver": {"preload_modules": ["dagster", "wove_pipeline.definitions",
                                                                      "bench.bench_day"]}}},
}


# ----------------------------------------------------------------------------------------
# Runs and their step timings


@dataclass
class StepTimes:
    """One run: wall seconds around execute_in_process, per-step seconds (STEP_SUCCESS
    duration) and row counts (dagster/row_count of each materialization)."""

    wall: float
    cpu_py: float = 0.0  # CPU seconds of this (bench) process during the run
    cpu_pg: float = 0.0  # CPU seconds of the PostgreSQL server (postmaster + backends) during the run
    cpu_sandbox: float = 0.0  # CPU seconds of the sandbox upstreams (their own process) during the run
    steps: dict[str, float] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    metadata: dict[str, dict] = field(default_factory=dict)
    started: dict[str, float] = field(default_factory=dict)  # step -> STEP_START time (epoch seconds)
    ended: dict[str, float] = field(default_factory=dict)  # step -> STEP_SUCCESS time

    def asset_seconds(self, asset: str) -> float:
        return self.steps.get(asset, 0.0)

    def check_seconds(self, assets: list[str]) -> float:
        return sum(v for k, v in self.steps.items() if k not in assets)

    def n_checks(self, assets: list[str]) -> int:
        return sum(1 for k in self.steps if k not in assets)


def _py_cpu() -> float:
    """CPU seconds of this process, of its children that ended (the matcher's forked workers,
    the multiprocess executor's step processes) and of the live ones but the sandbox with
    what they reaped (a fork server and its ended step processes); not PostgreSQL."""
    import resource

    own = sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                resource.getrusage(resource.RUSAGE_CHILDREN)))
    ticks = 0
    for children in Path("/proc/self/task").glob("*/children"):
        for child in children.read_text().split():
            if int(child) == SANDBOX_PID:
                continue
            try:
                ticks += sum(int(x) for x in _stat(int(child))[11:15])  # utime stime cutime cstime
            except OSError:
                pass  # ended meanwhile: in RUSAGE_CHILDREN next time
    return own + ticks / os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _pg_cpu() -> float:
    """CPU seconds of the PostgreSQL server under WOVE_HOME: the postmaster with its reaped
    children (backends that exited) plus the live backends. 0 when it cannot be read."""
    try:
        from wove_pipeline.settings import wove_home
        pid = int((wove_home() / "pgdata" / "postmaster.pid").read_text().split()[0])
        f = _stat(pid)
        total = sum(int(x) for x in f[11:15])  # utime stime cutime cstime
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            try:
                c = _stat(int(child))
                total += int(c[11]) + int(c[12])
            except OSError:
                pass
        return total / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


SANDBOX_PID: int | None = None  # the forked sandbox upstreams (BenchEnv), for their CPU seconds


def _sandbox_cpu() -> float:
    try:
        f = _stat(SANDBOX_PID) if SANDBOX_PID else None
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK") if f else 0.0
    except (OSError, ValueError, IndexError):
        return 0.0


def run_job(kind: str, name: str, instance: dg.DagsterInstance, first: dt.date | None = None,
            last: dt.date | None = None, run_config: dict | None = None, executor: str = "in_process") -> StepTimes:
    """Run bench_job(kind, name) over first..last (a range in one run) with one of EXECUTORS."""
    tags = {}
    if first is not None:
        tags = {"dagster/asset_partition_range_start": first.isoformat(),
                "dagster/asset_partition_range_end": (last or first).isoformat()}
    run_config = run_config or RUN_CONFIG
    if EXECUTORS[executor] is None:
        return timed_run(instance, lambda: bench_job(kind, name).execute_in_process(
            instance=instance, tags=tags, run_config=run_config, raise_on_error=True).run_id)
    # by module name: run as `python -m bench.bench_day`, this module is __main__
    recon = dg.build_reconstructable_job("bench.bench_day", "bench_job", reconstructable_args=(kind, name))
    run_config = {**run_config, "execution": {"config": {"multiprocess": EXECUTORS[executor]}}}
    return timed_run(instance, lambda: execute_job(recon, instance, run_config, tags))


def execute_job(recon, instance: dg.DagsterInstance, run_config: dict, tags: dict | None = None) -> str:
    """A reconstructable job through its own executor (processes, a fork server); its run id."""
    with dg.execute_job(recon, instance=instance, tags=tags or {}, run_config=run_config, raise_on_error=True) as result:
        return result.run_id


def timed_run(instance: dg.DagsterInstance, execute) -> StepTimes:
    """``execute()`` (runs a job, returns its run id) timed: wall and CPU seconds, then each
    step's seconds and start/end times and each materialization's metadata from the run's events."""
    c0, p0, s0, t0 = _py_cpu(), _pg_cpu(), _sandbox_cpu(), time.perf_counter()
    run_id = execute()
    wall = time.perf_counter() - t0
    out = StepTimes(wall=wall, cpu_py=_py_cpu() - c0, cpu_pg=_pg_cpu() - p0, cpu_sandbox=_sandbox_cpu() - s0)
    for entry in instance.all_logs(run_id, of_type=dg.DagsterEventType.STEP_START):
        out.started[entry.dagster_event.step_key] = entry.timestamp
    for entry in instance.all_logs(run_id, of_type=dg.DagsterEventType.STEP_SUCCESS):
        ev = entry.dagster_event
        out.steps[ev.step_key] = ev.event_specific_data.duration_ms / 1000
        out.ended[ev.step_key] = entry.timestamp
    for entry in instance.all_logs(run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION):
        mat = entry.dagster_event.event_specific_data.materialization
        name_ = mat.asset_key.to_user_string()
        md = {k: getattr(v, "value", v) for k, v in mat.metadata.items()}
        out.metadata[name_] = md
        rc = md.get("dagster/row_count")
        if isinstance(rc, (int, float)):
            out.rows[name_] = int(rc)
    return out


def chunks(first: dt.date, last: dt.date, size: int = 31) -> list[tuple[dt.date, dt.date]]:
    """Consecutive ranges of at most `size` days: what BackfillPolicy.multi_run(size) launches."""
    out, d = [], first
    while d <= last:
        end = min(last, d + dt.timedelta(days=size - 1))
        out.append((d, end))
        d = end + dt.timedelta(days=1)
    return out


# ----------------------------------------------------------------------------------------
# Environment: a fresh embedded database, the sandbox world, a Dagster instance


class BenchEnv:
    """A temporary WOVE_HOME under /tmp with its own embedded PostgreSQL, the sandbox world
    served on loopback and a Dagster instance on that server (removed on close unless keep).

    The sandbox serves from a forked process (ForkedSandbox): the upstreams are remote in
    production, so their work should not hold the pipeline's GIL; it still shares the
    machine's cores, and its CPU seconds are reported on their own line.
    ``sandbox_setup(server)`` configures the endpoints before the fork."""

    def __init__(self, world, *, today: dt.date, prefix: str = "wove-bench-", keep: bool = False,
                 sandbox_setup=None, home: Path | None = None):
        for var in ("WOVE_DATABASE_URL", "DAGSTER_PG_URL", "DAGSTER_HOME", "WOVE_DATA_DIR"):
            os.environ.pop(var, None)
        # ``home``: one a kept BenchEnv left (its database started again, migrations applied)
        self.home = home or Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
        os.environ["WOVE_HOME"] = str(self.home)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from wove_pipeline.cli.runtime import bring_up
        self.keep = keep
        global SANDBOX_PID
        self.env = bring_up(world=world, serve_sandbox=True, sandbox_today=today, sandbox_setup=sandbox_setup,
                            sandbox_fork=True)
        SANDBOX_PID = self.env.sandbox.pid
        self.instance = dg.DagsterInstance.get()

    def count(self, sql: str) -> int:
        import psycopg

        with psycopg.connect(self.env.urls.serving) as conn:
            return int(conn.execute(sql).fetchone()[0] or 0)

    def close(self) -> None:
        try:
            self.instance.dispose()
        finally:
            self.env.close()
            if not self.keep:
                shutil.rmtree(self.home, ignore_errors=True)

    def __enter__(self) -> "BenchEnv":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ----------------------------------------------------------------------------------------
# The day


def day_counts(world, day: dt.date) -> dict[str, int]:
    records = [p for p in world.papers if p.datestamp == day]
    new = sum(1 for p in records if p.versions[0].submitted.date() == day)
    return {"records": len(records), "new": new, "positions": sum(len(p.authors) for p in records)}


def _fmt_rate(n: int | None, s: float) -> str:
    return f"{n / s:,.0f}" if n and s > 0 else "-"


@dataclass
class DayRuns:
    """One fresh environment's figures: the history, then the day and the no-op graph."""

    world_size: int
    gen_s: float
    counts: dict[str, int]
    hist: float | None
    researchers_before: int
    daily: StepTimes
    publish: StepTimes
    n_daily: StepTimes
    n_publish: StepTimes
    new_papers: int
    day_papers: int
    emb: StepTimes | None

    # the day (daily run + publish) and the no-op graph: wall seconds, and CPU seconds of the
    # bench process, its step processes and PostgreSQL
    @property
    def wall(self) -> float:
        return self.daily.wall + self.publish.wall

    @property
    def noop_wall(self) -> float:
        return self.n_daily.wall + self.n_publish.wall

    @property
    def cpu(self) -> float:
        return sum(t.cpu_py + t.cpu_pg for t in (self.daily, self.publish))

    @property
    def noop_cpu(self) -> float:
        return sum(t.cpu_py + t.cpu_pg for t in (self.n_daily, self.n_publish))


def measure_day(args, day: dt.date, executor: str = "in_process", embedding: bool = False) -> DayRuns:
    """Generate the world, load its history (in-process, not timed as the day), then run the
    day and the no-op graph with `executor`, and the day's embedding when asked."""
    from wove_pipeline.sandbox.generator import generate_world
    start = day - dt.timedelta(days=args.history_days)
    t0 = time.perf_counter()
    world = generate_world(seed=args.seed, papers_per_day=args.papers_per_day, days=args.history_days + 1, start_day=start)
    gen_s = time.perf_counter() - t0
    counts = day_counts(world, day)
    world_size = world.size
    print(f"[{executor}] world: {world_size:,} records over {args.history_days + 1} days (generated in {gen_s:.0f} s); "
          f"day {day}: {counts}", flush=True)
    with BenchEnv(world, today=world.end_day + dt.timedelta(days=CATCH_UP_DAYS), prefix="wove-bench-day-") as be:
        del world  # the forked sandbox holds it; here every full garbage collection would walk it
        gc.collect()
        hist = None
        if args.history_days:
            h0 = time.perf_counter()
            run_job("real", "bench_daily", be.instance, start, day - dt.timedelta(days=1))
            run_job("real", "bench_publish", be.instance)
            hist = time.perf_counter() - h0
            print(f"[{executor}] history: {args.history_days} days in {hist:.0f} s", flush=True)
        researchers_before = be.count("SELECT count(*) FROM wove.researchers")
        daily = run_job("real", "bench_daily", be.instance, day, executor=executor)
        publish = run_job("real", "bench_publish", be.instance, executor=executor)
        print(f"[{executor}] real: daily {daily.wall:.1f} s, publish {publish.wall:.1f} s", flush=True)
        n_daily = run_job("noop", "bench_daily", be.instance, day, executor=executor)
        n_publish = run_job("noop", "bench_publish", be.instance, executor=executor)
        print(f"[{executor}] noop: daily {n_daily.wall:.1f} s, publish {n_publish.wall:.1f} s", flush=True)
        new_papers = be.count(
            f"SELECT count(*) FROM wove.papers WHERE oai_datestamp = '{day}' AND published::date = '{day}'")
        day_papers = be.count(f"SELECT count(*) FROM wove.papers WHERE oai_datestamp = '{day}'")
        emb = None
        if embedding:
            emb = run_job("real", "bench_embed", be.instance, day)
            print(f"embedding: {emb.wall:.1f} s", flush=True)
    return DayRuns(world_size, gen_s, counts, hist, researchers_before, daily, publish, n_daily, n_publish,
                   new_papers, day_papers, emb)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers-per-day", type=int, default=1700, help="generator density (seed 7: the benchmarked Tuesday gets ~1.5x)")
    ap.add_argument("--history-days", type=int, default=7, help="days loaded and published before the benchmarked day")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-embedding", action="store_true")
    ap.add_argument("--executors", default="",
                    help="comma-separated: also measure the day with these executors, each in a fresh environment "
                         f"(of {', '.join(e for e in EXECUTORS if e != 'in_process')})")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    extra = [e for e in args.executors.split(",") if e]
    unknown = [e for e in extra if e not in EXECUTORS or e == "in_process"]
    if unknown:
        ap.error(f"unknown executor(s) {unknown}; choose from {[e for e in EXECUTORS if e != 'in_process']}")

    day = dt.date(2025, 8, 12)  # a Tuesday
    load_start = load_average()
    m = measure_day(args, day, embedding=not args.no_embedding)
    others = {e: measure_day(args, day, e) for e in extra}
    load_end = load_average()
    daily, publish, n_daily, n_publish, emb = m.daily, m.publish, m.n_daily, m.n_publish, m.emb
    counts, hist, researchers_before, world_size, gen_s = m.counts, m.hist, m.researchers_before, m.world_size, m.gen_s
    new_papers, day_papers = m.new_papers, m.day_papers

    rows = []
    total_real, total_noop = m.wall, m.noop_wall
    for name in DAILY_ORDER + GLOBAL_ORDER:
        r = daily if name in DAILY_ORDER else publish
        n = n_daily if name in DAILY_ORDER else n_publish
        s = r.asset_seconds(name)
        # global assets report table totals; their rate is over what the day gave them to do
        work = {"researchers": publish.metadata.get("researchers", {}).get("new_mentions"),
                "researcher_metrics": publish.metadata.get("researcher_metrics", {}).get("researchers_recomputed"),
                }.get(name, r.rows.get(name))
        unit = {"researchers": " new mentions", "researcher_metrics": " researchers recomputed"}.get(name, "")
        rate = _fmt_rate(work, s) + (unit + "/s" if unit and work else "")
        rows.append(f"| {name} | {r.rows.get(name, 0):,} | {s:.2f} | {rate} | {n.asset_seconds(name):.3f} |")
    chk = daily.check_seconds(DAILY_ORDER) + publish.check_seconds(GLOBAL_ORDER)
    n_chk_steps = daily.n_checks(DAILY_ORDER) + publish.n_checks(GLOBAL_ORDER)
    nchk = n_daily.check_seconds(DAILY_ORDER) + n_publish.check_seconds(GLOBAL_ORDER)
    steps_sum = sum(daily.steps.values()) + sum(publish.steps.values())
    ratio = total_real / total_noop
    cpu_real, cpu_noop = m.cpu, m.noop_cpu
    verdict_ratio = "PASS" if ratio <= 2 else "FAIL"
    verdict_60 = "PASS" if total_real <= DAY_BAR_S else "FAIL"
    md_r = publish.metadata.get("researchers", {})
    md_m = publish.metadata.get("researcher_metrics", {})
    emb_line = ""
    if emb is not None:
        em = emb.metadata.get("paper_embeddings", {})
        es = emb.asset_seconds("paper_embeddings")
        emb_line = (
            f"\nEmbedding the day on its own (paper_embeddings, one run, model "
            f"{em.get('model')}, CPU): {em.get('embedded', 0):,} texts in {es:.1f} s step time "
            f"({em.get('embedded', 0) / es:,.1f} texts/s; encode alone {em.get('encode_seconds')} s, "
            f"{em.get('texts_per_second')} texts/s as the asset reports it; run wall {emb.wall:.1f} s).\n"
        )
    body = f"""
World: seed {args.seed}, {args.papers_per_day:,} papers/day x {args.history_days + 1} days
({world_size:,} OAI records, generated in {gen_s:.0f} s), sandbox clock {CATCH_UP_DAYS} days after the last day.
History (not timed below): the {args.history_days} days before the benchmarked day in one range run, then
publish ({hist or 0:.0f} s; {researchers_before:,} researchers before the day).

The benchmarked day, {day} (a Tuesday): **{counts['records']:,} OAI records**, {day_papers:,} papers
written, {new_papers:,} of them new (first version that day; the rest are revisions of older
papers), {counts['positions']:,} author positions in the records,
**{daily.rows.get('authorships', 0):,} authorships**. Publish matched
{md_r.get('new_mentions', '?'):,} new mentions ({md_r.get('touched_researchers', '?'):,} researchers touched) and
recomputed metrics for {md_m.get('researchers_recomputed', '?'):,} researchers.

Both graphs run with `execute_in_process` on the same Dagster instance (PostgreSQL storage)
in the same process (the sandbox upstreams answer from a forked process): the daily assets but paper_embeddings for the day's partition, then
`publish`. The no-op graph keeps every asset's and check's key, deps, partitions, backfill
policy, pool, retry policy and resources: only the bodies return at once. Step seconds are the
STEP_SUCCESS durations from the event log; rows are each materialization's `dagster/row_count`
(for the global assets: table totals).

| stage | rows | step s | rows/s | no-op step s |
|---|---:|---:|---:|---:|
{chr(10).join(rows)}
| asset checks ({n_chk_steps} steps) | | {chk:.2f} | | {nchk:.3f} |
| sum of steps | | {steps_sum:.2f} | | {sum(n_daily.steps.values()) + sum(n_publish.steps.values()):.3f} |
| daily run wall (execute_in_process) | | {daily.wall:.2f} | | {n_daily.wall:.2f} |
| publish run wall | | {publish.wall:.2f} | | {n_publish.wall:.2f} |
| **total wall** | | **{total_real:.2f}** | {_fmt_rate(counts['records'], total_real)} records/s | **{total_noop:.2f}** |
| CPU s, bench process (Python: Dagster + asset code, with the matcher's workers) | | {daily.cpu_py + publish.cpu_py:.1f} | | {n_daily.cpu_py + n_publish.cpu_py:.1f} |
| CPU s, PostgreSQL server (serving + instance databases) | | {daily.cpu_pg + publish.cpu_pg:.1f} | | {n_daily.cpu_pg + n_publish.cpu_pg:.1f} |
| **CPU s, both** | | **{cpu_real:.1f}** | | **{cpu_noop:.1f}** |
| CPU s, sandbox upstreams (their own process; not ours in production) | | {daily.cpu_sandbox + publish.cpu_sandbox:.1f} | | {n_daily.cpu_sandbox + n_publish.cpu_sandbox:.1f} |

- real / no-op wall: **{ratio:.1f}x** (bar: at most 2x) -> **{verdict_ratio}**
- real wall: **{total_real:.1f} s** (bar: at most {DAY_BAR_S:.0f} s) -> **{verdict_60}**
- CPU seconds (bench process + PostgreSQL; less sensitive to other jobs on the machine than wall time):
  real {cpu_real:.1f} s, no-op {cpu_noop:.1f} s, ratio {cpu_real / max(cpu_noop, 1e-9):.1f}x. The sandbox upstreams
  answer from their own (forked) process, as remote upstreams would, but on the same 2 cores. These are
  core-seconds: Python and PostgreSQL run at the same time on the 2 cores, so the wall time can be below the total
- load average (1/5/15 min) at start {load_start}, at end {load_end} (other jobs share this 2-core machine)
{emb_line}"""
    print(body)
    if not args.no_write:
        from bench.results import write_section

        cmd = f".venv/bin/python -m bench.bench_day --papers-per-day {args.papers_per_day} --history-days {args.history_days}"
        write_section("Realistic day end to end", body, command=cmd + (" --no-embedding" if args.no_embedding else ""))
    if others:
        executors_body = _executors_section({"in_process": m, **others})
        print(executors_body)
        if not args.no_write:
            write_section("Realistic day by executor", executors_body, command=cmd + f" --executors {args.executors}")
    return {"real": total_real, "noop": total_noop, "ratio": ratio, "cpu_real": cpu_real, "cpu_noop": cpu_noop}


def _executors_section(runs: dict[str, DayRuns]) -> str:
    """The day and the no-op graph under each executor, side by side (wall seconds)."""
    shipped = runs["in_process"].wall
    lines = []
    for name, r in runs.items():
        real, noop, cpu, n_cpu = r.wall, r.noop_wall, r.cpu, r.noop_cpu
        lines.append(f"| {name}{' (shipped)' if name == 'in_process' else ''} | {r.daily.rows.get('authorships', 0):,} | "
                     f"{r.publish.metadata.get('researchers', {}).get('new_mentions', 0):,} | {r.daily.wall:.2f} | "
                     f"{r.publish.wall:.2f} | **{real:.2f}** | {noop:.2f} | {real / noop:.2f}x | {real / shipped:.2f}x | "
                     f"{cpu:.1f} | {n_cpu:.1f} |")
    return f"""
The realistic day above (same world, seed and history; each executor in its own fresh
environment, the history loaded in-process), run with each executor, and the same asset graph
with no-op bodies under the same executor. Wall seconds, and CPU seconds of the bench process,
its step processes and PostgreSQL (as in the table above). `multiprocess` is Dagster's default
executor (a fresh Python process per step, at most one per core); `forkserver` is the same
executor with a fork server that imports Dagster and wove once (`EXECUTORS` in bench/bench_day.py).
wove ships the in-process executor (wove_pipeline/definitions.py); the 2x bar above is measured
with it.

| executor | authorships | mentions matched | daily run s | publish run s | day s | no-op graph s | day / no-op | day / shipped day | day CPU s | no-op CPU s |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
{chr(10).join(lines)}

A step process costs the multiprocess executor its start (imports, or a fork) and the run's
context in every step: for the no-op graph that is nearly all of the time, so the ratio to
it is smallest where the day is slowest.
"""


if __name__ == "__main__":
    main()
