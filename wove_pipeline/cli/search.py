"""`wove search`: papers (hybrid), related papers, researchers and institutions by name.

Connects to WOVE_DATABASE_URL, or with it unset, brings up the embedded default.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import sys


def _date(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {value!r}") from None


def _limit(value: str) -> int:
    from wove_pipeline.search.query import MAX_LIMIT
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None
    if not 1 <= n <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_LIMIT}")
    return n


# A word that excludes ("-graph") reads to argparse as an option: such words are taken out
# before parsing and put back into the query where they stood.
_DASH_WORD = re.compile(r"^-[^-\s]")


def parse_search_args(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``wove search ...`` parsed so that a query may start with '-' (``wove search -graph``)."""
    rest, words = [], []  # words: (position, text) of the excluded words
    for i, token in enumerate(argv):
        if i > 0 and token not in ("-h",) and _DASH_WORD.match(token) and "--" not in argv[:i]:
            words.append((i, token))
        else:
            rest.append(token)
    args = parser.parse_args(rest)
    if words:
        if args.query is not None:
            words.append((argv.index(args.query), args.query))
        args.query = " ".join(w for _, w in sorted(words))
    return args


def add_search_commands(subparsers) -> None:
    from wove_pipeline.search.query import MAX_LIMIT
    p = subparsers.add_parser(
        "search",
        help="search papers (full text + embeddings), related papers, researchers or institutions",
        description="Hybrid paper search by default; --related, --researchers or --institutions switch mode. "
                    "--category, --from and --until filter paper search only; --related takes no QUERY "
                    "(either is an error, never silently ignored).",
    )
    p.add_argument("query", nargs="?",
                   help='free text (quotes for a phrase, -word to exclude, OR); it may start with an excluded '
                        'word (wove search -graph networks), or put -- before it')
    p.add_argument("--category", action="append", dest="categories", metavar="X",
                   help="arXiv category, e.g. cs.LG (repeat for any of several)")
    p.add_argument("--from", dest="published_from", type=_date, metavar="D", help="first version on or after D")
    p.add_argument("--until", dest="published_until", type=_date, metavar="D", help="first version on or before D")
    p.add_argument("--limit", type=_limit, default=None, metavar="N",
                   help=f"results to print, 1 to {MAX_LIMIT} (default 24, related 10)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--related", metavar="ARXIV_ID",
                      help="papers related to this paper, by embedding (takes no QUERY; an error with one)")
    mode.add_argument("--researchers", action="store_true", help="researchers by name")
    mode.add_argument("--institutions", action="store_true", help="institutions by name")
    p.add_argument("--lexical-only", action="store_true", help="full text only (does not load the model)")
    p.set_defaults(func=_cmd_search)


def _print_table(rows: list[tuple], headers: tuple[str, ...]) -> None:
    if not rows:
        print("no results")
        return
    cells = [tuple("" if v is None else str(v) for v in r) for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]
    widths[-1] = len(headers[-1])  # the last column (title/name) is not padded
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip())
    for c in cells:
        print("  ".join(v.ljust(w) for v, w in zip(c, widths)).rstrip())


def _related_missing(conn, arxiv_id: str) -> str | None:
    """Why --related found nothing, when the paper itself is the reason."""
    from wove_pipeline.database import access as db
    bare = re.sub(r"v\d+$", "", arxiv_id.strip())
    if db.fetch_value(conn, "SELECT 1 FROM wove.papers WHERE arxiv_id = %s", (bare,)) is None:
        return f"paper {arxiv_id!r} not found (not in the corpus yet)"
    if db.fetch_value(conn, "SELECT 1 FROM wove.paper_embeddings WHERE arxiv_id = %s", (bare,)) is None:
        return f"paper {arxiv_id!r} has no embedding yet (the paper_embeddings asset makes it)"
    return None


def _cmd_search(args: argparse.Namespace) -> int:
    from wove_pipeline.cli.runtime import serving_database_url
    from wove_pipeline.cli.support import connect_serving
    from wove_pipeline.search import query as search
    if args.related is None and not args.query:
        print("wove search: give a QUERY (or --related ARXIV_ID)", file=sys.stderr)
        return 2
    if args.related is not None and args.query:
        print(f"wove search: --related finds papers like {args.related} and takes no QUERY "
              f"(got {args.query!r}): drop one of them", file=sys.stderr)
        return 2
    filters = [f for f, v in (("--category", args.categories), ("--from", args.published_from),
                              ("--until", args.published_until)) if v]
    if filters and (args.related or args.researchers or args.institutions):
        mode = "--related" if args.related else "--researchers" if args.researchers else "--institutions"
        print(f"wove search: {', '.join(filters)} filter paper search only, not {mode}", file=sys.stderr)
        return 2
    try:
        # paper search and related papers read the core tables; name search reads the
        # published serving tables (SearchUnavailable, exit 3, until the first publish)
        with serving_database_url() as url, connect_serving(url, "migrated") as conn:
            if args.related:
                hits = search.related_papers(conn, args.related, limit=args.limit or 10)
                if not hits:
                    missing = _related_missing(conn, args.related)
                    if missing:
                        print(f"wove search: {missing}", file=sys.stderr)
                        return 1
                _print_table(
                    [(i + 1, h.arxiv_id, f"{h.similarity:.3f}", h.primary_category, h.published.date(), h.title)
                     for i, h in enumerate(hits)],
                    ("#", "arxiv_id", "similarity", "category", "published", "title"),
                )
            elif args.researchers or args.institutions:
                fn = search.search_researchers if args.researchers else search.search_institutions
                hits = fn(conn, args.query, limit=args.limit or 24)
                rows = [(i + 1, h.id, f"{h.similarity:.3f}", h.extra or "", h.display_name) for i, h in enumerate(hits)]
                _print_table(rows, ("#", "id", "similarity", "ror" if args.institutions else "papers · field · institution",
                                   "name"))
            else:
                embedder = None
                if not args.lexical_only:
                    from wove_pipeline.search.embedding import Embedder
                    embedder = Embedder()
                hits = search.search_papers(
                    conn, embedder, args.query, categories=args.categories, published_from=args.published_from,
                    published_until=args.published_until, limit=args.limit or 24,
                )
                _print_table(
                    [(i + 1, h.arxiv_id, f"{h.score:.4f}", h.lexical_rank or "-", h.vector_rank or "-",
                      h.title_rank or "-", h.primary_category, h.published.date(), h.title)
                     for i, h in enumerate(hits)],
                    ("#", "arxiv_id", "score", "text#", "vector#", "title#", "category", "published", "title"),
                )
    except search.SearchInputError as exc:
        print(f"wove search: {exc}", file=sys.stderr)
        return 2
    except search.SearchUnavailable as exc:
        print(f"wove search: {exc}", file=sys.stderr)
        return 3
    return 0
