-- The matcher's own change log (core/researchers_load.py). A matching run found the papers
-- whose author inputs moved by fingerprinting every paper in the archive against the
-- fingerprint kept at its last match (wove.matching_state.inputs): one scan of all papers,
-- their authors, authorships and links every day (1.1 s at 100k papers, growing with the
-- archive). Now the triggers that log serving's and the metrics' keys (0009, 0010) also
-- log the papers the fingerprint reads (papers, paper_authors, authorships and
-- researcher_mentions, each keyed by arxiv_id), in the writer's transaction: a run takes
-- the keys it can see out of this log and fingerprints those papers only. The comparison
-- with the stored fingerprint stays, so a write that changed nothing the matcher reads
-- re-decides nothing.
CREATE TABLE wove.matching_changes (
    kind  text NOT NULL,   -- 'paper' (key: arxiv_id) or 'truncate' (key: the table)
    key   text NOT NULL
);

CREATE OR REPLACE FUNCTION wove.log_changes() RETURNS trigger
    LANGUAGE plpgsql AS $$
DECLARE
    ignored text[] := string_to_array(TG_ARGV[0], ',');
    -- the matcher's fingerprint reads these tables (every one keyed by arxiv_id there)
    matched constant boolean := TG_TABLE_NAME IN ('papers', 'paper_authors', 'authorships', 'researcher_mentions');
    logs text :=
        ' s AS (INSERT INTO wove.serving_changes (kind, key) SELECT kind, key FROM c)'
        || CASE WHEN matched THEN
            ', m AS (INSERT INTO wove.matching_changes (kind, key) SELECT DISTINCT ''paper'', key FROM c'
            ' WHERE kind IN (''paper'', ''authorship''))' ELSE '' END
        || ' INSERT INTO wove.metrics_changes (kind, key) SELECT kind, key FROM c'
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
        IF matched THEN
            INSERT INTO wove.matching_changes (kind, key) VALUES ('truncate', TG_TABLE_NAME);
        END IF;
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
                ') d(r) WHERE %s),' || logs,
                TG_ARGV[2 * i - 1], json_key, json_present) USING ignored;
        ELSE
            -- every row inserted or deleted: the key columns alone (cheap on bulk loads)
            EXECUTE format(
                'WITH c AS (SELECT DISTINCT %L AS kind, %s AS key FROM %I t WHERE %s),' || logs,
                TG_ARGV[2 * i - 1], row_key, CASE TG_OP WHEN 'INSERT' THEN 'new_rows' ELSE 'old_rows' END,
                row_present);
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;

-- Changes made before this migration are in no log: every paper is fingerprinted once more.
INSERT INTO wove.matching_changes (kind, key) SELECT 'paper', arxiv_id FROM wove.papers;
