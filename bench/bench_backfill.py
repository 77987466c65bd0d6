"""A backfill of every stage but embedding, in backfill-policy runs of at most 31 days, then
one publish; and the cost per 1,000 papers at several sizes, to show how it grows.

    .venv/bin/python -m bench.bench_backfill --papers 10000            # ~12 days, minutes
    .venv/bin/python -m bench.bench_backfill --papers 100000           # ~122 days
    nohup .venv/bin/python -m bench.bench_backfill --papers 300000 > /tmp/wove-backfill-300k.log 2>&1 &   # the year
    .venv/bin/python -m bench.bench_backfill --report                  # RESULTS.md from the saved figures

Each size is its own sandbox world at the same density (``--per-day`` 820 papers a day, so
300,000 papers are 365 days starting 2025-01-01), its own fresh embedded PostgreSQL in a
temporary WOVE_HOME under /tmp, and the same code: the daily assets but paper_embeddings
(``bench_day.real_defs``) over consecutive ranges of at most 31 day partitions, one
``execute_in_process`` run per range (what ``BackfillPolicy.multi_run(max_partitions_per_run=31)``
launches from the UI: 365 days are 12 runs), then one ``publish`` run. The sandbox clock
sits 60 days after the last day.

Figures are saved after every run to ``$WOVE_BENCH_OUT`` (default /tmp/wove-bench-backfill)
as ``<papers>.json``, so an interrupted run still reports what it did; the RESULTS.md section
is rebuilt from every saved size each time.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_day import (  # noqa: E402
    CATCH_UP_DAYS,
    DAILY_ORDER,
    DAY_BAR_S,
    GLOBAL_ORDER,
    RUN_CONFIG,
    BenchEnv,
    chunks,
    load_average,
    run_job,
)

OUT = Path(os.environ.get("WOVE_BENCH_OUT", "/tmp/wove-bench-backfill"))
START = dt.date(2025, 1, 1)
MAX_PARTITIONS_PER_RUN = 31
SECTION = "Backfill (one year) and cost growth"
# OpenAlex list calls cost money (2026: $0.10 per 1,000; a free key has $1 a day). A year
# through the API needs about 15,000 list calls, more than one free day: the backfill runs
# with a budget for that (the key's budget on the sandbox's side, the same on ours). Without
# it the unasked papers stay pending for the next days' runs (tested), or the year comes in
# through the snapshot path (wove_pipeline.enrichment.bulk) at no API cost.
OPENALEX_BUDGET_USD = 5.0


def _commit() -> str:
    import subprocess

    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1])
    return out.stdout.strip() or "unknown"


def _openalex_budget(budget_usd: float):
    """(sandbox setup giving its OpenAlex key this daily budget, run config giving ours the same)."""
    from wove_pipeline.sandbox.openalex import LIST_CALL_USD
    def setup(server) -> None:
        server.endpoints["openalex"].daily_credits = int(round(budget_usd / LIST_CALL_USD))

    return setup, {**RUN_CONFIG, "resources": {"openalex": {"config": {"daily_budget_usd": budget_usd}}}}


def _save(fig: dict) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{fig['target']}.json").write_text(json.dumps(fig, indent=1, default=str))


def run_size(target: int, per_day: int, seed: int, openalex_budget_usd: float = OPENALEX_BUDGET_USD,
             keep: bool = False) -> dict:
    from wove_pipeline.sandbox.generator import generate_world
    days = max(1, round(target / per_day))
    fig: dict = {"target": target, "per_day": per_day, "days": days, "seed": seed, "status": "generating",
                 "openalex_budget_usd": openalex_budget_usd, "commit": _commit(),
                 "load_start": load_average(), "started": dt.datetime.now(dt.timezone.utc).isoformat()}
    _save(fig)
    t0 = time.perf_counter()
    # one day more than the backfill: the day after it, run as daily operation on the archive
    world = generate_world(seed=seed, papers_per_day=per_day, days=days + 1, start_day=START)
    fig["generate_s"] = time.perf_counter() - t0
    next_day = START + dt.timedelta(days=days)
    fig["records"] = sum(1 for p in world.papers if p.datestamp < next_day)
    fig["next_day_records"] = world.size - fig["records"]
    print(f"[{target}] world: {world.size:,} records, {days} days, generated in {fig['generate_s']:.0f} s", flush=True)
    fig["runs"] = []
    fig["status"] = "daily"
    _save(fig)
    setup, run_config = _openalex_budget(openalex_budget_usd)
    with BenchEnv(world, today=world.end_day + dt.timedelta(days=CATCH_UP_DAYS), prefix="wove-bench-backfill-",
                  sandbox_setup=setup, keep=keep) as be:
        if keep:
            print(f"[{target}] keeping WOVE_HOME={be.home} (delete it when done)", flush=True)
        del world  # the forked sandbox holds it; here every full garbage collection would walk it
        gc.collect()
        w0 = time.perf_counter()
        for first, last in chunks(START, next_day - dt.timedelta(days=1), MAX_PARTITIONS_PER_RUN):
            st = run_job("real", "bench_daily", be.instance, first, last, run_config)
            papers = be.count("SELECT count(*) FROM wove.papers")
            fig["runs"].append({"first": first, "last": last, "wall": st.wall, "cpu_py": st.cpu_py, "cpu_pg": st.cpu_pg,
                                "cpu_sandbox": st.cpu_sandbox,
                                "steps": st.steps, "rows": st.rows,
                                "papers_after": papers, "load": load_average()})
            fig["daily_wall"] = time.perf_counter() - w0
            _save(fig)
            print(f"[{target}] run {first}..{last}: {st.wall:.0f} s, {papers:,} papers so far "
                  f"(load {load_average()})", flush=True)
        fig["status"] = "publish"
        _save(fig)
        st = run_job("real", "bench_publish", be.instance)
        fig["publish"] = {"wall": st.wall, "cpu_py": st.cpu_py, "cpu_pg": st.cpu_pg, "cpu_sandbox": st.cpu_sandbox,
                          "steps": st.steps, "rows": st.rows,
                          "metadata": {k: {kk: vv for kk, vv in v.items() if isinstance(vv, (int, float, str))}
                                       for k, v in st.metadata.items()}}
        fig["total_wall"] = time.perf_counter() - w0
        fig["papers"] = be.count("SELECT count(*) FROM wove.papers")
        fig["authorships"] = be.count("SELECT count(*) FROM wove.authorships")
        fig["researchers"] = be.count("SELECT count(*) FROM wove.researchers")
        _save(fig)
        # The day after, as the daily schedule runs it: that day's partition, then publish.
        daily, publish = run_job("real", "bench_daily", be.instance, next_day, None, run_config), \
            run_job("real", "bench_publish", be.instance)
        fig["next_day"] = {"day": next_day, "daily_wall": daily.wall, "publish_wall": publish.wall,
                           "steps": {**daily.steps, **publish.steps},
                           "metadata": {k: {kk: vv for kk, vv in v.items() if isinstance(vv, (int, float, str))}
                                        for k, v in publish.metadata.items()}}
    fig["status"] = "done"
    fig["load_end"] = load_average()
    fig["peak_rss_gib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    _save(fig)
    print(f"[{target}] done: {fig['total_wall']:.0f} s (publish {fig['publish']['wall']:.0f} s)", flush=True)
    return fig


# ----------------------------------------------------------------------------------------
# Report


def stage_seconds(fig: dict) -> dict[str, float]:
    """Per-stage step seconds summed over the runs; asset checks as one line."""
    out = {k: 0.0 for k in DAILY_ORDER + GLOBAL_ORDER + ["checks"]}
    for run in fig.get("runs", []):
        for k, v in run["steps"].items():
            out[k if k in DAILY_ORDER else "checks"] += v
    for k, v in (fig.get("publish") or {}).get("steps", {}).items():
        out[k if k in GLOBAL_ORDER else "checks"] += v
    return out


HOT_SPOTS = """### Hot spots and what changed (2026-11-30)

