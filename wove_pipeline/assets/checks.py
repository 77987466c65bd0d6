"""Asset checks: integrity (blocking), row-count drops and coverage (warnings), freshness.

Integrity checks are *blocking*: in a run that materializes the asset, a failed check stops
every downstream asset of that run (a broken papers table never reaches enrichment,
matching or serving). Warnings (a sudden drop in rows, low upstream coverage, upstream
figures that make no sense) show in the UI and the run's events but stop nothing.

A day's checks cost the day, not the archive: a rule the database enforces (unique index,
foreign key, CHECK constraint) is checked as its guard being in force; a rule across rows is
scanned over the rows the run wrote (its partitions' papers, or the keys logged since the
last publish), the whole table only in a run without partitions.

Every check is plain SQL through the database resource, read-only, under a statement
timeout (``check_sql``); the serving checks are in ``serving_checks``. Checks target assets
by key, so this module imports no asset module; a check whose asset is not in the code
location is simply left out: wire
``checks_for(all_assets)`` (or ``ALL_CHECKS`` once every stage is wired).

Freshness: ``FRESHNESS_POLICY`` on every asset (each is materialized by a daily schedule:
harvest 06:00, publish 08:00, citation refresh 09:00 UTC; a materialization at least every
26 h warns, 30 h fails), applied with ``apply_freshness(assets)``.
"""

# (no `from __future__ import annotations`: Dagster reads the context annotation at definition time)

import datetime as dt
import statistics
from collections.abc import Iterable, Sequence

import dagster as dg
from psycopg import sql

from wove_pipeline.assets.check_sql import missing_tables, read_only
# a constant, not an asset
from wove_pipeline.assets.partition_metadata import RUN_PARTITIONS
from wove_pipeline.assets.serving_checks import SERVING_ROW_COUNTS, serving_checks
from wove_pipeline.database import access as db
from wove_pipeline.resources import DatabaseResource

ERROR, WARN = dg.AssetCheckSeverity.ERROR, dg.AssetCheckSeverity.WARN

SAMPLE_ROWS = 5

# Row-count drop: warn when a run's rows per partition day fall below this share of the
# median of the previous runs (at least MIN_HISTORY of them, at most HISTORY_RUNS).
DROP_RATIO_DAILY = 0.25  # days differ a lot (weekends, holidays): only a collapse warns
DROP_RATIO_GLOBAL = 0.9  # whole-table assets should not shrink by more than 10% at once
HISTORY_RUNS = 7
MIN_HISTORY = 3

# Coverage: share of the papers of the COVERAGE_WINDOW_DAYS days before the last
# COVERAGE_LAG_DAYS (upstreams index new papers late) that have an upstream record. A recent
# window, not the whole archive: over years of history a month of failed enrichment would move
# the share by a few points and never warn, and a scan of every paper costs more every day.
COVERAGE_LAG_DAYS = 14
COVERAGE_WINDOW_DAYS = 30
MIN_COVERAGE = 0.5
MIN_COVERAGE_PAPERS = 20

FRESHNESS_POLICY = dg.FreshnessPolicy.time_window(
    fail_window=dt.timedelta(hours=30), warn_window=dt.timedelta(hours=26)
)


def apply_freshness(assets: Iterable) -> list:
    """The assets with FRESHNESS_POLICY. Not only the harvest's: a publish (or citation refresh)
    that stops, failing or with its schedule off, leaves the site behind while every daily
    asset is fresh, and the UI should say so."""
    return list(dg.map_asset_specs(lambda spec: dg.apply_freshness_policy(spec, FRESHNESS_POLICY), list(assets)))


# ----------------------------------------------------------------------------------------
# SQL checks


def skip_result(reason: str, **metadata) -> dg.AssetCheckResult:
    """A check with nothing to judge. Dagster has no skipped result a check can return (a check
    must yield its result; only an unexecuted one reads SKIPPED), so it passes, says
    "Skipped: <reason>" in its description, and carries the reason as `skipped` metadata
    instead of figures that would look like a verdict."""
    return dg.AssetCheckResult(passed=True, description=f"Skipped: {reason}", metadata={"skipped": reason, **metadata})


