"""The sandbox world: a deterministic synthetic corpus with ground truth.

These dataclasses are the contract between the world generator (``generator.py``) and the
three sandbox endpoints (``arxiv_oai.py``, ``semantic_scholar.py``, ``openalex.py``).
Nothing in the sandbox imports the pipeline's clients or parsers (DESIGN.md: a fake built
from the code under test only tests that code against itself).

Ground truth lives in ``Person`` (who is who) and in the ``person_id`` of every
``Authorship``. The upstream *views* (``S2Paper``, ``OpenAlexWork``, ...) carry the
noise that real upstreams have: coverage lag, split and merged author ids, null ids,
missing or wrong ORCIDs, disagreeing citation counts.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field


@dataclass
class Institution:
    institution_id: str  # OpenAlex-style "I123456"
    ror: str  # "https://ror.org/0abcdef12"
    display_name: str
    country_code: str
    type: str = "education"  # education | company | facility | ...
    aliases: list[str] = field(default_factory=list)  # acronyms and other spellings seen in affiliations


@dataclass
class Person:
    """A real human in the world (ground truth)."""

    person_id: int
    given: str  # canonical given names, e.g. "Peng" or "Jean-Pierre"
    family: str  # canonical family name, e.g. "Wang" or "van der Berg"
    suffix: str | None = None
    orcid: str | None = None  # true ORCID (a minority have one)
    # (institution_id, first_year, last_year) in time order
    affiliations: list[tuple[str, int, int]] = field(default_factory=list)
    home_categories: list[str] = field(default_factory=list)  # research areas, primary first
    # Upstream identities of this person. A person may hold several ids (the upstream split
    # them) and one id may be shared by several people (the upstream merged them).
    s2_author_ids: list[str] = field(default_factory=list)
    openalex_author_ids: list[str] = field(default_factory=list)
    is_collaboration: bool = False  # "ATLAS Collaboration" style group author


@dataclass
class Authorship:
    """One author position on one paper, as printed on arXiv."""

    position: int  # 0-based order on the paper
    person_id: int  # ground truth
    keyname: str  # as printed: "Wang", "Müller", "Collaboration" (legacy artefact)
    forenames: str | None  # as printed: "Peng", "P.", "J.-P.", "Jean Pierre"
    suffix: str | None = None
    affiliations: list[str] = field(default_factory=list)  # raw affiliation strings
    institution_ids: list[str] = field(default_factory=list)  # truth behind the strings


@dataclass
class Version:
    version: int  # 1, 2, ...
    submitted: dt.datetime  # UTC, tz-aware
    size_kb: int
    source_type: str | None = None  # "D", "W" (withdrawn), ...


@dataclass
class S2Author:
    """A Semantic Scholar author profile (may split or merge real people)."""

    author_id: str
    name: str
    person_ids: list[int]  # truth: who this profile really is (len > 1 = merged)
    orcid: str | None = None  # externalIds.ORCID, only for claimed profiles
    dblp_names: list[str] = field(default_factory=list)
    affiliations: list[str] = field(default_factory=list)
    homepage: str | None = None
    paper_count: int = 0
    citation_count: int = 0
    h_index: int = 0


@dataclass
class S2Paper:
    """Semantic Scholar's view of an arXiv paper."""

    paper_id: str  # 40-hex
    corpus_id: int
    available_from: dt.date  # first day S2 knows the paper (coverage lag)
    title: str
    abstract: str | None
    year: int | None
    publication_date: dt.date | None
    venue: str
    citation_count: int
    influential_citation_count: int
    reference_count: int
    fields_of_study: list[str] | None
    doi: str | None  # published DOI if any (externalIds.DOI)
    # aligned to S2's own author list, which may differ from arXiv's (order, length, spelling)
    authors: list[tuple[str | None, str]]  # (authorId or None, name as S2 prints it)
    citing_paper_ids: list[str] = field(default_factory=list)  # for /paper/{id}/citations


@dataclass
class OpenAlexAuthorship:
    author_id: str | None  # "A5012345678"; None for a group author
    display_name: str  # OpenAlex's display name for the author entity
    raw_author_name: str  # as printed on the work
    orcid: str | None  # on the authorship; may be wrong for a few
    institution_ids: list[str] = field(default_factory=list)
    raw_affiliation_strings: list[str] = field(default_factory=list)
    is_corresponding: bool = False


@dataclass
class OpenAlexWork:
    work_id: str  # "W1234567890"
    available_from: dt.date  # first day OpenAlex knows the work
    doi: str  # "https://doi.org/10.48550/arxiv.<id>" (lower case as OpenAlex serves it)
    title: str
    publication_date: dt.date
    type: str  # "preprint" | "article"
    cited_by_count: int
    counts_by_year: list[tuple[int, int]]  # (year, cited_by_count)
    authorships: list[OpenAlexAuthorship]
    primary_topic: dict | None  # {"id","display_name","score","subfield":{..},"field":{..},"domain":{..}}
    topics: list[dict] = field(default_factory=list)
    abstract: str | None = None  # served as abstract_inverted_index
    merged_into: str | None = None  # set on a retired id: requests answer 301 to this id


@dataclass
class OpenAlexAuthor:
    author_id: str
    display_name: str
    person_ids: list[int]  # truth (len > 1 = a merged common-name profile)
    orcid: str | None
    display_name_alternatives: list[str] = field(default_factory=list)
    works_count: int = 0
    cited_by_count: int = 0
    h_index: int = 0
    i10_index: int = 0
    two_year_mean_citedness: float = 0.0
    last_known_institution_ids: list[str] = field(default_factory=list)
    # (institution_id, [years])
    affiliations: list[tuple[str, list[int]]] = field(default_factory=list)
    merged_into: str | None = None  # a retired id: requests answer 301


@dataclass
class Paper:
    """An arXiv paper with its full history and its upstream views."""

    arxiv_id: str  # "2508.06001" or "hep-th/9901001"
    versions: list[Version]  # v1 first
    datestamp: dt.date  # OAI last-modification day (what from/until filter on)
    title: str  # TeX source as submitted
    abstract: str  # TeX source as submitted
    authors: list[Authorship]
    categories: list[str]  # primary first
    submitter: str = ""
    comments: str | None = None
    report_no: str | None = None
    msc_class: str | None = None
    acm_class: str | None = None
    journal_ref: str | None = None
    dois: list[str] = field(default_factory=list)  # may be several
    license: str | None = None
    proxy: str | None = None
    withdrawn: bool = False
    s2: S2Paper | None = None  # None: S2 never learns of it
    openalex: OpenAlexWork | None = None  # None: OpenAlex never learns of it


@dataclass
class World:
    seed: int
    size: int
    start_day: dt.date  # first OAI datestamp day with records
    end_day: dt.date  # last OAI datestamp day with records (inclusive)
    papers: list[Paper]
    persons: dict[int, Person]
    institutions: dict[str, Institution]
    s2_authors: dict[str, S2Author]
    openalex_authors: dict[str, OpenAlexAuthor]
    # retired OpenAlex work/author ids -> surviving id (answer 301)
    openalex_redirects: dict[str, str] = field(default_factory=dict)

    def papers_modified_between(self, start: dt.date, end: dt.date) -> list[Paper]:
        """Papers whose OAI datestamp lies in [start, end], sorted as the OAI server orders them."""
        return sorted(
            (p for p in self.papers if start <= p.datestamp <= end),
            key=lambda p: (p.datestamp, p.arxiv_id),
        )
