-- Incremental serving publish (wove_pipeline.core.serving.publish). Every write to a core
-- table the serving schema reads is logged here by statement-level triggers, whoever the
-- writer is (assets, tests, an operator's psql): a publish rewrites only the serving rows
-- those keys reach, then deletes the log rows it has seen. Rows committed after the
-- publish's snapshot stay for the next publish. The log is insert-only (no key is ever
-- updated in place), so a publish and writers never block each other on it.
CREATE TABLE wove.serving_changes (
    kind  text NOT NULL,   -- which key: 'paper', 'researcher', 'institution', ... (see TRIGGERS below)
    key   text NOT NULL    -- the key as text (researcher ids too)
);

-- One row per publish: how, from what definition, and what it rewrote. An incremental
-- publish is allowed only when the last one here is the publication being served and was
-- built from the same definition, site URL and migrations.
CREATE TABLE wove.serving_publishes (
    publication_id  bigint PRIMARY KEY,
    published_at    timestamptz NOT NULL,
    mode            text NOT NULL,            -- 'full' | 'incremental'
    reason          text,                     -- why a full rebuild, when it was one
    definition      text NOT NULL,            -- hash of the serving SQL (serving.DEFINITION_HASH)
    site_url        text NOT NULL,
    migration       integer NOT NULL,         -- newest migration applied at publish time
    rows_written    jsonb NOT NULL,           -- {table: {"deleted": n, "inserted": n}}
    seconds         double precision NOT NULL
);

-- TG_ARGV[0]: columns to ignore (comma-separated: a change in them alone logs nothing);
-- then pairs (kind, column). An UPDATE logs only rows whose other columns changed, with
-- their key before and after; INSERT and DELETE log every row; TRUNCATE logs
-- ('truncate', table), which makes the next publish a full rebuild.
CREATE FUNCTION wove.serving_log_changes() RETURNS trigger
    LANGUAGE plpgsql AS $$
DECLARE
    ignored text[] := string_to_array(TG_ARGV[0], ',');
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        INSERT INTO wove.serving_changes (kind, key) VALUES ('truncate', TG_TABLE_NAME);
        RETURN NULL;
    END IF;
    FOR i IN 1 .. (TG_NARGS - 1) / 2 LOOP
        IF TG_OP = 'UPDATE' THEN
            -- rows as JSON without the ignored columns: those that differ, before and after
            EXECUTE format(
                'INSERT INTO wove.serving_changes (kind, key) SELECT DISTINCT %L, c.r ->> %L FROM ('
                '(SELECT to_jsonb(n) - $1 FROM new_rows n EXCEPT SELECT to_jsonb(o) - $1 FROM old_rows o)'
                ' UNION ALL '
                '(SELECT to_jsonb(o) - $1 FROM old_rows o EXCEPT SELECT to_jsonb(n) - $1 FROM new_rows n)'
                ') c(r) WHERE c.r ->> %L IS NOT NULL',
                TG_ARGV[2 * i - 1], TG_ARGV[2 * i], TG_ARGV[2 * i]) USING ignored;
        ELSE
            -- every row inserted or deleted: the key column alone (cheap on bulk loads)
            EXECUTE format(
                'INSERT INTO wove.serving_changes (kind, key) SELECT DISTINCT %L, t.%I::text FROM %I t'
                ' WHERE t.%I IS NOT NULL',
                TG_ARGV[2 * i - 1], TG_ARGV[2 * i], CASE TG_OP WHEN 'INSERT' THEN 'new_rows' ELSE 'old_rows' END,
                TG_ARGV[2 * i]);
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;

-- The tables serving reads (wove.paper_citations is a view over papers, s2_papers and
-- openalex_works). Three triggers each: transition tables allow one event per trigger.
DO $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT * FROM (VALUES
        ('papers',               ARRAY['search_tsv', 'paper', 'arxiv_id']),
        ('paper_authors',        ARRAY['', 'paper', 'arxiv_id']),
        ('s2_papers',            ARRAY['', 'paper', 'arxiv_id']),
        ('openalex_works',       ARRAY['', 'paper', 'arxiv_id']),
        ('researcher_mentions',  ARRAY['', 'paper', 'arxiv_id', 'mention_researcher', 'researcher_id']),
        ('authorships',          ARRAY['', 'authorship', 'arxiv_id']),
        ('researchers',          ARRAY['mention_count,updated_at', 'researcher', 'researcher_id']),
        ('researcher_metrics',   ARRAY['', 'researcher_metrics', 'researcher_id']),
        ('researcher_coauthors', ARRAY['', 'coauthor', 'researcher_id', 'coauthor', 'coauthor_id']),
        ('researcher_redirects', ARRAY['', 'redirect', 'old_id', 'redirect', 'new_id']),
        ('institutions',         ARRAY['', 'institution', 'institution_id']),
        ('institution_metrics',  ARRAY['', 'institution_metrics', 'institution_id']),
        ('metrics_paper_state',  ARRAY['', 'paper_state', 'arxiv_id'])
    ) v(name, args)
    LOOP
        EXECUTE format('CREATE TRIGGER serving_log_insert AFTER INSERT ON wove.%I REFERENCING NEW TABLE AS new_rows'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION wove.serving_log_changes(%s)',
                       t.name, (SELECT string_agg(quote_literal(a), ', ') FROM unnest(t.args) a));
        EXECUTE format('CREATE TRIGGER serving_log_update AFTER UPDATE ON wove.%I'
                       ' REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION wove.serving_log_changes(%s)',
                       t.name, (SELECT string_agg(quote_literal(a), ', ') FROM unnest(t.args) a));
        EXECUTE format('CREATE TRIGGER serving_log_delete AFTER DELETE ON wove.%I REFERENCING OLD TABLE AS old_rows'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION wove.serving_log_changes(%s)',
                       t.name, (SELECT string_agg(quote_literal(a), ', ') FROM unnest(t.args) a));
        EXECUTE format('CREATE TRIGGER serving_log_truncate AFTER TRUNCATE ON wove.%I'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION wove.serving_log_changes(%s)',
                       t.name, (SELECT string_agg(quote_literal(a), ', ') FROM unnest(t.args) a));
    END LOOP;
END
$$;
