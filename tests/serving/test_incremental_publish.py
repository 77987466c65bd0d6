"""Property: after random days of changes, the incremental publish serves exactly the rows
a full rebuild would.

Each simulated day loads that day's papers and applies the changes the upstream stages
make (tests/serving/test_incremental_metrics.py: citation and author-record refreshes,
merges with redirects, splits, re-matches, new institutions on authorships,
re-categorized papers, unmatched positions) plus the ones only serving sees (renamed
researchers and institutions, new aliases and ORCIDs, retitled, withdrawn and deleted
papers, new topics, redirect chains, new and removed institutions). After the day's
metrics run, the incremental publish must leave every serving table equal, row for row,
to a full build of the same snapshot.
"""

from __future__ import annotations

import random
import threading

import psycopg
import pytest
from psycopg import sql

from wove_pipeline.database import access as db
from wove_pipeline.metrics import compute as metrics
from wove_pipeline.serving import publish as publishing
from wove_pipeline.serving import tables

from .test_incremental_metrics import _random_updates
from .world_db import load_papers, load_static, papers_by_day, publish

CHECK = "serving_check"
PKS = {t.name: t.pk for t in tables.TABLE_DEFINITIONS}


def _rows(conn, schema: str) -> dict[str, list[tuple]]:
    return {table: conn.execute(sql.SQL("SELECT * FROM {} ORDER BY {}").format(
                sql.Identifier(schema, table), sql.SQL(", ").join(map(sql.Identifier, pk)))).fetchall()
            for table, pk in PKS.items()}


def _full_build_rows(conn, site_url: str = "") -> dict[str, list[tuple]]:
    """The rows a full build gives now (built beside serving, then rolled back)."""
    with conn.transaction() as tx:
        publishing.build_tables(conn, CHECK, site_url)
        rows = _rows(conn, CHECK)
        raise psycopg.Rollback(tx)
    return rows


