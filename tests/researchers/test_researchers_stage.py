"""The matching stage against the database: stable ids as days arrive, redirects, overrides,
and the seed's Peng Wang, over the real pipeline (sandbox HTTP, PostgreSQL, Dagster)."""

import datetime as dt
from collections import defaultdict

import dagster as dg
import numpy as np
import psycopg
import pytest

from wove_pipeline.arxiv import assets as harvest
from wove_pipeline.arxiv.harvest import content_hash
from wove_pipeline.enrichment import assets as enrichment
from wove_pipeline.matching import researchers as researchers_load
from wove_pipeline.matching.mentions import EMBEDDING_MODEL, coauthor_name
from wove_pipeline.matching.names import make_name
from wove_pipeline.matching.scoring import text_term_counts
from wove_pipeline.sandbox.generator import generate_world
from wove_pipeline.sandbox.seed_fixtures import SEED_PENG_WANG_ID

UPSTREAM_ASSETS = [harvest.arxiv_records, harvest.papers, *enrichment.daily_enrichment_assets]


@pytest.fixture(scope="module")
def world():
    return generate_world(seed=7, papers_per_day=30, days=8)


def harvest_days(resources, first: dt.date, last: dt.date) -> None:
    tags = {"dagster/asset_partition_range_start": first.isoformat(),
            "dagster/asset_partition_range_end": last.isoformat()}
    assert dg.materialize(UPSTREAM_ASSETS, resources=resources, tags=tags).success


def match(url, **kw):
    with psycopg.connect(url) as conn, conn.transaction():
        return researchers_load.match_researchers(conn, **kw)


def snapshot(url):
    """researcher id -> its set of (arxiv_id, position), plus the redirects table."""
    with psycopg.connect(url) as conn:
        members = defaultdict(set)
        for arxiv_id, position, rid in conn.execute("SELECT arxiv_id, position, researcher_id FROM wove.researcher_mentions"):
            members[rid].add((arxiv_id, position))
        redirects = dict(conn.execute("SELECT old_id, new_id FROM wove.researcher_redirects").fetchall())
        live = {r[0] for r in conn.execute("SELECT researcher_id FROM wove.researchers")}
    return dict(members), redirects, live


def test_adding_a_day_changes_no_untouched_id_and_retired_ids_redirect(env, world):
    url, resources = env
    last = world.end_day - dt.timedelta(days=1)
    harvest_days(resources, world.start_day, last)
    first_run = match(url)
    assert first_run.mode == "full" and first_run.researchers > 100
    before, _, _ = snapshot(url)

    harvest_days(resources, world.end_day, world.end_day)
    second = match(url)
    assert second.mode == "incremental" and second.new_mentions > 0
    after, redirects, live = snapshot(url)

    with psycopg.connect(url) as conn:
        new_positions = set(conn.execute(
            "SELECT arxiv_id, position FROM wove.paper_authors WHERE arxiv_id IN "
            "(SELECT arxiv_id FROM wove.papers WHERE oai_datestamp = %s)", (world.end_day,)).fetchall())
    touched = {rid for rid, ms in after.items() if ms & new_positions}
    untouched = {rid: ms for rid, ms in before.items() if rid not in touched and not (ms & new_positions)}
    assert untouched, "the new day should leave most researchers alone"
    for rid, members in untouched.items():
        assert after.get(rid) == members, f"researcher {rid} changed although the new day did not touch it"
    # Every retired id redirects to a live researcher.
    for old, new in redirects.items():
        assert new in live and old not in live
    # Every position has exactly one researcher, and the links carry their evidence.
    with psycopg.connect(url) as conn:
        n_positions = conn.execute("SELECT count(*) FROM wove.paper_authors").fetchone()[0]
        n_links, n_scored = conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE outcome IS NOT NULL) FROM wove.researcher_mentions").fetchone()
    assert n_links == n_positions == n_scored
    # Nothing new: a re-run changes nothing.
    assert match(url).mode == "unchanged"