def _skipped_unless_migrated(conn, tables: Sequence[str]) -> dg.AssetCheckResult | None:
    """A skipped result when a table the check reads does not exist yet (a database not
    migrated that far); None when they all do."""
    missing = missing_tables(conn, tables)
    return skip_result(f"tables not migrated: {missing}") if missing else None


# Rules across rows that no constraint states, checked by a scan of the rows a run wrote.
# `{rows}` stands for the rows in scope (see _rows_in_scope): in a partitioned run, those of
# the run's days (SCOPE_DAYS) or those written since the last publish (SCOPE_CHANGES); the
# whole table otherwise.
SCOPE_DAYS, SCOPE_CHANGES = "days", "changes"

# (asset, name, description, violations in {rows}, tables, table scoped, scope)
INTEGRITY = [
    ("papers", "paper_authors_positions_contiguous", "Author positions of a paper are 0..n-1 with no gap.",
     "SELECT arxiv_id, count(*) AS n, max(position) AS max_position FROM {rows} GROUP BY arxiv_id"
     " HAVING max(position) <> count(*) - 1 OR min(position) <> 0",
     ["wove.paper_authors", "wove.papers"], "wove.paper_authors", SCOPE_DAYS),
    # --- matching (the publish run: researchers written since the last publish)
    ("researchers", "researcher_redirects_resolve", "A redirect points at a live researcher, never at itself.",
     "SELECT d.old_id, d.new_id FROM {rows} d LEFT JOIN wove.researchers r"
     " ON r.researcher_id = d.new_id WHERE r.researcher_id IS NULL OR d.old_id = d.new_id",
     ["wove.researcher_redirects", "wove.researchers", "wove.serving_changes"], "wove.researcher_redirects",
     SCOPE_CHANGES),
    ("researchers", "researchers_not_redirected", "A redirected (retired) id has no researcher row any more.",
     "SELECT r.researcher_id FROM {rows} r JOIN wove.researcher_redirects d ON d.old_id = r.researcher_id",
     ["wove.researcher_redirects", "wove.researchers", "wove.serving_changes"], "wove.researchers",
     SCOPE_CHANGES),
    # --- metrics. Not a CHECK constraint: the external figures are upstream's as they come
    # (implausible ones warn on s2_authors / openalex_authors), and a constraint would fail the
    # metrics run on one such record (migration 0020).
    ("researcher_metrics", "researcher_metrics_sane",
     "h-index at most the papers known (archive: papers here; external: works); positions counted over at most "
     "the papers considered, which are at most the papers total; no negative counts.",
     "SELECT researcher_id, papers_here, archive_h_index, archive_works, ext_h_index, ext_works"
     " FROM {rows} m WHERE archive_h_index > papers_here OR archive_h_index > archive_works"
     " OR archive_h_index > archive_cited_papers OR (ext_h_index IS NOT NULL AND ext_works IS NOT NULL"
     " AND ext_h_index > ext_works) OR position_papers_considered > position_papers_total"
     " OR position_first + position_middle + position_last < position_papers_considered"
     " OR least(papers_here, archive_citations, archive_works, position_first, position_middle, position_last) < 0",
     ["wove.researcher_metrics", "wove.serving_changes"], "wove.researcher_metrics", SCOPE_CHANGES),
    ("researcher_metrics", "researcher_coauthors_symmetric", "Co-author edges come in both directions, same count.",
     "SELECT a.researcher_id, a.coauthor_id FROM {rows} a LEFT JOIN wove.researcher_coauthors b"
     " ON b.researcher_id = a.coauthor_id AND b.coauthor_id = a.researcher_id"
     " WHERE b.researcher_id IS NULL OR b.papers <> a.papers OR a.researcher_id = a.coauthor_id",
     ["wove.researcher_coauthors", "wove.serving_changes"], "wove.researcher_coauthors", SCOPE_CHANGES),
]

