"""Researcher profiles in the database (wove.researcher_profiles, migrations 0017, 0019, 0022):
read by name block, identifying token (wove.profile_keys) and upstream id, written in the
matching run's transaction, rebuilt from a researcher's links where a run finds one stale or
missing."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import numpy as np
import psycopg
from psycopg.types.json import Jsonb

from wove_pipeline.database import access as db

from .assignment import MatchConfig
from .big_block import TOKEN_POSTING
from .mentions import Mention
from .profile_assign import bounded_candidates, crowded, mention_id_keys
from .profiles import Profile, Representative, build_profile, identifying_tokens

COLUMNS = ("researcher_id", "blocks", "mention_count", "name_forms", "coauthors", "venues", "affiliations",
           "categories", "centroid", "s2_author_ids", "openalex_author_ids", "orcids", "id_counts", "first_year",
           "last_year", "representatives", "match_tokens", "built_at")

# Profiles are read two ways: a day's candidates with only what the assignment reads
# (profile_assign: name forms, ORCIDs, id pairs, representatives) and whether each is current
# (built at or after its researcher's row was written, counting as many members); and, whole,
# only the profiles the day updates (by researcher id). A day's candidates: every profile of a
# name block holding at most profile_candidates of them; in a crowded block, those sharing the
# most identifying tokens with a new position (profile_assign.bounded_candidates); anywhere,
# those sharing an ORCID, or an S2 and an OpenAlex author id pair, with one (identity keys:
# identity_key). Blocks, tokens and identity keys are looked up in wove.profile_keys
# (migrations 0022, 0033), a B-tree read in researcher-id order up to a cap, never visiting the
# wide profile rows: what is read does not grow with the block.
BLOCK_PROFILES_SQL = """
SELECT b, (SELECT count(*) FROM (SELECT 1 FROM wove.profile_keys k WHERE k.key = b LIMIT %(cap)s) s)
FROM unnest(%(blocks)s::text[]) b
"""

# A token's holders as one array, and none for a token held by more than TOKEN_POSTING
# (bounded_candidates would ignore it): read up to one past the cap in the server, not sent.
# A row per holder was 456,569 rows for the day after 1,000,000 papers, most of them of tokens
# over the cap, each made a Python tuple.
POSTINGS_SQL = """
SELECT t, h.ids FROM unnest(%(tokens)s::text[]) t,
LATERAL (SELECT array_agg(k.researcher_id ORDER BY k.researcher_id) AS ids FROM (
    SELECT k.researcher_id FROM wove.profile_keys k WHERE k.key = t ORDER BY k.researcher_id LIMIT %(over)s) k) h
WHERE cardinality(h.ids) <= %(cap)s
"""

# Every lookup is one key against one index (a LATERAL per key), and the profile rows and
# `fresh` are read by primary key: joined plainly, the planner hashed the whole profile table
# for some 34,000 candidates (1.3 GB at 300,000 papers); one OR against arrays of thousands of
# keys ran as a scan of the profiles (111 s of the day after 1,000,000 papers).
CANDIDATES_SQL = """
WITH hit AS (
    SELECT h.researcher_id FROM unnest(%(keys)s::text[]) b,
        LATERAL (SELECT k.researcher_id FROM wove.profile_keys k WHERE k.key = b) h
    UNION SELECT unnest(%(ids)s::bigint[])
)
SELECT p.researcher_id, p.name_forms, p.id_counts -> 'orcid', p.id_counts -> 'pairs', p.representatives,
       (SELECT p.built_at >= r.updated_at AND p.mention_count = r.mention_count
        FROM wove.researchers r WHERE r.researcher_id = p.researcher_id) AS fresh
FROM hit, LATERAL (SELECT * FROM wove.researcher_profiles p WHERE p.researcher_id = hit.researcher_id LIMIT 1) p
"""

BY_ID_SQL = """
SELECT p.researcher_id, p.blocks, p.mention_count, p.name_forms, p.coauthors, p.venues, p.affiliations,
       p.categories, p.centroid, p.s2_author_ids, p.openalex_author_ids, p.orcids, p.id_counts, p.first_year,
       p.last_year, p.representatives
