"""The atomic publish of the serving schema (the tables ``tables.py`` defines).

Incremental by default: triggers on the core tables log the keys of every write (migration
0009, ``wove.serving_changes``); a publish turns the keys it sees into key sets per serving
table and, in ONE transaction, recomputes only those rows with the same SELECT a full build
uses, deletes the live rows that differ and inserts the new ones, updates
``serving.publication`` and deletes the log rows it has seen.

Full rebuild (first publish, new definition, ``full=True``, a TRUNCATE, or most rows
changed): in ONE transaction, build every serving table in a fresh schema
``serving_build`` from the core tables (``wove.*``, metrics included), index it, grant it
to ``wove_reader``, move the SQL functions other stages keep in ``serving`` (e.g.
``serving.search_papers`` and ``serving.related_papers`` from 0003) into it, then rename
``serving`` -> ``serving_old_<n>`` and ``serving_build`` -> ``serving``. The old schema is
dropped afterwards in its own transaction (readers still on it are waited for, never broken).

Either way a consumer's statement sees the old publication or the new one, never a mix.
Contract: docs/data-contract.md.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import time
from typing import Any

import psycopg
from psycopg import sql

from wove_pipeline.database import access as db
from wove_pipeline.serving import tables
from wove_pipeline.serving.export import ExportResult, export_parquet
from wove_pipeline.serving.tables import (
    BUILD_SCHEMA,
    OLD_PREFIX,
    READER_ROLE,
    SCHEMA,
    SCHEMA_VERSION,
    TABLES,
)

LOCK_KEY = "wove-serving-publish"
# Above this share of changed papers or researchers, a full rebuild is cheaper than editing in place.
FULL_REBUILD_ABOVE = 0.2


@dataclasses.dataclass(frozen=True)
class PublishResult:
    """What a publish did."""

    publication_id: int
    published_at: dt.datetime
    mode: str  # "incremental" or "full"
    reason: str | None  # why a full rebuild (None: incremental)
    row_counts: dict[str, int]  # rows per serving table, as published
    rows_written: dict[str, dict[str, int]]  # {table: {"deleted", "inserted"}}
    seconds_by_table: dict[str, float]  # incremental: per table, its key sets included
    moved_functions: list[str]  # full: the functions carried over from the old schema
    export: ExportResult | None = None  # the Parquet export, when asked for
    # the keys in each key set made (what an incremental publish re-read)
    key_sets: dict[str, int] = dataclasses.field(default_factory=dict)

    @property
    def rows_rewritten(self) -> int:
        return sum(w["deleted"] + w["inserted"] for w in self.rows_written.values())


@dataclasses.dataclass(frozen=True)
class _Stamp:
    """The publication being made: its id and time, and the as-of days of what it is made from."""

    publication_id: int
    published_at: dt.datetime
    as_of: Any  # the newest OAI datestamp in the core tables
    metrics_at: Any  # when the metrics it reads were computed

    @classmethod
    def read(cls, conn: psycopg.Connection) -> _Stamp:
        published_at = db.fetch_value(conn, "SELECT now()")
        as_of = db.fetch_value(conn, "SELECT max(oai_datestamp) FROM wove.papers")
        metrics_at = db.fetch_value(conn, "SELECT max(started_at) FROM wove.metrics_runs")
        return cls(int(published_at.timestamp() * 1000), published_at, as_of, metrics_at)


# ---------------------------------------------------------------------------------------
# the publish


def publish(conn: psycopg.Connection, *, site_url: str = "", export_dir: str | os.PathLike | None = None,
            drop_old: bool = True, full: bool = False, full_above: float = FULL_REBUILD_ABOVE) -> PublishResult:
    """Publish the serving schema from the core tables; optionally export Parquet.

    ``conn`` is in autocommit mode: the publish opens its own transaction on it (and, after
    it, vacuums the change log and drops old schemas, which no transaction may hold).

    Incremental when possible: the serving rows the logged changes reach are rewritten in
    place, in one transaction (readers see the old or the new publication, never a mix).
    A full rebuild (built in serving_build, swapped in) when ``full``, on the first
    publish, when the definition, site URL or migrations changed, after a TRUNCATE of a
    core table, or when more than ``full_above`` of the papers or researchers changed
    (rebuilding is then cheaper). Both give the same rows.
    """
    if not conn.autocommit:
        raise ValueError("publish takes an autocommit connection: it opens its own transaction on it")
    started = time.perf_counter()
    # A session lock taken before the transaction: the snapshot then starts after the
    # previous publish committed (an incremental publish edits the live rows).
    with db.session_lock(conn, LOCK_KEY), conn.transaction():
        result = _publish_snapshot(conn, site_url, full, full_above, started)
    # the log is a queue, emptied by every publish: reclaim its dead rows now, or the
    # next publish reads every page a big day (or a backfill) left behind
    conn.execute("VACUUM wove.serving_changes")
    if drop_old:
        drop_old_schemas(conn)
    if export_dir is not None:
        result = dataclasses.replace(result, export=export_parquet(conn, export_dir))
    return result


def _publish_snapshot(conn: psycopg.Connection, site_url: str, full: bool, full_above: float,
                      started: float) -> PublishResult:
    """The publish's transaction: choose the mode, write the tables, record the publish."""
    # one snapshot of the core tables and of the change log for every statement
    conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    migration = db.fetch_value(conn, "SELECT max(version) FROM wove.schema_migrations")
    reason = "requested" if full else _full_rebuild_reason(conn, site_url, migration)
    if reason is None and _copy_changes(conn):
        reason = "a core table was truncated"
    stamp = _Stamp.read(conn)
    made: dict[str, int] = {}  # key sets made so far: rows in each
    if reason is None:
        counts = db.fetch_value(conn, "SELECT row_counts FROM serving.publication")
        reason = _too_many_changes(conn, counts, made, full_above)
    if reason is None:
        mode, moved = "incremental", []
        written, seconds = _publish_incremental(conn, site_url, stamp, counts, made)
    else:
        mode, seconds = "full", {}
        counts, written, moved = _publish_full(conn, site_url, stamp)
    # the changes this publish has seen are in it (later ones are not visible here)
    conn.execute("DELETE FROM wove.serving_changes")
    conn.execute(
        "INSERT INTO wove.serving_publishes (publication_id, published_at, mode, reason, definition,"
        " site_url, migration, rows_written, row_counts, seconds) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
        (stamp.publication_id, stamp.published_at, mode, reason, tables.definition_hash(), site_url, migration,
         json.dumps(written), json.dumps(counts), time.perf_counter() - started))
    return PublishResult(stamp.publication_id, stamp.published_at, mode, reason, counts, written, seconds, moved,
                         key_sets=made)


