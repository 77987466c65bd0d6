-- Row rules the database enforces, instead of asset checks that scan for violations (issue
-- 22). A check that scans a whole table costs more every day as the archive grows (16 s of
-- checks per daily run at a million papers) and, where a guard stands, can find nothing:
-- now the database refuses a bad row at write time and the check only confirms the guard is
-- in place, validated and in force (wove_pipeline/assets/checks.py, as for the unique
-- indexes and foreign keys already there). Each CHECK constraint is named as the asset
-- check that confirms it.
--
-- Adding them validates every existing row once, here.

-- papers: what the parser writes (arxiv/paper_record.py): the current version is the last
-- listed version's number (a list may start past v1, warned), at least 1 where arXivRaw
-- listed none (its fallback, warned: 1, or 2 as a lower bound when <updated> exists); v1's
-- date is at most the latest's. (The scan this replaces compared current_version with the
-- number of listed versions, which failed on both warned cases the parser accepts.)
ALTER TABLE wove.papers
    ADD CONSTRAINT papers_primary_category_in_categories CHECK (primary_category = ANY (categories)),
    ADD CONSTRAINT papers_versions_consistent CHECK (published <= updated AND CASE
        WHEN jsonb_array_length(versions) = 0 THEN current_version >= 1
        ELSE current_version = coalesce((versions -> -1 ->> 'version')::int, jsonb_array_length(versions)) END);

-- authorships: alignment confidences (NOT NULL today; a NULL would pass, as in the scan)
ALTER TABLE wove.authorships
    ADD CONSTRAINT authorships_confidence_in_range
        CHECK (s2_confidence BETWEEN 0 AND 1 AND openalex_confidence BETWEEN 0 AND 1);

-- researcher_metrics_sane stays a check of the rows written (scoped to them): its rule holds
-- the external h-index to the external works count, figures copied from S2 or OpenAlex as
-- they come, and upstream sends implausible ones (the s2_authors / openalex_authors sanity
-- warnings); as a constraint, one such author record would fail every metrics run that
-- recomputes its researcher.

-- Foreign keys, ON DELETE CASCADE each: the child row means nothing without its parent, and
-- the pipeline deletes parents while children stand.
-- * Papers are never deleted by the pipeline; an upstream record of a paper removed by hand
--   goes with it (as paper_authors and paper_embeddings do).
-- * A paper's author positions are rewritten when a new version changes them (harvest.py:
--   replace_rows deletes the positions that changed, and those past a shorter author list);
--   their alignment goes with them and the day's enrichment re-aligns the paper (it is in
--   that day's partition), as researcher_mentions -> paper_authors does since 0004. NO ACTION
--   would fail the harvest of every revised paper that was aligned.
-- * Matching deletes retired (merged, orphaned) researchers; their metrics rows went at the
--   next metrics run, now with them (the metrics run re-derives the survivors' rows). NO
--   ACTION would fail the matching run of every merge.
-- Rows that would break a key now are what the cascade would have removed: an alignment of
-- a position the harvest has since dropped (before the day's enrichment re-aligned it), the
-- metrics of a researcher retired since the last metrics run. Removed first.
DELETE FROM wove.s2_papers s WHERE NOT EXISTS (SELECT 1 FROM wove.papers p WHERE p.arxiv_id = s.arxiv_id);
DELETE FROM wove.openalex_works o WHERE NOT EXISTS (SELECT 1 FROM wove.papers p WHERE p.arxiv_id = o.arxiv_id);
DELETE FROM wove.authorships a WHERE NOT EXISTS
    (SELECT 1 FROM wove.paper_authors pa WHERE pa.arxiv_id = a.arxiv_id AND pa.position = a.position);
DELETE FROM wove.researcher_metrics m WHERE NOT EXISTS
    (SELECT 1 FROM wove.researchers r WHERE r.researcher_id = m.researcher_id);

ALTER TABLE wove.s2_papers ADD CONSTRAINT s2_papers_arxiv_id_fkey
    FOREIGN KEY (arxiv_id) REFERENCES wove.papers (arxiv_id) ON DELETE CASCADE;
ALTER TABLE wove.openalex_works ADD CONSTRAINT openalex_works_arxiv_id_fkey
    FOREIGN KEY (arxiv_id) REFERENCES wove.papers (arxiv_id) ON DELETE CASCADE;
ALTER TABLE wove.authorships ADD CONSTRAINT authorships_arxiv_id_position_fkey
    FOREIGN KEY (arxiv_id, position) REFERENCES wove.paper_authors (arxiv_id, position) ON DELETE CASCADE;
ALTER TABLE wove.researcher_metrics ADD CONSTRAINT researcher_metrics_researcher_id_fkey
    FOREIGN KEY (researcher_id) REFERENCES wove.researchers (researcher_id) ON DELETE CASCADE;
-- (Every referencing column leads its table's primary key: a cascade finds its rows by index.)

-- The redirect checks stay scans (a redirect's target must be live, a retired id must have no
-- row: rules across rows that no constraint states), scoped to the researchers and
-- redirects written since the last publish (wove.serving_changes). A researcher deleted
-- since is looked up among the redirects that point at it: by this index, not a scan of
-- every redirect ever made.
CREATE INDEX researcher_redirects_new_id_idx ON wove.researcher_redirects (new_id);
