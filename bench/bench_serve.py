"""`wove serve` at scale: hybrid-search latency through the HTTP server (model loaded once) on
an archive of 300,000 embedded papers, beside the CLI's per-call time (`wove search`, which
starts Python, loads the model and connects on every call).

    .venv/bin/python -m bench.bench_serve [--papers 300000] [--base 600] [--queries 300] [--no-write]

Data (seed fixed, reproducible; load time ~10-15 min at 300k on 2 cores, most of it the HNSW
build). A sandbox world's papers (``--base`` of them) are embedded for real with the default
model; paper n of the archive is a variant of base paper n mod base: its title and abstract
(its title with a part number), categories and a perturbed copy of its real vector (unit
vector + Gaussian noise, cosine ~0.9 to the original), its own id and date. Loaded with
INSERT ... SELECT (papers) and binary COPY (vectors); the HNSW index is then built exactly as
migration 0003 defines it (m = 24, ef_construction = 96); one full publish. Because the
sandbox's vocabulary is small, every word matches many papers (a topic phrase ~1/13 of an
area's papers): the full-text list works harder than on real arXiv text.

Method. `wove serve` runs as its own process (`python -m wove_pipeline.cli serve`, the
embedded server's URL in WOVE_DATABASE_URL) on a loopback port; one client (httpx, keep-alive)
sends GET /search?q=... for distinct queries (topic phrases, paraphrases, word pairs, title
fragments; 20 warm-up requests first), timing each request end to end. Separately: the model's
share (Embedder.encode of one query, in this process), and `wove search QUERY` as a subprocess,
wall time per call. Bar (issue 24): p95 <= 100 ms at 300k papers.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_hnsw import binary_copy  # noqa: E402
from bench.results import write_section  # noqa: E402

SECTION = "wove serve: search latency"
BAR_P95_MS = 100.0
# The same bench before migration 0016 (0015's full-text and title lists: every match ranked,
# every similar title scored), run 2026-12-01 11:12 UTC at 300,000 papers: p50, p95, max (ms)
BEFORE_0016 = {"http": (418.0, 1073.3, 3333.5), "app": (411.3, 1069.7, 3328.1), "embed": (27.0, 67.7, 103.7)}
NOISE_NORM = 0.48  # ||noise|| for a unit vector: cosine to the original ~ 1 / sqrt(1 + 0.48^2) = 0.90

ID_SQL = """
CREATE FUNCTION pg_temp.bench_id(n integer) RETURNS text LANGUAGE sql IMMUTABLE RETURN
    lpad((15 + (n / 20000) / 12)::text, 2, '0') || lpad((1 + (n / 20000) % 12)::text, 2, '0') || '.'
    || lpad((1 + n % 20000)::text, 5, '0')
"""

PAPERS_SQL = """
INSERT INTO wove.papers (arxiv_id, is_old_style, current_version, versions, title_tex, title, abstract_tex,
    abstract, authors, authors_display, categories, primary_category, published, updated, slug, abs_url,
    pdf_url, oai_datestamp, content_hash)
SELECT id, false, 1, '[]'::jsonb, t, t, b.abstract, b.abstract, '[]'::jsonb, b.authors, b.categories,
       b.categories[1], pub, pub, id || '-' || b.slug || '-' || (s.n / %(B)s), 'https://arxiv.org/abs/' || id,
       'https://arxiv.org/pdf/' || id, (pub AT TIME ZONE 'UTC')::date, md5(t || b.abstract)
FROM (SELECT n, pg_temp.bench_id(n) AS id,
             timestamptz '2015-01-01' + (n::float / %(N)s) * interval '3650 days' AS pub
      FROM generate_series(0, %(N)s - 1) n) s
JOIN bench_base b ON b.b = s.n %% %(B)s
CROSS JOIN LATERAL (SELECT CASE WHEN s.n < %(B)s THEN b.title
                                ELSE b.title || ', part ' || (s.n / %(B)s) END AS t) tt
"""

HNSW_SQL = """
CREATE INDEX paper_embeddings_hnsw_384_idx ON wove.paper_embeddings
    USING hnsw ((embedding::vector(384)) vector_cosine_ops)
    WITH (m = 24, ef_construction = 96)
    WHERE dimensions = 384
