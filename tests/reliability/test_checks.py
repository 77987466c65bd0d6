"""Asset checks: pass on good data, block downstream on broken data, warn on drops."""

from __future__ import annotations

import dagster as dg
import psycopg
import pytest
from psycopg.types.json import Jsonb

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


@dg.asset(partitions_def=papers.partitions_def)
def run_day() -> None:
    """Gives a run of checks alone its partition."""


def _evaluations(result) -> dict[str, dg.AssetCheckEvaluation]:
    return {e.check_name: e for e in result.get_asset_check_evaluations()}


def _run_checks(database_url: str, names: set[str], partition_key: str | None = None,
                ) -> dict[str, dg.AssetCheckEvaluation]:
    """Run these checks of ALL_CHECKS alone (their assets as stubs, daily partitioned in a run
    of `partition_key`) on the database."""
    checks = [c for c in ck.ALL_CHECKS if next(iter(c.check_keys)).name in names]
    assert {next(iter(c.check_keys)).name for c in checks} == names
    stubs = [dg.AssetSpec(k, partitions_def=papers.partitions_def if partition_key else None)
             for k in {next(iter(c.check_keys)).asset_key for c in checks}]
    selection = dg.AssetSelection.checks(*checks)
    if partition_key:  # a run of checks alone has no partitions: a partitioned no-op gives it the day
        stubs.append(run_day)
        selection = selection | dg.AssetSelection.assets(run_day)
    result = dg.materialize([*stubs, *checks], selection=selection, raise_on_error=False,
                            partition_key=partition_key,
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

    # Break positions behind the pipeline's back (a rule across rows, still scanned): a gap in
    # two day-0 papers, one of them moved into day 1, the run's day; the harvest of day 1 does
    # not rewrite it (it is not in day 1's records). Only that one is in the check's scope.
    with psycopg.connect(pipeline_env["WOVE_DATABASE_URL"]) as conn:
        first, second = [r[0] for r in conn.execute(
            "SELECT arxiv_id FROM wove.papers WHERE oai_datestamp = %s ORDER BY arxiv_id LIMIT 2", (days[0],))]
        conn.execute("DELETE FROM wove.paper_authors WHERE position = 0 AND arxiv_id = ANY(%s)", ([first, second],))
        conn.execute("UPDATE wove.papers SET oai_datestamp = %s WHERE arxiv_id = %s", (days[1], first))
    result = dg.materialize([arxiv_records, papers, downstream_of_papers, *checks], partition_key=days[1].isoformat(),
                            resources=_resources(pipeline_env), raise_on_error=False)
    evals = _evaluations(result)
    bad = evals["paper_authors_positions_contiguous"]
    assert not bad.passed and bad.severity == dg.AssetCheckSeverity.ERROR
    assert bad.metadata["violations"].value == 1 and bad.metadata["scope"].value == f"days {days[1]}..{days[1]}"
    assert bad.metadata["sample"].value[0]["arxiv_id"] == first
    assert all(e.passed for n, e in evals.items() if n != "paper_authors_positions_contiguous")
    assert not result.asset_materializations_for_node("downstream_of_papers")  # blocked
    # a run without partitions checks the whole table: both papers
    whole = _run_checks(pipeline_env["WOVE_DATABASE_URL"], {"paper_authors_positions_contiguous"})
    got = whole["paper_authors_positions_contiguous"]
    assert got.metadata["violations"].value == 2 and got.metadata["scope"].value == "whole table"


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


def test_embedding_dimensions_fail_on_bad_rows(database_url):
    with psycopg.connect(database_url) as conn:
        _insert_papers(conn, first=1, count=1)
        conn.execute("INSERT INTO wove.paper_embeddings (arxiv_id, model, dimensions, content_hash, embedding)"
                     " VALUES ('2501.00001', %s, 3, 'h', '[1,2,3]')", (EmbedderResource().config().name,))
    evals = _run_checks(database_url, {"paper_embeddings_dimensions"})
    assert not evals["paper_embeddings_dimensions"].passed


_METRICS_ROW = """INSERT INTO wove.researcher_metrics (researcher_id, papers_here, archive_h_index, archive_citations,
                  archive_works, archive_cited_papers, position_first, position_middle, position_last,
                  position_papers_considered, position_papers_total, categories, institutions, ext_h_index, ext_works)
                  VALUES (%s, 1, %s, 10, 1, 1, 1, 0, 0, 1, 1, '[]', '[]', %s, %s)"""


def _assert_guards_gone(database_url: str, names: set[str], standing: str) -> None:
    """Every guard check of ``names`` but ``standing`` fails, finding no guard in force."""
    evals = _run_checks(database_url, names)
    assert evals[standing].passed
    for n in names - {standing}:
        assert not evals[n].passed and evals[n].severity == dg.AssetCheckSeverity.ERROR, n
        assert evals[n].metadata["guards"].value == []


def test_row_rules_are_refused_by_the_database_and_checked_as_constraints(database_url):
    names = {c[1] for c in ck.CHECK_CONSTRAINTS}
    evals = _run_checks(database_url, names)
    assert all(evals[n].passed for n in names), {n: evals[n].metadata for n in names}
    assert all(evals[n].metadata["guards"].value == [n] for n in names)
    with psycopg.connect(database_url) as conn:
        _insert_papers(conn, first=1, count=1)
        conn.execute("INSERT INTO wove.paper_authors (arxiv_id, position, keyname) VALUES ('2501.00001', 0, 'X')")
    bad_rows = {  # each constraint in force refuses a row that breaks its rule
        "papers_primary_category_in_categories": "UPDATE wove.papers SET primary_category = 'xx.YY'",
        "papers_versions_consistent": "UPDATE wove.papers SET current_version = 2",
        "authorships_confidence_in_range": "INSERT INTO wove.authorships (arxiv_id, position, arxiv_name,"
                                           " s2_confidence) VALUES ('2501.00001', 0, 'X', 1.5)",
    }
    with psycopg.connect(database_url, autocommit=True) as conn:
        for name, statement in bad_rows.items():
            with pytest.raises(psycopg.errors.CheckViolation, match=name):
                conn.execute(statement)
        with pytest.raises(psycopg.errors.CheckViolation, match="papers_versions_consistent"):
            conn.execute("UPDATE wove.papers SET published = updated + interval '1 day'")
        with pytest.raises(psycopg.errors.CheckViolation, match="papers_versions_consistent"):
            conn.execute("""UPDATE wove.papers SET versions = '[{"version": 2}, {"version": 3}]'""")
        # what the parser accepts with a warning: a list starting past v1, no list (no arXivRaw)
        conn.execute("""UPDATE wove.papers SET versions = '[{"version": 2}, {"version": 3}]', current_version = 3""")
        conn.execute("UPDATE wove.papers SET versions = '[]', current_version = 2")
        # one constraint left NOT VALID (rows before it unchecked), one under another name, one as it was
        conn.execute("ALTER TABLE wove.papers DROP CONSTRAINT papers_primary_category_in_categories")
        conn.execute("ALTER TABLE wove.papers ADD CONSTRAINT papers_primary_category_in_categories"
                     " CHECK (primary_category = ANY (categories)) NOT VALID")
        conn.execute("ALTER TABLE wove.authorships DROP CONSTRAINT authorships_confidence_in_range")
        conn.execute("ALTER TABLE wove.authorships ADD CONSTRAINT authorships_in_range"
                     " CHECK (s2_confidence BETWEEN 0 AND 1 AND openalex_confidence BETWEEN 0 AND 1)")
    _assert_guards_gone(database_url, names, standing="papers_versions_consistent")


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
    names = {f[1] for f in ck.FOREIGN_KEYS}
    evals = _run_checks(database_url, names)
    assert all(evals[n].passed for n in names), {n: evals[n].metadata for n in names}
    assert evals["paper_authors_have_paper"].metadata["guards"].value == ["paper_authors_arxiv_id_fkey"]
    assert evals["authorships_have_author_position"].metadata["guards"].value == [
        "authorships_arxiv_id_position_fkey"]
    orphans = {  # the guard in force refuses an orphan
        "paper_authors": "INSERT INTO wove.paper_authors (arxiv_id, position, keyname) VALUES ('0000.00000', 0, 'X')",
        "s2_papers": "INSERT INTO wove.s2_papers (arxiv_id, paper_id, as_of, fetched_at)"
                     " VALUES ('0000.00000', 'p', now(), now())",
        "openalex_works": "INSERT INTO wove.openalex_works (arxiv_id, work_id, authors_complete, as_of, fetched_at)"
                          " VALUES ('0000.00000', 'w', true, now(), now())",
        "authorships": "INSERT INTO wove.authorships (arxiv_id, position, arxiv_name) VALUES ('0000.00000', 0, 'X')",
    }
    with psycopg.connect(database_url, autocommit=True) as conn:
        for statement in orphans.values():
            with pytest.raises(psycopg.errors.ForeignKeyViolation):
                conn.execute(statement)
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            conn.execute(_METRICS_ROW, (1, 1, None, None))
        for table in ("paper_authors", "s2_papers"):  # the key stays, out of force
            conn.execute(f"ALTER TABLE wove.{table} DISABLE TRIGGER ALL")
        conn.execute("ALTER TABLE wove.researcher_mentions DROP CONSTRAINT researcher_mentions_researcher_id_fkey")
        conn.execute("ALTER TABLE wove.openalex_works DROP CONSTRAINT openalex_works_arxiv_id_fkey")
        conn.execute("ALTER TABLE wove.authorships DROP CONSTRAINT authorships_arxiv_id_position_fkey")
        conn.execute("ALTER TABLE wove.authorships ADD CONSTRAINT authorships_arxiv_id_position_fkey"
                     " FOREIGN KEY (arxiv_id, position) REFERENCES wove.paper_authors NOT VALID")
    _assert_guards_gone(database_url, names, standing="researcher_metrics_have_researcher")
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE wove.paper_authors ENABLE TRIGGER ALL")
    assert _run_checks(database_url, names)["paper_authors_have_paper"].passed


def test_children_go_with_their_parents_on_the_pipelines_deletes(database_url):
    """ON DELETE CASCADE where the pipeline deletes parents: the harvest drops the positions a
    revision changed (their alignment goes, the day's enrichment re-aligns), matching deletes
    retired researchers (their metrics go)."""
    with psycopg.connect(database_url) as conn:
        _insert_papers(conn, first=1, count=1)
        conn.execute("INSERT INTO wove.paper_authors (arxiv_id, position, keyname)"
                     " VALUES ('2501.00001', 0, 'X'), ('2501.00001', 1, 'Y')")
        conn.execute("INSERT INTO wove.authorships (arxiv_id, position, arxiv_name)"
                     " VALUES ('2501.00001', 0, 'X'), ('2501.00001', 1, 'Y')")
        conn.execute("INSERT INTO wove.s2_papers (arxiv_id, paper_id, as_of, fetched_at)"
                     " VALUES ('2501.00001', 'p', now(), now())")
        conn.execute("INSERT INTO wove.researchers (researcher_id, display_name, normalized_name, mention_count)"
                     " VALUES (7, 'A B', 'a b', 1)")
        conn.execute(_METRICS_ROW, (7, 1, None, None))
    with psycopg.connect(database_url) as conn:
        conn.execute("DELETE FROM wove.paper_authors WHERE arxiv_id = '2501.00001' AND position = 1")
        assert conn.execute("SELECT array_agg(position) FROM wove.authorships").fetchone()[0] == [0]
        conn.execute("DELETE FROM wove.researchers WHERE researcher_id = 7")
        assert conn.execute("SELECT count(*) FROM wove.researcher_metrics").fetchone()[0] == 0
        conn.execute("DELETE FROM wove.papers")
        assert conn.execute("SELECT count(*) FROM wove.s2_papers").fetchone()[0] == 0


def test_scans_in_a_partitioned_run_check_the_runs_days(database_url):
    """Papers' author positions and the upstream authors on the day's papers' records: the
    run's days only; the whole table in a run without partitions."""
    with psycopg.connect(database_url) as conn:
        _insert_papers(conn, first=0, count=2)  # 2501.00000 on 2025-01-01, 2501.00001 on 2025-01-02
        conn.execute("INSERT INTO wove.paper_authors (arxiv_id, position, keyname)"
                     " VALUES ('2501.00000', 1, 'X'), ('2501.00001', 1, 'Y')")  # no position 0: gaps
        for i in (0, 1):
            conn.execute("INSERT INTO wove.s2_papers (arxiv_id, paper_id, authors, as_of, fetched_at)"
                         " VALUES (%s, %s, %s, now(), now())",
                         (f"2501.0000{i}", f"p{i}", Jsonb([{"author_id": f"s{i}", "name": "X"}])))
            conn.execute("INSERT INTO wove.s2_authors (author_id, h_index, paper_count, citation_count, as_of,"
                         " fetched_at) VALUES (%s, 9, 3, 5, now(), now())", (f"s{i}",))  # h-index > papers
            conn.execute("INSERT INTO wove.openalex_works (arxiv_id, work_id, authorships, authors_complete, as_of,"
                         " fetched_at) VALUES (%s, %s, %s, true, now(), now())",
                         (f"2501.0000{i}", f"w{i}", Jsonb([{"author_id": f"A{i}"}])))
            conn.execute("INSERT INTO wove.openalex_authors (author_id, h_index, works_count, cited_by_count, as_of,"
                         " fetched_at) VALUES (%s, 1, 0, 0, now(), now())", (f"A{i}",))
    names = {"paper_authors_positions_contiguous", "s2_authors_h_index_sane", "openalex_authors_h_index_sane"}
    day = _run_checks(database_url, names, partition_key="2025-01-02")
    whole = _run_checks(database_url, names)
    for n in names:
        assert not day[n].passed and day[n].metadata["violations"].value == 1, n
        assert day[n].metadata["scope"].value == "days 2025-01-02..2025-01-02"
        assert not whole[n].passed and whole[n].metadata["violations"].value == 2, n
        assert whole[n].metadata["scope"].value == "whole table"
    assert day["paper_authors_positions_contiguous"].severity == dg.AssetCheckSeverity.ERROR
    assert day["s2_authors_h_index_sane"].severity == dg.AssetCheckSeverity.WARN
    assert day["paper_authors_positions_contiguous"].metadata["sample"].value[0]["arxiv_id"] == "2501.00001"
    assert day["s2_authors_h_index_sane"].metadata["sample"].value[0]["author_id"] == "s1"
    assert day["openalex_authors_h_index_sane"].metadata["sample"].value[0]["author_id"] == "A1"


def test_publish_run_scans_check_what_changed_since_the_last_publish(database_url):
    """Redirects and co-author edges: the rows whose keys the change log (wove.serving_changes)
    holds since the last publish; the whole table after a TRUNCATE."""
    names = {"researcher_redirects_resolve", "researchers_not_redirected", "researcher_coauthors_symmetric",
             "researcher_metrics_sane"}

    def verdicts():
        got = _run_checks(database_url, names)
        return {n: (got[n].passed, got[n].metadata["violations"].value, got[n].metadata["scope"].value)
                for n in names}

    with psycopg.connect(database_url) as conn:
        conn.execute("INSERT INTO wove.researchers (researcher_id, display_name, normalized_name, mention_count)"
                     " VALUES (7, 'A', 'a', 1), (9, 'B', 'b', 1)")
        # 7 is redirected but has a row; 8's redirect points at nobody; an edge without its reverse
        conn.execute("INSERT INTO wove.researcher_redirects (old_id, new_id, reason)"
                     " VALUES (7, 9, 'merge'), (8, 10, 'merge')")
        conn.execute("INSERT INTO wove.researcher_coauthors (researcher_id, coauthor_id, papers) VALUES (7, 9, 1)")
        # h-index above the papers here; an external h-index without works (NULL) passes
        conn.execute(_METRICS_ROW, (7, 5, 3, None))
        conn.execute(_METRICS_ROW, (9, 1, 2, 1))  # an external h-index above the external works
    since = "written since the last publish"
    assert verdicts() == {"researcher_redirects_resolve": (False, 1, since),
                          "researchers_not_redirected": (False, 1, since),
                          "researcher_coauthors_symmetric": (False, 1, since),
                          "researcher_metrics_sane": (False, 2, since)}
    with psycopg.connect(database_url) as conn:
        conn.execute("DELETE FROM wove.serving_changes")  # as a publish does: older rows are out of scope
    assert verdicts() == {n: (True, 0, since) for n in names}
    with psycopg.connect(database_url) as conn:
        conn.execute("DELETE FROM wove.researcher_redirects WHERE old_id = 7")
        conn.execute("INSERT INTO wove.researcher_redirects (old_id, new_id, reason) VALUES (6, 9, 'merge')")
        conn.execute("UPDATE wove.researcher_metrics SET ext_h_index = 1 WHERE researcher_id = 9")  # fixed
        conn.execute("DELETE FROM wove.serving_changes")
        conn.execute("UPDATE wove.researcher_metrics SET papers_here = 6 WHERE researcher_id = 7")  # still bad
        conn.execute("DELETE FROM wove.researchers WHERE researcher_id = 9")  # the target of 6 goes
        # the reverse edge of 7 -> 9 written with another count
        conn.execute("INSERT INTO wove.researcher_coauthors (researcher_id, coauthor_id, papers) VALUES (9, 7, 2)")
    got = verdicts()
    assert got["researcher_redirects_resolve"] == (False, 1, since)  # found through the deleted target
    assert got["researchers_not_redirected"] == (True, 0, since)
    assert got["researcher_coauthors_symmetric"] == (False, 2, since)  # both directions differ
    assert got["researcher_metrics_sane"] == (False, 1, since)
    assert [r["researcher_id"] for r in _run_checks(database_url, {"researcher_metrics_sane"})[
        "researcher_metrics_sane"].metadata["sample"].value] == ["7"]
    with psycopg.connect(database_url) as conn:
        conn.execute("DELETE FROM wove.serving_changes")
        conn.execute("TRUNCATE wove.researcher_coauthors")  # logged as a truncate: the whole table next
        conn.execute("INSERT INTO wove.researcher_coauthors (researcher_id, coauthor_id, papers) VALUES (3, 3, 1)")
        conn.execute("DELETE FROM wove.serving_changes WHERE kind <> 'truncate'")
    got = verdicts()
    assert got["researcher_coauthors_symmetric"] == (False, 1, "whole table")  # an edge to oneself
    assert got["researcher_redirects_resolve"] == (True, 0, since)


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


def test_the_publication_check_counts_rows_after_a_full_rebuild_and_checks_bookkeeping_after_a_day(
        database_url, small_world):
    """serving_publication_consistent: every row counted after a full rebuild; after an
    incremental publish, the previous counts plus its inserts less its deletes (no scan).
    serving_row_counts (the weekly audit) counts every row whatever the last publish was."""
    from tests.serving.world_db import load_papers, load_static, papers_by_day, publish
    from wove_pipeline.metrics import compute as metrics

    names = {"serving_publication_consistent", "serving_row_counts"}

    def verdicts():
        got = _run_checks(database_url, names)
        return {n: (got[n].passed, got[n].metadata["mismatched"].value) for n in names}, \
            got["serving_publication_consistent"].metadata["scope"].value

    by_day = papers_by_day(small_world)
    days = list(by_day)
    with psycopg.connect(database_url) as conn:
        load_static(conn, small_world)
        known = load_papers(conn, small_world, by_day[days[0]])
        metrics.update_metrics(conn)
    assert publish(database_url).mode == "full"
    assert verdicts() == ({n: (True, {}) for n in names}, "counted")
    with psycopg.connect(database_url) as conn:
        load_papers(conn, small_world, by_day[days[1]], researchers_known=known)
        metrics.update_metrics(conn)
    day = publish(database_url, full_above=float("inf"))
    assert day.mode == "incremental" and day.rows_written["papers"]["inserted"] > 0
    assert verdicts() == ({n: (True, {}) for n in names}, "kept by the publishes")

    with psycopg.connect(database_url) as conn:  # a row gone behind the publish's back
        n = conn.execute("SELECT count(*) FROM serving.papers").fetchone()[0]
        conn.execute("DELETE FROM serving.papers WHERE arxiv_id = (SELECT min(arxiv_id) FROM serving.papers)")
    got, _ = verdicts()
    assert got["serving_publication_consistent"] == (True, {})  # the daily check does not scan
    assert got["serving_row_counts"] == (False, {"papers": {"expected": n, "actual": n - 1}})  # the audit does

    with psycopg.connect(database_url) as conn:  # a publish whose bookkeeping is off
        conn.execute("UPDATE wove.serving_publishes SET rows_written = jsonb_set(rows_written, '{papers,inserted}',"
                     " to_jsonb((rows_written #>> '{papers,inserted}')::int + 1))"
                     " WHERE publication_id = %s", (day.publication_id,))
    got, scope = verdicts()
    assert scope == "kept by the publishes"
    assert got["serving_publication_consistent"] == (False, {"papers": {"expected": n + 1, "actual": n}})

    with psycopg.connect(database_url) as conn:  # a publication that is not the last publish recorded
        conn.execute("UPDATE serving.publication SET publication_id = publication_id + 1")
    got, scope = verdicts()
    assert not got["serving_publication_consistent"][0] and scope == "recorded"
