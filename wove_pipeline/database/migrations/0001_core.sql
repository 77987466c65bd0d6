-- Core schema: harvested papers, their authors, and the quarantine for bad records.
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS unaccent;

CREATE SCHEMA IF NOT EXISTS wove;
CREATE SCHEMA IF NOT EXISTS serving;

CREATE TABLE wove.papers (
    arxiv_id          text PRIMARY KEY,          -- without version: 2508.06001 or hep-th/9901001
    is_old_style      boolean NOT NULL,
    current_version   integer NOT NULL,
    versions          jsonb NOT NULL,            -- [{version, submitted, size_kb, source_type}]
    title_tex         text NOT NULL,
    title             text NOT NULL,             -- clean display text
    abstract_tex      text,
    abstract          text,
    authors           jsonb NOT NULL,            -- [{keyname, forenames, suffix, affiliations, is_collaboration}]
    authors_display   text NOT NULL,
    categories        text[] NOT NULL,
    primary_category  text NOT NULL,
    published         timestamptz NOT NULL,      -- first version
    updated           timestamptz NOT NULL,      -- latest version
    dois              text[] NOT NULL DEFAULT '{}',
    journal_ref       text,
    comments          text,
    report_no         text,
    license           text,
    withdrawn         boolean NOT NULL DEFAULT false,
    slug              text NOT NULL,
    abs_url           text NOT NULL,
    pdf_url           text NOT NULL,
    oai_datestamp     date NOT NULL,             -- last modification day (the partition it came from)
    content_hash      text NOT NULL              -- of title + abstract: what embedding keys on
);
CREATE INDEX papers_oai_datestamp_idx ON wove.papers (oai_datestamp);
CREATE INDEX papers_published_idx ON wove.papers (published DESC);
CREATE UNIQUE INDEX papers_slug_idx ON wove.papers (slug);

-- One row per author position, as arXiv prints it (matching reads these).
CREATE TABLE wove.paper_authors (
    arxiv_id          text NOT NULL REFERENCES wove.papers (arxiv_id) ON DELETE CASCADE,
    position          integer NOT NULL,          -- 0-based
    keyname           text NOT NULL,
    forenames         text,
    suffix            text,
    affiliations      text[] NOT NULL DEFAULT '{}',
    is_collaboration  boolean NOT NULL DEFAULT false,
    PRIMARY KEY (arxiv_id, position)
);

-- Records that could not be parsed, with why and the raw payload: nothing is lost.
CREATE TABLE wove.quarantine (
    id             bigserial PRIMARY KEY,
    source         text NOT NULL,                -- 'arxiv', 's2', 'openalex'
    partition_key  text NOT NULL,
    record_key     text,                         -- e.g. the OAI identifier when known
    reason         text NOT NULL,
    payload        text NOT NULL,
    quarantined_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX quarantine_source_partition_idx ON wove.quarantine (source, partition_key);

-- What each harvested partition brought (observability and freshness).
CREATE TABLE wove.harvests (
    partition_day  date PRIMARY KEY,
    records        integer NOT NULL,
    pages          integer NOT NULL,
    quarantined    integer NOT NULL,
    raw_files      text[] NOT NULL,
    harvested_at   timestamptz NOT NULL DEFAULT now()
);
