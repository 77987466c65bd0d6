"""API usage across runs, per upstream and UTC day (wove.api_usage), and the OpenAlex cost
budget kept in step with it: budgets are per UTC day, whichever run spends them."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

import psycopg

from wove_pipeline.enrichment.raw import OPENALEX, S2

if TYPE_CHECKING:
    from wove_pipeline.enrichment.fetch import UpstreamFetch
    from wove_pipeline.openalex.client import OpenAlexClient


def utc_today() -> dt.date:
    return dt.datetime.now(dt.timezone.utc).date()


def usage_today(conn: psycopg.Connection, source: str, day: dt.date | None = None) -> tuple[int, float]:
    row = conn.execute("SELECT calls, cost_usd FROM wove.api_usage WHERE source = %s AND day = %s",
                       (source, day or utc_today())).fetchone()
    return (0, 0.0) if row is None else (int(row[0]), float(row[1]))


def add_usage(conn: psycopg.Connection, source: str, calls: int, cost_usd: float = 0.0,
              day: dt.date | None = None) -> None:
    if not calls and not cost_usd:
        return
    conn.execute(
        "INSERT INTO wove.api_usage (source, day, calls, cost_usd) VALUES (%s, %s, %s, %s) "
        "ON CONFLICT (source, day) DO UPDATE SET calls = api_usage.calls + EXCLUDED.calls,"
        " cost_usd = api_usage.cost_usd + EXCLUDED.cost_usd",
        (source, day or utc_today(), calls, cost_usd),
    )


def calls_left(conn: psycopg.Connection, usage_source: str, per_day: int, day: dt.date) -> int:
    """What is left today of a daily call budget counted under ``usage_source``."""
    return max(0, per_day - usage_today(conn, usage_source, day)[0])


def openalex_spent_by_others(conn: psycopg.Connection, client: OpenAlexClient) -> None:
    """Tell the client's budget what other runs spent today (this client's own spending is
    already in the table)."""
    client.budget.spent_before_usd = max(0.0, usage_today(conn, OPENALEX)[1] - client.budget.spent_usd)


def record_s2(conn: psycopg.Connection, fetch: UpstreamFetch) -> None:
    """A Semantic Scholar fetch's calls."""
    add_usage(conn, S2, fetch.calls)


def record_openalex(conn: psycopg.Connection, fetch: UpstreamFetch) -> None:
    """An OpenAlex fetch's calls and what its list calls cost."""
    add_usage(conn, OPENALEX, fetch.calls, fetch.list_calls * fetch.client.budget.list_call_usd)
