"""Researcher and institution metrics, recomputed incrementally (Dagster-free).

What the researcher page shows (SEED.md, DESIGN.md "Metrics"), per researcher:

* papers here (distinct archive papers with a mention of the researcher);
* h-index, citations and total works from the **external author records** (Semantic
  Scholar first, OpenAlex when S2 has none), with the record's source, id and as-of day;
  every linked record is kept too (``ext_records``);
* the same three figures over the archive's own papers (paper citations from
  ``wove.paper_citations``: S2's count, else OpenAlex's);
* author position (first / middle / last) over the papers where **every** author position
  is matched to a researcher, with the number of such papers and the total;
* counts of papers by **primary** arXiv category;
* co-author edges with the number of shared papers (papers with more than
  ``MAX_COAUTHOR_AUTHORS`` authors give no edges: a 2,600-author paper would add
  millions of edges that say nothing about collaboration);
* institutions over time (from the authorships' institution ids and the paper years).

Per institution: papers, researchers, citations.

Incremental rule: a paper is *changed* when the fingerprint of every input the metrics
read about it (its category and date, its citation count, its author count, the
researcher at each position, the S2/OpenAlex ids and institutions at each position)
differs from what the last run stored in ``wove.metrics_paper_state``. The affected
researchers are those on changed papers (before and after), those whose researcher row
changed, and those linked to an external author record that changed; only they are
recomputed. A changed paper whose shared facts (category, day, author and link counts) held
affects only the researchers whose own positions there moved (a digest per researcher in the
state, migration 0026): a merge that moves one position of a 3,000-author paper recomputes
two researchers, not 3,000. And a paper whose only change is links (no write to its row,
authors, authorships or citations) has its state patched, not computed whole: the digests
of the researchers whose links there moved are read again from their own positions on it,
and the rest of the state follows from the digests (statements.PATCHED_STATES_SQL, migration
0029), so the merge reads the moved positions, not the paper's 3,000. Co-author edges and
institution metrics move by difference instead: each changed paper's state as it was is
subtracted and its state as it is added (pair counts, paper counts, citation sums; an
institution's first/last day is re-read only when the paper that held it left), so they cost
the changed papers, not every paper of the researchers and institutions on them.
Candidates for the fingerprint check come from the metrics' change log (migration 0010):
the triggers on every table the metrics read log each written key in the writer's own
transaction, and a run takes what it can see, so a run costs what changed, not the size
of the archive, and misses nothing committed late. ``recompute_all`` rebuilds everything and
gives the same rows (property-tested).
"""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import time
from collections.abc import Iterable, Sequence

import psycopg

from wove_pipeline.database import access as db
from wove_pipeline.matching.mentions import MAX_COAUTHOR_AUTHORS
from wove_pipeline.metrics import statements

LOCK_KEY = "wove-metrics"


def h_index(citations: Iterable[int | None]) -> int:
    """Largest h such that h items have at least h citations each (None counts 0)."""
    counts = sorted((c or 0 for c in citations), reverse=True)
    h = 0
    for i, c in enumerate(counts, start=1):
        if c >= i:
            h = i
        else:
            break
    return h


@dataclasses.dataclass
class MetricsRun:
    mode: str
    papers_changed: int
    researchers_recomputed: int
    institutions_recomputed: int
    seconds: float
    watermark: dt.datetime
    affected_researchers: list[int] = dataclasses.field(default_factory=list, repr=False)
    # seconds per phase, so an operator sees which part of a slow run grew
    phases: dict[str, float] = dataclasses.field(default_factory=dict)
    papers_patched: int = 0  # candidates whose state was patched for moved links, not computed whole


class _Phases:
    """Seconds per phase of a run: ``lap(name)`` charges the time since the last lap."""

    def __init__(self) -> None:
        self.last = time.perf_counter()
        self.seconds: dict[str, float] = {}

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.seconds[name] = round(self.seconds.get(name, 0.0) + now - self.last, 3)
        self.last = now


# ---------------------------------------------------------------------------------------
# the run's steps (statements.py holds their SQL)