def _serving_only_updates(conn, rng: random.Random, day, next_id: list[int]) -> None:
    q = lambda text, params=None: conn.execute(text, params).fetchall()  # noqa: E731
    # a researcher renamed (their papers' author lists carry the name in the slug) and one
    # given an ORCID
    rid = rng.choice(q("SELECT researcher_id FROM wove.researchers ORDER BY 1"))[0]
    conn.execute("UPDATE wove.researchers SET display_name = display_name || ' Jr', updated_at = now()"
                 " WHERE researcher_id = %s", (rid,))
    rid = rng.choice(q("SELECT researcher_id FROM wove.researchers WHERE orcid IS NULL ORDER BY 1"))[0]
    conn.execute("UPDATE wove.researchers SET orcid = %s WHERE researcher_id = %s", (f"0000-0002-{rid:07d}", rid))
    # institutions: one renamed with a new alias, one new, one removed
    inst = rng.choice(q("SELECT institution_id FROM wove.institutions ORDER BY 1"))[0]
    conn.execute("UPDATE wove.institutions SET display_name = display_name || ' (renamed)',"
                 " aliases = aliases || ARRAY['Alias ' || %s::text] WHERE institution_id = %s", (str(day), inst))
    new_inst = f"I9{next_id[0]}"
    next_id[0] += 1
    conn.execute("INSERT INTO wove.institutions (institution_id, ror, display_name, country_code, type, aliases,"
                 " as_of, fetched_at) VALUES (%s, %s, %s, 'FR', 'education', '{}', %s, now())",
                 (new_inst, f"https://ror.org/0x{new_inst}", f"New Institute {new_inst}", day))
    a, pos = rng.choice(q("SELECT arxiv_id, position FROM wove.authorships ORDER BY 1, 2"))
    conn.execute("UPDATE wove.authorships SET institution_ids = institution_ids || ARRAY[%s], aligned_at = now()"
                 " WHERE arxiv_id = %s AND position = %s", (new_inst, a, pos))
    gone = rng.choice(q("SELECT institution_id FROM wove.institutions ORDER BY 1"))[0]
    conn.execute("DELETE FROM wove.institutions WHERE institution_id = %s", (gone,))
    # papers: one retitled (new slug), one withdrawn, one with new topics, one deleted
    a = rng.choice(q("SELECT arxiv_id FROM wove.papers ORDER BY 1"))[0]
    conn.execute("UPDATE wove.papers SET title = title || ' (revised)', slug = slug || '-revised',"
                 " oai_datestamp = %s WHERE arxiv_id = %s", (day, a))
    a = rng.choice(q("SELECT arxiv_id FROM wove.papers WHERE NOT withdrawn ORDER BY 1"))[0]
    conn.execute("UPDATE wove.papers SET withdrawn = true, oai_datestamp = %s WHERE arxiv_id = %s", (day, a))
    a = rng.choice(q("SELECT arxiv_id FROM wove.openalex_works ORDER BY 1"))[0]
    conn.execute("UPDATE wove.openalex_works SET topics = '[]', fetched_at = now() WHERE arxiv_id = %s", (a,))
    a = rng.choice(q("SELECT arxiv_id FROM wove.papers ORDER BY 1"))[0]
    conn.execute("DELETE FROM wove.papers WHERE arxiv_id = %s", (a,))  # authors and mentions cascade
    # redirects: yesterday's dangling chain (old ids to an id that leads nowhere) now
    # reaches a live researcher, through a new link at its far end; a new dangling chain;
    # one of ours dropped
    live = rng.choice(q("SELECT researcher_id FROM wove.researchers ORDER BY 1"))[0]
    for (end,) in q("SELECT new_id FROM wove.researcher_redirects WHERE new_id >= 900000 AND new_id NOT IN"
                    " (SELECT old_id FROM wove.researcher_redirects) AND new_id NOT IN"
                    " (SELECT researcher_id FROM wove.researchers)"):
        conn.execute("INSERT INTO wove.researcher_redirects (old_id, new_id, reason) VALUES (%s, %s, 'merge')",
                     (end, live))
    conn.execute("INSERT INTO wove.researcher_redirects (old_id, new_id, reason) VALUES (%s, %s, 'merge'),"
                 " (%s, %s, 'merge')", (next_id[0], next_id[0] + 1, next_id[0] + 1, next_id[0] + 2))
    next_id[0] += 3
    old = q("SELECT old_id FROM wove.researcher_redirects WHERE old_id >= 900000 ORDER BY 1")  # ours, not merges
    if len(old) > 2:
        conn.execute("DELETE FROM wove.researcher_redirects WHERE old_id = %s", (rng.choice(old)[0],))


def _merge_two(conn, rng: random.Random) -> None:
    """Two researchers with co-authors merged: mentions move, the loser goes, redirected."""
    keep, lose = rng.sample([r for (r,) in conn.execute(
        "SELECT DISTINCT researcher_id FROM wove.researcher_coauthors ORDER BY 1").fetchall()], 2)
    conn.execute("DELETE FROM wove.researcher_mentions m WHERE researcher_id = %s AND EXISTS"
                 " (SELECT 1 FROM wove.researcher_mentions x WHERE x.researcher_id = %s AND x.arxiv_id = m.arxiv_id)",
                 (lose, keep))
    conn.execute("UPDATE wove.researcher_mentions SET researcher_id = %s WHERE researcher_id = %s", (keep, lose))
    conn.execute("DELETE FROM wove.researchers WHERE researcher_id = %s", (lose,))
    conn.execute("INSERT INTO wove.researcher_redirects (old_id, new_id, reason) VALUES (%s, %s, 'merge')", (lose, keep))