"""

PARAPHRASES = [
    "splitting pictures into labelled regions", "making videos with neural networks",
    "writing computer programs automatically", "recovering 3D shape from photos",
    "translating sentences between languages", "training across phones without sharing data",
    "spotting unusual events in sensor data", "robots picking up objects", "answering questions about documents",
    "training huge models on many GPUs", "aligning lidar scans", "drawing images from a text prompt",
    "how neutrinos change flavour", "gravitational waves from colliding black holes",
    "materials that conduct on their surface", "quantum computers from superconducting circuits",
    "matter in heavy ion collisions", "big bang afterglow fluctuations", "frustrated magnets",
    "air on planets around other stars", "telling knots apart", "rational points on cubic curves",
    "networks with random edges", "minimizing convex functions", "equations driven by noise",
]


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q / 100 * (len(s) - 1))))]


def _ms(t: tuple[float, float, float]) -> str:
    return " / ".join(f"{x:.1f}" for x in t) + " ms"


def queries(rng: random.Random, titles: list[str], n: int) -> list[str]:
    from wove_pipeline.sandbox.vocabulary import WORDS
    phrases = sorted({t for w in WORDS.values() for t in w["task"]} | {m for w in WORDS.values() for m in w["method"]})
    adjs = sorted({a for w in WORDS.values() for a in w["adj"]})
    out: list[str] = []
    out += phrases
    out += PARAPHRASES
    while len(out) < n:
        kind = rng.random()
        if kind < 0.4:
            out.append(f"{rng.choice(adjs).lower()} {rng.choice(phrases)}")
        elif kind < 0.7:
            out.append(f"{rng.choice(phrases)} {rng.choice(phrases)}")
        else:
            words = rng.choice(titles).split()
            k = rng.randint(2, min(6, len(words)))
            i = rng.randint(0, len(words) - k)
            out.append(" ".join(words[i:i + k]))
    out = list(dict.fromkeys(out))
    rng.shuffle(out)
    return out[:n]


def build(url: str, base, vectors: np.ndarray, n: int, rng: np.random.Generator) -> dict[str, float]:
    from wove_pipeline.database import access as db
    from wove_pipeline.search.embedding import DEFAULT_MODEL
    from wove_pipeline.serving import publish as publishing
    t: dict[str, float] = {}
    b = len(base)
    t0 = time.perf_counter()
    with db.transaction(url) as conn:
        conn.execute(ID_SQL)
        conn.execute("CREATE TEMP TABLE bench_base (b integer, title text, abstract text, slug text, authors text, "
                     "categories text[])")
        with conn.cursor().copy("COPY bench_base FROM STDIN") as cp:
            for row in base:
                cp.write_row(row)
        conn.execute(PAPERS_SQL, {"N": n, "B": b})
    t["papers"] = time.perf_counter() - t0
    print(f"papers: {n:,} in {t['papers']:.0f} s", flush=True)

    t0 = time.perf_counter()
    with db.transaction(url) as conn:
        conn.execute(ID_SQL)
        conn.execute("DROP INDEX wove.paper_embeddings_hnsw_384_idx")
        conn.execute("CREATE TEMP TABLE bench_vec (n integer, dimensions integer, embedding vector) ON COMMIT DROP")
        chunk = 50_000
        with conn.cursor().copy("COPY bench_vec (n, dimensions, embedding) FROM STDIN (FORMAT BINARY)") as cp:
            for start in range(0, n, chunk):
                ids = np.arange(start, min(n, start + chunk), dtype=np.int32)
                v = vectors[ids % b]
                noise = rng.standard_normal(v.shape).astype(np.float32) * (NOISE_NORM / np.sqrt(v.shape[1]))
                v = v + np.where((ids < b)[:, None], 0, noise)
                v /= np.linalg.norm(v, axis=1, keepdims=True)
                data = binary_copy(ids, v.astype(np.float32))
                # one stream: the header (19 bytes) first only, the trailer (2 bytes) last only
                cp.write(data[0 if start == 0 else 19: None if start + chunk >= n else -2])
        conn.execute("INSERT INTO wove.paper_embeddings (arxiv_id, model, dimensions, content_hash, embedding) "
                     "SELECT pg_temp.bench_id(v.n), %s, v.dimensions, p.content_hash, v.embedding "
                     "FROM bench_vec v JOIN wove.papers p ON p.arxiv_id = pg_temp.bench_id(v.n)", (DEFAULT_MODEL,))
    t["vectors"] = time.perf_counter() - t0
    print(f"vectors: {t['vectors']:.0f} s", flush=True)

    t0 = time.perf_counter()
    with db.connect(url, autocommit=True) as conn:
        conn.execute("SET maintenance_work_mem = '2GB'")
        conn.execute("SET max_parallel_maintenance_workers = 1")
        conn.execute(HNSW_SQL)
        conn.execute("VACUUM ANALYZE wove.papers")
        conn.execute("VACUUM ANALYZE wove.paper_embeddings")
    t["hnsw"] = time.perf_counter() - t0
    print(f"hnsw + analyze: {t['hnsw']:.0f} s", flush=True)

    t0 = time.perf_counter()
    with db.connect(url, autocommit=True) as conn:
        publishing.publish(conn)
    t["publish"] = time.perf_counter() - t0
    print(f"publish: {t['publish']:.0f} s", flush=True)
    return t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers", type=int, default=300_000)
    ap.add_argument("--base", type=int, default=600, help="sandbox papers embedded for real (the variants' sources)")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--cli-calls", type=int, default=5)
    ap.add_argument("--no-write", action="store_true", help="print only, leave bench/RESULTS.md alone")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    import httpx

    from bench.bench_relevance_floor import EVERYDAY, nonsense
    from wove_pipeline.arxiv.tex import slugify_paper, tex_to_text
    from wove_pipeline.database.embedded import scratch_postgres
    from wove_pipeline.database.migrations import migrate
    from wove_pipeline.sandbox.generator import generate_world
    from wove_pipeline.search import query as search
    from wove_pipeline.search.embedding import Embedder, paper_text

    world = generate_world(seed=7, papers_per_day=max(10, args.base // 10 + 1), days=10)
    papers = [p for p in world.papers if not p.withdrawn][: args.base]
    base, texts = [], []
    for i, p in enumerate(papers):
        title, abstract = tex_to_text(p.title), tex_to_text(p.abstract)
        slug = slugify_paper(p.arxiv_id, title).split("-", 1)[-1][:60].rstrip("-")
        authors = ", ".join(" ".join(x for x in (a.forenames, a.keyname) if x) for a in p.authors)
        base.append((i, title, abstract, slug, authors, list(p.categories)))
        texts.append(paper_text(title, abstract))
    embedder = Embedder()
    t0 = time.perf_counter()
    vectors = embedder.encode(texts)
    print(f"embedded {len(texts)} base papers in {time.perf_counter() - t0:.0f} s", flush=True)
    rng = random.Random(7)
    qs = queries(rng, [b[1] for b in base], args.queries + 20)
    junk = nonsense(random.Random(7), 40) + EVERYDAY

    del embedder  # the server loads its own

    with scratch_postgres("wove-bench-serve-") as (pg, _tmp):
        url = pg.ensure_databases().serving
        migrate(url)
        timings = build(url, base, vectors, args.papers, np.random.default_rng(7))

        env = {**os.environ, "WOVE_DATABASE_URL": url, "HF_HUB_OFFLINE": "1"}
        env.pop("WOVE_DEBUG", None)
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "wove_pipeline.cli", "serve", "--port", "0", "--quiet"],
                                env=env, stdout=subprocess.PIPE, text=True)
        try:
            line = proc.stdout.readline()
            if not line.startswith("wove serve: http://"):
                raise SystemExit(f"wove serve did not start: {line!r}")
            startup_s = time.perf_counter() - t0
            base_url = line.split()[2].rstrip("/")
            lat, enc_ms, app_ms, counts, kinds = [], [], [], [], {"lexical": 0, "vector_only": 0}
            with httpx.Client(base_url=base_url, timeout=60) as client:
                for q in qs[:20]:  # warm-up
                    client.get(f"/search?q={quote(q)}").raise_for_status()
                for q in qs[20:]:
                    t0 = time.perf_counter()
                    r = client.get(f"/search?q={quote(q)}")
                    lat.append((time.perf_counter() - t0) * 1000)
                    r.raise_for_status()
                    timing = dict(part.strip().split(";dur=") for part in r.headers["server-timing"].split(","))
                    enc_ms.append(float(timing["embed"]))
                    app_ms.append(float(timing["app"]))
                    body = r.json()
                    counts.append(body["count"])
                    lexical = any(x["ranks"]["lexical"] for x in body["results"])
                    kinds["lexical" if lexical else "vector_only"] += 1
                junk_hits = []
                for q in junk:
                    r = client.get(f"/search?q={quote(q)}")
                    r.raise_for_status()
                    junk_hits.append(r.json()["count"])
                page = client.get("/papers/1501.00001")
                page_ok = page.status_code == 200
        finally:
            proc.terminate()
            proc.wait(timeout=60)

        cli_s = []
        for q in qs[20:20 + args.cli_calls]:
            t0 = time.perf_counter()
            out = subprocess.run([sys.executable, "-m", "wove_pipeline.cli", "search", q], env=env,
                                 capture_output=True, text=True, timeout=300)
            cli_s.append(time.perf_counter() - t0)
            if out.returncode != 0:
                raise SystemExit(f"wove search failed: {out.stderr.strip()}")

    p50, p95, mx = _pct(lat, 50), _pct(lat, 95), max(lat)
    verdict = "PASS" if p95 <= BAR_P95_MS else "FAIL"
    cli_med = statistics.median(cli_s)
    body = f"""\