# The rows of a table a run wrote, by the run's days (%(first)s..%(last)s, papers' OAI
# datestamp, an index range) ...
_DAY_ROWS = {
    "wove.paper_authors": "(SELECT pa.* FROM wove.papers p JOIN wove.paper_authors pa USING (arxiv_id)"
                          " WHERE p.oai_datestamp BETWEEN %(first)s AND %(last)s)",
    # the upstream authors on the day's papers' upstream records: those the day's fetch asked for
    "wove.s2_authors": "(SELECT t.* FROM wove.s2_authors t WHERE t.author_id IN (SELECT e ->> 'author_id'"
                       " FROM wove.papers p JOIN wove.s2_papers s USING (arxiv_id)"
                       " CROSS JOIN jsonb_array_elements(s.authors) e"
                       " WHERE p.oai_datestamp BETWEEN %(first)s AND %(last)s))",
    "wove.openalex_authors": "(SELECT t.* FROM wove.openalex_authors t WHERE t.author_id IN (SELECT e ->> 'author_id'"
                             " FROM wove.papers p JOIN wove.openalex_works w USING (arxiv_id)"
                             " CROSS JOIN jsonb_array_elements(w.authorships) e"
                             " WHERE p.oai_datestamp BETWEEN %(first)s AND %(last)s))",
}
# ... or by the keys logged since the last publish (wove.serving_changes, 0009/0010: every
# write's keys, whoever the writer; a publish empties it, after these checks in its run, and
# a blocked run publishes nothing, so what a failed check found is found again next run).
_LOGGED_IDS = ("SELECT key::bigint FROM wove.serving_changes WHERE kind IN ('researcher', 'redirect')")
_CHANGED_ROWS = {
    # a redirect written (its old and new id logged), or its target deleted (the researcher)
    "wove.researcher_redirects": f"(SELECT d.* FROM wove.researcher_redirects d WHERE d.old_id IN ({_LOGGED_IDS})"
                                 f" UNION SELECT d.* FROM wove.researcher_redirects d"
                                 f" WHERE d.new_id IN ({_LOGGED_IDS}))",
    # a researcher written, or a redirect from its id
    "wove.researchers": f"(SELECT r.* FROM wove.researchers r WHERE r.researcher_id IN ({_LOGGED_IDS}))",
    "wove.researcher_metrics": "(SELECT m.* FROM wove.researcher_metrics m WHERE m.researcher_id IN"
                               " (SELECT key::bigint FROM wove.serving_changes WHERE kind = 'researcher_metrics'))",
    # each edge written (logged as 'researcher_id:coauthor_id'), and its reverse
    "wove.researcher_coauthors": "(SELECT c.* FROM wove.researcher_coauthors c WHERE (c.researcher_id, c.coauthor_id)"
                                 " IN (SELECT split_part(key, ':', i)::bigint, split_part(key, ':', 3 - i)::bigint"
                                 " FROM wove.serving_changes, generate_series(1, 2) i WHERE kind = 'coauthor_pair'))",
}
_SCOPE_NOTE = {
    SCOPE_DAYS: " Checked over the papers of the run's partitions (OAI datestamp); the whole table in a run "
                "without partitions.",
    SCOPE_CHANGES: " Checked over the rows written since the last publish (the wove.serving_changes log); the "
                   "whole table after a TRUNCATE of a table it reads.",
}


def _rows_in_scope(context: dg.AssetCheckExecutionContext, conn, table: str, scope: str,
                   tables: Sequence[str]) -> tuple[str, dict, str]:
    """(the rows of `table` to check, as an SQL relation; its parameters; the scope in words).
    `tables`: those the check reads (a TRUNCATE of one is logged as such, with no keys)."""
    if scope == SCOPE_DAYS and (context.has_partition_key or context.has_partition_key_range):
        keys = context.partition_key_range
        days = {"first": dt.date.fromisoformat(keys.start), "last": dt.date.fromisoformat(keys.end)}
        return _DAY_ROWS[table], days, f"days {days['first']}..{days['last']}"
    if scope == SCOPE_CHANGES and not db.fetch_value(
            conn, "SELECT EXISTS (SELECT 1 FROM wove.serving_changes WHERE kind = 'truncate' AND key = ANY(%s))",
            ([t.split(".")[-1] for t in tables],)):
        return _CHANGED_ROWS[table], {}, "written since the last publish"
    return table, {}, "whole table"


