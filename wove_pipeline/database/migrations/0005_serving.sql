-- Metrics (core, incremental) and the serving layer's fixed parts: the read-only role and
-- the publication bookkeeping. The serving tables themselves are (re)built by every
-- publish in a fresh schema and swapped in atomically (wove_pipeline.core.serving); their
-- DDL lives there, versioned by serving.SCHEMA_VERSION. See docs/data-contract.md.

-- The citation count a paper is served with: Semantic Scholar when S2 knows the paper,
-- else OpenAlex; NULL when neither does yet. One definition for metrics and serving.
CREATE VIEW wove.paper_citations AS
SELECT p.arxiv_id,
       coalesce(s.citation_count, o.cited_by_count) AS cited_by_count,
       CASE WHEN s.citation_count IS NOT NULL THEN 's2'
            WHEN o.cited_by_count IS NOT NULL THEN 'openalex' END AS source,
       CASE WHEN s.citation_count IS NOT NULL THEN s.as_of
            WHEN o.cited_by_count IS NOT NULL THEN o.as_of END AS as_of
FROM wove.papers p
LEFT JOIN wove.s2_papers s ON s.arxiv_id = p.arxiv_id
LEFT JOIN wove.openalex_works o ON o.arxiv_id = p.arxiv_id;

-- One row per researcher with at least one mention. Recomputed only for affected
-- researchers (wove_pipeline.core.metrics.update_metrics); a full recompute gives the same rows.
CREATE TABLE wove.researcher_metrics (
    researcher_id               bigint PRIMARY KEY,
    papers_here                 integer NOT NULL,           -- distinct archive papers
    -- headline figures from the chosen external author record (S2 first, then OpenAlex);
    -- NULL source when no external record is known
    ext_source                  text,                       -- 's2' | 'openalex'
    ext_author_id               text,
    ext_h_index                 integer,
    ext_citations               integer,
    ext_works                   integer,
    ext_as_of                   date,
    ext_records                 jsonb NOT NULL DEFAULT '[]', -- every linked record [{source, author_id, mentions, h_index, citations, works, as_of}]
    -- the same figures over the archive's own papers (paper citation = wove.paper_citations)
    archive_h_index             integer NOT NULL,
    archive_citations           integer NOT NULL,
    archive_works               integer NOT NULL,
    archive_cited_papers        integer NOT NULL,           -- papers with a known citation count
    archive_as_of               date,                       -- newest as-of of those counts
    -- author position over papers where every author position is matched
    position_first              integer NOT NULL,
    position_middle             integer NOT NULL,
    position_last               integer NOT NULL,
    position_papers_considered  integer NOT NULL,
    position_papers_total       integer NOT NULL,
    categories                  jsonb NOT NULL,             -- [{category, papers}] by primary category, most first
    institutions                jsonb NOT NULL,             -- [{institution_id, first_year, last_year, papers, years}]
    first_published             timestamptz,
    last_published              timestamptz,
    computed_at                 timestamptz NOT NULL DEFAULT now()
);

-- Co-author edges, both directions, counted in distinct shared papers. Papers with more
-- than wove_pipeline.core.metrics.MAX_COAUTHOR_AUTHORS authors (large collaborations)
-- give no edges.
CREATE TABLE wove.researcher_coauthors (
    researcher_id  bigint NOT NULL,
    coauthor_id    bigint NOT NULL,
    papers         integer NOT NULL,
    PRIMARY KEY (researcher_id, coauthor_id)
);

CREATE TABLE wove.institution_metrics (
    institution_id  text PRIMARY KEY,
    papers          integer NOT NULL,       -- distinct papers with an authorship at the institution
    researchers     integer NOT NULL,       -- distinct matched researchers with such an authorship
    citations       bigint NOT NULL,        -- sum of those papers' cited_by_count (NULL counts 0)
    first_published timestamptz,
    last_published  timestamptz,
    computed_at     timestamptz NOT NULL DEFAULT now()
);

-- What the metrics last saw of each paper: a fingerprint of every input the metrics read
-- (mentions, authorships, category, date, citations), and who and where it touched.
-- The incremental run recomputes exactly the researchers and institutions of papers whose
-- fingerprint changed (before and after).
CREATE TABLE wove.metrics_paper_state (
    arxiv_id         text PRIMARY KEY,
    oai_datestamp    date,
    fingerprint      text NOT NULL,
    n_authors        integer NOT NULL,             -- author positions on arXiv
    n_matched        integer NOT NULL,             -- positions linked to a researcher
    researcher_ids   bigint[] NOT NULL,
    institution_ids  text[] NOT NULL
);
CREATE INDEX metrics_paper_state_researchers_idx ON wove.metrics_paper_state USING gin (researcher_ids);
CREATE INDEX metrics_paper_state_institutions_idx ON wove.metrics_paper_state USING gin (institution_ids);

-- External author records as the metrics last saw them (h-index, citations, works, as-of).
CREATE TABLE wove.metrics_author_state (
    source       text NOT NULL,
    author_id    text NOT NULL,
    fingerprint  text NOT NULL,
    PRIMARY KEY (source, author_id)
);

-- Researcher rows as the metrics last saw them (ids, names, upstream ids).
CREATE TABLE wove.metrics_researcher_state (
    researcher_id  bigint PRIMARY KEY,
    fingerprint    text NOT NULL
);

CREATE TABLE wove.metrics_runs (
    run_id                 bigserial PRIMARY KEY,
    mode                   text NOT NULL,           -- 'incremental' | 'full'
    started_at             timestamptz NOT NULL,
    watermark              timestamptz NOT NULL,    -- rows stamped after this were re-checked by the next run
    papers_changed         integer NOT NULL,
    researchers_recomputed integer NOT NULL,
    institutions_recomputed integer NOT NULL,
    seconds                double precision NOT NULL
);

-- Consumers read through this role (NOLOGIN: grant it to a login role, e.g.
--   CREATE ROLE site_reader LOGIN PASSWORD '...' IN ROLE wove_reader;
-- or wove_pipeline.core.serving.create_reader_login). It may use the serving schema only.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'wove_reader') THEN
        CREATE ROLE wove_reader NOLOGIN;
    END IF;
END
$$;
GRANT USAGE ON SCHEMA serving TO wove_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA serving TO wove_reader;
-- Tables the pipeline's role creates later anywhere are SELECT-able by the reader; the
-- schema USAGE (serving only) is the gate, so wove.* stays closed.
ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO wove_reader;

-- URL slug of a name: ASCII, lower case, words joined by '-' ("Peng Wang" -> "peng-wang").
CREATE FUNCTION wove.name_slug(text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    RETURN trim(BOTH '-' FROM regexp_replace(lower(wove.immutable_unaccent($1)), '[^a-z0-9]+', '-', 'g'));