def _temp(conn: psycopg.Connection, name: str, column: str, coltype: str) -> None:
    conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {name} ({column} {coltype} PRIMARY KEY) ON COMMIT DROP")
    conn.execute(f"TRUNCATE {name}")


def _fill(conn: psycopg.Connection, name: str, column: str, values: Sequence) -> None:
    db.copy_rows(conn, name, (column,), ((v,) for v in values))
    conn.execute(f"ANALYZE {name}")


def _recompute_researchers(conn: psycopg.Connection, ids: Sequence[int]) -> None:
    _temp(conn, "_metrics_r", "researcher_id", "bigint")
    _fill(conn, "_metrics_r", "researcher_id", ids)
    conn.execute("DELETE FROM wove.researcher_metrics m USING _metrics_r r WHERE m.researcher_id = r.researcher_id")
    conn.execute("DROP TABLE IF EXISTS _metrics_rm, _metrics_ext")
    for statement in statements.RESEARCHER_INPUTS_SQL:
        conn.execute(statement)
    conn.execute(statements.RESEARCHER_METRICS_SQL)


def _recompute_archive_citations(conn: psycopg.Connection, ids: Sequence[int]) -> None:
    """Researchers whose papers changed only in citation count: only the archive's own
    h-index, citations, cited papers and as-of day can move (the full recompute's
    definitions, over the same (researcher, paper) rows)."""
    if ids:
        conn.execute(statements.ARCHIVE_CITATIONS_SQL, {"ids": list(ids)})


def _start_delta(conn: psycopg.Connection) -> None:
    conn.execute("DROP TABLE IF EXISTS _metrics_delta")
    conn.execute(f"CREATE TEMP TABLE _metrics_delta ON COMMIT DROP AS SELECT 0 AS sign, {statements.DELTA_COLUMNS} "
                 "FROM wove.metrics_paper_state WITH NO DATA")


def _capture_delta(conn: psycopg.Connection, sign: int, arxiv_ids: Sequence[str] | None) -> None:
    """Copy the state rows of these papers (all when None) into _metrics_delta with a sign."""
    where = "" if arxiv_ids is None else " WHERE arxiv_id = ANY(%(ids)s)"
    conn.execute(f"INSERT INTO _metrics_delta SELECT %(sign)s, {statements.DELTA_COLUMNS} FROM wove.metrics_paper_state{where}",
                 {"sign": sign, "ids": list(arxiv_ids or [])})


def _apply_deltas(conn: psycopg.Connection) -> int:
    """Apply _metrics_delta to the co-author edges and the institution metrics; return the
    number of institutions whose figures moved."""
    conn.execute("ANALYZE _metrics_delta")
    for name in ("_metrics_pairs", "_metrics_ir", "_metrics_ip"):
        conn.execute(f"DROP TABLE IF EXISTS {name}")
    for statement in statements.COAUTHOR_DELTA_SQL:
        conn.execute(statement, {"max_authors": MAX_COAUTHOR_AUTHORS})
    for statement in statements.INSTITUTION_DELTA_SQL:
        conn.execute(statement)
    return db.fetch_value(conn, "SELECT count(*) FROM (SELECT institution_id FROM _metrics_ip"
                                " UNION SELECT institution_id FROM _metrics_ir) x")


def _paper_states(conn: psycopg.Connection, arxiv_ids: Sequence[str], patched: Sequence[str] = (),
                  moved: Sequence[tuple[int, str]] = ()) -> None:
    """Each paper's state as it is now, into _metrics_states (built in the database: the
    states of candidates whose fingerprint did not move never travel to Python): computed
    whole for ``arxiv_ids``, patched from the stored state for ``patched`` (papers whose only
    change is links; ``moved``: the (researcher, paper) pairs of the links written)."""
    _temp(conn, "_metrics_candidates", "arxiv_id", "text")
    _fill(conn, "_metrics_candidates", "arxiv_id", arxiv_ids)
    conn.execute("DROP TABLE IF EXISTS _metrics_states")
    conn.execute("CREATE TEMP TABLE _metrics_states ON COMMIT DROP AS " + statements.PAPER_STATE_SQL)
    if patched:
        _temp(conn, "_metrics_patch", "arxiv_id", "text")
        _fill(conn, "_metrics_patch", "arxiv_id", patched)
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS _metrics_moved (researcher_id bigint, arxiv_id text,"
                     " PRIMARY KEY (researcher_id, arxiv_id)) ON COMMIT DROP")
        conn.execute("TRUNCATE _metrics_moved")
        db.copy_rows(conn, "_metrics_moved", ("researcher_id", "arxiv_id"), moved)
        conn.execute("ANALYZE _metrics_moved")
        conn.execute("INSERT INTO _metrics_states " + statements.PATCHED_STATES_SQL)
    conn.execute("ANALYZE _metrics_states")


