"""Versioned schema migrations for the serving database.

Files named NNNN_name.sql apply in order, each in its own transaction, recorded in
wove.schema_migrations with a checksum. Re-applying is a no-op; a file that changed after
it was applied is an error (write a new migration instead).
"""

from __future__ import annotations

import hashlib
from importlib import resources

import psycopg

from wove_pipeline.database.access import advisory_lock


class MigrationError(RuntimeError):
    pass


def available() -> list[tuple[int, str, str]]:
    files = sorted(p for p in resources.files(__package__).iterdir() if p.name.endswith(".sql"))
    out = []
    for f in files:
        version = int(f.name.split("_", 1)[0])
        out.append((version, f.name, f.read_text(encoding="utf-8")))
    return out


def migrate(url: str) -> list[str]:
    """Apply pending migrations; returns the names applied now."""
    applied_now: list[str] = []
    with psycopg.connect(url) as conn:
        with conn.transaction():
            advisory_lock(conn, "wove-migrations")
            conn.execute("CREATE SCHEMA IF NOT EXISTS wove")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS wove.schema_migrations ("
                " version int PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())"
            )
            done = {v: c for v, c in conn.execute("SELECT version, checksum FROM wove.schema_migrations")}
            for version, name, text in available():
                checksum = hashlib.sha256(text.encode()).hexdigest()
                if version in done:
                    if done[version] != checksum:
                        raise MigrationError(f"migration {name} changed after it was applied")
                    continue
                with conn.transaction():
                    conn.execute(text)
                    conn.execute(
                        "INSERT INTO wove.schema_migrations (version, name, checksum) VALUES (%s, %s, %s)",
                        (version, name, checksum),
                    )
                applied_now.append(name)
    return applied_now