def test_a_full_recluster_keeps_ids_and_redirects_merges(env, world):
    url, resources = env
    harvest_days(resources, world.start_day, world.end_day)
    match(url)
    before, _, live_before = snapshot(url)
    match(url, full=True)
    after, redirects, live_after = snapshot(url)
    # Ids survive a full re-cluster: most researchers keep exactly their positions, and an id
    # that disappeared from the live set is a redirect to a live one.
    same = sum(1 for rid, ms in before.items() if after.get(rid) == ms)
    assert same / len(before) >= 0.97
    for rid in live_before - live_after:
        assert redirects[rid] in live_after


def test_manual_overrides_survive_reruns(env, world):
    url, resources = env
    harvest_days(resources, world.start_day, world.end_day)
    match(url)
    members, _, _ = snapshot(url)
    rid, positions = next((r, sorted(ms)) for r, ms in members.items() if len(ms) >= 2)
    (a_id, a_pos), (b_id, b_pos) = positions[0], positions[1]
    with psycopg.connect(url) as conn:
        conn.execute(
            "INSERT INTO wove.match_overrides (kind, arxiv_id_a, position_a, arxiv_id_b, position_b, note) "
            "VALUES ('force_split', %s, %s, %s, %s, 'test: not the same person')", (a_id, a_pos, b_id, b_pos))
    for _ in range(2):  # the override holds on every re-run
        match(url, full=True)
        with psycopg.connect(url) as conn:
            ra = conn.execute("SELECT researcher_id FROM wove.researcher_mentions WHERE arxiv_id=%s AND position=%s",
                              (a_id, a_pos)).fetchone()[0]
            rb = conn.execute("SELECT researcher_id FROM wove.researcher_mentions WHERE arxiv_id=%s AND position=%s",
                              (b_id, b_pos)).fetchone()[0]
        assert ra != rb


def test_the_seed_peng_wang_holds_exactly_his_papers(env, world):
    url, resources = env
    harvest_days(resources, world.start_day, world.end_day)
    match(url)
    truth = {(p.arxiv_id, a.position) for p in world.papers for a in p.authors if a.person_id == SEED_PENG_WANG_ID}
    with psycopg.connect(url) as conn:
        rid = conn.execute("SELECT researcher_id FROM wove.researcher_mentions WHERE arxiv_id='2508.06001' AND position=1"
                           ).fetchone()[0]
        held = set(conn.execute("SELECT arxiv_id, position FROM wove.researcher_mentions WHERE researcher_id=%s",
                                (rid,)).fetchall())
        other_peng_wangs = conn.execute(
            "SELECT count(*) FROM wove.researchers WHERE normalized_name = 'peng wang' AND researcher_id <> %s", (rid,)
        ).fetchone()[0]
    harvested = {(a, p) for a, p in truth if any(x.arxiv_id == a for x in world.papers)}
    assert held == harvested and len(held) == 6
    assert other_peng_wangs >= 6


def test_a_new_override_applies_on_the_next_incremental_run(env, world):
    url, resources = env
    harvest_days(resources, world.start_day, world.end_day)
    match(url)
    members, _, _ = snapshot(url)
    rid, positions = next((r, sorted(ms)) for r, ms in members.items() if len(ms) >= 3)
    (a_id, a_pos), (b_id, b_pos) = positions[0], positions[-1]
    with psycopg.connect(url) as conn:
        conn.execute(
            "INSERT INTO wove.match_overrides (kind, arxiv_id_a, position_a, arxiv_id_b, position_b) "
            "VALUES ('force_split', %s, %s, %s, %s)", (a_id, a_pos, b_id, b_pos))
    summary = match(url)
    assert summary.mode == "incremental" and summary.new_mentions == 2
    with psycopg.connect(url) as conn:
        ids = [conn.execute("SELECT researcher_id FROM wove.researcher_mentions WHERE arxiv_id=%s AND position=%s",
                            key).fetchone()[0] for key in ((a_id, a_pos), (b_id, b_pos))]
    assert ids[0] != ids[1]


def _decisions(url):
    with psycopg.connect(url) as conn:
        links = conn.execute("SELECT arxiv_id, position, researcher_id, outcome, score, evidence::text, block"
                             " FROM wove.researcher_mentions ORDER BY 1, 2").fetchall()
        people = conn.execute("SELECT researcher_id, display_name, normalized_name, mention_count, orcid,"
                              " s2_author_ids, openalex_author_ids FROM wove.researchers ORDER BY 1").fetchall()
        other = [conn.execute(q).fetchall() for q in (
            "SELECT old_id, new_id, reason FROM wove.researcher_redirects ORDER BY 1",
            "SELECT arxiv_id, content, inputs FROM wove.matching_state ORDER BY 1")]
    return links, people, other


