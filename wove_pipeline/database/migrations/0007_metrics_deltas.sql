-- Co-author edges and institution metrics are kept by difference: each changed paper
-- subtracts what it contributed before and adds what it contributes now, so a day costs
-- the papers that changed, not every paper of every researcher or institution they touch.
-- This table carries the (institution, researcher) pairs with their number of papers, from
-- which an institution's researcher count is re-counted when its pairs change.
CREATE TABLE wove.metrics_institution_researchers (
    institution_id  text   NOT NULL,
    researcher_id   bigint NOT NULL,
    papers          integer NOT NULL,
    PRIMARY KEY (institution_id, researcher_id)
);

-- A paper whose citation count is all that moved changes only its researchers' archive
-- citation figures: the state keeps a fingerprint of everything else to tell.
ALTER TABLE wove.metrics_paper_state ADD COLUMN structure text;

-- The incremental metrics find what changed since their last run by these row stamps.
-- (Not authorships.aligned_at: the alignment's per-paper min(aligned_at) would be planned
-- as a walk of that index, once per paper.)
CREATE INDEX researcher_mentions_matched_at_idx ON wove.researcher_mentions (matched_at);
CREATE INDEX s2_papers_fetched_at_idx ON wove.s2_papers (fetched_at);
CREATE INDEX openalex_works_fetched_at_idx ON wove.openalex_works (fetched_at);
CREATE INDEX s2_authors_fetched_at_idx ON wove.s2_authors (fetched_at);
CREATE INDEX openalex_authors_fetched_at_idx ON wove.openalex_authors (fetched_at);
CREATE INDEX researchers_updated_at_idx ON wove.researchers (updated_at);

-- The pair table starts empty: forget the watermark so the next metrics run is a full
-- one (it rebuilds the pairs with everything else).
DELETE FROM wove.metrics_runs;