def sql_check(asset: str, name: str, description: str, violations_sql: str, *, tables: Sequence[str],
              scoped: str, scope: str, blocking: bool = True,
              severity: dg.AssetCheckSeverity = ERROR) -> dg.AssetChecksDefinition:
    """A check that passes when `violations_sql` (SELECT ... rows that break the rule) returns
    no row; `{rows}` in it stands for the rows of table `scoped` in `scope` (_rows_in_scope).
    The first SAMPLE_ROWS violations go into the metadata."""

    @dg.asset_check(asset=dg.AssetKey(asset), name=name, blocking=blocking,
                    description=description + _SCOPE_NOTE[scope])
    def _check(context: dg.AssetCheckExecutionContext, database: DatabaseResource) -> dg.AssetCheckResult:
        with database.transaction() as conn:
            read_only(conn)
            if (skipped := _skipped_unless_migrated(conn, tables)) is not None:
                return skipped
            rows, params, in_words = _rows_in_scope(context, conn, scoped, scope, tables)
            violations = sql.SQL(violations_sql.replace("{rows}", rows))
            count = db.fetch_value(conn, sql.SQL("SELECT count(*) FROM ({}) v").format(violations), params)
            sample = db.fetch_all(conn, sql.SQL("SELECT * FROM ({}) v LIMIT {}").format(
                violations, sql.Literal(SAMPLE_ROWS)), params) if count else []
        return dg.AssetCheckResult(
            passed=count == 0,
            severity=severity,
            metadata={"violations": int(count), "scope": in_words,
                      "sample": dg.MetadataValue.json([{k: str(v) for k, v in row.items()} for row in sample])},
        )

    return _check


# Rules the database enforces (a unique index, a foreign key, a CHECK constraint): checked as
# the guard being in place and in force, not by scanning for violations, which a scan of the
# whole table could never find while the guard stands and which cost more every day as the
# archive grows.
UNIQUE = [
    ("papers", "papers_arxiv_id_unique", "Every arXiv id is one paper row.", "wove.papers", ("arxiv_id",)),
    ("papers", "papers_slug_unique", "Every URL slug names one paper.", "wove.papers", ("slug",)),
]
FOREIGN_KEYS = [
    ("papers", "paper_authors_have_paper", "No author position without its paper (no orphan authorships).",
     "wove.paper_authors", ("arxiv_id",), "wove.papers"),
    ("researchers", "researcher_mentions_have_researcher",
     "Every mention links to an existing researcher (no orphan mentions).",
     "wove.researcher_mentions", ("researcher_id",), "wove.researchers"),
    # migration 0020
    ("s2_papers", "s2_papers_have_paper", "Every S2 record belongs to a paper in wove.papers.",
     "wove.s2_papers", ("arxiv_id",), "wove.papers"),
    ("openalex_works", "openalex_works_have_paper", "Every OpenAlex work row belongs to a paper in wove.papers.",
     "wove.openalex_works", ("arxiv_id",), "wove.papers"),
    ("authorships", "authorships_have_author_position",
     "Every aligned authorship is an arXiv author position (no orphan authorships).",
     "wove.authorships", ("arxiv_id", "position"), "wove.paper_authors"),
    ("researcher_metrics", "researcher_metrics_have_researcher", "Metrics rows belong to existing researchers.",
     "wove.researcher_metrics", ("researcher_id",), "wove.researchers"),
]
# CHECK constraints of migration 0020, each named as its check.
CHECK_CONSTRAINTS = [
    ("papers", "papers_primary_category_in_categories", "The primary category is one of the paper's categories.",
     "wove.papers"),
    ("papers", "papers_versions_consistent", "current_version is the last listed version's number (at least 1 where none is "
     "listed); published <= updated.",
     "wove.papers"),
    ("authorships", "authorships_confidence_in_range", "Alignment confidences lie in [0, 1].", "wove.authorships"),
]

