"""Harvest + parse + load of one realistic arXiv day against the sandbox, beside two floors
measured in the same run on the same bytes and rows: a raw lxml parse and a plain COPY.

    .venv/bin/python -m bench.bench_harvest [--records 2600]
"""

from __future__ import annotations

import argparse
import time

import psycopg
from lxml import etree

from bench.results import write_section
from wove_pipeline.arxiv import harvest as papers_load
from wove_pipeline.arxiv.client import ArxivOaiClient
from wove_pipeline.cli.runtime import start_sandbox
from wove_pipeline.database import access as db
from wove_pipeline.database.embedded import scratch_postgres
from wove_pipeline.database.migrations import migrate
from wove_pipeline.sandbox.generator import generate_world
from wove_pipeline.upstream.raw_store import RawStore


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=2600, help="OAI records on the benchmarked day")
    args = ap.parse_args(argv)

    world = generate_world(seed=11, papers_per_day=args.records, days=1)
    day = max({p.datestamp for p in world.papers}, key=lambda d: sum(p.datestamp == d for p in world.papers))
    n_records = sum(p.datestamp == day for p in world.papers)
    with scratch_postgres("wove-bench-") as (pg, tmp):
        urls = pg.ensure_databases()
        migrate(urls.serving)
        server = start_sandbox(world)
        try:
            store = RawStore(tmp / "raw")
            client = ArxivOaiClient(server.url_for("arxiv"), min_interval_s=0)

            t0 = time.perf_counter()
            harvest = papers_load.harvest_day(client, store, day)
            t1 = time.perf_counter()
            parsed = papers_load.parse_day(store, day)
            t2 = time.perf_counter()
            with psycopg.connect(urls.serving) as conn, conn.transaction():
                summary = papers_load.load_day(conn, day, parsed)
            t3 = time.perf_counter()

            # Floor 1: lxml parsing the very same response bytes, nothing else.
            bodies = store.read_latest("arxiv", day.isoformat()).column("body").to_pylist()
            f0 = time.perf_counter()
            for body in bodies:
                etree.fromstring(body)
            lxml_s = time.perf_counter() - f0

            # Floor 2: COPY of the very same rows into an empty table of the same shape.
            rows = [papers_load._paper_row(p.as_row()) for p in parsed.papers]
            with psycopg.connect(urls.serving) as conn, conn.transaction():
                conn.execute("CREATE TEMP TABLE papers_floor (LIKE wove.papers)")
                f1 = time.perf_counter()
                db.copy_rows(conn, "papers_floor", papers_load.PAPER_COLUMNS, rows)
                copy_s = time.perf_counter() - f1
            client.close()
        finally:
            server.stop()

    harvest_s, parse_s, load_s = t1 - t0, t2 - t1, t3 - t2
    floor = lxml_s + copy_s
    ratio = (parse_s + load_s) / floor
    body = f"""
One sandbox day: {n_records:,} OAI records, fetched in both formats over {harvest.pages} pages
(2,500 records a page), {summary.papers_written:,} papers and {summary.authors_written:,} author positions loaded.

| step | seconds | records/s |
|---|---:|---:|
| harvest (HTTP, both formats, raw Parquet written) | {harvest_s:.2f} | {n_records / harvest_s:,.0f} |
| parse (both formats, merged, cleaned) | {parse_s:.2f} | {n_records / parse_s:,.0f} |
| load (upsert papers + authors + quarantine, one transaction) | {load_s:.2f} | {n_records / load_s:,.0f} |
| **harvest + parse + load** | {harvest_s + parse_s + load_s:.2f} | {n_records / (harvest_s + parse_s + load_s):,.0f} |
| floor: raw lxml parse of the same bytes | {lxml_s:.3f} | {n_records / lxml_s:,.0f} |
| floor: COPY of the same rows | {copy_s:.3f} | {n_records / copy_s:,.0f} |

parse + load = **{ratio:.1f}x** the sum of the two floors (aim: at most 5x).
"""
    print(body)
    write_section("Harvest + parse + load (one day)", body, command="python -m bench.bench_harvest")


if __name__ == "__main__":
    main()
