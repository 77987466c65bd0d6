"""The one database access layer: connections, transactions, COPY and upserts.

Everything that touches PostgreSQL goes through here (psycopg 3). Statements are always
parameterized; identifiers (table and column names) only ever come from code, never from
data, and are quoted with psycopg.sql.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson
import psycopg
from psycopg import sql
from psycopg.rows import dict_row
from psycopg.types.json import set_json_dumps, set_json_loads

log = logging.getLogger(__name__)


def _json_dumps(obj: Any) -> bytes:
    try:
        return orjson.dumps(obj, option=orjson.OPT_SERIALIZE_NUMPY)
    except TypeError:  # what orjson does not take (non-str keys, say): the stdlib's answer
        return json.dumps(obj).encode()


# JSON in and out of PostgreSQL through orjson: the stdlib's encoder was a tenth of a day's
# Python time (evidence, author lists, OpenAlex records), its decoder most of reading them back.
set_json_dumps(_json_dumps)
set_json_loads(orjson.loads)


def connect(url: str, **kwargs: Any) -> psycopg.Connection:
    return psycopg.connect(url, **kwargs)


@contextlib.contextmanager
def transaction(url: str) -> Iterator[psycopg.Connection]:
    """One connection, one transaction: commit on success, roll back on any error."""
    with psycopg.connect(url) as conn:
        with conn.transaction():
            yield conn


def fetch_all(conn: psycopg.Connection, query: str | sql.Composable, params: Any = None) -> list[dict]:
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(query, params)
        return cur.fetchall()


def fetch_value(conn: psycopg.Connection, query: str | sql.Composable, params: Any = None) -> Any:
    with conn.cursor() as cur:
        cur.execute(query, params)
        row = cur.fetchone()
        return None if row is None else row[0]


def qualified(name: str) -> sql.Identifier:
    """'schema.table' -> a quoted identifier."""
    return sql.Identifier(*name.split("."))


def _lock_id(key: str) -> int:
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big", signed=True)


def price_random_reads_as_ssd(conn: psycopg.Connection) -> None:
    """For the rest of the transaction, price a random page read as an SSD does (1.1;
    PostgreSQL's default, 4, is a spinning disk's). A day's keys are a sliver of tables that
    grow with the archive: at the default, a few thousand papers' rows by index lose to a
    scan of millions, read whole every day."""
    conn.execute("SET LOCAL random_page_cost = 1.1")


# A run's sorts and hashes (a day's: a few hundred thousand rows, when it touches old
# collaboration papers; a full run's: millions) spill to disk at PostgreSQL's default of 4 MB.
SORT_MEMORY = "128MB"


def sort_in_memory(conn: psycopg.Connection) -> None:
    """For the rest of the transaction, let each sort and hash use up to SORT_MEMORY before it
    spills to disk (the metrics' aggregates; the matching run's upserts). Not the publish:
    with it, the publish's inserts of its staged rows went from 2.7 to 6.6 s (sampled, the day
    after 100,000 papers; plans not read: more memory can make hashing a whole table look
    cheaper than probing its index)."""
    conn.execute("SELECT set_config('work_mem', %s, true)", (SORT_MEMORY,))


def kept_row_count(conn: psycopg.Connection, table: str) -> int:
    """The rows of a wove table whose writes keep wove.row_counts (migrations 0031, 0032), from
    those counts: a whole-table count reads every page, a cost that grows with the archive."""
    return int(fetch_value(conn, "SELECT coalesce(sum(delta), 0) FROM wove.row_counts WHERE table_name = %s",
                           (table,)))


def advisory_lock(conn: psycopg.Connection, key: str) -> None:
    """Serialize writers of the same key (e.g. one asset partition) until the transaction ends.

    Two runs of the same partition at once then write one after the other, so the second
    simply rewrites the same rows instead of racing the first.
    """
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_lock_id(key),))


@contextlib.contextmanager
def session_lock(conn: psycopg.Connection, key: str) -> Iterator[None]:
    """The same lock as advisory_lock (the two exclude each other), held by the session
    around transactions: one that must start its snapshot after the holder committed."""
    conn.execute("SELECT pg_advisory_lock(%s)", (_lock_id(key),))
    try:
        yield
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (_lock_id(key),))


# Readers a split read uses (SnapshotReaders): cold, one backend waits on the disk for one page
# at a time (0.065 ms a random 8 KiB read here, one at a time; 0.028 ms each, four at a time).
# Reading representatives' positions cold from a 46 GiB archive (2,000 papers a try, page cache
# dropped before each): 0.45-0.59 ms a paper with 4 readers, 0.35-0.44 with 8, no less with 16
# (the same with io_method 'sync').
READERS = 8
# A read-ahead only saves waits, so its readers wait this long at most for a lock on what they
# read: a table locked against them by the transaction that opened them (a TRUNCATE, DDL) would
# wait on them while they wait on it, a deadlock PostgreSQL cannot see (one side is Python's).
READ_AHEAD_LOCK_TIMEOUT = "1s"


class SnapshotReaders:
    """More connections that see exactly what ``conn``'s open transaction sees (its snapshot,
    exported to them), for a read of many keys split among them and run at once.

    A day's reads by key (candidate profiles, their representatives' positions) are a few
    thousand rows scattered over tables that grow with the archive: read cold, each is a
    wait on the disk, and one backend waits for one page at a time. Split ``READERS`` ways,
    the waits overlap. The readers only read, and only what the transaction saw when they
    were opened: use them before the transaction writes what they would read."""

    def __init__(self, conn: psycopg.Connection, n: int = READERS, lock_timeout: str | None = None):
        if conn.info.transaction_status != psycopg.pq.TransactionStatus.INTRANS:
            raise RuntimeError("SnapshotReaders needs a connection inside a transaction")
        # a setting is a connection's own: the readers price a random read as the transaction
        # that opens them does (price_random_reads_as_ssd; at the default price a reader's share
        # of a day's papers was planned as a scan of every position)
        snapshot, random_page_cost = conn.execute(
            "SELECT pg_export_snapshot(), current_setting('random_page_cost')").fetchone()
        params = {o.keyword.decode(): o.val.decode() for o in conn.pgconn.info if o.val}
        self.readers: list[psycopg.Connection] = []
        try:
            for _ in range(n):
                reader = psycopg.connect(**params, autocommit=True)
                self.readers.append(reader)
                reader.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                reader.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(snapshot)))
                reader.execute("SELECT set_config('random_page_cost', %s, true)", (random_page_cost,))
                if lock_timeout:  # (a read-ahead's readers: warm_indexes_ahead)
                    reader.execute("SELECT set_config('lock_timeout', %s, true)", (lock_timeout,))
        except BaseException:
            self.close()
            raise
        self._pool = ThreadPoolExecutor(n)

    def fetch_split(self, query: str | sql.Composable, params: dict[str, Any], split: Sequence[str]) -> list[tuple]:
        """``query``'s rows, run once per reader with an equal share of each list ``split``
        names (lists of one length, aligned, are cut alike; the other parameters go to every
        reader). The rows come in the readers' order, and a row two shares both reach comes
        twice: sort and deduplicate where that matters."""
        n = max(1, min(len(self.readers), max(len(params[name]) for name in split)))

        def share(values: Sequence[Any], k: int) -> Sequence[Any]:
            return values[len(values) * k // n:len(values) * (k + 1) // n]

        shares = [{**params, **{name: share(params[name], k) for name in split}} for k in range(n)]

        def run(k: int) -> list[tuple]:
            with self.readers[k].cursor() as cur:
                cur.execute(query, shares[k])
                return cur.fetchall()

        return [row for rows in self._pool.map(run, range(n)) for row in rows]

    def warm_indexes(self, lookups: Sequence[tuple[str, str, str, Sequence[Any]]]) -> None:
        """Read the index pages that rows about to be written will go into, split among the
        readers: each lookup is (table, column, key type, keys), a B-tree-indexed column's
        keys (type 'text', 'bigint') or a GIN-indexed array column's elements ('text[]').

        A write reaches each index entry alone, one page at a time: a day's rows with keys
        spread over indexes much bigger than memory (upstream author ids, researcher ids,
        name blocks) make each insertion a wait on the disk. Read first by the readers
        together, those pages are in memory when the write comes. One probe a key: in a
        B-tree the last entry of the key (where an entry with a newer row goes), answered from
        the index alone where the table's pages are all visible; in a GIN index the rows holding
        the element (an upstream id's: one researcher's), whose pages the write updates."""
        parts, params = [], {}
        for i, (table, column, key_type, keys) in enumerate(lookups):
            if not keys:
                continue
            name = f"k{i}"
            params[name] = sorted(set(keys))
            array = key_type.endswith("[]")
            if array:
                # (no LIMIT: with one, a scan of the table in any order looks as cheap as the
                # index to the planner, which cannot tell how rare the element is)
                probe = sql.SQL("SELECT 1 FROM {} t WHERE t.{} @> ARRAY[k]").format(
                    qualified(table), sql.Identifier(column))
            else:
                probe = sql.SQL("SELECT 1 FROM {} t WHERE t.{} = k ORDER BY t.{} DESC LIMIT 1").format(
                    qualified(table), sql.Identifier(column), sql.Identifier(column))
            parts.append(sql.SQL("(SELECT count(*) FROM unnest({}::{}) k, LATERAL ({}) x)").format(
                sql.Placeholder(name), sql.SQL(key_type if array else key_type + "[]"), probe))
        if parts:
            self.fetch_split(sql.SQL("SELECT ") + sql.SQL(" + ").join(parts), params, tuple(params))

    def close(self) -> None:
        """Close the readers (again: a no-op), ending their snapshot's transactions."""
        if getattr(self, "_pool", None):
            self._pool.shutdown()
            self._pool = None
        for reader in self.readers:
            reader.close()
        self.readers = []

    def __enter__(self) -> SnapshotReaders:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def warm_indexes_ahead(conn: psycopg.Connection, lookups: Sequence[tuple[str, str, str, Sequence[Any]]],
                       at_least: int) -> bool:
    """SnapshotReaders.warm_indexes on readers opened for it, when ``lookups`` hold at least
    ``at_least`` keys: below that, opening the readers costs more than the waits they would
    overlap. Whether it read ahead: not where a table it reads stayed locked against the
    readers (READ_AHEAD_LOCK_TIMEOUT), and the writes then read their pages themselves."""
    if sum(len(keys) for *_, keys in lookups) < at_least:
        return False
    with SnapshotReaders(conn, lock_timeout=READ_AHEAD_LOCK_TIMEOUT) as readers:
        try:
            readers.warm_indexes(lookups)
        except psycopg.errors.LockNotAvailable as e:
            log.info("read-ahead skipped: %s", e.diag.message_primary)
            return False
    return True


