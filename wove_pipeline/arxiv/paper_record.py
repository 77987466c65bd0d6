"""The ``papers`` row: the two metadata formats of one paper merged into a ``PaperRecord``.

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

import re
from dataclasses import dataclass, fields
from datetime import date, datetime, timezone

from wove_pipeline.arxiv.authors import Author, printed_suffixes, split_raw_authors
from wove_pipeline.arxiv.metadata_formats import ArxivMeta, ArxivRawMeta, Version
from wove_pipeline.arxiv.oai_xml import RecordParseError
from wove_pipeline.arxiv.tex import is_old_style_id, slugify_paper, tex_to_text


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
