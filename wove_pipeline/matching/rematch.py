"""The full re-match against the database, by shard: plan, shards (any number at once), finish.

``researchers.match_researchers(full=True)`` loads every mention at once; at 10M positions that
does not fit in memory. This path cuts the same work by name block (``shards``):

1. ``plan`` (one process): every position's block key and shard (wove.matching_blocks), the
   papers' text terms counted where missing, the corpus statistics every shard scores with
   (``corpus.CorpusCounts``: ``match_all`` fits them over all its mentions), and the input
   fingerprints of every paper (kept for matching_state once the links are written). Papers
   are read a page at a time.
2. ``shard`` (one per shard, in any order, in parallel: a process or a pod each): the shard's
   positions in block order, loaded chunk by chunk of whole blocks (``mention_load.load_mentions``:
   the same mentions as a full load), clustered with the model and rule of ``match_all``
   (``streaming.cluster_stream``), results to wove.rematch_results and each cluster's profile
   (built from the members the shard holds) to wove.rematch_profiles.
3. ``finish`` (one process): the joins across name blocks over the clusters that share an
   ORCID or both upstream ids (or an override's end), then researcher ids home shard by home
   shard (a cluster's home: the shard that made its label; ``identity.assign_ids`` against
   the previous links of the unit's positions; one global id sequence), links, researcher
   rows, redirects, id events, matching_state and the researchers' profiles (the shards', under
   the new ids; rebuilt from the links where a join across blocks changed a cluster).

Clusters are ``match_all``'s on the same mentions. Ids: a cluster keeps the id most of its
mentions had (as in a full run), except where an old id's mentions now sit in clusters of
two home shards: the first shard in order keeps it, the others' clusters get fresh ids with
a ``split`` redirect (a full run gives the id to the larger part).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from wove_pipeline.database import access as db
from wove_pipeline.matching import profile_store
from wove_pipeline.matching import researchers as rs
from wove_pipeline.matching.assignment import MatchConfig
from wove_pipeline.matching.corpus import CorpusCounts, CorpusStats
from wove_pipeline.matching.identity import Redirect, assign_ids
from wove_pipeline.matching.match_state import (
    FINGERPRINTS_SQL,
    MatchSummary,
    evidence_part,
    forget_own_links,
    mention_id,
    split_mention_id,
    totals,
)
from wove_pipeline.matching.mention_load import load_mentions
from wove_pipeline.matching.mentions import Mention
from wove_pipeline.matching.profiles import build_profile
from wove_pipeline.matching.shards import N_SHARDS, shard_of
from wove_pipeline.matching.streaming import (
    CHUNK_MENTIONS,
    Result,
    cluster_stream,
    join_across,
    label_base,
    override_ends,
)

PAGE_PAPERS = 2000  # papers read at once by the plan

RESULT_COLUMNS = ("arxiv_id", "position", "shard", "label", "outcome", "score", "partner", "evidence", "block",
                  "orcid", "s2_author_id", "openalex_author_id", "first", "last", "suffix", "evidence_part")
# a cluster's profile as the shard built it: profile_store's columns, by label, less built_at
PROFILE_COLUMNS = ("label", *profile_store.COLUMNS[1:-1], "shard")


@dataclass
class PlanSummary:
    papers: int
    positions: int
    shards_with_blocks: int


def plan(conn: psycopg.Connection, *, now: dt.datetime | None = None) -> PlanSummary:
    """Step 1: block keys and shards of every position, text terms, corpus statistics, input
    fingerprints; the change log is taken (writes after this stay logged for the next run)."""
    now = now or dt.datetime.now(dt.timezone.utc)
    db.advisory_lock(conn, "rematch")
    conn.execute("TRUNCATE wove.matching_blocks, wove.rematch_results, wove.rematch_profiles, wove.rematch_inputs")
    conn.execute("DELETE FROM wove.matching_changes")
    conn.execute(FINGERPRINTS_SQL)
    stats = CorpusStats()
    papers = positions = 0
    after = ""
    shards: set[int] = set()
    while True:
        page = [r[0] for r in conn.execute(
            "SELECT arxiv_id FROM wove.papers WHERE arxiv_id > %s ORDER BY arxiv_id LIMIT %s", (after, PAGE_PAPERS))]
        if not page:
            break
        after = page[-1]
        mentions, _ = load_mentions(conn, page, hash_evidence=False, vectors=False)  # counts and keeps missing text terms
        stats.add(mentions)
        rows = [(m.paper_id, m.position, m.block, shard_of(m.block)) for m in mentions]
        shards.update(r[3] for r in rows)
        db.copy_rows(conn, "wove.matching_blocks", ("arxiv_id", "position", "block", "shard"), rows)
        papers += len(page)
        positions += len(mentions)
    conn.execute(
        "INSERT INTO wove.rematch_plan (plan_id, n_shards, stats, planned_at) VALUES (1, %s, %s, %s)"
        " ON CONFLICT (plan_id) DO UPDATE SET n_shards = excluded.n_shards, stats = excluded.stats,"
        " planned_at = excluded.planned_at", (N_SHARDS, stats.done().to_bytes(), now))
    return PlanSummary(papers, positions, len(shards))


def planned_shards(conn: psycopg.Connection) -> list[int]:
    return [r[0] for r in conn.execute("SELECT DISTINCT shard FROM wove.matching_blocks ORDER BY shard")]


def _shard_blocks(conn: psycopg.Connection, shard: int, chunk_mentions: int):
    """The shard's mentions, block after block, loaded a chunk of whole blocks at a time."""
    keys = conn.execute("SELECT block, arxiv_id, position FROM wove.matching_blocks WHERE shard = %s"
                        " ORDER BY block, arxiv_id, position", (shard,)).fetchall()
    start = 0
    while start < len(keys):
        end = min(start + chunk_mentions, len(keys))
        while end < len(keys) and keys[end][0] == keys[end - 1][0]:
            end += 1  # whole blocks
        only = {(a, p) for _, a, p in keys[start:end]}
        mentions, _ = load_mentions(conn, sorted({a for a, _ in only}), hash_evidence=False, only=only)
        by_block: dict[str, list[Mention]] = defaultdict(list)
        for m in sorted(mentions, key=lambda m: (m.paper_id, m.position)):
            by_block[m.block].append(m)
        for block in sorted(by_block):
            yield by_block[block]
        start = end