_UNIQUE_GUARDS_SQL = """
SELECT i.indexrelid::regclass::text AS guard FROM pg_index i
WHERE i.indrelid = to_regclass(%s) AND i.indisunique AND i.indisvalid AND i.indisready
  AND i.indpred IS NULL AND i.indexprs IS NULL
  AND ARRAY(SELECT a.attname::text FROM unnest(i.indkey::int2[]) AS k(attnum)
            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY 1) = %s::text[]
ORDER BY 1"""

# A validated foreign key on exactly these columns to the referenced table, enforced
# (conenforced exists from PostgreSQL 18 on: read through to_jsonb so older servers work too)
# and with none of its triggers disabled (ALTER TABLE ... DISABLE TRIGGER ALL turns it off).
_FOREIGN_KEY_GUARDS_SQL = """
SELECT c.conname::text AS guard FROM pg_constraint c
WHERE c.contype = 'f' AND c.conrelid = to_regclass(%s) AND c.confrelid = to_regclass(%s) AND c.convalidated
  AND coalesce((to_jsonb(c) ->> 'conenforced')::boolean, true)
  AND NOT EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgconstraint = c.oid AND t.tgenabled = 'D')
  AND ARRAY(SELECT a.attname::text FROM unnest(c.conkey) AS k(attnum)
            JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY 1) = %s::text[]
ORDER BY 1"""

# A validated CHECK constraint of this name on the table, enforced (conenforced: PostgreSQL
# 18's NOT ENFORCED, read as for foreign keys).
_CHECK_CONSTRAINT_GUARDS_SQL = """
SELECT c.conname::text AS guard FROM pg_constraint c
WHERE c.contype = 'c' AND c.conrelid = to_regclass(%s) AND c.conname = %s AND c.convalidated
  AND coalesce((to_jsonb(c) ->> 'conenforced')::boolean, true)
ORDER BY 1"""


def _guard_check(asset: str, name: str, description: str, tables: Sequence[str], guards_sql: str,
                 params: tuple, metadata: dict[str, str]) -> dg.AssetChecksDefinition:
    """Passes when `guards_sql` finds the database object that enforces the rule; the guards
    found (their names) go into the metadata."""

    @dg.asset_check(asset=dg.AssetKey(asset), name=name, blocking=True, description=description)
    def _check(context: dg.AssetCheckExecutionContext, database: DatabaseResource) -> dg.AssetCheckResult:
        with database.transaction() as conn:
            read_only(conn)
            if (skipped := _skipped_unless_migrated(conn, tables)) is not None:
                return skipped
            guards = [r["guard"] for r in db.fetch_all(conn, guards_sql, params)]
        return dg.AssetCheckResult(passed=bool(guards), metadata={"guards": dg.MetadataValue.json(guards), **metadata})

    return _check


def unique_check(asset: str, name: str, description: str, table: str,
                 columns: Sequence[str]) -> dg.AssetChecksDefinition:
    """Passes when a valid unique index on exactly `columns` guards `table` (the database
    then refuses every duplicate at write time)."""
    return _guard_check(
        asset, name, f"{description} Enforced by a unique index on ({', '.join(columns)}); the check confirms the "
                     "index is in place and valid.",
        [table], _UNIQUE_GUARDS_SQL, (table, sorted(columns)), {"columns": ", ".join(columns)})