@pytest.mark.parametrize("seed, warm_above", [(3, None), (4, None), (4, 0)])
def test_incremental_publish_equals_full_rebuild_after_random_days(database_url, small_world, seed, warm_above,
                                                                   monkeypatch, warmed_lookups):
    """(warm_above 0: every rewrite reads its name index pages ahead through snapshot readers,
    as a day's rewrite of thousands of researchers does, and the rows are the same.)"""
    if warm_above is not None:
        monkeypatch.setattr(publishing, "WARM_ABOVE", warm_above)
    rng = random.Random(seed)
    by_day = papers_by_day(small_world)
    days = list(by_day)
    known: set[int] = set()
    next_id = [900_000]
    site = "https://wove.example"
    with db.connect(database_url, autocommit=True) as conn:
        with conn.transaction():
            load_static(conn, small_world)
            known |= load_papers(conn, small_world, by_day[days[0]])
            metrics.update_metrics(conn)
        first = publish(database_url, site_url=site)
        assert first.mode == "full"
        for day in days[1:]:
            held_back = by_day[day][-2:]  # harvested after metrics ran, before the publish
            with conn.transaction():
                known |= load_papers(conn, small_world, by_day[day][:-2], researchers_known=known)
                while conn.execute("UPDATE wove.researcher_mentions m SET researcher_id = r.new_id"
                                   " FROM wove.researcher_redirects r WHERE m.researcher_id = r.old_id").rowcount:
                    pass
                _random_updates(conn, rng, day, next_id)
                _serving_only_updates(conn, rng, day, next_id)
            with conn.transaction():
                metrics.update_metrics(conn)
            # changes after metrics ran: serving shows them now (new papers, a citation, a
            # merge), metrics catch up the next day
            with conn.transaction():
                known |= load_papers(conn, small_world, held_back, researchers_known=known)
                conn.execute("UPDATE wove.s2_papers SET citation_count = citation_count + 1, fetched_at = now()"
                             " WHERE arxiv_id = (SELECT min(arxiv_id) FROM wove.s2_papers)")
                _merge_two(conn, rng)
            result = publish(database_url, site_url=site, full_above=float("inf"))
            assert result.mode == "incremental", result.reason
            expected = _full_build_rows(conn, site)
            got = _rows(conn, tables.SCHEMA)
            for table in PKS:
                assert got[table] == expected[table], f"{table} differs after {day}"
            pub = db.fetch_all(conn, "SELECT * FROM serving.publication")
            assert len(pub) == 1 and pub[0]["publication_id"] == result.publication_id
            assert pub[0]["row_counts"] == {t: len(rows) for t, rows in expected.items()}
            assert pub[0]["as_of"] == conn.execute("SELECT max(oai_datestamp) FROM wove.papers").fetchone()[0]
            written = result.rows_written
            assert 0 < sum(w["deleted"] + w["inserted"] for w in written.values()) \
                < sum(len(rows) for rows in expected.values())
            assert conn.execute("SELECT count(*) FROM wove.serving_changes").fetchone()[0] == 0
    if warm_above is not None:
        assert warmed_lookups and all(table == "serving.researchers" and column == "normalized_name" and keys
                                      for lookups in warmed_lookups for table, column, _, keys in lookups)


def _small_world_published(url, world) -> dict:
    with db.transaction(url) as conn:
        load_static(conn, world)
        load_papers(conn, world, world.papers)
        metrics.update_metrics(conn)
    return publish(url)


def test_first_publish_is_full_and_a_publish_with_nothing_changed_writes_nothing(database_url, small_world):
    first = _small_world_published(database_url, small_world)
    assert (first.mode, first.reason) == ("full", "no serving schema yet")
    with db.connect(database_url) as conn:
        before = _rows(conn, tables.SCHEMA)
    again = publish(database_url)
    assert again.mode == "incremental"
    assert again.rows_written == {t: {"deleted": 0, "inserted": 0} for t in PKS}
    assert again.publication_id > first.publication_id
    with db.connect(database_url) as conn:
        assert _rows(conn, tables.SCHEMA) == before
        assert conn.execute("SELECT publication_id FROM serving.publication").fetchone()[0] == again.publication_id
        # a rewrite that changes nothing (same values) is not a change either
        conn.execute("UPDATE wove.s2_papers SET citation_count = citation_count")
        conn.commit()
    assert publish(database_url).rows_written == {t: {"deleted": 0, "inserted": 0} for t in PKS}


