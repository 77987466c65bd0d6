-- A relevance floor for hybrid search, and the vector similarity of each hit.
--
-- serving.search_papers (0003) fuses three ranked lists; the vector list always has its
-- max(4 * lim, 100) nearest papers, however far they are, so a nonsense query ("qzxv
-- blorp") got lim weak vector hits and nothing told them from real ones. Now:
--   min_similarity: vector candidates below this cosine similarity leave the vector list
--     (NULL, the default: no floor, as before). Lexical and title hits are not affected:
--     every word of the query matched, or the title is a near copy of it.
--   similarity: each hit's cosine similarity to the query vector (NULL when the paper was
--     not among the vector candidates, or there is no query vector).
-- The floor the site uses (wove_pipeline.core.search.RELEVANCE_FLOOR, `wove serve`) was
-- measured on the sandbox world: bench/RESULTS.md "Relevance floor".
-- Same name, one more optional argument and one more column (additive, contract 1.0):
-- callers passing the first seven arguments get the same rows as before.
DROP FUNCTION serving.search_papers(text, vector, text[], date, date, integer, text);

CREATE FUNCTION serving.search_papers(
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
        WITH lexical AS (
            SELECT p.arxiv_id,
                   row_number() OVER (ORDER BY ts_rank_cd(p.search_tsv, $1, 1) DESC, p.arxiv_id)::integer AS r
            FROM wove.papers p
            WHERE $1 IS NOT NULL AND p.search_tsv @@ $1
              AND NOT p.withdrawn
              AND ($3::text[] IS NULL OR p.categories && $3)
              AND ($4::timestamptz IS NULL OR p.published >= $4)
              AND ($5::timestamptz IS NULL OR p.published < $5)
            ORDER BY ts_rank_cd(p.search_tsv, $1, 1) DESC, p.arxiv_id
            LIMIT $6
        ),
        titled AS (
            SELECT p.arxiv_id,
                   row_number() OVER (ORDER BY similarity(wove.immutable_unaccent(p.title), $9) DESC, p.arxiv_id)::integer AS r
            FROM wove.papers p
            WHERE $9 IS NOT NULL AND wove.immutable_unaccent(p.title) %% $9
              AND NOT p.withdrawn
              AND ($3::text[] IS NULL OR p.categories && $3)
              AND ($4::timestamptz IS NULL OR p.published >= $4)
              AND ($5::timestamptz IS NULL OR p.published < $5)
            ORDER BY similarity(wove.immutable_unaccent(p.title), $9) DESC, p.arxiv_id
            LIMIT $6
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
          min_similarity;
END
$fn$;

COMMENT ON FUNCTION serving.search_papers(text, vector, text[], date, date, integer, text, double precision) IS
    'Hybrid paper search: full text + vector similarity fused by reciprocal rank fusion (k = 60); '
    'min_similarity: the vector list''s relevance floor (cosine).';