def full_rebuild_reason(conn: psycopg.Connection, site_url: str = "") -> str | None:
    """Why the next publish will rebuild everything (None: it can be incremental, unless its
    changes say otherwise)."""
    migration = db.fetch_value(conn, "SELECT max(version) FROM wove.schema_migrations")
    return _full_rebuild_reason(conn, site_url, migration)


def _full_rebuild_reason(conn: psycopg.Connection, site_url: str, migration: int) -> str | None:
    """Why this publish cannot be incremental, or None when it can."""
    if not db.fetch_value(conn, "SELECT to_regclass('serving.publication') IS NOT NULL"):
        return "no serving schema yet"
    served = db.fetch_all(conn, "SELECT publication_id, schema_version FROM serving.publication")
    last = db.fetch_all(conn, "SELECT * FROM wove.serving_publishes ORDER BY published_at DESC LIMIT 1")
    if len(served) != 1 or not last or last[0]["publication_id"] != served[0]["publication_id"]:
        return "the served publication has no record of how it was built"
    if served[0]["schema_version"] != SCHEMA_VERSION or last[0]["definition"] != tables.definition_hash():
        return "the serving definition changed"
    if last[0]["site_url"] != site_url:
        return "the site URL changed"
    if last[0]["migration"] != migration:
        return "migrations were applied since"
    return None


def _copy_changes(conn: psycopg.Connection) -> bool:
    """The change log as this publish sees it, read once into _changes for every key set
    (the log is a heap of short-lived rows: after a big day, or before autovacuum has been
    by, each scan of it reads every page it ever had). True when a core table was truncated."""
    conn.execute("CREATE TEMP TABLE _changes ON COMMIT DROP AS SELECT DISTINCT kind, key FROM wove.serving_changes")
    conn.execute("CREATE INDEX ON _changes (kind, key)")
    conn.execute("ANALYZE _changes")
    return bool(db.fetch_value(conn, "SELECT EXISTS (SELECT 1 FROM _changes WHERE kind = 'truncate')"))


