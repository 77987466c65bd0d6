"""The wove code location: assets, jobs, schedule and resources, assembled in one place.

The asset graph reads like the diagram in DESIGN.md:
arxiv_records -> papers -> (enrichment, embeddings) -> authorships -> researchers -> metrics -> serving
"""

import dagster as dg

from wove_pipeline.assets import enrichment, harvest
from wove_pipeline.resources import ArxivResource, DatabaseResource, RawStoreResource
from wove_pipeline.resources.enrichment import OpenAlexResource, SemanticScholarResource

daily_assets = [harvest.arxiv_records, harvest.papers, *enrichment.daily_enrichment_assets]

daily_job = dg.define_asset_job(
    "daily_harvest",
    selection=dg.AssetSelection.assets(*daily_assets),
    description="Harvest one OAI day and everything downstream of it.",
)

# arXiv announces around 20:00 US Eastern, Sunday to Thursday; by 06:00 UTC the previous
# UTC day's datestamps are complete. Weekend days are harvested too (metadata fixes land
# every day; an empty day is a normal, cheap noRecordsMatch).
# Unpartitioned jobs that run after the daily job, in graph order (matching, metrics, serving).
GLOBAL_JOBS: list[str] = []

daily_schedule = dg.build_schedule_from_partitioned_job(daily_job, hour_of_day=6, minute_of_hour=0)

defs = dg.Definitions(
    assets=[*daily_assets, *enrichment.refresh_assets],
    jobs=[daily_job, enrichment.citation_refresh_job],
    schedules=[daily_schedule, enrichment.citation_refresh_schedule],
    resources={
        "database": DatabaseResource(url=dg.EnvVar("WOVE_DATABASE_URL")),
        "raw_store": RawStoreResource(),
        "arxiv": ArxivResource(),
        # Keys are read from S2_API_KEY / OPENALEX_API_KEY when a run starts, never at import.
        "s2": SemanticScholarResource(),
        "openalex": OpenAlexResource(),
    },
)
