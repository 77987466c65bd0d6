"""arXiv OAI-PMH client: day-granular ListRecords with paging, politeness and retries.

Paging follows resumption tokens until an empty one. `noRecordsMatch` is an empty day,
not a failure. Every page is checked to be well-formed OAI before it counts, so a
truncated or garbled body is retried like a 5xx.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass

import httpx

from wove_pipeline.arxiv.oai_pages import OaiPage, parse_oai_page
from wove_pipeline.arxiv.oai_xml import OaiParseError
from wove_pipeline.upstream.http import HttpClient, InvalidBody, RetrySettings, UpstreamClient

METADATA_PREFIXES = ("arXiv", "arXivRaw")  # split authors + affiliations; versions + raw TeX


@dataclass(frozen=True)
class FetchedPage:
    metadata_prefix: str
    page_number: int
    request: str  # the query as sent (no secrets: OAI has none)
    body: bytes
    page: OaiPage


class ArxivOaiClient(UpstreamClient):
    def __init__(self, base_url: str, *, min_interval_s: float = 3.0, timeout_s: float = 60.0,
                 retry: RetrySettings = RetrySettings()):
        # One connection and one request every 3 s: arXiv's published policy.
        self.http = HttpClient(base_url, min_interval_s=min_interval_s, timeout_s=timeout_s, retry=retry)

    @staticmethod
    def _validate(response: httpx.Response) -> OaiPage:
        try:
            return parse_oai_page(response.content)
        except OaiParseError as exc:
            raise InvalidBody(str(exc)) from None

    def list_records(
        self, day_from: dt.date, day_until: dt.date, metadata_prefix: str, set_spec: str | None = None
    ) -> Iterator[FetchedPage]:
        """All pages of ListRecords for [day_from, day_until] (inclusive, UTC days)."""
        params: dict[str, str] = {
            "verb": "ListRecords",
            "metadataPrefix": metadata_prefix,
            "from": day_from.isoformat(),
            "until": day_until.isoformat(),
        }
        if set_spec:
            params["set"] = set_spec
        page_number = 0
        while True:
            request = "&".join(f"{k}={v}" for k, v in params.items())
            response, page = self.http.request("GET", "", params=params, validate=self._validate)
            yield FetchedPage(metadata_prefix, page_number, request, response.content, page)
            if not page.resumption_token:
                return
            # A resumption token is exclusive: only the verb may go with it.
            params = {"verb": "ListRecords", "resumptionToken": page.resumption_token}
            page_number += 1
