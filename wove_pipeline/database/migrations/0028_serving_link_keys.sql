-- Serving's keys for a moved link, by position (issue 22).
--
-- A day's matching that merges two researchers moves every link of the retired one, and
-- each collaboration paper it was on (1,000-3,000 authors) then logged the paper as changed:
-- the incremental publish rebuilt that paper's whole author list (every position's link and
-- researcher slug read again) and rewrote every researcher_papers row of every co-author on
-- it. On the day after 1,000,000 papers, 64 retired researchers cost the publish 5.7 s of
-- author lists and 2.4 s of researcher_papers.
--
-- researcher_mentions now also logs each written link as its position ('mention_position',
-- '<arxiv_id>:<position>') and as its researcher and paper ('mention_pair',
-- '<researcher_id>:<arxiv_id>', before and after), and the tables that make a paper's served
-- row other than its links log 'paper_data' (papers also 'paper_row', the only one of them
-- researcher_papers reads). A paper whose only change is links gets its served author list
-- patched at the moved positions; researcher_papers rewrites the pairs that moved.
SELECT wove.set_log_triggers('researcher_mentions', ARRAY[
    '', 'paper', 'arxiv_id', 'mention_researcher', 'researcher_id',
    'mention_pair', 'researcher_id+arxiv_id', 'mention_position', 'arxiv_id+position']);
SELECT wove.set_log_triggers('papers', ARRAY['search_tsv', 'paper', 'arxiv_id', 'paper_data', 'arxiv_id',
                                             'paper_row', 'arxiv_id']);
SELECT wove.set_log_triggers('paper_authors', ARRAY['', 'paper', 'arxiv_id', 'paper_data', 'arxiv_id']);
SELECT wove.set_log_triggers('s2_papers', ARRAY['', 'paper', 'arxiv_id', 'paper_data', 'arxiv_id']);
SELECT wove.set_log_triggers('openalex_works', ARRAY['', 'paper', 'arxiv_id', 'paper_data', 'arxiv_id']);
