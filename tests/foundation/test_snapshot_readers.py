"""db.SnapshotReaders: a read split among more connections sees exactly what the one
transaction that opened them sees, and gives the rows one connection reads."""

import threading
import time

import psycopg
import pytest

from wove_pipeline.database import access as db

PAIRS_SQL = """
SELECT w.k, w.v, t.label FROM unnest(%(keys)s::int[], %(values)s::text[]) w (k, v)
JOIN readers_probe t ON t.k = w.k
"""


@pytest.fixture
def probe(database_url):
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE readers_probe (k int PRIMARY KEY, label text)")
        conn.execute("INSERT INTO readers_probe SELECT g, 'row ' || g FROM generate_series(1, 50) g")
    return database_url


def test_a_split_read_gives_one_connection_s_rows(probe):
    keys = list(range(0, 60, 3))  # 0 and 51..57 find nothing
    params = {"keys": keys, "values": [f"v{k}" for k in keys], "unsplit": "x"}
    with psycopg.connect(probe) as conn:
        one = conn.execute(PAIRS_SQL, params).fetchall()
        with db.SnapshotReaders(conn, n=4) as readers:
            split = readers.fetch_split(PAIRS_SQL, params, ("keys", "values"))
            assert readers.fetch_split(PAIRS_SQL, {"keys": [], "values": []}, ("keys", "values")) == []
            assert sorted(db.fetch_keys(conn, PAIRS_SQL, params, ("keys", "values"), readers)) == sorted(one)
        readers.close()  # closing again (profile_run closes them before its writes) does nothing
        assert readers.readers == []
        assert db.fetch_keys(conn, PAIRS_SQL, params, ("keys", "values")) == one
    assert sorted(split) == sorted(one)
    assert [r[:2] for r in sorted(split)] == [(k, f"v{k}") for k in keys if 1 <= k <= 50]  # aligned lists cut alike
    assert len(one) == 16


def test_readers_see_the_transaction_s_snapshot_not_later_commits(probe):
    with psycopg.connect(probe) as conn:
        conn.execute("SELECT count(*) FROM readers_probe")  # the transaction is open
        with db.SnapshotReaders(conn, n=2) as readers:
            with psycopg.connect(probe, autocommit=True) as other:
                other.execute("UPDATE readers_probe SET label = 'changed' WHERE k <= 10")
                other.execute("INSERT INTO readers_probe VALUES (51, 'new')")
            rows = readers.fetch_split("SELECT k, label FROM readers_probe WHERE k = ANY(%(keys)s)",
                                       {"keys": list(range(1, 52))}, ("keys",))
        assert sorted(rows) == [(k, f"row {k}") for k in range(1, 51)]


def test_readers_need_an_open_transaction(probe):
    with psycopg.connect(probe, autocommit=True) as conn:
        with pytest.raises(RuntimeError, match="inside a transaction"):
            db.SnapshotReaders(conn)


def test_readers_price_random_reads_as_their_transaction_does(probe):
    """A setting is a connection's own: the readers price a random read as the transaction
    that opens them does (a day's run: db.price_random_reads_as_ssd), or their shares of a
    day's keys are planned as scans of whole tables."""
    cost_sql = "SELECT current_setting('random_page_cost') FROM unnest(%(keys)s::int[])"
    with psycopg.connect(probe) as conn:
        server_default = conn.execute("SHOW random_page_cost").fetchone()[0]  # (opens the transaction)
        with db.SnapshotReaders(conn, n=2) as readers:
            default = readers.fetch_split(cost_sql, {"keys": [1, 2]}, ("keys",))
        db.price_random_reads_as_ssd(conn)
        with db.SnapshotReaders(conn, n=2) as readers:
            priced = readers.fetch_split(cost_sql, {"keys": [1, 2]}, ("keys",))
    assert server_default != "1.1" and default == [(server_default,)] * 2 and priced == [("1.1",)] * 2


