"""A small pool of read-only connections as the consumer role (what `wove serve` reads through).

Each connection runs ``SET ROLE <role>``, read-only transactions and a statement timeout,
whatever login the URL names, so its reader can read nothing the role could not.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator

import psycopg
from psycopg import sql

from wove_pipeline.database import access as db


class PoolBusy(Exception):
    """No connection came free in time."""


class ReaderPool:
    """A few connections to the serving database, each switched to the read-only role.

    Autocommit: every statement is its own read-only transaction, so no pooled connection
    sits idle in a transaction (a publish's swap waits for readers still on the old schema).
    A connection that fails is dropped and the next request opens a new one."""

    def __init__(self, url: str, size: int, role: str, statement_timeout_ms: int, wait_s: float = 30):
        self.url, self.size, self.role = url, size, role
        self.statement_timeout_ms, self.wait_s = statement_timeout_ms, wait_s
        self._idle: queue.LifoQueue[psycopg.Connection] = queue.LifoQueue()
        self._slots = threading.BoundedSemaphore(size)
        self._closed = False

    def _open(self) -> psycopg.Connection:
        conn = db.connect(self.url, autocommit=True)
        try:
            conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(self.role)))
            conn.execute("SET default_transaction_read_only = on")
            conn.execute("SELECT set_config('statement_timeout', %s, false)", (str(self.statement_timeout_ms),))
        except BaseException:
            conn.close()
            raise
        return conn

    @contextlib.contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        if not self._slots.acquire(timeout=self.wait_s):
            raise PoolBusy("the server is busy: no database connection free")
        conn = None
        try:
            try:
                conn = self._idle.get_nowait()
            except queue.Empty:
                conn = self._open()
            yield conn
        except psycopg.OperationalError:
            if conn is not None:
                conn.close()
            conn = None
            raise
        finally:
            if conn is not None:
                if self._closed or conn.closed or conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                    conn.close()
                else:
                    self._idle.put(conn)
            self._slots.release()

    def close(self) -> None:
        self._closed = True
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                return
