-- Bounded candidate lists for hybrid search (issue 24: p95 <= 100 ms at 300k papers).
--
-- At 300k papers (bench/RESULTS.md "wove serve: search latency") two of serving.search_papers'
-- three lists cost as much as the whole archive:
--   full text: ts_rank_cd scored every match before the LIMIT (a common word matches tens of
--     thousands of papers, each tsvector read from TOAST): p95 438 ms;
--   title:     the GIN trigram index finds every title with similarity >= 0.4, then all of them
--     are scored and sorted (thousands of near-identical titles): p95 383 ms.
-- Now each list reads a bounded number of rows, however common the words:
--   full text: a sample of at most max(4 * lim, 1000) matches, papers whose title has every
--     query term first (the index papers_title_tsv_idx; a title match has weight A and
--     dominates ts_rank_cd), then papers matching anywhere (papers_search_tsv_idx) for the
--     rest, both in index (physical) order; plus the title and vector lists' first lim papers that match
--     (so an exact title is ranked however many titles share its words). Only those are
--     ranked with ts_rank_cd as before. A query matching fewer papers than the cap is ranked
--     exactly as before; a common one is ranked within that sample.
--   title:     a nearest-neighbour scan of a GiST trigram index (ORDER BY title <-> q LIMIT k,
--     still only titles with similarity >= 0.4): it stops after k rows. gist_trgm_ops with
--     siglen = 256: the default 12-byte signature saturates on title-length strings and the
--     scan visits most of the index (~100 ms at 300k); 256 bytes, ~7 ms.
-- The GIN trigram index on titles (0003) served only this list and is dropped (the planner
-- chose it, with a sort of every match, for filtered queries).
-- Signature, arguments, defaults and result columns are those of 0015 (contract 1.0).
CREATE INDEX papers_title_tsv_idx ON wove.papers
    USING gin (to_tsvector('english'::regconfig, wove.immutable_unaccent(coalesce(title, ''))));
CREATE INDEX papers_title_trgm_gist_idx ON wove.papers
    USING gist (wove.immutable_unaccent(title) gist_trgm_ops (siglen = 256));
DROP INDEX wove.papers_title_trgm_idx;

CREATE OR REPLACE FUNCTION serving.search_papers(
    q text,
    query_embedding vector,
    categories text[] DEFAULT NULL,
    published_from date DEFAULT NULL,
    published_until date DEFAULT NULL,
    lim integer DEFAULT 24,
    embedding_model text DEFAULT NULL,
    min_similarity double precision DEFAULT NULL
) RETURNS TABLE (
    arxiv_id text,
    title text,
    score double precision,
    lexical_rank integer,
    vector_rank integer,
    title_rank integer,
    primary_category text,
    published timestamptz,
    similarity double precision
)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public
SET hnsw.iterative_scan = relaxed_order
SET pg_trgm.similarity_threshold = 0.4
AS $fn$
DECLARE
    n_candidates integer := greatest(coalesce(lim, 24) * 4, 100);
    -- full-text sample (title matches, then matches anywhere): at least the list's length
    n_lexical integer := greatest(coalesce(lim, 24) * 4, 1000);
    dims integer := CASE WHEN query_embedding IS NULL THEN NULL ELSE vector_dims(query_embedding) END;
    ts_from timestamptz := published_from::timestamp AT TIME ZONE 'UTC';
    ts_until timestamptz := (published_until + 1)::timestamp AT TIME ZONE 'UTC';
    tsq tsquery := CASE WHEN q IS NULL OR btrim(q) = '' THEN NULL
                        ELSE websearch_to_tsquery('english'::regconfig, wove.immutable_unaccent(q)) END;