def fetch_keys(conn: psycopg.Connection, query: str | sql.Composable, params: dict[str, Any], split: Sequence[str],
               readers: SnapshotReaders | None = None) -> list[tuple]:
    """``query``'s rows for the keys in ``params``: split among ``readers`` where given
    (SnapshotReaders.fetch_split), else read on ``conn``."""
    if readers is None:
        return conn.execute(query, params).fetchall()
    return readers.fetch_split(query, params, split)


def copy_rows(conn: psycopg.Connection, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
    """COPY rows into a table (binary-safe text COPY through psycopg). Returns the count."""
    statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
        qualified(table), sql.SQL(", ").join(map(sql.Identifier, columns))
    )
    count = 0
    with conn.cursor() as cur, cur.copy(statement) as copy:
        for row in rows:
            copy.write_row(row)
            count += 1
    return count


def _copy_to_staging(conn: psycopg.Connection, staging: str, table: str, columns: Sequence[str],
                     rows: Iterable[Sequence[Any]]) -> int:
    """COPY rows into an empty temporary table shaped like `table` (dropped at commit)."""
    conn.execute(
        sql.SQL("CREATE TEMP TABLE IF NOT EXISTS {} (LIKE {} INCLUDING DEFAULTS) ON COMMIT DROP").format(
            sql.Identifier(staging), qualified(table)
        )
    )
    conn.execute(sql.SQL("TRUNCATE {}").format(sql.Identifier(staging)))
    return copy_rows(conn, staging, columns, rows)