def _store_paper_states(conn: psycopg.Connection, arxiv_ids: Sequence[str] | None) -> None:
    """Write these papers' states (every one when None) from _metrics_states; a paper that
    is gone loses its row."""
    params = {"all": arxiv_ids is None, "ids": list(arxiv_ids or [])}
    conn.execute("DELETE FROM wove.metrics_paper_state s USING _metrics_states n WHERE n.arxiv_id = s.arxiv_id"
                 " AND n.fingerprint = 'gone' AND (%(all)s OR n.arxiv_id = ANY(%(ids)s))", params)
    conn.execute(statements.STORE_STATES_SQL, params)


def _snapshot_researchers_and_authors(conn: psycopg.Connection, researcher_ids: Sequence[int] | None,
                                      author_keys: Sequence[tuple[str, str]] | None) -> None:
    """Store researcher-row and author-record fingerprints (all of them when ids is None)."""
    if researcher_ids is None:
        conn.execute("TRUNCATE wove.metrics_researcher_state")
        conn.execute(f"INSERT INTO wove.metrics_researcher_state SELECT r.researcher_id, {statements.RESEARCHER_FP} FROM wove.researchers r")
    elif researcher_ids:
        conn.execute("DELETE FROM wove.metrics_researcher_state WHERE researcher_id = ANY(%s)", (list(researcher_ids),))
        conn.execute(
            f"INSERT INTO wove.metrics_researcher_state SELECT r.researcher_id, {statements.RESEARCHER_FP} "
            "FROM wove.researchers r WHERE r.researcher_id = ANY(%s)", (list(researcher_ids),))
    if author_keys is None:
        conn.execute("TRUNCATE wove.metrics_author_state")
        for source, (table, fp) in statements.AUTHOR_FP.items():
            conn.execute(f"INSERT INTO wove.metrics_author_state SELECT %s, t.author_id, {fp} FROM {table} t", (source,))
    elif author_keys:
        for source, (table, fp) in statements.AUTHOR_FP.items():
            ids = [a for s, a in author_keys if s == source]
            if not ids:
                continue
            conn.execute("DELETE FROM wove.metrics_author_state WHERE source = %s AND author_id = ANY(%s)", (source, ids))
            conn.execute(
                f"INSERT INTO wove.metrics_author_state SELECT %s, t.author_id, {fp} FROM {table} t "
                "WHERE t.author_id = ANY(%s)", (source, ids))


def _record_run(conn, mode, started_at, watermark, papers, researchers, institutions, seconds) -> None:
    conn.execute(
        "INSERT INTO wove.metrics_runs (mode, started_at, watermark, papers_changed, researchers_recomputed,"
        " institutions_recomputed, seconds) VALUES (%s, %s, %s, %s, %s, %s, %s)",
        (mode, started_at, watermark, papers, researchers, institutions, seconds),
    )


# ---------------------------------------------------------------------------------------
# entry points


