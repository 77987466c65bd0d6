-- Row counts of wove.paper_authors and wove.researchers, kept as the statements change them, so
-- that a matching run reports its totals (author positions, researchers: the researchers
-- asset's dagster/row_count) without counting every row. Issue 22: the day after 1,000,000
-- papers spent 1.2 s counting 10.8 million author positions (about 1.4 GiB read, cold), the
-- one whole-table read left in a day, and it grows with the archive.
--
-- One row per changing statement (its table and the rows it added or removed), written by
-- statement triggers, so that writers never wait on one another for a counter row; the
-- reader sums them and folds them into one row per table (match_state.totals, under the
-- matching runs' lock). Every writer keeps them, as wove.profile_keys is kept: the harvest,
-- the matching runs, a cascade, a bench's COPY. An update changes no count. TRUNCATE empties
-- the table's rows (it holds the table's exclusive lock: no other writer is in flight).
-- wove.recount_rows() counts both tables again: after writes with triggers off (a bench's
-- copies under session_replication_role = replica), and here to start.
CREATE TABLE wove.row_counts (
    table_name  text NOT NULL,
    delta       bigint NOT NULL
);

CREATE FUNCTION wove.row_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO wove.row_counts (table_name, delta)
    SELECT TG_TABLE_NAME, count(*) FROM new_rows HAVING count(*) > 0;
    RETURN NULL;
END $$;

CREATE FUNCTION wove.row_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO wove.row_counts (table_name, delta)
    SELECT TG_TABLE_NAME, -count(*) FROM old_rows HAVING count(*) > 0;
    RETURN NULL;
END $$;

CREATE FUNCTION wove.row_counts_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM wove.row_counts WHERE table_name = TG_TABLE_NAME;
    RETURN NULL;
END $$;

CREATE FUNCTION wove.recount_rows() RETURNS void LANGUAGE sql AS $$
    DELETE FROM wove.row_counts;
    INSERT INTO wove.row_counts (table_name, delta)
    VALUES ('paper_authors', (SELECT count(*) FROM wove.paper_authors)),
           ('researchers', (SELECT count(*) FROM wove.researchers));
$$;

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['paper_authors', 'researchers'] LOOP
        EXECUTE format('CREATE TRIGGER row_counts_inserted AFTER INSERT ON wove.%I REFERENCING NEW TABLE AS new_rows'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION wove.row_counts_inserted()', t);
        EXECUTE format('CREATE TRIGGER row_counts_deleted AFTER DELETE ON wove.%I REFERENCING OLD TABLE AS old_rows'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION wove.row_counts_deleted()', t);
        EXECUTE format('CREATE TRIGGER row_counts_truncated AFTER TRUNCATE ON wove.%I'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION wove.row_counts_truncated()', t);
    END LOOP;
END $$;

SELECT wove.recount_rows();
