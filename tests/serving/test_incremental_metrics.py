"""Property: after random daily updates, the incremental metrics equal a full recompute.

Each simulated day loads that day's papers (new researchers, mentions, authorships) and
applies random changes the upstream stages make: citation refreshes, author-record
refreshes, merges (mentions moved, the old id redirected), splits, re-matched positions,
changed institutions (one with no fresh stamp, as an operator's edit would be), re-harvested
papers with a new primary category, unmatched positions. After every day's incremental
run, a full recompute (rolled back) must give exactly the same rows. Detection rests on
the change log alone (migration 0010), not on row stamps.
"""

from __future__ import annotations

import collections
import datetime as dt
import random

import psycopg
import pytest

from wove_pipeline.database import access as db
from wove_pipeline.metrics import compute as metrics

from .world_db import load_papers, load_static, papers_by_day


def _full_equals_incremental(conn) -> tuple[dict, dict]:
    incremental = metrics.metrics_snapshot(conn)
    with conn.transaction() as tx:
        metrics.recompute_all(conn)
        full = metrics.metrics_snapshot(conn)
        raise psycopg.Rollback(tx)
    return incremental, full


# Independent of the state tables and of the difference bookkeeping: straight from the
# mentions, authorships, papers and citations.
REFERENCE = {
    "researcher_coauthors": """
        SELECT a.researcher_id, b.researcher_id, count(DISTINCT a.arxiv_id)::int
        FROM wove.researcher_mentions a
        JOIN wove.researcher_mentions b ON b.arxiv_id = a.arxiv_id AND b.researcher_id <> a.researcher_id
        JOIN wove.papers p ON p.arxiv_id = a.arxiv_id
        WHERE (SELECT count(*) FROM wove.paper_authors pa WHERE pa.arxiv_id = a.arxiv_id) <= %(max_authors)s
        GROUP BY 1, 2 ORDER BY 1, 2""",
    "institution_metrics": """
        WITH ip AS (SELECT DISTINCT i AS institution_id, a.arxiv_id
                    FROM wove.authorships a CROSS JOIN LATERAL unnest(a.institution_ids) AS i
                    JOIN wove.papers p ON p.arxiv_id = a.arxiv_id),
             people AS (SELECT i AS institution_id, count(DISTINCT m.researcher_id)::int AS researchers
                        FROM wove.authorships a CROSS JOIN LATERAL unnest(a.institution_ids) AS i
                        JOIN wove.researcher_mentions m ON m.arxiv_id = a.arxiv_id AND m.position = a.position
                        JOIN wove.papers p ON p.arxiv_id = a.arxiv_id
                        GROUP BY 1)
        SELECT ip.institution_id, count(*)::int, coalesce(max(pe.researchers), 0),
               coalesce(sum(pc.cited_by_count), 0)::bigint, min(p.published), max(p.published)
        FROM ip JOIN wove.papers p ON p.arxiv_id = ip.arxiv_id
        LEFT JOIN wove.paper_citations pc ON pc.arxiv_id = ip.arxiv_id
        LEFT JOIN people pe ON pe.institution_id = ip.institution_id
        GROUP BY ip.institution_id ORDER BY 1""",
}