def foreign_key_check(asset: str, name: str, description: str, table: str, columns: Sequence[str],
                      referenced: str) -> dg.AssetChecksDefinition:
    """Passes when a validated, enforced foreign key from `table` (`columns`) to `referenced`
    guards the relation (the database then refuses every orphan at write time)."""
    return _guard_check(
        asset, name, f"{description} Enforced by a foreign key {table} ({', '.join(columns)}) -> {referenced}; "
                     "the check confirms it is in place, validated and in force.",
        [table, referenced], _FOREIGN_KEY_GUARDS_SQL, (table, referenced, sorted(columns)),
        {"columns": ", ".join(columns), "references": referenced})


def check_constraint_check(asset: str, name: str, description: str, table: str) -> dg.AssetChecksDefinition:
    """Passes when a validated, enforced CHECK constraint named `name` guards `table` (the
    database then refuses every row that breaks the rule at write time)."""
    return _guard_check(
        asset, name, f"{description} Enforced by the CHECK constraint {name} on {table}; the check confirms it is "
                     "in place, validated and in force.",
        [table], _CHECK_CONSTRAINT_GUARDS_SQL, (table, name), {"table": table})


# Figures that come from upstream: implausible ones warn (they are not ours to block on).
UPSTREAM_SANITY = [
    ("s2_authors", "s2_authors_h_index_sane", "S2 h-index at most the author's paper count, counts not negative.",
     "SELECT author_id, h_index, paper_count FROM {rows} t WHERE h_index > paper_count"
     " OR least(h_index, paper_count, citation_count) < 0",
     ["wove.s2_authors", "wove.s2_papers", "wove.papers"], "wove.s2_authors", SCOPE_DAYS),
    ("openalex_authors", "openalex_authors_h_index_sane",
     "OpenAlex h-index at most works_count, i10 at most works_count, counts not negative.",
     "SELECT author_id, h_index, works_count FROM {rows} t WHERE h_index > works_count"
     " OR i10_index > works_count OR least(h_index, works_count, cited_by_count) < 0",
     ["wove.openalex_authors", "wove.openalex_works", "wove.papers"], "wove.openalex_authors", SCOPE_DAYS),
]


def _integrity_checks() -> list[dg.AssetChecksDefinition]:
    out = [unique_check(*u) for u in UNIQUE]
    out += [foreign_key_check(*f) for f in FOREIGN_KEYS]
    out += [check_constraint_check(*c) for c in CHECK_CONSTRAINTS]
    out += [sql_check(a, n, d, q, tables=t, scoped=st, scope=sc) for a, n, d, q, t, st, sc in INTEGRITY]
    out += [sql_check(a, n, d, q, tables=t, scoped=st, scope=sc, blocking=False, severity=WARN)
            for a, n, d, q, t, st, sc in UPSTREAM_SANITY]
    return out


# ----------------------------------------------------------------------------------------
# embeddings: dimensions equal the configured model's


def _embedding_dimensions_check() -> dg.AssetChecksDefinition:
    from wove_pipeline.resources.embedder import EmbedderResource
    @dg.asset_check(asset=dg.AssetKey("paper_embeddings"), name="paper_embeddings_dimensions", blocking=True,
                    description="Every vector of the configured model has the configured number of dimensions, "
                                "and every row's vector length equals its recorded dimensions.")
    def paper_embeddings_dimensions(context: dg.AssetCheckExecutionContext, database: DatabaseResource,
                                    embedder: EmbedderResource) -> dg.AssetCheckResult:
        config = embedder.config()
        with database.transaction() as conn:
            read_only(conn)
            if (skipped := _skipped_unless_migrated(conn, ["wove.paper_embeddings"])) is not None:
                return skipped
            rows = db.fetch_all(conn, """
                SELECT arxiv_id, model, dimensions, vector_dims(embedding) AS actual FROM wove.paper_embeddings
                WHERE (model = %s AND dimensions <> %s) OR vector_dims(embedding) <> dimensions
                LIMIT 1000""", (config.name, config.dimensions))
            total = db.fetch_value(conn, "SELECT count(*) FROM wove.paper_embeddings WHERE model = %s", (config.name,))
        return dg.AssetCheckResult(
            passed=not rows,
            metadata={"model": config.name, "configured_dimensions": config.dimensions,
                      "vectors_of_model": int(total), "violations": len(rows),
                      "sample": dg.MetadataValue.json([{k: str(v) for k, v in r.items()} for r in rows[:SAMPLE_ROWS]])},
        )

    return paper_embeddings_dimensions


