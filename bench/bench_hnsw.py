"""HNSW (pgvector) vs exact search on >= 100,000 384-d vectors: recall@24 and latency.

    python -m bench.bench_hnsw [--n 100000] [--queries 200] [--configs 16:64,8:32,24:96]

Data. Embedding 100,000 real texts would take ~1 hour on 2 cores, so the vectors are
synthetic but shaped like sentence embeddings: unit vectors with a low intrinsic
dimension (a 48-d latent space projected into 384-d), clustered (2,000 topics of uneven
size, papers spread around them), with a shared mean direction (sentence embeddings are
anisotropic) and a little full-rank noise. The section reports the resulting cosine statistics
(random pairs ~0.19, nearest neighbour ~0.80) so the likeness to real embeddings can be
judged (bench_embedding reports the same statistics for real all-MiniLM-L6-v2 vectors). Queries are fresh points from the same distribution (not in the table).

Method. One embedded PostgreSQL; a table shaped like wove.paper_embeddings (untyped
`vector` + `dimensions`), the index built exactly as the migration builds it (expression
`embedding::vector(384)`, partial on dimensions = 384, vector_cosine_ops) for each m /
ef_construction tried. Exact search is the same ORDER BY ... LIMIT 24 with index scans
disabled (a (parallel) sequential scan over all vectors); its answers are the ground
truth (checked against numpy). Latency is per query, client round trip included.
"""

from __future__ import annotations

import argparse
import contextlib
import struct
import sys
import time
from pathlib import Path

import numpy as np
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.results import write_section  # noqa: E402
from wove_pipeline.search.embedding import vector_literal  # noqa: E402

DIM = 384
K = 24
EF_SEARCH = (40, 64, 100, 200)


def synthetic_vectors(n: int, n_queries: int, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    latent, topics = 48, 2000
    projection = rng.standard_normal((latent, DIM)).astype(np.float32) / np.sqrt(latent)
    mean_dir = rng.standard_normal(DIM).astype(np.float32)
    mean_dir /= np.linalg.norm(mean_dir)
    centers = rng.standard_normal((topics, latent)).astype(np.float32)
    weights = rng.zipf(1.6, topics).astype(np.float64)
    weights = np.minimum(weights, 200) / np.minimum(weights, 200).sum()

    def draw(m: int) -> np.ndarray:
        t = rng.choice(topics, size=m, p=weights)
        spread = rng.uniform(0.5, 1.1, size=(m, 1)).astype(np.float32)
        z = centers[t] + spread * rng.standard_normal((m, latent)).astype(np.float32)
        u = z @ projection
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        x = u + 0.5 * mean_dir + 0.25 * rng.standard_normal((m, DIM)).astype(np.float32) / np.sqrt(DIM)
        return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)

    return draw(n), draw(n_queries)


def cosine_stats(x: np.ndarray, sample: int = 500, seed: int = 1) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    idx = rng.choice(len(x), size=min(sample, len(x)), replace=False)
    sims = x[idx] @ x.T
    sims[np.arange(len(idx)), idx] = -1
    nn = sims.max(axis=1)
    pairs = sims[:, : min(len(x), 2000)].ravel()
    pairs = pairs[pairs > -1]
    return {"mean_pair": float(pairs.mean()), "mean_nn": float(nn.mean()), "mean_24th": float(np.sort(sims, axis=1)[:, -K].mean())}


def binary_copy(ids: np.ndarray, vectors: np.ndarray) -> bytes:
    """PostgreSQL binary COPY of (id int4, dimensions int4, embedding vector), built with numpy."""
    n, d = vectors.shape
    row = np.dtype([
        ("nfields", ">i2"), ("l_id", ">i4"), ("id", ">i4"), ("l_dims", ">i4"), ("dims", ">i4"),
        ("l_vec", ">i4"), ("vdim", ">i2"), ("vunused", ">i2"), ("v", ">f4", (d,)),
    ])
    a = np.zeros(n, dtype=row)
    a["nfields"], a["l_id"], a["id"], a["l_dims"], a["dims"] = 3, 4, ids, 4, d
    a["l_vec"], a["vdim"], a["v"] = 4 + 4 * d, d, vectors
    return b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0) + a.tobytes() + struct.pack(">h", -1)


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


QUERY = (
    "SELECT id FROM bench_vectors WHERE dimensions = 384 "
    "ORDER BY (embedding::vector(384)) <=> %s::vector(384) LIMIT 24"
)


