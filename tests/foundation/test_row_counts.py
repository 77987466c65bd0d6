"""The row counts a matching run reports (match_state.totals) follow every write to
wove.paper_authors and wove.researchers without counting the tables (migration 0031)."""

import psycopg

from tests.reliability.test_checks import _insert_papers
from wove_pipeline.database import access as db
from wove_pipeline.matching.match_state import totals


def counted(conn) -> tuple[int, int]:
    return tuple(conn.execute("SELECT (SELECT count(*) FROM wove.paper_authors),"
                              " (SELECT count(*) FROM wove.researchers)").fetchone())


def test_totals_follow_inserts_deletes_cascades_and_truncates(database_url):
    with psycopg.connect(database_url) as conn:
        assert totals(conn) == counted(conn) == (0, 0)
        _insert_papers(conn, 1, 2)  # 2501.00001, 2501.00002
        conn.execute("INSERT INTO wove.paper_authors (arxiv_id, position, keyname)"
                     " SELECT p, g, 'Wang' FROM unnest(%s::text[]) p, generate_series(0, 2) g",
                     (["2501.00001", "2501.00002"],))
        with conn.cursor().copy("COPY wove.researchers (researcher_id, display_name, normalized_name,"
                                " mention_count) FROM STDIN") as copy:
            for rid in range(1, 6):
                copy.write_row((rid, f"R {rid}", f"r {rid}", 1))
        assert totals(conn) == counted(conn) == (6, 5)
        conn.execute("UPDATE wove.paper_authors SET keyname = 'Li'")  # an update counts nothing
        conn.execute("DELETE FROM wove.papers WHERE arxiv_id = '2501.00001'")  # cascades to its authors
        conn.execute("DELETE FROM wove.researchers WHERE researcher_id IN (1, 2)")
        conn.execute("DELETE FROM wove.researchers WHERE researcher_id = 99")  # no row: no count row
        assert totals(conn) == counted(conn) == (3, 3)
        # folded: one row a table, whatever wrote them
        assert conn.execute("SELECT table_name, delta FROM wove.row_counts ORDER BY 1").fetchall() == [
            ("paper_authors", 3), ("researcher_metrics", 0), ("researchers", 3)]
        conn.commit()  # (TRUNCATE refuses a transaction with deferred checks pending)
        conn.execute("TRUNCATE wove.researchers CASCADE")
        conn.execute("INSERT INTO wove.researchers (researcher_id, display_name, normalized_name, mention_count)"
                     " VALUES (7, 'R', 'r', 1)")
        assert totals(conn) == counted(conn) == (3, 1)
        conn.execute("DELETE FROM wove.row_counts")  # lost (written with triggers off): counted again
        conn.execute("SELECT wove.recount_rows()")
        assert totals(conn) == (3, 1)


def test_the_metrics_row_count_follows_its_writes(database_url):
    """researcher_metrics' dagster/row_count (its row-count-drop check) comes from the counts
    its writes keep (migration 0032), not a count of the table."""
    def add(conn, ids: list[int]) -> None:
        conn.execute("INSERT INTO wove.researcher_metrics (researcher_id, papers_here, archive_h_index,"
                     " archive_citations, archive_works, archive_cited_papers, position_first, position_middle,"
                     " position_last, position_papers_considered, position_papers_total, categories, institutions)"
                     " SELECT r, 1, 0, 0, 1, 0, 1, 0, 0, 1, 1, '[]', '[]' FROM unnest(%s::bigint[]) r", (ids,))

    def both(conn) -> tuple[int, int]:
        return db.kept_row_count(conn, "researcher_metrics"), conn.execute(
            "SELECT count(*) FROM wove.researcher_metrics").fetchone()[0]

    with psycopg.connect(database_url) as conn:
        assert both(conn) == (0, 0)
        conn.execute("INSERT INTO wove.researchers (researcher_id, display_name, normalized_name, mention_count)"
                     " SELECT g, 'R', 'r', 1 FROM generate_series(1, 4) g")
        add(conn, [1, 2, 3, 4])
        conn.execute("DELETE FROM wove.researcher_metrics WHERE researcher_id = 2")
        assert both(conn) == (3, 3)
        conn.execute("DELETE FROM wove.researchers WHERE researcher_id = 3")  # cascades to its metrics
        assert both(conn) == (2, 2)
        conn.commit()
        conn.execute("TRUNCATE wove.researcher_metrics")
        add(conn, [1])
        assert both(conn) == (1, 1)
        conn.execute("DELETE FROM wove.row_counts")
        conn.execute("SELECT wove.recount_rows()")
        assert both(conn) == (1, 1)
