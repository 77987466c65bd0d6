-- The metrics' own change log (core/metrics.py). A metrics run found what changed from row
-- stamps (fetched_at, matched_at, updated_at, ...) newer than its last watermark minus an
-- overlap: writers stamp rows before they commit, so without the overlap a run could miss
-- rows stamped before its watermark and committed after it; with it (24 h) every run
-- re-checked a day of other runs' work, and the day after a backfill the whole archive.
-- Now the triggers that log serving's keys (0009) log the keys the metrics read here too,
-- in the writer's transaction: a metrics run takes the rows it can see out of this log at
-- its start, and rows committed later stay for the next run.
CREATE TABLE wove.metrics_changes (
    kind  text NOT NULL,   -- 'paper', 'authorship', 'researcher', 's2_author', 'openalex_author', 'truncate'
    key   text NOT NULL
);

-- One trigger function for both logs (renamed: it is no longer serving's alone). Each
-- difference is computed once and inserted into both; the metrics log keeps only the kinds
-- the metrics read (their own writes, co-author edges for one, would otherwise come back).
-- A key column argument 'a+b' logs the values of a and b joined by ':' (a row with either
-- NULL logs nothing); one column logs as before.
ALTER FUNCTION wove.serving_log_changes() RENAME TO log_changes;

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

-- The four statement triggers (insert, update, delete, truncate) that log a table's writes
-- with these arguments (see log_changes), replacing any it had. For later migrations too.
CREATE FUNCTION wove.set_log_triggers(name text, args text[]) RETURNS void
    LANGUAGE plpgsql AS $$
DECLARE
    a text := (SELECT string_agg(quote_literal(x), ', ') FROM unnest(args) x);
BEGIN
    EXECUTE format('DROP TRIGGER IF EXISTS serving_log_insert ON wove.%I', name);
    EXECUTE format('DROP TRIGGER IF EXISTS serving_log_update ON wove.%I', name);
    EXECUTE format('DROP TRIGGER IF EXISTS serving_log_delete ON wove.%I', name);
    EXECUTE format('DROP TRIGGER IF EXISTS serving_log_truncate ON wove.%I', name);
    EXECUTE format('CREATE TRIGGER serving_log_insert AFTER INSERT ON wove.%I REFERENCING NEW TABLE AS new_rows'
                   ' FOR EACH STATEMENT EXECUTE FUNCTION wove.log_changes(%s)', name, a);
    EXECUTE format('CREATE TRIGGER serving_log_update AFTER UPDATE ON wove.%I'
                   ' REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows'
                   ' FOR EACH STATEMENT EXECUTE FUNCTION wove.log_changes(%s)', name, a);
    EXECUTE format('CREATE TRIGGER serving_log_delete AFTER DELETE ON wove.%I REFERENCING OLD TABLE AS old_rows'
                   ' FOR EACH STATEMENT EXECUTE FUNCTION wove.log_changes(%s)', name, a);
    EXECUTE format('CREATE TRIGGER serving_log_truncate AFTER TRUNCATE ON wove.%I'
                   ' FOR EACH STATEMENT EXECUTE FUNCTION wove.log_changes(%s)', name, a);
END
$$;

-- Author records and OpenAlex redirects: the metrics read them, serving does not (their
-- keys in serving's log match none of its key sets).
SELECT wove.set_log_triggers('s2_authors', ARRAY['', 's2_author', 'author_id']);
SELECT wove.set_log_triggers('openalex_authors', ARRAY['', 'openalex_author', 'author_id']);
SELECT wove.set_log_triggers('openalex_author_redirects',
                             ARRAY['', 'openalex_author', 'old_author_id', 'openalex_author', 'new_author_id']);

-- Co-author edges also log each edge ('coauthor_pair', '<researcher_id>:<coauthor_id>'): an
-- incremental publish rewrites those edges, not every edge of both ends (a new paper of a
-- prolific researcher re-read all their hundreds; in a 300k day's publish, 8 of 18 s).
-- 'coauthor' per end stays: a researcher's page shows their co-author count.
SELECT wove.set_log_triggers('researcher_coauthors', ARRAY[
    '', 'coauthor', 'researcher_id', 'coauthor', 'coauthor_id', 'coauthor_pair', 'researcher_id+coauthor_id']);

-- The stamps' indexes served only that detection (every write paid for them).
DROP INDEX wove.researcher_mentions_matched_at_idx;
DROP INDEX wove.s2_papers_fetched_at_idx;
DROP INDEX wove.openalex_works_fetched_at_idx;
DROP INDEX wove.s2_authors_fetched_at_idx;
DROP INDEX wove.openalex_authors_fetched_at_idx;
DROP INDEX wove.researchers_updated_at_idx;

-- Changes made before this migration are in no log: the next metrics run is a full one.
DELETE FROM wove.metrics_runs;
