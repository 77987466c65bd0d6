"""Where a hybrid search at 300k papers spends its time: serving.search_papers whole, without
the query vector (full text + title), vector alone, and the full-text and title lists' own
queries, on bench_serve's archive; migration 0015's function and lists (before) beside
0016's (after: bounded full-text sample, nearest-neighbour title scan), in one run.

    .venv/bin/python bench/bench_serve_lists.py [PAPERS] [--no-write]

Before: 0015's function is installed beside the current one as serving.search_papers_0015
(its text from the migration file) and timed with 0015's GIN trigram title index rebuilt;
that index is then dropped again (0016 drops it) and the current function is timed. Direct
SQL on one connection (no HTTP, no embedding), hnsw.ef_search = 64, 60 of bench_serve's
queries (10 warm-up calls before each), min_similarity = 0.3 as `wove serve` calls it.
"""
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
import numpy as np

from bench import bench_serve as bs
from bench.results import write_section
from wove_pipeline.arxiv.tex import slugify_paper, tex_to_text
from wove_pipeline.database import access as db
from wove_pipeline.database.embedded import scratch_postgres
from wove_pipeline.database.migrations import available, migrate
from wove_pipeline.sandbox.generator import generate_world
from wove_pipeline.search.embedding import Embedder, paper_text, vector_literal

SECTION = "wove serve: where search time goes"
args = [a for a in sys.argv[1:] if not a.startswith("--")]
N = int(args[0]) if args else 300_000
TSQ = "websearch_to_tsquery('english', wove.immutable_unaccent(%(q)s))"
UQ = "wove.immutable_unaccent(%(q)s)"
LISTS = {
    # 0015: every match ranked / every title over the threshold scored and sorted
    "lexical_0015": f"SELECT arxiv_id FROM wove.papers p WHERE p.search_tsv @@ {TSQ} AND NOT p.withdrawn "
                    f"ORDER BY ts_rank_cd(p.search_tsv, {TSQ}, 1) DESC, arxiv_id LIMIT 100",
    "title_0015": f"SELECT arxiv_id FROM wove.papers p WHERE wove.immutable_unaccent(p.title) %% {UQ} AND NOT p.withdrawn "
                  f"ORDER BY similarity(wove.immutable_unaccent(p.title), {UQ}) DESC, arxiv_id LIMIT 100",
    # 0016: the capped full-text sample ranked, title matches first, then matches anywhere
    # (the function adds the other lists' papers)
    "lexical_0016": f"WITH t AS MATERIALIZED (SELECT p.arxiv_id, ts_rank_cd(p.search_tsv, {TSQ}, 1) r "
                    "FROM wove.papers p WHERE "
                    f"to_tsvector('english'::regconfig, wove.immutable_unaccent(coalesce(p.title, ''))) @@ {TSQ} "
                    "AND NOT p.withdrawn LIMIT 1000) "
                    "SELECT arxiv_id FROM (SELECT * FROM t UNION ALL "
                    f"(SELECT p.arxiv_id, ts_rank_cd(p.search_tsv, {TSQ}, 1) r FROM wove.papers p WHERE "
                    f"p.search_tsv @@ {TSQ} AND (SELECT count(*) FROM t) < 1000 AND NOT p.withdrawn "
                    "LIMIT 1000 - (SELECT count(*) FROM t))) c "
                    "GROUP BY arxiv_id ORDER BY max(r) DESC, arxiv_id LIMIT 100",
    "title_0016": f"SELECT arxiv_id FROM wove.papers p WHERE wove.immutable_unaccent(p.title) %% {UQ} AND NOT p.withdrawn "
                  f"ORDER BY wove.immutable_unaccent(p.title) <-> {UQ} LIMIT 100",
}
FULL = "SELECT * FROM serving.{}(%(q)s, %(v)s::vector, lim => 24, min_similarity => 0.3)"
TEXT = "SELECT * FROM serving.{}(%(q)s, NULL, lim => 24)"
VEC = "SELECT * FROM serving.{}('', %(v)s::vector, lim => 24, min_similarity => 0.3)"

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
all_qs = bs.queries(random.Random(7), [b[1] for b in base], 80)
qs, warm = all_qs[20:80], all_qs[:10]  # bench_serve's first 20 are its warm-up
qv = [vector_literal(v) for v in emb.encode(qs)]
wv = [vector_literal(v) for v in emb.encode(warm)]
old_fn = next(text for v, _, text in available() if v == 15)
old_fn = old_fn[old_fn.index("CREATE FUNCTION"):old_fn.index("COMMENT ON")].replace(
    "CREATE FUNCTION serving.search_papers(", "CREATE FUNCTION serving.search_papers_0015(")

