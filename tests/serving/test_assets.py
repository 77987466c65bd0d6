"""The Dagster assets: metrics then publish, with their metadata."""

import dagster as dg

from wove_pipeline.database import access as db
from wove_pipeline.metrics.assets import researcher_metrics
from wove_pipeline.resources import DatabaseResource
from wove_pipeline.serving import tables
from wove_pipeline.serving.assets import serving

from .world_db import load_papers, load_static


def test_metrics_and_serving_assets_materialize(database_url, small_world, tmp_path):
    with db.transaction(database_url) as conn:
        load_static(conn, small_world)
        load_papers(conn, small_world, small_world.papers)
    resources = {"database": DatabaseResource(url=database_url)}
    config = {"ops": {"serving": {"config": {"export_dir": str(tmp_path / "bulk")}}}}
    result = dg.materialize([researcher_metrics, serving], resources=resources, run_config=config)
    assert result.success
    m = result.asset_materializations_for_node("researcher_metrics")[0].metadata
    assert m["mode"].value == "full" and m["dagster/row_count"].value > 0
    s = result.asset_materializations_for_node("serving")[0].metadata
    assert s["rows/researchers"].value == m["dagster/row_count"].value
    assert (tmp_path / "bulk" / "manifest.json").exists()
    assert s["mode"].value == "full" and s["full_rebuild_reason"].value == "no serving schema yet"
    # Column schemas for the catalog, from the published tables themselves (descriptions from
    # the data contract): the asset's own (serving.papers) and every table's and view's.
    schema = s["dagster/column_schema"].value
    assert isinstance(schema, dg.TableSchema)
    with db.connect(database_url) as conn:
        for relation in (*tables.TABLES, *tables.VIEWS):
            actual = conn.execute(
                "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute "
                "WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
                (f"serving.{relation}",)).fetchall()
            got = s[f"columns/{relation}"].value
            assert [(c.name, c.type) for c in got.columns] == actual, relation
    assert [c.name for c in schema.columns] == [c.name for c in s["columns/papers"].value.columns]
    by_name = {c.name: c for c in schema.columns}
    assert by_name["cited_by_count"].type == "integer"
    assert "Semantic Scholar" in by_name["cited_by_count"].description  # the contract's meaning
    assert by_name["arxiv_id"].description == "arXiv id without version"
    again = dg.materialize([researcher_metrics, serving], resources=resources)
    m2 = again.asset_materializations_for_node("researcher_metrics")[0].metadata
    assert m2["mode"].value == "incremental" and m2["researchers_recomputed"].value == 0
    s2 = again.asset_materializations_for_node("serving")[0].metadata
    assert s2["mode"].value == "incremental" and s2["rows_rewritten"].value == 0
    assert s2["rewritten/papers"].value == 0 and s2["rows/papers"].value == s["rows/papers"].value
    full = dg.materialize([serving], resources=resources,
                          run_config={"ops": {"serving": {"config": {"full_rebuild": True}}}})
    s3 = full.asset_materializations_for_node("serving")[0].metadata
    assert s3["mode"].value == "full" and s3["full_rebuild_reason"].value == "requested"
