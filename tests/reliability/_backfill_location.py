"""A tiny code location for test_daemon_automation.py's backfill: a daily asset in the
`semantic_scholar` pool (one run per day in a backfill: no backfill policy). The first step
to run records "pid run_id partition" in $WOVE_TEST_VICTIM_FILE and sleeps, holding its pool
slot, to be SIGKILLed; every other step (and a retry of the killed one) holds the slot for a
moment and succeeds."""

import os
import time
from pathlib import Path

import dagster as dg

DAYS = dg.DailyPartitionsDefinition(start_date="2025-08-01", end_date="2025-08-04")  # three days


@dg.asset(pool="semantic_scholar", partitions_def=DAYS)
def day_in_pool(context: dg.AssetExecutionContext) -> None:
    victim = Path(os.environ["WOVE_TEST_VICTIM_FILE"])
    mine = victim.with_name(f"{victim.name}.{os.getpid()}")
    mine.write_text(f"{os.getpid()} {context.run_id} {context.partition_key}")
    try:
        os.link(mine, victim)  # atomic: only the first step becomes the victim
    except FileExistsError:
        time.sleep(1)
        return
    time.sleep(float(os.environ.get("WOVE_TEST_SLEEP_S", "300")))


defs = dg.Definitions(assets=[day_in_pool], executor=dg.in_process_executor)
