"""An incremental matching run by profile: what a day costs does not depend on the archive.

``match_by_profiles`` is the incremental branch of ``researchers.match_researchers``. It
reads the papers whose inputs moved, the profiles of their name blocks (and those sharing an
upstream id with them: profile_store), and the representatives' positions of the profiles a
new position may join by name; assigns the new positions by profile (profile_assign); and
writes, in the run's transaction, the links (with their evidence), the touched researchers'
rows, their profiles, redirects and id events, as the link-by-link run does.

Profiles that are stale (a researcher row written after its profile) and those of
researchers losing positions (re-decided papers) are rebuilt from their links first. Where
current links break an override (a forced split inside one researcher, a forced link across
two), the positions of those overrides are re-opened: they leave their researchers (rebuilt
without them) and are assigned again with the day's new positions, under the overrides. A
curator's correction thus costs a day what any re-decided position costs, whatever the
archive's size (it once sent the day link by link, re-reading every member of the touched
name blocks).
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections import Counter, defaultdict

import psycopg
from psycopg.types.json import Jsonb

from wove_pipeline.database import access as db

from . import profile_store
from .assignment import MatchConfig
from .identity import Redirect, assign_ids
from .match_state import (
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
from .mention_load import load_mentions
from .names import normalize_text
from .overrides import Overrides
from .profile_assign import _Compat, assign_by_profiles, forms_by_block, scored_representatives, update_profiles
from .profiles import Profile, build_profile


def _researcher_row(p: Profile, names: dict[str, str]) -> tuple:
    name = p.display_name(names)
    return (p.label, name, normalize_text(name), p.mention_count,
            p.orcids.most_common(1)[0][0] if p.orcids else None, sorted(p.s2_ids), sorted(p.openalex_ids))


def match_by_profiles(conn: psycopg.Connection, inputs: dict[str, str], overrides: Overrides,
                      config: MatchConfig | None, now: dt.datetime):
    ends = sorted(override_papers(overrides))
    linked: dict[str, int] = {}
    if ends:
        linked = {mention_id(a, p): r for a, p, r in conn.execute(
            "SELECT arxiv_id, position, researcher_id FROM wove.researcher_mentions WHERE arxiv_id = ANY(%s)", (ends,))}
    reopened = broken_overrides(overrides, linked)
    backfill = profile_store.needs_backfill(conn)
    if backfill:
        profile_store.rebuild_all(conn, now)
    # the reads by key below, split among readers of this transaction's snapshot: cold, on a
    # big archive, they are waits on the disk, and the readers wait together (db.SnapshotReaders;
    # not after a backfill, whose profiles they would not see)
    with contextlib.nullcontext() if backfill else db.SnapshotReaders(conn) as readers:
        return _match(conn, readers, inputs, overrides, linked, reopened, config, now)


def _match(conn: psycopg.Connection, readers: db.SnapshotReaders | None, inputs: dict[str, str],
           overrides: Overrides, linked: dict[str, int], reopened: set[str], config: MatchConfig | None,
           now: dt.datetime):
    cfg = config or MatchConfig()
    seeds = sorted(inputs)
    mentions, evidence = load_mentions(conn, seeds, readers=readers)
    by_id = {m.mention_id: m for m in mentions}
    state = dict(conn.execute(
        "SELECT arxiv_id, content FROM wove.matching_state WHERE arxiv_id = ANY(%(ids)s)", {"ids": seeds}).fetchall())
    changed = {p for p, h in evidence.items() if state.get(p) != h}
    previous = {mention_id(a, p): r for a, p, r in conn.execute(
        "SELECT arxiv_id, position, researcher_id FROM wove.researcher_mentions WHERE arxiv_id = ANY(%s)", (seeds,))}
    gone = sorted(set(state) - set(evidence))
    # positions of overrides the current links break, on papers the day did not bring: read
    # alone (their evidence did not move), re-decided with the day's
    wanted = {split_mention_id(mid) for mid in reopened if mid not in by_id}
    if wanted:
        more, _ = load_mentions(conn, sorted({a for a, _ in wanted}), hash_evidence=False, only=wanted, readers=readers)
        by_id.update((m.mention_id, m) for m in more)
        mentions += more
    previous.update((mid, linked[mid]) for mid in reopened)
    if not changed and not reopened and set(previous) == set(by_id):
        store_inputs(conn, inputs, set(), evidence, now)
        positions, researchers = totals(conn)
        return MatchSummary(positions, 0, "unchanged", researchers, 0, 0, 0, 0, 0, len(mentions))

    new_ids = {mid for mid, m in by_id.items() if m.paper_id in changed or mid not in previous} | (reopened & set(by_id))
    redecided = {mid: rid for mid, rid in previous.items() if mid in new_ids or mid not in by_id}
    new = [by_id[mid] for mid in sorted(new_ids)]
    # what the assignment reads; the ones the day updates are read whole below
    profiles, stale, candidates = profile_store.load_candidates(conn, new, config, readers)
    losing = set(redecided.values())
    rebuild = sorted(set(stale) | losing)
    light = set(profiles) - set(rebuild)
    if rebuild:
        for rid in rebuild:
            profiles.pop(rid, None)
        for rid, ms in profile_store.members_of(conn, rebuild, readers).items():
            ms = [m for m in ms if m.mention_id not in redecided]
            if ms:
                profiles[rid] = build_profile(rid, ms)

    # representatives of the profiles a new position may join by name
    compat = _Compat()
    wanted: set[tuple[str, int]] = set()
    # the day's names by block: a profile looks only at its blocks' (every new position for
    # every profile was quadratic in a day's positions: a 3,000-author paper)
    new_names: dict[str, list] = defaultdict(list)
    for m in new:
        new_names[m.block].append(m.name)
    for p in profiles.values():
        # only the blocks where a new name fits the profile: a representative elsewhere is
        # scored against no one it could join (the assignment reads the new names' blocks)
        fits = {blk for blk, forms in forms_by_block(p).items()
                if any(compat.fits(name, forms) for name in new_names.get(blk, ()))}
        wanted |= {split_mention_id(r.mention_id) for r in scored_representatives(p, fits, cfg)}
    rep_mentions, _ = load_mentions(conn, sorted({a for a, _ in wanted}), hash_evidence=False, only=wanted,
                                    readers=readers)
    reps = {m.mention_id: m for m in rep_mentions}

    next_id = db.fetch_value(conn, "SELECT nextval('wove.researcher_id_seq')")
    assignment = assign_by_profiles(profiles, reps, new, overrides, config,
                                    linked={m: r for m, r in linked.items() if m not in new_ids}, first_label=next_id,
                                    candidates=candidates)

    # stable ids: each involved researcher stands for its remaining members (pseudo
    # mentions, as many as decide the identity rules: one more than the run re-decides; all
    # of them for two researchers the group model merged, whose ids the larger keeps)
    merged = assignment.merged  # absorbed researcher -> the one it joins (group_merge.join_new_groups)
    merging = set(merged) | set(merged.values())
    involved = losing | {c for c in assignment.clusters.values() if c < next_id} | merging
    counts = dict(conn.execute("SELECT researcher_id, mention_count FROM wove.researchers WHERE researcher_id = ANY(%s)",
                               (sorted(involved),)).fetchall())
    lost = Counter(redecided.values())
    cap = 1 + len(redecided)
    prev_map = {mid: rid for mid, rid in redecided.items() if mid in by_id}
    clusters = dict(assignment.clusters)
    for rid in sorted(involved):
        for k in range(max(0, counts.get(rid, 0) - lost[rid] if rid in merging else min(counts.get(rid, 0) - lost[rid], cap))):
            clusters[f"~{rid}:{k}"] = merged.get(rid, rid)
            prev_map[f"~{rid}:{k}"] = rid
    redirects = {r["old_id"]: Redirect(r["old_id"], r["new_id"], r["reason"], r["redirected_at"]) for r in db.fetch_all(
        conn, "SELECT * FROM wove.researcher_redirects WHERE new_id = ANY(%s)", (sorted(involved),))}
    identity = assign_ids(prev_map, clusters, redirects=redirects, next_id=next_id, at=now)
    ids = {mid: rid for mid, rid in identity.mention_ids.items() if not mid.startswith("~")}
    retired = sorted(set(identity.retired))

    if readers is not None:
        # the index pages the new links go into, read together before the writes
        readers.warm_indexes([
            ("wove.researcher_mentions", "researcher_id", "bigint", [ids[mid] for mid in new_ids]),
            ("wove.researcher_mentions", "block", "text", [by_id[mid].block for mid in new_ids])])

    # links: the re-decided ones go, the new ones are written with their evidence
    stale_links = [split_mention_id(mid) for mid in redecided]
    if stale_links:
        conn.execute(
            "DELETE FROM wove.researcher_mentions rm USING unnest(%s::text[], %s::int[]) AS s(arxiv_id, position) "
            "WHERE rm.arxiv_id = s.arxiv_id AND rm.position = s.position",
            ([a for a, _ in stale_links], [p for _, p in stale_links]))
    rows, not_sure = [], 0
    for mid in sorted(new_ids):
        arxiv_id, position = split_mention_id(mid)
        link = assignment.links[mid]
        not_sure += link.outcome == "not_sure"
        rows.append((arxiv_id, position, ids[mid], link.outcome, link.score,
                     Jsonb({"partner": link.partner, "features": link.evidence}), now, by_id[mid].block))
    db.copy_rows(conn, "wove.researcher_mentions",
                 ("arxiv_id", "position", "researcher_id", "outcome", "score", "evidence", "matched_at", "block"), rows)
    # the other members of researchers the group model merged follow them, their evidence kept
    moves = {rid: identity.mention_ids[f"~{rid}:0"] for rid in merging if f"~{rid}:0" in identity.mention_ids}
    retiring = sorted(rid for rid, to in moves.items() if to != rid)
    if retiring:
        conn.execute("UPDATE wove.researcher_mentions rm SET researcher_id = u.to_id, matched_at = %s"
                     " FROM unnest(%s::bigint[], %s::bigint[]) AS u(from_id, to_id) WHERE rm.researcher_id = u.from_id",
                     (now, retiring, [moves[rid] for rid in retiring]))

    # profiles: a day's joins update in place; researchers whose members moved otherwise
    # (re-decided, merged, split) are rebuilt from their links
    label_of = assignment.clusters
    simple: dict[int, list] = defaultdict(list)
    complex_ids: set[int] = (set(losing) | set(moves.values())) - set(retired)
    for mid in new_ids:
        rid, label = ids[mid], label_of[mid]
        if label >= next_id or (rid == label and label in profiles):
            simple[rid].append(by_id[mid])
        else:
            complex_ids.add(rid)
    for rid in complex_ids:
        simple.pop(rid, None)
    done: dict[int, Profile] = {}
    whole = profile_store.load_profiles(conn, sorted(rid for rid in simple if rid in light), readers)
    existing = {rid: whole[rid] if rid in light else profiles[rid] for rid in simple if rid in profiles}
    update_profiles(existing, [m for rid in existing for m in simple[rid]], {m.mention_id: rid for rid in existing
                                                                               for m in simple[rid]})
    done.update(existing)
    for rid, ms in simple.items():
        if rid not in existing:
            done[rid] = build_profile(rid, ms)
    for rid, ms in profile_store.members_of(conn, sorted(complex_ids - set(retired))).items():
        done[rid] = build_profile(rid, ms)
    live = sorted(done)
    s2 = sorted({i for p in done.values() for i in p.s2_ids})
    oa = sorted({i for p in done.values() for i in p.openalex_ids})
    if readers is not None:
        # the upstream-id index pages the researchers' new row versions go into
        readers.warm_indexes([("wove.researchers", "s2_author_ids", "text[]", s2),
                              ("wove.researchers", "openalex_author_ids", "text[]", oa)])
    voters = [p.voter_ids() for p in done.values()]
    names = upstream_names(conn, set().union(*(s for s, _ in voters)), set().union(*(o for _, o in voters)), readers)
    if readers is not None:
        readers.close()  # what follows reads what the run wrote
    db.upsert_rows(conn, "wove.researchers",
                   ("researcher_id", "display_name", "normalized_name", "mention_count", "orcid", "s2_author_ids",
                    "openalex_author_ids", "updated_at"),
                   ((*_researcher_row(done[rid], names), now) for rid in live), key=("researcher_id",))
    emptied = sorted((set(losing) - set(done)) - set(retired))
    retired = sorted(set(retired) | set(emptied))
    if retired:
        conn.execute("DELETE FROM wove.researchers WHERE researcher_id = ANY(%s)", (retired,))
    profile_store.save(conn, done, now)
    new_rows = list(identity.new_redirects)
    for rid in emptied:
        new_rows.append(Redirect(rid, None, "orphaned", now))
    changed_redirects = list(identity.redirects.values()) + [r for r in new_rows if r.old_id in emptied]
    db.upsert_rows(conn, "wove.researcher_redirects", ("old_id", "new_id", "reason", "redirected_at"),
                   ((r.old_id, r.new_id, r.reason, r.at or now) for r in changed_redirects), key=("old_id",))
    db.copy_rows(conn, "wove.researcher_id_events", ("kind", "old_id", "new_id", "happened_at"),
                 ((r.reason, r.old_id, r.new_id, r.at or now) for r in new_rows))
    conn.execute("SELECT setval('wove.researcher_id_seq', %s, false)", (max(identity.next_id, next_id),))
    store_inputs(conn, inputs, changed, evidence, now)
    forget_own_links(conn)
    if gone:
        conn.execute("DELETE FROM wove.matching_state WHERE arxiv_id = ANY(%s)", (gone,))
    positions, researchers = totals(conn)
    return MatchSummary(
        mentions=positions, new_mentions=len(new_ids), mode="incremental", researchers=researchers,
        touched_researchers=len(live), created=len(identity.created), retired=len(retired), links_written=len(rows),
        not_sure=not_sure, positions_loaded=len(mentions) + len(reps))
