"""Researcher profiles in the database: kept with the links in the run's transaction, and
the day's matching by profile deciding as the link-by-link run does."""

import datetime as dt

import psycopg
import pytest

from tests.matching.test_group_merge import _JoinAll
from tests.researchers.test_researchers_stage import harvest_days, match, snapshot, world  # noqa: F401
from wove_pipeline.matching import researchers as researchers_load


def profiles(url):
    with psycopg.connect(url) as conn:
        return {r[0]: r[1:] for r in conn.execute(
            "SELECT p.researcher_id, p.mention_count, r.mention_count, jsonb_array_length(p.representatives),"
            " (SELECT sum((x->>1)::float) FROM jsonb_array_elements(p.representatives) x),"
            " p.built_at >= r.updated_at, p.blocks"
            " FROM wove.researcher_profiles p JOIN wove.researchers r USING (researcher_id)")}, \
            conn.execute("SELECT count(*) FROM wove.researchers").fetchone()[0]


def profile_keys(url):
    """(the keys wove.profile_keys holds, those its profiles' blocks, tokens, ORCIDs and S2 +
    OpenAlex id pairs say it must)."""
    with psycopg.connect(url) as conn:
        held = set(conn.execute("SELECT key, researcher_id FROM wove.profile_keys").fetchall())
        derived = set(conn.execute(
            "SELECT k, researcher_id FROM wove.researcher_profiles, unnest(blocks || match_tokens) k"
            " UNION SELECT '#r:' || o, researcher_id FROM wove.researcher_profiles, unnest(orcids) o"
            " UNION SELECT '#p:' || (x.s2 || '|' || x.oa), researcher_id FROM wove.researcher_profiles,"
            "  jsonb_each(id_counts -> 'pairs') e, LATERAL (SELECT split_part(e.key, '|', 1) s2,"
            "  split_part(e.key, '|', 2) oa) x").fetchall())
    return held, derived


def check_profiles(url):
    rows, n = profiles(url)
    assert len(rows) == n  # every researcher has its profile
    for rid, (count, r_count, n_reps, weights, fresh, blocks) in rows.items():
        assert count == r_count and fresh, rid
        assert 1 <= n_reps <= 16 and abs(weights - count) < 1e-6, rid
        assert blocks
    held, derived = profile_keys(url)  # the lookup table follows every write (migration 0022's triggers)
    assert held == derived and any("|" in k for k, _ in held) and any("|" not in k for k, _ in held)
    assert any(k.startswith("#p:") for k, _ in held)  # the sandbox's authors have both upstream ids


def check_totals(url, summary):
    """The run's totals (kept counts, migration 0031) are the tables' counts."""
    with psycopg.connect(url) as conn:
        assert (summary.mentions, summary.researchers) == conn.execute(
            "SELECT (SELECT count(*) FROM wove.paper_authors), (SELECT count(*) FROM wove.researchers)").fetchone()


def test_day_by_profile_keeps_profiles_and_decides_as_link_by_link(env, world, clone_database):  # noqa: F811
    url, resources = env
    harvest_days(resources, world.start_day, world.end_day - dt.timedelta(days=2))
    first = match(url)
    assert first.mode == "full"
    check_profiles(url)
    check_totals(url, first)
    harvest_days(resources, world.end_day - dt.timedelta(days=1), world.end_day)
    twin = clone_database(url)  # the same database, to run the day link by link

    day = match(url)
    assert day.mode == "incremental" and day.new_mentions > 0
    check_profiles(url)
    check_totals(url, day)
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT outcome, evidence FROM wove.researcher_mentions WHERE matched_at ="
                            " (SELECT max(matched_at) FROM wove.researcher_mentions)").fetchall()
    assert len(rows) == day.new_mentions
    assert all(ev.get("features") for outcome, ev in rows if outcome in ("linked", "forced"))  # evidence on every link

    link_by_link = match(twin, link_by_link=True)
    assert link_by_link.new_mentions == day.new_mentions
    a, _, live_a = snapshot(url)
    b, _, live_b = snapshot(twin)
    # researchers untouched by the day are byte for byte the same; the day's positions land alike
    part_a = {frozenset(ms) for ms in a.values()}
    part_b = {frozenset(ms) for ms in b.values()}
    same = len(part_a & part_b)
    print(f"researchers alike: {same} of {len(part_a)} (by profile) / {len(part_b)} (link by link)")
    assert same >= 0.98 * max(len(part_a), len(part_b))
    untouched = {rid for rid in live_a & live_b if a[rid] == b[rid]}
    assert len(untouched) >= 0.97 * len(live_a)
    check_profiles(twin)  # the link-by-link run keeps the profiles too


