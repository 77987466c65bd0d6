"""Author-matching quality on the real labelled sets, fully nested for the group model.

    .venv/bin/python -m bench.bench_matching_nested [--dev ../shared/matching-real] [--no-write]

Each set is scored by a pair model trained without it (as in bench_matching_quality) and a
group model whose training groups were cut by pair models that never saw it either
(quality.nested_group_scores), beside its held-out figure from "Author matching quality".
About 20 minutes on one core. Writes the "Author matching quality, fully nested" section of
bench/RESULTS.md.
"""

from __future__ import annotations

import time

from bench.bench_matching_quality import dev_arguments
from wove_pipeline.matching import quality
from wove_pipeline.matching.train import dev_dirs


def main(argv=None) -> int:
    args = dev_arguments(__doc__, argv)
    t0 = time.perf_counter()
    linkage = quality.shipped_linkage()
    if len(linkage) < 3:
        print("the shipped model has no group model: nothing to nest")
        return 0
    held = quality.held_out(dev_dirs(args.dev))  # the held-out models, for both figures
    nested = quality.nested_group_scores(dev_dirs(args.dev), held=held)
    held_out = {s.name: s.matcher for s in quality.leave_one_out_scores(dev_dirs(args.dev), held=held)}
    lines = [f"Shipped linkage {linkage} (size exponent, threshold, group threshold). Held out: the group model "
             "learns from the other sets' groups, each cut by that set's held-out pair model (which saw the scored "
             "set). Fully nested: those pair models were trained without the scored set too.", "",
             "| set | held-out B3 P / R / F1 | fully nested B3 P / R / F1 |", "|---|---|---|"]
    for name, r in nested.items():
        h = held_out[name]
        lines.append(f"| {name} | {h.precision:.3f} / {h.recall:.3f} / {h.f1:.3f} | "
                     f"{r.precision:.3f} / {r.recall:.3f} / **{r.f1:.3f}** |")
    mean = lambda d: sum(r.f1 for r in d.values()) / len(d)  # noqa: E731
    lines += [f"| **mean F1** | {mean(held_out):.3f} | **{mean(nested):.3f}** |", "",
              f"Run time {time.perf_counter() - t0:.0f} s."]
    from bench.results import report

    report("Author matching quality, fully nested", "\n".join(lines), "python -m bench.bench_matching_nested", write=not args.no_write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