def recompute_all(conn: psycopg.Connection) -> MetricsRun:
    """Rebuild every metric and every state row from scratch. Call inside a transaction."""
    t0 = time.perf_counter()
    phases = _Phases()
    db.advisory_lock(conn, LOCK_KEY)
    db.sort_in_memory(conn)
    started = db.fetch_value(conn, "SELECT now()")
    conn.execute("TRUNCATE wove.researcher_metrics, wove.researcher_coauthors, wove.institution_metrics,"
                 " wove.metrics_institution_researchers, wove.metrics_paper_state")
    # what the log holds (these truncates included) is in this run: it reads everything after
    conn.execute("DELETE FROM wove.metrics_changes")
    papers = [r[0] for r in conn.execute("SELECT arxiv_id FROM wove.papers")]
    _paper_states(conn, papers)
    _store_paper_states(conn, None)
    phases.lap("paper_states")
    researchers = [r[0] for r in conn.execute(
        "SELECT researcher_id FROM wove.researchers UNION SELECT DISTINCT researcher_id FROM wove.researcher_mentions")]
    _recompute_researchers(conn, researchers)
    phases.lap("researchers")
    _start_delta(conn)  # every paper, from nothing
    _capture_delta(conn, +1, None)
    institutions = _apply_deltas(conn)
    phases.lap("coauthors_institutions")
    _snapshot_researchers_and_authors(conn, None, None)
    phases.lap("fingerprints")
    seconds = time.perf_counter() - t0
    _record_run(conn, "full", started, started, len(papers), len(researchers), institutions, seconds)
    return MetricsRun("full", len(papers), len(researchers), institutions, seconds, started, list(researchers),
                      phases.seconds)


def _take_changes(conn: psycopg.Connection) -> dict[str, set[str]]:
    """The keys writers logged for the metrics (migration 0010) that this transaction can
    see, taken out of the log: they come back if it rolls back, and rows committed after
    this statement stay for the next run."""
    changes: dict[str, set[str]] = collections.defaultdict(set)
    for kind, key in conn.execute("WITH taken AS (DELETE FROM wove.metrics_changes RETURNING kind, key)"
                                  " SELECT DISTINCT kind, key FROM taken"):
        changes[kind].add(key)
    return changes


