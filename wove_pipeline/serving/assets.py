"""Serving stage: the serving schema consumers read (atomic publish, optional Parquet export)."""
# (no `from __future__ import annotations` here: Dagster reads the context annotation at definition time)

import dagster as dg
from pydantic import Field

from wove_pipeline.resources import DatabaseResource
from wove_pipeline.serving import export
from wove_pipeline.serving import publish as publishing
from wove_pipeline.serving.tables import SCHEMA_VERSION


class ServingConfig(dg.Config):
    # A default the launchpad's scaffold shows ('' = no export; None would leave it out).
    export_dir: str = Field(default="", description=(
        "Also write every serving table and view as Parquet plus manifest.json into this folder "
        "(docs/data-contract.md, 'Bulk export'); empty: no export."))
    site_url: str = ""  # prefix for absolute URLs in structured data (JSON-LD)
    full_rebuild: bool = False  # rebuild every table (same rows as the incremental publish)


def column_schema(columns: list[dict]) -> dg.TableSchema:
    """A dg.TableSchema from export.serving_columns' [{name, type, description}]."""
    return dg.TableSchema(columns=[
        dg.TableColumn(name=c["name"], type=c["type"], description=c.get("description") or None)
        for c in columns])


def publish_metadata(result: publishing.PublishResult, columns: dict[str, list[dict]]) -> dict:
    """The serving materialization's metadata: the publish, its row counts and rewrites, and
    the column schemas of every table and view."""
    counts, written = result.row_counts, result.rows_written
    metadata = {
        "dagster/row_count": counts.get("papers", 0),
        "mode": result.mode,
        "full_rebuild_reason": result.reason or "",
        "rows_rewritten": result.rows_rewritten,
        "rows_written": dg.MetadataValue.json(written),
        "row_counts": dg.MetadataValue.json(counts),
        "publication_id": result.publication_id,
        "published_at": result.published_at.isoformat(),
        "schema_version": SCHEMA_VERSION,
        "carried_functions": dg.MetadataValue.json(result.moved_functions),
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
    if result.export is not None:
        metadata["export_manifest"] = dg.MetadataValue.path(result.export.manifest)
    return metadata


@dg.asset(
    deps=[dg.AssetKey("researcher_metrics"), dg.AssetKey("paper_embeddings")],
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
    with database.connection() as conn:
        result = publishing.publish(conn, site_url=config.site_url, export_dir=config.export_dir or None,
                                    full=config.full_rebuild)
    with database.transaction() as conn:
        columns = export.serving_columns(conn)
    return dg.MaterializeResult(metadata=publish_metadata(result, columns))