- **Full metrics recompute was quadratic** (the first metrics run of a database: the year's one
  publish). The external-author lookup was a LATERAL (S2 UNION ALL OpenAlex) per linked id; the
  planner put a Memoize on it that was reset on every row (0 hits), each reset clearing a cache sized
  by the estimated rows: 433 of 499 s on a 300k database. Plain joins per source: 61.8 s on the same
  database (rolled-back reproductions), and the year's publish above.
- **Enrichment parsed every response twice** (once to validate it, once to derive rows from the raw
  file); a fetch now derives its rows from the records its validation parsed (a rebuild from the raw
  layer still parses the files, and a test checks it gives the same tables).
- **The bench held the sandbox world in the pipeline's process**: every full garbage collection walked
  its millions of objects during allocation-heavy steps, and its HTTP threads shared the pipeline's
  GIL. The upstreams now answer from a forked process (as remote ones would) and the bench lets go of
  its copy; their CPU seconds are reported apart.
- **Serving publish is incremental** (migration 0009: statement-level triggers log the keys every
  write to a table serving reads; a publish rewrites only the rows those keys reach, in one
  transaction; a full rebuild on the first publish, after a TRUNCATE, a definition change or when
  more than 20% of papers or researchers changed). The backfill's one publish is a full rebuild; the
  day after is where the incremental publish shows (table above).
