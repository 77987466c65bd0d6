"""Author matching on thin evidence: names + affiliations + positions only.

    .venv/bin/python -m bench.bench_matching_thin [--seed 7] [--example DIR] [--no-write]

Scores B3 / pairwise P/R/F1 of the matcher, the matcher without the corpus name-frequency
prior (``Weights.rarity_c=0``, the scorer as it was before) and the exact-normalized-name
baseline on: the full sandbox world, the same world stripped to names + affiliations +
positions (``evaluate.thin_mentions``), and an S2AND-format directory full and thin.
Writes the "Author matching, thin evidence" section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import time

from wove_pipeline.matching.assignment import MatchConfig
from wove_pipeline.matching.cluster import match_all
from wove_pipeline.matching.evaluate import baseline_exact_name, evaluate, load_s2and, thin_mentions
from wove_pipeline.matching.sandbox_eval import world_mentions
from wove_pipeline.matching.scoring import Weights

EXAMPLE = "/work/shared/matching-format"


def methods():
    no_rarity = MatchConfig(weights=Weights(rarity_c=0.0))
    return {
        "matcher": lambda ms: match_all(ms).clusters,
        "matcher, no name-frequency prior": lambda ms: match_all(ms, config=no_rarity).clusters,
        "exact normalized name": baseline_exact_name,
    }


def rows(label, mentions, gold):
    r = evaluate(mentions, gold, name=label, methods=methods(), hardest=0)
    out = []
    for meth, m in r.methods.items():
        b, p = m["b3"], m["pairwise"]
        out.append(
            f"| {label} | {meth} | {b.precision:.4f} | {b.recall:.4f} | {b.f1:.4f} | "
            f"{p.precision:.4f} | {p.recall:.4f} | {p.f1:.4f} |"
        )
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--example", default=EXAMPLE)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    from wove_pipeline.sandbox.generator import generate_world
    t0 = time.perf_counter()
    mentions, gold = world_mentions(generate_world(seed=args.seed, papers_per_day=250, days=10))
    table = [
        "| data | method | B3 P | B3 R | B3 F1 | pair P | pair R | pair F1 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    table += rows(f"sandbox seed={args.seed}, full", mentions, gold)
    table += rows(f"sandbox seed={args.seed}, thin", thin_mentions(mentions), gold)
    if os.path.isdir(args.example):
        em, eg = load_s2and(args.example)
        table += rows("matching-format example, full", em, eg)
        table += rows("matching-format example, thin", thin_mentions(em), eg)
    body = "\n".join(
        [
            "Thin = names + affiliation strings + author positions (S2AND signatures without",
            "papers.json, sourced ids or e-mail). Before this change the matcher scored, on the same",
            "seed-7 world: full B3 P 0.9918 R 0.9873 F1 0.9895; thin B3 P 0.9578 R 0.6985 F1 0.8079",
            "(pairwise F1 0.5174), the exact-name baseline's F1 exactly. The matching-format example",
            "has 5 labelled signatures: read its rows as a smoke test, not a measurement.",
            "",
            *table,
            "",
            f"({time.perf_counter() - t0:.0f} s)",
        ]
    )
    print(body)
    if not args.no_write:
        from bench.results import write_section

        write_section("Author matching, thin evidence", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
