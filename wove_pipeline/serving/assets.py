"""Metrics and serving stage: researcher_metrics (incremental) -> serving (atomic publish)."""
# (no `from __future__ import annotations` here: Dagster reads the context annotation at definition time)

import dagster as dg
from pydantic import Field

from wove_pipeline.metrics import compute as metrics_core
from wove_pipeline.resources import DatabaseResource
from wove_pipeline.serving import publish as serving_core

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


class ServingConfig(dg.Config):
    # A default the launchpad's scaffold shows ('' = no export; None would leave it out).
    export_dir: str = Field(default="", description=(
        "Also write every serving table and view as Parquet plus manifest.json into this folder "
        "(docs/data-contract.md, 'Bulk export'); empty: no export."))
    site_url: str = ""  # prefix for absolute URLs in structured data (JSON-LD)
    full_rebuild: bool = False  # rebuild every table (same rows as the incremental publish)


def column_schema(columns: list[dict]) -> dg.TableSchema:
    """A dg.TableSchema from serving_core.serving_columns' [{name, type, description}]."""
    return dg.TableSchema(columns=[
        dg.TableColumn(name=c["name"], type=c["type"], description=c.get("description") or None)
        for c in columns])


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
            run = metrics_core.recompute_all(conn)
        else:
            run = metrics_core.update_metrics(conn)
        total = conn.execute("SELECT count(*) FROM wove.researcher_metrics").fetchone()[0]
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": total,
            "mode": run.mode,
            "papers_changed": run.papers_changed,
            "researchers_recomputed": run.researchers_recomputed,
            "institutions_recomputed": run.institutions_recomputed,
            "seconds": round(run.seconds, 3),
            "phase_seconds": dg.MetadataValue.json({k: round(v, 3) for k, v in run.phases.items()}),
        }
    )


@dg.asset(
    deps=[researcher_metrics, dg.AssetKey("paper_embeddings")],
    group_name="serving",
    kinds={"postgres", "parquet"},
    code_version="2",
    description=(
        "The serving schema consumers read (docs/data-contract.md), readable by the wove_reader role. "
        "Incremental: only the rows the day's core-table changes reach (logged by triggers) are rewritten, "
        "in place, in one transaction. A full rebuild (built in serving_build, swapped in atomically) on the "
        "first publish, when the definition changes, when asked, or when most rows changed. Optionally "
        "exported as Parquet with a manifest."
    ),
)
def serving(context: dg.AssetExecutionContext, config: ServingConfig, database: DatabaseResource):
    result = serving_core.publish(database.url, site_url=config.site_url, export_dir=config.export_dir or None,
                                  full=config.full_rebuild)
    with database.transaction() as conn:
        columns = serving_core.serving_columns(conn)
    counts = result["row_counts"]
    written = result["rows_written"]
    metadata = {
        "dagster/row_count": counts.get("papers", 0),
        "mode": result["mode"],
        "full_rebuild_reason": result["reason"] or "",
        "rows_rewritten": sum(w["deleted"] + w["inserted"] for w in written.values()),
        "rows_written": dg.MetadataValue.json(written),
        "row_counts": dg.MetadataValue.json(counts),
        "publication_id": result["publication_id"],
        "published_at": result["published_at"].isoformat(),
        "schema_version": serving_core.SCHEMA_VERSION,
        "carried_functions": dg.MetadataValue.json(result["moved_functions"]),
    }
    # Column schemas for the catalog, read from the published tables (descriptions from the data
    # contract): the asset's own (its row count is serving.papers') and every table's and view's.
    schemas = {name: column_schema(cols) for name, cols in columns.items()}
    if "papers" in schemas:
        metadata["dagster/column_schema"] = schemas["papers"]
    for name, schema in schemas.items():
        metadata[f"columns/{name}"] = schema
    for table, n in counts.items():
        metadata[f"rows/{table}"] = n
    for table, w in written.items():
        metadata[f"rewritten/{table}"] = w["deleted"] + w["inserted"]
    if result["export"]:
        metadata["export_manifest"] = dg.MetadataValue.path(result["export"]["manifest"])
    return dg.MaterializeResult(metadata=metadata)
