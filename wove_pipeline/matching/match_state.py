"""What every matching path shares (researchers' link by link, profile_run's by profile,
rematch's by shard): mention ids, the evidence hash's encoding, the input fingerprint, the
matching_state writes and the run's summary.

The fingerprint is everything the evidence hash reads, as stored: a paper whose fingerprint
equals the one kept at its last match has the same evidence. (Text, date and venue are not in
it: a changed abstract alone does not re-decide positions, as with the evidence hash.)
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

import psycopg

from wove_pipeline.database import access as db

from .mentions import Mention
from .overrides import Overrides


@dataclass
class MatchSummary:
    mentions: int
    new_mentions: int
    mode: str  # "full" | "incremental" | "unchanged"
    researchers: int
    touched_researchers: int
    created: int
    retired: int
    links_written: int
    not_sure: int
    positions_loaded: int = 0  # what the run read: every position, or the touched blocks' papers


def mention_id(arxiv_id: str, position: int) -> str:
    return f"{arxiv_id}:{position}"


def split_mention_id(mid: str) -> tuple[str, int]:
    arxiv_id, _, position = mid.rpartition(":")
    return arxiv_id, int(position)


# the evidence hash's encoding (kept byte-for-byte: stored hashes decide what is re-matched)
_EVIDENCE_JSON = json.JSONEncoder(default=str).encode


def evidence_part(m: Mention) -> bytes:
    """This position's share of its paper's evidence hash: the sha256 of the concatenation of
    these over the paper's positions in order (mention_load.load_mentions, rematch's state)."""
    return _EVIDENCE_JSON([m.position, m.first, m.last, m.suffix, m.affiliations, m.s2_author_id,
                           m.openalex_author_id, m.orcid, m.institution_ids, m.categories]).encode()


# The fingerprint's parts: a paper's author rows (pa, over wove.paper_authors) and aligned
# rows (au, over wove.authorships), joined to wove.papers p.
_NAMES = ("string_agg(concat_ws(':', pa.position, pa.keyname, pa.forenames, pa.suffix, pa.affiliations::text),"
          " '|' ORDER BY pa.position)")
_ALIGNED = ("string_agg(concat_ws(':', position, s2_author_id, s2_confidence, openalex_author_id,"
            " openalex_confidence, orcid, institution_ids::text, raw_affiliations::text), '|' ORDER BY position)")
_FINGERPRINT = "md5(concat_ws('#', array_to_string(p.categories, ','), pa.names, au.aligned))"

# The papers (every one with %(all)s, else those of %(ids)s) whose fingerprint differs from the
# one kept in matching_state, or with a position without a link: arxiv_id -> fingerprint.
INPUTS_SQL = f"""
WITH pa AS (
    SELECT pa.arxiv_id, {_NAMES} AS names,
           bool_and(rm.arxiv_id IS NOT NULL) AS all_linked   -- a rewritten author row loses its link
    FROM wove.paper_authors pa
    LEFT JOIN wove.researcher_mentions rm ON rm.arxiv_id = pa.arxiv_id AND rm.position = pa.position
    WHERE %(all)s OR pa.arxiv_id = ANY(%(ids)s)
    GROUP BY pa.arxiv_id
),
au AS (
    SELECT arxiv_id, {_ALIGNED} AS aligned
    FROM wove.authorships WHERE %(all)s OR arxiv_id = ANY(%(ids)s) GROUP BY arxiv_id
),
fp AS (
    SELECT p.arxiv_id, {_FINGERPRINT} AS inputs, coalesce(pa.all_linked, true) AS all_linked
    FROM wove.papers p LEFT JOIN pa USING (arxiv_id) LEFT JOIN au USING (arxiv_id)
    WHERE %(all)s OR p.arxiv_id = ANY(%(ids)s)
)
SELECT fp.arxiv_id, fp.inputs FROM fp
LEFT JOIN wove.matching_state ms USING (arxiv_id)
WHERE ms.inputs IS DISTINCT FROM fp.inputs OR NOT fp.all_linked
"""

# The fingerprint of every paper, unfiltered, into wove.rematch_inputs (the full re-match's
# plan; a test checks that an incremental run after a re-match finds nothing moved).
FINGERPRINTS_SQL = f"""
INSERT INTO wove.rematch_inputs (arxiv_id, inputs)
WITH pa AS (SELECT pa.arxiv_id, {_NAMES} AS names FROM wove.paper_authors pa GROUP BY pa.arxiv_id),
au AS (SELECT arxiv_id, {_ALIGNED} AS aligned FROM wove.authorships GROUP BY arxiv_id)
SELECT p.arxiv_id, {_FINGERPRINT}
FROM wove.papers p LEFT JOIN pa USING (arxiv_id) LEFT JOIN au USING (arxiv_id)
"""


def broken_overrides(overrides: Overrides, links: dict[str, int]) -> set[str]:
    """Positions of overrides the current links break (a forced split inside one researcher,
    a forced link across two): they are re-opened, so corrections apply on the next run."""
    pairs = [(pair, "link") for pair in overrides.links] + [(pair, "split") for pair in overrides.splits]
    return {mid for (a, b), kind in pairs
            if a in links and b in links and (links[a] == links[b]) == (kind == "split")
            for mid in (a, b)}


def override_papers(overrides: Overrides) -> set[str]:
    """The papers of the overrides' ends."""
    return {split_mention_id(mid)[0] for pair in [*overrides.links, *overrides.splits] for mid in pair}


