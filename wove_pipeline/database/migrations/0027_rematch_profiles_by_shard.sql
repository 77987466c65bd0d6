-- The full re-match's finish step in less time (issue 22; bench_full_rematch_db: 8+ minutes of
-- one process at 1,114,003 positions, more than all 64 shards together).
--
-- (1) Each shard builds the profile of every cluster it forms (it holds the members already)
-- and keeps it here by cluster label; the finish step copies it to wove.researcher_profiles
-- under the cluster's researcher id, instead of reading every member of every researcher again
-- (146 s of that finish). Clusters the joins across name blocks changed, and researchers with
-- positions linked since the plan, are still rebuilt from their links.
-- (2) A cluster's home shard (which unit of the finish maps it to ids) is the shard its label
-- was made in (rematch.label_base: the label's high bits), not a column the finish filled by
-- updating every result row (151 s).
CREATE UNLOGGED TABLE wove.rematch_profiles (
    label                bigint PRIMARY KEY,
    shard                smallint NOT NULL,
    blocks               text[] NOT NULL,
    mention_count        integer NOT NULL,
    name_forms           jsonb NOT NULL,
    coauthors            jsonb NOT NULL,
    venues               jsonb NOT NULL,
    affiliations         jsonb NOT NULL,
    categories           jsonb NOT NULL,
    centroid             bytea NOT NULL,
    s2_author_ids        text[] NOT NULL,
    openalex_author_ids  text[] NOT NULL,
    orcids               text[] NOT NULL,
    id_counts            jsonb NOT NULL,
    first_year           integer,
    last_year            integer,
    representatives      jsonb NOT NULL,
    match_tokens         text[] NOT NULL
);
CREATE INDEX rematch_profiles_shard_idx ON wove.rematch_profiles (shard);

ALTER TABLE wove.rematch_results DROP COLUMN home;
