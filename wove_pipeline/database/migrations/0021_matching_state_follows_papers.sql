-- A paper's matching state goes with the paper (issue 22: a day's cost must not depend on the
-- archive's size). The matching runs found the state rows of papers that had left the corpus
-- by an anti-join of every state row against wove.papers, each day: 6.5 s of the day after
-- 1,000,000 papers (bench/RESULTS.md). With the cascade there are none to find; the links of
-- a deleted paper's positions already go with them (researcher_mentions -> paper_authors).
DELETE FROM wove.matching_state ms WHERE NOT EXISTS (SELECT 1 FROM wove.papers p WHERE p.arxiv_id = ms.arxiv_id);
ALTER TABLE wove.matching_state ADD CONSTRAINT matching_state_arxiv_id_fkey
    FOREIGN KEY (arxiv_id) REFERENCES wove.papers (arxiv_id) ON DELETE CASCADE;