def _index_scans(url: str, table: str) -> tuple[dict[str, int], int]:
    with psycopg.connect(url, autocommit=True) as conn:
        by_index = dict(conn.execute("SELECT indexrelname, idx_scan FROM pg_stat_user_indexes WHERE relname = %s",
                                     (table,)).fetchall())
        seq = conn.execute("SELECT seq_scan FROM pg_stat_user_tables WHERE relname = %s", (table,)).fetchone()[0]
    return by_index, seq


def test_warming_indexes_probes_each_key_by_its_index_never_by_a_scan(database_url):
    """warm_indexes reads the pages a write of these keys will go into: one probe a key, through
    the B-tree or GIN index on the column (a scan of the table would read all of it, every day)."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE warm_probe (id bigint PRIMARY KEY, author text, ids text[])")
        conn.execute("INSERT INTO warm_probe SELECT g, 'a' || (g % 5000), ARRAY['s' || g, 's' || (g + 1)]"
                     " FROM generate_series(1, 20000) g")
        conn.execute("CREATE INDEX warm_probe_author_idx ON warm_probe (author)")
        conn.execute("CREATE INDEX warm_probe_ids_idx ON warm_probe USING gin (ids)")
        conn.execute("VACUUM ANALYZE warm_probe")
    before, seq_before = _index_scans(database_url, "warm_probe")
    authors = ["a7", "a42", "a4999", "nobody"]
    elements = ["s5", "s19000", "s77", "s-none", "s5"]  # a repeated key is probed once
    with psycopg.connect(database_url) as conn:
        conn.execute("SELECT 1")
        db.price_random_reads_as_ssd(conn)
        with db.SnapshotReaders(conn, n=2) as readers:
            readers.warm_indexes([("warm_probe", "author", "text", authors), ("warm_probe", "ids", "text[]", elements),
                                  ("warm_probe", "id", "bigint", [])])
    expected = {"warm_probe_author_idx": len(authors), "warm_probe_ids_idx": len(set(elements)), "warm_probe_pkey": 0}
    for _ in range(100):  # the readers' statistics reach the server as their backends exit
        after, seq_after = _index_scans(database_url, "warm_probe")
        if {k: after[k] - before[k] for k in after} == expected:
            break
        time.sleep(0.1)
    assert {k: after[k] - before[k] for k in after} == expected
    assert seq_after == seq_before


def test_a_read_ahead_of_a_table_its_own_transaction_locked_gives_up_and_the_transaction_goes_on(probe):
    """The transaction that opens the readers truncated the table they would read: they wait on
    its lock while it waits on them (PostgreSQL sees one side only), so they give up after
    db.READ_AHEAD_LOCK_TIMEOUT, the read-ahead is skipped and the transaction commits."""
    done: dict = {}

    def day() -> None:
        with psycopg.connect(probe) as conn:
            conn.execute("SELECT 1")  # the transaction is open
            free = db.warm_indexes_ahead(conn, [("readers_probe", "k", "bigint", [1, 2])], 2)
            conn.execute("TRUNCATE readers_probe")
            done["locked"] = db.warm_indexes_ahead(conn, [("readers_probe", "k", "bigint", [1, 2, 3])], 2)
            done["below"] = db.warm_indexes_ahead(conn, [("readers_probe", "k", "bigint", [1, 2, 3])], 4)
            conn.execute("INSERT INTO readers_probe VALUES (1, 'after')")
            done["free"] = free

    thread = threading.Thread(target=day, daemon=True)
    thread.start()
    thread.join(120)  # a hang guard (the deadlock never ends), not a measure of speed
    assert not thread.is_alive(), "the read-ahead waited on its own transaction's lock"
    assert done == {"free": True, "locked": False, "below": False}
    with psycopg.connect(probe) as conn:
        assert conn.execute("SELECT * FROM readers_probe").fetchall() == [(1, "after")]
