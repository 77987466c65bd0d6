"""The full re-match by shard against PostgreSQL (matching/rematch.py): the same links as a full
run over every mention, stable ids across a re-match, and a state the daily run continues from."""

import datetime as dt
from contextlib import nullcontext

import psycopg
import pytest

from tests.researchers.test_profiles_db import profile_keys
from tests.researchers.test_researchers_stage import harvest_days, match, snapshot, world  # noqa: F401
from wove_pipeline.matching import profile_store, rematch


def _links(url_or_conn):
    with (psycopg.connect(url_or_conn) if isinstance(url_or_conn, str) else nullcontext(url_or_conn)) as conn:
        rows = conn.execute("SELECT arxiv_id, position, researcher_id, outcome, score, evidence, block"
                            " FROM wove.researcher_mentions ORDER BY 1, 2").fetchall()
        people = {r[0]: r[1:] for r in conn.execute(
            "SELECT researcher_id, display_name, normalized_name, mention_count, orcid, s2_author_ids,"
            " openalex_author_ids FROM wove.researchers")}
        state = conn.execute("SELECT arxiv_id, content, inputs FROM wove.matching_state ORDER BY 1").fetchall()
        profiles = {r[0]: r[1:] for r in conn.execute(
            "SELECT researcher_id, blocks, mention_count, name_forms, coauthors, venues, affiliations, categories,"
            " centroid, s2_author_ids, openalex_author_ids, orcids, id_counts, first_year, last_year,"
            " representatives FROM wove.researcher_profiles")}
    return rows, people, state, profiles


def _by_shards(url, **kw):
    """The three steps, each shard in a transaction of its own (as the job's ops run them)."""
    with psycopg.connect(url) as conn, conn.transaction():
        rematch.plan(conn)
        shards = rematch.planned_shards(conn)
    for s in shards:
        with psycopg.connect(url) as conn, conn.transaction():
            rematch.shard(conn, s, **kw)
    with psycopg.connect(url) as conn, conn.transaction():
        return rematch.finish(conn), shards


def test_a_first_run_by_shards_writes_the_links_of_a_full_run(env, world, clone_database):  # noqa: F811
    url, resources = env
    harvest_days(resources, world.start_day, world.end_day)
    _same_as_a_full_run(url, clone_database(url))


def test_clusters_joined_across_name_blocks_get_the_profile_of_all_their_members(env, world, clone_database):  # noqa: F811
    """A position printed surname first (another name block) that carries its person's S2 and
    OpenAlex author ids: the finish joins its cluster to theirs, and the joined researcher's
    profile is built from every member, not from the shard's profile of either part."""
    url, resources = env
    harvest_days(resources, world.start_day, world.end_day)
    with psycopg.connect(url) as conn:
        arxiv_id, position = conn.execute(
            "SELECT au.arxiv_id, au.position FROM wove.authorships au WHERE au.s2_author_id IS NOT NULL"
            " AND au.openalex_author_id IS NOT NULL AND (SELECT count(*) FROM wove.authorships a2"
            " WHERE a2.s2_author_id = au.s2_author_id AND a2.openalex_author_id = au.openalex_author_id) > 2"
            " ORDER BY 1, 2 LIMIT 1").fetchone()
        conn.execute("UPDATE wove.paper_authors SET keyname = split_part(forenames, ' ', 1), forenames = keyname"
                     " WHERE arxiv_id = %s AND position = %s", (arxiv_id, position))
    other = clone_database(url)
    _same_as_a_full_run(url, other)
    with psycopg.connect(other) as conn:  # the swapped position's cluster was joined to its person's
        blocks = conn.execute("SELECT array_agg(DISTINCT o.block) FROM wove.researcher_mentions rm"
                              " JOIN wove.researcher_mentions o USING (researcher_id)"
                              " WHERE rm.arxiv_id = %s AND rm.position = %s", (arxiv_id, position)).fetchone()[0]
    assert len(blocks) == 2, blocks


def _same_as_a_full_run(url: str, other: str) -> None:
    """A full run on ``url`` and a run by shards on ``other`` (a clone) write the same links,
    researchers, matching state and profiles."""
    assert match(url).mode == "full"
    summary, shards = _by_shards(other, chunk_mentions=200)  # many chunks per shard
    assert len(shards) > 20 and summary.mode == "full"
    full, sharded = _links(url), _links(other)
    # the same clusters with the same outcomes, scores and evidence; ids are numbered per unit
    rename = {}
    for a, b in zip(full[0], sharded[0]):
        assert a[:2] == b[:2] and a[3:] == b[3:], a[:2]
        assert rename.setdefault(b[2], a[2]) == a[2]
    assert len(set(rename.values())) == len(rename)
    assert {rename[rid]: row for rid, row in sharded[1].items()} == full[1]
    assert sharded[2] == full[2]  # evidence hashes and input fingerprints as a full run keeps them
    assert {rename[rid]: row for rid, row in sharded[3].items()} == full[3]  # the profiles daily runs read
    held, derived = profile_keys(other)
    assert held == derived and held  # and the keys they are found by
    # the daily run continues from it: nothing moved
    assert match(other).mode == "unchanged"