def test_a_scoped_run_decides_what_a_run_over_every_position_decides(env, world, clone_database):
    """An incremental run link by link reads only the changed papers' name blocks and their
    researchers, and their texts' kept term counts; it must write exactly what the same run
    reading every position and counting every text writes."""
    url, resources = env
    harvest_days(resources, world.start_day, world.end_day - dt.timedelta(days=2))
    assert match(url).mode == "full"
    harvest_days(resources, world.end_day - dt.timedelta(days=1), world.end_day)
    with psycopg.connect(url) as conn:
        # a forced split the current links break: its two positions are re-decided
        a, pa, b, pb = conn.execute(
            "SELECT x.arxiv_id, x.position, y.arxiv_id, y.position FROM wove.researcher_mentions x"
            " JOIN wove.researcher_mentions y ON y.researcher_id = x.researcher_id AND y.arxiv_id > x.arxiv_id"
            " ORDER BY 1, 2, 3, 4 LIMIT 1").fetchone()
        conn.execute("INSERT INTO wove.match_overrides (kind, arxiv_id_a, position_a, arxiv_id_b, position_b, note)"
                     " VALUES ('force_split', %s, %s, %s, %s, 'test')", (a, pa, b, pb))
    everything = clone_database(url)
    with psycopg.connect(everything) as conn:
        conn.execute("UPDATE wove.researcher_mentions SET block = NULL")  # as before block keys: reads all
        conn.execute("TRUNCATE wove.matching_text_terms")  # and counts every text again
    with psycopg.connect(url) as conn:  # the scoped run reads the term counts the first run kept
        assert conn.execute("SELECT count(*) FROM wove.matching_text_terms").fetchone()[0] > 0
    scoped, unscoped = match(url, link_by_link=True), match(everything)
    assert scoped.mode == unscoped.mode == "incremental" and scoped.new_mentions == unscoped.new_mentions > 0
    assert scoped.positions_loaded < unscoped.positions_loaded == unscoped.mentions
    mine, theirs = _decisions(url), _decisions(everything)
    for x, y, what in ((mine[0], theirs[0], "links"), (mine[1], theirs[1], "researchers"),
                       (mine[2][0], theirs[2][0], "redirects"), (mine[2][1], theirs[2][1], "state")):
        diff = sorted(set(map(repr, x)) ^ set(map(repr, y)))
        assert not diff, f"{what}: {diff[:6]}"
    # the copy's links now carry their blocks: its next run is scoped, and has nothing to do
    after = match(everything)
    assert after.mode == "unchanged" and after.positions_loaded == 0


