"""Author matching against the database: mentions in, stable researcher ids out.

One call of `match_researchers` runs in one transaction:

1. find the papers whose author inputs changed since they were matched (or that were
   never matched), in SQL: a fingerprint of the inputs of each paper the change log
   (wove.matching_changes) names, against the one stored in wove.matching_state;
2. load author positions (wove.paper_authors) with their evidence: the paper's text (as
   term counts, kept per paper in wove.matching_text_terms once counted), categories and
   date, co-authors, and the aligned S2 / OpenAlex ids, ORCID and institutions from
   wove.authorships. An incremental run loads the changed papers, the name blocks their
   positions fall in, and every position of the researchers in those blocks (what the
   assignment and the researcher rows read), not their co-authors' positions on those
   papers (but their names, for co-author keys); a full run, or the first run on links
   without block keys, loads everything. Of the loaded papers, those whose
   evidence hash moved are re-decided (late enrichment re-decides those positions);
3. cluster: everything at once on the first run (or `full=True`), otherwise assign the new
   mentions incrementally, newest first, onto the existing researchers;
4. map clusters to stable ids (core.matching.identity) and write only what changed:
   links, touched researchers, redirects and id events. Researchers the run did not
   touch keep their rows and ids byte for byte.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict

import psycopg
from psycopg.types.json import Jsonb

from wove_pipeline.database import access as db
from wove_pipeline.matching import profile_store
from wove_pipeline.matching.assignment import Assignment, MatchConfig
from wove_pipeline.matching.cluster import assign_incremental, match_all
from wove_pipeline.matching.identity import Redirect, assign_ids
from wove_pipeline.matching.match_state import (
    INPUTS_SQL,
    MatchSummary,
    broken_overrides,
    forget_own_links,
    mention_id,
    override_papers,
    split_mention_id,
    store_inputs,
    totals,
    upstream_names,
)
from wove_pipeline.matching.mention_load import load_mentions
from wove_pipeline.matching.mentions import Mention
from wove_pipeline.matching.names import normalize_text
from wove_pipeline.matching.overrides import Overrides
from wove_pipeline.matching.profile_run import match_by_profiles
from wove_pipeline.upstream.gc_pause import gc_paused

# (INPUTS_SQL, MatchSummary, mention_id: match_state's; load_mentions: mention_load's. Both
# modules are shared with profile_run and rematch.)


def changed_inputs(conn: psycopg.Connection) -> dict[str, str]:
    """Papers whose inputs moved since they were matched (or never matched): arxiv_id ->
    input fingerprint. Only the papers in the change log (migration 0012) can have moved:
    the log is taken (in this transaction: writes committed later stay for the next run)
    and those papers fingerprinted; every paper after a core table was truncated."""
    logged = conn.execute("WITH taken AS (DELETE FROM wove.matching_changes RETURNING kind, key)"
                          " SELECT DISTINCT kind, key FROM taken").fetchall()
    every = any(kind == "truncate" for kind, _ in logged)
    ids = sorted(key for kind, key in logged if kind != "truncate")
    if not every and not ids:
        return {}
    return dict(conn.execute(INPUTS_SQL, {"all": every, "ids": ids}))


def load_overrides(conn: psycopg.Connection) -> Overrides:
    overrides = Overrides()
    for r in db.fetch_all(conn, "SELECT * FROM wove.match_overrides ORDER BY created_at, override_id"):
        a, b = mention_id(r["arxiv_id_a"], r["position_a"]), mention_id(r["arxiv_id_b"], r["position_b"])
        if r["kind"] == "force_link":
            overrides.force_link(a, b, r["note"] or "", r["created_at"])
        else:
            overrides.force_split(a, b, r["note"] or "", r["created_at"])
    return overrides


OVERRIDE_KINDS = {"link": "force_link", "split": "force_split"}


def add_override(conn: psycopg.Connection, kind: str, a: tuple[str, int], b: tuple[str, int], note: str = "") -> int:
    """Keep a curator's override of two author positions ("link": one person; "split": two);
    the next matching run applies it. Returns its id. ValueError: an unknown kind, a position
    the corpus does not hold, or one position twice."""
    if kind not in OVERRIDE_KINDS:
        raise ValueError(f"unknown override kind {kind!r} (link or split)")
    if a == b:
        raise ValueError(f"{a[0]}:{a[1]} twice: an override needs two positions")
    for arxiv_id, position in (a, b):
        if db.fetch_value(conn, "SELECT count(*) FROM wove.paper_authors WHERE arxiv_id = %s AND position = %s",
                          (arxiv_id, position)) == 0:
            raise ValueError(f"no author position {arxiv_id}:{position} in the corpus (positions count from 0)")
    return db.fetch_value(
        conn, "INSERT INTO wove.match_overrides (kind, arxiv_id_a, position_a, arxiv_id_b, position_b, note)"
              " VALUES (%s, %s, %s, %s, %s, %s) RETURNING override_id", (OVERRIDE_KINDS[kind], *a, *b, note or None))


def override_rows(conn: psycopg.Connection) -> list[dict]:
    """Every override, oldest first, with the names printed at its two positions and the
    researchers they are linked to now (None: not matched yet)."""
    return db.fetch_all(conn, """
        SELECT o.override_id, o.kind, o.arxiv_id_a, o.position_a, o.arxiv_id_b, o.position_b, o.note, o.created_at,
               concat_ws(' ', pa.forenames, pa.keyname) AS name_a, concat_ws(' ', pb.forenames, pb.keyname) AS name_b,
               ra.researcher_id AS researcher_a, rb.researcher_id AS researcher_b
        FROM wove.match_overrides o
        LEFT JOIN wove.paper_authors pa ON pa.arxiv_id = o.arxiv_id_a AND pa.position = o.position_a
        LEFT JOIN wove.paper_authors pb ON pb.arxiv_id = o.arxiv_id_b AND pb.position = o.position_b
        LEFT JOIN wove.researcher_mentions ra ON ra.arxiv_id = o.arxiv_id_a AND ra.position = o.position_a
        LEFT JOIN wove.researcher_mentions rb ON rb.arxiv_id = o.arxiv_id_b AND rb.position = o.position_b
        ORDER BY o.created_at, o.override_id""")


def _display_name(members: list[Mention], profile_names: dict[str, str] | None = None) -> str:
    """The most frequent printed name. Ties go to the form the members' upstream profiles
    print (`profile_names`: S2 / OpenAlex author display name by author id, one vote per
    mention), then to the fullest form ("Peng Wang" over "P. Wang"), then alphabetically."""
    names = Counter(" ".join(x for x in (m.first, m.last, m.suffix) if x) for m in members)
    profiles = profile_names or {}
    votes = Counter(" ".join(profiles[i].split()).casefold()
                    for m in members for i in (m.s2_author_id, m.openalex_author_id) if i in profiles)
    return max(names, key=lambda n: (names[n], votes[" ".join(n.split()).casefold()], len(n), n))


def profile_names(conn: psycopg.Connection, mentions: list[Mention]) -> dict[str, str]:
    """S2 and OpenAlex profile display names of these mentions' author ids."""
    return upstream_names(conn, {m.s2_author_id for m in mentions if m.s2_author_id},
                          {m.openalex_author_id for m in mentions if m.openalex_author_id})




