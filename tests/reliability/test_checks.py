"""Asset checks: pass on good data, block downstream on broken data, warn on drops."""

from __future__ import annotations

import dagster as dg
import psycopg
import pytest

from wove_pipeline.arxiv.assets import arxiv_records, papers
from wove_pipeline.assets import checks as ck
from wove_pipeline.resources import ArxivResource, DatabaseResource, RawStoreResource
from wove_pipeline.resources.embedder import EmbedderResource


def _resources(env):
    return {
        "database": DatabaseResource(url=env["WOVE_DATABASE_URL"]),
        "raw_store": RawStoreResource(root=env["WOVE_DATA_DIR"]),
        "arxiv": ArxivResource(base_url=env["ARXIV_OAI_URL"], min_interval_s=0),
        "embedder": EmbedderResource(),
    }


@dg.asset(deps=[papers], partitions_def=papers.partitions_def)
def downstream_of_papers() -> None:
    """Stands for enrichment: must not run when a blocking papers check fails."""


def _evaluations(result) -> dict[str, dg.AssetCheckEvaluation]:
    return {e.check_name: e for e in result.get_asset_check_evaluations()}


def _run_checks(database_url: str, names: set[str]) -> dict[str, dg.AssetCheckEvaluation]:
    """Run these checks of ALL_CHECKS alone (their assets as stubs) on the database."""
    checks = [c for c in ck.ALL_CHECKS if next(iter(c.check_keys)).name in names]
    assert {next(iter(c.check_keys)).name for c in checks} == names
    stubs = [dg.AssetSpec(k) for k in {next(iter(c.check_keys)).asset_key for c in checks}]
    result = dg.materialize([*stubs, *checks], selection=dg.AssetSelection.checks(*checks), raise_on_error=False,
                            resources={"database": DatabaseResource(url=database_url), "embedder": EmbedderResource()})
    return _evaluations(result)


def _insert_papers(conn, first: int, count: int, per_day: int = 1) -> None:
    """Papers 2501.<first>.. with the fields wove.papers requires, `per_day` a day from 2025-01-01."""
    conn.execute("""INSERT INTO wove.papers (arxiv_id, is_old_style, current_version, versions, title_tex, title,
                    authors, authors_display, categories, primary_category, published, updated, slug, abs_url,
                    pdf_url, oai_datestamp, content_hash)
                    SELECT format('2501.%%s', lpad(i::text, 5, '0')), false, 1, '[{}]', 't', 't', '[]', 'a',
                           '{cs.LG}', 'cs.LG', now(), now(), 's' || i, 'u', 'u', date '2025-01-01' + i / %s::int, 'h'
                    FROM generate_series(%s::int, %s::int) i""", (per_day, first, first + count - 1))


def test_checks_pass_on_a_good_day_and_block_downstream_on_a_broken_table(pipeline_env, small_world):
    days = sorted({p.datestamp for p in small_world.papers})
    checks = ck.checks_for([arxiv_records, papers])
    assert {c for c in (next(iter(x.check_keys)).name for x in checks)} >= {
        "papers_arxiv_id_unique", "papers_slug_unique", "paper_authors_have_paper",
        "papers_primary_category_in_categories", "papers_row_count_drop"}
    result = dg.materialize([arxiv_records, papers, downstream_of_papers, *checks], partition_key=days[0].isoformat(),
                            resources=_resources(pipeline_env))
    evals = _evaluations(result)
    assert evals and all(e.passed for e in evals.values()), {k: e.metadata for k, e in evals.items() if not e.passed}

    with psycopg.connect(pipeline_env["WOVE_DATABASE_URL"]) as conn:  # break the table behind the pipeline's back
        conn.execute("UPDATE wove.papers SET primary_category = 'xx.YY' WHERE arxiv_id = "
                     "(SELECT min(arxiv_id) FROM wove.papers)")
    result = dg.materialize([arxiv_records, papers, downstream_of_papers, *checks], partition_key=days[1].isoformat(),
                            resources=_resources(pipeline_env), raise_on_error=False)
    evals = _evaluations(result)
    bad = evals["papers_primary_category_in_categories"]
    assert not bad.passed and bad.severity == dg.AssetCheckSeverity.ERROR
    assert bad.metadata["violations"].value == 1
    assert not result.asset_materializations_for_node("downstream_of_papers")  # blocked


