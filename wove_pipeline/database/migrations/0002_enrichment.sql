-- Enrichment from Semantic Scholar (S2) and OpenAlex: upstream records per paper, author
-- and institution; the alignment of arXiv author positions to both upstreams; the
-- look-back bookkeeping; citation snapshots and the rolling refresh state.
--
-- Every count carries its source (the table or the `source` column) and its as-of date
-- (the UTC day of the response it came from). Every row here is re-derivable from the raw
-- Parquet responses (wove_pipeline.core.enrichment.rebuild_from_raw), without API calls.

-- S2's view of an arXiv paper, keyed by the id we asked for (ARXIV:<id>), never by
-- paperId (S2 paper ids are not stable across merges).
CREATE TABLE wove.s2_papers (
    arxiv_id                    text PRIMARY KEY,
    paper_id                    text NOT NULL,
    corpus_id                   bigint,
    doi                         text,
    title                       text,
    abstract                    text,
    year                        integer,
    publication_date            date,
    venue                       text,
    citation_count              integer,
    influential_citation_count  integer,
    reference_count             integer,
    fields_of_study             text[] NOT NULL DEFAULT '{}',
    s2_fields_of_study          jsonb NOT NULL DEFAULT '[]',  -- [{category, source}]
    authors                     jsonb NOT NULL DEFAULT '[]',  -- [{author_id|null, name}] in S2's order
    external_ids                jsonb NOT NULL DEFAULT '{}',
    url                         text,
    as_of                       date NOT NULL,                -- UTC day of the response
    fetched_at                  timestamptz NOT NULL
);
CREATE INDEX s2_papers_paper_id_idx ON wove.s2_papers (paper_id);

-- OpenAlex's view of an arXiv paper (found through DOI 10.48550/arxiv.<id>).
CREATE TABLE wove.openalex_works (
    arxiv_id              text PRIMARY KEY,
    work_id               text NOT NULL,
    doi                   text,
    title                 text,
    publication_date      date,
    publication_year      integer,
    type                  text,
    language              text,
    cited_by_count        integer,
    counts_by_year        jsonb NOT NULL DEFAULT '[]',   -- [[year, cited_by_count]] as sent
    primary_topic         jsonb,
    topics                jsonb NOT NULL DEFAULT '[]',
    abstract              text,
    authorships           jsonb NOT NULL DEFAULT '[]',   -- full list (singleton re-fetch when truncated)
    authors_complete      boolean NOT NULL,              -- false only if the full list could not be fetched
    as_of                 date NOT NULL,
    fetched_at            timestamptz NOT NULL
);
CREATE INDEX openalex_works_work_id_idx ON wove.openalex_works (work_id);

CREATE TABLE wove.s2_authors (
    author_id       text PRIMARY KEY,
    name            text,
    orcid           text,
    dblp_names      text[] NOT NULL DEFAULT '{}',
    affiliations    text[] NOT NULL DEFAULT '{}',
    homepage        text,
    url             text,
    paper_count     integer,
    citation_count  integer,
    h_index         integer,
    as_of           date NOT NULL,
    fetched_at      timestamptz NOT NULL
);

CREATE TABLE wove.openalex_authors (
    author_id                   text PRIMARY KEY,
    display_name                text,
    display_name_alternatives   text[] NOT NULL DEFAULT '{}',
    orcid                       text,
    works_count                 integer,
    cited_by_count              integer,
    h_index                     integer,
    i10_index                   integer,
    two_year_mean_citedness     double precision,
    last_known_institution_ids  text[] NOT NULL DEFAULT '{}',
    affiliations                jsonb NOT NULL DEFAULT '[]',  -- [{institution_id, years}]
    as_of                       date NOT NULL,
    fetched_at                  timestamptz NOT NULL
);
CREATE INDEX openalex_authors_orcid_idx ON wove.openalex_authors (orcid) WHERE orcid IS NOT NULL;

-- Merged OpenAlex author ids answer 301; the retired id points at the survivor.
CREATE TABLE wove.openalex_author_redirects (
    old_author_id  text PRIMARY KEY,
    new_author_id  text NOT NULL,
    as_of          date NOT NULL
);

