"""`python -m bench` (`make bench`): the quick benchmarks in sequence, each in its own process
with its own temporary embedded PostgreSQL; each rewrites its section of bench/RESULTS.md.

    .venv/bin/python -m bench                 # harvest, day, enrichment, fetch, embedding (~30 min on 2 busy cores)
    .venv/bin/python -m bench --only day      # one of them
    .venv/bin/python -m bench --smoke         # tiny sizes, results to a temporary file (a check that they run)

The long ones are printed at the end (backfill, matching at 1M mentions, HNSW, serving).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Smoke runs write their sections to a temporary file instead of bench/RESULTS.md (other
# benches may be writing there at the same time, so nothing is copied back and forth).
SMOKE_WRAPPER = (
    "import runpy, sys, pathlib, bench.results as r; r.RESULTS = pathlib.Path(sys.argv[1]); "
    "sys.argv = [sys.argv[2], *sys.argv[3:]]; runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)"
)

# name -> (module, full-size args, smoke args)
QUICK = {
    "harvest": ("bench.bench_harvest", [], ["--records", "300"]),
    "day": ("bench.bench_day", [], ["--papers-per-day", "150", "--history-days", "1", "--no-embedding", "--no-write"]),
    "enrichment": ("bench.bench_enrichment", [], ["--papers-per-day", "40", "--days", "3", "--tail-days", "3"]),
    "fetch": ("bench.bench_fetch_concurrency", [], ["--papers", "200", "--latency-ms", "20"]),
    "embedding": ("bench.bench_embedding", ["--texts", "500", "--rounds", "1"], ["--texts", "64", "--rounds", "1", "--no-write"]),
}

LONG = """
Long benchmarks (run one at a time, on a quiet machine if you can; each writes its own section):

  .venv/bin/python -m bench.bench_backfill --papers 10000          # cost at 10k papers (minutes)
  .venv/bin/python -m bench.bench_backfill --papers 100000         # cost at 100k papers (~1 h on 2 cores)
  nohup .venv/bin/python -m bench.bench_backfill --papers 300000 > /tmp/wove-backfill-300k.log 2>&1 &
                                                                    # the one-year backfill (hours on 2 busy cores)
  .venv/bin/python -m bench.bench_backfill --report                # rebuild its section from the saved sizes
  .venv/bin/python -m bench.bench_matching --mentions 1000000      # author matching at scale
  .venv/bin/python -m bench.bench_hnsw                             # HNSW parameters (100k vectors)
  .venv/bin/python -m bench.bench_serving                          # serving queries
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    ap.add_argument("--only", choices=list(QUICK), action="append", help="run only these (repeatable)")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes; sections go to a temporary file, not RESULTS.md")
    args = ap.parse_args(argv)

    env = {**os.environ, "HF_HUB_OFFLINE": os.environ.get("HF_HUB_OFFLINE", "1")}
    smoke_out = Path(tempfile.mkdtemp(prefix="wove-bench-smoke-")) / "RESULTS.md" if args.smoke else None
    failed = []
    for name in args.only or list(QUICK):
        module, full, smoke = QUICK[name]
        if smoke_out is not None:
            cmd = [sys.executable, "-c", SMOKE_WRAPPER, str(smoke_out), module, *smoke]
        else:
            cmd = [sys.executable, "-m", module, *full]
        print(f"\n=== {name}: {module} {' '.join(smoke if args.smoke else full)}", flush=True)
        t0 = time.perf_counter()
        rc = subprocess.call(cmd, cwd=ROOT, env=env)
        print(f"=== {name}: exit {rc} after {time.perf_counter() - t0:.0f} s", flush=True)
        if rc:
            failed.append(name)
    if smoke_out is not None:
        print(f"\nsmoke sections written to {smoke_out}")
    print(LONG)
    if failed:
        print(f"failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