def upsert_rows(
    conn: psycopg.Connection,
    table: str,
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
    key: Sequence[str],
    update: Sequence[str] | None = None,
    only_if: str | None = None,
) -> int:
    """Bulk upsert: COPY into a temporary table, then one INSERT ... ON CONFLICT DO UPDATE.

    COPY is the fast path into PostgreSQL; the single INSERT keeps the upsert set-based.
    Rows with the same key inside one batch keep the last one. `only_if` is an SQL
    condition (written in code, never from data) that guards the update, e.g. so an
    older record never overwrites a newer one.
    """
    update = [c for c in (update if update is not None else columns) if c not in key]
    staging = f"staging_{table.replace('.', '_')}"
    n = _copy_to_staging(conn, staging, table, columns, rows)
    cols = sql.SQL(", ").join(map(sql.Identifier, columns))
    keys = sql.SQL(", ").join(map(sql.Identifier, key))
    action = (
        sql.SQL("DO UPDATE SET {}").format(
            sql.SQL(", ").join(sql.SQL("{0} = EXCLUDED.{0}").format(sql.Identifier(c)) for c in update)
        )
        if update
        else sql.SQL("DO NOTHING")
    )
    if update and only_if:
        action = action + sql.SQL(" WHERE ") + sql.SQL(only_if)
    conn.execute(
        sql.SQL(
            "INSERT INTO {table} ({cols}) SELECT DISTINCT ON ({keys}) {cols} FROM "
            "(SELECT *, row_number() OVER () AS _ord FROM {staging}) s ORDER BY {keys}, _ord DESC "
            "ON CONFLICT ({keys}) {action}"
        ).format(table=qualified(table), cols=cols, keys=keys, staging=sql.Identifier(staging), action=action)
    )
    return n


