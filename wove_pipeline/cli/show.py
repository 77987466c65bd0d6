"""`wove show researcher|paper|institution KEY`: print a page's payload as JSON, read from
the published serving schema (WOVE_DATABASE_URL, or the embedded default)."""

from __future__ import annotations

import argparse
import sys


def _cmd_show(args: argparse.Namespace) -> int:
    from wove_pipeline.cli.runtime import serving_database_url
    from wove_pipeline.cli.support import connect_serving
    from wove_pipeline.serving import pages
    with serving_database_url() as url:
        with connect_serving(url, "published") as conn:
            if args.kind == "researcher":
                route = pages.resolve_researcher(conn, args.key)
                payload = None if route is None else pages.researcher_page(
                    conn, route["researcher_id"], category=args.category, page=args.page, requested=args.key)
            elif args.kind == "paper":
                payload = pages.paper_page(conn, args.key, site_url=args.site_url)
            else:
                payload = pages.institution_page(conn, args.key, site_url=args.site_url)
    if payload is None:
        print(f"wove show: {args.kind} {args.key!r} not found (not in the corpus yet, or not published)",
              file=sys.stderr)
        return 1
    print(pages.to_json(payload))
    return 0


def add_show_commands(subparsers) -> None:
    show = subparsers.add_parser("show", help="print a page's payload (researcher, paper, institution) as JSON")
    show.add_argument("kind", choices=["researcher", "paper", "institution"], help="which page")
    show.add_argument("key", help="researcher id (or id-slug); paper id, old id or slug; institution id, ROR or name")
    show.add_argument("--category", default=None, help="researcher paper list: only this primary category")
    show.add_argument("--page", type=int, default=1, help="researcher paper list page (24 per page)")
    show.add_argument("--site-url", default="", help="prefix for absolute URLs in structured data")
    show.set_defaults(func=_cmd_show)
