-- The row counts each publish left, per serving table (as serving.publication holds them).
-- The publish's blocking check (serving_publication_consistent) reads them to check an
-- incremental publish's bookkeeping (the previous publish's counts plus the rows it inserted,
-- less those it deleted) without counting every serving row, which after 1,000,000 papers
-- cost 46.5 s of a day (issue 22); the counts themselves are checked against the tables by a
-- full rebuild's check and by the weekly serving_audit job. NULL: written before this column.
ALTER TABLE wove.serving_publishes ADD COLUMN row_counts jsonb;
