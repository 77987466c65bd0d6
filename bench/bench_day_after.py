"""The same day after archives of N papers, through the daily pipeline and publish: what a day
costs as the archive grows (issue 22: the day must not depend on the archive's size; bar
R <= 1.3 at 1,000,000 papers).

    nice -n 10 .venv/bin/python -m bench.bench_day_after --papers 10000 --papers 100000 \\
        --papers 300000 --papers 1000000
    .venv/bin/python -m bench.bench_day_after --report

Every size starts from the same sandbox world (``--shape``, default the realistic one:
heavy-tailed names, hyper-authored collaborations; seed 7, 820 papers a day, ``--base-days``
days plus one) in its own embedded PostgreSQL under /tmp:

1. the base archive: the world's first ``--base-days`` days through the daily assets in one
   range run, then one publish (a full match, which builds every researcher's profile), as
   daily operation would have left it;
2. grown to N papers by K = round(N / base papers) - 1 shifted copies of its rows
   (bench/archive_copy.py: new paper, upstream and researcher ids, dates moved back past the
   enrichment look-back, names as they are, so name blocks hold K + 1 times the base's
   mentions), then every metric and a full serving publish computed from them;
3. THE day: the world's next day (the same OAI records, the same author positions, for every
   size), its partition's daily run and then publish (researchers by profile ->
   researcher_metrics -> serving), timed per step from the runs' events.

Steps 1-2 are not timed as the day. Lines ``day after N papers: S s (R x the 10k day)`` go to
RESULTS.md with a per-stage table.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import hashlib
import json
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_day import CATCH_UP_DAYS, DAILY_ORDER, BenchEnv, chunks, load_average, run_job  # noqa: E402

OUT = Path(os.environ.get("WOVE_BENCH_DAY_AFTER_OUT", "/tmp/wove-bench-day-after-copy"))
START = dt.date(2025, 1, 1)
SECTION = "Day after an archive (matching by profile)"
PUBLISH_ORDER = ["researchers", "researcher_metrics", "serving"]


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _Sampler:
    """A low-rate stack sampler of the main thread (--sample): where a run's Python time goes,
    by wove function (inclusive and innermost), without a tracing profiler's overhead."""

    def __init__(self, every_s: float = 0.01):
        import threading

        self.every_s, self.main = every_s, threading.main_thread().ident
        self.inclusive: dict[str, int] = {}
        self.inner: dict[str, int] = {}
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            frame = sys._current_frames().get(self.main)
            names, inner = [], None
            while frame is not None:
                code = frame.f_code
                if "wove_pipeline" in code.co_filename:
                    name = f"{Path(code.co_filename).stem}.{code.co_name}"
                    names.append(name)
                    inner = inner or name
                frame = frame.f_back
            self.samples += 1
            for name in set(names):
                self.inclusive[name] = self.inclusive.get(name, 0) + 1
            if inner:
                self.inner[inner] = self.inner.get(inner, 0) + 1

    def __enter__(self) -> "_Sampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self, top: int = 40) -> dict:
        s = self.every_s
        pick = lambda d: {k: round(v * s, 2) for k, v in sorted(d.items(), key=lambda kv: -kv[1])[:top]}  # noqa: E731
        return {"seconds": round(self.samples * s, 1), "inclusive_s": pick(self.inclusive), "inner_s": pick(self.inner)}


def _archive_counts(conn) -> dict:
    one = lambda q: conn.execute(q).fetchone()[0]  # noqa: E731
    return {
        "papers": one("SELECT count(*) FROM wove.papers"),
        "positions": one("SELECT count(*) FROM wove.paper_authors"),
        "researchers": one("SELECT count(*) FROM wove.researchers"),
        "profiles": one("SELECT count(*) FROM wove.researcher_profiles"),
        "largest_block": one("SELECT max(n) FROM (SELECT count(*) AS n FROM wove.researcher_mentions GROUP BY block) b"),
        "db_gib": one("SELECT pg_database_size(current_database())") / 2**30,
    }


