-- The matcher's text evidence is a TF-IDF of each paper's title and abstract. Counting the
-- terms (tokenizing) was most of its cost, and a daily run reads the texts of every paper of
-- the name blocks it touches (~90,000 of them at 100k papers) to fit the IDF over them. Each
-- paper's hashed term counts are kept here once counted (core/matching/scoring.py
-- text_term_counts); a run counts only the texts that are new or changed.
--
-- A derived cache, hence UNLOGGED: no WAL for it, and after a crash the server empties it
-- and the next runs count again. No foreign key: a row of a paper that is gone is never
-- read, and TRUNCATE of the papers stays as it was.
CREATE UNLOGGED TABLE wove.matching_text_terms (
    arxiv_id      text PRIMARY KEY,
    content_hash  text NOT NULL,      -- wove.papers.content_hash (of title + abstract) when counted
    version       integer NOT NULL,   -- scoring.TEXT_TERMS_VERSION: how they were counted
    terms         bytea NOT NULL      -- little-endian uint32 per term: count << 18 | hashed index
);
