"""Author-matching quality on real labelled authors and on the sandbox world, side by side.

    .venv/bin/python -m bench.bench_matching_quality [--dev ../shared/matching-real] [--no-write]

Real data: every set of ``--dev`` scored by a model trained without it (leave one set out,
as ``wove matching evaluate DIR... --leave-one-out``), at the shipped model's threshold,
beside the two baselines, S2AND's production model on the same files and the issue's bars;
the newest 10% of each set assigned incrementally after the rest, against batch, by profile
(profile_assign: the way every daily run assigns, overrides included) and link by link (the
rule the profiles stand in for). Sandbox: the default world (seed 7) with
the shipped model (trained on seed 11, never on seed 7).
Writes the "Author matching quality" section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import time

from wove_pipeline.matching.evaluate import b3, baseline_exact_name, baseline_one_per_block, format_sets
from wove_pipeline.matching.quality import held_out, leave_one_out_scores, shipped_linkage, unseen_names_scores
from wove_pipeline.matching.train import dev_dirs

# S2AND v1.21 production model on these files (../shared/matching-real/README.md) and the bars of the issue
S2AND = {"ads": 0.914, "aminer110": 0.736, "pubmed_sanyal": 0.868, "medline_pairs": 0.955, "acl_blocks": 0.747, "acl_homonyms": 0.580}
BARS = {"ads": 0.93, "aminer110": 0.85, "pubmed_sanyal": 0.90, "medline_pairs": 0.96, "acl_blocks": 0.90, "acl_homonyms": 0.75}


def sandbox_figures() -> str:
    from dataclasses import replace

    from wove_pipeline.matching import match_all
    from wove_pipeline.matching.train import SANDBOX_BAR, SANDBOX_BAR_SEED, SANDBOX_SHAPE, sandbox_set

    world = sandbox_set(SANDBOX_BAR_SEED)  # the world training's bar check matches: with the papers' vectors
    mentions, gold = world.mentions, world.gold
    ppd, days = SANDBOX_SHAPE
    bare = [replace(m, embedding=None) for m in mentions]
    rows = [("matcher (shipped model), papers' sentence vectors as in the pipeline", b3(match_all(mentions).clusters, gold)),
            ("matcher (shipped model), no vectors (papers not embedded yet)", b3(match_all(bare).clusters, gold)),
            ("exact normalized name", b3(baseline_exact_name(mentions), gold)),
            ("one cluster per block", b3(baseline_one_per_block(mentions), gold))]
    lines = [f"Sandbox default world (seed {SANDBOX_BAR_SEED}, {ppd} papers/day x {days} days, {len(gold):,} mentions, "
             f"{len(set(gold.values())):,} people; bar B3 F1 >= {SANDBOX_BAR}):", "",
             "| method | B3 P | B3 R | B3 F1 |", "|---|---:|---:|---:|"]
    lines += [f"| {name} | {r.precision:.4f} | {r.recall:.4f} | {r.f1:.4f} |" for name, r in rows]
    return "\n".join(lines)


def dev_arguments(doc: str, argv=None, *, seeds: bool = False) -> argparse.Namespace:
    """--dev (the labelled sets) and --no-write, as the matching-quality benches take them
    (and --seeds, the number of training samples, with ``seeds``)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--dev", default=os.path.join("..", "shared", "matching-real"))
    ap.add_argument("--no-write", action="store_true")
    if seeds:
        ap.add_argument("--seeds", type=int, default=3)
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = dev_arguments(__doc__, argv)
    t0 = time.perf_counter()
    held = held_out(dev_dirs(args.dev))  # the held-out models, for both figures
    scores = leave_one_out_scores(dev_dirs(args.dev), incremental=True, held=held)
    unseen = unseen_names_scores(dev_dirs(args.dev), held=held)
    linkage = shipped_linkage()
    exponent, threshold = linkage[:2]
    group = (f", then the group model (group_merge.py: two groups of one block merge, most probable first, while the "
             f"group model gives them at least {linkage[2]}; held out, it is fitted on the other sets' groups)"
             if len(linkage) == 3 else "")
    body = [f"Shipped threshold {threshold} and size exponent {exponent} (average linkage: two groups of mentions merge "
            f"at a mean pair probability of {threshold} x (pairs between them) ^ -{exponent}{group}; all chosen by "
            "leave-one-set-out cross-validation in `wove matching train`). Each set is scored by a model trained on the other sets "
            "and the sandbox world (seed 11), less any set sharing its papers (train.held_out_with: acl_blocks and "
            "acl_homonyms are held out together, since every acl_homonyms paper is in acl_blocks; until 2026-12-03 "
            "each was scored by a model trained on the other, which read acl_blocks 0.815 and acl_homonyms 0.682).",
            "", format_sets(scores, "Leave one set out, B3:"), "",
            "Its names unseen too: the same held-out fit with the name prior (name_prior.py: distinct first names "
            "per surname and surnames per first name, counted over every labelled set's bylines) counted without "
            "the held-out set's own bylines (quality.unseen_names_scores): what a set of people whose names no "
            "labelled set prints would get. The difference is what the prior's coverage of a population is worth.",
            "",
            "| set | held-out F1 | its names unseen too: F1 (P) | S2AND on these files | bar | bar met | B3 P >= 0.93 | batch F1 | newest 10% by profile F1 (the daily run's way) | gap (bar <= 0.005) | link by link F1 | gap |",
            "|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|"]
    for s in scores:
        batch, inc, by_profile = s.incremental
        bar = max(BARS.get(s.name, 0.0), max(s.exact_name.f1, s.one_per_block.f1) + 0.02)
        u = unseen[s.name]
        body.append(f"| {s.name} | {s.matcher.f1:.3f} | {u.f1:.3f} ({u.precision:.3f}) | {S2AND.get(s.name, float('nan')):.3f} | {bar:.3f} | "
                    f"{'yes' if s.matcher.f1 >= bar else 'no'} | {'yes' if s.matcher.precision >= 0.93 else 'no'} | "
                    f"{batch:.4f} | {by_profile:.4f} | {batch - by_profile:+.4f} | {inc:.4f} | {batch - inc:+.4f} |")
    body += ["", sandbox_figures(), "", f"Run time {time.perf_counter() - t0:.0f} s."]
    from bench.results import report

    report("Author matching quality", "\n".join(body), "python -m bench.bench_matching_quality", write=not args.no_write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
