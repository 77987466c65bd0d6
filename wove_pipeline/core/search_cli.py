"""`wove search`: papers (hybrid), related papers, researchers and institutions by name.

Connects to WOVE_DATABASE_URL, or with it unset, brings up the embedded default.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys


def _date(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {value!r}") from None


def _positive(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return n


def add_search_commands(subparsers) -> None:
    p = subparsers.add_parser(
        "search",
        help="search papers (full text + embeddings), related papers, researchers or institutions",
        description="Hybrid paper search by default; --related, --researchers or --institutions switch mode.",
    )
    p.add_argument("query", nargs="?", help="free text (quotes for a phrase, -word to exclude, OR)")
    p.add_argument("--category", action="append", dest="categories", metavar="X",
                   help="arXiv category, e.g. cs.LG (repeat for any of several)")
    p.add_argument("--from", dest="published_from", type=_date, metavar="D", help="first version on or after D")
    p.add_argument("--until", dest="published_until", type=_date, metavar="D", help="first version on or before D")
    p.add_argument("--limit", type=_positive, default=None, metavar="N", help="results to print (default 24, related 10)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--related", metavar="ARXIV_ID", help="papers related to this paper (no query)")
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


def _cmd_search(args: argparse.Namespace) -> int:
    from wove_pipeline.cli_support import connect_serving
    from wove_pipeline.core import search
    from wove_pipeline.runtime import serving_database_url

    if args.related is None and not args.query:
        print("wove search: give a QUERY (or --related ARXIV_ID)", file=sys.stderr)
        return 2
    try:
        # paper search and related papers read the core tables; name search reads the
        # published serving tables (SearchUnavailable, exit 3, until the first publish)
        with serving_database_url() as url, connect_serving(url, "migrated") as conn:
            if args.related:
                hits = search.related_papers(conn, args.related, limit=args.limit or 10)
                _print_table(
                    [(i + 1, h.arxiv_id, f"{h.similarity:.3f}", h.primary_category, h.published.date(), h.title)
                     for i, h in enumerate(hits)],
                    ("#", "arxiv_id", "similarity", "category", "published", "title"),
                )
            elif args.researchers or args.institutions:
                fn = search.search_researchers if args.researchers else search.search_institutions
                hits = fn(conn, args.query, limit=args.limit or 24)
                rows = [(i + 1, h.id, f"{h.similarity:.3f}", h.extra or "", h.display_name) for i, h in enumerate(hits)]
                _print_table(rows, ("#", "id", "similarity", "ror" if args.institutions else "", "name"))
            else:
                embedder = None
                if not args.lexical_only:
                    from wove_pipeline.core.embedding import Embedder

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
