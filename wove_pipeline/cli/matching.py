"""``wove matching evaluate|train|override`` (argparse; hooked into ``wove``).

    wove matching evaluate DIR [DIR ...]           # each S2AND-format set with its baselines, then the mean
    wove matching evaluate DIR ... --leave-one-out # each set scored by a model trained without it
    wove matching evaluate --sandbox --seed 7      # the sandbox world's ground truth
    wove matching train [--dev DIR]                # fit the pair model, write it into the package
    wove matching override split|link ARXIV_ID:POS ARXIV_ID:POS [--note TEXT]
    wove matching override list                    # a curator's corrections, and where each stands

A set is a directory with signatures.json, [papers.json] and clusters.json (S2AND's format).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

DEFAULT_DEV = os.path.join("..", "shared", "matching-real")


def add_matching_commands(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("matching", help="author matching: evaluate against labelled data, train the pair model")
    sub = p.add_subparsers(dest="matching_command", required=True)
    ev = sub.add_parser("evaluate", help="B3 / pairwise scores against labelled data, beside the baselines")
    ev.add_argument("dirs", nargs="*", metavar="DIR", help="S2AND-format directories (signatures.json, papers.json, clusters.json)")
    ev.add_argument("--leave-one-out", action="store_true",
                    help="score each set with a model trained on the other sets given and the sandbox (minutes)")
    ev.add_argument("--sandbox", action="store_true", help="evaluate on the sandbox world's ground truth")
    ev.add_argument("--seed", type=int, default=7, help="sandbox world seed (default 7)")
    ev.add_argument("--papers-per-day", type=int, default=250, help="sandbox world size: papers per day (default 250)")
    ev.add_argument("--days", type=int, default=10, help="sandbox world size: days (default 10)")
    ev.add_argument(
        "--thin",
        action="store_true",
        help="strip the input to names + affiliations + positions (no ids, ORCID, e-mail, co-authors, text, venue, year)",
    )
    ev.add_argument("--no-vectors", action="store_true",
                    help="do not embed the sets' papers: the sentence-vector feature is then missing "
                         "(the first run on a set embeds its papers, minutes on a CPU; then they are kept)")
    ev.add_argument("--hardest", type=int, default=10, help="number of hardest blocks to list for one set (default 10)")
    ev.set_defaults(func=run_evaluate)
    tr = sub.add_parser("train", help="fit the pair model on the labelled sets and the sandbox world; write it into the package")
    tr.add_argument("--dev", default=DEFAULT_DEV, help=f"folder of labelled sets, one S2AND directory each (default {DEFAULT_DEV})")
    tr.add_argument("--no-cross-validation", action="store_true",
                    help="skip the leave-one-set-out runs that choose the linkage threshold (keeps 0.5 and size exponent 0)")
    tr.set_defaults(func=run_train)
    ov = sub.add_parser("override", help="a curator's correction: two author positions are one person (link) "
                                         "or two (split); the next matching run applies it, and every run after")
    ov.add_argument("kind", choices=["split", "link", "list"], help="split, link, or list the overrides kept")
    ov.add_argument("positions", nargs="*", metavar="ARXIV_ID:POS",
                    help="two author positions: the paper's arXiv id and the author's place on it, from 0 "
                         "(the order of `wove show paper`'s author_list)")
    ov.add_argument("--note", default="", help="why (kept with the override)")
    ov.set_defaults(func=run_override)
    return p


def _position(text: str) -> tuple[str, int]:
    from wove_pipeline.cli.support import CliError
    arxiv_id, sep, pos = text.rpartition(":")
    if not sep or not arxiv_id or not pos.isdigit():
        raise CliError(f"{text!r} is not ARXIV_ID:POSITION (e.g. 2508.06001:0 for its first author)", exit_code=2)
    return arxiv_id, int(pos)


def run_override(args) -> int:
    """Add an override to the database (WOVE_DATABASE_URL, or the embedded default), or list them."""
    from wove_pipeline.cli.runtime import serving_database_url
    from wove_pipeline.cli.support import CliError, connect_serving
    from wove_pipeline.matching.researchers import add_override, override_rows

    if args.kind == "list":
        if args.positions:
            raise CliError("`override list` takes no positions", exit_code=2)
    elif len(args.positions) != 2:
        raise CliError(f"`override {args.kind}` takes two positions, ARXIV_ID:POS ARXIV_ID:POS", exit_code=2)
    ends = [_position(t) for t in args.positions]
    with serving_database_url() as url, connect_serving(url, "migrated") as conn:
        if args.kind == "list":
            rows = override_rows(conn)
            if not rows:
                print("no overrides kept", file=sys.stderr)
            for r in rows:
                where = ("one researcher" if r["researcher_a"] == r["researcher_b"] else "two researchers") \
                    if r["researcher_a"] and r["researcher_b"] else "not matched yet"
                print(f"{r['override_id']}\t{r['kind']}\t{r['arxiv_id_a']}:{r['position_a']} ({r['name_a']})"
                      f"\t{r['arxiv_id_b']}:{r['position_b']} ({r['name_b']})\tnow {where}"
                      f" ({r['researcher_a']}, {r['researcher_b']})\t{r['note'] or ''}")
            return 0
        try:
            with conn.transaction():
                oid = add_override(conn, args.kind, ends[0], ends[1], args.note)
        except ValueError as e:
            raise CliError(str(e)) from None
    print(f"override {oid}: force_{args.kind} {args.positions[0]} {args.positions[1]}; the next matching run "
          "(the daily schedule, or materializing `researchers`) applies it")
    return 0


def _is_set(d: str) -> bool:
    return os.path.exists(os.path.join(d, "signatures.json"))


def run_evaluate(args) -> int:
    from wove_pipeline.matching.evaluate import (
        evaluate_s2and_dir,
        format_report,
        format_sets,
        load_s2and,
        score_set,
        thin_mentions,
    )
    dirs = list(args.dirs)
    if not args.sandbox and not dirs:
        print("error: give S2AND directories or --sandbox", file=sys.stderr)
        return 2
    bad = [d for d in dirs if not _is_set(d)]
    if bad:
        print(f"error: not an S2AND directory (no signatures.json): {', '.join(bad)}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    if args.sandbox:
        from wove_pipeline.matching.sandbox_eval import sandbox_eval
        r = sandbox_eval(
            seed=args.seed, papers_per_day=args.papers_per_day, days=args.days, hardest=args.hardest, thin=args.thin,
            vectors=not args.no_vectors,
        )
        print(format_report(r))
    if len(dirs) == 1 and not args.leave_one_out:
        print(format_report(evaluate_s2and_dir(dirs[0], hardest=args.hardest, thin=args.thin,
                                               vectors=not args.no_vectors)))
    elif dirs and not args.leave_one_out:
        scores = []
        for d in dirs:
            mentions, gold = load_s2and(d, vectors=not args.no_vectors)
            if args.thin:
                mentions = thin_mentions(mentions)
            scores.append(score_set(os.path.basename(os.path.normpath(d)), mentions, gold))
            print(f"  {scores[-1].name}: B3 F1 {scores[-1].matcher.f1:.4f}", file=sys.stderr)
        print(format_sets(scores, "B3 with the shipped model"))
    elif dirs:
        from wove_pipeline.matching.quality import leave_one_out_scores
        print(format_sets(leave_one_out_scores(dirs, log=lambda s: print(s, file=sys.stderr),
                                               vectors=not args.no_vectors),
                          "B3, each set scored by a model trained without it (leave one set out)"))
    print(f"({time.perf_counter() - t0:.1f} s)")
    return 0


def run_train(args) -> int:
    from wove_pipeline.matching.train import dev_dirs, train
    if not os.path.isdir(args.dev) or not dev_dirs(args.dev):
        print(f"error: no labelled sets (S2AND directories) in {args.dev}", file=sys.stderr)
        return 2
    train(args.dev, cross_validate=not args.no_cross_validation, log=lambda s: print(s, flush=True))
    return 0
