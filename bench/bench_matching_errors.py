"""Where the matcher's errors lie on the real labelled sets, held out: which people it
splits and which clusters mix people, and how much of each is a name several people print.

    .venv/bin/python -m bench.bench_matching_errors [--dev ../shared/matching-real] [--no-write]

Each set is clustered by its held-out models, as in "Author matching quality"
(quality.held_out), and its B3 shortfall is charged to people and clusters
(evaluate.b3_losses): 1 - R is the recall lost to split people, of which the part on people
whose full name another person of the set prints too (homonyms, which need evidence besides
the name); 1 - P the precision lost to mixed clusters, of which the part in clusters that
print one full name only. A second table audits the labels (evaluate.label_conflicts: the
mentions whose co-authors are another labelled namesake's and none of their own person's)
and scores each set as labelled and without those mentions, beside the exact-name baseline:
how much of a set's shortfall is its labels. Writes the "Author matching errors (held out)"
section of bench/RESULTS.md.
"""

from __future__ import annotations

import time

from bench.bench_matching_quality import dev_arguments
from wove_pipeline.matching import match_all
from wove_pipeline.matching.evaluate import b3, b3_losses, baseline_exact_name, label_conflicts
from wove_pipeline.matching.quality import held_out
from wove_pipeline.matching.train import dev_dirs

TOP = 3


def _share(part: float, whole: float) -> str:
    return f"{part / whole:.0%}" if whole else "-"


def _largest(items: list, whole: float) -> str:
    """The TOP largest splits or merges: loss (share of ``whole``), the pieces' sizes, the name(s)."""
    def one(loss: float, sizes: list[int], names) -> str:
        label = names if isinstance(names, str) else " / ".join(names[:3])
        return f"{loss:.0f} ({_share(loss, whole)}): {'+'.join(map(str, sizes[:6]))}{'+...' if len(sizes) > 6 else ''} {label}"
    return "; ".join(one(*item) for item in items[:TOP])


def _prf(score) -> str:
    return f"{score.f1:.3f} ({score.precision:.3f} / {score.recall:.3f})"


def main(argv=None) -> int:
    args = dev_arguments(__doc__, argv)
    t0 = time.perf_counter()
    held = held_out(dev_dirs(args.dev))
    lines = ["Each set clustered by its held-out models (as in \"Author matching quality\"); B3's shortfall "
             "charged to the people split and the clusters mixed (evaluate.b3_losses). A split or merge reads: "
             "B3 loss in mentions (share of the set's 1 - R or 1 - P), the pieces' sizes, the name.", "",
             "| set | mentions | 1 - R | of it, people whose name another person prints | 1 - P | of it, clusters of one printed name | largest splits | largest merges |",
             "|---|---:|---:|---:|---:|---:|---|---|"]
    audit = ["", "Labels their co-authors contradict (evaluate.label_conflicts), and each set scored without them "
             "(held-out matcher and exact names, B3 F1 with precision and recall):", "",
             "| set | mentions | contradicted labels | matcher as labelled (P / R) | without them (P / R) | "
             "exact name as labelled | without them |", "|---|---:|---:|---:|---:|---:|---:|"]
    for s in held.sets:
        pred = match_all(s.mentions, config=held.config(s.name)).clusters
        conflicts = label_conflicts(s.mentions, s.gold)
        kept = {m: p for m, p in s.gold.items() if m not in conflicts}
        exact = baseline_exact_name(s.mentions)
        audit.append(f"| {s.name} | {len(s.gold):,} | {len(conflicts)} ({len(conflicts) / len(s.gold):.1%}) | "
                     f"{_prf(b3(pred, s.gold))} | {_prf(b3(pred, kept))} | {b3(exact, s.gold).f1:.3f} | "
                     f"{b3(exact, kept).f1:.3f} |")
        losses = b3_losses(pred, s.gold, {m.mention_id: m.name.key for m in s.mentions})
        n = losses.mentions
        splits = _largest(losses.splits, losses.recall_loss)
        merges = _largest(losses.merges, losses.precision_loss)
        lines.append(f"| {s.name} | {n:,} | {losses.recall_loss / n:.3f} | "
                     f"{_share(losses.recall_loss_shared_name, losses.recall_loss)} | {losses.precision_loss / n:.3f} | "
                     f"{_share(losses.precision_loss_one_name, losses.precision_loss)} | {splits} | {merges} |")
        print(f"  {s.name}: 1 - R {losses.recall_loss / n:.3f}, 1 - P {losses.precision_loss / n:.3f}", flush=True)
    lines += audit
    lines += ["", f"Run time {time.perf_counter() - t0:.0f} s."]
    from bench.results import report

    report("Author matching errors (held out)", "\n".join(lines), "python -m bench.bench_matching_errors",
           write=not args.no_write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