def shard(conn: psycopg.Connection, shard_id: int, config: MatchConfig | None = None, *,
          chunk_mentions: int = CHUNK_MENTIONS) -> int:
    """Step 2 for one shard: cluster its blocks, keep the results. Returns its positions."""
    raw = db.fetch_value(conn, "SELECT stats FROM wove.rematch_plan WHERE plan_id = 1")
    if raw is None:
        raise RuntimeError("no re-match plan: run rematch.plan first")
    counts = CorpusCounts.from_bytes(bytes(raw))
    overrides = rs.load_overrides(conn)
    conn.execute("DELETE FROM wove.rematch_results WHERE shard = %s", (shard_id,))
    conn.execute("DELETE FROM wove.rematch_profiles WHERE shard = %s", (shard_id,))
    held: dict[str, Mention] = {}  # the mentions of the chunk being clustered

    def blocks():
        for block in _shard_blocks(conn, shard_id, chunk_mentions):
            held.update((m.mention_id, m) for m in block)
            yield block

    written = 0
    for chunk in cluster_stream(blocks(), overrides, config or MatchConfig(), stats=counts,
                                first_label=label_base(shard_id), chunk_mentions=chunk_mentions):
        mentions = [held.pop(r.mention_id) for r in chunk]
        db.copy_rows(conn, "wove.rematch_results", RESULT_COLUMNS, (
            (r.paper_id, r.position, shard_id, r.label, r.outcome, r.score, r.partner, Jsonb(r.evidence), r.block,
             r.orcid, r.s2_author_id, r.openalex_author_id, r.first, r.last, r.suffix, evidence_part(m))
            for r, m in zip(chunk, mentions)))
        _keep_profiles(conn, shard_id, mentions, chunk)
        written += len(chunk)
    return written


def _keep_profiles(conn: psycopg.Connection, shard_id: int, mentions: list[Mention], chunk: list[Result]) -> None:
    """The profile of each cluster of this chunk (a chunk holds whole blocks, so whole clusters),
    built from its members in (paper, position) order as profile_store.rebuild reads them: a
    cluster lies in one block, and _shard_blocks yields a block's mentions in that order."""
    members: dict[int, list[Mention]] = defaultdict(list)
    for m, r in zip(mentions, chunk):
        members[r.label].append(m)
    db.copy_rows(conn, "wove.rematch_profiles", PROFILE_COLUMNS, (
        (*profile_store.profile_row(build_profile(label, ms), None)[:-1], shard_id) for label, ms in members.items()))