def update_metrics(conn: psycopg.Connection) -> MetricsRun:
    """Recompute only what changed since the last run (the first run is a full one, and so
    is a run after a core table was truncated).

    Call inside a transaction.
    """
    t0 = time.perf_counter()
    phases = _Phases()
    db.advisory_lock(conn, LOCK_KEY)
    if db.fetch_value(conn, "SELECT max(watermark) FROM wove.metrics_runs") is None:
        return recompute_all(conn)
    changes = _take_changes(conn)
    if changes["truncate"]:
        return recompute_all(conn)
    db.sort_in_memory(conn)  # (recompute_all sets its own)
    # what moved is a sliver of tables that grow with the archive: read by key (at PostgreSQL's
    # default price the day's researchers' links, metrics and states were hashed against scans
    # of every row)
    db.price_random_reads_as_ssd(conn)
    started = db.fetch_value(conn, "SELECT now()")

    # 1. researcher rows written or deleted; those whose identity (names, upstream ids)
    #    changed, or that are gone, are recomputed themselves
    touched = sorted(int(k) for k in changes["researcher"])
    identity_changed = [r[0] for r in conn.execute(statements.IDENTITY_CHANGED_SQL, (touched,))]

    # 2. external author records (and OpenAlex redirects) that changed, and the researchers
    #    linked to them
    author_keys: list[tuple[str, str]] = []
    for source, statement in statements.AUTHOR_CHANGED_SQL.items():
        rows = conn.execute(statement, {"source": source, "ids": sorted(changes[f"{source}_author"])}).fetchall()
        author_keys += [(source, r[0]) for r in rows]
    author_affected: set[int] = set()
    if author_keys:
        s2 = [a for s, a in author_keys if s == "s2"]
        oa = [a for s, a in author_keys if s == "openalex"]
        rows = conn.execute(statements.AUTHOR_RESEARCHERS_SQL, {"s2": s2, "oa": oa}).fetchall()
        author_affected = {r[0] for r in rows}

    # 3. candidate papers: every paper a logged write touched (its row, authors, upstream
    #    records, alignment or links; a moved link logs its paper, so the researchers it
    #    left and joined are found through the paper's state then and now). Those whose
    #    only change is links, with a stored state, are patched: a merge moves one position
    #    of a 3,000-author paper, and computing its state whole read all 3,000.
    candidates = changes["paper"] | changes["authorship"]
    moved = sorted({(int(r), a) for r, a in (key.split(":", 1) for key in changes["mention_pair"])})
    links_only = {a for _, a in moved} - changes["paper_data"] - changes["authorship"]
    patched = {a for (a,) in conn.execute(
        "SELECT arxiv_id FROM wove.metrics_paper_state WHERE arxiv_id = ANY(%s)", (sorted(links_only),))}
    phases.lap("detect")

    # 4. keep those whose fingerprint really changed; collect who and where (then and now)
    _paper_states(conn, sorted(candidates - patched), sorted(patched), [m for m in moved if m[1] in patched])
    changed = db.fetch_all(conn, statements.CHANGED_STATES_SQL)
    researchers: set[int] = set(identity_changed) | author_affected
    cited_only: set[int] = set()  # on papers whose citation figures moved, nothing else of theirs
    for s in changed:
        moved = s["moved_researcher_ids"]
        if s["cited_only"]:
            cited_only.update(s["researcher_ids"])
        elif moved is None:
            researchers.update(s["researcher_ids"])
            researchers.update(s["old_researcher_ids"] or ())
        else:  # the paper's shared facts held: only those whose own positions there moved
            researchers.update(moved)
            if s["cited_moved"]:
                cited_only.update(s["researcher_ids"])
    cited_only -= researchers

    # 5. store the paper states, keeping the changed ones as they were and as they are
    #    (co-author edges and institution figures move by the difference), then
    #    recompute the affected researchers (their metrics read the current states)
    changed_ids = [s["arxiv_id"] for s in changed]
    _start_delta(conn)
    _capture_delta(conn, -1, changed_ids)
    _store_paper_states(conn, changed_ids)
    _capture_delta(conn, +1, changed_ids)
    phases.lap("paper_states")
    institutions = _apply_deltas(conn)
    phases.lap("coauthors_institutions")
    _recompute_researchers(conn, sorted(researchers))
    _recompute_archive_citations(conn, sorted(cited_only))
    phases.lap("researchers")
    ids = sorted(researchers | cited_only)
    _snapshot_researchers_and_authors(conn, touched, author_keys)
    phases.lap("fingerprints")
    seconds = time.perf_counter() - t0
    _record_run(conn, "incremental", started, started, len(changed), len(ids), institutions, seconds)
    return MetricsRun("incremental", len(changed), len(ids), institutions, seconds, started, ids, phases.seconds,
                      len(patched))


def metrics_snapshot(conn: psycopg.Connection) -> dict[str, list[tuple]]:
    """Every metric row (without timestamps), for comparing an incremental run with a full one."""
    return {
        "researcher_metrics": conn.execute(
            "SELECT researcher_id, papers_here, ext_source, ext_author_id, ext_h_index, ext_citations, ext_works,"
            " ext_as_of, ext_records::text, archive_h_index, archive_citations, archive_works, archive_cited_papers,"
            " archive_as_of, position_first, position_middle, position_last, position_papers_considered,"
            " position_papers_total, categories::text, institutions::text, first_published, last_published"
            " FROM wove.researcher_metrics ORDER BY researcher_id").fetchall(),
        "researcher_coauthors": conn.execute(
            "SELECT researcher_id, coauthor_id, papers FROM wove.researcher_coauthors ORDER BY 1, 2").fetchall(),
        "institution_metrics": conn.execute(
            "SELECT institution_id, papers, researchers, citations, first_published, last_published"
            " FROM wove.institution_metrics ORDER BY 1").fetchall(),
        # what the next run compares with (all but the OAI datestamp, which no figure reads)
        "metrics_paper_state": conn.execute(
            "SELECT " + ", ".join(f"{c}::text" for c in statements.STATE_COLUMNS if c != "oai_datestamp")
            + " FROM wove.metrics_paper_state ORDER BY arxiv_id").fetchall(),
    }
