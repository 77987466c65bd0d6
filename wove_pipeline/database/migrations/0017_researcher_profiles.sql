-- Researcher profiles: what the daily matching scores a new author position against instead
-- of every member of its name block (wove_pipeline/matching/profiles.py). One row per
-- researcher, written in the matching run's transaction with its links: the printed name
-- forms, co-author keys, venues, affiliations and categories with their counts, a text
-- centroid (the members' hashed term counts summed, the heaviest terms), the upstream ids,
-- the year range and up to 16 representative positions (each with the members it stands
-- for). Found by name block and by upstream id.
--
-- A profile is current when it was built at or after its researcher's row was last written
-- (built_at >= researchers.updated_at) and counts as many members; a stale one is rebuilt
-- from the researcher's links when a run needs it.
CREATE TABLE wove.researcher_profiles (
    researcher_id        bigint PRIMARY KEY REFERENCES wove.researchers (researcher_id) ON DELETE CASCADE,
    blocks               text[] NOT NULL,          -- name block keys of its name forms
    mention_count        integer NOT NULL,
    name_forms           jsonb NOT NULL,           -- printed form (first\tmiddle\tlast\tsuffix) -> count
    coauthors            jsonb NOT NULL,           -- co-author block key -> count (heaviest 200)
    venues               jsonb NOT NULL,
    affiliations         jsonb NOT NULL,
    categories           jsonb NOT NULL,
    centroid             bytea NOT NULL,           -- little-endian uint32 pairs: hashed term index, summed count
    s2_author_ids        text[] NOT NULL DEFAULT '{}',
    openalex_author_ids  text[] NOT NULL DEFAULT '{}',
    orcids               text[] NOT NULL DEFAULT '{}',
    id_counts            jsonb NOT NULL,           -- {"s2": {id: n}, "openalex": {...}, "orcid": {...}, "pairs": {"s2|oa": n}}
    first_year           integer,
    last_year            integer,
    representatives      jsonb NOT NULL,           -- [[arxiv_id:position, weight, block, [tokens]], ...]
    built_at             timestamptz NOT NULL
);
CREATE INDEX researcher_profiles_blocks_idx ON wove.researcher_profiles USING gin (blocks);
CREATE INDEX researcher_profiles_s2_idx ON wove.researcher_profiles USING gin (s2_author_ids);
CREATE INDEX researcher_profiles_openalex_idx ON wove.researcher_profiles USING gin (openalex_author_ids);
CREATE INDEX researcher_profiles_orcid_idx ON wove.researcher_profiles USING gin (orcids);
