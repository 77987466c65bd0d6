"""How the relevance floor of the site's paper search (core/search.py RELEVANCE_FLOOR, used by
`wove serve`) was chosen: cosine similarities of real queries and of nonsense to the sandbox
world's papers, embedded with the default model (all-MiniLM-L6-v2), exactly as
paper_embeddings embeds them.

    .venv/bin/python -m bench.bench_relevance_floor [--papers-per-day 120] [--days 10] [--no-write]

Query sets:
- paraphrases: questions a person types about a topic the sandbox world writes about,
  sharing (almost) no word with the papers (so only the vector list can find them); each
  names the task phrase its relevant papers contain;
- verbatim topics: the world's own task phrases;
- nonsense: seeded random letter strings, keyboard mash, lorem ipsum, and everyday queries
  no paper is about ("chocolate cake recipe").

For each candidate floor: the share of nonsense queries that would still get a vector hit,
and the share of the relevant papers in the paraphrases' top 24 that the floor keeps.
Exact cosine (numpy) over every paper: what the HNSW index approximates.
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.results import write_section  # noqa: E402

SECTION = "Relevance floor"
K = 24
FLOORS = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45)

# (query, the task phrase of the papers it means)
PARAPHRASES = [
    ("splitting pictures into labelled regions", "image segmentation"),
    ("making videos from scratch with neural networks", "video generation"),
    ("writing computer programs automatically", "program synthesis"),
    ("recovering the shape of objects from photos", "3D reconstruction"),
    ("translating sentences between languages", "machine translation"),
    ("training a model across many phones without sharing data", "federated learning"),
    ("spotting unusual events in sensor data", "anomaly detection"),
    ("robots picking up and moving things", "robot manipulation"),
    ("answering questions about a document", "question answering"),
    ("training huge models on many GPUs", "distributed training"),
    ("aligning lidar scans", "point cloud registration"),
    ("drawing images from a text prompt", "text-to-image synthesis"),
    ("automatic feedback on pull requests", "code review"),
    ("how neutrinos change flavour", "neutrino oscillations"),
    ("gravitational waves from colliding black holes", "black hole mergers"),
    ("materials that conduct only on their surface", "topological insulators"),
    ("properties of the Higgs boson", "the Higgs sector"),
    ("how galaxies are distributed in space", "galaxy clustering"),
    ("quantum computers built from superconducting circuits", "superconducting qubits"),
    ("matter at extreme temperatures in heavy ion collisions", "quark-gluon plasma"),
    ("temperature fluctuations in the big bang afterglow", "cosmic microwave background anisotropies"),
    ("frustrated magnets that never order", "spin liquids"),
    ("the air on planets around other stars", "exoplanet atmospheres"),
    ("telling knots apart", "knot invariants"),
    ("rational points on cubic curves", "elliptic curves"),
    ("solitons in nonlinear wave equations", "nonlinear Schrödinger equations"),
    ("networks with randomly placed edges", "random graphs"),
    ("minimizing convex functions", "convex optimization"),
    ("spaces that classify geometric objects", "moduli spaces"),
    ("differential equations driven by noise", "stochastic differential equations"),
    ("arithmetic progressions in sets of integers", "additive combinatorics"),
]
EVERYDAY = [
    "chocolate cake recipe", "cheap flights to paris", "football scores today", "how to knit a scarf",
    "best pizza near me", "weather tomorrow in london", "lyrics of a love song", "buy used car",
    "dog grooming tips", "wedding dress ideas", "lorem ipsum dolor sit amet", "asdf jkl qwerty",
    "hello", "banana", "xyz", "the of and a",
]


def nonsense(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 9)))
                 for _ in range(rng.randint(1, 4))]
        out.append(" ".join(words))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers-per-day", type=int, default=120)
    ap.add_argument("--days", type=int, default=10)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)

    from wove_pipeline.arxiv.tex import tex_to_text
    from wove_pipeline.sandbox.generator import generate_world
    from wove_pipeline.search.embedding import Embedder, paper_text
    world = generate_world(seed=args.seed, papers_per_day=args.papers_per_day, days=args.days)
    papers = [p for p in world.papers if not p.withdrawn]
    texts = [paper_text(tex_to_text(p.title), tex_to_text(p.abstract)) for p in papers]
    emb = Embedder()
    t0 = time.perf_counter()
    P = emb.encode(texts)
    embed_s = time.perf_counter() - t0
    low = [t.lower() for t in texts]

    rng = random.Random(args.seed)
    junk = nonsense(rng, 40) + EVERYDAY
    verbatim = sorted({task for _, task in PARAPHRASES})
    Q_para = emb.encode([q for q, _ in PARAPHRASES])
    Q_junk = emb.encode(junk)
    Q_verb = emb.encode(verbatim)

    junk_best = (Q_junk @ P.T).max(axis=1)
    verb_best = (Q_verb @ P.T).max(axis=1)
    rel_sims, rel_top1, para_best, para_found = [], [], [], []
    for (q, task), sims in zip(PARAPHRASES, Q_para @ P.T):
        relevant = np.array([task.lower() in t for t in low])
        top = np.argsort(-sims)[:K]
        para_best.append(float(sims[top[0]]))
        rel = [float(sims[i]) for i in top if relevant[i]]
        rel_sims.extend(rel)
        para_found.append(len(rel))
        rel_top1.append(float(sims[relevant].max()) if relevant.any() else float("nan"))
    rel_sims = np.array(rel_sims)
    rel_top1 = np.array(rel_top1)

    def pct(a, q):
        return float(np.percentile(a, q))

    rows = []
    for f in FLOORS:
        rows.append(f"| {f:.2f} | {np.mean(junk_best >= f):.0%} | {np.mean(rel_sims >= f):.0%} | "
                    f"{np.mean(rel_top1 >= f):.0%} | {np.mean(verb_best >= f):.0%} |")
    from wove_pipeline.search.query import RELEVANCE_FLOOR
    body = f"""\
