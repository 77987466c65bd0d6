"""The serving schema as files: every table and view as Parquet plus a manifest (the data
contract's "Bulk export"), and the column meanings the data contract gives them.

``serving_columns`` reads each relation's columns from the catalog and their meanings from
docs/data-contract.md (the catalog's column schemas in Dagster).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from wove_pipeline.database import access as db
from wove_pipeline.serving.tables import SCHEMA, SCHEMA_VERSION, TABLES, VIEWS


@dataclasses.dataclass(frozen=True)
class ExportResult:
    """Where an export went and how many rows each table and view has there."""

    directory: str
    manifest: str  # manifest.json's path
    rows: dict[str, int]  # {table or view: rows}


_ARROW_TYPES = {
    "text": "string", "bigint": "int64", "integer": "int32", "boolean": "bool", "date": "date32",
    "double precision": "float64", "real": "float32", "jsonb": "string", "timestamp with time zone": "timestamp",
    "text[]": "list<string>", "bigint[]": "list<int64>", "integer[]": "list<int32>",
}


def _arrow_type(pg_type: str):
    import pyarrow as pa

    kind = _ARROW_TYPES.get(pg_type, "string")
    return {
        "string": pa.string(), "int64": pa.int64(), "int32": pa.int32(), "bool": pa.bool_(), "date32": pa.date32(),
        "float64": pa.float64(), "float32": pa.float32(), "timestamp": pa.timestamp("us", tz="UTC"),
        "list<string>": pa.list_(pa.string()), "list<int64>": pa.list_(pa.int64()), "list<int32>": pa.list_(pa.int32()),
    }[kind]


def relation_columns(conn: psycopg.Connection, relation: str, schema: str = SCHEMA) -> list[dict]:
    """[{name, type}] of a serving table or view, in column order (type as format_type prints it)."""
    return db.fetch_all(conn, """
        SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = %s AND c.relname = %s AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum""", (schema, relation))


CONTRACT = Path(__file__).resolve().parents[2] / "docs" / "data-contract.md"


def contract_column_meanings(path: str | os.PathLike = CONTRACT) -> dict[str, dict[str, str]]:
    """{relation: {column: meaning}} from the data contract's ``| column | type | meaning |``
    tables under each ``### `serving.<relation>` `` heading ("title, abstract" rows give both
    columns). Empty when the document is not there (an installed package without docs/)."""
    try:
        text = Path(path).read_text()
    except OSError:
        return {}
    out: dict[str, dict[str, str]] = {}
    relation = None
    for line in text.splitlines():
        heading = re.match(r"^###\s+`serving\.(\w+)`", line)
        if heading:
            relation = heading.group(1)
            continue
        if line.startswith("#"):
            relation = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if relation is None or len(cells) < 3 or cells[0] in ("column", "") or set(cells[0]) <= {"-", " "}:
            continue
        meaning = " ".join(c for c in cells[2:] if c).strip()
        for name in cells[0].split(","):
            name = name.strip().strip("`")
            if re.fullmatch(r"\w+", name):
                out.setdefault(relation, {})[name] = meaning
    return out


def serving_columns(conn: psycopg.Connection) -> dict[str, list[dict]]:
    """{relation: [{name, type, description}]} for every serving table and view, read from the
    catalog; descriptions from the data contract where it has them."""
    meanings = contract_column_meanings()
    out = {}
    for relation in (*TABLES, *VIEWS):
        cols = relation_columns(conn, relation)
        if cols:
            known = meanings.get(relation, {})
            out[relation] = [{**c, "description": known.get(c["name"], "")} for c in cols]
    return out


def export_parquet(conn: psycopg.Connection, directory: str | os.PathLike, batch_rows: int = 50_000) -> ExportResult:
    """Write every serving table and view as <name>.parquet plus manifest.json (row counts,
    as-of, schema version), all read from one snapshot (a read-only transaction this opens on
    ``conn``, in autocommit mode). The manifest is written last: a reader that finds it finds
    every file complete."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / "manifest.json"
    if manifest_path.exists():
        manifest_path.unlink()  # files are about to change: no manifest until they all are
    written: dict[str, dict[str, Any]] = {"tables": {}, "views": {}}
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        pub = db.fetch_all(conn, "SELECT * FROM serving.publication")[0]
        for kind, relations in (("tables", TABLES), ("views", VIEWS)):
            for table in relations:
                cols = relation_columns(conn, table)
                if not cols:
                    continue  # a view an older serving schema does not have
                schema = pa.schema([(c["name"], _arrow_type(c["type"])) for c in cols])
                select = sql.SQL(", ").join(
                    sql.SQL("{}::text").format(sql.Identifier(c["name"])) if c["type"] in ("jsonb", "numeric")
                    or c["type"] not in _ARROW_TYPES else sql.Identifier(c["name"])
                    for c in cols)
                final = out / f"{table}.parquet"
                tmp = out / f".{table}.parquet.tmp"
                rows = 0
                with pq.ParquetWriter(tmp, schema) as writer, conn.cursor(name=f"export_{table}") as cur:
                    cur.itersize = batch_rows
                    cur.execute(sql.SQL("SELECT {} FROM {}").format(select, sql.Identifier(SCHEMA, table)))
                    while True:
                        batch = cur.fetchmany(batch_rows)
                        if not batch:
                            break
                        columns = list(zip(*batch))
                        writer.write_table(pa.Table.from_arrays(
                            [pa.array(list(col), type=f.type) for col, f in zip(columns, schema)], schema=schema))
                        rows += len(batch)
                    if rows == 0:
                        writer.write_table(schema.empty_table())
                os.replace(tmp, final)
                digest = hashlib.sha256(final.read_bytes()).hexdigest()
                written[kind][table] = {"file": final.name, "rows": rows, "sha256": digest,
                                        "columns": [{"name": c["name"], "type": c["type"]} for c in cols]}
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "publication_id": pub["publication_id"],
        "published_at": pub["published_at"].isoformat(),
        "as_of": pub["as_of"].isoformat() if pub["as_of"] else None,
        "exported_at": dt.datetime.now(dt.timezone.utc).isoformat(),
        **written,
    }
    tmp = out / ".manifest.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=2))
    os.replace(tmp, manifest_path)
    rows = {t: v["rows"] for group in written.values() for t, v in group.items()}
    return ExportResult(str(out), str(manifest_path), rows)
