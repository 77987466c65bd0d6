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
import hashlib
import json
from collections import Counter, defaultdict
from dataclasses import dataclass

import psycopg
from psycopg.types.json import Jsonb

from wove_pipeline.database import access as db
from wove_pipeline.matching.assignment import Assignment, MatchConfig
from wove_pipeline.matching.cluster import assign_incremental, match_all
from wove_pipeline.matching.identity import Redirect, assign_ids
from wove_pipeline.matching.mentions import MAX_COAUTHOR_AUTHORS, Mention, normalize_orcid
from wove_pipeline.matching.names import make_name, normalize_text
from wove_pipeline.matching import profile_store
from wove_pipeline.matching.profile_run import match_by_profiles
from wove_pipeline.matching.overrides import Overrides
from wove_pipeline.matching.scoring import TEXT_TERMS_VERSION, text_term_counts
from wove_pipeline.upstream.gc_pause import gc_paused

# Author positions, and their papers' fields once per paper (a paper's title and abstract
# on every position's row were most of what a large load transferred).
MENTIONS_SQL = """
SELECT pa.arxiv_id, pa.position, pa.keyname, pa.forenames, pa.suffix, pa.affiliations,
       au.s2_author_id, au.s2_confidence, au.openalex_author_id, au.openalex_confidence,
       au.orcid, au.institution_ids, au.raw_affiliations
FROM wove.paper_authors pa
LEFT JOIN wove.authorships au USING (arxiv_id, position)
{where}
ORDER BY pa.arxiv_id, pa.position
"""
# A paper whose text was counted before (papers.content_hash: the same title and abstract)
# comes with its kept term counts instead of its text.
MENTION_PAPERS_SQL = """
SELECT p.arxiv_id, p.published, p.categories, p.journal_ref, p.content_hash, t.terms,
       CASE WHEN t.terms IS NULL THEN p.title END, CASE WHEN t.terms IS NULL THEN p.abstract END
FROM wove.papers p
LEFT JOIN wove.matching_text_terms t
       ON t.arxiv_id = p.arxiv_id AND t.content_hash = p.content_hash AND t.version = %(version)s
{where}
"""

# Everything the evidence hash reads, as stored: a paper whose fingerprint equals the one
# kept at its last match has the same evidence. (Text, date and venue are not in it: a
# changed abstract alone does not re-decide positions, as with the evidence hash.)
INPUTS_SQL = """
WITH pa AS (
    SELECT pa.arxiv_id,
           string_agg(concat_ws(':', pa.position, pa.keyname, pa.forenames, pa.suffix, pa.affiliations::text),
                      '|' ORDER BY pa.position) AS names,
           bool_and(rm.arxiv_id IS NOT NULL) AS all_linked   -- a rewritten author row loses its link
    FROM wove.paper_authors pa
    LEFT JOIN wove.researcher_mentions rm ON rm.arxiv_id = pa.arxiv_id AND rm.position = pa.position
    WHERE %(all)s OR pa.arxiv_id = ANY(%(ids)s)
    GROUP BY pa.arxiv_id
),
au AS (
    SELECT arxiv_id, string_agg(concat_ws(':', position, s2_author_id, s2_confidence, openalex_author_id,
                                          openalex_confidence, orcid, institution_ids::text, raw_affiliations::text),
                                '|' ORDER BY position) AS aligned
    FROM wove.authorships WHERE %(all)s OR arxiv_id = ANY(%(ids)s) GROUP BY arxiv_id
),
fp AS (
    SELECT p.arxiv_id, md5(concat_ws('#', array_to_string(p.categories, ','), pa.names, au.aligned)) AS inputs,
           coalesce(pa.all_linked, true) AS all_linked
    FROM wove.papers p LEFT JOIN pa USING (arxiv_id) LEFT JOIN au USING (arxiv_id)
    WHERE %(all)s OR p.arxiv_id = ANY(%(ids)s)
)
SELECT fp.arxiv_id, fp.inputs FROM fp
LEFT JOIN wove.matching_state ms USING (arxiv_id)
WHERE ms.inputs IS DISTINCT FROM fp.inputs OR NOT fp.all_linked
"""


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


# An aligned upstream id below this confidence is not used as evidence.
MIN_ALIGNMENT_CONFIDENCE = 0.5


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


