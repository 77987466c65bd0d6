-- An incremental publish rewrites the serving co-author edges of a researcher who appeared
-- or went, in both directions: by researcher_id (the primary key leads with it) and by
-- coauthor_id, which had no index (each publish scanned every edge for it).
CREATE INDEX researcher_coauthors_coauthor_idx ON wove.researcher_coauthors (coauthor_id);
