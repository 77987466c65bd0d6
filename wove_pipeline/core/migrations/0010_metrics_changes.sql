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
ALTER FUNCTION wove.serving_log_changes() RENAME TO log_changes;

CREATE OR REPLACE FUNCTION wove.log_changes() RETURNS trigger
    LANGUAGE plpgsql AS $$
DECLARE
    ignored text[] := string_to_array(TG_ARGV[0], ',');
    both_logs constant text :=
        ' s AS (INSERT INTO wove.serving_changes (kind, key) SELECT kind, key FROM c)'
        ' INSERT INTO wove.metrics_changes (kind, key) SELECT kind, key FROM c'
        ' WHERE kind IN (''paper'', ''authorship'', ''researcher'', ''s2_author'', ''openalex_author'')';
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        INSERT INTO wove.serving_changes (kind, key) VALUES ('truncate', TG_TABLE_NAME);
        INSERT INTO wove.metrics_changes (kind, key) VALUES ('truncate', TG_TABLE_NAME);
        RETURN NULL;
    END IF;
    FOR i IN 1 .. (TG_NARGS - 1) / 2 LOOP
        IF TG_OP = 'UPDATE' THEN
            -- rows as JSON without the ignored columns: those that differ, before and after
            EXECUTE format(
                'WITH c AS (SELECT DISTINCT %L AS kind, d.r ->> %L AS key FROM ('
                '(SELECT to_jsonb(n) - $1 FROM new_rows n EXCEPT SELECT to_jsonb(o) - $1 FROM old_rows o)'
                ' UNION ALL '
                '(SELECT to_jsonb(o) - $1 FROM old_rows o EXCEPT SELECT to_jsonb(n) - $1 FROM new_rows n)'
                ') d(r) WHERE d.r ->> %L IS NOT NULL),' || both_logs,
                TG_ARGV[2 * i - 1], TG_ARGV[2 * i], TG_ARGV[2 * i]) USING ignored;
        ELSE
            -- every row inserted or deleted: the key column alone (cheap on bulk loads)
            EXECUTE format(
                'WITH c AS (SELECT DISTINCT %L AS kind, t.%I::text AS key FROM %I t WHERE t.%I IS NOT NULL),'
                || both_logs,
                TG_ARGV[2 * i - 1], TG_ARGV[2 * i], CASE TG_OP WHEN 'INSERT' THEN 'new_rows' ELSE 'old_rows' END,
                TG_ARGV[2 * i]);
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;

-- Author records and OpenAlex redirects: the metrics read them, serving does not (their
-- keys in serving's log match none of its key sets).
DO $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT * FROM (VALUES
        ('s2_authors',                ARRAY['', 's2_author', 'author_id']),
        ('openalex_authors',          ARRAY['', 'openalex_author', 'author_id']),
        ('openalex_author_redirects', ARRAY['', 'openalex_author', 'old_author_id', 'openalex_author', 'new_author_id'])
    ) v(name, args)
    LOOP
        EXECUTE format('CREATE TRIGGER log_insert AFTER INSERT ON wove.%I REFERENCING NEW TABLE AS new_rows'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION wove.log_changes(%s)',
                       t.name, (SELECT string_agg(quote_literal(a), ', ') FROM unnest(t.args) a));
        EXECUTE format('CREATE TRIGGER log_update AFTER UPDATE ON wove.%I'
                       ' REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION wove.log_changes(%s)',
                       t.name, (SELECT string_agg(quote_literal(a), ', ') FROM unnest(t.args) a));
        EXECUTE format('CREATE TRIGGER log_delete AFTER DELETE ON wove.%I REFERENCING OLD TABLE AS old_rows'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION wove.log_changes(%s)',
                       t.name, (SELECT string_agg(quote_literal(a), ', ') FROM unnest(t.args) a));
        EXECUTE format('CREATE TRIGGER log_truncate AFTER TRUNCATE ON wove.%I'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION wove.log_changes(%s)',
                       t.name, (SELECT string_agg(quote_literal(a), ', ') FROM unnest(t.args) a));
    END LOOP;
END
$$;

-- The stamps' indexes served only that detection (every write paid for them).
DROP INDEX wove.researcher_mentions_matched_at_idx;
DROP INDEX wove.s2_papers_fetched_at_idx;
DROP INDEX wove.openalex_works_fetched_at_idx;
DROP INDEX wove.s2_authors_fetched_at_idx;
DROP INDEX wove.openalex_authors_fetched_at_idx;
DROP INDEX wove.researchers_updated_at_idx;

-- Changes made before this migration are in no log: the next metrics run is a full one.
DELETE FROM wove.metrics_runs;