with scratch_postgres("wove-diag-serve-") as (pg, _):
    url = pg.ensure_databases().serving
    migrate(url)
    bs.build(url, base, vecs, N, np.random.default_rng(7))
    res: dict[str, list[float]] = {}
    with db.connect(url, autocommit=True) as conn:
        conn.execute("SET hnsw.ef_search = 64")
        conn.execute("SET pg_trgm.similarity_threshold = 0.4")

        def t(key, sqltext, params):
            t0 = time.perf_counter()
            conn.execute(sqltext, params).fetchall()
            res.setdefault(key, []).append((time.perf_counter() - t0) * 1000)

        def timed(version, fn):
            for q, v in zip(warm, wv):
                conn.execute(FULL.format(fn), {"q": q, "v": v}).fetchall()
            for q, v in zip(qs, qv):
                p = {"q": q, "v": v}
                for name, sql in (("full", FULL), ("text", TEXT), ("vector", VEC)):
                    t(f"{name}_{version}", sql.format(fn), p)
                t(f"lexical_{version}", LISTS[f"lexical_{version}"], p)
                t(f"title_{version}", LISTS[f"title_{version}"], p)

        conn.execute(old_fn)
        conn.execute("CREATE INDEX papers_title_trgm_idx ON wove.papers USING gin (wove.immutable_unaccent(title) gin_trgm_ops)")
        conn.execute("ANALYZE wove.papers")
        timed("0015", "search_papers_0015")
        conn.execute("DROP INDEX wove.papers_title_trgm_idx")
        timed("0016", "search_papers")
        nmatch = [conn.execute(f"SELECT count(*) FROM wove.papers p WHERE p.search_tsv @@ {TSQ}", {"q": q}).fetchone()[0]
                  for q in qs]
        ntitle = [conn.execute(f"SELECT count(*) FROM wove.papers p WHERE wove.immutable_unaccent(p.title) %% {UQ}",
                               {"q": q}).fetchone()[0] for q in qs]


def row(label, key):
    a, b = res[f"{key}_0015"], res[f"{key}_0016"]
    return (f"| {label} | {bs._pct(a, 50):.1f} / {bs._pct(a, 95):.1f} / {max(a):.1f} ms "
            f"| {bs._pct(b, 50):.1f} / {bs._pct(b, 95):.1f} / {max(b):.1f} ms |")


body = f"""\
bench_serve's archive ({N:,} papers with embeddings), {len(qs)} of its queries; direct SQL on one connection
(no HTTP, no query embedding), hnsw.ef_search = 64. Before: migration 0015's function and lists, with its GIN
trigram title index; after: migration 0016 (full text ranks a bounded sample: <= 1000 matches, title
matches first, then matches anywhere, + the title and vector lists' first 24 that match; title list: nearest-neighbour scan of a GiST trigram
index, siglen 256). p50 / p95 / max:

| what | before (0015) | after (0016) |
|---|---|---|
{row("serving.search_papers, text + vector (as `wove serve`, floor 0.3)", "full")}
{row("serving.search_papers, no query vector (full text + title)", "text")}
{row("serving.search_papers, vector alone", "vector")}
{row("full-text list alone (its ranking query)", "lexical")}
{row("title list alone", "title")}

Full-text matches per query: median {int(np.median(nmatch)):,}, max {max(nmatch):,}; titles with trigram similarity
>= 0.4: median {int(np.median(ntitle)):,}, max {max(ntitle):,} (0015 scored all of them).
"""
print(body)
if "--no-write" not in sys.argv:
    write_section(SECTION, body, command="python bench/bench_serve_lists.py " + " ".join(sys.argv[1:]))