# The external record shown per researcher, straight from the links (mentions' authorships,
# the researcher row's ids; OpenAlex ids through their redirects) and the records held:
# the one with an h-index, S2 first, most mentions, most works, smallest id.
EXT_REFERENCE = """
    WITH links AS (
        SELECT m.researcher_id, 's2' AS source, a.s2_author_id AS author_id, 1 AS n
        FROM wove.researcher_mentions m JOIN wove.authorships a USING (arxiv_id, position)
        WHERE a.s2_author_id IS NOT NULL
        UNION ALL
        SELECT m.researcher_id, 'openalex', coalesce(rd.new_author_id, a.openalex_author_id), 1
        FROM wove.researcher_mentions m JOIN wove.authorships a USING (arxiv_id, position)
        LEFT JOIN wove.openalex_author_redirects rd ON rd.old_author_id = a.openalex_author_id
        WHERE a.openalex_author_id IS NOT NULL
        UNION ALL
        SELECT r.researcher_id, 's2', x.id, 0 FROM wove.researchers r, unnest(r.s2_author_ids) AS x(id)
        UNION ALL
        SELECT r.researcher_id, 'openalex', coalesce(rd.new_author_id, x.id), 0
        FROM wove.researchers r CROSS JOIN LATERAL unnest(r.openalex_author_ids) AS x(id)
        LEFT JOIN wove.openalex_author_redirects rd ON rd.old_author_id = x.id
    ),
    counted AS (
        SELECT researcher_id, source, author_id, sum(n) AS mentions FROM links
        WHERE researcher_id IN (SELECT researcher_id FROM wove.researcher_mentions)
        GROUP BY 1, 2, 3
    ),
    held AS (
        SELECT c.*, s.h_index, s.citation_count AS citations, s.paper_count AS works, s.as_of
        FROM counted c JOIN wove.s2_authors s ON c.source = 's2' AND s.author_id = c.author_id
        UNION ALL
        SELECT c.*, o.h_index, o.cited_by_count, o.works_count, o.as_of
        FROM counted c JOIN wove.openalex_authors o ON c.source = 'openalex' AND o.author_id = c.author_id
    )
    SELECT DISTINCT ON (researcher_id) researcher_id, source, author_id, h_index, citations, works, as_of
    FROM held
    ORDER BY researcher_id, h_index IS NULL, source <> 's2', mentions DESC, works DESC NULLS LAST, author_id"""


