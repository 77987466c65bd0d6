-- Room on each page for the rows a day updates by key (issue 22), so that an update that
-- changes no indexed column is written beside the old row (a HOT update) and touches no index.
--
-- A day's matching rewrites the rows of every researcher it touches (their mention count,
-- profile, co-author counts): 8,626 researchers, profiles and 5,998 co-author pairs in a day
-- of 1,208 papers. Their pages were full (a table filled by COPY or by upserts keeps no room
-- at the default fillfactor of 100), so every update went to another page and added an entry
-- to every index of the table, two GIN indexes included: 23 of 8,626 researcher updates and
-- none of the profiles' were HOT (bench/bench_day_after.py, "writes"). On an archive larger
-- than memory each such entry is a random read of an index page and a full-page image in the
-- WAL. Profiles are wide rows (their large JSON lives in TOAST, the rest on the page): more room.
-- Existing pages get the room as they are rewritten (VACUUM FULL gives it at once).
ALTER TABLE wove.researchers SET (fillfactor = 90);
ALTER TABLE wove.researcher_profiles SET (fillfactor = 80);
ALTER TABLE wove.researcher_coauthors SET (fillfactor = 90);
ALTER TABLE wove.metrics_institution_researchers SET (fillfactor = 90);
