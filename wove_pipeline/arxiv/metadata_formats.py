"""The two arXiv metadata formats of a record: ``arXiv`` (pre-split authors with
affiliations) and ``arXivRaw`` (raw TeX, versions, authors as one free-text string)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timezone
from email.utils import parsedate_to_datetime

from lxml import etree

from wove_pipeline.arxiv.authors import Author, arxiv_format_authors
from wove_pipeline.arxiv.oai_xml import ARXIV_NS, ARXIV_RAW_NS, RecordParseError, element_line, element_text, parse_xml
from wove_pipeline.arxiv.tex import try_normalize_arxiv_id


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
    root = record if isinstance(record, etree._Element) else parse_xml(record, RecordParseError, f"{local} record")
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
    raw_id = element_text(el.find(f"{{{ns}}}id"))
    if not raw_id:
        raise RecordParseError("record has no <id>")
    arxiv_id = try_normalize_arxiv_id(raw_id)
    if arxiv_id is None:
        raise RecordParseError(f"not an arXiv id: {raw_id!r}")
    return arxiv_id


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
        return element_line(el.find(f"{{{ARXIV_NS}}}{name}"))

    return ArxivMeta(
        arxiv_id=arxiv_id,
        created=_iso_date(t("created"), "created"),
        updated=_iso_date(t("updated"), "updated"),
        authors=arxiv_format_authors(el, warnings),
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
        abstract=element_text(el.find(f"{{{ARXIV_NS}}}abstract")),
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
        when = _rfc822(element_text(v.find(f"{{{ARXIV_RAW_NS}}}date")), f"version v{n}")
        size_s = element_text(v.find(f"{{{ARXIV_RAW_NS}}}size"))
        size_m = _SIZE.match(size_s) if size_s else None
        if size_s and not size_m:
            warnings.append(f"version v{n}: unreadable size {size_s!r}")
        if n in versions:
            warnings.append(f"duplicate version v{n}; keeping the last")
        versions[n] = Version(
            n=n,
            date=when,
            size_kb=int(size_m.group(1)) if size_m else None,
            source_type=element_text(v.find(f"{{{ARXIV_RAW_NS}}}source_type")),
        )

    def t(name: str) -> str | None:
        return element_line(el.find(f"{{{ARXIV_RAW_NS}}}{name}"))

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
        abstract=element_text(el.find(f"{{{ARXIV_RAW_NS}}}abstract")),
        warnings=tuple(warnings),
    )