def test_the_change_log_finds_what_a_scan_of_every_paper_finds(env, world):
    """A run fingerprints only the papers the triggers logged (migration 0012); that must
    find exactly the papers a fingerprint of every paper finds."""
    url, resources = env
    harvest_days(resources, world.start_day, world.end_day - dt.timedelta(days=1))
    match(url)
    harvest_days(resources, world.end_day, world.end_day)
    assert match(url).mode == "incremental"

    def every_paper(conn):
        return dict(conn.execute(researchers_load.INPUTS_SQL, {"all": True, "ids": []}))

    with psycopg.connect(url) as conn:
        # taken, and the run's own links are not left in it for the next run
        assert conn.execute("SELECT count(*) FROM wove.matching_changes").fetchone()[0] == 0
        p1, p2, p3, p4 = [r[0] for r in conn.execute(
            "SELECT arxiv_id FROM wove.authorships GROUP BY 1 ORDER BY 1 LIMIT 4")]
        conn.execute("UPDATE wove.authorships SET s2_confidence = 0.42 WHERE arxiv_id = %s AND position = 0", (p1,))
        conn.execute("UPDATE wove.papers SET title = title || ' (revised)' WHERE arxiv_id = %s", (p2,))  # no input
        conn.execute("UPDATE wove.paper_authors SET keyname = keyname WHERE arxiv_id = %s", (p2,))  # same row
        conn.execute("DELETE FROM wove.researcher_mentions WHERE arxiv_id = %s AND position = 0", (p3,))
        logged = {r[0] for r in conn.execute("SELECT key FROM wove.matching_changes")}
        assert logged == {p1, p2, p3}
        with conn.transaction(force_rollback=True):
            scanned = every_paper(conn)
            assert researchers_load.changed_inputs(conn) == scanned and set(scanned) == {p1, p3}
        # a write the triggers did not see (replication role: no triggers) is found only by a
        # full scan, which a logged TRUNCATE asks for
        conn.execute("SET session_replication_role = replica")
        conn.execute("UPDATE wove.authorships SET s2_confidence = 0.43 WHERE arxiv_id = %s AND position = 0", (p4,))
        conn.execute("SET session_replication_role = DEFAULT")
        conn.commit()
        with conn.transaction(force_rollback=True):
            assert set(researchers_load.changed_inputs(conn)) == {p1, p3}
        with conn.transaction(force_rollback=True):
            conn.execute("INSERT INTO wove.matching_changes (kind, key) VALUES ('truncate', 'authorships')")
            assert set(researchers_load.changed_inputs(conn)) == {p1, p3, p4}
    summary = match(url)
    assert summary.mode == "incremental" and summary.new_mentions >= 2


def test_term_counts_are_kept_and_follow_the_text(env, world):
    """The text evidence's term counts are kept per paper (migration 0013); a changed text (a
    new papers.content_hash, as the papers' writer sets it) is counted again, an unchanged one
    comes with its kept counts."""
    url, resources = env
    harvest_days(resources, world.start_day, world.start_day + dt.timedelta(days=1))
    match(url)
    with psycopg.connect(url) as conn:
        kept = dict(conn.execute("SELECT arxiv_id, terms FROM wove.matching_text_terms"))
        texts = dict(conn.execute("SELECT arxiv_id, title || E'\\n' || coalesce(abstract, '') FROM wove.papers"))
        assert set(kept) == set(texts) and len(texts) > 20
        assert [kept[p] for p in sorted(texts)] == text_term_counts([texts[p] for p in sorted(texts)])
        changed, same = sorted(texts)[:2]
        title = conn.execute("SELECT title FROM wove.papers WHERE arxiv_id = %s", (changed,)).fetchone()[0]
        new_text = f"{title}\nQuasicrystal lattices revisited"
        conn.execute("UPDATE wove.papers SET abstract = 'Quasicrystal lattices revisited', content_hash = %s"
                     " WHERE arxiv_id = %s", (content_hash(title, "Quasicrystal lattices revisited"), changed))
        with conn.transaction(force_rollback=True):
            mentions, _ = researchers_load.load_mentions(conn, [changed, same])
            by_paper = {m.paper_id: m for m in mentions}
            assert by_paper[changed].text_terms == text_term_counts([new_text])[0] != kept[changed]
            assert by_paper[same].text_terms == kept[same]
            assert conn.execute("SELECT terms FROM wove.matching_text_terms WHERE arxiv_id = %s",
                                (changed,)).fetchone()[0] == text_term_counts([new_text])[0]


