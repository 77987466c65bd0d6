"""Where a hybrid search at 300k papers spends its time: serving.search_papers whole, without
the query vector (full text + title), vector alone, and the full-text and title-trigram lists'
own queries, on bench_serve's archive. Prints only (a diagnosis for bench_serve's figures).

    .venv/bin/python bench/bench_serve_lists.py [PAPERS]
"""
import os, random, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
import numpy as np
from bench import bench_serve as bs
from bench.bench_relevance_floor import nonsense
from wove_pipeline.core import db, search
from wove_pipeline.core.embedded_pg import scratch_postgres
from wove_pipeline.core.embedding import Embedder, paper_text, vector_literal
from wove_pipeline.core.migrations import migrate
from wove_pipeline.core.tex import slugify_paper, tex_to_text
from wove_pipeline.sandbox.generator import generate_world

N = int(sys.argv[1]) if len(sys.argv) > 1 else 300_000
world = generate_world(seed=7, papers_per_day=61, days=10)
papers = [p for p in world.papers if not p.withdrawn][:600]
base, texts = [], []
for i, p in enumerate(papers):
    title, abstract = tex_to_text(p.title), tex_to_text(p.abstract)
    slug = slugify_paper(p.arxiv_id, title).split("-", 1)[-1][:60].rstrip("-")
    base.append((i, title, abstract, slug, "A B", list(p.categories)))
    texts.append(paper_text(title, abstract))
emb = Embedder()
vecs = emb.encode(texts)
qs = bs.queries(random.Random(7), [b[1] for b in base], 80)[20:80]
with scratch_postgres("wove-diag-serve-") as (pg, _):
    url = pg.ensure_databases().serving
    migrate(url)
    bs.build(url, base, vecs, N, np.random.default_rng(7))
    with db.connect(url, autocommit=True) as conn:
        conn.execute("SET hnsw.ef_search = 64")
        qv = [vector_literal(emb.encode([q])[0]) for q in qs]
        def t(sqltext, params):
            t0 = time.perf_counter(); rows = conn.execute(sqltext, params).fetchall(); return (time.perf_counter() - t0) * 1000, len(rows)
        res = {k: [] for k in ("full", "lexical+title", "vector", "lexical_cte", "title_cte", "nmatch")}
        for q, v in zip(qs, qv):
            res["full"].append(t("SELECT * FROM serving.search_papers(%s, %s::vector, lim => 24, min_similarity => 0.3)", (q, v))[0])
            res["lexical+title"].append(t("SELECT * FROM serving.search_papers(%s, NULL, lim => 24)", (q,))[0])
            res["vector"].append(t("SELECT * FROM serving.search_papers('', %s::vector, lim => 24, min_similarity => 0.3)", (v,))[0])
            res["lexical_cte"].append(t("SELECT arxiv_id FROM wove.papers p WHERE p.search_tsv @@ websearch_to_tsquery('english', wove.immutable_unaccent(%s)) AND NOT p.withdrawn ORDER BY ts_rank_cd(p.search_tsv, websearch_to_tsquery('english', wove.immutable_unaccent(%s)), 1) DESC, arxiv_id LIMIT 100", (q, q))[0])
            conn.execute("SET pg_trgm.similarity_threshold = 0.4")
            res["title_cte"].append(t("SELECT arxiv_id FROM wove.papers p WHERE wove.immutable_unaccent(p.title) %% wove.immutable_unaccent(%s) AND NOT p.withdrawn ORDER BY similarity(wove.immutable_unaccent(p.title), wove.immutable_unaccent(%s)) DESC, arxiv_id LIMIT 100", (q, q))[0])
            res["nmatch"].append(conn.execute("SELECT count(*) FROM wove.papers p WHERE p.search_tsv @@ websearch_to_tsquery('english', wove.immutable_unaccent(%s))", (q,)).fetchone()[0])
        for k, vals in res.items():
            print(f"{k:14s} p50 {bs._pct(vals, 50):8.1f}  p95 {bs._pct(vals, 95):8.1f}  max {max(vals):8.1f}")
        worst = sorted(zip(res["lexical_cte"], res["nmatch"], qs), reverse=True)[:8]
        for w in worst: print(w)
        worst = sorted(zip(res["title_cte"], qs), reverse=True)[:5]
        for w in worst: print(w)