def test_row_count_drop_warns_from_materialization_history():
    assert ck.drop_verdict([100, 100, 100], 0.25)[0]  # not enough history
    assert ck.drop_verdict([30, 100, 90, 110], 0.25)[0]
    assert not ck.drop_verdict([10, 100, 90, 110], 0.25)[0]
    assert not ck.drop_verdict([85, 100, 100, 100], 0.9)[0]

    @dg.asset(name="serving", config_schema={"rows": int})
    def serving_stub(context) -> dg.MaterializeResult:
        return dg.MaterializeResult(metadata={"dagster/row_count": context.op_execution_context.op_config["rows"]})

    check = next(c for c in ck.ALL_CHECKS if next(iter(c.check_keys)).name == "serving_row_count_drop")
    with dg.DagsterInstance.ephemeral() as instance:
        verdicts = []
        for rows in (1000, 1010, 1020, 1030, 500):
            result = dg.materialize([serving_stub, check], instance=instance,
                                    run_config={"ops": {"serving": {"config": {"rows": rows}}}})
            verdicts.append(_evaluations(result)["serving_row_count_drop"])
    assert [v.passed for v in verdicts] == [True, True, True, True, False]
    # fewer than MIN_HISTORY earlier runs: nothing to compare with, so skipped, not judged
    assert [(v.description or "").startswith("Skipped: ") for v in verdicts] == [True, True, True, False, False]
    assert verdicts[-1].severity == dg.AssetCheckSeverity.WARN


def test_embedding_dimensions_and_metrics_sanity_fail_on_bad_rows(database_url):
    with psycopg.connect(database_url) as conn:
        _insert_papers(conn, first=1, count=1)
        conn.execute("INSERT INTO wove.paper_embeddings (arxiv_id, model, dimensions, content_hash, embedding)"
                     " VALUES ('2501.00001', %s, 3, 'h', '[1,2,3]')", (EmbedderResource().config().name,))
        conn.execute("INSERT INTO wove.researchers (researcher_id, display_name, normalized_name, mention_count)"
                     " VALUES (7, 'A B', 'a b', 1)")
        conn.execute("""INSERT INTO wove.researcher_metrics (researcher_id, papers_here, archive_h_index,
                        archive_citations, archive_works, archive_cited_papers, position_first, position_middle,
                        position_last, position_papers_considered, position_papers_total, categories, institutions)
                        VALUES (7, 1, 5, 10, 1, 1, 1, 0, 0, 1, 1, '[]', '[]')""")
    evals = _run_checks(database_url, {"paper_embeddings_dimensions", "researcher_metrics_sane",
                                       "researcher_metrics_have_researcher"})
    assert not evals["paper_embeddings_dimensions"].passed
    assert not evals["researcher_metrics_sane"].passed
    assert evals["researcher_metrics_have_researcher"].passed


def test_uniqueness_checks_fail_when_the_guarding_index_is_gone(database_url):
    names = {"papers_arxiv_id_unique", "papers_slug_unique"}
    evals = _run_checks(database_url, names)
    assert evals["papers_arxiv_id_unique"].passed and evals["papers_slug_unique"].passed
    assert evals["papers_slug_unique"].metadata["guards"].value == ["wove.papers_slug_idx"]
    with psycopg.connect(database_url) as conn:
        conn.execute("DROP INDEX wove.papers_slug_idx")
        conn.execute("CREATE INDEX papers_slug_idx ON wove.papers (slug)")  # an index, but not a unique one
    evals = _run_checks(database_url, names)
    assert evals["papers_arxiv_id_unique"].passed
    slug = evals["papers_slug_unique"]
    assert not slug.passed and slug.severity == dg.AssetCheckSeverity.ERROR