def _random_updates(conn, rng: random.Random, day: dt.date, next_id: list[int]) -> collections.Counter:
    done = collections.Counter()
    q = lambda text, params=None: conn.execute(text, params).fetchall()  # noqa: E731
    # citation refresh of old papers (S2 and OpenAlex)
    for (arxiv_id,) in rng.sample(q("SELECT arxiv_id FROM wove.s2_papers ORDER BY 1"), 5):
        conn.execute("UPDATE wove.s2_papers SET citation_count = citation_count + %s, as_of = %s, fetched_at = now()"
                     " WHERE arxiv_id = %s", (rng.randint(1, 40), day, arxiv_id))
        done["s2_citations"] += 1
    for (arxiv_id,) in rng.sample(q("SELECT arxiv_id FROM wove.openalex_works ORDER BY 1"), 3):
        conn.execute("DELETE FROM wove.s2_papers WHERE arxiv_id = %s", (arxiv_id,))  # S2 lost it: OpenAlex counts
        conn.execute("UPDATE wove.openalex_works SET cited_by_count = cited_by_count + 7, as_of = %s,"
                     " fetched_at = now() WHERE arxiv_id = %s", (day, arxiv_id))
        done["openalex_citations"] += 1
    # author-record refresh
    for (aid,) in rng.sample(q("SELECT author_id FROM wove.s2_authors ORDER BY 1"), 10):
        conn.execute("UPDATE wove.s2_authors SET h_index = h_index + 1, citation_count = citation_count + 5,"
                     " as_of = %s, fetched_at = now() WHERE author_id = %s", (day, aid))
        done["s2_authors"] += 1
    # merge two same-name researchers: mentions move, the loser is redirected
    groups = q("SELECT normalized_name, array_agg(researcher_id ORDER BY researcher_id) FROM wove.researchers"
               " GROUP BY 1 HAVING count(*) > 1 ORDER BY 1")
    if groups:
        _, ids = rng.choice(groups)
        keep, lose = ids[0], ids[1]
        conn.execute("UPDATE wove.researcher_mentions SET researcher_id = %s, matched_at = now()"
                     " WHERE researcher_id = %s AND NOT EXISTS (SELECT 1 FROM wove.researcher_mentions x"
                     " WHERE x.researcher_id = %s AND x.arxiv_id = researcher_mentions.arxiv_id)", (keep, lose, keep))
        conn.execute("UPDATE wove.researcher_mentions SET researcher_id = %s, matched_at = now()"
                     " WHERE researcher_id = %s", (keep, lose))
        conn.execute("UPDATE wove.researchers SET updated_at = now(), s2_author_ids = s2_author_ids ||"
                     " (SELECT s2_author_ids FROM wove.researchers WHERE researcher_id = %s) WHERE researcher_id = %s",
                     (lose, keep))
        conn.execute("DELETE FROM wove.researchers WHERE researcher_id = %s", (lose,))
        conn.execute("INSERT INTO wove.researcher_redirects (old_id, new_id, reason) VALUES (%s, %s, 'merge')",
                     (lose, keep))
        done["merges"] += 1
    # split: one paper of a multi-paper researcher goes to a new profile
    many = q("SELECT researcher_id FROM wove.researcher_mentions GROUP BY 1 HAVING count(*) > 2 ORDER BY 1")
    rid = rng.choice(many)[0]
    arxiv_id, position = rng.choice(q("SELECT arxiv_id, position FROM wove.researcher_mentions"
                                      " WHERE researcher_id = %s ORDER BY 1, 2", (rid,)))
    new = next_id[0]
    next_id[0] += 1
    conn.execute("INSERT INTO wove.researchers (researcher_id, display_name, normalized_name, mention_count)"
                 " SELECT %s, display_name, normalized_name, 1 FROM wove.researchers WHERE researcher_id = %s", (new, rid))
    conn.execute("UPDATE wove.researcher_mentions SET researcher_id = %s, matched_at = now()"
                 " WHERE arxiv_id = %s AND position = %s", (new, arxiv_id, position))
    done["splits"] += 1
    # an author position re-matched to someone else who already exists
    a, pos = rng.choice(q("SELECT arxiv_id, position FROM wove.researcher_mentions ORDER BY 1, 2"))
    other = rng.choice(q("SELECT researcher_id FROM wove.researchers ORDER BY 1"))[0]
    conn.execute("UPDATE wove.researcher_mentions SET researcher_id = %s, matched_at = now(), outcome = 'override'"
                 " WHERE arxiv_id = %s AND position = %s", (other, a, pos))
    done["rematched"] += 1
    # an authorship's institutions change (re-alignment)
    a, pos = rng.choice(q("SELECT arxiv_id, position FROM wove.authorships ORDER BY 1, 2"))
    inst = rng.choice(q("SELECT institution_id FROM wove.institutions ORDER BY 1"))[0]
    conn.execute("UPDATE wove.authorships SET institution_ids = ARRAY[%s], aligned_at = now()"
                 " WHERE arxiv_id = %s AND position = %s", (inst, a, pos))
    done["institutions"] += 1
    # the same by hand: no stamp moves (its own random stream: the others' draws stay as they were)
    a, pos = random.Random(day.toordinal()).choice(q("SELECT arxiv_id, position FROM wove.authorships ORDER BY 1, 2"))
    conn.execute("UPDATE wove.authorships SET institution_ids = ARRAY[%s] WHERE arxiv_id = %s AND position = %s",
                 (inst, a, pos))
    done["institutions_unstamped"] += 1
    # a re-harvested paper (new OAI datestamp) with another primary category
    arxiv_id = rng.choice(q("SELECT arxiv_id FROM wove.papers WHERE cardinality(categories) > 1 ORDER BY 1"))[0]
    conn.execute("UPDATE wove.papers SET categories = categories[2:] || categories[1:1],"
                 " primary_category = categories[2], oai_datestamp = %s WHERE arxiv_id = %s", (day, arxiv_id))
    done["recategorized"] += 1
    # a position unmatched (the matcher recounts its researcher's mentions)
    a, pos, rid = rng.choice(q("SELECT arxiv_id, position, researcher_id FROM wove.researcher_mentions ORDER BY 1, 2"))
    conn.execute("DELETE FROM wove.researcher_mentions WHERE arxiv_id = %s AND position = %s", (a, pos))
    conn.execute("UPDATE wove.researchers SET mention_count = mention_count - 1, updated_at = now()"
                 " WHERE researcher_id = %s", (rid,))
    done["unmatched"] += 1
    return done


