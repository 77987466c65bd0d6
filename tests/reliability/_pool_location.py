"""A tiny code location for the daemon tests (test_pool_slots.py): one asset in the
`semantic_scholar` pool that records its process id and then sleeps, to be SIGKILLed."""

import os
import time
from pathlib import Path

import dagster as dg


@dg.asset(pool="semantic_scholar")
def slow_in_pool() -> None:
    Path(os.environ["WOVE_TEST_PID_FILE"]).write_text(str(os.getpid()))
    time.sleep(float(os.environ.get("WOVE_TEST_SLEEP_S", "300")))


@dg.asset(pool="semantic_scholar")
def quick_in_pool() -> None:
    pass


defs = dg.Definitions(
    assets=[slow_in_pool, quick_in_pool],
    jobs=[dg.define_asset_job("slow_job", [slow_in_pool]), dg.define_asset_job("quick_job", [quick_in_pool])],
    executor=dg.in_process_executor,
)
