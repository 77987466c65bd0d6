-- Two indexes no statement reads, dropped (issue 22: what a day writes on a big archive).
--
-- metrics_paper_state_researchers_idx (0005) indexed each paper state's researcher ids; the
-- metrics find a paper's state by its arxiv_id and unnest the ids, and nothing looks states
-- up by researcher. A state changes whole (a new row version): a collaboration paper's state
-- put its 1,000-3,000 ids into the GIN index again every time one link on it moved, a few
-- hundred such papers a day on an archive of 1,000,000 papers.
--
-- researchers_normalized_name_idx (0004) indexed wove.researchers by normalized name; the
-- same-name lists are read from serving.researchers, which has its own index for them
-- (serving/tables.py: researchers_same_name_idx). Here each new researcher's entry was a
-- leaf page of a 2.5-million-row index to read, and each renamed researcher's update could
-- not stay on its page (HOT).
DROP INDEX wove.metrics_paper_state_researchers_idx;
DROP INDEX wove.researchers_normalized_name_idx;