def upstream_names(conn: psycopg.Connection, s2_ids, openalex_ids,
                   readers: db.SnapshotReaders | None = None) -> dict[str, str]:
    """S2 and OpenAlex profile display names of these author ids (``readers``: the reads by
    key split among them)."""
    return dict(db.fetch_keys(
        conn, "SELECT author_id, name FROM wove.s2_authors WHERE author_id = ANY(%(s2)s) AND name IS NOT NULL"
        " UNION ALL SELECT author_id, display_name FROM wove.openalex_authors WHERE author_id = ANY(%(oa)s)"
        " AND display_name IS NOT NULL", {"s2": sorted(s2_ids), "oa": sorted(openalex_ids)}, ("s2", "oa"), readers))


# The counts' rows (migration 0031: one a changing statement) folded into one a table.
_FOLD_COUNTS_SQL = """
WITH gone AS (DELETE FROM wove.row_counts RETURNING table_name, delta)
INSERT INTO wove.row_counts (table_name, delta) SELECT table_name, sum(delta) FROM gone GROUP BY table_name
"""


def totals(conn: psycopg.Connection) -> tuple[int, int]:
    """Author positions and researchers in the database, from the counts their writes keep
    (migration 0031), not by counting every row: a day's cost must not grow with the archive.
    The caller holds the matching runs' lock: one run at a time folds the counts."""
    conn.execute(_FOLD_COUNTS_SQL)
    return db.kept_row_count(conn, "paper_authors"), db.kept_row_count(conn, "researchers")


def store_inputs(conn: psycopg.Connection, inputs: dict[str, str], changed: set[str],
                 evidence: dict[str, str], now: dt.datetime) -> None:
    """Keep the evidence hash of each re-decided paper and the input fingerprint of every
    paper this run looked at, so the next run finds changed papers in SQL."""
    db.upsert_rows(
        conn, "wove.matching_state", ("arxiv_id", "matched_at", "content", "inputs"),
        ((p, now, evidence[p], inputs.get(p)) for p in sorted(changed)), key=("arxiv_id",),
    )
    seen = sorted(p for p in inputs if p not in changed and p in evidence)
    if seen:
        conn.execute(
            "UPDATE wove.matching_state ms SET inputs = u.inputs FROM unnest(%s::text[], %s::text[]) AS u(arxiv_id, inputs)"
            " WHERE ms.arxiv_id = u.arxiv_id", (seen, [inputs[p] for p in seen]))


def forget_own_links(conn: psycopg.Connection) -> None:
    """The links this run wrote logged their papers (the log names researcher_mentions' papers
    for a link lost behind the matcher's back): what the run itself wrote needs no second look.
    (Rows another writer logged meanwhile have another xmin: they stay for the next run.)"""
    conn.execute("DELETE FROM wove.matching_changes WHERE xmin = pg_current_xact_id()::xid")