@pytest.mark.parametrize("seed", [1, 2])
def test_incremental_equals_full_recompute_after_random_days(database_url, small_world, seed):
    rng = random.Random(seed)
    by_day = papers_by_day(small_world)
    days = list(by_day)
    known: set[int] = set()
    next_id = [900_000]
    runs = []
    with db.connect(database_url, autocommit=True) as conn:
        with conn.transaction():
            load_static(conn, small_world)
            known |= load_papers(conn, small_world, by_day[days[0]])
        with conn.transaction():
            runs.append(metrics.update_metrics(conn))
        assert runs[0].mode == "full"
        for day in days[1:]:
            with conn.transaction():
                known |= load_papers(conn, small_world, by_day[day], researchers_known=known)
                # new mentions of a merged-away profile go to the survivor (as the matcher does)
                while conn.execute("UPDATE wove.researcher_mentions m SET researcher_id = r.new_id"
                                   " FROM wove.researcher_redirects r WHERE m.researcher_id = r.old_id").rowcount:
                    pass
                _random_updates(conn, rng, day, next_id)
            with conn.transaction():
                run = metrics.update_metrics(conn)
            runs.append(run)
            assert run.mode == "incremental"
            incremental, full = _full_equals_incremental(conn)
            for table in incremental:
                diff = sorted(set(incremental[table]) ^ set(full[table]))
                assert not diff, f"{table} differs after {day}: {diff[:4]}"
            for table, query in REFERENCE.items():
                expected = conn.execute(query, {"max_authors": metrics.MAX_COAUTHOR_AUTHORS}).fetchall()
                assert incremental[table] == expected, f"{table} differs from the reference after {day}"
            chosen = conn.execute("SELECT researcher_id, ext_source, ext_author_id, ext_h_index, ext_citations,"
                                  " ext_works, ext_as_of FROM wove.researcher_metrics"
                                  " WHERE ext_source IS NOT NULL ORDER BY 1").fetchall()
            assert chosen and chosen == conn.execute(EXT_REFERENCE).fetchall(), f"external records differ after {day}"
        total = conn.execute("SELECT count(*) FROM wove.researchers").fetchone()[0]
    # incremental runs touch a fraction of the researchers, not all of them
    assert all(0 < r.researchers_recomputed < total for r in runs[1:])
    assert sum(r.papers_patched for r in runs[1:]) > 0  # papers whose only change was links among them


def _load_all_and_measure(conn, world) -> None:
    """The whole world loaded, then its first (full) metrics run."""
    with conn.transaction():
        load_static(conn, world)
        load_papers(conn, world, world.papers)
    with conn.transaction():
        metrics.update_metrics(conn)


def test_a_run_with_nothing_changed_recomputes_nothing(database_url, small_world):
    with db.connect(database_url, autocommit=True) as conn:
        _load_all_and_measure(conn, small_world)
        with conn.transaction():
            run = metrics.update_metrics(conn)  # an empty log: nothing to check
    assert (run.papers_changed, run.researchers_recomputed, run.institutions_recomputed) == (0, 0, 0)
    assert set(run.phases) == {"detect", "paper_states", "coauthors_institutions", "researchers", "fingerprints"}


