"""Which papers a run asks for: its own days, and the look-back.

Upstreams index a new arXiv paper days to weeks after it appears, and a batch answers
`null` until then. A miss is "retry later": `wove.enrichment_attempts` records every ask,
and the fetch for partition days D.. asks for

- every paper of the run's own days not found yet (always), plus
- papers of the previous `lookback_days` days not found yet that are *due*: re-asked with
  doubling spacing (1, 2, 4 ... days, capped at `max_recheck_interval_days`), counted in
  partition days, plus not-yet-due ones that fill the spare room of the batches the run
  makes anyway (free: they ride in calls that are sent regardless).
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

import psycopg

from wove_pipeline.database import access as db
from wove_pipeline.partitions import DayRange


@dataclass(frozen=True)
class EnrichmentSettings:
    lookback_days: int = 60
    max_recheck_interval_days: int = 4

    def __post_init__(self) -> None:
        if self.lookback_days < 0 or self.max_recheck_interval_days < 1:
            raise ValueError("lookback_days must be >= 0 and max_recheck_interval_days >= 1")


def window(days: DayRange, settings: EnrichmentSettings) -> tuple[dt.date, dt.date]:
    """The run's days and the look-back before them: (first day, last day)."""
    return days.first - dt.timedelta(days=settings.lookback_days), days.last


@dataclass(frozen=True)
class Candidates:
    own: list[str]  # the run's own days, not found yet
    due: list[str]  # look-back, not found, due for a re-ask
    filler: list[str]  # look-back, not due, riding in spare batch room

    @property
    def ids(self) -> list[str]:
        return self.own + self.due + self.filler


def select_candidates(conn: psycopg.Connection, source: str, days: DayRange, settings: EnrichmentSettings,
                      batch_size: int) -> Candidates:
    """The papers to ask ``source`` for in a run over ``days``: the days' own papers not found
    yet, the look-back's due ones, and not-yet-due ones filling the last batch's spare room."""
    start, last = window(days, settings)
    # each window paper's attempt looked up by key (LIMIT 1 keeps it a lookup of its own): joined
    # plainly, the planner hashed the window against a scan of every attempt of the archive
    # (two rows a paper; 330 MB read a day at 1,000,000 papers)
    rows = db.fetch_all(
        conn,
        "SELECT p.arxiv_id, p.oai_datestamp = ANY(%(days)s) AS own, a.last_attempt, a.attempts "
        "FROM wove.papers p LEFT JOIN LATERAL (SELECT a.last_attempt, a.attempts, a.found_at"
        " FROM wove.enrichment_attempts a WHERE a.arxiv_id = p.arxiv_id AND a.source = %(src)s LIMIT 1) a ON true "
        "WHERE p.oai_datestamp BETWEEN %(start)s AND %(last)s AND a.found_at IS NULL "
        "ORDER BY p.oai_datestamp DESC, p.arxiv_id",
        {"days": days.days, "src": source, "start": start, "last": last},
    )
    own, due, rest = [], [], []
    for r in rows:
        if r["own"]:
            own.append(r["arxiv_id"])
        elif r["last_attempt"] is None:
            due.append(r["arxiv_id"])
        else:
            spacing = min(2 ** max(r["attempts"] - 1, 0), settings.max_recheck_interval_days)
            age = (last - r["last_attempt"]).days
            (due if age >= spacing else rest).append((r["last_attempt"], r["arxiv_id"]))
    due = [x if isinstance(x, str) else x[1] for x in due]
    n = len(own) + len(due)
    room = (math.ceil(n / batch_size) * batch_size - n) if n else 0
    rest.sort()  # least recently asked first
    return Candidates(own, due, [x[1] for x in rest[:room]])


def window_authors_not_held(conn: psycopg.Connection, days: DayRange, settings: EnrichmentSettings,
                            authors_sql: str, held_sql: str) -> list[str]:
    """The author ids on the window's papers (``authors_sql``: the distinct ids, from the
    window's days %(start)s..%(end)s) that ``held_sql`` does not find (the ids %(ids)s it holds),
    sorted. The window is a range of recent rows; its authors' lookups are keys spread over a
    table of every author the archive has met, split among db.SnapshotReaders: cold, one
    connection waited on them one page at a time (0.65 and 0.68 s for S2 and OpenAlex in the
    day after 1,000,000 papers, under 0.1 s at 10,000; each id once, not once a work)."""
    start, end = window(days, settings)
    with conn.transaction():
        ids = [r[0] for r in conn.execute(authors_sql, {"start": start, "end": end})]
        if not ids:
            return []
        with db.SnapshotReaders(conn) as readers:
            held = {r[0] for r in db.fetch_keys(conn, held_sql, {"ids": ids}, ("ids",), readers)}
    return sorted(set(ids) - held)
