"""A separate process that materializes a partition, for the crash and concurrency tests.

    python tests/reliability/_child.py papers DB_URL RAW_ROOT DAY [--arxiv-url URL] [--pause-in-copy N]
        [--go-file PATH]
    python tests/reliability/_child.py publish DB_URL [--pause-in-publish]

--pause-in-copy N: after N author rows of the COPY for wove.paper_authors, print "WRITING" and
stall (inside the open transaction) until killed. --pause-in-publish: stall inside the
publish transaction, after the new serving schema is built and before the swap (full
rebuild), or after every serving table is rewritten and before the commit (incremental).
--go-file: print "READY", then wait until this file exists, so two processes start together.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time


def _stall(label: str) -> None:
    print(label, flush=True)
    time.sleep(600)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["papers", "publish"])
    parser.add_argument("db_url")
    parser.add_argument("raw_root", nargs="?")
    parser.add_argument("day", nargs="?")
    parser.add_argument("--arxiv-url")
    parser.add_argument("--pause-in-copy", type=int)
    parser.add_argument("--pause-in-publish", action="store_true")
    parser.add_argument("--go-file")
    args = parser.parse_args(argv)

    import dagster as dg

    from wove_pipeline.database import access as db
    if args.pause_in_copy is not None:
        # the papers load writes wove.paper_authors through replace_rows (COPY into its
        # staging table, then the changed rows)
        real_replace_rows = db.replace_rows

        def slow_replace_rows(conn, table, columns, rows, **kw):
            if table != "wove.paper_authors":
                return real_replace_rows(conn, table, columns, rows, **kw)

            def rows_then_stall():
                for i, row in enumerate(rows):
                    if i == args.pause_in_copy:
                        _stall("WRITING")
                    yield row

            return real_replace_rows(conn, table, columns, rows_then_stall(), **kw)

        db.replace_rows = slow_replace_rows

    if args.mode == "papers":  # import everything before waiting, so both start writing together
        from wove_pipeline.arxiv.assets import arxiv_records, papers  # noqa: F401
    if args.go_file:
        import os

        print("READY", flush=True)
        while not os.path.exists(args.go_file):
            time.sleep(0.005)

    if args.mode == "publish":
        from wove_pipeline.serving import publish as serving
        if args.pause_in_publish:
            real_move = serving._move_foreign_objects

            def move_then_stall(conn):
                moved = real_move(conn)
                _stall("WRITING")
                return moved

            serving._move_foreign_objects = move_then_stall  # a full rebuild, before the swap
            real_apply = serving._apply

            def apply_then_stall(conn, table, *rest):
                written = real_apply(conn, table, *rest)
                if table.name == serving.tables.TABLE_DEFINITIONS[-1].name:  # incremental: every table rewritten, not committed
                    _stall("WRITING")
                return written

            serving._apply = apply_then_stall
        from wove_pipeline.database import access as db
        with db.connect(args.db_url, autocommit=True) as conn:
            serving.publish(conn)
        print("DONE", flush=True)
        return 0

    from wove_pipeline.arxiv.assets import arxiv_records, papers
    from wove_pipeline.resources import ArxivResource, DatabaseResource, RawStoreResource
    resources = {"database": DatabaseResource(url=args.db_url), "raw_store": RawStoreResource(root=args.raw_root)}
    assets = [papers]
    if args.arxiv_url:
        resources["arxiv"] = ArxivResource(base_url=args.arxiv_url, min_interval_s=0)
        assets = [arxiv_records, papers]
    result = dg.materialize(assets, partition_key=dt.date.fromisoformat(args.day).isoformat(), resources=resources)
    print("DONE" if result.success else "FAILED", flush=True)
    return 0 if result.success else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
