"""Upstream fetches with calls in flight side by side vs one at a time, at a remote
upstream's round trip.

One sandbox day's papers (as the daily run asks them) are fetched from the sandbox, served
from its own process with every answer delayed by --latency-ms (the loopback answers in
about a millisecond; the real APIs take hundreds): OpenAlex works by DOI (50 per call) and
S2 paper batches (500 per call, and 100 per call to have more of them), at concurrency 1
(the clients before calls were kept in flight), 2, 4 and 8. The clients' rate limits are
off here, as in the sandbox runs; the production spacing (S2 1 request/s, OpenAlex 100/s)
still applies on top of this in production. Every concurrency must fetch the same answers
with the same number of calls: the script checks it.

    .venv/bin/python -m bench.bench_fetch_concurrency [--papers 2500 --latency-ms 250]
"""

from __future__ import annotations

import argparse
import datetime as dt
import time

from bench.results import write_section
from wove_pipeline.cli.runtime import start_sandbox
from wove_pipeline.openalex.client import OpenAlexBudget, OpenAlexClient
from wove_pipeline.sandbox.generator import generate_world
from wove_pipeline.sandbox.server import FaultPlan
from wove_pipeline.semantic_scholar.client import SemanticScholarClient

CONCURRENCY = (1, 2, 4, 8)


def _fetch(server, ids: list[str], concurrency: int, s2_batch: int) -> tuple[float, float, int, list]:
    """(OpenAlex seconds, S2 seconds, calls, answers) for one concurrency."""
    with OpenAlexClient(server.url_for("openalex"), min_interval_s=0, budget=OpenAlexBudget(daily_usd=None),
                        concurrency=concurrency) as oa, \
            SemanticScholarClient(server.url_for("s2"), min_interval_s=0, paper_batch_size=s2_batch,
                                  concurrency=concurrency) as s2:
        t0 = time.perf_counter()
        works = [(f.kind, f.ids, f.body) for f in oa.works_by_arxiv_ids(ids)]
        t1 = time.perf_counter()
        batches = [(b.kind, b.ids, b.body) for b in s2.paper_batches(ids)]
        t2 = time.perf_counter()
        return t1 - t0, t2 - t1, oa.calls + s2.calls, works + batches


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--papers", type=int, default=2500)
    ap.add_argument("--latency-ms", type=int, default=250)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)

    world = generate_world(seed=7, papers_per_day=args.papers, days=1)
    ids = sorted(p.arxiv_id for p in world.papers)
    plan = FaultPlan(latency_s=args.latency_ms / 1000)

    def setup(server) -> None:
        for name in ("s2", "openalex"):
            server.set_faults(name, plan)

    server = start_sandbox(world, today=world.end_day + dt.timedelta(days=120), setup=setup, fork=True)
    rows, reference = [], {}
    try:
        for s2_batch in (500, 100):
            for c in CONCURRENCY:
                oa_s, s2_s, calls, answers = _fetch(server, ids, c, s2_batch)
                if s2_batch not in reference:
                    reference[s2_batch] = (calls, answers)
                elif (calls, answers) != reference[s2_batch]:
                    raise SystemExit(f"concurrency {c} fetched something else than concurrency 1")
                rows.append((s2_batch, c, oa_s, s2_s, calls))
                print(f"s2 batch {s2_batch} concurrency {c}: openalex {oa_s:.2f} s, s2 {s2_s:.2f} s, {calls} calls",
                      flush=True)
    finally:
        server.stop()

    base = {b: (oa, s2) for b, c, oa, s2, _ in rows if c == 1}
    lines = [
        f"{len(ids):,} papers of one sandbox day; every sandbox answer delayed {args.latency_ms} ms (a remote "
        "round trip; the sandbox serves from its own process). Rate limits off (see the script's docstring). "
        "Each concurrency fetched the same answers with the same calls as concurrency 1 (checked).",
        "",
        "| S2 batch | concurrency | OpenAlex works s (50 DOIs a call) | vs 1 at a time | S2 paper batches s | vs 1 at a time | calls |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for b, c, oa, s2, calls in rows:
        lines.append(f"| {b} | {c} | {oa:.2f} | {base[b][0] / oa:.2f}x faster | {s2:.2f} | "
                     f"{base[b][1] / s2:.2f}x faster | {calls} |")
    lines += ["", "The clients' defaults: OpenAlex 4 calls in flight, S2 2 (S2 keys get 1 request/s: more than "
              "2 in flight only helps when a batch takes over 2 s)."]
    if not args.no_write:
        write_section("Upstream fetch concurrency", "\n".join(lines),
                      command=f".venv/bin/python -m bench.bench_fetch_concurrency --papers {args.papers} "
                              f"--latency-ms {args.latency_ms}")


if __name__ == "__main__":
    main()