def test_orphan_checks_fail_when_the_foreign_key_is_gone_or_off(database_url):
    names = {"paper_authors_have_paper", "researcher_mentions_have_researcher"}
    evals = _run_checks(database_url, names)
    assert all(evals[n].passed for n in names), {n: evals[n].metadata for n in names}
    assert evals["paper_authors_have_paper"].metadata["guards"].value == ["paper_authors_arxiv_id_fkey"]
    with psycopg.connect(database_url, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.ForeignKeyViolation):  # the guard in force refuses an orphan
            conn.execute("INSERT INTO wove.paper_authors (arxiv_id, position, keyname) VALUES ('0000.00000', 0, 'X')")
        conn.execute("ALTER TABLE wove.paper_authors DISABLE TRIGGER ALL")  # the key stays, out of force
        conn.execute("ALTER TABLE wove.researcher_mentions DROP CONSTRAINT researcher_mentions_researcher_id_fkey")
    evals = _run_checks(database_url, names)
    for n in names:
        assert not evals[n].passed and evals[n].severity == dg.AssetCheckSeverity.ERROR
        assert evals[n].metadata["guards"].value == []
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE wove.paper_authors ENABLE TRIGGER ALL")
    assert _run_checks(database_url, names)["paper_authors_have_paper"].passed


def test_coverage_warns_on_a_recent_gap_that_the_whole_archive_would_hide(database_url):
    # 120 days of 10 papers; S2 knows every paper but those of days 60..99 (a broken month).
    # The newest day is 119: the window is days 76..105 (30 days before the last 14).
    with psycopg.connect(database_url) as conn:
        _insert_papers(conn, first=0, count=1200, per_day=10)
        conn.execute("""INSERT INTO wove.s2_papers (arxiv_id, paper_id, as_of, fetched_at)
                        SELECT arxiv_id, 'p' || arxiv_id, oai_datestamp, now() FROM wove.papers
                        WHERE oai_datestamp - date '2025-01-01' NOT BETWEEN 60 AND 99""")
    def evaluate():
        return _run_checks(database_url, {"s2_papers_coverage"})["s2_papers_coverage"]

    # older than 14 days: 1,060 papers, 660 known (62%): a whole-archive share would pass
    got = evaluate()
    assert not got.passed and got.severity == dg.AssetCheckSeverity.WARN
    md = {k: v.value for k, v in got.metadata.items()}
    assert (md["first_day"], md["last_day"]) == ("2025-03-18", "2025-04-16")  # days 76..105
    assert (md["papers_considered"], md["papers_covered"], md["coverage"]) == (300, 60, 0.2)
    with psycopg.connect(database_url) as conn:  # the month is fetched after all
        conn.execute("""INSERT INTO wove.s2_papers (arxiv_id, paper_id, as_of, fetched_at)
                        SELECT arxiv_id, 'p' || arxiv_id, oai_datestamp, now() FROM wove.papers
                        WHERE oai_datestamp - date '2025-01-01' BETWEEN 60 AND 99""")
    got = evaluate()
    assert got.passed and got.metadata["coverage"].value == 1.0