- **Later the same day (second pass)**: the matcher's parallel incremental assignment gave two
  worker shares the same labels for different new people (a worker process runs several shares in
  turn and numbered each from where it stood, the parent rebased from its own first label): on the
  realistic day ~100 of ~1,290 new researchers were merged into others, depending on which process
  ran which share. Fixed, with a test that fails on the old code; day-after figures before this
  pass were measured with it. Then, for the day after at scale: a paper's title and abstract are
  read once per paper (they were on every position's row), the evidence hash only for papers whose
  inputs moved, affiliation tokens cached per string, and the cyclic garbage collector paused while
  matching, parsing a day and enriching (each full collection walked every mention built so far):
  the matcher's run on a 100k archive's next day went from 36 s to 17 s. A revision that keeps its
  authors now keeps its researcher links (author rows are rewritten only where they changed;
  `researcher_mentions` cascades from them), so it is not matched again. OpenAlex calls `select`
  the fields the parser reads (a work's payload 9.1 -> 4.8 kB). The serving build computes each
  piece once (a researcher's institutions were a per-row subquery that scanned every institution,
  twice): a full build at 300k papers 153 -> 55 s.
- **The metrics found what changed from row stamps minus a 24 h overlap** (a writer stamps rows
  before it commits, so stamps alone could miss a late commit): every run re-checked a day of other
  runs' work, and the day after a backfill the whole archive (31.9 s of the 300k day after, before).
  Now (migration 0010) the triggers that log serving's keys log the metrics' keys
  too, in the writer's transaction; a run takes what it can see, and a paper's state is built and
  compared in the database, each input table aggregated once.
- **The daily matching loads every member of each name block a day touches.** The sandbox world has
  few, large initial+surname blocks (~2,900 for the year, ~165 people behind each, far more than
  arXiv's long tail of surnames), so a day touches most of them and the day's matching reads most of
  the archive's positions (the "loaded positions" column above): the part of a daily publish that
  still grows with the archive. Keeping per-researcher profiles (names, co-authors, text) instead of
  re-reading their mentions would make it proportional to the day. Since the third pass (below) it
  builds mentions only for those positions, not for every co-author on their papers.
- **Third pass (2026-11-30, later)**: an incremental matching run built a mention for every
  position of every paper it loaded, though it decides and compares only the touched blocks'
  positions and their researchers': now only those (the others give co-author keys by name; the
  same decisions, byte for byte, on a 100k archive's day: 334,482 -> 193,964 positions built, 17.8 ->
  14.3 s). The incremental publish went by index look-ups (the change log read once per publish,
  one DELETE per key condition with an index for each, random_page_cost 1.1 in that transaction):
  bench_serving's 300k day 17.95 -> 7.7 s. The alignment's candidate query ranges over the look-back
  window instead of every paper; arXiv pages are parsed once (records read from the page's tree).
- **Fourth pass (2026-11-30, evening)**: the matcher found changed papers by fingerprinting every
  paper of the archive each day (1.1 s at 100k papers); the change-log triggers now also name the
  papers whose authors, authorships, categories or links were written (migration 0012), and only
  those are fingerprinted (a 100k archive's day re-matched link by link: same decisions, 13.8 ->
  12.9 s). The enrichment clients keep a few calls in flight (OpenAlex 4, S2 2; see bench_fetch_
  concurrency), serving rows are stored uncompressed (pglz was half of building serving.papers),
  JSON goes to and from PostgreSQL through orjson, and the uniqueness checks confirm their unique
  index instead of grouping every paper.
- **Fifth pass (2026-11-30, night)**: counting the terms of the texts (tokenizing) was most of the
  matcher's text evidence, and a day re-counted every loaded paper's text (~90,000 at 100k papers,
  2.3 s). Each paper's hashed term counts are now kept (migration 0013, keyed by papers.content_hash)
  and only new or changed texts are counted; the IDF is still fitted over the run's papers (a 100k
  archive's day re-matched link by link: same outcomes, scores and evidence, 13.1 -> 11.3 s; the
  counts take ~320 bytes a paper; the 300k day after: publish 61.7 -> 53.3 s, its matching 53.9 ->
  45.1 s). The positions of researchers whose names are compatible with a day's mentions were
  counted too (to load only those): 157,121 of the 193,964 at 100k, not worth a change of decisions.
- **Sixth pass (2026-11-30, late)**: an incremental matching run assigned in forked workers only
  from 2,000 new positions; a day on a large archive has fewer new positions but scores each
  against big name blocks (the 100k archive's day: 1,029 new positions, 686,492 pairs to score,
  2.5 s in one process). The workers now start from 100,000 pairs (a pool forked from that run
  starts in 0.07 s): assignment 2.5 -> 1.35 s, the same links, researchers, redirects and state
  (digests of each table); the 100k day after: matching 12.4 -> 11.0 s, publish 16.1 -> 14.5 s.
  The 300k day (3,251 new positions) was parallel already. That day, daily run and publish
  together, is over the 60 s the realistic-day bar sets (column "day s" above): its matching reads
  every member of the name blocks the day touches (above).
- **The backfill's one publish is a full `match_all`** (blocks above `max_block`, 2,000, are
  sub-blocked, the work spread over forked workers); it is the largest part of the publish.
- **OpenAlex budget**: a year through the API needs more list calls than a free key's $1 a day (the
  rest would stay pending for the next days' runs, tested); the year runs with a $5/day key on both
  sides (`--openalex-budget-usd`); the snapshot path (`wove_pipeline.enrichment.bulk`) needs no API budget.
"""


def report(write: bool = True) -> str:
    figs = sorted((json.loads(p.read_text()) for p in OUT.glob("*.json")), key=lambda f: f["target"])
    if not figs:
        raise SystemExit(f"no saved figures under {OUT}")
    done = [f for f in figs if f.get("status") == "done"]
    parts = []
    year = next((f for f in figs if f["target"] >= 300_000), None)
    if year:
        n_runs = len(year.get("runs", []))
        planned = len(chunks(START, START + dt.timedelta(days=year["days"] - 1), MAX_PARTITIONS_PER_RUN))
        if year.get("status") == "done":
            total = year["total_wall"]
            verdict = "PASS" if total <= 3600 else "FAIL"
            head = (f"**{year['papers']:,} papers** ({year['records']:,} OAI records, {year['days']} days from {START}, "
                    f"{year['per_day']} papers/day) in **{n_runs} daily runs** of at most {MAX_PARTITIONS_PER_RUN} "
                    f"partitions + 1 publish: **{total / 60:.1f} min** wall (daily runs {year['daily_wall'] / 60:.1f} min, "
                    f"publish {year['publish']['wall'] / 60:.1f} min; bar: at most 60 min) -> **{verdict}**. "
                    f"{year['authorships']:,} authorships, {year['researchers']:,} researchers. World generation "
                    f"({year['generate_s']:.0f} s) not counted. Peak RSS of the bench process (the world it "
                    f"generated, then the pipeline; the sandbox serves from a forked child): {year['peak_rss_gib']:.1f} GiB. Load average at start {year['load_start']}, "
                    f"at end {year['load_end']}.")
        else:
            papers = year["runs"][-1]["papers_after"] if year.get("runs") else 0
            head = (f"**Not finished** (status `{year.get('status')}` when this section was written): "
                    f"{n_runs} of {planned} daily runs done, {papers:,} papers, "
                    f"{year.get('daily_wall', 0) / 60:.1f} min of daily runs so far (world generation, "
                    f"{year.get('generate_s', 0):.0f} s, not counted). Partial figures only: run "
                    f"`--papers {year['target']}` to completion (it does not resume), then `--report`.")
        if year.get("note"):
            head += "\n\n" + year["note"]
        parts.append("### The year\n\n" + head)
        if year.get("runs"):
            lines = ["| run | days | wall s | papers after | s / 1k new papers | load |", "|---|---|---:|---:|---:|---|"]
            prev = 0
            for i, r in enumerate(year["runs"], 1):
                new = r["papers_after"] - prev
                prev = r["papers_after"]
                lines.append(f"| {i} | {r['first']}..{r['last']} | {r['wall']:.0f} | {r['papers_after']:,} | "
                             f"{r['wall'] / max(new, 1) * 1000:.1f} | {r['load']} |")
            parts.append("Daily runs (one per backfill range), in order; a flat last-but-one column means the "
                         "daily stages do not slow down as the database fills:\n\n" + "\n".join(lines))
    if done:
        hdr = "| stage | " + " | ".join(f"{f['papers']:,} papers: s (s/1k, papers/s)" for f in done)
        hdr += " | growth s/1k, smallest -> largest |" if len(done) > 1 else " |"
        lines = [hdr, "|---" * (len(done) + 1 + (len(done) > 1)) + "|"]
        secs = [stage_seconds(f) for f in done]
        for k in DAILY_ORDER + GLOBAL_ORDER + ["checks"]:
            cells = []
            for f, s in zip(done, secs):
                per_k = s[k] / f["papers"] * 1000
                cells.append(f"{s[k]:.0f} ({per_k:.2f}, {f['papers'] / s[k]:,.0f})" if s[k] > 0 else "-")
            row = f"| {k if k != 'checks' else 'asset checks'} | " + " | ".join(cells)
            if len(done) > 1:
                a, b = secs[0][k] / done[0]["papers"], secs[-1][k] / done[-1]["papers"]
                row += f" | {b / a:.2f}x |" if a > 0 else " | - |"
            else:
                row += " |"
            lines.append(row)
        cells, walls = [], []
        for f in done:
            walls.append(f["total_wall"] / f["papers"] * 1000)
            cells.append(f"**{f['total_wall']:.0f}** ({walls[-1]:.2f}, {f['papers'] / f['total_wall']:,.0f})")
        row = "| **total wall (runs + publish)** | " + " | ".join(cells)
        growth = walls[-1] / walls[0] if len(done) > 1 else None
        row += f" | **{growth:.2f}x** |" if growth else " |"
        lines.append(row)
        cpu_cells, cpus = [], []
        for f in done:
            parts_ = [*f["runs"], f["publish"]]
            if all("cpu_py" in r for r in parts_):
                c = sum(r["cpu_py"] + r["cpu_pg"] for r in parts_)
                cpus.append(c / f["papers"] * 1000)
                cpu_cells.append(f"{c:.0f} ({cpus[-1]:.2f})")
            else:
                cpus.append(None)
                cpu_cells.append("-")
        row = "| CPU s, bench process + PostgreSQL (s/1k) | " + " | ".join(cpu_cells)
        row += (f" | {cpus[-1] / cpus[0]:.2f}x |" if len(done) > 1 and cpus[0] and cpus[-1] else (" | - |" if len(done) > 1 else " |"))
        lines.append(row)
        lines.append("| load average at start; at end | " + " | ".join(f"{f['load_start']}; {f['load_end']}" for f in done)
                     + (" |" if len(done) > 1 else ""))
        runs = " | ".join(str(len(f["runs"])) + " + 1" for f in done)
        lines.append(f"| runs (daily + publish) | {runs} |" + (" |" if len(done) > 1 else ""))
        commits = " | ".join(f.get("commit", "before bdf14b5") for f in done)
        lines.append(f"| measured at commit | {commits} |" + (" |" if len(done) > 1 else ""))
        verdict = ""
        if growth and done[-1]["papers"] >= 250_000 and done[0]["papers"] <= 15_000:
            verdict = f"\n\nPer-paper cost 10k -> 300k: **{growth:.2f}x** (bar: at most 1.3x) -> **{'PASS' if growth <= 1.3 else 'FAIL'}**."
        elif growth:
            verdict = (f"\n\nPer-paper cost {done[0]['papers']:,} -> {done[-1]['papers']:,} papers: **{growth:.2f}x** "
                       "(the bar, at most 1.3x, is for 10k -> 300k; the sizes above are what finished).")
        growers = sorted(((k, (secs[-1][k] / done[-1]["papers"]) / (secs[0][k] / done[0]["papers"]))
                          for k in DAILY_ORDER + GLOBAL_ORDER if len(done) > 1 and secs[0][k] > 0), key=lambda x: -x[1])
        growers = [(k, g) for k, g in growers if g > 1.3]
        if len(done) > 1 and cpus[0] and cpus[-1]:
            verdict += (f" Wall time depends on what else the machine runs (load averages in the table); CPU seconds "
                        f"per paper (bench process + PostgreSQL; the sandbox upstreams answer from their own process) grew "
                        f"**{cpus[-1] / cpus[0]:.2f}x**. Stages whose seconds per paper grew more than 1.3x: "
                        + (", ".join(f"{k} {g:.2f}x" for k, g in growers) or "none")
                        + ".")
        parts.append(
            "### Cost per stage at each size\n\nEach size is its own world (same density, same seed) and database; "
            "seconds are STEP_SUCCESS durations summed over the size's runs; s/1k = seconds per 1,000 papers "
            "in wove.papers at the end." + "\n\n" + "\n".join(lines) + verdict)
        pub = "\n".join(
            f"- {f['papers']:,} papers: researchers {f['publish']['metadata'].get('researchers', {}).get('new_mentions', '?'):,} "
            f"mentions matched -> {f['researchers']:,} researchers; metrics recomputed for "
            f"{f['publish']['metadata'].get('researcher_metrics', {}).get('researchers_recomputed', '?'):,} researchers"
            for f in done)
        parts.append("Publish at each size:\n\n" + pub)
        nxt = [f for f in done if f.get("next_day")]
        if nxt:
            rows = ["| archive | day's records | daily run s | publish s | day s (vs the 60 s day bar) "
                    "| researchers s (new / loaded positions) | researcher_metrics s | serving s |",
                    "|---:|---:|---:|---:|---:|---|---:|---:|"]
            for f in nxt:
                n = f["next_day"]
                md = n["metadata"].get("researchers", {})
                day = n["daily_wall"] + n["publish_wall"]
                rows.append(f"| {f['papers']:,} | {f.get('next_day_records', 0):,} | {n['daily_wall']:.1f} | "
                            f"{n['publish_wall']:.1f} | {day:.1f} ({day / DAY_BAR_S:.2f}x) | "
                            f"{n['steps'].get('researchers', 0):.1f} "
                            f"({md.get('new_mentions', '?'):,} / {md.get('positions_loaded', '?'):,}) | "
                            f"{n['steps'].get('researcher_metrics', 0):.1f} | {n['steps'].get('serving', 0):.1f} |")
            parts.append("The day after each backfill, run as daily operation on that archive (its partition, "
                         "then publish): what freshness costs as the archive grows.\n\n" + "\n".join(rows))
    not_done = [f for f in figs if f.get("status") != "done" and f is not year]
    if not_done:
        parts.append("Unfinished sizes: " + ", ".join(f"{f['target']:,} ({f.get('status')})" for f in not_done))
    parts.append(HOT_SPOTS)
    body = "\n\n".join(parts) + "\n"
    if write:
        from bench.results import write_section

        sizes = " ; ".join(f"--papers {f['target']}" for f in figs)
        write_section(SECTION, body, command=f".venv/bin/python -m bench.bench_backfill {sizes} (one size per command), then --report")
    return body


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers", type=int, action="append", help="world size; repeat for several sizes")
    ap.add_argument("--per-day", type=int, default=820)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--openalex-budget-usd", type=float, default=OPENALEX_BUDGET_USD,
                    help="the OpenAlex key's daily budget, on the sandbox's side and ours")
    ap.add_argument("--report", action="store_true", help="only rebuild the RESULTS.md section from saved figures")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--keep", action="store_true",
                    help="keep each size's WOVE_HOME (embedded PostgreSQL data) under /tmp, e.g. to profile a stage on it")
    args = ap.parse_args(argv)
    if not args.report:
        for n in args.papers or [10_000]:
            run_size(n, args.per_day, args.seed, args.openalex_budget_usd, keep=args.keep)
    print(report(write=not args.no_write))


if __name__ == "__main__":
    main()
