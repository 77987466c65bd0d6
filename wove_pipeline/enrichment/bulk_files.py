"""Reading the bulk products' files: a local folder or a pyarrow filesystem URI
(``s3://bucket/prefix``, ``gs://...``, ``file://...``), so a release mirrored to object
storage is read where it lies, and gzipped JSON-lines shards streamed one line at a time
(memory does not grow with the size of a shard)."""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterator
from pathlib import Path

import orjson
import pyarrow.fs as pafs


def filesystem(uri: str | Path) -> tuple[pafs.FileSystem, str]:
    """The filesystem a folder or URI lies on, and its path there."""
    uri = str(uri)
    if "://" in uri:
        return pafs.FileSystem.from_uri(uri)
    return pafs.LocalFileSystem(), str(Path(uri).resolve())


def join(base: str, *parts: str) -> str:
    return "/".join([base.rstrip("/"), *(p.strip("/") for p in parts)])


def iter_jsonl_gz(fs: pafs.FileSystem, path: str) -> Iterator[dict]:
    """Records of one gzipped JSON-lines file, one line at a time."""
    with fs.open_input_stream(path, compression=None) as raw, gzip.GzipFile(fileobj=raw) as gz:
        for n, line in enumerate(io.BufferedReader(gz), 1):
            line = line.strip()
            if not line:
                continue
            try:
                yield orjson.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not JSON ({exc})") from exc