def test_a_change_committed_while_a_run_ran_is_in_the_next_run(database_url, small_world):
    """A writer stamps its rows before it commits: one that commits after a run started
    (its stamps older than that run) is still seen by the next run, through the log."""
    with db.connect(database_url, autocommit=True) as conn, db.connect(database_url, autocommit=True) as writer:
        _load_all_and_measure(conn, small_world)
        arxiv_id, position = conn.execute("SELECT arxiv_id, position FROM wove.authorships a WHERE EXISTS"
                                          " (SELECT 1 FROM wove.researcher_mentions m WHERE m.arxiv_id = a.arxiv_id"
                                          " AND m.position = a.position) ORDER BY 1, 2 LIMIT 1").fetchone()
        inst = conn.execute("SELECT institution_id FROM wove.institutions ORDER BY 1 LIMIT 1").fetchone()[0]
        before = metrics.metrics_snapshot(conn)["institution_metrics"]
        with writer.transaction():
            writer.execute("UPDATE wove.authorships SET institution_ids = ARRAY[%s], aligned_at = now()"
                           " WHERE arxiv_id = %s AND position = %s", (inst, arxiv_id, position))
            with conn.transaction():
                during = metrics.update_metrics(conn)  # the write is not committed yet
        with conn.transaction():
            after = metrics.update_metrics(conn)
        incremental, full = _full_equals_incremental(conn)
    assert during.papers_changed == 0 and after.papers_changed == 1
    assert incremental == full and incremental["institution_metrics"] != before


def test_a_moved_position_recomputes_who_it_left_and_joined_not_the_co_authors(database_url, small_world):
    """A merge moves a position from one researcher to another: on its paper only those two
    are recomputed (the co-authors' own positions, the paper's day, category and counts held),
    and the rows still equal a full recompute. A paper whose facts moved recomputes everyone."""
    with db.connect(database_url, autocommit=True) as conn:
        _load_all_and_measure(conn, small_world)
        arxiv_id, position, left = conn.execute(
            "SELECT m.arxiv_id, m.position, m.researcher_id FROM wove.researcher_mentions m"
            " WHERE (SELECT count(DISTINCT x.researcher_id) FROM wove.researcher_mentions x"
            "        WHERE x.arxiv_id = m.arxiv_id) >= 4"
            " ORDER BY 1, 2 LIMIT 1").fetchone()
        co_authors = {r[0] for r in conn.execute("SELECT researcher_id FROM wove.researcher_mentions"
                                                 " WHERE arxiv_id = %s AND researcher_id <> %s", (arxiv_id, left))}
        joined = conn.execute("SELECT min(researcher_id) FROM wove.researchers WHERE researcher_id <> ALL(%s)",
                              (sorted(co_authors | {left}),)).fetchone()[0]
        with conn.transaction():
            conn.execute("UPDATE wove.researcher_mentions SET researcher_id = %s, matched_at = now()"
                         " WHERE arxiv_id = %s AND position = %s", (joined, arxiv_id, position))
        with conn.transaction():
            moved = metrics.update_metrics(conn)
        assert (moved.papers_changed, sorted(moved.affected_researchers)) == (1, sorted({left, joined}))
        assert moved.papers_patched == 1  # its state patched at the moved link, not computed whole
        incremental, full = _full_equals_incremental(conn)
        assert incremental == full  # the paper states included

        with conn.transaction():  # the paper re-harvested in another category: everyone on it
            conn.execute("UPDATE wove.papers SET primary_category = 'hep-ex', categories = ARRAY['hep-ex']"
                         " || categories WHERE arxiv_id = %s", (arxiv_id,))
        with conn.transaction():
            recategorized = metrics.update_metrics(conn)
        incremental, full = _full_equals_incremental(conn)
    assert sorted(recategorized.affected_researchers) == sorted(co_authors | {joined})
    assert recategorized.papers_patched == 0
    assert incremental == full


def test_h_index():
    assert metrics.h_index([]) == 0
    assert metrics.h_index([0, 0]) == 0
    assert metrics.h_index([10, 8, 5, 4, 3]) == 4
    assert metrics.h_index([25, 8, 5, 3, 3]) == 3
    assert metrics.h_index([None, 1, 1]) == 1
    assert metrics.h_index([100]) == 1
