"""Author mentions: one author position on one paper, with every piece of evidence."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

import numpy as np

from .names import Name, make_name, normalize_text, parse_name

# A paper with more authors than this gives no co-author evidence (matching) and no co-author
# edges (metrics): a giant collaboration's list says nothing about one person's circle.
MAX_COAUTHOR_AUTHORS = 100

# The sentence model whose paper vectors the pair model was trained on (feature
# embedding_cosine): vectors of another model mean other cosines, so only this one's are read.
EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


@dataclass(slots=True)  # a scoped load at scale holds a million of them
class Mention:
    """One (paper, author position) with the evidence the matcher may use.

    ``mention_id`` must be stable across runs (the pipeline uses ``"<arxiv_id>:<position>"``)
    because overrides and researcher ids are keyed by it.
    """

    mention_id: str
    paper_id: str
    position: int
    first: str | None = None  # forenames as printed ("Peng", "J.-P.")
    middle: str | None = None
    last: str | None = None  # keyname / surname as printed
    suffix: str | None = None
    affiliations: list[str] = field(default_factory=list)  # raw strings
    s2_author_id: str | None = None
    openalex_author_id: str | None = None
    orcid: str | None = None
    institution_ids: list[str] = field(default_factory=list)  # OpenAlex I-ids / ROR
    coauthor_keys: list[str] = field(default_factory=list)  # block keys or names of co-authors
    coauthor_names: list[str] = field(default_factory=list)  # co-authors printed with a full first name (coauthor_name)
    categories: list[str] = field(default_factory=list)  # primary first
    text: str = ""  # title + abstract
    text_terms: bytes | None = None  # text's packed term counts (scoring.text_term_counts), when counted before
    embedding: np.ndarray | None = None  # the paper's text vector (EMBEDDING_MODEL, float16), one array shared by its positions
    year: int | None = None
    published: dt.date | dt.datetime | None = None  # newest-first ordering
    email: str | None = None
    venue: str | None = None
    n_authors: int | None = None
    alignment_confidence: float | None = None  # for the S2/OpenAlex ids (alignment.py)
    display_name: str | None = None  # free text, used when first/last are missing

    _name: Name | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def name(self) -> Name:
        if self._name is None:
            if self.last or self.first:
                self._name = make_name(self.first, self.middle, self.last, self.suffix)
            else:
                self._name = parse_name(self.display_name)
        return self._name

    @property
    def block(self) -> str:
        return self.name.block

    @property
    def sort_date(self) -> tuple:
        """Sortable recency: published date, else year, else nothing (oldest)."""
        p = self.published
        if isinstance(p, dt.datetime):
            p = p.date()
        if p is not None:
            return (p.toordinal(), self.paper_id, self.position)
        if self.year:
            return (dt.date(int(self.year), 7, 1).toordinal(), self.paper_id, self.position)
        return (0, self.paper_id, self.position)


def coauthor(name_text: str | None = None, *, first: str | None = None, last: str | None = None) -> Name:
    """A co-author's name, from its parts or from the printed text."""
    return make_name(first, None, last) if (first or last) else parse_name(name_text)


def coauthor_key(name_text: str | None = None, *, first: str | None = None, last: str | None = None) -> str:
    """Normalized co-author key (S2AND uses co-author *blocks*): 'p wang'."""
    return coauthor(name_text, first=first, last=last).block


def coauthor_name(n: Name) -> str:
    """A co-author's first given name and surname key ('peng wang'); '' when printed with
    initials only. Two namesakes in one field share co-author *blocks* by chance ('y zhang'
    stands for Yue, Yang and Yi Zhang), far less often their co-authors' full names."""
    return f"{n.first} {n.last_key}" if n.given and not n.first_is_initial and n.last_key else ""


def coauthor_fields(names: list[Name], own: int) -> dict[str, list[str]]:
    """Mention's co-author fields for position ``own`` among a paper's author ``names``
    (empty for a collaboration too big to carry co-author evidence: pass no names)."""
    others = [n for j, n in enumerate(names) if j != own]
    return {"coauthor_keys": [n.block for n in others],
            "coauthor_names": [x for x in map(coauthor_name, others) if x]}


def normalize_orcid(orcid: str | None) -> str | None:
    if not orcid:
        return None
    s = str(orcid).strip().rsplit("/", 1)[-1].upper()
    return s or None


def affiliation_text(m: Mention) -> str:
    return " ".join(normalize_text(a) for a in m.affiliations if a)
