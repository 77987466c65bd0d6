"""``wove matching evaluate [DIR] [--sandbox] [--seed N]`` (argparse; hooked into ``wove``).

    wove matching evaluate /path/to/s2and-dir     # signatures.json, [papers.json], clusters.json
    wove matching evaluate --sandbox --seed 7     # the sandbox world's ground truth
    wove matching evaluate --sandbox --thin       # names + affiliations + positions only

Prints B3 and pairwise P/R/F1 for the matcher and the baselines (exact normalized name,
S2 author id alone, OpenAlex author id alone), then the hardest name blocks.
"""

from __future__ import annotations

import argparse
import sys
import time


def add_matching_commands(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("matching", help="author matching tools")
    sub = p.add_subparsers(dest="matching_command", required=True)
    ev = sub.add_parser("evaluate", help="B3 / pairwise scores against labelled data")
    ev.add_argument("dir", nargs="?", help="S2AND-format directory (signatures.json, papers.json, clusters.json)")
    ev.add_argument("--sandbox", action="store_true", help="evaluate on the sandbox world's ground truth")
    ev.add_argument("--seed", type=int, default=7, help="sandbox world seed (default 7)")
    ev.add_argument("--papers-per-day", type=int, default=250)
    ev.add_argument("--days", type=int, default=10)
    ev.add_argument(
        "--thin",
        action="store_true",
        help="strip the input to names + affiliations + positions (no ids, ORCID, e-mail, co-authors, text, venue, year)",
    )
    ev.add_argument("--hardest", type=int, default=10, help="number of hardest blocks to list")
    ev.set_defaults(func=run_evaluate)
    return p


def run_evaluate(args) -> int:
    from .evaluate import evaluate_s2and_dir, format_report

    if not args.sandbox and not args.dir:
        print("give an S2AND directory or --sandbox", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    if args.sandbox:
        from .sandbox_eval import sandbox_eval

        r = sandbox_eval(
            seed=args.seed, papers_per_day=args.papers_per_day, days=args.days, hardest=args.hardest, thin=args.thin
        )
        print(format_report(r))
    if args.dir:
        r = evaluate_s2and_dir(args.dir, hardest=args.hardest, thin=args.thin)
        print(format_report(r))
    print(f"({time.perf_counter() - t0:.1f} s)")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="wove")
    add_matching_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
