"""What every asset check does to its connection: read only, under a statement timeout."""

from collections.abc import Sequence

from wove_pipeline.database import access as db

STATEMENT_TIMEOUT = "60s"


def missing_tables(conn, tables: Sequence[str]) -> list[str]:
    return [t for t in tables if db.fetch_value(conn, "SELECT to_regclass(%s)", (t,)) is None]


def read_only(conn, timeout: str = STATEMENT_TIMEOUT) -> None:
    conn.execute("SET TRANSACTION READ ONLY")
    conn.execute("SELECT set_config('statement_timeout', %s, true)", (timeout,))