def _split_mention_id(mid: str) -> tuple[str, int]:
    arxiv_id, _, position = mid.rpartition(":")
    return arxiv_id, int(position)


# the evidence hash's encoding (kept byte-for-byte: stored hashes decide what is re-matched)
_EVIDENCE_JSON = json.JSONEncoder(default=str).encode


def load_mentions(conn: psycopg.Connection, arxiv_ids: list[str] | None = None, *,
                  hash_evidence: bool = True, only: set[tuple[str, int]] | None = None,
                  ) -> tuple[list[Mention], dict[str, str | None]]:
    """Every author position (of these papers; of them, the ``only`` (arxiv_id, position)
    pairs) as a Mention, and a hash of each paper's author evidence (None for every paper
    with ``hash_evidence=False``: papers whose input fingerprint says their evidence did
    not move). Co-author keys always come from every position of the paper."""
    if only is not None and hash_evidence:
        raise ValueError("a paper's evidence hash reads all its positions: `only` needs hash_evidence=False")
    # plain tuples in the queries' column order: a dict per row was a tenth of a day's matching
    if arxiv_ids is None:
        rows = conn.execute(MENTIONS_SQL.format(where="")).fetchall()
        papers = conn.execute(MENTION_PAPERS_SQL.format(where=""), {"version": TEXT_TERMS_VERSION}).fetchall()
    else:
        ids = list(arxiv_ids)
        rows = conn.execute(MENTIONS_SQL.format(where="WHERE pa.arxiv_id = ANY(%s)"), (ids,)).fetchall()
        papers = conn.execute(MENTION_PAPERS_SQL.format(where="WHERE p.arxiv_id = ANY(%(ids)s)"),
                              {"ids": ids, "version": TEXT_TERMS_VERSION}).fetchall()
    paper_fields = _with_text_terms(conn, papers)
    by_paper: dict[str, list[tuple]] = defaultdict(list)
    for row in rows:
        by_paper[row[0]].append(row)
    mentions: list[Mention] = []
    evidence_hash: dict[str, str | None] = {}
    for arxiv_id, paper_rows in by_paper.items():
        if arxiv_id not in paper_fields:
            continue  # positions of a paper that is gone (the inner join of one query did this)
        published, categories, journal_ref, text_terms = paper_fields[arxiv_id]
        categories = list(categories or [])
        keys = [make_name(r[3], None, r[2]).block for r in paper_rows]
        big = len(paper_rows) > MAX_COAUTHOR_AUTHORS  # giant collaborations carry no per-person co-author signal
        digest = hashlib.sha256()
        for k, (_, position, keyname, forenames, suffix, affiliations, s2_author_id, s2_confidence,
                openalex_author_id, openalex_confidence, orcid, institution_ids,
                raw_affiliations) in enumerate(paper_rows):
            if only is not None and (arxiv_id, position) not in only:
                continue
            s2_ok = (s2_confidence or 0) >= MIN_ALIGNMENT_CONFIDENCE
            oa_ok = (openalex_confidence or 0) >= MIN_ALIGNMENT_CONFIDENCE
            confidences = [c for c, ok in ((s2_confidence, s2_ok), (openalex_confidence, oa_ok)) if ok]
            m = Mention(
                mention_id=mention_id(arxiv_id, position),
                paper_id=arxiv_id,
                position=position,
                first=forenames,
                last=keyname,
                suffix=suffix,
                affiliations=list(affiliations or []) or list(raw_affiliations or []),
                s2_author_id=s2_author_id if s2_ok else None,
                openalex_author_id=openalex_author_id if oa_ok else None,
                orcid=normalize_orcid(orcid) if oa_ok else None,
                institution_ids=list(institution_ids or []) if oa_ok else [],
                coauthor_keys=[] if big else [x for j, x in enumerate(keys) if j != k],
                categories=list(categories),
                text_terms=text_terms,  # the text itself is not needed once counted
                year=published.year if published else None,
                published=published,
                venue=journal_ref,
                n_authors=len(paper_rows),
                alignment_confidence=min(confidences) if confidences else None,
            )
            mentions.append(m)
            if hash_evidence:
                digest.update(_EVIDENCE_JSON(
                    [m.position, m.first, m.last, m.suffix, m.affiliations, m.s2_author_id, m.openalex_author_id,
                     m.orcid, m.institution_ids, m.categories]).encode())
        evidence_hash[arxiv_id] = digest.hexdigest() if hash_evidence else None
    return mentions, evidence_hash


