"""Semantic Scholar Graph API v1 client: paper and author batches at the API's limits.

Built on the shared HTTP layer (wove_pipeline.upstream.http): 429 (S2 sends no Retry-After),
5xx, timeouts, dropped connections and bodies that do not parse are retried there with
exponential backoff and jitter. Here:

- paper batches of up to 500 ids (`ARXIV:<id>`, no version) and author batches of up to
  1000 ids, POSTed with `fields` in the query string (never in the body);
- every answer is checked to be aligned with the request (same length, nulls in place)
  before it counts, so a truncated or misaligned body is retried like a 5xx;
- the key travels only in the `x-api-key` header; it is redacted from every message and
  never part of the `request` string kept in the raw layer;
- upstream drift: a `fields` entry S2 refuses (400 "Unrecognized or unsupported fields:
  [X]") is dropped from every later call of this client, the call is sent once more
  without it, a warning is logged once, and `dropped_fields` names it (the assets put it in
  the materialization metadata and a warning check); the rows are the same apart from that
  field. A refused `paperId` / `authorId`, or any other 4xx, fails fast (UpstreamRefused).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import httpx
import orjson

from wove_pipeline.semantic_scholar.parser import S2ParseError, parse_author_batch, parse_paper_batch
from wove_pipeline.upstream.batching import chunks
from wove_pipeline.upstream.http import (
    DroppedFields,
    HttpClient,
    InvalidBody,
    RetrySettings,
    UpstreamClient,
    UpstreamRefused,
    fetch_in_order,
)

PAPER_BATCH_MAX = 500
AUTHOR_BATCH_MAX = 1000

PAPER_FIELDS = (
    "paperId,corpusId,externalIds,url,title,abstract,venue,year,publicationDate,referenceCount,"
    "citationCount,influentialCitationCount,fieldsOfStudy,s2FieldsOfStudy,authors"
)
AUTHOR_FIELDS = "authorId,externalIds,url,name,affiliations,homepage,paperCount,citationCount,hIndex"
FIELDS = {"paper": PAPER_FIELDS, "author": AUTHOR_FIELDS}
REQUIRED_FIELDS = {"paper": ("paperId",), "author": ("authorId",)}  # a record without its id does not parse

log = logging.getLogger(__name__)
_UNRECOGNIZED = re.compile(r"(?i)unrecognized or unsupported fields?:\s*\[([^\]]*)\]")


def refused_fields(message: str, asked: Sequence[str]) -> list[str]:
    """The `fields` entries a 400 refuses, among those asked (S2: "Unrecognized or
    unsupported fields: [a, b]")."""
    m = _UNRECOGNIZED.search(message)
    named = [f.strip().strip("'\"") for f in m.group(1).split(",")] if m else []
    return [f for f in dict.fromkeys(named) if f in asked]


@dataclass(frozen=True)
class FetchedBatch:
    kind: str  # "paper_batch" | "author_batch"
    ids: list[str]  # what was asked, in order (arXiv ids for papers, author ids for authors)
    request: str  # JSON description of the request, without secrets (kept in the raw layer)
    body: bytes
    records: list  # parsed, aligned with ids (None = unknown to S2 for now)
    bad: list = field(default_factory=list)  # records of the body set aside (quarantined when derived)


def batch_request(kind: str, path: str, fields: str, ids: Sequence[str], **extra: object) -> str:
    """The raw layer's record of what was asked (the key never appears here)."""
    return json.dumps({"method": "POST", "path": path, "fields": fields, "ids": list(ids), **extra},
                      separators=(",", ":"))


class SemanticScholarClient(UpstreamClient):
    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        min_interval_s: float = 1.0,  # keys issued since 2024 get 1 request/s on every endpoint
        timeout_s: float = 60.0,
        retry: RetrySettings = RetrySettings(),
        paper_batch_size: int = PAPER_BATCH_MAX,
        author_batch_size: int = AUTHOR_BATCH_MAX,
        concurrency: int = 2,  # batches in flight at once: a big batch takes longer than the 1 s spacing
    ):
        if not 1 <= paper_batch_size <= PAPER_BATCH_MAX or not 1 <= author_batch_size <= AUTHOR_BATCH_MAX:
            raise ValueError("batch sizes must be within S2's limits (500 papers, 1000 authors)")
        headers = {"x-api-key": api_key} if api_key else {}
        self.http = HttpClient(
            base_url, min_interval_s=min_interval_s, timeout_s=timeout_s, retry=retry,
            headers=headers, secrets=(api_key,) if api_key else (), max_connections=concurrency,
        )
        self.concurrency = concurrency
        self._dropped = DroppedFields(  # "paper" | "author" -> fields refused so far
            {what: fields.split(",") for what, fields in FIELDS.items()}, REQUIRED_FIELDS, refused_fields, log,
            "Semantic Scholar refuses field %r on %s batches (%s); asking without it from now on")
        self.paper_batch_size = paper_batch_size
        self.author_batch_size = author_batch_size

    @property
    def dropped_fields(self) -> dict[str, list[str]]:
        """`fields` entries S2 refused during this client's life, per record kind."""
        return self._dropped.dropped

    def fields(self, what: str) -> str:
        return self._dropped.asked(what)

    def _batch(self, kind: str, path: str, what: str, ids: list[str], wire_ids: list[str], parse,
               extra: dict) -> FetchedBatch:
        def validate(response: httpx.Response) -> tuple[list, list]:
            bad: list = []
            try:
                payload = orjson.loads(response.content)
                # A record that does not parse is no transport fault: it is set aside here and
                # quarantined when the tables are derived from the raw response.
                return parse(payload, expected_len=len(wire_ids), bad=bad), bad
            except (ValueError, S2ParseError) as exc:  # truncated, malformed or misaligned
                raise InvalidBody(str(exc)) from None

        fields = self.fields(what)
        while True:
            try:
                response, (records, bad) = self.http.request(
                    "POST", path, params={"fields": fields}, json={"ids": wire_ids}, validate=validate
                )
                break
            except UpstreamRefused as exc:
                if not self._dropped.drop(what, exc, fields):
                    raise
                fields = self.fields(what)  # without what was refused: asked once more
        return FetchedBatch(kind, ids, batch_request(kind, path, fields, ids, **extra), response.content, records, bad)

    def paper_batches(self, arxiv_ids: Sequence[str], **extra: object) -> Iterator[FetchedBatch]:
        """S2 records for arXiv ids (without version), 500 per call, aligned with the ids."""
        def fetch_chunk(ids: list[str]) -> list[FetchedBatch]:
            return [self._batch("paper_batch", "/paper/batch", "paper", ids,
                                [f"ARXIV:{i}" for i in ids], parse_paper_batch, extra)]

        return fetch_in_order(fetch_chunk, chunks(list(arxiv_ids), self.paper_batch_size), self.concurrency)

    def author_batches(self, author_ids: Sequence[str], **extra: object) -> Iterator[FetchedBatch]:
        """S2 author profiles, 1000 per call, aligned with the ids."""
        def fetch_chunk(ids: list[str]) -> list[FetchedBatch]:
            return [self._batch("author_batch", "/author/batch", "author", ids, ids, parse_author_batch, extra)]

        return fetch_in_order(fetch_chunk, chunks(list(author_ids), self.author_batch_size), self.concurrency)
