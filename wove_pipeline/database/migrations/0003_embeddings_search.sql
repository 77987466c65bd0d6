-- Embeddings and search: paper vectors (pgvector, HNSW), full text over papers, and the
-- SQL functions consumers call (serving.search_papers, serving.related_papers).
--
-- Vector dimensions. `embedding` is a `vector` without a fixed size, so a configured model
-- of another size (768, 1024, ...) can be stored without a schema change; every row
-- records its model and dimensions, and a CHECK keeps the two consistent. An HNSW index
-- needs a fixed size, so the index is an expression index on `embedding::vector(384)`,
-- partial on `dimensions = 384` (the default model all-MiniLM-L6-v2). The search
-- functions build their vector query for the dimensions of the query vector, so they use
-- this index for 384-d models and still answer (by exact scan) for any other size until a
-- migration adds the matching index, e.g.
--   CREATE INDEX ... USING hnsw ((embedding::vector(768)) vector_cosine_ops)
--     WITH (m = 16, ef_construction = 64) WHERE dimensions = 768;
-- Vectors of different models never meet: the functions compare only rows of one model.

CREATE TABLE wove.paper_embeddings (
    arxiv_id      text PRIMARY KEY REFERENCES wove.papers (arxiv_id) ON DELETE CASCADE,
    model         text NOT NULL,                -- e.g. sentence-transformers/all-MiniLM-L6-v2
    dimensions    integer NOT NULL CHECK (dimensions > 0),
    content_hash  text NOT NULL,                -- wove.papers.content_hash that was embedded
    embedding     vector NOT NULL,
    embedded_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT paper_embeddings_dims_match CHECK (vector_dims(embedding) = dimensions)
);
CREATE INDEX paper_embeddings_model_idx ON wove.paper_embeddings (model);

-- HNSW, cosine distance, for the default 384-d model. Parameters chosen by measurement
-- (bench/bench_hnsw.py, bench/RESULTS.md "hnsw"; 100,000 clustered synthetic 384-d unit
-- vectors, 200 held-out queries, k = 24, 2 cores under other load):
--   m=16, ef_construction=64: build 75 s; recall@24 0.957 / 0.976 / 0.982 / 0.992 at
--     ef_search 40 / 64 / 100 / 200; p95 12 / 17 / 21 / 32 ms vs 170 ms for the exact scan.
--   m=8,  ef_construction=32: build 29 s; recall@24 0.942 at ef_search 100 (too low).
--   m=24, ef_construction=96: build 135 s; recall@24 0.974 / 0.984 / 0.990 at ef_search
--     40 / 64 / 100; p95 11 / 13 / 19 ms.
-- Chosen: m=24, ef_construction=96, queried at hnsw.ef_search = 64: the best recall among
-- the settings meeting both aims (recall@24 >= 0.95, p95 <= 0.1x the exact scan): 0.984 at
-- 0.076x. The slower build (1.8x) is paid once per row, at insert time.
-- (wove_pipeline.core.search.EF_SEARCH; iterative scans still yield >= 100 candidates.)
CREATE INDEX paper_embeddings_hnsw_384_idx ON wove.paper_embeddings
    USING hnsw ((embedding::vector(384)) vector_cosine_ops)
    WITH (m = 24, ef_construction = 96)
    WHERE dimensions = 384;

-- unaccent() is STABLE (it depends on the search_path to find its dictionary), so it cannot
-- appear in an index or a generated column. This wrapper names the dictionary explicitly
-- and is therefore safe to declare IMMUTABLE.
CREATE FUNCTION wove.immutable_unaccent(text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    RETURN public.unaccent('public.unaccent'::regdictionary, $1);

-- Full text over the clean title (weight A) and abstract (weight B), accents folded.
ALTER TABLE wove.papers ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english'::regconfig, wove.immutable_unaccent(coalesce(title, ''))), 'A') ||
    setweight(to_tsvector('english'::regconfig, wove.immutable_unaccent(coalesce(abstract, ''))), 'B')
) STORED;
CREATE INDEX papers_search_tsv_idx ON wove.papers USING gin (search_tsv);
-- Trigram index on titles (fuzzy title look-ups, e.g. a misspelt title).
CREATE INDEX papers_title_trgm_idx ON wove.papers USING gin (wove.immutable_unaccent(title) gin_trgm_ops);