def replace_rows(
    conn: psycopg.Connection,
    table: str,
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
    key: Sequence[str],
    scope: tuple[str, Sequence[Any]],
) -> tuple[int, int]:
    """Make the rows of `table` whose `scope` column (name, values) is in values equal to
    `rows`, leaving identical rows untouched: COPY into a temporary table, delete the rows
    in scope that no new row repeats, insert the new rows whose key is free.

    Rows that stay keep what hangs off them (rows referencing them with ON DELETE CASCADE,
    for one); a delete-all-then-COPY would drop and rewrite those too. Returns (deleted,
    inserted)."""
    staging = f"replace_{table.replace('.', '_')}"
    _copy_to_staging(conn, staging, table, columns, rows)
    conn.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(staging)))

    def row(alias: str) -> sql.Composable:
        return sql.SQL("ROW({})").format(sql.SQL(", ").join(sql.Identifier(alias, c) for c in columns))

    same_key = sql.SQL(" AND ").join(sql.SQL("{} = {}").format(sql.Identifier("s", c), sql.Identifier("t", c))
                                     for c in key)
    fmt = {"table": qualified(table), "staging": sql.Identifier(staging), "same_key": same_key,
           "scope": sql.Identifier("t", scope[0]), "cols": sql.SQL(", ").join(map(sql.Identifier, columns)),
           "t_row": row("t"), "s_row": row("s")}
    deleted = conn.execute(sql.SQL(
        "DELETE FROM {table} t WHERE {scope} = ANY(%s) AND NOT EXISTS"
        " (SELECT 1 FROM {staging} s WHERE {same_key} AND {s_row} IS NOT DISTINCT FROM {t_row})").format(**fmt),
        (list(scope[1]),)).rowcount
    inserted = conn.execute(sql.SQL(
        "INSERT INTO {table} ({cols}) SELECT {cols} FROM {staging} s"
        " WHERE NOT EXISTS (SELECT 1 FROM {table} t WHERE {same_key})").format(**fmt)).rowcount
    return deleted, inserted
