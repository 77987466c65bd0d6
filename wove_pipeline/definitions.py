"""The wove code location: assets, checks, jobs, schedules and resources, in one place.

The asset graph reads like the diagram in DESIGN.md:

    arxiv_records -> papers -+-> s2_papers, openalex_works -> s2_authors, openalex_authors,
                             |   institutions -> authorships -> researchers -> researcher_metrics -> serving
                             +-> paper_embeddings ------------------------------------------------^
"""

import gc

import dagster as dg

from wove_pipeline.arxiv import assets as harvest
from wove_pipeline.assets import checks
from wove_pipeline.enrichment import assets as enrichment
from wove_pipeline.matching import assets as matching
from wove_pipeline.partitions import daily_partitions
from wove_pipeline.resources import ArxivResource, DatabaseResource, RawStoreResource
from wove_pipeline.resources.embedder import EmbedderResource
from wove_pipeline.resources.enrichment import OpenAlexResource, SemanticScholarResource
from wove_pipeline.search import assets as embeddings
from wove_pipeline.serving import assets as serving
from wove_pipeline.serving import automation as publish_gate

# Partitioned by OAI day: one run per day (or per month in a backfill).
daily_assets = [
    harvest.arxiv_records,
    harvest.papers,
    *enrichment.daily_enrichment_assets,
    embeddings.paper_embeddings,
]
# Global and incremental: they recompute only what the new days touched.
global_assets = [matching.researchers, serving.researcher_metrics, serving.serving]

daily_job = dg.define_asset_job(
    "daily_harvest",
    selection=dg.AssetSelection.assets(*daily_assets),
    description="Harvest one OAI day, enrich and embed its papers.",
)
publish_job = dg.define_asset_job(
    "publish",
    selection=dg.AssetSelection.assets(*global_assets),
    description="Match new author positions, recompute affected metrics, publish the serving schema.",
)

# Unpartitioned jobs that run after the daily job, in graph order.
GLOBAL_JOBS: list[str] = ["publish"]

# arXiv announces around 20:00 US Eastern, Sunday to Thursday; by 06:00 UTC the previous
# UTC day's datestamps are complete. Weekend days are harvested too (metadata fixes land
# every day; an empty day is a normal, cheap noRecordsMatch).
daily_schedule = dg.build_schedule_from_partitioned_job(
    daily_job, hour_of_day=6, minute_of_hour=0,
    description="06:00 UTC: the daily_harvest job for the previous UTC day (its OAI datestamps are complete).",
)
# Publishing follows the data, not a clock (publish_gate.py): a sensor requests the publish
# job as soon as a run of daily assets succeeds and its days are complete; a failed day holds
# every publish (and says so) until it is re-run; a 08:00 UTC schedule catches up on the rest.
DAILY_KEYS = [key for asset in daily_assets for key in asset.keys]
publish_when_day_lands, publish_held_on_failed_day, publish_schedule = publish_gate.build(
    daily_job, publish_job, DAILY_KEYS, daily_partitions)

# Daily assets carry a freshness policy; every asset gets its integrity checks.
all_assets = checks.apply_freshness([*daily_assets, *global_assets, *enrichment.refresh_assets])

defs = dg.Definitions(
    assets=all_assets,
    # Steps run in the run's own process: the multiprocess default starts a Python process
    # (seconds of imports) per step, more than most of wove's steps take on a day's data
    # (measured: a realistic day 4-5x slower with it, ~2x with a fork server; bench/RESULTS.md,
    # "Realistic day by executor"); the API-bound steps are throttled by pools anyway. On
    # Kubernetes, bind k8s_job_executor instead for a pod per step (docs/scale-out.md).
    executor=dg.in_process_executor,
    asset_checks=checks.checks_for(all_assets),
    jobs=[daily_job, publish_job, enrichment.citation_refresh_job],
    schedules=[daily_schedule, publish_schedule, enrichment.citation_refresh_schedule],
    sensors=[publish_when_day_lands, publish_held_on_failed_day],
    resources={
        "database": DatabaseResource(url=dg.EnvVar("WOVE_DATABASE_URL")),
        "raw_store": RawStoreResource(),
        "arxiv": ArxivResource(),
        # Keys are read from S2_API_KEY / OPENALEX_API_KEY when a run starts, never at import.
        "s2": SemanticScholarResource(),
        "openalex": OpenAlexResource(),
        "embedder": EmbedderResource(),
    },
)

# What importing this code location made (dagster, numpy, scikit-learn, the assets: ~235,000
# objects) lives as long as the process: out of the cyclic collector's sight, a full
# collection during a run walks what the run made instead (a realistic day's two took 0.40 s,
# 0.16 s with this).
gc.freeze()
