"""`wove backup FILE` and `wove restore FILE [--into URL]` (see docs/reliability.md).

The serving database is WOVE_DATABASE_URL, or the embedded default (started for the
command). `--into` restores into another database (created when missing), e.g. to check a
backup without touching the live one.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def _cmd_backup(args: argparse.Namespace) -> int:
    import psycopg

    from wove_pipeline.cli.runtime import serving_database_url
    from wove_pipeline.cli.support import CliError, explain
    from wove_pipeline.database.backup import BackupError, backup
    folder = Path(args.file).resolve().parent
    if folder.exists() and not folder.is_dir():
        raise CliError(f"no backup written to {args.file}: {folder} is not a folder")
    with serving_database_url() as url:
        try:
            result = backup(url, args.file)
        except (BackupError, OSError, psycopg.OperationalError) as exc:
            raise CliError(f"no backup written to {args.file}: {explain(exc)}") from None
    print(f"backup written: {result.path} ({result.bytes} bytes, {result.tables} tables with data)")
    return 0


def _cmd_restore(args: argparse.Namespace) -> int:
    import psycopg

    from wove_pipeline.cli.runtime import serving_database_url
    from wove_pipeline.cli.support import CliError, explain
    from wove_pipeline.database.backup import BackupError, restore
    try:
        if args.into:
            restore(args.file, args.into)
        else:
            with serving_database_url() as url:
                restore(args.file, url)
    except (BackupError, OSError, psycopg.OperationalError) as exc:
        raise CliError(f"{args.file} not restored: {explain(exc)}") from None
    print(f"restored {args.file}")
    return 0


def add_backup_commands(subparsers) -> None:
    backup = subparsers.add_parser("backup", help="pg_dump (custom format) of the serving database to FILE")
    backup.add_argument("file", help="the backup file to write (its folder is created; an existing file is replaced)")
    backup.set_defaults(func=_cmd_backup)

    restore = subparsers.add_parser(
        "restore", help="pg_restore FILE into the serving database (--clean --if-exists, one transaction)")
    restore.add_argument("file", help="a backup written by `wove backup` (pg_dump custom format)")
    restore.add_argument("--into", metavar="URL", help="restore into this database instead (created if missing)")
    restore.set_defaults(func=_cmd_restore)