def _result(row) -> Result:
    arxiv_id, position, label, outcome, score, partner, evidence, block, orcid, s2, oa, first, last, suffix = row
    return Result(mention_id(arxiv_id, position), arxiv_id, position, block, label, outcome, score, partner,
                  evidence or {}, orcid, s2, oa, first, last, suffix)


RESULT_SELECT = ("SELECT arxiv_id, position, label, outcome, score, partner, evidence, block, orcid, s2_author_id,"
                 " openalex_author_id, first, last, suffix FROM wove.rematch_results")


# The clusters holding an id key (cross_block.join_by_upstream_ids': an ORCID, or both an S2
# and an OpenAlex author id) that appears in more than one name block.
JOINED_LABELS_SQL = """
WITH k AS (
    SELECT 'orcid' AS kind, orcid AS a, '' AS b, block, label FROM wove.rematch_results WHERE orcid IS NOT NULL
    UNION ALL
    SELECT 's2+oa', s2_author_id, openalex_author_id, block, label FROM wove.rematch_results
    WHERE s2_author_id IS NOT NULL AND openalex_author_id IS NOT NULL
),
multi AS (SELECT kind, a, b FROM k GROUP BY kind, a, b HAVING count(DISTINCT block) > 1)
SELECT DISTINCT k.label FROM k JOIN multi USING (kind, a, b)
"""


def _join_across_shards(conn: psycopg.Connection, overrides) -> set[int]:
    """The joins across name blocks, over the clusters that share an id key in two blocks.
    Returns the labels of the clusters it changed (those that lost or gained members)."""
    ends = override_ends(overrides)
    end_labels = [r[0] for r in conn.execute(
        "SELECT label FROM wove.rematch_results r JOIN unnest(%s::text[], %s::int[]) AS e(arxiv_id, position)"
        " USING (arxiv_id, position)",
        ([split_mention_id(m)[0] for m in ends], [split_mention_id(m)[1] for m in ends]))] if ends else []
    # streaming.joined_labels in SQL: the archive's keys never come to this process
    relevant = {r[0] for r in conn.execute(JOINED_LABELS_SQL)} | set(end_labels)
    if not relevant:
        return set()
    members = [_result(r) for r in conn.execute(RESULT_SELECT + " WHERE label = ANY(%s)", (sorted(relevant),))]
    moved = join_across(members, overrides)
    before = {r.mention_id: r.label for r in members}
    if moved:
        ids = [split_mention_id(m) for m in moved]
        conn.execute("UPDATE wove.rematch_results r SET label = u.label"
                     " FROM unnest(%s::text[], %s::int[], %s::bigint[]) AS u(arxiv_id, position, label)"
                     " WHERE r.arxiv_id = u.arxiv_id AND r.position = u.position",
                     ([a for a, _ in ids], [p for _, p in ids], list(moved.values())))
    return {before[m] for m in moved} | set(moved.values())


