"""The change log (migration 0009): every write to a table serving reads leaves its keys."""

from __future__ import annotations

from wove_pipeline.database import access as db

from .world_db import load_papers, load_static


def _log(conn) -> set[tuple[str, str]]:
    return set(conn.execute("SELECT kind, key FROM wove.serving_changes").fetchall())


def test_writes_are_logged_with_their_keys_before_and_after(database_url, small_world):
    with db.connect(database_url, autocommit=True) as conn:
        with conn.transaction():
            load_static(conn, small_world)
            load_papers(conn, small_world, small_world.papers[:5])
        logged = _log(conn)
        assert {("paper", p.arxiv_id) for p in small_world.papers[:5]} <= logged
        assert any(kind == "mention_researcher" for kind, _ in logged)
        conn.execute("DELETE FROM wove.serving_changes")
        a, b = small_world.papers[0].arxiv_id, small_world.papers[1].arxiv_id
        # a change in an ignored column alone logs nothing; a real change logs old and new keys
        conn.execute("UPDATE wove.researchers SET mention_count = mention_count + 1, updated_at = now()")
        assert _log(conn) == set()
        rid, pos = conn.execute("SELECT researcher_id, position FROM wove.researcher_mentions"
                                " WHERE arxiv_id = %s ORDER BY position LIMIT 1", (a,)).fetchone()
        other = conn.execute("SELECT max(researcher_id) FROM wove.researchers").fetchone()[0]
        conn.execute("UPDATE wove.researcher_mentions SET researcher_id = %s WHERE arxiv_id = %s AND position = %s",
                     (other, a, pos))
        # a moved link: its paper, both researchers, both (researcher, paper) pairs, its
        # position; nothing that says the paper's own data changed (migration 0028)
        assert _log(conn) == {("paper", a), ("mention_researcher", str(rid)), ("mention_researcher", str(other)),
                              ("mention_pair", f"{rid}:{a}"), ("mention_pair", f"{other}:{a}"),
                              ("mention_position", f"{a}:{pos}")}
        conn.execute("DELETE FROM wove.serving_changes")
        conn.execute("UPDATE wove.s2_papers SET citation_count = citation_count WHERE arxiv_id = %s", (b,))
        assert _log(conn) == set()  # rewritten, unchanged
        conn.execute("UPDATE wove.s2_papers SET citation_count = citation_count + 1 WHERE arxiv_id = %s", (b,))
        assert _log(conn) == {("paper", b), ("paper_data", b)}
        conn.execute("DELETE FROM wove.papers WHERE arxiv_id = %s", (b,))  # cascades to paper_authors
        assert {("paper", b), ("paper_data", b), ("paper_row", b)} <= _log(conn)
        conn.execute("DELETE FROM wove.serving_changes")
        conn.execute("INSERT INTO wove.researcher_coauthors (researcher_id, coauthor_id, papers) VALUES (7, 8, 1)")
        assert _log(conn) == {("coauthor", "7"), ("coauthor", "8"), ("coauthor_pair", "7:8")}  # an edge, by pair
        conn.execute("DELETE FROM wove.serving_changes")
        conn.execute("UPDATE wove.researcher_coauthors SET papers = 2 WHERE researcher_id = 7")
        assert _log(conn) == {("coauthor", "7"), ("coauthor", "8"), ("coauthor_pair", "7:8")}
        conn.execute("DELETE FROM wove.serving_changes")
        conn.execute("INSERT INTO wove.researcher_redirects (old_id, new_id, reason) VALUES (5, 6, 'merge')")
        conn.execute("TRUNCATE wove.institution_metrics")
        assert _log(conn) == {("redirect", "5"), ("redirect", "6"), ("truncate", "institution_metrics")}


def test_the_metrics_log_gets_the_kinds_the_metrics_read(database_url, small_world):
    with db.connect(database_url, autocommit=True) as conn:
        with conn.transaction():
            load_static(conn, small_world)
            load_papers(conn, small_world, small_world.papers[:5])
        kinds = {kind for (kind,) in conn.execute("SELECT DISTINCT kind FROM wove.metrics_changes")}
        assert {"paper", "authorship", "researcher"} <= kinds
        assert "mention_researcher" not in kinds  # serving's alone
        conn.execute("DELETE FROM wove.metrics_changes")
        s2 = conn.execute("SELECT author_id FROM wove.s2_authors ORDER BY 1 LIMIT 1").fetchone()[0]
        conn.execute("UPDATE wove.s2_authors SET h_index = h_index + 1 WHERE author_id = %s", (s2,))
        conn.execute("INSERT INTO wove.openalex_author_redirects (old_author_id, new_author_id, as_of)"
                     " VALUES ('A-old', 'A-new', '2025-01-01')")
        assert set(conn.execute("SELECT kind, key FROM wove.metrics_changes").fetchall()) == {
            ("s2_author", s2), ("openalex_author", "A-old"), ("openalex_author", "A-new")}
