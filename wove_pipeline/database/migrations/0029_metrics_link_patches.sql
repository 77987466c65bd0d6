-- The metrics' paper states patched for a moved link (issue 22).
--
-- A day's matching that merges two researchers moves every link of the retired one, and each
-- collaboration paper it was on (1,000-3,000 authors) became a candidate whose whole state was
-- computed again: every position's link, authorship and institutions read and aggregated. On
-- the day after 1,000,000 papers, 216 old papers with 376 moved links cost 9.2 s of the
-- metrics' 13.4 s.
--
-- The metrics log now also keeps 'paper_data' (a write to the paper's own row, authors or
-- citations: 0028) and 'mention_pair' ('<researcher_id>:<arxiv_id>' of each link written,
-- before and after). A paper whose only change is links has its state patched: the digests
-- of the researchers whose links there moved are taken again from their positions on it, and
-- the paper's counts, researchers, institution pairs and structure follow from its digests
-- (each digest now counts its positions, and the authorships' part of the structure is kept
-- as aligned_digest), so the patched state equals the one computed whole.
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
        ' WHERE kind IN (''paper'', ''authorship'', ''researcher'', ''s2_author'', ''openalex_author'','
        ' ''paper_data'', ''mention_pair'')';
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

-- (researcher_id, arxiv_id): a moved researcher's positions on one paper, without reading
-- every paper of a prolific researcher (the serving publish's researcher_papers pairs too)
CREATE INDEX researcher_mentions_researcher_paper_idx ON wove.researcher_mentions (researcher_id, arxiv_id);
DROP INDEX wove.researcher_mentions_researcher_idx;

ALTER TABLE wove.metrics_paper_state ADD COLUMN aligned_digest text;

-- States written before this migration are in the old form: the next metrics run is a full one.
DELETE FROM wove.metrics_runs;