Archive: **{args.papers:,} papers with embeddings** (variants of {len(base)} sandbox papers embedded for real
with all-MiniLM-L6-v2, see the script's docstring); HNSW as migration 0003 (m = 24, ef_construction = 96),
queried at ef_search = {search.EF_SEARCH}; relevance floor {search.RELEVANCE_FLOOR}; embedded PostgreSQL 18,
default settings. Load: papers {timings['papers']:.0f} s, vectors {timings['vectors']:.0f} s, HNSW build +
analyze {timings['hnsw']:.0f} s, full publish {timings['publish']:.0f} s.

`wove serve` in its own process (start to first line, model loaded and warmed: {startup_s:.1f} s); one
keep-alive client, {len(lat)} distinct queries after 20 warm-up ones ({kinds['lexical']} with full-text hits,
{kinds['vector_only']} answered by the vector list alone), each a GET /search?q=... timed end to end:

| measure | p50 | p95 | max |
|---|---|---|---|
| hybrid search through `wove serve` (HTTP, embed + SQL + records + JSON) | {p50:.1f} ms | **{p95:.1f} ms** | {mx:.1f} ms |
| of which in the server's handler (its Server-Timing `app`: embed + SQL + records + JSON) | {_pct(app_ms, 50):.1f} ms | {_pct(app_ms, 95):.1f} ms | {max(app_ms):.1f} ms |
| of which embedding the query (Server-Timing `embed`) | {_pct(enc_ms, 50):.1f} ms | {_pct(enc_ms, 95):.1f} ms | {max(enc_ms):.1f} ms |
| `wove search QUERY` (CLI, a process per call: Python, model load, connect), {len(cli_s)} calls | {cli_med * 1000:.0f} ms | {_pct(cli_s, 95) * 1000:.0f} ms | {max(cli_s) * 1000:.0f} ms |

Before migration 0016 (0015's lists, same archive and queries, run of 2026-12-01; bench_serve_lists has
both in one run): through `wove serve` {_ms(BEFORE_0016["http"])}; Server-Timing `app`
{_ms(BEFORE_0016["app"])}; `embed` {_ms(BEFORE_0016["embed"])} (p50 / p95 / max).

- p95 through `wove serve` at {args.papers:,} papers: **{p95:.1f} ms** (bar: <= {BAR_P95_MS:.0f} ms): **{verdict}**;
  the CLI's per-call time is {cli_med * 1000 / p50:.0f}x the server's median.
- results per query: median {statistics.median(counts):.0f}, min {min(counts)} (limit 24).
- nonsense queries ({len(junk)}: seeded random letters, everyday queries): {sum(1 for c in junk_hits if c == 0)} got no
  result; the rest {sorted(c for c in junk_hits if c)} results (their words matched papers in full text, or a
  vector above the floor).
- a paper page through the server: {'200' if page_ok else 'FAILED'}.
"""
    print(body)
    if not args.no_write:
        write_section(SECTION, body, command="python -m bench.bench_serve " + " ".join(argv or sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