def researcher_row(rid: int, members: list[Mention], profile_names: dict[str, str] | None = None) -> tuple:
    name = _display_name(members, profile_names)
    orcids = Counter(m.orcid for m in members if m.orcid)
    return (
        rid,
        name,
        normalize_text(name),
        len(members),
        orcids.most_common(1)[0][0] if orcids else None,
        sorted({m.s2_author_id for m in members if m.s2_author_id}),
        sorted({m.openalex_author_id for m in members if m.openalex_author_id}),
    )


def _fill_blocks(conn: psycopg.Connection, mentions: list[Mention]) -> None:
    """Links written before block keys existed get theirs (once: later runs are scoped)."""
    conn.execute(
        "UPDATE wove.researcher_mentions rm SET block = u.block"
        " FROM unnest(%s::text[], %s::int[], %s::text[]) AS u(arxiv_id, position, block)"
        " WHERE rm.arxiv_id = u.arxiv_id AND rm.position = u.position AND rm.block IS NULL",
        ([m.paper_id for m in mentions], [m.position for m in mentions], [m.block for m in mentions]),
    )


def _links_have_blocks(conn: psycopg.Connection) -> bool:
    """Positions are linked already, and every link carries its block key (migration 0008)."""
    return bool(db.fetch_value(conn, "SELECT EXISTS (SELECT 1 FROM wove.researcher_mentions)"
                                     " AND NOT EXISTS (SELECT 1 FROM wove.researcher_mentions WHERE block IS NULL)"))