def run_queries(conn: psycopg.Connection, queries: list[str]) -> tuple[list[list[int]], list[float]]:
    results, times = [], []
    for q in queries:
        t0 = time.perf_counter()
        rows = conn.execute(QUERY, (q,), prepare=True).fetchall()
        times.append((time.perf_counter() - t0) * 1000)
        results.append([r[0] for r in rows])
    return results, times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--configs", default="16:64,8:32,24:96", help="m:ef_construction list")
    ap.add_argument("--url", help="an existing database (default: a temporary embedded PostgreSQL)")
    ap.add_argument("--no-write", action="store_true", help="do not write bench/RESULTS.md")
    args = ap.parse_args(argv)
    configs = [tuple(int(x) for x in c.split(":")) for c in args.configs.split(",")]

    t0 = time.perf_counter()
    data, queries = synthetic_vectors(args.n, args.queries)
    stats = cosine_stats(data)
    print(f"generated {args.n} vectors in {time.perf_counter() - t0:.1f}s: {stats}", flush=True)

    url = args.url
    with contextlib.ExitStack() as stack:
        if url is None:
            from wove_pipeline.database.embedded import scratch_postgres
            server, _ = stack.enter_context(scratch_postgres("wove-bench-hnsw-"))
            url = server.admin_url
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            version = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()[0]
            conn.execute("DROP TABLE IF EXISTS bench_vectors")
            conn.execute(
                "CREATE UNLOGGED TABLE bench_vectors (id integer PRIMARY KEY, dimensions integer NOT NULL, "
                "embedding vector NOT NULL)"
            )
            t0 = time.perf_counter()
            with conn.cursor() as cur, cur.copy("COPY bench_vectors (id, dimensions, embedding) FROM STDIN (FORMAT BINARY)") as cp:
                cp.write(binary_copy(np.arange(args.n, dtype=np.int32), data))
            conn.execute("VACUUM ANALYZE bench_vectors")
            print(f"loaded in {time.perf_counter() - t0:.1f}s", flush=True)
            qtext = [vector_literal(q) for q in queries]

            # Exact scan: ground truth and baseline latency (warm-up pass first).
            conn.execute("SET enable_indexscan = off")
            conn.execute("SET enable_bitmapscan = off")
            run_queries(conn, qtext[:5])
            exact, exact_ms = run_queries(conn, qtext)
            conn.execute("RESET enable_indexscan")
            conn.execute("RESET enable_bitmapscan")
            truth_np = np.argsort(-(queries @ data.T), axis=1)[:, :K]
            agree = np.mean([len(set(e) & set(t.tolist())) / K for e, t in zip(exact, truth_np)])
            ex50, ex95 = percentile(exact_ms, 50), percentile(exact_ms, 95)
            print(f"exact: p50 {ex50:.1f} ms p95 {ex95:.1f} ms (agrees with numpy {agree:.4f})", flush=True)

            table = []
            conn.execute("SET maintenance_work_mem = '2GB'")
            conn.execute("SET max_parallel_maintenance_workers = 1")
            for m, efc in configs:
                conn.execute("DROP INDEX IF EXISTS bench_vectors_hnsw")
                t0 = time.perf_counter()
                conn.execute(
                    f"CREATE INDEX bench_vectors_hnsw ON bench_vectors USING hnsw ((embedding::vector(384)) "
                    f"vector_cosine_ops) WITH (m = {int(m)}, ef_construction = {int(efc)}) WHERE dimensions = 384"
                )
                build_s = time.perf_counter() - t0
                size_mb = conn.execute("SELECT pg_relation_size('bench_vectors_hnsw')").fetchone()[0] / 2**20
                print(f"m={m} ef_construction={efc}: built in {build_s:.1f}s, {size_mb:.0f} MiB", flush=True)
                for ef in EF_SEARCH:
                    conn.execute(f"SET hnsw.ef_search = {int(ef)}")
                    plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + QUERY, (qtext[0],)))
                    assert "bench_vectors_hnsw" in plan, plan
                    run_queries(conn, qtext[:5])
                    got, ms = run_queries(conn, qtext)
                    recall = float(np.mean([len(set(g) & set(e)) / K for g, e in zip(got, exact)]))
                    p50, p95 = percentile(ms, 50), percentile(ms, 95)
                    table.append((m, efc, build_s, size_mb, ef, recall, p50, p95))
                    print(f"  ef_search={ef}: recall@24 {recall:.4f}, p50 {p50:.2f} ms, p95 {p95:.2f} ms "
                          f"({p95 / ex95:.3f}x exact p95)", flush=True)
                conn.execute("RESET hnsw.ef_search")
            conn.execute("DROP TABLE bench_vectors")

    # The choice: among settings meeting both aims (recall@24 >= 0.95, p95 <= 0.1x exact), the
    # highest recall (then the lower p95); if none meets both, the best recall.
    meeting = [r for r in table if r[5] >= 0.95 and r[7] <= 0.1 * ex95]
    chosen = max(meeting, key=lambda r: (round(r[5], 3), -r[7])) if meeting else max(table, key=lambda r: r[5])
    lines = [
        f"pgvector {version}; {args.n:,} synthetic clustered 384-d unit vectors (see the script's docstring), "
        f"{args.queries} held-out queries; k = {K}; cosine distance; index and query exactly as in "
        "migration 0003 (expression `embedding::vector(384)`, partial on `dimensions = 384`).",
        "",
        f"Data shape: mean cosine of random pairs {stats['mean_pair']:.2f}, of nearest neighbours "
        f"{stats['mean_nn']:.2f}, of the 24th neighbour {stats['mean_24th']:.2f}.",
        "",
        f"Exact scan (index scans off; its answers are the ground truth, {agree:.4f} agreement with numpy): "
        f"p50 {ex50:.1f} ms, p95 {ex95:.1f} ms.",
        "",
        "| m | ef_construction | build s | index MiB | ef_search | recall@24 | p50 ms | p95 ms | p95 / exact p95 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for m, efc, build_s, size_mb, ef, recall, p50, p95 in table:
        lines.append(f"| {m} | {efc} | {build_s:.0f} | {size_mb:.0f} | {ef} | {recall:.4f} | {p50:.2f} | {p95:.2f} | {p95 / ex95:.3f} |")
    m, efc, _, _, ef, recall, p50, p95 = chosen
    lines += [
        "",
        f"**Best here: m = {m}, ef_construction = {efc}, ef_search = {ef}**: recall@24 {recall:.4f} "
        f"(aim >= 0.95), p95 {p95:.2f} ms = {p95 / ex95:.3f}x the exact scan's p95 (aim <= 0.1x).",
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("hnsw", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