def run_size(target: int, per_day: int, seed: int, shape: str, base_days: int, sample: bool = False) -> dict:
    import psycopg

    from bench.archive_copy import derive, grow
    from bench.bench_backfill import _commit, _openalex_budget
    from wove_pipeline.sandbox.generator import generate_world

    fig: dict = {"target": target, "per_day": per_day, "base_days": base_days, "seed": seed, "shape": shape,
                 "commit": _commit(), "status": "generating", "started": dt.datetime.now(dt.timezone.utc).isoformat()}
    OUT.mkdir(parents=True, exist_ok=True)
    world = generate_world(seed=seed, papers_per_day=per_day, days=base_days + 1, start_day=START, shape=shape)
    day = START + dt.timedelta(days=base_days)
    records = [p for p in world.papers if p.datestamp == day]
    fig["day"] = {"date": day.isoformat(), "records": len(records), "positions": sum(len(p.authors) for p in records),
                  "ids_digest": hashlib.sha256(" ".join(sorted(p.arxiv_id for p in records)).encode()).hexdigest()[:12]}
    setup, run_config = _openalex_budget(5.0)
    with BenchEnv(world, today=world.end_day + dt.timedelta(days=CATCH_UP_DAYS), prefix="wove-bench-day-after-",
                  sandbox_setup=setup) as be:
        del world, records
        gc.collect()
        t0 = time.perf_counter()
        for first, last in chunks(START, day - dt.timedelta(days=1), 31):
            run_job("real", "bench_daily", be.instance, first, last, run_config)
        run_job("real", "bench_publish", be.instance)
        fig["base_s"] = time.perf_counter() - t0
        with psycopg.connect(be.env.urls.serving, autocommit=True) as conn:
            fig["base"] = _archive_counts(conn)
            copies = max(0, round(target / fig["base"]["papers"]) - 1)
            fig["copies"] = copies
            print(f"[{target}] base {fig['base']['papers']:,} papers in {fig['base_s']:.0f} s; {copies} copies", flush=True)
            t0 = time.perf_counter()
            fig["grow_s"] = grow(conn, copies, log=lambda s: print(f"[{target}]{s}", flush=True))
            if copies:
                fig["grow_s"].update(derive(conn, log=lambda s: print(f"[{target}]{s}", flush=True)))
            else:  # as derive ends: every size's day starts on vacuumed, analyzed tables
                conn.execute("VACUUM ANALYZE")
            fig["grow_wall"] = time.perf_counter() - t0
            fig["archive"] = _archive_counts(conn)
        fig["status"] = "archive ready, day running"
        (OUT / f"{target}.json").write_text(json.dumps(fig, indent=1, default=str))
        print(f"[{target}] archive {fig['archive']} (grown in {fig['grow_wall']:.0f} s); the day {fig['day']}", flush=True)
        fig["rss_before_day_mib"] = _rss_mib()
        load = load_average()
        daily = run_job("real", "bench_daily", be.instance, day, None, run_config)
        fig["day"].update({"daily_wall": daily.wall, "daily_steps": daily.steps, "load_before": load})
        fig["status"] = "daily done, publish running"
        (OUT / f"{target}.json").write_text(json.dumps(fig, indent=1, default=str))
        if sample:
            with _Sampler() as sampler:
                publish = run_job("real", "bench_publish", be.instance)
            fig["publish_profile"] = sampler.summary()
        else:
            publish = run_job("real", "bench_publish", be.instance)
        md = {k: {kk: vv for kk, vv in v.items() if isinstance(vv, (int, float, str))} for k, v in publish.metadata.items()}
        fig["day"].update({"daily_wall": daily.wall, "publish_wall": publish.wall, "steps": {**daily.steps, **publish.steps},
                           "rows": {**daily.rows, **publish.rows}, "researchers": md.get("researchers", {}),
                           "serving": md.get("serving", {}), "cpu_pg": daily.cpu_pg + publish.cpu_pg,
                           "cpu_py": daily.cpu_py + publish.cpu_py, "load_before": load, "load_after": load_average()})
        fig["rss_peak_mib"] = _rss_mib()
    fig["status"] = "done"
    (OUT / f"{target}.json").write_text(json.dumps(fig, indent=1, default=str))
    d = fig["day"]
    print(f"[{target}] day after {fig['archive']['papers']:,} papers: {d['daily_wall'] + d['publish_wall']:.1f} s", flush=True)
    return fig


def _day_s(f: dict) -> float:
    return f["day"]["daily_wall"] + f["day"]["publish_wall"]


def _checks_s(f: dict, publish: bool) -> float:
    prefixes = tuple(f"{k}_" for k in PUBLISH_ORDER)
    return sum(v for k, v in f["day"]["steps"].items()
               if k not in DAILY_ORDER + PUBLISH_ORDER and k.startswith(prefixes) == publish)


def _cpu_s(f: dict) -> float:
    return f["day"]["cpu_py"] + f["day"]["cpu_pg"]


# What the figures say, written after reading them (kept with the bench that makes them).
FINDINGS = ""


