"""Field mutations for the sandbox: answers with unknown extra fields or without optional ones.

The real APIs add fields without notice and leave optional ones out (S2 returns only the
fields asked for; OpenAlex drops empty objects; arXiv omits <comments>, <doi>, ...). A
client and its parsers must take both in their stride. ``MutatingEndpoint`` wraps any
sandbox endpoint and rewrites its successful answers:

    endpoints = [MutatingEndpoint(e, "extra") for e in default_endpoints(world)]
    SandboxServer(world, endpoints=endpoints)

Modes:
- ``"extra"``: every JSON object gains unknown keys (a scalar, a nested object and a list);
  every arXiv record gains unknown elements in its header and metadata.
- ``"missing"``: optional fields are removed (JSON keys in ``OPTIONAL_JSON_KEYS``; arXiv
  elements in ``OPTIONAL_XML_ELEMENTS``). Identifiers and the fields that locate a record are
  never removed: without them the answer would not be the same record any more.

Only 200 answers are rewritten; errors and paging tokens pass through unchanged. The
module shares no code with the clients or parsers it exercises.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

from .endpoint import Endpoint, Request, Response

MODES = ("extra", "missing")

EXTRA_KEYS: dict[str, Any] = {
    "x_unknown_scalar": "surprise",
    "xUnknownObject": {"nested": True, "values": [1, 2, 3]},
    "x_unknown_list": [{"a": None}, "b"],
}

# Fields each upstream documents as optional (may be absent from an answer).
OPTIONAL_JSON_KEYS = frozenset({
    # Semantic Scholar (only requested fields come back; many are often absent)
    "abstract", "venue", "year", "publicationDate", "fieldsOfStudy", "s2FieldsOfStudy",
    "influentialCitationCount", "referenceCount", "url", "affiliations", "homepage", "tldr",
    "openAccessPdf", "journal", "publicationVenue", "publicationTypes",
    # OpenAlex
    "abstract_inverted_index", "topics", "primary_topic", "keywords", "concepts", "biblio",
    "counts_by_year", "summary_stats", "mesh", "grants", "sustainable_development_goals",
    "open_access", "best_oa_location", "is_corresponding", "raw_affiliation_strings",
    "countries", "lineage", "homepage_url", "geo", "associated_institutions", "display_name_acronyms",
    "display_name_alternatives", "last_known_institutions",
})

OPTIONAL_XML_ELEMENTS = ("comments", "journal-ref", "doi", "report-no", "license", "msc-class",
                         "acm-class", "affiliation", "proxy")

_XML_EXTRA_META = "<x-unknown-element kind=\"future\">an element arXiv may add one day</x-unknown-element>"
_XML_EXTRA_HEADER = "<x-unknown-header>extra</x-unknown-header>"


# Objects that are maps (keys are data, not field names: an id kind S2 adds is kept
# verbatim, by design): left as they are.
MAP_KEYS = frozenset({"abstract_inverted_index", "externalIds", "ids"})


def add_unknown_fields(value: Any) -> Any:
    if isinstance(value, dict):
        out = {k: (v if k in MAP_KEYS else add_unknown_fields(v)) for k, v in value.items()}
        for k, v in EXTRA_KEYS.items():
            out.setdefault(k, v)
        return out
    if isinstance(value, list):
        return [add_unknown_fields(v) for v in value]
    return value


def drop_optional_fields(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: drop_optional_fields(v) for k, v in value.items() if k not in OPTIONAL_JSON_KEYS}
    if isinstance(value, list):
        return [drop_optional_fields(v) for v in value]
    return value


def mutate_xml(body: str, mode: str) -> str:
    if mode == "extra":
        body = re.sub(r"(</arXiv>|</arXivRaw>)", _XML_EXTRA_META + r"\1", body)
        return body.replace("</header>", _XML_EXTRA_HEADER + "</header>")
    for name in OPTIONAL_XML_ELEMENTS:
        body = re.sub(rf"<{re.escape(name)}(?:\s[^>]*)?>.*?</{re.escape(name)}>", "", body, flags=re.S)
    return body


class MutatingEndpoint:
    """Wraps an endpoint; its 200 answers get unknown fields added or optional ones removed."""

    def __init__(self, inner: Endpoint, mode: str):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        self.inner = inner
        self.mode = mode
        self.name = inner.name
        self.prefix = inner.prefix
        self.mutated = 0

    def handle(self, request: Request, today: dt.date) -> Response:
        response = self.inner.handle(request, today)
        if response.status != 200 or not response.body:
            return response
        ctype = (response.headers.get("Content-Type") or "").lower()
        text = response.body.decode("utf-8")
        if "json" in ctype or text.lstrip()[:1] in ("{", "["):
            payload = json.loads(text)
            payload = add_unknown_fields(payload) if self.mode == "extra" else drop_optional_fields(payload)
            body = json.dumps(payload).encode()
        elif "<OAI-PMH" in text:
            body = mutate_xml(text, self.mode).encode("utf-8")
        else:
            return response
        self.mutated += 1
        return Response(response.status, body, dict(response.headers))