BEGIN
    IF lim IS NULL OR lim < 1 OR lim > 1000 THEN
        RAISE EXCEPTION 'lim must be between 1 and 1000, got %', lim USING ERRCODE = '22023';
    END IF;
    IF min_similarity IS NOT NULL AND NOT (min_similarity BETWEEN -1 AND 1) THEN
        RAISE EXCEPTION 'min_similarity must be between -1 and 1, got %', min_similarity USING ERRCODE = '22023';
    END IF;
    -- The vector query is built for the dimensions of the query vector (an integer from
    -- vector_dims, never text from the caller), so the planner matches the partial
    -- expression index for that size. Every value travels as a parameter.
    RETURN QUERY EXECUTE format($q$
        WITH titled AS MATERIALIZED (
            SELECT t.arxiv_id, row_number() OVER (ORDER BY t.distance, t.arxiv_id)::integer AS r
            FROM (SELECT p.arxiv_id, wove.immutable_unaccent(p.title) <-> $9 AS distance
                  FROM wove.papers p
                  WHERE $9 IS NOT NULL AND wove.immutable_unaccent(p.title) %% $9
                    AND NOT p.withdrawn
                    AND ($3::text[] IS NULL OR p.categories && $3)
                    AND ($4::timestamptz IS NULL OR p.published >= $4)
                    AND ($5::timestamptz IS NULL OR p.published < $5)
                  ORDER BY wove.immutable_unaccent(p.title) <-> $9
                  LIMIT $6) t
        ),
        nearest AS MATERIALIZED (
            SELECT e.arxiv_id, (e.embedding::vector(%1$s)) <=> $2::vector(%1$s) AS distance
            FROM wove.paper_embeddings e
            JOIN wove.papers p ON p.arxiv_id = e.arxiv_id
            WHERE %2$s AND e.dimensions = %1$s
              AND ($7::text IS NULL OR e.model = $7)
              AND NOT p.withdrawn
              AND ($3::text[] IS NULL OR p.categories && $3)
              AND ($4::timestamptz IS NULL OR p.published >= $4)
              AND ($5::timestamptz IS NULL OR p.published < $5)
            ORDER BY (e.embedding::vector(%1$s)) <=> $2::vector(%1$s)
            LIMIT $6
        ),
        semantic AS (
            SELECT n.arxiv_id, row_number() OVER (ORDER BY n.distance, n.arxiv_id)::integer AS r
            FROM nearest n
            WHERE $10::double precision IS NULL OR 1 - n.distance >= $10
        ),
        title_matches AS MATERIALIZED (
            -- the title has every term; the whole text is checked on the rows read (not with
            -- a second index scan): it differs from the title's only under -word
            SELECT p.arxiv_id, p.search_tsv @@ $1 AS matches, ts_rank_cd(p.search_tsv, $1, 1) AS rank
            FROM wove.papers p
            WHERE $1 IS NOT NULL
              AND to_tsvector('english'::regconfig, wove.immutable_unaccent(coalesce(p.title, ''))) @@ $1
              AND NOT p.withdrawn
              AND ($3::text[] IS NULL OR p.categories && $3)
              AND ($4::timestamptz IS NULL OR p.published >= $4)
              AND ($5::timestamptz IS NULL OR p.published < $5)
            LIMIT $11
        ),
        lexical_candidates AS (
            SELECT m.arxiv_id, m.rank FROM title_matches m WHERE m.matches
            UNION ALL
            -- matches anywhere fill the rest of the sample (none read when the titles fill it)
            (SELECT p.arxiv_id, ts_rank_cd(p.search_tsv, $1, 1) AS rank
             FROM wove.papers p
             WHERE $1 IS NOT NULL AND p.search_tsv @@ $1
               AND (SELECT count(*) FROM title_matches) < $11
               AND NOT p.withdrawn
               AND ($3::text[] IS NULL OR p.categories && $3)
               AND ($4::timestamptz IS NULL OR p.published >= $4)
               AND ($5::timestamptz IS NULL OR p.published < $5)
             LIMIT $11 - (SELECT count(*) FROM title_matches))
            UNION ALL
            -- the title and vector lists' first lim papers are always full-text candidates
            -- (when they match), so an exact title is ranked however many titles share its words
            -- (a subquery per id, looked up by key: as a join, an underestimated match count
            -- made the planner read every match)
            SELECT k.arxiv_id, k.rank
            FROM (SELECT i.arxiv_id,
                         (SELECT ts_rank_cd(p.search_tsv, $1, 1) FROM wove.papers p
                          WHERE p.arxiv_id = i.arxiv_id AND p.search_tsv @@ $1) AS rank
                  FROM (SELECT t.arxiv_id FROM titled t WHERE t.r <= $8
                        UNION SELECT v.arxiv_id FROM semantic v WHERE v.r <= $8) i
                  WHERE $1 IS NOT NULL) k
            WHERE k.rank IS NOT NULL
        ),
        lexical AS (
            SELECT c.arxiv_id, row_number() OVER (ORDER BY max(c.rank) DESC, c.arxiv_id)::integer AS r
            FROM lexical_candidates c
            GROUP BY c.arxiv_id
            ORDER BY max(c.rank) DESC, c.arxiv_id
            LIMIT $6
        ),
        ids AS (
            SELECT arxiv_id FROM lexical UNION SELECT arxiv_id FROM titled UNION SELECT arxiv_id FROM semantic
        ),
        fused AS (
            SELECT i.arxiv_id,
                   coalesce(1.0 / (60 + l.r), 0) + coalesce(1.0 / (60 + s.r), 0)
                     + coalesce(1.0 / (60 + t.r), 0) AS score,
                   l.r AS lexical_rank, s.r AS vector_rank, t.r AS title_rank
            FROM ids i
            LEFT JOIN lexical l ON l.arxiv_id = i.arxiv_id
            LEFT JOIN semantic s ON s.arxiv_id = i.arxiv_id
            LEFT JOIN titled t ON t.arxiv_id = i.arxiv_id
        )
        SELECT f.arxiv_id, p.title, f.score::double precision, f.lexical_rank, f.vector_rank,
               f.title_rank, p.primary_category, p.published, (1 - n.distance)::double precision
        FROM fused f JOIN wove.papers p ON p.arxiv_id = f.arxiv_id
        LEFT JOIN nearest n ON n.arxiv_id = f.arxiv_id
        ORDER BY f.score DESC, least(f.lexical_rank, f.vector_rank, f.title_rank), f.arxiv_id
        LIMIT $8
    $q$, coalesce(dims, 1), CASE WHEN dims IS NULL THEN 'false' ELSE 'true' END)  -- no query vector: lexical ranking alone
    USING tsq, query_embedding, categories, ts_from, ts_until, n_candidates, embedding_model, lim,
          CASE WHEN q IS NULL OR btrim(q) = '' THEN NULL ELSE wove.immutable_unaccent(q) END,
          min_similarity, n_lexical;
END
$fn$;

COMMENT ON FUNCTION serving.search_papers(text, vector, text[], date, date, integer, text, double precision) IS
    'Hybrid paper search: full text + vector similarity + title trigram fused by reciprocal rank fusion (k = 60); '
    'min_similarity: the vector list''s relevance floor (cosine); full text ranks a bounded sample of its matches '
    '(title matches, any matches, the other lists'' papers), the title list is a k-nearest trigram scan (0016).';
