-- The keys the daily matching finds candidate profiles by, one narrow row per (key,
-- researcher): each name block of a profile ("y wang") and each of its identifying tokens
-- ("y wang|c:j li": researcher_profiles.match_tokens; a token always holds a "|", a block
-- never does). Issue 22: the day after 1,000,000 papers spent 216 s counting crowded blocks'
-- profiles and 228 s reading token postings through the GIN indexes on researcher_profiles,
-- every hit a visit to a wide profile row on disk. Here a block's count and a token's posting
-- list are read from one B-tree, in researcher-id order (the older profile first), stopping
-- at the cap: what a day reads no longer depends on how many profiles a block holds.
--
-- The table is derived from researcher_profiles and kept by statement triggers, so every
-- writer (the daily run, a full re-match, a cascade from wove.researchers, a bench's COPY)
-- keeps it current without knowing of it; an update writes only the keys that changed.
CREATE TABLE wove.profile_keys (
    key            text NOT NULL,
    researcher_id  bigint NOT NULL,
    PRIMARY KEY (key, researcher_id)
);

CREATE FUNCTION wove.profile_keys_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO wove.profile_keys (key, researcher_id)
    SELECT DISTINCT k, n.researcher_id FROM new_rows n, unnest(n.blocks || n.match_tokens) k
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;

CREATE FUNCTION wove.profile_keys_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM wove.profile_keys pk USING (
        SELECT k, o.researcher_id FROM old_rows o, unnest(o.blocks || o.match_tokens) k
        EXCEPT SELECT k, n.researcher_id FROM new_rows n, unnest(n.blocks || n.match_tokens) k
    ) gone (key, researcher_id)
    WHERE pk.key = gone.key AND pk.researcher_id = gone.researcher_id;
    INSERT INTO wove.profile_keys (key, researcher_id)
    SELECT k, n.researcher_id FROM new_rows n, unnest(n.blocks || n.match_tokens) k
    EXCEPT SELECT k, o.researcher_id FROM old_rows o, unnest(o.blocks || o.match_tokens) k
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;

CREATE FUNCTION wove.profile_keys_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM wove.profile_keys pk USING old_rows o, unnest(o.blocks || o.match_tokens) k
    WHERE pk.key = k AND pk.researcher_id = o.researcher_id;
    RETURN NULL;
END $$;

CREATE TRIGGER profile_keys_inserted AFTER INSERT ON wove.researcher_profiles
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION wove.profile_keys_inserted();
CREATE TRIGGER profile_keys_updated AFTER UPDATE ON wove.researcher_profiles
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION wove.profile_keys_updated();
CREATE TRIGGER profile_keys_deleted AFTER DELETE ON wove.researcher_profiles
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION wove.profile_keys_deleted();

INSERT INTO wove.profile_keys (key, researcher_id)
SELECT DISTINCT k, p.researcher_id FROM wove.researcher_profiles p, unnest(p.blocks || p.match_tokens) k;

-- The GIN indexes these keys replace (the upstream-id ones stay: they find profiles across blocks).
DROP INDEX wove.researcher_profiles_blocks_idx;
DROP INDEX wove.researcher_profiles_match_tokens_idx;
