"""Thin Dagster assets, one module per stage; the work happens in wove_pipeline.core."""

import warnings

import dagster as dg

# Backfill policies (many partitions per run) are deliberate here; Dagster 1.13 still marks
# them beta and would warn on every import.
warnings.filterwarnings("ignore", category=dg.BetaWarning)