FROM wove.researcher_profiles p WHERE p.researcher_id = ANY(%(ids)s)
"""


def identity_key(key: tuple) -> str:
    """A position's identity key (profile_assign.mention_id_keys) as wove.profile_keys holds a
    profile's (migration 0033's wove.profile_keys_of: '#r:<orcid>', '#p:<s2>|<openalex>',
    the pair as the profile's id_counts -> 'pairs' writes it)."""
    return "#r:" + key[1] if key[0] == "orcid" else f"#p:{key[1]}|{key[2]}"


def pack_centroid(c: Counter) -> bytes:
    if not c:
        return b""
    idx = np.fromiter(c.keys(), dtype="<u4", count=len(c))
    cnt = np.fromiter(c.values(), dtype="<u4", count=len(c))
    return np.column_stack([idx, cnt]).astype("<u4").tobytes()


def unpack_centroid(raw: bytes | None) -> Counter:
    if not raw:
        return Counter()
    a = np.frombuffer(bytes(raw), dtype="<u4").reshape(-1, 2)
    return Counter(dict(zip(a[:, 0].tolist(), a[:, 1].tolist())))


def profile_row(p: Profile, now: dt.datetime) -> tuple:
    return (
        p.label, sorted(p.blocks), p.mention_count, Jsonb(dict(p.name_forms)), Jsonb(dict(p.coauthors)),
        Jsonb(dict(p.venues)), Jsonb(dict(p.affiliations)), Jsonb(dict(p.categories)), pack_centroid(p.centroid),
        sorted(p.s2_ids), sorted(p.openalex_ids), sorted(p.orcids),
        Jsonb({"s2": dict(p.s2_ids), "openalex": dict(p.openalex_ids), "orcid": dict(p.orcids),
               "pairs": dict(p.id_pairs)}),
        p.first_year, p.last_year,
        Jsonb([[r.mention_id, r.weight, r.block, sorted(r.tokens)] for r in p.representatives]),
        p.identifying_tokens(), now,
    )


def from_row(row: tuple) -> Profile:
    (rid, _blocks, count, forms, coauthors, venues, affiliations, categories, centroid, _s2, _oa, _orcids, ids,
     first_year, last_year, reps) = row
    return Profile(
        label=int(rid), mention_count=int(count), name_forms=Counter(forms), coauthors=Counter(coauthors),
        venues=Counter(venues), affiliations=Counter(affiliations), categories=Counter(categories),
        centroid=unpack_centroid(centroid), s2_ids=Counter(ids.get("s2", {})),
        openalex_ids=Counter(ids.get("openalex", {})), orcids=Counter(ids.get("orcid", {})),
        id_pairs=Counter(ids.get("pairs", {})), first_year=first_year, last_year=last_year,
        representatives=_representatives(reps),
    )


def _representatives(reps) -> list[Representative]:
    return [Representative(m, float(w), frozenset(t), b) for m, w, b, t in reps]


def load_candidates(conn: psycopg.Connection, mentions: list[Mention], config: MatchConfig | None = None,
                    readers: db.SnapshotReaders | None = None) -> tuple[dict[int, Profile], list[int], dict[str, set[int]]]:
    """These mentions' candidate profiles (see CANDIDATES_SQL): (current ones by researcher id,
    with what the assignment reads; ids of stale ones; each crowded block's mention -> its
    candidates, ``assign_by_profiles``'s ``candidates``). ``load_profiles`` reads the whole
    of those a run updates. ``readers``: the reads split among them (db.SnapshotReaders)."""
    cfg = config or MatchConfig()
    blocks = sorted({m.block for m in mentions})
    sizes = dict(db.fetch_keys(conn, BLOCK_PROFILES_SQL, {"blocks": blocks, "cap": cfg.profile_candidates + 1},
                               ("blocks",), readers))
    busy = crowded(mentions, sizes, cfg)
    tokens = sorted({t for m in busy for t in identifying_tokens(m)})
    postings = dict(db.fetch_keys(conn, POSTINGS_SQL, {"tokens": tokens, "cap": TOKEN_POSTING, "over": TOKEN_POSTING + 1},
                                  ("tokens",), readers))
    candidates = bounded_candidates(busy, postings, cfg)
    # every holder of a quiet block or of an identity key, and the crowded blocks' chosen
    keys = (set(blocks) - {m.block for m in busy}) | {identity_key(k) for m in mentions
                                                       for k in mention_id_keys(m)}
    params = {"keys": sorted(keys), "ids": sorted({rid for c in candidates.values() for rid in c})}
    current: dict[int, Profile] = {}
    stale: list[int] = []
    seen: set[int] = set()
    for rid, forms, orcids, pairs, reps, fresh in db.fetch_keys(conn, CANDIDATES_SQL, params, list(params), readers):
        if rid in seen:  # found by two readers' shares (a block's and an id's)
            continue
        seen.add(rid)
        if fresh:
            current[int(rid)] = Profile(label=int(rid), name_forms=Counter(forms), orcids=Counter(orcids or {}),
                                        id_pairs=Counter(pairs or {}), representatives=_representatives(reps))
        else:
            stale.append(int(rid))
    return current, stale, candidates