-- Hybrid search. Three ranked candidate lists, each of the best max(4 * lim, 100):
--   lexical: full text (websearch syntax: "phrase", -not, or), accents folded, ts_rank_cd;
--   vector:  cosine similarity to query_embedding (HNSW), rows of `embedding_model` only
--            (NULL: any model whose vectors have the query's dimensions);
--   title:   trigram similarity of the query to the title (>= 0.4): known-item search, so a
--            pasted title finds its paper even when the abstract dilutes the embedding.
-- Reciprocal rank fusion with k = 60: score = sum over the lists of 1 / (60 + rank).
-- Filters: any of `categories` (primary or cross-list); first version published within
-- [published_from, published_until] (UTC days, inclusive). Withdrawn papers are left out.
-- A NULL query_embedding gives text ranking alone; an empty q gives vector ranking alone.
-- The caller sets hnsw.ef_search with SET LOCAL; iterative index scans keep filtered
-- vector queries complete.
CREATE FUNCTION serving.search_papers(
    q text,
    query_embedding vector,
    categories text[] DEFAULT NULL,
    published_from date DEFAULT NULL,
    published_until date DEFAULT NULL,
    lim integer DEFAULT 24,
    embedding_model text DEFAULT NULL
) RETURNS TABLE (
    arxiv_id text,
    title text,
    score double precision,
    lexical_rank integer,
    vector_rank integer,
    title_rank integer,
    primary_category text,
    published timestamptz
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
               f.title_rank, p.primary_category, p.published
        FROM fused f JOIN wove.papers p ON p.arxiv_id = f.arxiv_id
        ORDER BY f.score DESC, least(f.lexical_rank, f.vector_rank, f.title_rank), f.arxiv_id
        LIMIT $8
    $q$, coalesce(dims, 1), CASE WHEN dims IS NULL THEN 'false' ELSE 'true' END)  -- no query vector: lexical ranking alone
    USING tsq, query_embedding, categories, ts_from, ts_until, n_candidates, embedding_model, lim,
          CASE WHEN q IS NULL OR btrim(q) = '' THEN NULL ELSE wove.immutable_unaccent(q) END;
END
$fn$;

-- Papers nearest to a paper's own embedding (same model), best first; similarity is
-- 1 - cosine distance. Empty when the paper has no embedding yet.
CREATE FUNCTION serving.related_papers(source_arxiv_id text, lim integer DEFAULT 10)
RETURNS TABLE (
    arxiv_id text,
    title text,
    similarity double precision,
    primary_category text,
    published timestamptz
)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public
SET hnsw.iterative_scan = relaxed_order
AS $fn$
DECLARE
    src_model text;
    src_dims integer;
    src_vec vector;
BEGIN
    IF lim IS NULL OR lim < 1 OR lim > 1000 THEN
        RAISE EXCEPTION 'lim must be between 1 and 1000, got %', lim USING ERRCODE = '22023';
    END IF;
    SELECT e.model, e.dimensions, e.embedding INTO src_model, src_dims, src_vec
    FROM wove.paper_embeddings e WHERE e.arxiv_id = source_arxiv_id;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE format($q$
        SELECT n.arxiv_id, p.title, (1 - n.distance)::double precision, p.primary_category, p.published
        FROM (
            SELECT e.arxiv_id, (e.embedding::vector(%1$s)) <=> $1::vector(%1$s) AS distance
            FROM wove.paper_embeddings e
            JOIN wove.papers p ON p.arxiv_id = e.arxiv_id
            WHERE e.dimensions = %1$s AND e.model = $2 AND e.arxiv_id <> $3 AND NOT p.withdrawn
            ORDER BY (e.embedding::vector(%1$s)) <=> $1::vector(%1$s)
            LIMIT $4
        ) n JOIN wove.papers p ON p.arxiv_id = n.arxiv_id
        ORDER BY n.distance, n.arxiv_id
    $q$, src_dims)
    USING src_vec, src_model, source_arxiv_id, lim;
END
$fn$;

COMMENT ON TABLE wove.paper_embeddings IS
    'One embedding of title + abstract per paper, with the model and the content hash it was made from.';
COMMENT ON FUNCTION serving.search_papers(text, vector, text[], date, date, integer, text) IS
    'Hybrid paper search: full text + vector similarity fused by reciprocal rank fusion (k = 60).';
COMMENT ON FUNCTION serving.related_papers(text, integer) IS
    'Papers nearest to the given paper''s embedding (cosine), same model.';