def test_a_renamed_researcher_rewrites_their_papers_and_a_changed_one_does_not(database_url, small_world):
    """A paper's author list shows its researchers' slugs: a rename rewrites every paper of
    the researcher; a change the author list does not show (a new ORCID) re-reads none."""
    _small_world_published(database_url, small_world)
    with db.connect(database_url) as conn:
        renamed, other = conn.execute(
            "SELECT researcher_id FROM wove.researchers r WHERE orcid IS NULL AND (SELECT count(*)"
            " FROM wove.researcher_mentions m WHERE m.researcher_id = r.researcher_id) >= 2"
            " ORDER BY researcher_id LIMIT 2").fetchall()
        papers = lambda rid: {a for (a,) in conn.execute(  # noqa: E731
            "SELECT arxiv_id FROM wove.researcher_mentions WHERE researcher_id = %s", (rid,))}
        conn.execute("UPDATE wove.researchers SET display_name = 'Renamed Person' WHERE researcher_id = %s", renamed)
        conn.execute("UPDATE wove.researchers SET orcid = '0000-0002-1825-0097' WHERE researcher_id = %s", other)
        conn.commit()
        result = publish(database_url)
        assert result.mode == "incremental"
        slug = f"{renamed[0]}-renamed-person"
        shown = {a for (a,) in conn.execute(
            "SELECT arxiv_id FROM serving.papers, jsonb_array_elements(author_list) e"
            " WHERE e ->> 'researcher_slug' = %s", (slug,))}
        assert shown == papers(renamed[0])
        assert result.rows_written["papers"]["inserted"] == len(papers(renamed[0]))
        # patched at the renamed one's positions, not rebuilt; not the other's papers (which
        # show no ORCID)
        assert result.key_sets["k_paper"] == 0
        assert result.key_sets["k_paper_links"] == len(papers(renamed[0]))
        assert result.key_sets["k_link_position"] == conn.execute(
            "SELECT count(*) FROM wove.researcher_mentions WHERE researcher_id = %s", renamed).fetchone()[0]
        assert _rows(conn, tables.SCHEMA) == _full_build_rows(conn)


def test_a_moved_link_patches_its_paper_and_rewrites_only_the_pairs_it_moved(database_url, small_world):
    """A link moved from one researcher to another (a merge moves many so) changes one
    element of its paper's author list and the two researchers' rows of that paper: the
    publish patches the list at that position (the paper is not rebuilt) and rewrites those
    researcher_papers rows, not every co-author's, and the result is the full build's."""
    _small_world_published(database_url, small_world)
    with db.connect(database_url) as conn:
        paper, position, before, n_authors = conn.execute(
            "SELECT m.arxiv_id, m.position, m.researcher_id, (SELECT count(*) FROM wove.researcher_mentions x"
            " WHERE x.arxiv_id = m.arxiv_id) FROM wove.researcher_mentions m"
            " ORDER BY 4 DESC, 1, 2 LIMIT 1").fetchone()
        assert n_authors >= 3
        after = conn.execute(  # a served researcher not on the paper
            "SELECT researcher_id FROM serving.researchers r WHERE NOT EXISTS (SELECT 1 FROM"
            " wove.researcher_mentions m WHERE m.arxiv_id = %s AND m.researcher_id = r.researcher_id)"
            " ORDER BY researcher_id LIMIT 1", (paper,)).fetchone()[0]
        unlinked = conn.execute(  # and another position of it left without a researcher
            "SELECT position FROM wove.researcher_mentions WHERE arxiv_id = %s AND position <> %s"
            " ORDER BY position DESC LIMIT 1", (paper, position)).fetchone()[0]
        conn.execute("UPDATE wove.researcher_mentions SET researcher_id = %s WHERE arxiv_id = %s AND position = %s",
                     (after, paper, position))
        gone = conn.execute("DELETE FROM wove.researcher_mentions WHERE arxiv_id = %s AND position = %s"
                            " RETURNING researcher_id", (paper, unlinked)).fetchone()[0]
        conn.commit()
        result = publish(database_url)
        assert result.mode == "incremental"
        assert (result.key_sets["k_paper"], result.key_sets["k_paper_links"]) == (0, 1)
        assert result.rows_written["papers"] == {"deleted": 1, "inserted": 1}
        moved_pairs = {(before, paper), (after, paper), (gone, paper)}
        assert result.key_sets["k_mention_pair"] == len(moved_pairs)
        served = {(r, a) for r, a in conn.execute(
            "SELECT researcher_id, arxiv_id FROM serving.researcher_papers WHERE arxiv_id = %s", (paper,))}
        assert (after, paper) in served and (gone, paper) not in served
        listed = {e["position"]: e for e in conn.execute(
            "SELECT author_list FROM serving.papers WHERE arxiv_id = %s", (paper,)).fetchone()[0]}
        assert listed[position]["researcher_id"] == after
        assert listed[position]["researcher_slug"].startswith(f"{after}-")
        assert listed[unlinked]["researcher_id"] is None and listed[unlinked]["researcher_slug"] is None
        assert _rows(conn, tables.SCHEMA) == _full_build_rows(conn)


