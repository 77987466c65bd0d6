"""`wove backup FILE` and `wove restore FILE [--into URL]` (see docs/reliability.md).

The serving database is WOVE_DATABASE_URL, or the embedded default (started for the
command). `--into` restores into another database (created when missing), e.g. to check a
backup without touching the live one.
"""

from __future__ import annotations

import argparse
import os


def _database_url() -> tuple[str, object | None]:
    url = os.environ.get("WOVE_DATABASE_URL")
    if url:
        return url, None
    from wove_pipeline.runtime import bring_up

    env = bring_up()
    return env.urls.serving, env


def _cmd_backup(args: argparse.Namespace) -> int:
    from wove_pipeline.core.backup import backup

    url, env = _database_url()
    try:
        result = backup(url, args.file)
    finally:
        if env is not None:
            env.close()
    print(f"backup written: {result.path} ({result.bytes} bytes, {result.tables} tables with data)")
    return 0


def _cmd_restore(args: argparse.Namespace) -> int:
    from wove_pipeline.core.backup import restore

    env = None
    if args.into:
        url = args.into
    else:
        url, env = _database_url()
    try:
        restore(args.file, url)
    finally:
        if env is not None:
            env.close()
    print(f"restored {args.file}")
    return 0


def add_backup_commands(subparsers) -> None:
    backup = subparsers.add_parser("backup", help="pg_dump (custom format) of the serving database to FILE")
    backup.add_argument("file")
    backup.set_defaults(func=_cmd_backup)

    restore = subparsers.add_parser(
        "restore", help="pg_restore FILE into the serving database (--clean --if-exists, one transaction)")
    restore.add_argument("file")
    restore.add_argument("--into", metavar="URL", help="restore into this database instead (created if missing)")
    restore.set_defaults(func=_cmd_restore)