def _too_many_changes(conn: psycopg.Connection, counts: dict[str, int], made: dict[str, int],
                      full_above: float) -> str | None:
    """Make the changed papers' and researchers' key sets (into ``made``); the reason for a
    full rebuild when they are more than ``full_above`` of the served rows."""
    for name in ("k_paper", "k_link_position", "k_paper_links", "k_researcher"):
        made[name] = _make_key_set(conn, name)
    if made["k_paper"] + made["k_paper_links"] > full_above * max(counts["papers"], 1) or \
            made["k_researcher"] > full_above * max(counts["researchers"], 1):
        return f"more than {full_above:.0%} of the papers or researchers changed"
    return None


# ---------------------------------------------------------------------------------------
# incremental: the rows the key sets reach, rewritten in place


def _publish_incremental(conn: psycopg.Connection, site_url: str, stamp: _Stamp, counts: dict[str, int],
                         made: dict[str, int]) -> tuple[dict[str, dict[str, int]], dict[str, float]]:
    """Rewrite every table's changed rows and update serving.publication (``counts`` kept
    up to date, ``made`` grows by the key sets made); returns ({table: {"deleted",
    "inserted"}}, {table: seconds})."""
    written: dict[str, dict[str, int]] = {}
    seconds: dict[str, float] = {}
    db.price_random_reads_as_ssd(conn)
    for t in tables.TABLE_DEFINITIONS:
        table_started = time.perf_counter()
        for name in tables.key_sets_in(*t.delete, *(v for p in t.passes for v in p.values())):
            if name not in made:
                made[name] = _make_key_set(conn, name)
        deleted, inserted = _apply(conn, t, site_url, made)
        written[t.name] = {"deleted": deleted, "inserted": inserted}
        counts[t.name] += inserted - deleted
        # statistics only when a good part of the table moved (autovacuum analyzes the
        # rest in its own time)
        if deleted + inserted > 0.1 * max(counts[t.name], 1):
            _analyze(conn, SCHEMA, t.name)
        seconds[t.name] = round(time.perf_counter() - table_started, 3)
    conn.execute("UPDATE serving.publication SET publication_id = %s, published_at = %s, as_of = %s,"
                 " metrics_computed_at = %s, row_counts = %s",
                 (stamp.publication_id, stamp.published_at, stamp.as_of, stamp.metrics_at, json.dumps(counts)))
    counts["publication"] = 1
    return written, seconds


def _make_key_set(conn: psycopg.Connection, name: str) -> int:
    kind, query = tables.KEY_SETS[name]
    conn.execute(f"CREATE TEMP TABLE _{name} (key {kind} PRIMARY KEY) ON COMMIT DROP")
    n = conn.execute(f"INSERT INTO _{name} SELECT DISTINCT k FROM ({query}) x(k) WHERE k IS NOT NULL").rowcount
    conn.execute(f"ANALYZE _{name}")  # the planner then picks index look-ups for a few keys
    return n


# Below this many staged keys a table's index pages are read where the inserts need them:
# opening the readers costs more than the waits they would overlap.
WARM_ABOVE = 500


def _warm_indexes(conn: psycopg.Connection, t: tables.Table, live: str, stage: str) -> None:
    """Read the pages of ``live``'s ``t.warm`` indexes that the staged rows' entries go
    into, split among snapshot readers (db.warm_indexes_ahead): a day's 10,000 researchers'
    names fall all over an index that grows with the archive, and the insert read each page
    cold, one at a time (0.47 s of the day after 1,000,000 papers)."""
    if t.warm:
        distinct = sql.SQL("SELECT DISTINCT {c} FROM {s} WHERE {c} IS NOT NULL")
        db.warm_indexes_ahead(conn, [
            (live, column, "text",
             [k for (k,) in conn.execute(distinct.format(c=sql.Identifier(column), s=sql.Identifier(stage)))])
            for column in t.warm], WARM_ABOVE)


