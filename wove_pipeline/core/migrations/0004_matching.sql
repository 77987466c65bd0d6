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
    outcome        text NOT NULL CHECK (outcome IN ('linked', 'new_profile', 'not_sure', 'override', 'clustered')),
    score          real,
    evidence       jsonb NOT NULL DEFAULT '{}',
    matched_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (arxiv_id, position),
    FOREIGN KEY (arxiv_id, position) REFERENCES wove.paper_authors (arxiv_id, position) ON DELETE CASCADE
);
CREATE INDEX researcher_mentions_researcher_idx ON wove.researcher_mentions (researcher_id);

-- Retired ids: a merge keeps one id and redirects the others; a split keeps the id on the larger part.
CREATE TABLE wove.researcher_redirects (
    old_id         bigint PRIMARY KEY,
    new_id         bigint NOT NULL,
    reason         text NOT NULL,                 -- 'merge' | 'split' | 'override'
    redirected_at  timestamptz NOT NULL DEFAULT now()
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
