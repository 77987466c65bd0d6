-- A profile's upstream identities as keys of wove.profile_keys (0022), and the three GIN
-- indexes on researcher_profiles that held them dropped (issue 22: what a day reads and
-- writes on a big archive).
--
-- The daily matching finds, across name blocks, the profiles sharing an ORCID or an S2 and an
-- OpenAlex author id pair with a new position (the same person printed another way). It read
-- them through GIN indexes on researcher_profiles' id arrays. A GIN index takes every element
-- of a row again at each update that leaves its page (a profile's updates mostly do: it grows),
-- and with fastupdate off (0024) each element is a leaf page to read: in the day after
-- 1,000,000 papers the three indexes read 57,951 pages of the day's 784,792 (pg_statio; most
-- of them in the probes that read them ahead of the writes, db.SnapshotReaders.warm_indexes),
-- for ids that seldom change. In profile_keys a key is written once, when a profile gains it
-- (the statement triggers write only the keys that changed), and found by one B-tree descent.
--
-- Keys: '#r:<orcid>' and '#p:<s2 id>|<openalex id>' (the keys of id_counts -> 'pairs'); no
-- name block holds '#', so they meet no block and no block-qualified token.

-- A profile's keys: its name blocks, its block-qualified tokens (match_tokens) and its
-- identity keys. The triggers, and whatever rebuilds the table (bench/archive_copy.py), read
-- them here.
CREATE FUNCTION wove.profile_keys_of(blocks text[], match_tokens text[], orcids text[], id_counts jsonb)
RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
    SELECT blocks || match_tokens || ARRAY(
        SELECT '#r:' || o FROM unnest(orcids) o
        UNION SELECT '#p:' || p FROM jsonb_object_keys(coalesce(id_counts -> 'pairs', '{}'::jsonb)) p)
$$;

CREATE OR REPLACE FUNCTION wove.profile_keys_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO wove.profile_keys (key, researcher_id)
    SELECT DISTINCT k, n.researcher_id
    FROM new_rows n, unnest(wove.profile_keys_of(n.blocks, n.match_tokens, n.orcids, n.id_counts)) k
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION wove.profile_keys_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM wove.profile_keys pk USING (
        SELECT k, o.researcher_id FROM old_rows o, unnest(wove.profile_keys_of(o.blocks, o.match_tokens, o.orcids, o.id_counts)) k
        EXCEPT SELECT k, n.researcher_id FROM new_rows n, unnest(wove.profile_keys_of(n.blocks, n.match_tokens, n.orcids, n.id_counts)) k
    ) gone (key, researcher_id)
    WHERE pk.key = gone.key AND pk.researcher_id = gone.researcher_id;
    INSERT INTO wove.profile_keys (key, researcher_id)
    SELECT k, n.researcher_id FROM new_rows n, unnest(wove.profile_keys_of(n.blocks, n.match_tokens, n.orcids, n.id_counts)) k
    EXCEPT SELECT k, o.researcher_id FROM old_rows o, unnest(wove.profile_keys_of(o.blocks, o.match_tokens, o.orcids, o.id_counts)) k
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION wove.profile_keys_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM wove.profile_keys pk
    USING old_rows o, unnest(wove.profile_keys_of(o.blocks, o.match_tokens, o.orcids, o.id_counts)) k
    WHERE pk.key = k AND pk.researcher_id = o.researcher_id;
    RETURN NULL;
END $$;

-- the existing profiles' identity keys (their blocks and tokens are there already)
INSERT INTO wove.profile_keys (key, researcher_id)
SELECT DISTINCT k, p.researcher_id
FROM wove.researcher_profiles p, unnest(wove.profile_keys_of('{}', '{}', p.orcids, p.id_counts)) k
ORDER BY 1, 2
ON CONFLICT DO NOTHING;

DROP INDEX wove.researcher_profiles_s2_idx;
DROP INDEX wove.researcher_profiles_openalex_idx;
DROP INDEX wove.researcher_profiles_orcid_idx;