def _apply(conn: psycopg.Connection, t: tables.Table, site_url: str, sizes: dict[str, int]) -> tuple[int, int]:
    """Replace the rows of serving.<t> that `t.delete` selects by the passes' rows, leaving
    rows that come out identical alone. The rows deleted and inserted stay in
    _gone_<t> / _added_<t> for the key sets of the tables after it. ``sizes``: rows of
    each key set. Returns (deleted, inserted)."""
    live, stage, gone, added = f"{SCHEMA}.{t.name}", f"_stage_{t.name}", f"_gone_{t.name}", f"_added_{t.name}"
    for temp in (stage, gone, added):
        conn.execute(f"CREATE TEMP TABLE {temp} (LIKE {live}) {tables.STORAGE} ON COMMIT DROP")
    if not any(sizes[name] for name in tables.key_sets_in(*t.delete)):
        return 0, 0  # no key: nothing to rewrite
    conn.execute(f"ALTER TABLE {stage} ADD PRIMARY KEY ({', '.join(t.pk)})")
    for filters in t.passes:
        if not any(sizes[name] for name in tables.key_sets_in(*filters.values())):
            continue  # an empty key set selects no row (and may cost a scan to find that out)
        select = filters.get("select", t.select)
        conn.execute(f"INSERT INTO {stage} " + tables.render(select, SCHEMA, filters) + " ON CONFLICT DO NOTHING",
                     tables.params(select, site_url))
    # statistics of the key only: the rewrite below joins the staged rows to the live ones by
    # it, and the other columns (a page's JSON-LD, an author list) cost the most to analyze
    conn.execute(f"ANALYZE {stage} ({', '.join(t.pk)})")
    same_key = " AND ".join(f"n.{c} = o.{c}" for c in t.pk)
    deleted = 0
    for condition in t.delete:
        if not any(sizes[name] for name in tables.key_sets_in(condition)):
            continue
        deleted += conn.execute(
            f"WITH d AS (DELETE FROM {live} o WHERE ({tables.render(condition, SCHEMA)})"
            f" AND NOT EXISTS (SELECT 1 FROM {stage} n WHERE {same_key} AND ROW(n.*) IS NOT DISTINCT FROM ROW(o.*))"
            f" RETURNING o.*) INSERT INTO {gone} SELECT * FROM d").rowcount
    _warm_indexes(conn, t, live, stage)
    inserted = conn.execute(
        f"WITH i AS (INSERT INTO {live} SELECT n.* FROM {stage} n"
        f" WHERE NOT EXISTS (SELECT 1 FROM {live} o WHERE {same_key}) RETURNING *)"
        f" INSERT INTO {added} SELECT * FROM i").rowcount
    return deleted, inserted


# ---------------------------------------------------------------------------------------
# full: every table built in serving_build, swapped in


def _publish_full(conn: psycopg.Connection, site_url: str,
                  stamp: _Stamp) -> tuple[dict[str, int], dict[str, dict[str, int]], list[str]]:
    """A full rebuild: (row counts, rows written, functions carried over)."""
    before = db.fetch_value(conn, "SELECT row_counts FROM serving.publication") \
        if db.fetch_value(conn, "SELECT to_regclass('serving.publication') IS NOT NULL") else None
    counts, moved = _build_full(conn, site_url, stamp)
    # a rebuild replaces every row of every table
    written = {t.name: {"deleted": int((before or {}).get(t.name, 0)), "inserted": counts[t.name]}
               for t in tables.TABLE_DEFINITIONS}
    return counts, written, moved


def _ident(schema: str, name: str) -> sql.Composable:
    return sql.Identifier(schema, name)


def build_tables(conn: psycopg.Connection, schema: str, site_url: str = "") -> None:
    """Every serving table, function and view, built whole in a fresh `schema` (dropped
    first if it exists). The full publish builds serving_build so; tests build a second
    copy to compare an incremental publish with."""
    conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
    conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    for statement in tables.FUNCTION_DEFINITIONS:
        conn.execute(tables.render(statement, schema))
    for t in tables.TABLE_DEFINITIONS:
        conn.execute(f"CREATE TABLE {schema}.{t.name} {tables.STORAGE} AS " + tables.render(t.select, schema),
                     tables.params(t.select, site_url))
        conn.execute(f"ALTER TABLE {schema}.{t.name} ADD PRIMARY KEY ({', '.join(t.pk)})")
        for statement in t.indexes:
            conn.execute(tables.render(statement, schema))
    for statement in tables.VIEW_DEFINITIONS:
        conn.execute(tables.render(statement, schema))