def test_checks_wire_into_definitions_with_freshness(database_url):
    from wove_pipeline.enrichment import assets as enrichment
    from wove_pipeline.matching import assets as matching
    from wove_pipeline.metrics import assets as metrics
    from wove_pipeline.search import assets as embeddings
    from wove_pipeline.serving import assets as serving
    assets = [arxiv_records, papers, *enrichment.daily_enrichment_assets, embeddings.paper_embeddings,
              matching.researchers, metrics.researcher_metrics, serving.serving, *enrichment.refresh_assets]
    fresh = ck.apply_freshness(assets)
    checks = ck.checks_for(fresh)
    targets = {next(iter(c.check_keys)).asset_key.to_user_string() for c in checks}
    assert {"papers", "s2_papers", "researchers", "serving"} <= targets
    from wove_pipeline.resources.enrichment import OpenAlexResource, SemanticScholarResource
    defs = dg.Definitions(assets=fresh, asset_checks=checks, resources={
        "database": DatabaseResource(url=database_url), "raw_store": RawStoreResource(), "arxiv": ArxivResource(),
        "s2": SemanticScholarResource(), "openalex": OpenAlexResource(), "embedder": EmbedderResource()})
    graph = defs.resolve_asset_graph()
    # every asset runs on a daily schedule: the published ones and the citation refresh too
    keys = {spec.key.to_user_string() for a in assets for spec in a.specs}
    assert {"serving", "researchers", "s2_citation_refresh", "paper_embeddings", "arxiv_records"} <= keys
    assert all(graph.get(dg.AssetKey(key)).freshness_policy == ck.FRESHNESS_POLICY for key in keys)
    blocking = [c for c in checks if any(s.blocking for s in c.check_specs)]
    assert len(blocking) >= 8


def _statuses(database_url: str, names: set[str]) -> dict[str, str]:
    """Run these checks (their assets as stubs) in a run of their own: each check's execution
    status as the UI resolves it (PLANNED in a successful run reads Skipped)."""
    checks = [c for c in ck.ALL_CHECKS if next(iter(c.check_keys)).name in names]
    stubs = [dg.AssetSpec(k) for k in {next(iter(c.check_keys)).asset_key for c in checks}]
    instance = dg.DagsterInstance.ephemeral()
    result = dg.materialize([*stubs, *checks], selection=dg.AssetSelection.checks(*checks), instance=instance,
                            resources={"database": DatabaseResource(url=database_url)})
    assert result.success
    assert not result.get_asset_check_evaluations()  # no verdict, no figures
    return {key.name: instance.event_log_storage.get_asset_check_execution_history(key, limit=1)[0].status.value
            for c in checks for key in c.check_keys}


def test_coverage_is_skipped_with_nothing_to_judge(database_url):
    names = {"s2_papers_coverage", "openalex_works_coverage"}
    # a migrated database before the first harvest: no papers at all
    assert _statuses(database_url, names) == {n: "PLANNED" for n in names}  # planned, not executed: Skipped
    # 15 days harvested, all younger than the 14-day lag but one: 1 paper in the window, too few
    with psycopg.connect(database_url) as conn:
        _insert_papers(conn, first=0, count=15, per_day=1)
    assert _statuses(database_url, names) == {n: "PLANNED" for n in names}
    # enough papers: a real verdict with its figures (no upstream record at all: a warning)
    with psycopg.connect(database_url) as conn:
        _insert_papers(conn, first=15, count=40, per_day=1)
    got = _run_checks(database_url, names)
    assert set(got) == names
    for name, verdict in got.items():
        md = {k: v.value for k, v in verdict.metadata.items()}
        assert not verdict.passed and "skipped" not in md and not (verdict.description or "").startswith("Skipped")
        assert (md["papers_considered"], md["coverage"]) == (30, 0.0), name  # days 11..40


def test_rows_per_partition_of_a_run_from_its_materializations():
    from types import SimpleNamespace

    def rec(run, rows=None, **extra):
        meta = {**({"dagster/row_count": rows} if rows is not None else {}), **extra}
        return SimpleNamespace(run_id=run, asset_materialization=dg.AssetMaterialization("papers", metadata=meta))

    records = [
        # per-partition figures (a 3-day run): the mean of the days
        rec("a", 100, run_partitions=3), rec("a", 200, run_partitions=3), rec("a", 391, run_partitions=3),
        # the older way: the run's total on each of 2 days
        rec("b", 500), rec("b", 500),
        # only run totals (run_row_count): no row count to compare
        rec("c", run_row_count=900, run_partitions=2), rec("c", run_row_count=900, run_partitions=2),
        rec("d", 120, run_partitions=1),
    ]
    assert ck.per_run_rows(records) == [("a", 691 / 3), ("b", 250.0), ("d", 120.0)]