def finish(conn: psycopg.Connection, *, now: dt.datetime | None = None) -> MatchSummary:
    """Step 3: joins across blocks, stable ids unit by unit, links and researcher rows."""
    now = now or dt.datetime.now(dt.timezone.utc)
    db.advisory_lock(conn, "researchers")
    missing = [r[0] for r in conn.execute(
        "SELECT DISTINCT b.shard FROM wove.matching_blocks b LEFT JOIN wove.rematch_results r USING (arxiv_id, position)"
        " WHERE r.arxiv_id IS NULL ORDER BY 1")]
    if missing:
        raise RuntimeError(f"shards not re-matched yet: {missing}")
    conn.execute("ANALYZE wove.rematch_results")  # filled by COPY since the plan: the units read by label ranges
    overrides = rs.load_overrides(conn)
    joined = _join_across_shards(conn, overrides)
    redirects = {r["old_id"]: Redirect(r["old_id"], r["new_id"], r["reason"], r["redirected_at"])
                 for r in db.fetch_all(conn, "SELECT * FROM wove.researcher_redirects")}
    first_id = counter = db.fetch_value(conn, "SELECT nextval('wove.researcher_id_seq')")
    done: set[int] = set()  # ids a unit before kept or retired
    tally = defaultdict(int)
    label_ids: dict[int, int] = {}  # cluster label -> researcher id
    for home in planned_shards(conn):
        # a unit: the clusters whose label its shard made (a join across blocks moves members
        # into another cluster's label), read by a range of the label index
        labels = (label_base(home), label_base(home + 1))
        results = [_result(r) for r in conn.execute(
            RESULT_SELECT + " WHERE label >= %s AND label < %s ORDER BY arxiv_id, position", labels)]
        by_id = {r.mention_id: r for r in results}
        previous_all = {mention_id(a, p): rid for a, p, rid in conn.execute(
            "SELECT rm.arxiv_id, rm.position, rm.researcher_id FROM wove.researcher_mentions rm"
            " JOIN wove.rematch_results r USING (arxiv_id, position) WHERE r.label >= %s AND r.label < %s", labels)}
        previous = {m: rid for m, rid in previous_all.items() if rid not in done}
        identity = assign_ids(previous, {r.mention_id: r.label for r in results}, redirects=redirects,
                              next_id=counter, at=now)
        counter = identity.next_id
        splits = [Redirect(o, rid, "split", now) for m, o in previous_all.items() if o in done
                  for rid in [identity.mention_ids[m]] if rid in identity.created]
        new_rows = list(identity.new_redirects) + sorted(set(splits), key=lambda r: (r.old_id, r.new_id))
        kept = set(identity.mention_ids.values())
        done |= kept | set(identity.retired)
        changed = {o: r for o, r in identity.redirects.items() if redirects.get(o) != r}
        redirects = identity.redirects
        _write_unit(conn, by_id, identity.mention_ids, identity.retired, changed, new_rows, now)
        label_ids.update((by_id[m].label, rid) for m, rid in identity.mention_ids.items())
        tally["created"] += len(identity.created)
        tally["retired"] += len(identity.retired)
        tally["links"] += len(results)
        tally["researchers"] += len(kept)
    # (links of positions that left the corpus went with them: ON DELETE CASCADE.) Positions the
    # plan did not see, linked by a daily run since, keep their links, moved off retired ids;
    # researchers left without links are retired
    conn.execute("UPDATE wove.researcher_mentions rm SET researcher_id = rr.new_id FROM wove.researcher_redirects rr"
                 " WHERE rm.researcher_id = rr.old_id AND rr.new_id IS NOT NULL AND NOT EXISTS"
                 " (SELECT 1 FROM wove.rematch_results r WHERE r.arxiv_id = rm.arxiv_id AND r.position = rm.position)")
    orphans = [r[0] for r in conn.execute(
        "DELETE FROM wove.researchers x WHERE NOT EXISTS"
        " (SELECT 1 FROM wove.researcher_mentions rm WHERE rm.researcher_id = x.researcher_id) RETURNING researcher_id")]
    if orphans:
        db.upsert_rows(conn, "wove.researcher_redirects", ("old_id", "new_id", "reason", "redirected_at"),
                       ((o, None, "orphaned", now) for o in orphans), key=("old_id",))
        db.copy_rows(conn, "wove.researcher_id_events", ("kind", "old_id", "new_id", "happened_at"),
                     (("orphaned", o, None, now) for o in orphans))
    conn.execute("SELECT setval('wove.researcher_id_seq', %s, false)", (max(counter, first_id),))
    _store_profiles(conn, label_ids, joined, now)
    _store_state(conn, now)
    forget_own_links(conn)
    conn.execute("TRUNCATE wove.rematch_results, wove.rematch_profiles, wove.matching_blocks, wove.rematch_inputs")
    positions, researchers = totals(conn)
    return MatchSummary(positions, tally["links"], "full", researchers, tally["researchers"], tally["created"],
                           tally["retired"] + len(orphans), tally["links"], 0, tally["links"])


def _store_profiles(conn: psycopg.Connection, label_ids: dict[int, int], joined: set[int], now: dt.datetime) -> None:
    """The profiles the daily runs score against: each cluster's as its shard built it, under
    its researcher id; rebuilt from the links for the clusters a join across blocks changed
    and for researchers holding positions linked since the plan (the shards never saw them)."""
    conn.execute("CREATE TEMP TABLE rematch_ids (label bigint PRIMARY KEY, researcher_id bigint NOT NULL)"
                 " ON COMMIT DROP")
    db.copy_rows(conn, "rematch_ids", ("label", "researcher_id"),
                 ((label, rid) for label, rid in label_ids.items() if label not in joined))
    conn.execute(sql.SQL(
        "INSERT INTO wove.researcher_profiles ({columns}) SELECT i.researcher_id, {built}, %s"
        " FROM wove.rematch_profiles p JOIN rematch_ids i USING (label)"
        " ON CONFLICT (researcher_id) DO UPDATE SET {updates}").format(
            columns=sql.SQL(", ").join(map(sql.Identifier, profile_store.COLUMNS)),
            built=sql.SQL(", ").join(sql.Identifier("p", c) for c in profile_store.COLUMNS[1:-1]),  # less id, time
            updates=sql.SQL(", ").join(sql.SQL("{c} = excluded.{c}").format(c=sql.Identifier(c))
                                       for c in profile_store.COLUMNS[1:])), (now,))
    stale = {label_ids[label] for label in joined if label in label_ids} | {r[0] for r in conn.execute(
        "SELECT DISTINCT rm.researcher_id FROM wove.researcher_mentions rm WHERE NOT EXISTS"
        " (SELECT 1 FROM wove.rematch_results r WHERE r.arxiv_id = rm.arxiv_id AND r.position = rm.position)")}
    profile_store.rebuild(conn, sorted(stale), now)


