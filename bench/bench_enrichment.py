"""API calls per 1,000 papers for S2 and OpenAlex enrichment, beside the minimum the
upstreams' limits allow (S2: ceil(n/500) paper batches; OpenAlex: ceil(n/50) filter calls).

Two scenarios over the same sandbox world, each against its own fresh database:

- backfill: one run over every day (what a multi-run backfill does with up to 31 days per
  run), the upstreams already knowing every paper they ever will;
- daily: one run per day, the sandbox clock the morning after each day, then 45 more
  empty days, so papers are asked while upstream does not know them yet and are found by
  the look-back later (the cost of coverage lag).

    .venv/bin/python -m bench.bench_enrichment [--papers-per-day 250 --days 10]
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import time
import uuid
from collections import Counter

import psycopg
from psycopg import sql

from bench.results import write_section
from wove_pipeline.arxiv import harvest as papers_load
from wove_pipeline.arxiv.client import ArxivOaiClient
from wove_pipeline.cli.runtime import start_sandbox
from wove_pipeline.database import access as db
from wove_pipeline.database.embedded import scratch_postgres
from wove_pipeline.database.migrations import migrate
from wove_pipeline.openalex.client import OpenAlexClient
from wove_pipeline.openalex.fetch import fetch_institutions, fetch_openalex_authors, fetch_openalex_works
from wove_pipeline.partitions import DayRange
from wove_pipeline.sandbox.generator import generate_world
from wove_pipeline.semantic_scholar.client import SemanticScholarClient
from wove_pipeline.semantic_scholar.fetch import fetch_s2_authors, fetch_s2_papers
from wove_pipeline.upstream.raw_store import RawStore

ROUTES = {
    "s2 paper batch": ("s2", "POST /paper/batch"),
    "s2 author batch": ("s2", "POST /author/batch"),
    "openalex works filter": ("openalex", "GET /works"),
    "openalex work singleton (free)": ("openalex", "GET /works/{id}"),
    "openalex authors filter": ("openalex", "GET /authors"),
    "openalex author singleton (free)": ("openalex", "GET /authors/{id}"),
    "openalex institutions filter": ("openalex", "GET /institutions"),
    "openalex institution singleton (free)": ("openalex", "GET /institutions/{id}"),
}


def _calls(server) -> Counter:
    return Counter({name: server.endpoints[ep].calls[route] for name, (ep, route) in ROUTES.items()})


def _enrich(url: str, s2: SemanticScholarClient, oa: OpenAlexClient, store: RawStore, days) -> dict:
    days = DayRange.of(days)
    with db.connect(url, autocommit=True) as conn:
        out = {"s2": fetch_s2_papers(conn, s2, store, days), "oa": fetch_openalex_works(conn, oa, store, days)}
        fetch_s2_authors(conn, s2, store, days)
        fetch_openalex_authors(conn, oa, store, days)
        fetch_institutions(conn, oa, store, days)
    return out


def _found(url: str) -> tuple[int, int]:
    with psycopg.connect(url) as conn:
        return (conn.execute("SELECT count(*) FROM wove.s2_papers").fetchone()[0],
                conn.execute("SELECT count(*) FROM wove.openalex_works").fetchone()[0])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--papers-per-day", type=int, default=250)
    ap.add_argument("--days", type=int, default=10)
    ap.add_argument("--tail-days", type=int, default=45, help="empty days run after the last, for late papers")
    args = ap.parse_args(argv)

    world = generate_world(seed=7, papers_per_day=args.papers_per_day, days=args.days)
    days = sorted({p.datestamp for p in world.papers})
    with scratch_postgres("wove-bench-enrich-") as (pg, tmp):
        urls = pg.ensure_databases()
        migrate(urls.serving)
        server = start_sandbox(world, today=world.end_day + dt.timedelta(days=120))
        results: dict[str, dict] = {}
        try:
            store = RawStore(tmp / "raw")
            arxiv = ArxivOaiClient(server.url_for("arxiv"), min_interval_s=0)
            for day in days:
                papers_load.harvest_day(arxiv, store, day)
                with db.transaction(urls.serving) as conn:
                    papers_load.load_day(conn, day, papers_load.parse_day(store, day))
            arxiv.close()
            with psycopg.connect(urls.serving) as conn:
                n = conn.execute("SELECT count(*) FROM wove.papers").fetchone()[0]
            daily_db = f"bench_{uuid.uuid4().hex[:8]}"
            with psycopg.connect(pg.admin_url, autocommit=True) as conn:
                conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                    sql.Identifier(daily_db), sql.Identifier(urls.serving.split("?")[0].rsplit("/", 1)[-1])))
            head, _, query = urls.serving.partition("?")
            daily_url = f"{head.rsplit('/', 1)[0]}/{daily_db}" + (f"?{query}" if query else "")

            def clients():
                return (SemanticScholarClient(server.url_for("s2"), min_interval_s=0),
                        OpenAlexClient(server.url_for("openalex"), min_interval_s=0))

            # backfill: one run over all days, upstream knows everything it ever will
            before, t0 = _calls(server), time.perf_counter()
            s2, oa = clients()
            _enrich(urls.serving, s2, oa, RawStore(tmp / "raw-backfill"), days)
            s2.close(), oa.close()
            results["backfill"] = {"calls": _calls(server) - before, "seconds": time.perf_counter() - t0,
                                   "found": _found(urls.serving), "min_s2": math.ceil(n / 500),
                                   "min_oa": math.ceil(n / 50)}

            # daily: one run per day, the morning after, then empty days for late papers
            before, t0 = _calls(server), time.perf_counter()
            s2, oa = clients()
            min_s2 = min_oa = 0
            raw = RawStore(tmp / "raw-daily")
            run_days = days + [days[-1] + dt.timedelta(days=i) for i in range(1, args.tail_days + 1)]
            for day in run_days:
                server.today = day + dt.timedelta(days=1)
                new = sum(p.datestamp == day for p in world.papers)
                min_s2 += math.ceil(new / 500)
                min_oa += math.ceil(new / 50)
                _enrich(daily_url, s2, oa, raw, [day])
            s2.close(), oa.close()
            results["daily"] = {"calls": _calls(server) - before, "seconds": time.perf_counter() - t0,
                                "found": _found(daily_url), "min_s2": min_s2, "min_oa": min_oa}
            with psycopg.connect(daily_url) as conn:
                asks = dict(conn.execute("SELECT source, avg(attempts)::float FROM wove.enrichment_attempts"
                                         " GROUP BY source").fetchall())
        finally:
            server.stop()

    def per_k(x: float) -> str:
        return f"{1000 * x / n:.1f}"

    lines = [
        f"World: seed 7, {args.papers_per_day} papers/day x {args.days} days = {n:,} papers "
        f"(S2 knows {sum(p.s2 is not None for p in world.papers):,}, OpenAlex "
        f"{sum(p.openalex is not None for p in world.papers):,}). Calls counted by the sandbox per route.",
        "",
        "| scenario | upstream | calls | per 1,000 papers | minimum per 1,000 | ratio |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, r in results.items():
        c = r["calls"]
        lines.append(f"| {name} | S2 paper batches (500) | {c['s2 paper batch']} | {per_k(c['s2 paper batch'])} | "
                     f"{per_k(r['min_s2'])} | {c['s2 paper batch'] / r['min_s2']:.2f}x |")
        lines.append(f"| {name} | OpenAlex works filters (50) | {c['openalex works filter']} | "
                     f"{per_k(c['openalex works filter'])} | {per_k(r['min_oa'])} | "
                     f"{c['openalex works filter'] / r['min_oa']:.2f}x |")
    lines += ["", "Author and institution calls (listed separately; no per-paper minimum):", "",
              "| scenario | " + " | ".join(k for k in ROUTES if not k.startswith(("s2 paper", "openalex works f"))) + " |",
              "|---|" + "---:|" * (len(ROUTES) - 2)]
    for name, r in results.items():
        lines.append(f"| {name} | " + " | ".join(
            f"{r['calls'][k]} ({per_k(r['calls'][k])}/1k)" for k in ROUTES
            if not k.startswith(("s2 paper", "openalex works f"))) + " |")
    b, d = results["backfill"], results["daily"]
    lines += [
        "",
        f"- Found: backfill S2 {b['found'][0]:,} / OpenAlex {b['found'][1]:,}; daily (after {args.tail_days} tail days) "
        f"S2 {d['found'][0]:,} / OpenAlex {d['found'][1]:,}.",
        f"- Daily minimum = one ask per paper in its own day's run (sum over runs of ceil(new/500) and ceil(new/50)): "
        f"a day's run cannot batch with papers not harvested yet. Mean asks per paper in the daily scenario: "
        f"S2 {asks.get('s2', 0):.2f}, OpenAlex {asks.get('openalex', 0):.2f} (coverage lag: S2 2-60 days, "
        f"OpenAlex 4-40 days in this world; pending papers are re-asked with doubling spacing capped at 4 days, "
        f"plus free rides in spare batch room).",
        f"- Wall time: backfill {b['seconds']:.1f} s, daily ({len(days) + args.tail_days} runs) {d['seconds']:.1f} s "
        f"(sandbox on loopback, no rate-limit sleeps).",
    ]
    write_section("Enrichment API calls per 1,000 papers", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
