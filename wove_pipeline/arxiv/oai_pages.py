"""OAI-PMH response pages: ListRecords / ListIdentifiers / GetRecord -> records kept verbatim."""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from wove_pipeline.arxiv.oai_xml import (
    OAI_NS,
    PREFIX_BY_NAMESPACE,
    OaiError,
    OaiParseError,
    element_line,
    element_text,
    local_name,
    parse_xml,
)
from wove_pipeline.arxiv.tex import try_normalize_arxiv_id


@dataclass(frozen=True)
class RawRecord:
    """One ``<record>`` (or ``<header>`` for ListIdentifiers) of a page, kept verbatim."""

    identifier: str  # as sent, e.g. "oai:arXiv.org:1706.09418"
    arxiv_id: str | None  # normalized id, None when the identifier is not an arXiv id
    datestamp: str | None  # "YYYY-MM-DD" as sent (last modification day, UTC)
    set_specs: tuple[str, ...]
    deleted: bool
    metadata_prefix: str | None  # "arXiv" | "arXivRaw" | "oai_dc" | … | None (no metadata)
    element: etree._Element = field(compare=False, repr=False)  # in the parsed page's tree

    @property
    def xml(self) -> bytes:
        """The record's own XML, self-contained (namespaces declared), for quarantine."""
        return etree.tostring(self.element, encoding="utf-8")


@dataclass(frozen=True)
class OaiPage:
    records: list[RawRecord]
    resumption_token: str | None  # None (or absent/empty on the wire) → this is the last page
    cursor: int | None = None  # legacy token attributes
    complete_list_size: int | None = None
    token_expiration: str | None = None  # new-server token attribute expirationDate
    error_code: str | None = None  # only ever "noRecordsMatch" here; others raise OaiError
    error_message: str | None = None
    response_date: str | None = None
    request: dict[str, str] = field(default_factory=dict)  # attributes of <request>

    @property
    def is_empty_result(self) -> bool:
        """True for ``noRecordsMatch``: an empty range, a normal outcome for a daily harvest."""
        return self.error_code == "noRecordsMatch"

    @property
    def is_last_page(self) -> bool:
        return self.resumption_token is None


def _opt_int(s: str | None) -> int | None:
    if s is None:
        return None
    try:
        return int(s.strip())
    except ValueError:
        return None


def _raw_record(el: etree._Element, default_prefix: str | None) -> RawRecord:
    header = el if local_name(el) == "header" else el.find(f"{{{OAI_NS}}}header")
    if header is None:
        raise OaiParseError("record without <header>")
    identifier = element_text(header.find(f"{{{OAI_NS}}}identifier"))
    if not identifier:
        raise OaiParseError("record header without <identifier>")
    datestamp = element_text(header.find(f"{{{OAI_NS}}}datestamp"))
    set_specs = tuple(
        s for s in (element_text(x) for x in header.findall(f"{{{OAI_NS}}}setSpec")) if s
    )
    deleted = (header.get("status") or "").strip().lower() == "deleted"
    prefix = None
    metadata = el.find(f"{{{OAI_NS}}}metadata")
    if metadata is not None:
        children = [c for c in metadata if isinstance(c.tag, str)]
        if children:
            ns = etree.QName(children[0]).namespace
            prefix = PREFIX_BY_NAMESPACE.get(ns or "", default_prefix)
    return RawRecord(
        identifier=identifier,
        arxiv_id=try_normalize_arxiv_id(identifier),
        datestamp=datestamp,
        set_specs=set_specs,
        deleted=deleted,
        metadata_prefix=prefix,
        element=el,
    )


def parse_oai_page(xml: bytes) -> OaiPage:
    """Parse a ListRecords / ListIdentifiers / GetRecord response page.

    Handles both resumption-token styles: legacy (``cursor``/``completeListSize``, opaque
    text like ``726959|1001``) and the 2025 server's stateless token with
    ``expirationDate``. An empty ``<resumptionToken/>`` or no element means last page.
    """
    root = parse_xml(xml, OaiParseError, "OAI-PMH page")
    if root.tag != f"{{{OAI_NS}}}OAI-PMH":
        raise OaiParseError(f"not an OAI-PMH response: root element is {root.tag!r}")

    request_el = root.find(f"{{{OAI_NS}}}request")
    request = {str(k): str(v) for k, v in request_el.attrib.items()} if request_el is not None else {}
    response_date = element_text(root.find(f"{{{OAI_NS}}}responseDate"))

    errors = root.findall(f"{{{OAI_NS}}}error")
    if errors:
        codes = [(e.get("code") or "").strip() for e in errors]
        messages = [element_line(e) or "" for e in errors]
        if all(c == "noRecordsMatch" for c in codes):
            return OaiPage(
                records=[],
                resumption_token=None,
                error_code="noRecordsMatch",
                error_message=messages[0],
                response_date=response_date,
                request=request,
            )
        # Report the first real error; several at once are rare (e.g. two badArguments).
        idx = next(i for i, c in enumerate(codes) if c != "noRecordsMatch")
        raise OaiError(codes[idx] or "unknown", messages[idx])

    verb_el = next(
        (c for c in root if local_name(c) in ("ListRecords", "ListIdentifiers", "GetRecord")), None
    )
    if verb_el is None:
        raise OaiParseError("no ListRecords/ListIdentifiers/GetRecord element and no <error>")

    default_prefix = request.get("metadataPrefix")
    wanted = "header" if local_name(verb_el) == "ListIdentifiers" else "record"
    records = [
        _raw_record(c, default_prefix) for c in verb_el if local_name(c) == wanted
    ]

    token_el = verb_el.find(f"{{{OAI_NS}}}resumptionToken")
    token = cursor = size = expiration = None
    if token_el is not None:
        token = element_text(token_el)
        cursor = _opt_int(token_el.get("cursor"))
        size = _opt_int(token_el.get("completeListSize"))
        expiration = (token_el.get("expirationDate") or "").strip() or None
    return OaiPage(
        records=records,
        resumption_token=token,
        cursor=cursor,
        complete_list_size=size,
        token_expiration=expiration,
        response_date=response_date,
        request=request,
    )