# ----------------------------------------------------------------------------------------
# warnings: row-count drops (materialization history) and upstream coverage


def per_run_rows(records) -> list[tuple[str, float]]:
    """(run_id, rows per partition) for each run, newest first, from materialization records.

    A run over N partitions (a backfill) records N materializations. Where each carries its
    own partition's row count (marked ``run_partitions``: assets/partition_metadata.py) the
    run's figure is their mean; where each carries the run's total (older records, and runs
    of stages that only know the run's figures), dividing the total by N makes a backfill
    comparable with a single day. Runs over several partitions that record no row count
    (``run_row_count`` only) are left out."""
    runs: dict[str, list] = {}
    per_partition: dict[str, bool] = {}
    order: list[str] = []
    for rec in records:
        mat = rec.asset_materialization
        if mat is None or "dagster/row_count" not in mat.metadata:
            continue
        if rec.run_id not in runs:
            runs[rec.run_id] = []
            order.append(rec.run_id)
        runs[rec.run_id].append(mat.metadata["dagster/row_count"].value)
        per_partition[rec.run_id] = RUN_PARTITIONS in mat.metadata
    return [(r, (sum(runs[r]) if per_partition[r] else float(runs[r][0])) / len(runs[r])) for r in order]


def drop_verdict(history: list[float], ratio: float) -> tuple[bool, dict]:
    """history: rows per partition, newest first. Passed unless the newest falls below
    `ratio` x the median of up to HISTORY_RUNS earlier runs (with MIN_HISTORY of them)."""
    if len(history) < MIN_HISTORY + 1:
        return True, {"note": f"fewer than {MIN_HISTORY} earlier materializations: nothing to compare"}
    latest, previous = history[0], history[1:HISTORY_RUNS + 1]
    median = statistics.median(previous)
    passed = not (median > 0 and latest < ratio * median)
    return passed, {"latest_rows_per_partition": round(latest, 2), "median_of_previous": round(median, 2),
                    "previous_runs": len(previous), "threshold_ratio": ratio}


def row_count_drop_check(asset: str, *, daily: bool) -> dg.AssetChecksDefinition:
    ratio = DROP_RATIO_DAILY if daily else DROP_RATIO_GLOBAL

    @dg.asset_check(asset=dg.AssetKey(asset), name=f"{asset}_row_count_drop", blocking=False,
                    description=f"Warns when the rows of the latest materialization fall below {ratio:.0%} of the "
                                "median of the previous ones" + (" (per partition day)." if daily else "."))
    def _check(context: dg.AssetCheckExecutionContext) -> dg.AssetCheckResult:
        result = context.instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset)), limit=400)
        history = [rows for _, rows in per_run_rows(result.records)]
        passed, meta = drop_verdict(history, ratio)
        if "note" in meta:  # too little history to compare against
            return skip_result(meta["note"])
        return dg.AssetCheckResult(passed=passed, severity=WARN, metadata=meta)

    return _check


def coverage_check(asset: str, table: str, source: str) -> dg.AssetChecksDefinition:
    """With nothing to judge the check yields no result: Dagster then shows it Skipped (planned,
    not executed, in a run that succeeded), with the reason in the step's log."""
    spec = dg.AssetCheckSpec(
        name=f"{asset}_coverage", asset=dg.AssetKey(asset), blocking=False,
        description=f"Share of the papers of the {COVERAGE_WINDOW_DAYS} days before the last {COVERAGE_LAG_DAYS} "
                    f"(upstreams index late) that have a {source} record; warns below {MIN_COVERAGE:.0%}.")

    @dg.multi_asset_check(specs=[spec], name=f"{asset}_coverage", can_subset=True, required_resource_keys={"database"})
    def _check(context: dg.AssetCheckExecutionContext):
        yield from _coverage(context, context.resources.database, spec, table, source)

    return _check