def _load_scoped(conn: psycopg.Connection, inputs: dict[str, str],
                 overrides: Overrides) -> tuple[list[Mention], dict[str, str | None], list[str]]:
    """What an incremental run reads: the papers whose inputs moved (and those of override
    pairs the current links break), every paper with a position in a name block their
    positions fall in, and every paper of the researchers in those blocks. The assignment
    reads only the touched blocks (names, co-authors, texts) and the researcher rows read
    every member of a touched researcher, so this is all they need."""
    seeds = set(inputs)
    ends = override_papers(overrides)
    if ends:
        linked = {mention_id(a, p): r for a, p, r in conn.execute(
            "SELECT arxiv_id, position, researcher_id FROM wove.researcher_mentions WHERE arxiv_id = ANY(%s)",
            (sorted(ends),))}
        seeds |= {split_mention_id(mid)[0] for mid in broken_overrides(overrides, linked)}
    seeds_sorted = sorted(seeds)
    mentions, evidence = load_mentions(conn, seeds_sorted)
    # the positions of those researchers on other papers: every position of the touched
    # blocks (all are linked) and the researchers' positions elsewhere; not the papers'
    # other authors (only their names, for co-author keys)
    # ... and the researchers that share an ORCID, or both upstream author ids, with a new
    # position: identical ids may join a position to a profile of another name block
    positions = conn.execute("""
        WITH r AS (SELECT researcher_id FROM wove.researcher_mentions WHERE block = ANY(%(blocks)s)
                   UNION SELECT researcher_id FROM wove.researcher_mentions WHERE arxiv_id = ANY(%(seeds)s)
                   UNION SELECT researcher_id FROM wove.researchers
                         WHERE orcid = ANY(%(orcids)s) OR (s2_author_ids && %(s2)s AND openalex_author_ids && %(oa)s))
        SELECT rm.arxiv_id, rm.position FROM wove.researcher_mentions rm JOIN r USING (researcher_id)
        WHERE rm.arxiv_id <> ALL(%(seeds)s)""", {
        "blocks": sorted({m.block for m in mentions}), "seeds": seeds_sorted,
        "orcids": sorted({m.orcid for m in mentions if m.orcid}),
        "s2": sorted({m.s2_author_id for m in mentions if m.s2_author_id and m.openalex_author_id}),
        "oa": sorted({m.openalex_author_id for m in mentions if m.s2_author_id and m.openalex_author_id})})
    only = set(positions.fetchall())
    rest = sorted({arxiv_id for arxiv_id, _ in only})
    # the rest are not in `inputs`: their evidence is what their last match hashed
    more, more_evidence = load_mentions(conn, rest, hash_evidence=False, only=only)
    return mentions + more, {**evidence, **more_evidence}, seeds_sorted + rest