def test_a_surname_first_position_with_his_upstream_ids_joins_the_seed_peng_wang(env, world):
    """A later paper prints him "Wang Peng" (surname first: another name block) with the same
    S2 and OpenAlex author ids as his other papers: the daily run links it to his profile."""
    url, resources = env
    harvest_days(resources, world.start_day, world.end_day)
    match(url)
    with psycopg.connect(url) as conn, conn.transaction():
        rid = conn.execute("SELECT researcher_id FROM wove.researcher_mentions WHERE arxiv_id='2508.06001' AND position=1"
                           ).fetchone()[0]
        s2, oa = conn.execute("SELECT s2_author_id, openalex_author_id FROM wove.authorships"
                              " WHERE arxiv_id='2508.06001' AND position=1").fetchone()
        assert s2 and oa
        new_id = "2601.99999"
        cols = [c for (c,) in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = 'wove' AND table_name = 'papers'"
            " AND is_generated = 'NEVER' AND column_name NOT IN ('arxiv_id', 'slug') ORDER BY ordinal_position")]
        conn.execute(f"INSERT INTO wove.papers (arxiv_id, slug, {', '.join(cols)})"
                     f" SELECT %(new)s, %(new)s, {', '.join(cols)} FROM wove.papers WHERE arxiv_id = '2508.06001'",
                     {"new": new_id})
        conn.execute("""INSERT INTO wove.paper_authors (arxiv_id, position, keyname, forenames, suffix, affiliations)
                        SELECT %(new)s, position, CASE WHEN position = 1 THEN 'Peng' ELSE keyname END,
                               CASE WHEN position = 1 THEN 'Wang' ELSE forenames END, suffix, affiliations
                        FROM wove.paper_authors WHERE arxiv_id = '2508.06001'""", {"new": new_id})
        conn.execute("""INSERT INTO wove.authorships (arxiv_id, position, arxiv_name, s2_position, s2_author_id, s2_name,
                               s2_confidence, openalex_position, openalex_author_id, openalex_name, openalex_confidence,
                               orcid, institution_ids, raw_affiliations)
                        SELECT %(new)s, position, arxiv_name, s2_position, s2_author_id, s2_name, s2_confidence,
                               openalex_position, openalex_author_id, openalex_name, openalex_confidence, orcid,
                               institution_ids, raw_affiliations
                        FROM wove.authorships WHERE arxiv_id = '2508.06001'""", {"new": new_id})
    run = match(url)
    assert run.mode == "incremental" and run.new_mentions > 0
    with psycopg.connect(url) as conn:
        swapped = conn.execute("SELECT researcher_id, block FROM wove.researcher_mentions WHERE arxiv_id=%s AND position=1",
                               (new_id,)).fetchone()
    assert swapped == (rid, "w peng")


def test_positions_carry_their_papers_sentence_vectors_of_the_trained_model(env, world):
    """mention_load reads a paper's vector (evidence embedding_cosine) only where it was made
    from the paper's current text by the model the pair model was trained on."""
    url, resources = env
    harvest_days(resources, world.start_day, world.start_day)
    rng = np.random.default_rng(3)
    with psycopg.connect(url) as conn:
        current, other_model, stale, none = [r[0] for r in conn.execute(
            "SELECT arxiv_id FROM wove.papers ORDER BY arxiv_id LIMIT 4")]
        vectors = {}
        for arxiv_id, model, fresh in ((current, EMBEDDING_MODEL, True), (other_model, "other/model", True),
                                       (stale, EMBEDDING_MODEL, False)):
            vectors[arxiv_id] = rng.standard_normal(384).astype(np.float32)
            conn.execute("INSERT INTO wove.paper_embeddings (arxiv_id, model, dimensions, content_hash, embedding)"
                         " SELECT arxiv_id, %s, 384, CASE WHEN %s THEN content_hash ELSE 'old' END, %s::vector"
                         " FROM wove.papers WHERE arxiv_id = %s",
                         (model, fresh, str(vectors[arxiv_id].tolist()), arxiv_id))
        ids = [current, other_model, stale, none]
        mentions, _ = researchers_load.load_mentions(conn, ids)
        got = {m.paper_id: m.embedding for m in mentions}
        assert set(got) == set(ids)
        # co-authors by block and, where printed with a full first name, by name
        authors = conn.execute("SELECT arxiv_id, position, forenames, keyname FROM wove.paper_authors"
                               " WHERE arxiv_id = ANY(%s) ORDER BY arxiv_id, position", (ids,)).fetchall()
        for m in mentions:
            others = [make_name(f, None, k) for a, p, f, k in authors if a == m.paper_id and p != m.position]
            assert m.coauthor_keys == [n.block for n in others]
            assert m.coauthor_names == [x for x in map(coauthor_name, others) if x]
        assert any(m.coauthor_names for m in mentions)
        assert np.array_equal(got[current], vectors[current].astype(np.float16))
        assert got[other_model] is None and got[stale] is None and got[none] is None
        # one array per paper, shared by its positions
        assert len({id(m.embedding) for m in mentions if m.paper_id == current}) == 1
        mentions, _ = researchers_load.load_mentions(conn, ids, vectors=False)
        assert all(m.embedding is None for m in mentions)
