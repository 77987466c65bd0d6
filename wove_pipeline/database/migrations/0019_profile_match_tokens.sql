-- The identifying tokens of each researcher profile (profiles.Profile.identifying_tokens:
-- its full names, co-author keys, affiliations and upstream ids, each qualified by its name
-- block, "y wang|c:j li"). The daily matching finds a crowded block's candidates by them
-- (profile_assign.bounded_candidates): the profiles sharing the most tokens with a new
-- author position, instead of every profile of the block.
ALTER TABLE wove.researcher_profiles ADD COLUMN match_tokens text[] NOT NULL DEFAULT '{}';
CREATE INDEX researcher_profiles_match_tokens_idx ON wove.researcher_profiles USING gin (match_tokens);
-- Profiles written before carry no tokens: the next matching run rebuilds them all from the
-- researchers' links (profile_store.needs_backfill), as after migration 0017.
DELETE FROM wove.researcher_profiles;