def _build_full(conn: psycopg.Connection, site_url: str, stamp: _Stamp) -> tuple[dict, list[str]]:
    """Every table in a fresh serving_build, swapped in for serving (the caller's transaction)."""
    s = BUILD_SCHEMA
    build_tables(conn, s, site_url)
    counts = {t.name: db.fetch_value(conn, sql.SQL("SELECT count(*) FROM {}").format(_ident(s, t.name)))
              for t in tables.TABLE_DEFINITIONS}
    conn.execute(sql.SQL(
        "CREATE TABLE {} (publication_id bigint PRIMARY KEY, published_at timestamptz NOT NULL,"
        " schema_version text NOT NULL, as_of date, metrics_computed_at timestamptz,"
        " row_counts jsonb NOT NULL)").format(_ident(s, "publication")))
    conn.execute(sql.SQL("INSERT INTO {} VALUES (%s, %s, %s, %s, %s, %s)").format(_ident(s, "publication")),
                 (stamp.publication_id, stamp.published_at, SCHEMA_VERSION, stamp.as_of, stamp.metrics_at,
                  json.dumps(counts)))
    for t, text in tables.COMMENTS.items():
        conn.execute(sql.SQL("COMMENT ON TABLE {} IS {}").format(_ident(s, t), sql.Literal(text)))
    for t in TABLES:
        _analyze(conn, s, t)
    conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sql.Identifier(s), sql.Identifier(READER_ROLE)))
    conn.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}").format(
        sql.Identifier(s), sql.Identifier(READER_ROLE)))
    moved = _move_foreign_objects(conn)
    old = f"{OLD_PREFIX}{stamp.publication_id}"
    if db.fetch_value(conn, "SELECT 1 FROM pg_namespace WHERE nspname = %s", (SCHEMA,)):
        conn.execute(sql.SQL("ALTER SCHEMA {} RENAME TO {}").format(sql.Identifier(SCHEMA), sql.Identifier(old)))
    conn.execute(sql.SQL("ALTER SCHEMA {} RENAME TO {}").format(sql.Identifier(s), sql.Identifier(SCHEMA)))
    counts["publication"] = 1
    return counts, moved


def _move_foreign_objects(conn: psycopg.Connection) -> list[str]:
    """Move functions other stages define in `serving` (0003's search functions) into the
    build schema, so they survive the swap with their grants and comments."""
    mine = {"route_key"}
    moved = []
    rows = db.fetch_all(conn, """
        SELECT p.oid::regprocedure::text AS signature, p.proname, p.prokind
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = %s""", (SCHEMA,))
    for r in rows:
        if r["proname"] in mine:
            continue
        kind = "PROCEDURE" if r["prokind"] == "p" else "FUNCTION"
        # regprocedure text is schema-qualified with the search path; qualify explicitly
        signature = r["signature"]
        if not signature.startswith(f"{SCHEMA}."):
            signature = f"{SCHEMA}.{signature}"
        conn.execute(sql.SQL(f"ALTER {kind} {{}} SET SCHEMA {{}}").format(
            sql.SQL(signature), sql.Identifier(BUILD_SCHEMA)))
        moved.append(r["proname"])
    return moved


def _analyze(conn: psycopg.Connection, schema: str, table: str) -> None:
    columns = sql.SQL(", ").join(map(sql.Identifier, tables.ANALYZE_ONLY.get(table, ())))
    conn.execute(sql.SQL("ANALYZE {} ({})" if table in tables.ANALYZE_ONLY else "ANALYZE {}").format(
        _ident(schema, table), columns))


# ---------------------------------------------------------------------------------------
# after the swap; the consumer role


def drop_old_schemas(conn: psycopg.Connection, lock_timeout_ms: int = 5000) -> list[str]:
    """Drop the schemas earlier publishes swapped out (each in its own transaction; one
    still read by a long query is left for the next publish). ``conn`` is in autocommit mode."""
    dropped = []
    names = [r[0] for r in conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE %s",
                                        (OLD_PREFIX.replace("_", r"\_") + "%",))]
    for name in names:
        try:
            with conn.transaction():
                conn.execute(sql.SQL("SET LOCAL lock_timeout = {}").format(sql.Literal(f"{lock_timeout_ms}ms")))
                conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(name)))
            dropped.append(name)
        except psycopg.errors.LockNotAvailable:
            continue
    return dropped


def create_reader_login(conn: psycopg.Connection, name: str, password: str | None = None) -> None:
    """A login role that reads the serving schema through wove_reader (and nothing else)."""
    statement = sql.SQL("CREATE ROLE {} LOGIN IN ROLE {}").format(sql.Identifier(name), sql.Identifier(READER_ROLE))
    if password is not None:
        statement = sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE {}").format(
            sql.Identifier(name), sql.Literal(password), sql.Identifier(READER_ROLE))
    conn.execute(statement)