def _with_text_terms(conn: psycopg.Connection, papers: list[tuple]) -> dict[str, tuple]:
    """arxiv_id -> (published, categories, journal_ref, text_terms): the kept term counts, and
    for texts not counted before (new papers, changed titles or abstracts) counts made now and
    kept (in the run's transaction)."""
    fresh = [(arxiv_id, content_hash, f"{title}\n{abstract or ''}")
             for arxiv_id, _, _, _, content_hash, terms, title, abstract in papers if terms is None]
    counted = text_term_counts([text for _, _, text in fresh])
    if fresh:
        db.upsert_rows(conn, "wove.matching_text_terms", ("arxiv_id", "content_hash", "version", "terms"),
                       ((a, h, TEXT_TERMS_VERSION, t) for (a, h, _), t in zip(fresh, counted)), key=("arxiv_id",))
    made = {arxiv_id: terms for (arxiv_id, _, _), terms in zip(fresh, counted)}
    return {arxiv_id: (published, categories, journal_ref, made[arxiv_id] if terms is None else terms)
            for arxiv_id, published, categories, journal_ref, _, terms, _, _ in papers}


def load_overrides(conn: psycopg.Connection) -> Overrides:
    overrides = Overrides()
    for r in db.fetch_all(conn, "SELECT * FROM wove.match_overrides ORDER BY created_at, override_id"):
        a, b = mention_id(r["arxiv_id_a"], r["position_a"]), mention_id(r["arxiv_id_b"], r["position_b"])
        if r["kind"] == "force_link":
            overrides.force_link(a, b, r["note"] or "", r["created_at"])
        else:
            overrides.force_split(a, b, r["note"] or "", r["created_at"])
    return overrides


def _display_name(members: list[Mention], profile_names: dict[str, str] | None = None) -> str:
    """The most frequent printed name. Ties go to the form the members' upstream profiles
    print (`profile_names`: S2 / OpenAlex author display name by author id, one vote per
    mention), then to the fullest form ("Peng Wang" over "P. Wang"), then alphabetically."""
    names = Counter(" ".join(x for x in (m.first, m.last, m.suffix) if x) for m in members)
    profiles = profile_names or {}
    votes = Counter(" ".join(profiles[i].split()).casefold()
                    for m in members for i in (m.s2_author_id, m.openalex_author_id) if i in profiles)
    return max(names, key=lambda n: (names[n], votes[" ".join(n.split()).casefold()], len(n), n))


def _profile_names(conn: psycopg.Connection, mentions: list[Mention]) -> dict[str, str]:
    """S2 and OpenAlex profile display names of these mentions' author ids."""
    s2 = sorted({m.s2_author_id for m in mentions if m.s2_author_id})
    oa = sorted({m.openalex_author_id for m in mentions if m.openalex_author_id})
    return dict(conn.execute(
        "SELECT author_id, name FROM wove.s2_authors WHERE author_id = ANY(%s) AND name IS NOT NULL UNION ALL"
        " SELECT author_id, display_name FROM wove.openalex_authors WHERE author_id = ANY(%s)"
        " AND display_name IS NOT NULL", (s2, oa)).fetchall())


def _researcher_row(rid: int, members: list[Mention], profile_names: dict[str, str] | None = None) -> tuple:
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


def _broken_overrides(overrides: Overrides, links: dict[str, int]) -> set[str]:
    """Positions of overrides the current links break (a forced split inside one researcher,
    a forced link across two): they are re-opened, so corrections apply on the next run."""
    pairs = [(pair, "link") for pair in overrides.links] + [(pair, "split") for pair in overrides.splits]
    return {mid for (a, b), kind in pairs
            if a in links and b in links and (links[a] == links[b]) == (kind == "split")
            for mid in (a, b)}


def _totals(conn: psycopg.Connection) -> tuple[int, int]:
    row = conn.execute("SELECT (SELECT count(*) FROM wove.paper_authors), (SELECT count(*) FROM wove.researchers)")
    return tuple(row.fetchone())


