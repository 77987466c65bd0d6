"""How much of a held-out matching figure is the training sample's luck.

    .venv/bin/python -m bench.bench_matching_seeds [--dev ../shared/matching-real] [--seeds 3] [--no-write]

Each real set held out and scored as in bench_matching_quality (leave_one_out_scores), once
per seed of the training pairs' sampling and of the evidence hidden in their copies
(train.set_pairs, train.fit): the same sets, the same linkage, another sample. The spread
across seeds is the noise floor under which a change of the held-out figure says nothing.
About 7 minutes a seed on one core. Writes the "Author matching quality across training
samples" section of bench/RESULTS.md.
"""

from __future__ import annotations

import time

from bench.bench_matching_quality import dev_arguments
from wove_pipeline.matching.quality import leave_one_out_scores, shipped_linkage
from wove_pipeline.matching.train import SEED, dev_dirs


def main(argv=None) -> int:
    args = dev_arguments(__doc__, argv, seeds=True)
    t0 = time.perf_counter()
    seeds = [SEED + k for k in range(args.seeds)]
    runs = {seed: {s.name: s.matcher for s in leave_one_out_scores(dev_dirs(args.dev), seed=seed)} for seed in seeds}
    names = list(runs[seeds[0]])
    lines = [f"Shipped linkage {shipped_linkage()}; each set held out as in \"Author matching quality\", the training "
             f"pairs sampled and their evidence hidden with seed {seeds[0]} (the shipped one) and {len(seeds) - 1} "
             "more. B3 F1 (precision):", "",
             "| set | " + " | ".join(f"seed {s}" for s in seeds) + " | mean | spread (max - min) |",
             "|---|" + "---:|" * (len(seeds) + 2)]
    rows = {name: ([runs[s][name].f1 for s in seeds], [runs[s][name].precision for s in seeds]) for name in names}
    per_seed_mean = lambda cols: [sum(v) / len(names) for v in zip(*cols)]  # noqa: E731
    rows["mean of sets"] = (per_seed_mean([f1 for f1, _ in rows.values()]), per_seed_mean([p for _, p in rows.values()]))
    for name, (f1, p) in rows.items():
        cells = " | ".join(f"{f:.3f} ({q:.3f})" for f, q in zip(f1, p))
        lines.append(f"| {name} | {cells} | **{sum(f1) / len(f1):.3f}** | {max(f1) - min(f1):.3f} |")
    lines += ["", f"Run time {time.perf_counter() - t0:.0f} s."]
    from bench.results import report

    report("Author matching quality across training samples", "\n".join(lines),
           f"python -m bench.bench_matching_seeds --seeds {args.seeds}", write=not args.no_write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