@gc_paused()  # a scoped load at scale builds a million mentions
def match_researchers(
    conn: psycopg.Connection, *, full: bool = False, config: MatchConfig | None = None,
    now: dt.datetime | None = None, link_by_link: bool = False,
) -> MatchSummary:
    """Match every unmatched or changed author position; write stable researcher ids. An
    incremental run assigns by profile (profile_run.py), overrides the current links break
    included; ``link_by_link`` assigns against every member of the touched name blocks
    instead: the rule the profiles stand in for, kept to compare the two (tests)."""
    now = now or dt.datetime.now(dt.timezone.utc)
    db.advisory_lock(conn, "researchers")
    db.price_random_reads_as_ssd(conn)  # a day reads its papers' rows by index, not whole tables
    db.sort_in_memory(conn)
    overrides = load_overrides(conn)
    inputs = changed_inputs(conn)  # papers whose inputs moved, or never matched
    scoped = not full and _links_have_blocks(conn)
    if scoped and not link_by_link:
        return match_by_profiles(conn, inputs, overrides, config, now)  # scored against profiles
    if scoped:
        mentions, evidence, papers = _load_scoped(conn, inputs, overrides)
    else:
        (mentions, evidence), papers = load_mentions(conn), None
    by_id = {m.mention_id: m for m in mentions}
    # matching_state rows of the papers whose evidence was hashed (a paper that left the corpus
    # took its row along: migration 0021) (plain tuples below: these read a row per loaded
    # paper or position)
    state = dict(conn.execute(
        "SELECT arxiv_id, content FROM wove.matching_state WHERE %(all)s OR arxiv_id = ANY(%(ids)s)",
        {"all": papers is None, "ids": [p for p, h in evidence.items() if h is not None]}).fetchall())
    changed_papers = {p for p, h in evidence.items() if h is not None and state.get(p) != h}
    # links of the loaded positions, every link of the changed papers (a position a paper
    # lost is no mention any more: its link goes) and of papers that are gone; not those of
    # the other authors of a paper loaded for one researcher's position
    previous = {
        mid: researcher_id
        for arxiv_id, position, researcher_id in conn.execute(
            "SELECT arxiv_id, position, researcher_id FROM wove.researcher_mentions WHERE %(all)s OR arxiv_id = ANY(%(ids)s)",
            {"all": papers is None, "ids": papers or []})
        if (mid := mention_id(arxiv_id, position)) in by_id or evidence.get(arxiv_id, "gone") is not None
    }
    redirects = {
        r["old_id"]: Redirect(r["old_id"], r["new_id"], r["reason"], r["redirected_at"])
        for r in db.fetch_all(conn, "SELECT * FROM wove.researcher_redirects")
    }
    next_id = db.fetch_value(conn, "SELECT nextval('wove.researcher_id_seq')")

    violated = broken_overrides(overrides, previous)
    if not full and not changed_papers and not violated and set(previous) == set(by_id):
        store_inputs(conn, inputs, set(), evidence, now)
        if not scoped:
            _fill_blocks(conn, mentions)
            forget_own_links(conn)
        positions, researchers = totals(conn)
        return MatchSummary(positions, 0, "unchanged", researchers, 0, 0, 0, 0, 0, len(mentions))

    new_ids = {m.mention_id for m in mentions if m.paper_id in changed_papers or m.mention_id not in previous}
    new_ids |= violated & set(by_id)
    if full or (not scoped and not previous):
        mode = "full"
        assignment: Assignment = match_all(mentions, overrides, config)
    else:
        mode = "incremental"
        kept = {mid: rid for mid, rid in previous.items() if mid in by_id and mid not in new_ids}
        assignment = assign_incremental(
            [by_id[mid] for mid in kept], kept, [by_id[mid] for mid in new_ids], overrides, config
        )
    identity = assign_ids(previous, assignment.clusters, redirects=redirects, next_id=next_id, at=now)

    # What changed: links of new mentions and of mentions whose id moved; researchers that
    # gained, lost or changed members.
    moved = {mid for mid, rid in identity.mention_ids.items() if previous.get(mid) != rid}
    # kept positions of a cluster the group model merged into another: their link moves, its
    # evidence stays (assign_incremental has no new link for them)
    relinked = {mid for mid in moved - new_ids if (link := assignment.links.get(mid)) and link.outcome == "existing"}
    rewrite = (new_ids | moved) - relinked
    members: dict[int, list[Mention]] = defaultdict(list)
    for mid, rid in identity.mention_ids.items():
        members[rid].append(by_id[mid])
    touched = {identity.mention_ids[mid] for mid in rewrite | relinked} | {previous[mid] for mid in moved if mid in previous}
    touched |= set(identity.retired)

    live_touched = sorted(rid for rid in touched if rid in members)
    profiles = profile_names(conn, [m for rid in live_touched for m in members[rid]])
    db.upsert_rows(
        conn, "wove.researchers",
        ("researcher_id", "display_name", "normalized_name", "mention_count", "orcid", "s2_author_ids",
         "openalex_author_ids", "updated_at"),
        ((*researcher_row(rid, members[rid], profiles), now) for rid in live_touched),
        key=("researcher_id",),
    )
    profile_store.refresh(conn, members, live_touched, now)  # the profiles the daily runs score against
    # Links: remove those being rewritten (and those of vanished positions), then COPY.
    stale = [split_mention_id(mid) for mid in previous if mid not in by_id or mid in rewrite]
    if stale:
        conn.execute(
            "DELETE FROM wove.researcher_mentions rm USING unnest(%s::text[], %s::int[]) AS s(arxiv_id, position) "
            "WHERE rm.arxiv_id = s.arxiv_id AND rm.position = s.position",
            ([a for a, _ in stale], [p for _, p in stale]),
        )
    links = assignment.links
    not_sure = 0
    rows = []
    for mid in sorted(rewrite):
        arxiv_id, position = split_mention_id(mid)
        link = links.get(mid)
        outcome = link.outcome if link else "clustered"
        not_sure += outcome == "not_sure"
        evidence_doc = {"partner": link.partner, "features": link.evidence} if link else {}
        rows.append((arxiv_id, position, identity.mention_ids[mid], outcome, link.score if link else None,
                     Jsonb(evidence_doc), now, by_id[mid].block))
    db.copy_rows(
        conn, "wove.researcher_mentions",
        ("arxiv_id", "position", "researcher_id", "outcome", "score", "evidence", "matched_at", "block"), rows,
    )
    if relinked:
        moves = [(*split_mention_id(mid), identity.mention_ids[mid]) for mid in sorted(relinked)]
        conn.execute(
            "UPDATE wove.researcher_mentions rm SET researcher_id = u.researcher_id, matched_at = %s"
            " FROM unnest(%s::text[], %s::int[], %s::bigint[]) AS u(arxiv_id, position, researcher_id)"
            " WHERE rm.arxiv_id = u.arxiv_id AND rm.position = u.position",
            (now, [a for a, _, _ in moves], [p for _, p, _ in moves], [r for _, _, r in moves]))
    if not scoped:
        _fill_blocks(conn, [by_id[mid] for mid in by_id if mid not in rewrite])
    retired = sorted(set(identity.retired))
    if retired:
        conn.execute("DELETE FROM wove.researchers WHERE researcher_id = ANY(%s)", (retired,))
    db.upsert_rows(
        conn, "wove.researcher_redirects", ("old_id", "new_id", "reason", "redirected_at"),
        ((r.old_id, r.new_id, r.reason, r.at or now) for r in identity.redirects.values()),
        key=("old_id",),
    )
    db.copy_rows(
        conn, "wove.researcher_id_events", ("kind", "old_id", "new_id", "happened_at"),
        ((r.reason, r.old_id, r.new_id, r.at or now) for r in identity.new_redirects),
    )
    conn.execute("SELECT setval('wove.researcher_id_seq', %s, false)", (max(identity.next_id, next_id),))
    store_inputs(conn, inputs, changed_papers, evidence, now)
    forget_own_links(conn)
    gone = sorted(set(state) - set(evidence))
    if gone:
        conn.execute("DELETE FROM wove.matching_state WHERE arxiv_id = ANY(%s)", (gone,))
    positions, researchers = totals(conn)
    return MatchSummary(
        mentions=positions,
        new_mentions=len(new_ids),
        mode=mode,
        researchers=researchers,
        touched_researchers=len(live_touched),
        created=len(identity.created),
        retired=len(retired),
        links_written=len(rows),
        not_sure=not_sure,
        positions_loaded=len(mentions),
    )
