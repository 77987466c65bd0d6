-- The incremental publish rewrote every co-author edge of each researcher at either end of a
-- changed edge: a new paper of a prolific researcher re-read and compared all of their
-- hundreds of edges (in a 300k day's publish, 8 of 18 s). The edges' triggers now also log
-- each changed edge ('coauthor_pair', '<researcher_id>:<coauthor_id>'), and the publish
-- rewrites those edges and every edge of a researcher who appeared or went.
--
-- log_changes learns composite keys: a key column argument 'a+b' logs the values of a and
-- b joined by ':' (a row with either NULL logs nothing). One column logs as before.
CREATE OR REPLACE FUNCTION wove.log_changes() RETURNS trigger
    LANGUAGE plpgsql AS $$
DECLARE
    ignored text[] := string_to_array(TG_ARGV[0], ',');
    both_logs constant text :=
        ' s AS (INSERT INTO wove.serving_changes (kind, key) SELECT kind, key FROM c)'
        ' INSERT INTO wove.metrics_changes (kind, key) SELECT kind, key FROM c'
        ' WHERE kind IN (''paper'', ''authorship'', ''researcher'', ''s2_author'', ''openalex_author'')';
    cols text[];
    row_key text;
    row_present text;
    json_key text;
    json_present text;
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        INSERT INTO wove.serving_changes (kind, key) VALUES ('truncate', TG_TABLE_NAME);
        INSERT INTO wove.metrics_changes (kind, key) VALUES ('truncate', TG_TABLE_NAME);
        RETURN NULL;
    END IF;
    FOR i IN 1 .. (TG_NARGS - 1) / 2 LOOP
        cols := string_to_array(TG_ARGV[2 * i], '+');
        -- the key as text, from a transition row (t) or from its JSON (d.r), and its presence
        row_key := (SELECT string_agg(format('t.%I::text', c), ' || '':'' || ') FROM unnest(cols) c);
        row_present := (SELECT string_agg(format('t.%I IS NOT NULL', c), ' AND ') FROM unnest(cols) c);
        json_key := (SELECT string_agg(format('(d.r ->> %L)', c), ' || '':'' || ') FROM unnest(cols) c);
        json_present := (SELECT string_agg(format('d.r ->> %L IS NOT NULL', c), ' AND ') FROM unnest(cols) c);
        IF TG_OP = 'UPDATE' THEN
            -- rows as JSON without the ignored columns: those that differ, before and after
            EXECUTE format(
                'WITH c AS (SELECT DISTINCT %L AS kind, %s AS key FROM ('
                '(SELECT to_jsonb(n) - $1 FROM new_rows n EXCEPT SELECT to_jsonb(o) - $1 FROM old_rows o)'
                ' UNION ALL '
                '(SELECT to_jsonb(o) - $1 FROM old_rows o EXCEPT SELECT to_jsonb(n) - $1 FROM new_rows n)'
                ') d(r) WHERE %s),' || both_logs,
                TG_ARGV[2 * i - 1], json_key, json_present) USING ignored;
        ELSE
            -- every row inserted or deleted: the key columns alone (cheap on bulk loads)
            EXECUTE format(
                'WITH c AS (SELECT DISTINCT %L AS kind, %s AS key FROM %I t WHERE %s),' || both_logs,
                TG_ARGV[2 * i - 1], row_key, CASE TG_OP WHEN 'INSERT' THEN 'new_rows' ELSE 'old_rows' END,
                row_present);
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;

-- The edges' triggers with the pair added ('coauthor' per end stays: a researcher's page
-- shows their co-author count).
DO $$
DECLARE
    args text := (SELECT string_agg(quote_literal(a), ', ') FROM unnest(ARRAY[
        '', 'coauthor', 'researcher_id', 'coauthor', 'coauthor_id', 'coauthor_pair', 'researcher_id+coauthor_id']) a);
BEGIN
    DROP TRIGGER serving_log_insert ON wove.researcher_coauthors;
    DROP TRIGGER serving_log_update ON wove.researcher_coauthors;
    DROP TRIGGER serving_log_delete ON wove.researcher_coauthors;
    EXECUTE format('CREATE TRIGGER serving_log_insert AFTER INSERT ON wove.researcher_coauthors'
                   ' REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION wove.log_changes(%s)', args);
    EXECUTE format('CREATE TRIGGER serving_log_update AFTER UPDATE ON wove.researcher_coauthors'
                   ' REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows'
                   ' FOR EACH STATEMENT EXECUTE FUNCTION wove.log_changes(%s)', args);
    EXECUTE format('CREATE TRIGGER serving_log_delete AFTER DELETE ON wove.researcher_coauthors'
                   ' REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION wove.log_changes(%s)', args);
END
$$;
