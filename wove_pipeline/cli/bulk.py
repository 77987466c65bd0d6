"""Loading the enrichment tables without an API call (docs/scale-out.md):

- `wove bulk --s2 DIR --openalex DIR`: the bulk backfill from Semantic Scholar Datasets /
  OpenAlex snapshot files (wove_pipeline.enrichment.bulk);
- `wove rebuild`: every enrichment table re-derived from the raw layer alone
  (wove_pipeline.enrichment.rebuild).

The serving database is WOVE_DATABASE_URL, or the embedded default (started for the
command); the raw layer is WOVE_DATA_DIR's (wove_pipeline.settings). A line per stage on
stderr as it goes, the summary as JSON on stdout at the end.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json


def _cmd_bulk(args: argparse.Namespace) -> int:
    from wove_pipeline.cli.progress import Progress
    from wove_pipeline.cli.runtime import serving_database_url
    from wove_pipeline.database import access as db
    from wove_pipeline.enrichment.bulk import bulk_load
    from wove_pipeline.settings import raw_data_dir
    from wove_pipeline.upstream.raw_store import RawStore

    with serving_database_url() as url, db.connect(url, autocommit=True) as conn:
        summary = bulk_load(conn, RawStore(raw_data_dir()), s2_root=args.s2, s2_release=args.s2_release,
                            openalex_root=args.openalex, snapshot_date=args.snapshot_date, progress=Progress())
    print(json.dumps({k: v for k, v in summary.__dict__.items() if k != "raw_files"}
                     | {"raw_files": len(summary.raw_files)}, indent=2))
    return 0


def _cmd_rebuild(args: argparse.Namespace) -> int:
    from wove_pipeline.cli.progress import Progress
    from wove_pipeline.cli.runtime import serving_database_url
    from wove_pipeline.database import access as db
    from wove_pipeline.enrichment.rebuild import rebuild_from_raw
    from wove_pipeline.settings import raw_data_dir
    from wove_pipeline.upstream.raw_store import RawStore

    progress = Progress()
    with serving_database_url() as url, db.connect(url, autocommit=True) as conn, \
            progress.stage("rebuild", "enrichment tables from the raw layer") as done:
        summary = rebuild_from_raw(conn, RawStore(raw_data_dir()))
        done["text"] = f"{summary.files:,} raw files, {summary.responses:,} responses"
    print(json.dumps(summary.__dict__, indent=2))
    return 0


def add_bulk_commands(subparsers) -> None:
    bulk = subparsers.add_parser(
        "bulk", help="bulk backfill from Semantic Scholar Datasets / OpenAlex snapshot files (--s2, --openalex)",
        description="Bulk backfill from the Semantic Scholar Datasets and the OpenAlex snapshot: the records of the "
                    "papers in wove.papers into the enrichment tables (and the raw layer), without an API call.")
    bulk.add_argument("--s2", help="folder or URI holding S2 releases (<release>/<dataset>/...)")
    bulk.add_argument("--s2-release", help="release id (default: the latest folder)")
    bulk.add_argument("--openalex", help="folder or URI holding the OpenAlex snapshot's data/")
    bulk.add_argument("--snapshot-date", type=dt.date.fromisoformat, help="the snapshot's date (as_of)")

    def run(args: argparse.Namespace) -> int:
        if not (args.s2 or args.openalex):
            bulk.error("give --s2 and/or --openalex")
        return _cmd_bulk(args)

    bulk.set_defaults(func=run)

    rebuild = subparsers.add_parser(
        "rebuild", help="re-derive every enrichment table from the raw layer alone (no API call)",
        description="Truncate the enrichment tables, derive them again from every raw Semantic Scholar and "
                    "OpenAlex response (oldest first, newest wins) and re-align every paper, in one transaction.")
    rebuild.set_defaults(func=_cmd_rebuild)
