-- wove.researcher_metrics' row count kept as 0031 keeps paper_authors' and researchers': the
-- researcher_metrics asset reports it (dagster/row_count, which its row-count-drop check
-- compares day to day), and counting the table was the day's one whole-table read left (2.5
-- million rows, 7,181 pages, in the day after 1,000,000 papers: a cost that grows with the
-- archive). The same statement triggers; recount_rows() counts the three tables.
CREATE OR REPLACE FUNCTION wove.recount_rows() RETURNS void LANGUAGE sql AS $$
    DELETE FROM wove.row_counts;
    INSERT INTO wove.row_counts (table_name, delta)
    VALUES ('paper_authors', (SELECT count(*) FROM wove.paper_authors)),
           ('researchers', (SELECT count(*) FROM wove.researchers)),
           ('researcher_metrics', (SELECT count(*) FROM wove.researcher_metrics));
$$;

CREATE TRIGGER row_counts_inserted AFTER INSERT ON wove.researcher_metrics REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION wove.row_counts_inserted();
CREATE TRIGGER row_counts_deleted AFTER DELETE ON wove.researcher_metrics REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION wove.row_counts_deleted();
CREATE TRIGGER row_counts_truncated AFTER TRUNCATE ON wove.researcher_metrics
    FOR EACH STATEMENT EXECUTE FUNCTION wove.row_counts_truncated();

SELECT wove.recount_rows();
