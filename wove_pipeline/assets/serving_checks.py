"""Serving checks: the publication describes what is published.

The daily publish's blocking check costs the publish, not the serving tables: after an
incremental publish it checks the publishes' bookkeeping; every row is counted only after a
full rebuild, and weekly by ``serving_row_counts`` (the serving_audit job).
"""

# (no `from __future__ import annotations`: Dagster reads the context annotation at definition time)

import dagster as dg
from psycopg import sql

from wove_pipeline.assets.check_sql import missing_tables, read_only
from wove_pipeline.database import access as db
from wove_pipeline.resources import DatabaseResource

# counts every serving row: run by the weekly serving_audit job, left out of the daily publish
SERVING_ROW_COUNTS = dg.AssetCheckKey(dg.AssetKey("serving"), "serving_row_counts")


def _served_counts(conn) -> tuple[list[dict], dict[str, int]]:
    """(the serving.publication rows, the row counts the one of them holds, "publication" left out)."""
    pubs = db.fetch_all(conn, "SELECT publication_id, row_counts FROM serving.publication")
    counts = {t: int(n) for t, n in (pubs[0]["row_counts"] if len(pubs) == 1 else {}).items() if t != "publication"}
    return pubs, counts


def _mismatches(expected: dict[str, int | None], actual: dict[str, int | None]) -> dict[str, dict]:
    """{table: {"expected", "actual"}} for each table the two disagree on (None: not there)."""
    return {t: {"expected": expected.get(t), "actual": actual.get(t)}
            for t in sorted(set(expected) | set(actual)) if expected.get(t) != actual.get(t)}


def _counted_mismatches(conn, counts: dict[str, int]) -> dict[str, dict]:
    """Each serving table whose rows are not as many as ``counts`` says (every row counted)."""
    gone = set(missing_tables(conn, [f"serving.{t}" for t in counts]))
    actual = {t: None if f"serving.{t}" in gone else
              db.fetch_value(conn, sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier("serving", t)))
              for t in counts}
    return _mismatches(counts, actual)


def _kept_mismatches(conn, publication_id: int, counts: dict[str, int]) -> tuple[str, dict[str, dict]]:
    """How the served counts were checked, and what disagrees. The served publication must be
    the last one recorded (wove.serving_publishes), with its counts. After a full rebuild
    (which wrote every row anyway) every table is counted; after an incremental publish its
    bookkeeping is: each table's count is the previous publish's plus the rows it inserted,
    less those it deleted (O(tables): counting every row cost 46.5 s of the day after
    1,000,000 papers; the weekly serving_audit job counts them)."""
    last = db.fetch_all(conn, "SELECT publication_id, mode, rows_written, row_counts FROM wove.serving_publishes"
                              " ORDER BY published_at DESC LIMIT 2")
    if not last or last[0]["publication_id"] != publication_id:
        return "recorded", {"publication": {"expected": publication_id,
                                            "actual": last[0]["publication_id"] if last else None}}
    recorded = {t: int(n) for t, n in (last[0]["row_counts"] or {}).items() if t != "publication"}
    if last[0]["row_counts"] is not None and recorded != counts:
        return "recorded", _mismatches(recorded, counts)
    if last[0]["mode"] == "full" or len(last) < 2 or last[1]["row_counts"] is None:
        return "counted", _counted_mismatches(conn, counts)
    previous, written = last[1]["row_counts"], last[0]["rows_written"]
    kept = {t: int(previous.get(t, 0)) + int(written.get(t, {}).get("inserted", 0))
            - int(written.get(t, {}).get("deleted", 0)) for t in counts}
    return "kept by the publishes", _mismatches(kept, counts)


def serving_checks() -> list[dg.AssetChecksDefinition]:
    @dg.asset_check(asset=dg.AssetKey("serving"), name="serving_publication_consistent", blocking=True,
                    description="One publication row, the last publish recorded, with its row counts: every table "
                                "counted after a full rebuild, the publish's own bookkeeping after an incremental one.")
    def serving_publication_consistent(context: dg.AssetCheckExecutionContext,
                                       database: DatabaseResource) -> dg.AssetCheckResult:
        with database.transaction() as conn:
            read_only(conn)
            if missing_tables(conn, ["serving.publication"]):
                return dg.AssetCheckResult(passed=False, metadata={"error": "serving.publication missing"})
            pubs, counts = _served_counts(conn)
            scope, mismatched = ("none", {}) if len(pubs) != 1 else \
                _kept_mismatches(conn, int(pubs[0]["publication_id"]), counts)
        return dg.AssetCheckResult(
            passed=len(pubs) == 1 and not mismatched,
            metadata={"publications": len(pubs), "mismatched": dg.MetadataValue.json(mismatched), "scope": scope,
                      "publication_id": int(pubs[0]["publication_id"]) if pubs else 0},
        )

    @dg.asset_check(asset=dg.AssetKey("serving"), name="serving_row_counts", blocking=False,
                    description="Every serving table holds as many rows as the publication says (each row "
                                "counted: the weekly serving_audit job, not the daily publish).")
    def serving_row_counts(context: dg.AssetCheckExecutionContext, database: DatabaseResource) -> dg.AssetCheckResult:
        with database.transaction() as conn:
            read_only(conn, timeout="30min")
            if missing_tables(conn, ["serving.publication"]):
                return dg.AssetCheckResult(passed=False, metadata={"error": "serving.publication missing"})
            pubs, counts = _served_counts(conn)
            mismatched = _counted_mismatches(conn, counts)
        return dg.AssetCheckResult(
            passed=len(pubs) == 1 and not mismatched,
            metadata={"publications": len(pubs), "mismatched": dg.MetadataValue.json(mismatched),
                      "tables_counted": len(counts)},
        )

    return [serving_publication_consistent, serving_row_counts]