def report(write: bool = True) -> str:
    every = sorted((json.loads(p.read_text()) for p in OUT.glob("*.json")), key=lambda f: f["target"])
    figs = [f for f in every if f.get("status") == "done"]
    unfinished = [f for f in every if f.get("status") != "done" and "archive" in f]
    if not figs:
        raise SystemExit(f"no figures under {OUT}")
    base = next((f for f in figs if f["target"] == 10_000), figs[0])
    lines = [f"day after {f['archive']['papers']:,} papers: {_day_s(f):.1f} s ({_day_s(f) / _day_s(base):.2f} x the 10k day)"
             f"; CPU {_cpu_s(f):.0f} s ({_cpu_s(f) / _cpu_s(base):.2f} x)" for f in figs]
    lines += [f"day after {f['archive']['papers']:,} papers: not completed ({f.get('note', f['status'])})" for f in unfinished]
    step = lambda f, k: f["day"]["steps"].get(k, 0.0)  # noqa: E731
    heads = ["archive papers", "positions", "largest block", "researchers", "day s (R)", "CPU s (R)",
             "daily assets s", "daily checks s", "researchers s (positions loaded)", "researcher_metrics s",
             "serving s", "publish checks s", "bench peak RSS MiB", "load (1 min) before / after"]
    rows = ["| " + " | ".join(heads) + " |", "|" + "---:|" * (len(heads) - 1) + "---|"]
    for f in figs:
        a, d = f["archive"], f["day"]
        rows.append("| " + " | ".join([
            f"{a['papers']:,}", f"{a['positions']:,}", f"{a['largest_block']:,}", f"{a['researchers']:,}",
            f"{_day_s(f):.1f} ({_day_s(f) / _day_s(base):.2f})", f"{_cpu_s(f):.0f} ({_cpu_s(f) / _cpu_s(base):.2f})",
            f"{sum(step(f, k) for k in DAILY_ORDER):.1f}", f"{_checks_s(f, False):.1f}",
            f"{step(f, 'researchers'):.1f} ({d['researchers'].get('positions_loaded', 0):,})",
            f"{step(f, 'researcher_metrics'):.1f}", f"{step(f, 'serving'):.1f}", f"{_checks_s(f, True):.1f}",
            f"{f['rss_peak_mib']:,.0f}", f"{d['load_before'].split()[0]} / {d['load_after'].split()[0]}"]) + " |")
    largest = max(figs + unfinished, key=lambda f: f["target"])
    day = base["day"]
    same = len({(f["day"]["records"], f["day"]["positions"], f["day"]["ids_digest"]) for f in figs + unfinished}) == 1
    if largest["target"] < 1_000_000:
        verdict = "1,000,000 not measured."
    elif largest in unfinished:
        verdict = "not met: the day did not complete on the 1,000,000-paper archive."
    else:
        r = _day_s(largest) / _day_s(base)
        verdict = f"R = {r:.2f} at {largest['archive']['papers']:,} papers: " + ("met." if r <= 1.3 else "not met.")
    grow_rows = ", ".join(f"{f['archive']['papers']:,}: {f['copies']} copies, grown in {f['grow_wall'] / 60:.0f} min, "
                          f"{f['archive']['db_gib']:.1f} GiB" for f in figs + unfinished)
    body = "\n".join(f"- {x}" for x in lines) + "\n\nBar (issue 22): R <= 1.3 at 1,000,000 papers: " + verdict + "\n\n" + (
        f"The day: {day['date']} of the sandbox world (seed {base['seed']}, {base['per_day']} papers a day, shape "
        f"{base['shape']}), {day['records']:,} OAI records with {day['positions']:,} author positions, "
        + ("the same records on every archive" if same else "**not the same records on every archive**")
        + f". Base archive: the world's first {base['base_days']} days ({base['base']['papers']:,} papers, "
        f"{base['base']['positions']:,} positions) through the daily assets and one publish; grown by shifted copies "
        f"(bench/archive_copy.py: new ids, dates moved back past the enrichment look-back, names kept: every name "
        f"block holds copies + 1 times the base's mentions and researchers), then a full metrics run, a full publish "
        f"and VACUUM ANALYZE ({grow_rows}). Day = its partition's daily run (the daily assets but embeddings, with "
        f"their checks) + publish (researchers by profile -> researcher_metrics -> serving, with their checks); "
        f"per-step seconds from the runs' STEP_SUCCESS events; CPU: the bench process's and the PostgreSQL "
        f"server's CPU seconds during the day (less sensitive to the machine's load than wall time); 'positions "
        f"loaded': what the matching run read (the day's positions plus the representatives of the candidate "
        f"profiles).\n\n") + "\n".join(rows) + "\n\n" + (
        f"Commit {largest['commit']}. 2 cores shared with other benches (load averages in the table)."
        + ("\n\n" + FINDINGS.strip() if FINDINGS.strip() else ""))
    if write:
        from bench.results import write_section

        sizes = " ".join(f"--papers {f['target']}" for f in figs + unfinished)
        write_section(SECTION, body, command=f"nice -n 10 .venv/bin/python -m bench.bench_day_after {sizes}")
    return body


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers", type=int, action="append")
    ap.add_argument("--per-day", type=int, default=820)
    ap.add_argument("--base-days", type=int, default=12)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--shape", default="realistic")
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--sample", action="store_true", help="sample the publish's Python stacks (figures in the JSON)")
    ap.add_argument("--no-write", action="store_true", help="run the sizes, leave RESULTS.md as it is")
    args = ap.parse_args(argv)
    if not args.report:
        for n in args.papers or [10_000]:
            run_size(n, args.per_day, args.seed, args.shape, args.base_days, args.sample)
    if not args.no_write:
        print(report())


if __name__ == "__main__":
    main()
