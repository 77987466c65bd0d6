"""The raw layer: every upstream response that feeds a table, kept as Parquet.

Layout: <root>/<source>/<partition>/<UTC timestamp>-<uuid>.parquet. Files are immutable;
a re-fetch writes a new file and the newest file wins. Tables are re-derived from these
files without calling any API. The root may be a local path or any pyarrow filesystem
URI (s3://..., gs://...), which is how the raw layer moves to object storage.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

RAW_SCHEMA = pa.schema(
    [
        ("source", pa.string()),
        ("partition", pa.string()),
        ("kind", pa.string()),  # e.g. metadata prefix or endpoint
        ("seq", pa.int32()),  # order of the response within the fetch
        ("request", pa.string()),  # what was asked (secrets never included)
        ("fetched_at", pa.timestamp("us", tz="UTC")),
        ("body", pa.binary()),
    ]
)


class RawStore:
    def __init__(self, root: str | Path):
        root = str(root)
        if "://" in root:
            self.fs, self.root = pafs.FileSystem.from_uri(root)
        else:
            self.fs, self.root = pafs.LocalFileSystem(), str(Path(root).resolve())

    def _dir(self, source: str, partition: str) -> str:
        return f"{self.root}/{source}/{partition}"

    def write(self, source: str, partition: str, responses: Sequence[tuple[str, int, str, bytes]],
              now: dt.datetime | None = None) -> str:
        """Write one fetch: responses as (kind, seq, request, body), fetched at `now` (default:
        the current time). Returns the file path."""
        now = now or dt.datetime.now(dt.timezone.utc)
        table = pa.table(
            {
                "source": [source] * len(responses),
                "partition": [partition] * len(responses),
                "kind": [r[0] for r in responses],
                "seq": [r[1] for r in responses],
                "request": [r[2] for r in responses],
                "fetched_at": [now] * len(responses),
                "body": [r[3] for r in responses],
            },
            schema=RAW_SCHEMA,
        )
        directory = self._dir(source, partition)
        self.fs.create_dir(directory, recursive=True)
        path = f"{directory}/{now.strftime('%Y%m%dT%H%M%S%fZ')}-{uuid.uuid4().hex[:8]}.parquet"
        tmp = path + ".tmp"
        # Write then rename, so a crash never leaves a half file that "wins".
        pq.write_table(table, tmp, filesystem=self.fs, compression="zstd")
        self.fs.move(tmp, path)
        return path

    def latest_path(self, source: str, partition: str) -> str | None:
        selector = pafs.FileSelector(self._dir(source, partition), allow_not_found=True)
        files = sorted(i.path for i in self.fs.get_file_info(selector) if i.path.endswith(".parquet"))
        return files[-1] if files else None

    def read_latest(self, source: str, partition: str) -> pa.Table | None:
        path = self.latest_path(source, partition)
        return None if path is None else pq.read_table(path, filesystem=self.fs)