def _coverage(context, database: DatabaseResource, spec: dg.AssetCheckSpec, table: str, source: str):
    """The coverage verdict, or nothing (logged why) when there is nothing to judge."""
    with database.transaction() as conn:
        read_only(conn)
        if (missing := missing_tables(conn, [table, "wove.papers"])):
            context.log.info(f"Skipped: tables not migrated: {missing}")
            return
        # each paper of the window looked up by its id (LATERAL ... LIMIT 1): joined plainly, the
        # planner hashed the window against a scan of the upstream table's whole id index, which
        # grows with the archive (0.6 s a check in the day after 1,000,000 papers, 7 ms at 10k)
        row = db.fetch_all(conn, sql.SQL("""
            WITH span AS (SELECT max(oai_datestamp) - %(lag)s::int - %(window)s::int + 1 AS first_day,
                                 max(oai_datestamp) - %(lag)s::int AS last_day FROM wove.papers)
            SELECT span.first_day, span.last_day, count(p.arxiv_id) AS papers, count(x.hit) AS covered
            FROM span
            LEFT JOIN wove.papers p ON p.oai_datestamp BETWEEN span.first_day AND span.last_day
            LEFT JOIN LATERAL (SELECT 1 AS hit FROM {} t WHERE t.arxiv_id = p.arxiv_id LIMIT 1) x ON true
            GROUP BY span.first_day, span.last_day""").format(sql.Identifier(*table.split("."))),
            {"lag": COVERAGE_LAG_DAYS, "window": COVERAGE_WINDOW_DAYS})[0]
    papers, covered = int(row["papers"]), int(row["covered"])
    if papers < MIN_COVERAGE_PAPERS:  # nothing (or too little) to judge: no verdict, no figures
        window = (f"{row['first_day']}..{row['last_day']}" if row["first_day"] is not None
                  else "no papers harvested yet")
        context.log.info(f"Skipped: {papers} papers in the coverage window ({window}); at least "
                         f"{MIN_COVERAGE_PAPERS} are needed to judge {source} coverage")
        return
    coverage = covered / papers
    yield dg.AssetCheckResult(asset_key=spec.asset_key, check_name=spec.name,
                              passed=coverage >= MIN_COVERAGE, severity=WARN, metadata={
        "coverage": round(coverage, 4),
        "papers_considered": papers, "papers_covered": covered,
        "first_day": str(row["first_day"]), "last_day": str(row["last_day"]),
        "lag_days": COVERAGE_LAG_DAYS, "window_days": COVERAGE_WINDOW_DAYS, "threshold": MIN_COVERAGE})


def _warning_checks() -> list[dg.AssetChecksDefinition]:
    out = [row_count_drop_check(a, daily=True) for a in ("papers", "s2_papers", "openalex_works", "paper_embeddings")]
    out += [row_count_drop_check(a, daily=False) for a in ("researcher_metrics", "serving")]
    out += [coverage_check("s2_papers", "wove.s2_papers", "Semantic Scholar"),
            coverage_check("openalex_works", "wove.openalex_works", "OpenAlex")]
    return out


ALL_CHECKS: list[dg.AssetChecksDefinition] = [
    *_integrity_checks(), _embedding_dimensions_check(), *serving_checks(), *_warning_checks()
]


def _target(check: dg.AssetChecksDefinition) -> dg.AssetKey:
    return next(iter(check.check_keys)).asset_key


def checks_for(assets: Iterable) -> list[dg.AssetChecksDefinition]:
    """The checks whose asset is among `assets` (AssetsDefinitions or AssetSpecs): a check of
    a stage not wired into the code location is left out."""
    keys = set()
    for a in assets:
        keys.update(getattr(a, "keys", None) or {a.key})
    return [c for c in ALL_CHECKS if _target(c) in keys]
