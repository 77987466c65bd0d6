"""arXiv OAI-PMH parsing: response pages, ``arXiv`` / ``arXivRaw`` metadata, the ``papers`` row.

Pure functions over bytes; no I/O. Wire formats: ``shared/research/upstream.md`` §1 and the
real recordings in ``shared/upstream-samples/arxiv/``.

Error contract (what a caller has to catch):

* :class:`OaiParseError` – the page is not a well-formed OAI-PMH document (truncated body,
  HTML error page, …). Retry the request; nothing on the page is trustworthy.
* :class:`OaiError` – the server answered with an OAI ``<error>`` other than
  ``noRecordsMatch`` (``noRecordsMatch`` is a normal empty day: ``OaiPage.is_empty_result``).
* :class:`RecordParseError` – one record cannot make a valid ``papers`` row; quarantine
  the record's XML with ``str(err)`` / ``err.reason`` and carry on with the page.

Field decisions:

* ``title_tex`` has its OAI hard line-wrap collapsed (titles have no paragraphs);
  ``abstract_tex`` is the source with only outer whitespace stripped, so paragraph breaks
  survive. ``title``/``abstract`` are :func:`tex_to_text` of those.
* When both formats are present the ``arXivRaw`` text wins for the ``*_tex`` fields (it is
  the untouched source; the new server runs tex2utf over the ``arXiv`` format), while the
  ``arXiv`` format wins for authors (it is pre-split, with affiliations).
* Dates: ``published``/``updated`` are tz-aware UTC datetimes; ``oai_datestamp`` is a date.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field, fields
from datetime import date, datetime, timezone
from email.utils import parsedate_to_datetime

from lxml import etree

from wove_pipeline.arxiv.tex import collapse_ws, is_old_style_id, slugify_paper, tex_to_text, try_normalize_arxiv_id

__all__ = [
    "OAI_NS",
    "ARXIV_NS",
    "ARXIV_RAW_NS",
    "OaiParseError",
    "OaiError",
    "RecordParseError",
    "RawRecord",
    "OaiPage",
    "Author",
    "Version",
    "ArxivMeta",
    "ArxivRawMeta",
    "PaperRecord",
    "parse_oai_page",
    "parse_arxiv_metadata",
    "parse_arxivraw_metadata",
    "merge_paper",
    "split_raw_authors",
    "split_dois",
]

OAI_NS = "http://www.openarchives.org/OAI/2.0/"
ARXIV_NS = "http://arxiv.org/OAI/arXiv/"
ARXIV_RAW_NS = "http://arxiv.org/OAI/arXivRaw/"
ARXIV_OLD_NS = "http://arxiv.org/OAI/arXivOld/"
OAI_DC_NS = "http://www.openarchives.org/OAI/2.0/oai_dc/"

# Namespace of the <metadata> child → the metadataPrefix that produced it.
_PREFIX_BY_NS = {
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


def _parse_xml(data: bytes, error_cls: type[Exception], what: str) -> etree._Element:
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


def _text(el: etree._Element | None) -> str | None:
    """Element text with outer whitespace stripped; ``None`` for absent or empty."""
    if el is None:
        return None
    # no children (nor comments): the text is the string-value, without an XPath call
    s = (el.text or "") if len(el) == 0 else str(_string_value(el))
    s = s.strip()
    return s or None


def _line(el: etree._Element | None) -> str | None:
    """Element text as one line (OAI hard-wraps long fields with newline + indent)."""
    s = _text(el)
    return collapse_ws(s) if s else None


def _local(el: etree._Element) -> str:
    tag = el.tag
    if not isinstance(tag, str):  # comments / PIs
        return ""
    return etree.QName(tag).localname


# ----------------------------------------------------------------------------------------
# pages


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
    header = el if _local(el) == "header" else el.find(f"{{{OAI_NS}}}header")
    if header is None:
        raise OaiParseError("record without <header>")
    identifier = _text(header.find(f"{{{OAI_NS}}}identifier"))
    if not identifier:
        raise OaiParseError("record header without <identifier>")
    datestamp = _text(header.find(f"{{{OAI_NS}}}datestamp"))
    set_specs = tuple(
        s for s in (_text(x) for x in header.findall(f"{{{OAI_NS}}}setSpec")) if s
    )
    deleted = (header.get("status") or "").strip().lower() == "deleted"
    prefix = None
    metadata = el.find(f"{{{OAI_NS}}}metadata")
    if metadata is not None:
        children = [c for c in metadata if isinstance(c.tag, str)]
        if children:
            ns = etree.QName(children[0]).namespace
            prefix = _PREFIX_BY_NS.get(ns or "", default_prefix)
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
    root = _parse_xml(xml, OaiParseError, "OAI-PMH page")
    if root.tag != f"{{{OAI_NS}}}OAI-PMH":
        raise OaiParseError(f"not an OAI-PMH response: root element is {root.tag!r}")

    request_el = root.find(f"{{{OAI_NS}}}request")
    request = {str(k): str(v) for k, v in request_el.attrib.items()} if request_el is not None else {}
    response_date = _text(root.find(f"{{{OAI_NS}}}responseDate"))

    errors = root.findall(f"{{{OAI_NS}}}error")
    if errors:
        codes = [(e.get("code") or "").strip() for e in errors]
        messages = [_line(e) or "" for e in errors]
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
        (c for c in root if _local(c) in ("ListRecords", "ListIdentifiers", "GetRecord")), None
    )
    if verb_el is None:
        raise OaiParseError("no ListRecords/ListIdentifiers/GetRecord element and no <error>")

    default_prefix = request.get("metadataPrefix")
    wanted = "header" if _local(verb_el) == "ListIdentifiers" else "record"
    records = [
        _raw_record(c, default_prefix) for c in verb_el if _local(c) == wanted
    ]

    token_el = verb_el.find(f"{{{OAI_NS}}}resumptionToken")
    token = cursor = size = expiration = None
    if token_el is not None:
        token = _text(token_el)
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


# ----------------------------------------------------------------------------------------
# metadata formats


@dataclass(frozen=True)
class Author:
    keyname: str
    forenames: str | None = None
    suffix: str | None = None
    affiliations: tuple[str, ...] = ()
    is_collaboration: bool = False

    @property
    def display_name(self) -> str:
        if self.is_collaboration:
            return self.keyname
        return " ".join(p for p in (self.forenames, self.keyname, self.suffix) if p)

    def as_dict(self) -> dict:
        return {
            "keyname": self.keyname,
            "forenames": self.forenames,
            "suffix": self.suffix,
            "affiliations": list(self.affiliations),
            "is_collaboration": self.is_collaboration,
        }


@dataclass(frozen=True)
class Version:
    n: int
    date: datetime  # tz-aware UTC
    size_kb: int | None = None
    source_type: str | None = None  # e.g. "D", "W" (withdrawn); often absent on legacy


@dataclass(frozen=True)
class ArxivMeta:
    """``metadataPrefix=arXiv`` (pre-split authors with affiliations)."""

    arxiv_id: str
    created: date | None
    updated: date | None
    authors: tuple[Author, ...]
    title: str | None
    categories: tuple[str, ...]
    comments: str | None = None
    proxy: str | None = None
    report_no: str | None = None
    msc_class: str | None = None
    acm_class: str | None = None
    journal_ref: str | None = None
    dois: tuple[str, ...] = ()
    license: str | None = None
    abstract: str | None = None
    warnings: tuple[str, ...] = ()

    @property
    def id(self) -> str:  # the name used in the OAI schema
        return self.arxiv_id


@dataclass(frozen=True)
class ArxivRawMeta:
    """``metadataPrefix=arXivRaw`` (raw TeX, versions, authors as one free-text string)."""

    arxiv_id: str
    submitter: str | None
    versions: tuple[Version, ...]  # sorted by n
    title: str | None
    authors_text: str | None
    categories: tuple[str, ...]
    comments: str | None = None
    proxy: str | None = None
    report_no: str | None = None
    msc_class: str | None = None
    acm_class: str | None = None
    journal_ref: str | None = None
    dois: tuple[str, ...] = ()
    license: str | None = None
    abstract: str | None = None
    warnings: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return self.arxiv_id


def _find_format_root(record: bytes | etree._Element, ns: str, local: str) -> etree._Element:
    # an element of a page parse_oai_page read (safely) already is parsed: not again
    root = record if isinstance(record, etree._Element) else _parse_xml(record, RecordParseError, f"{local} record")
    tag = f"{{{ns}}}{local}"
    if root.tag == tag:
        return root
    el = next(root.iter(tag), None)
    if el is None:
        raise RecordParseError(f"no <{local}> metadata element (namespace {ns})")
    return el


_DOI_SPLIT = re.compile(r"[\s,;]+")
_DOI_PREFIX = re.compile(r"^(?:doi:|https?://(?:dx\.)?doi\.org/)", re.IGNORECASE)


def split_dois(s: str | None, warnings: list[str] | None = None) -> tuple[str, ...]:
    """Split a DOI field (several DOIs separated by spaces/commas/semicolons), lower-case,
    de-duplicate keeping order. Tokens that do not look like a DOI are dropped (warned)."""
    out: list[str] = []
    for tok in _DOI_SPLIT.split(s or ""):
        tok = _DOI_PREFIX.sub("", tok.strip()).lower().rstrip(".")
        if not tok:
            continue
        if not re.match(r"^10\.\d+/\S+$", tok):
            if warnings is not None:
                warnings.append(f"ignored non-DOI token in doi field: {tok!r}")
            continue
        if tok not in out:
            out.append(tok)
    return tuple(out)


def _categories(s: str | None) -> tuple[str, ...]:
    out: list[str] = []
    for c in (s or "").split():
        if c not in out:
            out.append(c)
    return tuple(out)


def _iso_date(s: str | None, what: str) -> date | None:
    if s is None:
        return None
    try:
        return date.fromisoformat(s.strip())
    except ValueError:
        raise RecordParseError(f"bad {what} date: {s!r}") from None


def _record_id(el: etree._Element, ns: str) -> str:
    raw_id = _text(el.find(f"{{{ns}}}id"))
    if not raw_id:
        raise RecordParseError("record has no <id>")
    arxiv_id = try_normalize_arxiv_id(raw_id)
    if arxiv_id is None:
        raise RecordParseError(f"not an arXiv id: {raw_id!r}")
    return arxiv_id


def _clean_name(s: str | None) -> str | None:
    """Author name parts: one line; TeX accents converted (legacy records carry ``\\"u``)."""
    if not s:
        return None
    s = collapse_ws(s)
    if any(ch in s for ch in "\\{}$"):
        s = tex_to_text(s)
    return s or None


_HAS_WORD = re.compile(r"\w")
_COLLAB_WORD = re.compile(r"\b(collaboration|consortium)\b", re.IGNORECASE)


def _arxiv_authors(el: etree._Element, warnings: list[str]) -> tuple[Author, ...]:
    authors: list[Author] = []
    container = el.find(f"{{{ARXIV_NS}}}authors")
    if container is None:
        return ()
    for pos, a in enumerate(container.findall(f"{{{ARXIV_NS}}}author"), start=1):
        keyname = _clean_name(_text(a.find(f"{{{ARXIV_NS}}}keyname")))
        forenames = _clean_name(_text(a.find(f"{{{ARXIV_NS}}}forenames")))
        suffix = _clean_name(_text(a.find(f"{{{ARXIV_NS}}}suffix")))
        affiliations = tuple(
            s for s in (_line(x) for x in a.findall(f"{{{ARXIV_NS}}}affiliation")) if s
        )
        if not (keyname and _HAS_WORD.search(keyname)):
            if forenames and _HAS_WORD.search(forenames):
                # A mono-name put in <forenames>: keep the person, the name is the keyname.
                warnings.append(f"author {pos}: no keyname, using forenames {forenames!r}")
                keyname, forenames = forenames, None
            else:
                # Legacy artefact: after a collaboration the splitter emits keyname=":".
                warnings.append(f"author {pos}: dropped bogus author with keyname {keyname!r}")
                continue
        is_collab = False
        if keyname.lower() == "collaboration" and forenames:
            # Legacy artefact: "Super-Kamiokande Collaboration" split as forenames/keyname.
            keyname, forenames, is_collab = f"{forenames} Collaboration", None, True
        elif _COLLAB_WORD.search(keyname) or (forenames and _COLLAB_WORD.search(forenames)):
            if forenames:
                keyname = f"{forenames} {keyname}"
            keyname, forenames, is_collab = keyname, None, True
        authors.append(Author(keyname, forenames, suffix, affiliations, is_collab))
    return tuple(authors)


def parse_arxiv_metadata(record_xml: bytes | etree._Element) -> ArxivMeta:
    """Parse ``metadataPrefix=arXiv`` metadata.

    ``record_xml`` may be a ``<record>`` (as kept in :class:`RawRecord`: its XML or its
    element), a whole GetRecord response or just the ``<arXiv>`` element. Raises
    :class:`RecordParseError`.
    """
    el = _find_format_root(record_xml, ARXIV_NS, "arXiv")
    warnings: list[str] = []
    arxiv_id = _record_id(el, ARXIV_NS)

    def t(name: str) -> str | None:
        return _line(el.find(f"{{{ARXIV_NS}}}{name}"))

    return ArxivMeta(
        arxiv_id=arxiv_id,
        created=_iso_date(t("created"), "created"),
        updated=_iso_date(t("updated"), "updated"),
        authors=_arxiv_authors(el, warnings),
        title=t("title"),
        categories=_categories(t("categories")),
        comments=t("comments"),
        proxy=t("proxy"),
        report_no=t("report-no"),
        msc_class=t("msc-class"),
        acm_class=t("acm-class"),
        journal_ref=t("journal-ref"),
        dois=split_dois(t("doi"), warnings),
        license=t("license"),
        abstract=_text(el.find(f"{{{ARXIV_NS}}}abstract")),
        warnings=tuple(warnings),
    )


_VERSION_ATTR = re.compile(r"^v?(\d+)$", re.IGNORECASE)
_SIZE = re.compile(r"^(\d+)\s*kb$", re.IGNORECASE)


def _rfc822(s: str | None, what: str) -> datetime:
    if not s:
        raise RecordParseError(f"{what}: missing date")
    try:
        dt = parsedate_to_datetime(s.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        dt = None
    if dt is None:
        raise RecordParseError(f"{what}: bad RFC-822 date {s!r}")
    if dt.tzinfo is None:  # "-0000" means UTC with unknown local zone
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.astimezone(timezone.utc)


def parse_arxivraw_metadata(record_xml: bytes | etree._Element) -> ArxivRawMeta:
    """Parse ``metadataPrefix=arXivRaw`` metadata. Raises :class:`RecordParseError`."""
    el = _find_format_root(record_xml, ARXIV_RAW_NS, "arXivRaw")
    warnings: list[str] = []
    arxiv_id = _record_id(el, ARXIV_RAW_NS)

    versions: dict[int, Version] = {}
    for v in el.findall(f"{{{ARXIV_RAW_NS}}}version"):
        m = _VERSION_ATTR.match((v.get("version") or "").strip())
        if not m:
            raise RecordParseError(f"bad version attribute {v.get('version')!r}")
        n = int(m.group(1))
        when = _rfc822(_text(v.find(f"{{{ARXIV_RAW_NS}}}date")), f"version v{n}")
        size_s = _text(v.find(f"{{{ARXIV_RAW_NS}}}size"))
        size_m = _SIZE.match(size_s) if size_s else None
        if size_s and not size_m:
            warnings.append(f"version v{n}: unreadable size {size_s!r}")
        if n in versions:
            warnings.append(f"duplicate version v{n}; keeping the last")
        versions[n] = Version(
            n=n,
            date=when,
            size_kb=int(size_m.group(1)) if size_m else None,
            source_type=_text(v.find(f"{{{ARXIV_RAW_NS}}}source_type")),
        )

    def t(name: str) -> str | None:
        return _line(el.find(f"{{{ARXIV_RAW_NS}}}{name}"))

    return ArxivRawMeta(
        arxiv_id=arxiv_id,
        submitter=t("submitter"),
        versions=tuple(versions[k] for k in sorted(versions)),
        title=t("title"),
        authors_text=t("authors"),
        categories=_categories(t("categories")),
        comments=t("comments"),
        proxy=t("proxy"),
        report_no=t("report-no"),
        msc_class=t("msc-class"),
        acm_class=t("acm-class"),
        journal_ref=t("journal-ref"),
        dois=split_dois(t("doi"), warnings),
        license=t("license"),
        abstract=_text(el.find(f"{{{ARXIV_RAW_NS}}}abstract")),
        warnings=tuple(warnings),
    )


# ----------------------------------------------------------------------------------------
# arXivRaw free-text authors

_SUFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"}
_PARTICLES = {
    "de", "da", "di", "del", "della", "der", "den", "des", "dos", "du", "van", "von",
    "la", "le", "ter", "ten", "zu", "st.", "bin", "ibn", "al", "el",
}
_AND_SPLIT = re.compile(r"\s*(?:,|;|&|\band\b|\\and\b)\s*", re.IGNORECASE)
_REF_KEYS = re.compile(r"[\s,&]+|\band\b", re.IGNORECASE)
_LEGEND_ITEM = re.compile(r"\((\w{1,3})\)\s*([^()]+?)\s*(?=,?\s*\(\w{1,3}\)|$)")


def _top_level_groups(s: str) -> list[tuple[int, int]]:
    """(start, end) spans of top-level parenthesised groups; unbalanced tails are ignored."""
    spans, depth, start = [], 0, 0
    for i, ch in enumerate(s):
        if ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append((start, i + 1))
    return spans


def _split_name(name: str) -> tuple[str, str | None, str | None]:
    """'Patricio S. de la Cruz Jr.' → ('de la Cruz', 'Patricio S.', 'Jr.')."""
    tokens = name.split()
    suffix = None
    if len(tokens) > 1 and tokens[-1].lower() in _SUFFIXES:
        suffix = tokens.pop()
    if len(tokens) == 1:
        return tokens[0], None, suffix
    i = len(tokens) - 1
    while i > 1 and tokens[i - 1].lower() in _PARTICLES:
        i -= 1
    keyname = " ".join(tokens[i:])
    forenames = " ".join(tokens[:i]) or None
    return keyname, forenames, suffix


def split_raw_authors(text: str | None, warnings: list[str] | None = None) -> tuple[Author, ...]:
    """Heuristic split of an arXivRaw ``<authors>`` string.

    ``"D.V. Shetty, S.J. Yennello, and G.A. Souliotis"`` → three authors. Parenthesised
    groups become affiliations of the author they follow; a trailing legend
    ``((1) MIT, (2) CMU)`` resolves numeric markers like ``A (1), B (1, 2)``.
    """
    warnings = warnings if warnings is not None else []
    if not text:
        return ()
    s = tex_to_text(text) if any(ch in text for ch in "\\{}$") else collapse_ws(text)

    # Pull out top-level (...) groups, remembering after which name they appeared.
    groups = _top_level_groups(s)
    plain_parts: list[str] = []
    group_after: list[tuple[int, str]] = []  # (index of text chunk before it, content)
    last = 0
    for start, end in groups:
        plain_parts.append(s[last:start])
        group_after.append((len(plain_parts) - 1, s[start + 1 : end - 1].strip()))
        last = end
    plain_parts.append(s[last:])

    # Legend: a group whose content starts with "(x)" maps markers to institutions.
    legend: dict[str, str] = {}
    for _, content in group_after:
        if content.startswith("("):
            for key, value in _LEGEND_ITEM.findall(content):
                legend[key.lower()] = value.strip().rstrip(",;").strip()

    names: list[str] = []
    affs: list[list[str]] = []
    for idx, chunk in enumerate(plain_parts):
        for piece in _AND_SPLIT.split(chunk):
            piece = piece.strip(" ,;")
            if piece:
                names.append(piece)
                affs.append([])
        # Groups that follow this chunk attach to the last name seen so far.
        for g_idx, content in group_after:
            if g_idx != idx or not content or content.startswith("(") or not names:
                continue
            keys = [k.lower() for k in _REF_KEYS.split(content) if k]
            if legend and keys and all(k in legend for k in keys):
                # Numeric markers "(1, 2)" that point into the legend.
                affs[-1].extend(legend[k] for k in keys)
            else:
                affs[-1].append(content)

    authors: list[Author] = []
    for name, aff in zip(names, affs):
        if name.lower() in {"et al", "et al.", "others"}:
            warnings.append(f"dropped {name!r} from the author list")
            continue
        if not _HAS_WORD.search(name):
            warnings.append(f"dropped punctuation-only author {name!r}")
            continue
        if _COLLAB_WORD.search(name):
            collab = re.sub(r"^(?:for\s+)?(?:the\s+)", "", name, flags=re.IGNORECASE).strip()
            authors.append(Author(collab, None, None, tuple(aff), True))
            continue
        keyname, forenames, suffix = _split_name(name)
        authors.append(Author(keyname, forenames, suffix, tuple(dict.fromkeys(aff))))
    return tuple(authors)


# ----------------------------------------------------------------------------------------
# the papers row


@dataclass(frozen=True)
class PaperRecord:
    """One row of the ``papers`` table. ``as_row()`` gives exactly the column dict."""

    arxiv_id: str
    is_old_style: bool
    current_version: int  # a lower bound (2) when arXivRaw is missing and <updated> exists
    versions: tuple[Version, ...]
    title_tex: str
    title: str
    abstract_tex: str | None
    abstract: str | None
    authors: tuple[Author, ...]
    authors_display: str
    categories: tuple[str, ...]
    primary_category: str
    published: datetime  # v1 submitted, tz-aware UTC
    updated: datetime  # latest version submitted, tz-aware UTC
    dois: tuple[str, ...]
    journal_ref: str | None
    comments: str | None
    report_no: str | None
    license: str | None
    withdrawn: bool
    slug: str
    abs_url: str
    pdf_url: str
    oai_datestamp: date
    # Not a column: human-readable notes about repaired input (kept for run metadata).
    warnings: tuple[str, ...] = ()

    def as_row(self) -> dict:
        # Shallow on purpose: asdict() deep-copies every author of a 3,000-author paper.
        row = {name: getattr(self, name) for name in _ROW_FIELDS}
        row["versions"] = [
            {
                "version": v.n,
                "submitted": v.date.isoformat(),
                "size_kb": v.size_kb,
                "source_type": v.source_type,
            }
            for v in self.versions
        ]
        row["authors"] = [a.as_dict() for a in self.authors]
        row["categories"] = list(self.categories)
        row["dois"] = list(self.dois)
        return row


_ROW_FIELDS = tuple(f.name for f in fields(PaperRecord) if f.name != "warnings")

_WITHDRAWN = re.compile(r"\bwithdrawn?\b|\bwithdrawal\b", re.IGNORECASE)


def _as_datestamp(d: date | datetime | str | None) -> date:
    if d is None or d == "":
        raise RecordParseError("record has no OAI datestamp")
    if isinstance(d, datetime):
        return d.date()
    if isinstance(d, date):
        return d
    try:
        return date.fromisoformat(str(d).strip()[:10])
    except ValueError:
        raise RecordParseError(f"bad OAI datestamp: {d!r}") from None


def _midnight_utc(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=timezone.utc)


def printed_suffixes(authors: tuple[Author, ...], raw_text: str | None) -> tuple[Author, ...]:
    """The arXiv format's ``<suffix>`` drops the printed dot ("Robert T. Hayes Jr." gives
    ``<suffix>Jr</suffix>``); arXivRaw's author string keeps the name as printed. A suffix
    is given its dot back when the string prints it so after the author's name (or, for a
    name the string writes otherwise, in TeX, when it prints that suffix with a dot everywhere)."""
    if not raw_text:
        return authors
    out = []
    for a in authors:
        s = a.suffix
        if s and not s.endswith(".") and s.lower() in ("jr", "sr"):
            name = re.escape(" ".join(x for x in (a.forenames, a.keyname) if x)).replace(r"\ ", r"\s+")
            printed = [m.group(1) for m in re.finditer(
                rf"(?<!\w){name},?\s+{re.escape(s)}(\.?)(?!\w)", raw_text)]
            if not printed:  # the string writes the name otherwise (TeX accents): the suffix alone
                printed = [m.group(1) for m in re.finditer(rf"(?<![\w.]){re.escape(s)}(\.?)(?!\w)", raw_text)]
            if printed and all(printed):
                a = dataclasses.replace(a, suffix=s + ".")
        out.append(a)
    return tuple(out)


def merge_paper(
    meta: ArxivMeta | None,
    raw: ArxivRawMeta | None,
    datestamp: date | datetime | str | None,
) -> PaperRecord:
    """Combine the two metadata formats of one paper into its ``papers`` row.

    Either format may be missing. ``datestamp`` is the OAI header datestamp (the
    ``papers.oai_datestamp`` column is NOT NULL). Raises :class:`RecordParseError` when no
    valid row can be made (no id, no title, no authors, no categories, no date at all,
    no/invalid datestamp, ids disagree).
    """
    if meta is None and raw is None:
        raise RecordParseError("no metadata in either arXiv or arXivRaw format")
    if meta is not None and raw is not None and meta.arxiv_id != raw.arxiv_id:
        raise RecordParseError(f"id mismatch: arXiv {meta.arxiv_id!r} vs arXivRaw {raw.arxiv_id!r}")
    arxiv_id = (meta or raw).arxiv_id  # type: ignore[union-attr]
    oai_datestamp = _as_datestamp(datestamp)
    warnings: list[str] = list(meta.warnings if meta else ()) + list(raw.warnings if raw else ())

    def pick(name: str):
        """arXivRaw first (raw source), then arXiv."""
        for src in (raw, meta):
            if src is not None and getattr(src, name):
                return getattr(src, name)
        return None

    title_tex = pick("title")
    if not title_tex:
        raise RecordParseError("record has no title")
    title = tex_to_text(title_tex)
    if not title:
        raise RecordParseError(f"title is empty after TeX cleanup: {title_tex!r}")
    abstract_tex = pick("abstract")
    abstract = tex_to_text(abstract_tex) or None if abstract_tex else None

    if meta is not None and meta.authors:
        authors = printed_suffixes(meta.authors, raw.authors_text if raw else None)
    else:
        authors = split_raw_authors(raw.authors_text if raw else None, warnings)
    if not authors:
        raise RecordParseError("record has no usable authors")

    categories = pick("categories") or ()
    if not categories:
        raise RecordParseError("record has no categories")

    versions = raw.versions if raw is not None else ()
    if versions:
        if versions[0].n != 1:
            warnings.append(f"first listed version is v{versions[0].n}, not v1")
        published = versions[0].date
        updated = versions[-1].date
        current_version = versions[-1].n
    else:
        # arXiv format only: day precision. On the 2025 server <created> may be the current
        # version's date (upstream.md §1.1), so this is a fallback, not the truth.
        created = meta.created if meta is not None else None
        if created is None:
            raise RecordParseError("no version dates and no <created> date")
        published = _midnight_utc(created)
        upd = meta.updated if meta is not None else None
        updated = _midnight_utc(upd) if upd else published
        # <updated> is only present when there is more than one version; without arXivRaw
        # the exact count is unknown, so 2 is a lower bound (warned).
        current_version = 1 if upd is None else 2
        warnings.append("no arXivRaw versions: published taken from <created> at 00:00Z")
        if upd is not None:
            warnings.append("no arXivRaw versions: current_version 2 is a lower bound")
    if updated < published:
        warnings.append("latest version date is before v1; using v1 for updated")
        updated = published

    dois: list[str] = []
    for src in (raw, meta):
        for d in (src.dois if src else ()):
            if d not in dois:
                dois.append(d)

    comments = pick("comments")
    withdrawn = bool(versions and (versions[-1].source_type or "").upper() == "W") or bool(
        comments and _WITHDRAWN.search(comments)
    )

    return PaperRecord(
        arxiv_id=arxiv_id,
        is_old_style=is_old_style_id(arxiv_id),
        current_version=current_version,
        versions=tuple(versions),
        title_tex=title_tex,
        title=title,
        abstract_tex=abstract_tex,
        abstract=abstract,
        authors=tuple(authors),
        authors_display=", ".join(a.display_name for a in authors),
        categories=tuple(categories),
        primary_category=categories[0],
        published=published,
        updated=updated,
        dois=tuple(dois),
        journal_ref=pick("journal_ref"),
        comments=comments,
        report_no=pick("report_no"),
        license=pick("license"),
        withdrawn=withdrawn,
        slug=slugify_paper(arxiv_id, title),
        abs_url=f"https://arxiv.org/abs/{arxiv_id}",
        pdf_url=f"https://arxiv.org/pdf/{arxiv_id}",
        oai_datestamp=oai_datestamp,
        warnings=tuple(warnings),
    )
