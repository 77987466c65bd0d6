"""The Dagster assets: metrics then publish, with their metadata."""

import dagster as dg

from wove_pipeline.assets.serving import researcher_metrics, serving
from wove_pipeline.core import db
from wove_pipeline.resources import DatabaseResource

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
