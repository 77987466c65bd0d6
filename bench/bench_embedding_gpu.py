"""Embedding throughput on a GPU: the pipeline's Embedder beside raw SentenceTransformer.encode
on the same 2,000 sandbox texts, at several batch sizes, in one run.

Meant for a machine with a CUDA device (see README: embedding backfills are the one stage
that a GPU speeds up). Inputs are prepared on the CPU machine: the texts as JSON and the
model folder (fp16 weights are fine). Prints a Markdown table.

    python -m bench.bench_embedding_gpu --texts texts.json --model MODEL_DIR [--out result.md]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch
from sentence_transformers import SentenceTransformer

from wove_pipeline.search.embedding import Embedder, EmbeddingModelConfig

BATCH_SIZES = (64, 256, 1024)
ROUNDS = 3


def best_of(fn, rounds: int = ROUNDS) -> float:
    times = []
    for _ in range(rounds):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser()
    ap.add_argument("--texts", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    texts = json.loads(Path(args.texts).read_text())
    device = "cuda"
    raw = SentenceTransformer(args.model, device=device)
    raw.half()
    lines = [
        f"{len(texts):,} sandbox title+abstract texts, all-MiniLM-L6-v2 in fp16 on {torch.cuda.get_device_name(0)} "
        f"(torch {torch.__version__}); best of {ROUNDS} rounds after a warm-up.",
        "",
        "| batch size | raw encode texts/s | Embedder (stage) texts/s | stage / raw |",
        "|---:|---:|---:|---:|",
    ]
    for batch in BATCH_SIZES:
        embedder = Embedder(EmbeddingModelConfig(path=args.model, batch_size=batch, device=device))
        embedder._model = raw  # same weights and precision for both sides
        raw.encode(texts[:256], batch_size=batch)  # warm-up: kernels, allocator
        t_raw = best_of(lambda: raw.encode(texts, batch_size=batch, normalize_embeddings=True,
                                           convert_to_numpy=True, show_progress_bar=False))
        t_stage = best_of(lambda: embedder.encode(texts))
        lines.append(f"| {batch} | {len(texts) / t_raw:,.0f} | {len(texts) / t_stage:,.0f} | {t_raw / t_stage:.2f}x |")
    report = "\n".join(lines)
    print(report)
    if args.out:
        Path(args.out).write_text(report)
    return report


if __name__ == "__main__":
    main()
