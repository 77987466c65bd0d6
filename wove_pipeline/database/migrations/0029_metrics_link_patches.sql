-- The metrics' paper states patched for a moved link (issue 22).
--
-- A day's matching that merges two researchers moves every link of the retired one, and each
-- collaboration paper it was on (1,000-3,000 authors) became a candidate whose whole state was
-- computed again: every position's link, authorship and institutions read and aggregated. On
-- the day after 1,000,000 papers, 216 old papers with 376 moved links cost 9.2 s of the
-- metrics' 13.4 s.
--
-- The metrics log now also keeps 'paper_data' (a write to the paper's own row, authors or
-- citations: 0028) and 'mention_pair' ('<researcher_id>:<arxiv_id>' of each link written,
-- before and after). A paper whose only change is links has its state patched: the digests
-- of the researchers whose links there moved are taken again from their positions on it, and
-- the paper's counts, researchers, institution pairs and structure follow from its digests
-- (each digest now counts its positions, and the authorships' part of the structure is kept
-- as aligned_digest), so the patched state equals the one computed whole.

-- The trigger function (0012) with the two kinds added to those its metrics log keeps: its
-- definition as the server holds it, edited at that one list (and refused if the list is not
-- found, rather than left as it was).
DO $migration$
DECLARE
    old_definition constant text := pg_get_functiondef('wove.log_changes()'::regprocedure);
    new_definition constant text := replace(old_definition,
        $kinds$''s2_author'', ''openalex_author'')'$kinds$,
        $kinds$''s2_author'', ''openalex_author'', ''paper_data'', ''mention_pair'')'$kinds$);
BEGIN
    IF new_definition = old_definition THEN
        RAISE EXCEPTION 'wove.log_changes: the metrics log''s list of kinds was not found';
    END IF;
    EXECUTE new_definition;
END
$migration$;

-- (researcher_id, arxiv_id): a moved researcher's positions on one paper, without reading
-- every paper of a prolific researcher (the serving publish's researcher_papers pairs too)
CREATE INDEX researcher_mentions_researcher_paper_idx ON wove.researcher_mentions (researcher_id, arxiv_id);
DROP INDEX wove.researcher_mentions_researcher_idx;

ALTER TABLE wove.metrics_paper_state ADD COLUMN aligned_digest text;

-- States written before this migration are in the old form: the next metrics run is a full one.
DELETE FROM wove.metrics_runs;