def _write_unit(conn, by_id: dict[str, Result], ids: dict[str, int], retired: list[int],
                changed: dict[int, Redirect], new_rows: list[Redirect], now: dt.datetime) -> None:
    members: dict[int, list[Mention]] = defaultdict(list)
    for mid, rid in ids.items():
        members[rid].append(by_id[mid].lite())
    profiles = rs.profile_names(conn, [m for ms in members.values() for m in ms])
    db.upsert_rows(
        conn, "wove.researchers",
        ("researcher_id", "display_name", "normalized_name", "mention_count", "orcid", "s2_author_ids",
         "openalex_author_ids", "updated_at"),
        ((*rs.researcher_row(rid, members[rid], profiles), now) for rid in sorted(members)), key=("researcher_id",))
    keys = [(r.paper_id, r.position) for r in by_id.values()]
    conn.execute("DELETE FROM wove.researcher_mentions rm USING unnest(%s::text[], %s::int[]) AS s(arxiv_id, position)"
                 " WHERE rm.arxiv_id = s.arxiv_id AND rm.position = s.position",
                 ([a for a, _ in keys], [p for _, p in keys]))
    db.copy_rows(
        conn, "wove.researcher_mentions",
        ("arxiv_id", "position", "researcher_id", "outcome", "score", "evidence", "matched_at", "block"),
        ((r.paper_id, r.position, ids[mid], r.outcome, r.score,
          Jsonb({"partner": r.partner, "features": r.evidence}), now, r.block) for mid, r in sorted(by_id.items())))
    if retired:
        conn.execute("DELETE FROM wove.researchers WHERE researcher_id = ANY(%s)", (sorted(retired),))
    db.upsert_rows(conn, "wove.researcher_redirects", ("old_id", "new_id", "reason", "redirected_at"),
                   ((r.old_id, r.new_id, r.reason, r.at or now) for r in changed.values()), key=("old_id",))
    db.copy_rows(conn, "wove.researcher_id_events", ("kind", "old_id", "new_id", "happened_at"),
                 ((r.reason, r.old_id, r.new_id, r.at or now) for r in new_rows))


def _store_state(conn: psycopg.Connection, now: dt.datetime) -> None:
    """matching_state as a full run leaves it: each paper's evidence hash (sha256 over its
    positions' parts in order: what load_mentions hashes) and the fingerprint the plan took."""
    conn.execute("""
        INSERT INTO wove.matching_state (arxiv_id, matched_at, content, inputs)
        SELECT r.arxiv_id, %s, encode(sha256(string_agg(r.evidence_part, ''::bytea ORDER BY r.position)), 'hex'),
               max(i.inputs)
        FROM wove.rematch_results r LEFT JOIN wove.rematch_inputs i USING (arxiv_id)
        GROUP BY r.arxiv_id
        ON CONFLICT (arxiv_id) DO UPDATE SET matched_at = excluded.matched_at, content = excluded.content,
                                             inputs = excluded.inputs""", (now,))
    # (papers without positions are not kept: a full run hashes none for them either)
    conn.execute("DELETE FROM wove.matching_state ms WHERE NOT EXISTS"
                 " (SELECT 1 FROM wove.papers p WHERE p.arxiv_id = ms.arxiv_id)")


def rematch(conn: psycopg.Connection, config: MatchConfig | None = None, *,
            now: dt.datetime | None = None) -> MatchSummary:
    """The three steps in one transaction and one process (tests, a small archive)."""
    plan(conn, now=now)
    for s in planned_shards(conn):
        shard(conn, s, config)
    return finish(conn, now=now)