def load_profiles(conn: psycopg.Connection, researcher_ids: list[int], readers: db.SnapshotReaders | None = None
                  ) -> dict[int, Profile]:
    """These researchers' stored profiles, whole. ``readers``: the reads split among them
    (db.SnapshotReaders; a day's are some 10,000 profiles, and their rows and TOAST spread
    over a table that grows with the archive)."""
    if not researcher_ids:
        return {}
    rows = db.fetch_keys(conn, BY_ID_SQL, {"ids": sorted(researcher_ids)}, ("ids",), readers)
    return {int(row[0]): from_row(row) for row in rows}


def save(conn: psycopg.Connection, profiles: dict[int, Profile] | list[Profile], now: dt.datetime) -> int:
    items = profiles.values() if isinstance(profiles, dict) else profiles
    return db.upsert_rows(conn, "wove.researcher_profiles", COLUMNS, (profile_row(p, now) for p in items),
                          key=("researcher_id",))


def members_of(conn: psycopg.Connection, researcher_ids: list[int], readers: db.SnapshotReaders | None = None
               ) -> dict[int, list[Mention]]:
    """Every member of these researchers, as mentions (what a rebuild reads)."""
    from .researchers import load_mentions

    if not researcher_ids:
        return {}
    linked = db.fetch_keys(conn, "SELECT arxiv_id, position, researcher_id FROM wove.researcher_mentions"
                                 " WHERE researcher_id = ANY(%(ids)s)", {"ids": sorted(researcher_ids)}, ("ids",), readers)
    owner = {(a, p): r for a, p, r in linked}
    mentions, _ = load_mentions(conn, sorted({a for a, _, _ in linked}), hash_evidence=False, only=set(owner),
                                readers=readers)
    out: dict[int, list[Mention]] = {}
    for m in mentions:
        out.setdefault(owner[(m.paper_id, m.position)], []).append(m)
    return out


def rebuild(conn: psycopg.Connection, researcher_ids: list[int], now: dt.datetime) -> dict[int, Profile]:
    """Build these researchers' profiles from their links and write them."""
    built = {rid: build_profile(rid, ms) for rid, ms in members_of(conn, researcher_ids).items()}
    if built:
        save(conn, built, now)
    return built


def rebuild_all(conn: psycopg.Connection, now: dt.datetime, batch: int = 20_000) -> int:
    """Every researcher's profile (a migration's first run, a bench's loaded archive), in
    batches of researchers."""
    ids = [r for (r,) in conn.execute("SELECT researcher_id FROM wove.researchers ORDER BY researcher_id")]
    n = 0
    for k in range(0, len(ids), batch):
        n += len(rebuild(conn, ids[k:k + batch], now))
    return n


def needs_backfill(conn: psycopg.Connection) -> bool:
    """Researchers exist and no profile does (the first run after migration 0017)."""
    return bool(db.fetch_value(conn, "SELECT EXISTS (SELECT 1 FROM wove.researchers)"
                                     " AND NOT EXISTS (SELECT 1 FROM wove.researcher_profiles)"))


def refresh(conn: psycopg.Connection, members: dict[int, list[Mention]], researcher_ids: list[int],
            now: dt.datetime) -> None:
    """After a run that decided from members (a full re-match, a link-by-link incremental
    run): the profiles of these researchers built from their members as the run holds them."""
    save(conn, [build_profile(rid, members[rid]) for rid in researcher_ids if rid in members], now)
