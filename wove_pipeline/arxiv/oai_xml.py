"""Reading OAI-PMH XML safely, the arXiv namespaces, and the parsers' error contract.

Wire formats: ``shared/research/upstream.md`` §1 and the real recordings in
``shared/upstream-samples/arxiv/``. The parsers (``oai_pages``, ``metadata_formats``,
``paper_record``) are pure functions over bytes; no I/O.

Error contract (what a caller has to catch):

* :class:`OaiParseError` – the page is not a well-formed OAI-PMH document (truncated body,
  HTML error page, …). Retry the request; nothing on the page is trustworthy.
* :class:`OaiError` – the server answered with an OAI ``<error>`` other than
  ``noRecordsMatch`` (``noRecordsMatch`` is a normal empty day: ``OaiPage.is_empty_result``).
* :class:`RecordParseError` – one record cannot make a valid ``papers`` row; quarantine
  the record's XML with ``str(err)`` / ``err.reason`` and carry on with the page.
"""

from __future__ import annotations

from lxml import etree

from wove_pipeline.arxiv.tex import collapse_ws

OAI_NS = "http://www.openarchives.org/OAI/2.0/"
ARXIV_NS = "http://arxiv.org/OAI/arXiv/"
ARXIV_RAW_NS = "http://arxiv.org/OAI/arXivRaw/"
ARXIV_OLD_NS = "http://arxiv.org/OAI/arXivOld/"
OAI_DC_NS = "http://www.openarchives.org/OAI/2.0/oai_dc/"

# Namespace of the <metadata> child → the metadataPrefix that produced it.
PREFIX_BY_NAMESPACE = {
    ARXIV_NS: "arXiv",
    ARXIV_RAW_NS: "arXivRaw",
    ARXIV_OLD_NS: "arXivOld",
    OAI_DC_NS: "oai_dc",
}


class OaiParseError(ValueError):
    """The bytes are not a usable OAI-PMH response (malformed XML, wrong root, …)."""


class OaiError(Exception):
    """An OAI-PMH ``<error code=…>`` answer (other than ``noRecordsMatch``)."""

    def __init__(self, code: str, message: str = ""):
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message


class RecordParseError(ValueError):
    """A record that cannot make a valid ``papers`` row; ``reason`` goes to quarantine."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


# An attacker-controlled (or just broken) body must not make us fetch DTDs or expand
# entities; huge_tree stays off so a pathological document fails fast instead of eating RAM.
def _xml_parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False
    )


def parse_xml(data: bytes, error_cls: type[Exception], what: str) -> etree._Element:
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise error_cls(f"{what}: expected bytes, got {type(data).__name__}")
    data = bytes(data)
    if not data.strip():
        raise error_cls(f"{what}: empty body")
    try:
        root = etree.fromstring(data, parser=_xml_parser())
    except (etree.XMLSyntaxError, ValueError) as e:
        raise error_cls(f"{what}: malformed XML: {e}") from None
    if root is None:  # lxml returns None for some recoverable-but-empty documents
        raise error_cls(f"{what}: no root element")
    # OAI-PMH never sends a DTD. An internal subset can only declare entities, which
    # XPath string() would expand (entity-expansion attacks), so refuse it outright.
    if root.getroottree().docinfo.internalDTD is not None:
        raise error_cls(f"{what}: documents with a DOCTYPE/internal DTD are not accepted")
    return root


_string_value = etree.XPath("string()")  # XPath string-value: text only, no comments/PIs


def element_text(el: etree._Element | None) -> str | None:
    """Element text with outer whitespace stripped; ``None`` for absent or empty."""
    if el is None:
        return None
    # no children (nor comments): the text is the string-value, without an XPath call
    s = (el.text or "") if len(el) == 0 else str(_string_value(el))
    s = s.strip()
    return s or None


def element_line(el: etree._Element | None) -> str | None:
    """Element text as one line (OAI hard-wraps long fields with newline + indent)."""
    s = element_text(el)
    return collapse_ws(s) if s else None


def local_name(el: etree._Element) -> str:
    tag = el.tag
    if not isinstance(tag, str):  # comments / PIs
        return ""
    return etree.QName(tag).localname
