-- Plans that do not turn into scans as the archive grows (issue 22).
--
-- 1. A paper's author rows (paper_authors, authorships, researcher_mentions) are written
--    together and lie together on disk, so ANALYZE's sample (about 30,000 rows read from whole
--    pages) holds each sampled paper's rows side by side and takes the papers for few: at
--    300,000 papers it estimated 15,477 distinct arxiv_ids in paper_authors. The planner then
--    expected some 200 rows a paper and answered "these 27,000 papers' authors" with scans and
--    hash joins of the whole tables (3.2 million rows; at 1,000,000 papers, gigabytes read
--    cold every day). A paper has a handful of authors: the distinct count is fixed here as a
--    fraction of the rows (one paper for every five rows), which grows with the table.
ALTER TABLE wove.paper_authors ALTER COLUMN arxiv_id SET (n_distinct = -0.2);
ALTER TABLE wove.authorships ALTER COLUMN arxiv_id SET (n_distinct = -0.2);
ALTER TABLE wove.researcher_mentions ALTER COLUMN arxiv_id SET (n_distinct = -0.2);
ANALYZE wove.paper_authors (arxiv_id);
ANALYZE wove.authorships (arxiv_id);
ANALYZE wove.researcher_mentions (arxiv_id);

-- 2. The metrics find the researchers whose row lists a changed S2 or OpenAlex author id; that
--    was a scan of every researcher row, twice a run (3.1 s at 300,000 papers). These indexes
--    answer it id by id. Without GIN's pending list (fastupdate): every lookup reads the whole
--    list of entries not yet merged, and the daily upserts of researchers fill it (2.8 s for
--    1,900 lookups right after a day), while a day's few thousand rows cost little to index
--    at once. The same for the id lookups of the candidate profiles.
CREATE INDEX researchers_s2_author_ids_idx ON wove.researchers USING gin (s2_author_ids) WITH (fastupdate = off);
CREATE INDEX researchers_openalex_author_ids_idx ON wove.researchers USING gin (openalex_author_ids)
    WITH (fastupdate = off);
ALTER INDEX wove.researcher_profiles_s2_idx SET (fastupdate = off);
ALTER INDEX wove.researcher_profiles_openalex_idx SET (fastupdate = off);
ALTER INDEX wove.researcher_profiles_orcid_idx SET (fastupdate = off);