@pytest.mark.parametrize("change, reason", [
    (lambda url: publish(url, full=True), "requested"),
    (lambda url: publish(url, site_url="https://elsewhere.example"), "the site URL changed"),
])
def test_full_rebuild_when_asked_or_when_the_definition_inputs_change(database_url, small_world, change, reason):
    _small_world_published(database_url, small_world)
    assert change(database_url).reason == reason


def test_a_truncated_core_table_and_large_changes_fall_back_to_a_full_rebuild(database_url, small_world):
    _small_world_published(database_url, small_world)
    with db.transaction(database_url) as conn:
        conn.execute("TRUNCATE wove.researcher_coauthors")
    assert publish(database_url).reason == "a core table was truncated"
    with db.transaction(database_url) as conn:
        conn.execute("UPDATE wove.s2_papers SET citation_count = citation_count + 1")  # every paper's citations
    result = publish(database_url)
    assert result.mode == "full" and result.reason.startswith("more than 20%")


def test_readers_see_the_old_or_the_new_publication_during_incremental_publishes(database_url, small_world):
    _small_world_published(database_url, small_world)
    stop = threading.Event()
    seen, errors = [], []

    def reader():
        with psycopg.connect(database_url, autocommit=True) as conn:
            while not stop.is_set():
                try:
                    seen.append(conn.execute(
                        "SELECT p.publication_id, p.row_counts, (SELECT count(*) FROM serving.papers),"
                        " (SELECT count(*) FROM serving.researcher_papers), (SELECT count(*) FROM serving.paper_routes)"
                        " FROM serving.publication p").fetchone())
                except psycopg.Error as exc:  # never expected
                    errors.append(exc)

    t = threading.Thread(target=reader)
    t.start()
    try:
        for _ in range(3):
            with db.transaction(database_url) as conn:
                # a few papers go: papers, their routes and researcher lists shrink together
                conn.execute("DELETE FROM wove.papers WHERE arxiv_id IN"
                             " (SELECT arxiv_id FROM wove.papers ORDER BY arxiv_id LIMIT 3)")
                metrics.update_metrics(conn)
            assert publish(database_url).mode == "incremental"
    finally:
        stop.set()
        t.join()
    assert not errors
    assert len({r[0] for r in seen}) >= 2
    for _, counts, papers, researcher_papers, routes in seen:
        assert (counts["papers"], counts["researcher_papers"], counts["paper_routes"]) == \
            (papers, researcher_papers, routes)


def test_a_failed_incremental_publish_leaves_the_publication_and_the_log_untouched(database_url, small_world,
                                                                                   monkeypatch):
    _small_world_published(database_url, small_world)
    with db.transaction(database_url) as conn:
        conn.execute("UPDATE wove.papers SET title = title || ' (v2)' WHERE arxiv_id ="
                     " (SELECT min(arxiv_id) FROM wove.papers)")
        before = _rows(conn, tables.SCHEMA)
        publication = conn.execute("SELECT * FROM serving.publication").fetchall()
        logged = conn.execute("SELECT count(*) FROM wove.serving_changes").fetchone()[0]
    apply = publishing._apply

    def fail_after_papers(conn, t, *args):
        if t.name == "researchers":
            raise RuntimeError("boom")
        return apply(conn, t, *args)

    monkeypatch.setattr(publishing, "_apply", fail_after_papers)
    with pytest.raises(RuntimeError):
        publish(database_url)
    with db.connect(database_url) as conn:
        assert _rows(conn, tables.SCHEMA) == before  # papers were rewritten, then rolled back
        assert conn.execute("SELECT * FROM serving.publication").fetchall() == publication
        assert conn.execute("SELECT count(*) FROM wove.serving_changes").fetchone()[0] == logged > 0
    monkeypatch.setattr(publishing, "_apply", apply)
    result = publish(database_url)
    assert result.mode == "incremental" and result.rows_written["papers"] == {"deleted": 1, "inserted": 1}
