-- An incremental matching run loads only the name blocks it touches, not every author
-- position: each link keeps its position's block key, and each matched paper the
-- fingerprint of its author inputs as the database holds them (names, affiliations,
-- aligned upstream ids and institutions, categories), so changed papers are found in SQL.
-- Rows from before this have neither: the next run loads everything once and fills them.
ALTER TABLE wove.researcher_mentions ADD COLUMN block text;
CREATE INDEX researcher_mentions_block_idx ON wove.researcher_mentions (block);
ALTER TABLE wove.matching_state ADD COLUMN inputs text;