def test_a_re_match_by_shards_keeps_every_id_and_the_daily_run_goes_on(env, world):  # noqa: F811
    url, resources = env
    harvest_days(resources, world.start_day, world.end_day - dt.timedelta(days=1))
    match(url)
    before, redirects_before, live_before = snapshot(url)
    summary, _ = _by_shards(url)
    after, redirects, live = snapshot(url)
    assert after == before and live == live_before and redirects == redirects_before
    assert summary.created == 0 and summary.retired == 0
    with psycopg.connect(url) as conn:
        n_positions = conn.execute("SELECT count(*) FROM wove.paper_authors").fetchone()[0]
        n_links = conn.execute("SELECT count(*) FROM wove.researcher_mentions").fetchone()[0]
        left = conn.execute("SELECT (SELECT count(*) FROM wove.rematch_results) + (SELECT count(*) FROM"
                            " wove.matching_blocks)").fetchone()[0]
    assert n_links == n_positions and left == 0
    assert match(url).mode == "unchanged"
    harvest_days(resources, world.end_day, world.end_day)
    day = match(url)
    assert day.mode == "incremental" and day.new_mentions > 0


def test_positions_linked_between_the_plan_and_the_finish_are_in_their_researchers_profiles(env, world):  # noqa: F811
    """A daily run after the plan links positions no shard sees: the finish keeps those links,
    and the profiles of their researchers are built from every link, theirs included."""
    url, resources = env
    harvest_days(resources, world.start_day, world.end_day - dt.timedelta(days=1))
    match(url)
    with psycopg.connect(url) as conn, conn.transaction():
        rematch.plan(conn)
        shards = rematch.planned_shards(conn)
        planned = {r[0] for r in conn.execute("SELECT arxiv_id FROM wove.papers")}
    harvest_days(resources, world.end_day, world.end_day)
    day = match(url)
    assert day.mode == "incremental" and day.new_mentions > 0
    for s in shards:
        with psycopg.connect(url) as conn, conn.transaction():
            rematch.shard(conn, s)
    with psycopg.connect(url) as conn, conn.transaction():
        rematch.finish(conn)
    stored = _links(url)[3]
    with psycopg.connect(url) as conn:
        late = {rid for a, rid in conn.execute("SELECT arxiv_id, researcher_id FROM wove.researcher_mentions")
                if a not in planned}
        with conn.transaction(force_rollback=True):
            profile_store.rebuild_all(conn, dt.datetime.now(dt.timezone.utc))
            rebuilt = _links(conn)[3]
    assert late and stored == rebuilt


def test_a_shard_that_did_not_run_stops_the_finish(env, world):  # noqa: F811
    url, resources = env
    harvest_days(resources, world.start_day, world.start_day + dt.timedelta(days=1))
    with psycopg.connect(url) as conn, conn.transaction():
        rematch.plan(conn)
        shards = rematch.planned_shards(conn)
        for s in shards[1:]:
            rematch.shard(conn, s)
    with psycopg.connect(url) as conn:
        try:
            rematch.finish(conn)
        except RuntimeError as e:
            assert str(shards[0]) in str(e)
        else:
            raise AssertionError("finish ran without every shard")


@pytest.mark.slow
def test_the_full_rematch_job_runs_the_shards_in_worker_processes(env, world, tmp_path):  # noqa: F811
    """The code location's job, as an operator runs it (`dagster job execute`, in a process of
    its own): plan, the shards over two processes (its fork-server executor), finish; ids
    kept, the researchers asset materialized."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import dagster as dg

    url, resources = env
    harvest_days(resources, world.start_day, world.start_day + dt.timedelta(days=2))
    match(url)
    before = snapshot(url)
    home = tmp_path / "dagster_home"
    home.mkdir()
    out = subprocess.run([sys.executable, "-m", "dagster", "job", "execute", "-m", "wove_pipeline.definitions",
                          "-j", "full_rematch"], cwd=Path(__file__).resolve().parents[2], capture_output=True,
                         text=True, timeout=900,
                         env={**os.environ, "WOVE_DATABASE_URL": url, "DAGSTER_HOME": str(home)})
    assert out.returncode == 0, out.stderr[-3000:]
    with dg.DagsterInstance.local_temp(tempdir=str(home)) as instance:  # the run's own storage
        (run,) = instance.get_runs()
        assert run.job_name == "full_rematch" and run.status == dg.DagsterRunStatus.SUCCESS
        events = [r.dagster_event for r in instance.all_logs(run.run_id) if r.dagster_event]
        shard_steps = {e.step_key for e in events if e.event_type == dg.DagsterEventType.STEP_SUCCESS
                       and e.step_key.startswith("rematch_shard")}
        assert len(shard_steps) > 5
        pids = {e.pid for e in events if e.step_key and e.step_key.startswith("rematch_shard") and e.pid}
        assert len(pids) >= 2  # a process per step
        assert instance.get_latest_materialization_event(dg.AssetKey("researchers")) is not None
    assert snapshot(url) == before