-- Institutions: the OpenAlex id is the row key, ROR is the global key (unique), aliases kept.
CREATE TABLE wove.institutions (
    institution_id  text PRIMARY KEY,
    ror             text UNIQUE,
    display_name    text,
    country_code    text,
    type            text,
    aliases         text[] NOT NULL DEFAULT '{}',
    lineage         text[] NOT NULL DEFAULT '{}',
    homepage_url    text,
    city            text,
    works_count     integer,
    cited_by_count  integer,
    as_of           date NOT NULL,
    fetched_at      timestamptz NOT NULL
);

-- One row per arXiv author position: its S2 author and its OpenAlex authorship, with the
-- alignment confidence (0..1) for each side (the lists differ in length, order, spelling).
CREATE TABLE wove.authorships (
    arxiv_id              text NOT NULL,
    position              integer NOT NULL,          -- arXiv position, 0-based
    arxiv_name            text NOT NULL,
    s2_position           integer,
    s2_author_id          text,
    s2_name               text,
    s2_confidence         real NOT NULL DEFAULT 0,
    openalex_position     integer,
    openalex_author_id    text,
    openalex_name         text,                      -- raw_author_name as printed on the work
    openalex_confidence   real NOT NULL DEFAULT 0,
    orcid                 text,                      -- from the OpenAlex authorship
    institution_ids       text[] NOT NULL DEFAULT '{}',
    raw_affiliations      text[] NOT NULL DEFAULT '{}',
    is_corresponding      boolean NOT NULL DEFAULT false,
    aligned_at            timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (arxiv_id, position)
);
CREATE INDEX authorships_s2_author_idx ON wove.authorships (s2_author_id) WHERE s2_author_id IS NOT NULL;
CREATE INDEX authorships_openalex_author_idx ON wove.authorships (openalex_author_id) WHERE openalex_author_id IS NOT NULL;

-- Look-back bookkeeping: which papers each upstream has been asked about, and when found.
-- A miss is "retry later", never "done": enrichment re-asks unfound papers of the last
-- lookback_days days (its own partition's papers always).
CREATE TABLE wove.enrichment_attempts (
    arxiv_id          text NOT NULL,
    source            text NOT NULL,                 -- 's2' | 'openalex'
    first_attempt     date NOT NULL,                 -- partition day of the run that asked first
    last_attempt      date NOT NULL,                 -- partition day of the latest run that asked
    attempts          integer NOT NULL,
    found_at          date,                          -- partition day of the first hit
    first_attempt_at  timestamptz NOT NULL,
    last_attempt_at   timestamptz NOT NULL,
    PRIMARY KEY (arxiv_id, source)
);
CREATE INDEX enrichment_attempts_pending_idx ON wove.enrichment_attempts (source, last_attempt) WHERE found_at IS NULL;

-- Citation counts and author statistics over time, one row per entity, source and day.
CREATE TABLE wove.citation_snapshots (
    source                      text NOT NULL,       -- 's2' | 'openalex'
    entity_kind                 text NOT NULL,       -- 'paper' | 'author'
    entity_id                   text NOT NULL,       -- arXiv id for papers, upstream id for authors
    as_of                       date NOT NULL,
    citation_count              integer,
    influential_citation_count  integer,
    works_count                 integer,
    h_index                     integer,
    i10_index                   integer,
    PRIMARY KEY (source, entity_kind, entity_id, as_of)
);

-- The rolling refresh: when each upstream record was last checked (by enrichment or refresh).
CREATE TABLE wove.refresh_state (
    source           text NOT NULL,
    entity_kind      text NOT NULL,
    entity_id        text NOT NULL,
    last_checked_at  timestamptz NOT NULL,
    last_found_at    timestamptz,
    PRIMARY KEY (source, entity_kind, entity_id)
);
CREATE INDEX refresh_state_oldest_idx ON wove.refresh_state (source, entity_kind, last_checked_at);

-- Calls and cost per upstream and UTC day, across runs (OpenAlex's daily budget; the
-- refresh's daily call budget).
CREATE TABLE wove.api_usage (
    source     text NOT NULL,                        -- 's2', 'openalex', 's2_refresh', ...
    day        date NOT NULL,
    calls      integer NOT NULL DEFAULT 0,
    cost_usd   numeric(12, 6) NOT NULL DEFAULT 0,
    PRIMARY KEY (source, day)
);
