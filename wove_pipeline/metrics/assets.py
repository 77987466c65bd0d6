"""Metrics stage: researcher_metrics (incremental), read by the serving publish."""
# (no `from __future__ import annotations` here: Dagster reads the context annotation at definition time)

import dagster as dg

from wove_pipeline.database import access as db
from wove_pipeline.metrics import compute
from wove_pipeline.resources import DatabaseResource

# Upstream stages by key, so this module imports none of them.
METRICS_DEPS = [
    dg.AssetKey("researchers"),
    dg.AssetKey("authorships"),
    dg.AssetKey("s2_papers"),
    dg.AssetKey("openalex_works"),
    dg.AssetKey("s2_authors"),
    dg.AssetKey("openalex_authors"),
    dg.AssetKey("institutions"),
]


class MetricsConfig(dg.Config):
    full_recompute: bool = False  # rebuild every metric (same result as the incremental path)


@dg.asset(
    deps=METRICS_DEPS,
    group_name="serving",
    kinds={"postgres"},
    code_version="1",
    description=(
        "Researcher metrics (papers here; h-index, citations, works from the external author records with "
        "source and as-of; the same over archive papers; author positions over fully matched papers; "
        "primary-category counts; institutions over time), co-author edges and institution metrics, in "
        "wove.researcher_metrics / researcher_coauthors / institution_metrics. Only researchers "
        "touched by changed papers, author records or matches are recomputed (only their archive citation "
        "figures when a citation count is all that moved); co-author edges and institution figures move by "
        "the difference each changed paper makes."
    ),
)
def researcher_metrics(context: dg.AssetExecutionContext, config: MetricsConfig, database: DatabaseResource):
    with database.transaction() as conn:
        if config.full_recompute:
            run = compute.recompute_all(conn)
        else:
            run = compute.update_metrics(conn)
        total = db.kept_row_count(conn, "researcher_metrics")
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": total,
            "mode": run.mode,
            "papers_changed": run.papers_changed,
            "papers_patched": run.papers_patched,
            "researchers_recomputed": run.researchers_recomputed,
            "institutions_recomputed": run.institutions_recomputed,
            "seconds": round(run.seconds, 3),
            "phase_seconds": dg.MetadataValue.json({k: round(v, 3) for k, v in run.phases.items()}),
        }
    )