def _store_inputs(conn: psycopg.Connection, inputs: dict[str, str], changed: set[str],
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


def _forget_own_links(conn: psycopg.Connection) -> None:
    """The links this run wrote logged their papers (the log names researcher_mentions' papers
    for a link lost behind the matcher's back): what the run itself wrote needs no second look.
    (Rows another writer logged meanwhile have another xmin: they stay for the next run.)"""
    conn.execute("DELETE FROM wove.matching_changes WHERE xmin = pg_current_xact_id()::xid")


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
    ends = {_split_mention_id(mid)[0] for pair in [*overrides.links, *overrides.splits] for mid in pair}
    if ends:
        linked = {mention_id(a, p): r for a, p, r in conn.execute(
            "SELECT arxiv_id, position, researcher_id FROM wove.researcher_mentions WHERE arxiv_id = ANY(%s)",
            (sorted(ends),))}
        seeds |= {_split_mention_id(mid)[0] for mid in _broken_overrides(overrides, linked)}
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
    now: dt.datetime | None = None,
) -> MatchSummary:
    """Match every unmatched or changed author position; write stable researcher ids."""
    now = now or dt.datetime.now(dt.timezone.utc)
    db.advisory_lock(conn, "researchers")
    overrides = load_overrides(conn)
    inputs = changed_inputs(conn)  # papers whose inputs moved, or never matched
    scoped = not full and _links_have_blocks(conn)
    if scoped and (by_profile := match_by_profiles(conn, inputs, overrides, config, now)) is not None:
        return by_profile  # the day's positions scored against profiles (profile_run.py)
    if scoped:  # link by link: current links break an override
        mentions, evidence, papers = _load_scoped(conn, inputs, overrides)
    else:
        (mentions, evidence), papers = load_mentions(conn), None
    by_id = {m.mention_id: m for m in mentions}
    # matching_state rows of the papers whose evidence was hashed, and of papers that left
    # the corpus (plain tuples below: these read a row per loaded paper or position)
    state = dict(conn.execute(
        "SELECT arxiv_id, content FROM wove.matching_state ms"
        " WHERE (%(all)s OR arxiv_id = ANY(%(ids)s))"
        " OR NOT EXISTS (SELECT 1 FROM wove.papers p WHERE p.arxiv_id = ms.arxiv_id)",
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

    violated = _broken_overrides(overrides, previous)
    if not full and not changed_papers and not violated and set(previous) == set(by_id):
        _store_inputs(conn, inputs, set(), evidence, now)
        if not scoped:
            _fill_blocks(conn, mentions)
            _forget_own_links(conn)
        positions, researchers = _totals(conn)
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
    rewrite = new_ids | moved
    members: dict[int, list[Mention]] = defaultdict(list)
    for mid, rid in identity.mention_ids.items():
        members[rid].append(by_id[mid])
    touched = {identity.mention_ids[mid] for mid in rewrite} | {previous[mid] for mid in moved if mid in previous}
    touched |= set(identity.retired)

    live_touched = sorted(rid for rid in touched if rid in members)
    profiles = _profile_names(conn, [m for rid in live_touched for m in members[rid]])
    db.upsert_rows(
        conn, "wove.researchers",
        ("researcher_id", "display_name", "normalized_name", "mention_count", "orcid", "s2_author_ids",
         "openalex_author_ids", "updated_at"),
        ((*_researcher_row(rid, members[rid], profiles), now) for rid in live_touched),
        key=("researcher_id",),
    )
    profile_store.refresh(conn, members, live_touched, now)  # the profiles the daily runs score against
    # Links: remove those being rewritten (and those of vanished positions), then COPY.
    stale = [(_split_mention_id(mid)) for mid in previous if mid not in by_id or mid in rewrite]
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
        arxiv_id, position = _split_mention_id(mid)
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
    _store_inputs(conn, inputs, changed_papers, evidence, now)
    _forget_own_links(conn)
    gone = sorted(set(state) - set(evidence))
    if gone:
        conn.execute("DELETE FROM wove.matching_state WHERE arxiv_id = ANY(%s)", (gone,))
    positions, researchers = _totals(conn)
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
