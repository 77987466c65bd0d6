-- The full re-match by shard (matching/rematch.py; the full_rematch job). A shard reads only
-- its own name blocks: the block key of an author position is computed in Python (names.py),
-- so the plan step keeps every position's block and shard here (indexed by shard, block: a
-- shard's positions in block order). The shards' results wait in wove.rematch_results until
-- the final step joins clusters across blocks, maps them to stable ids and writes the links;
-- the corpus statistics every shard scores with (corpus.py), and the input fingerprints the
-- plan took (what matching_state keeps once the links are written), wait beside them.
CREATE TABLE wove.matching_blocks (
    arxiv_id text NOT NULL,
    position integer NOT NULL,
    block text NOT NULL,
    shard smallint NOT NULL,
    PRIMARY KEY (arxiv_id, position)
);
CREATE INDEX matching_blocks_shard_idx ON wove.matching_blocks (shard, block);

CREATE TABLE wove.rematch_plan (
    plan_id integer PRIMARY KEY CHECK (plan_id = 1),   -- one plan at a time
    n_shards integer NOT NULL,
    stats bytea NOT NULL,                              -- corpus.CorpusCounts.to_bytes()
    planned_at timestamptz NOT NULL
);

CREATE TABLE wove.rematch_inputs (
    arxiv_id text PRIMARY KEY,
    inputs text NOT NULL
);

CREATE UNLOGGED TABLE wove.rematch_results (
    arxiv_id text NOT NULL,
    position integer NOT NULL,
    shard smallint NOT NULL,
    label bigint NOT NULL,
    home smallint,                 -- the shard whose final step unit maps this cluster to ids
    outcome text NOT NULL,
    score real,
    partner text,
    evidence jsonb NOT NULL,
    block text NOT NULL,
    orcid text,
    s2_author_id text,
    openalex_author_id text,
    first text,
    last text,
    suffix text,
    evidence_part bytea NOT NULL,  -- this position's share of its paper's evidence hash
    PRIMARY KEY (arxiv_id, position)
);
CREATE INDEX rematch_results_shard_idx ON wove.rematch_results (shard);
CREATE INDEX rematch_results_label_idx ON wove.rematch_results (label);