How `RELEVANCE_FLOOR` ({RELEVANCE_FLOOR}, `wove_pipeline/search/query.py`; migration 0015's
`min_similarity`) was chosen. The sandbox world (seed {args.seed}, {args.papers_per_day} papers a day, {args.days}
days: {len(papers):,} papers, withdrawn ones left out) embedded with the default model as
`paper_embeddings` embeds it ({embed_s:.0f} s on this machine); exact cosine over every paper.
Queries: {len(PARAPHRASES)} paraphrases of the world's topics that share (almost) no word with the papers
(only the vector list finds them; relevant = the papers containing the topic phrase), the
{len(verbatim)} topic phrases verbatim, and {len(junk)} nonsense queries (40 seeded random letter strings,
keyboard mash, lorem ipsum, stop words, everyday queries like "chocolate cake recipe").

| | min | p50 | p95 | max |
|---|---|---|---|---|
| nonsense: best cosine to any paper | {junk_best.min():.3f} | {pct(junk_best, 50):.3f} | {pct(junk_best, 95):.3f} | {junk_best.max():.3f} |
| paraphrase: best relevant paper | {np.nanmin(rel_top1):.3f} | {np.nanpercentile(rel_top1, 50):.3f} | {np.nanpercentile(rel_top1, 95):.3f} | {np.nanmax(rel_top1):.3f} |
| paraphrase: relevant papers in its top {K} ({len(rel_sims)} of {K * len(PARAPHRASES)}) | {rel_sims.min():.3f} | {pct(rel_sims, 50):.3f} | {pct(rel_sims, 95):.3f} | {rel_sims.max():.3f} |
| verbatim topic: best paper | {verb_best.min():.3f} | {pct(verb_best, 50):.3f} | {pct(verb_best, 95):.3f} | {verb_best.max():.3f} |

| floor | nonsense queries still getting a vector hit | relevant top-{K} hits kept | paraphrases keeping their best relevant paper | verbatim topics keeping a hit |
|---|---|---|---|---|
{chr(10).join(rows)}

Nonsense queries worst first: {", ".join(f"{s:.2f} {q!r}" for s, q in sorted(zip(junk_best.tolist(), junk), reverse=True)[:6])}.
Paraphrases weakest first (best relevant cosine): {", ".join(f"{s:.2f} {q!r}" for s, (q, _) in sorted(zip(rel_top1.tolist(), PARAPHRASES))[:5])}.
"""
    print(body)
    if not args.no_write:
        write_section(SECTION, body, command="python -m bench.bench_relevance_floor " + " ".join(argv or sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
