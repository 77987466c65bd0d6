"""The one partition definition: UTC days of the OAI datestamp (last-modification day)."""

import dagster as dg

# arXiv datestamps are UTC days; the start is where this deployment's history begins
# (a backfill reaches further by widening it, not by a second definition).
PARTITIONS_START = "2025-01-01"

daily_partitions = dg.DailyPartitionsDefinition(start_date=PARTITIONS_START, timezone="UTC", end_offset=0)
