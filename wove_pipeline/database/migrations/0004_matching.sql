-- Researchers: who each arXiv author position really is, with stable integer ids.
CREATE SEQUENCE wove.researcher_id_seq START WITH 100001;

CREATE TABLE wove.researchers (
    researcher_id        bigint PRIMARY KEY,
    display_name         text NOT NULL,           -- most frequent full printed name
    normalized_name      text NOT NULL,           -- for "same name" lists
    mention_count        integer NOT NULL,
    orcid                text,
    s2_author_ids        text[] NOT NULL DEFAULT '{}',
    openalex_author_ids  text[] NOT NULL DEFAULT '{}',
    updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX researchers_normalized_name_idx ON wove.researchers (normalized_name);

-- The link from one author position to its researcher, with why it was made.
CREATE TABLE wove.researcher_mentions (
    arxiv_id       text NOT NULL,
    position       integer NOT NULL,
    researcher_id  bigint NOT NULL REFERENCES wove.researchers (researcher_id) DEFERRABLE INITIALLY DEFERRED,
    outcome        text NOT NULL,                 -- clustered | singleton | linked | new | not_sure | forced | existing
    score          real,
    evidence       jsonb NOT NULL DEFAULT '{}',
    matched_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (arxiv_id, position),
    FOREIGN KEY (arxiv_id, position) REFERENCES wove.paper_authors (arxiv_id, position) ON DELETE CASCADE
);
CREATE INDEX researcher_mentions_researcher_idx ON wove.researcher_mentions (researcher_id);

-- Retired ids: a merge keeps one id and redirects the others here. (new_id is NULL only
-- for an id whose every paper left the corpus.)
CREATE TABLE wove.researcher_redirects (
    old_id         bigint PRIMARY KEY,
    new_id         bigint,
    reason         text NOT NULL,                 -- 'merge' | 'orphaned'
    redirected_at  timestamptz NOT NULL DEFAULT now()
);

-- Every identity change, in order: merges, splits (a split keeps the id on the larger part
-- and carves new ids out of it), orphaned ids.
CREATE TABLE wove.researcher_id_events (
    event_id       bigserial PRIMARY KEY,
    kind           text NOT NULL,                 -- 'merge' | 'split' | 'orphaned'
    old_id         bigint NOT NULL,
    new_id         bigint,
    happened_at    timestamptz NOT NULL DEFAULT now()
);

-- Manual corrections that survive every re-run.
CREATE TABLE wove.match_overrides (
    override_id    bigserial PRIMARY KEY,
    kind           text NOT NULL CHECK (kind IN ('force_link', 'force_split')),
    arxiv_id_a     text NOT NULL,
    position_a     integer NOT NULL,
    arxiv_id_b     text NOT NULL,
    position_b     integer NOT NULL,
    note           text,
    created_at     timestamptz NOT NULL DEFAULT now()
);

-- Which papers the matcher has seen (incremental runs take the rest, newest first).
CREATE TABLE wove.matching_state (
    arxiv_id       text PRIMARY KEY,
    matched_at     timestamptz NOT NULL DEFAULT now(),
    content        text NOT NULL                  -- hash of the paper's author evidence when matched
);