def _no_link_by_link(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("the day went link by link")
    monkeypatch.setattr(researchers_load, "assign_incremental", refuse)


def _owner(url):
    members, _, _ = snapshot(url)
    return {m: r for r, mm in members.items() for m in mm}


def test_redirects_and_overrides_through_profiles(env, world, monkeypatch):  # noqa: F811
    """A forced split of two positions of one researcher, which the current links break, is
    applied by the next day's run by profile: its two positions are re-opened (their
    researcher's profile rebuilt without them) and assigned again under the override; the
    next day goes by profile too and keeps them apart."""
    url, resources = env
    harvest_days(resources, world.start_day, world.end_day - dt.timedelta(days=1))
    match(url)
    members, _, _ = snapshot(url)
    rid, ms = next((r, sorted(m)) for r, m in sorted(members.items()) if len(m) >= 4)
    (a1, p1), (a2, p2) = ms[0], ms[-1]
    with psycopg.connect(url) as conn:
        conn.execute("INSERT INTO wove.match_overrides (kind, arxiv_id_a, position_a, arxiv_id_b, position_b, note)"
                     " VALUES ('force_split', %s, %s, %s, %s, 'test')", (a1, p1, a2, p2))
    _no_link_by_link(monkeypatch)
    split = match(url)
    assert split.mode == "incremental" and split.new_mentions == 2 and split.links_written == 2
    owner = _owner(url)
    assert owner[(a1, p1)] != owner[(a2, p2)]
    assert sum(r == rid for r in owner.values()) >= len(ms) - 1  # the rest stay where they were
    check_profiles(url)
    harvest_days(resources, world.end_day, world.end_day)
    day = match(url)
    assert day.mode == "incremental" and day.new_mentions > 0
    check_profiles(url)
    final, redirects, live = snapshot(url)
    owner = {m: r for r, mm in final.items() for m in mm}
    assert owner[(a1, p1)] != owner[(a2, p2)]
    assert all(new is None or new in live for new in redirects.values())
    assert match(url).mode == "unchanged"  # the override holds: nothing left to re-open


def test_a_forced_link_across_two_researchers_applies_by_profile(env, world, monkeypatch, capsys):  # noqa: F811
    """A curator links positions of two researchers (`wove matching override link`); the
    next run, by profile, applies it: both positions end in one researcher, the others of
    both keep theirs, and the profiles follow. Bad positions get a clear error."""
    from wove_pipeline.cli import main as wove_main

    url, resources = env
    harvest_days(resources, world.start_day, world.end_day)
    match(url)
    members, _, _ = snapshot(url)
    big = sorted((r for r, m in members.items() if len(m) >= 3), key=lambda r: (-len(members[r]), r))
    ra, rb = big[0], big[1]
    a, b = min(members[ra]), min(members[rb])
    monkeypatch.setenv("WOVE_DATABASE_URL", url)
    capsys.readouterr()
    assert wove_main(["matching", "override", "link", f"{a[0]}:{a[1]}", f"{a[0]}:999"]) == 1
    assert f"no author position {a[0]}:999 in the corpus" in capsys.readouterr().err
    assert wove_main(["matching", "override", "link", f"{a[0]}", f"{b[0]}:{b[1]}"]) == 2
    assert "is not ARXIV_ID:POSITION" in capsys.readouterr().err
    assert wove_main(["matching", "override", "link", f"{a[0]}:{a[1]}", f"{b[0]}:{b[1]}", "--note", "one person"]) == 0
    assert wove_main(["matching", "override", "list"]) == 0
    listed = capsys.readouterr().out.splitlines()[-1].split("\t")
    assert listed[1:3] == ["force_link", f"{a[0]}:{a[1]} ({_printed(url, a)})"]
    assert listed[4:] == [f"now two researchers ({ra}, {rb})", "one person"]

    _no_link_by_link(monkeypatch)
    run = match(url)
    assert run.mode == "incremental" and run.new_mentions == 2
    owner = _owner(url)
    assert owner[a] == owner[b]
    assert all(owner[m] == ra for m in members[ra] - {a}) and all(owner[m] == rb for m in members[rb] - {b})
    check_profiles(url)
    assert match(url).mode == "unchanged"
    assert wove_main(["matching", "override", "list"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].split("\t")[4].startswith("now one researcher")


def _printed(url, position):
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT concat_ws(' ', forenames, keyname) FROM wove.paper_authors"
                            " WHERE arxiv_id = %s AND position = %s", position).fetchone()[0]


@pytest.mark.parametrize("posting_cap", [None, 2])
def test_a_crowded_block_finds_its_candidates_by_the_token_index(env, world, monkeypatch, posting_cap):  # noqa: F811
    """With blocks crowded (more profiles than profile_candidates), the day reads each new
    position's candidates from wove.profile_keys: exactly the profiles the
    same rule picks over every profile in memory, fewer than the blocks hold; the day lands.
    With a posting cap this world's tokens pass (2 holders), the tokens over it select no one
    in the database's reading as in memory."""
    from collections import Counter

    from wove_pipeline.matching import profile_assign, profile_store
    from wove_pipeline.matching.assignment import MatchConfig
    from wove_pipeline.matching.profile_assign import bounded_candidates, crowded, token_postings
    from wove_pipeline.matching.profiles import identifying_tokens

    if posting_cap is not None:
        monkeypatch.setattr(profile_store, "TOKEN_POSTING", posting_cap)
        monkeypatch.setattr(profile_assign, "TOKEN_POSTING", posting_cap)

    url, resources = env
    harvest_days(resources, world.start_day, world.end_day - dt.timedelta(days=1))
    match(url)
    harvest_days(resources, world.end_day, world.end_day)
    config = MatchConfig(profile_candidates=2)
    seen = {}
    real_load = profile_store.load_candidates

    def load_and_compare(conn, mentions, cfg=None, readers=None):
        assert readers is not None  # the day's reads are split among readers of its snapshot
        current, stale, candidates = real_load(conn, mentions, cfg, readers)
        every = profile_store.load_profiles(conn, [r for (r,) in conn.execute("SELECT researcher_id FROM wove.researchers")])
        sizes = Counter(b for p in every.values() for b in p.blocks)
        busy, postings = crowded(mentions, sizes, cfg), token_postings(every)
        seen["expected"] = bounded_candidates(busy, postings, cfg)
        seen["over_cap"] = sum(len(postings.get(t, ())) > profile_assign.TOKEN_POSTING
                               for m in busy for t in identifying_tokens(m))
        seen["got"], seen["read"] = candidates, set(current) | set(stale)
        seen["in_blocks"] = {r for r, p in every.items() if p.blocks & {m.block for m in mentions}}
        return current, stale, candidates

    monkeypatch.setattr(profile_store, "load_candidates", load_and_compare)
    day = match(url, config=config)
    assert day.mode == "incremental" and day.new_mentions > 0
    assert seen["got"] == seen["expected"] and len(seen["got"]) > 0
    assert any(seen["got"].values())  # shared tokens found candidates
    assert len(seen["in_blocks"] - seen["read"]) > 0  # crowded blocks were not read whole
    assert (seen["over_cap"] > 0) == (posting_cap is not None)  # the small cap drops tokens
    check_profiles(url)
    with psycopg.connect(url) as conn:
        linked = conn.execute("SELECT count(*) FROM wove.researcher_mentions WHERE matched_at ="
                              " (SELECT max(matched_at) FROM wove.researcher_mentions)").fetchone()[0]
    assert linked == day.new_mentions


def test_profiles_a_day_touched_merge_into_one_id_with_a_redirect(env, world, clone_database):  # noqa: F811
    """The group model's step may merge a profile the day's positions joined with another
    existing one (group_merge.join_new_groups): by profile and link by link, the smaller id
    is retired with a merge redirect to the kept one, every position of it moves there with
    its evidence, and the profiles are rebuilt. A stand-in group model that merges every
    candidate makes the day merge."""
    from dataclasses import replace

    from wove_pipeline.matching.assignment import MatchConfig
    from wove_pipeline.matching.model import default_model

    url, resources = env
    harvest_days(resources, world.start_day, world.end_day - dt.timedelta(days=1))
    match(url)
    harvest_days(resources, world.end_day, world.end_day)
    twin = clone_database(url)
    before, old_redirects, _ = snapshot(url)
    config = MatchConfig(model=replace(default_model(), group=_JoinAll(), _compiled=None))

    def merged_day(db_url, **kw):
        day = match(db_url, config=config, **kw)
        assert day.mode == "incremental" and day.new_mentions > 0
        after, redirects, live = snapshot(db_url)
        merges = {old: new for old, new in redirects.items() if old not in old_redirects}
        assert merges  # the stand-in merged existing researchers
        for old, new in merges.items():
            assert old not in live and new in live and old not in after
            assert before[old] <= after[new]  # every position of the retired id moved to the kept one
            assert (len(before[new]), -new) > (len(before[old]), -old)  # the larger keeps its id (ties: the lower)
        with psycopg.connect(db_url) as conn:
            events = {(o, n) for o, n in conn.execute(
                "SELECT old_id, new_id FROM wove.researcher_id_events WHERE kind = 'merge'").fetchall()}
            assert set(merges.items()) <= events
            assert conn.execute("SELECT count(*) FROM wove.researcher_mentions WHERE outcome = 'existing'").fetchone()[0] == 0
        check_profiles(db_url)
        return merges

    by_profile = merged_day(url)
    link_by_link = merged_day(twin, link_by_link=True)
    print(f"merged by profile: {len(by_profile)}, link by link: {len(link_by_link)}")
