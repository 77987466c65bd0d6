"""Load a sandbox world straight into the core tables, using ground truth as the matching
result (one researcher per person). Upstream stages are tested elsewhere; this feeds the
metrics and serving layer with known answers, fast."""

from __future__ import annotations

import datetime as dt
import hashlib
import re

from psycopg.types.json import Jsonb

from wove_pipeline.arxiv.tex import slugify_paper, tex_to_text
from wove_pipeline.database import access as db
from wove_pipeline.sandbox.ground_truth import mention_identities
from wove_pipeline.sandbox.people import normalize_name
from wove_pipeline.serving import publish as publishing
from wove_pipeline.serving.publish import PublishResult

RESEARCHER_OFFSET = 200_000
FETCHED = dt.datetime(2025, 8, 20, 12, 0, tzinfo=dt.timezone.utc)


def researcher_id(person_id: int) -> int:
    return RESEARCHER_OFFSET + person_id


def person_name(person) -> str:
    return f"{person.given} {person.family}"


def _display(a) -> str:
    return " ".join(x for x in (a.forenames, a.keyname, a.suffix) if x)


def _has_tex(s: str) -> bool:
    return "\\" in s or "$" in s


def paper_row(p) -> tuple:
    # the real parser cleans TeX with tex_to_text (slow); the abstract's display form only
    # needs to be stable here, so a cheap cleanup stands in for it
    title = (tex_to_text(p.title) or p.title) if _has_tex(p.title) else p.title
    abstract = re.sub(r"\s+", " ", p.abstract.replace("$", "")).strip() or None
    versions = [{"version": v.version, "submitted": v.submitted.isoformat(), "size_kb": v.size_kb,
                 "source_type": v.source_type} for v in p.versions]
    authors = [{"keyname": a.keyname, "forenames": a.forenames, "suffix": a.suffix,
                "affiliations": list(a.affiliations), "is_collaboration": a.keyname == "Collaboration"}
               for a in p.authors]
    slug = slugify_paper(p.arxiv_id, title)
    return (
        p.arxiv_id, "/" in p.arxiv_id, p.versions[-1].version, Jsonb(versions), p.title, title, p.abstract, abstract,
        Jsonb(authors), ", ".join(_display(a) for a in p.authors), list(p.categories), p.categories[0],
        p.versions[0].submitted, p.versions[-1].submitted, list(p.dois), p.journal_ref, p.comments, p.report_no,
        p.license, p.withdrawn, slug, f"https://arxiv.org/abs/{p.arxiv_id}", f"https://arxiv.org/pdf/{p.arxiv_id}",
        p.datestamp, hashlib.sha256(f"{title}\n{abstract or ''}".encode()).hexdigest(),
    )


PAPER_COLUMNS = (
    "arxiv_id", "is_old_style", "current_version", "versions", "title_tex", "title", "abstract_tex",
    "abstract", "authors", "authors_display", "categories", "primary_category", "published", "updated",
    "dois", "journal_ref", "comments", "report_no", "license", "withdrawn", "slug", "abs_url", "pdf_url",
    "oai_datestamp", "content_hash",
)


def is_person(world, person_id: int) -> bool:
    return not world.persons[person_id].is_collaboration


def load_static(conn, world) -> None:
    """External author records and institutions (not tied to a day)."""
    as_of = world.end_day
    db.copy_rows(conn, "wove.institutions",
                 ("institution_id", "ror", "display_name", "country_code", "type", "aliases", "as_of", "fetched_at"),
                 ((i.institution_id, i.ror, i.display_name, i.country_code, i.type, list(i.aliases), as_of, FETCHED)
                  for i in world.institutions.values()))
    db.copy_rows(conn, "wove.s2_authors",
                 ("author_id", "name", "paper_count", "citation_count", "h_index", "as_of", "fetched_at"),
                 ((a.author_id, a.name, a.paper_count, a.citation_count, a.h_index, as_of, FETCHED)
                  for a in world.s2_authors.values()))
    db.copy_rows(conn, "wove.openalex_authors",
                 ("author_id", "display_name", "works_count", "cited_by_count", "h_index", "as_of", "fetched_at"),
                 ((a.author_id, a.display_name, a.works_count, a.cited_by_count, a.h_index, as_of, FETCHED)
                  for a in world.openalex_authors.values()))


def load_papers(conn, world, papers, *, fetched: dt.datetime = FETCHED, researchers_known: set[int] | None = None) -> set[int]:
    """Papers, their authors, upstream views, authorships and ground-truth mentions.
    Creates researcher rows for persons not in ``researchers_known``; returns the new ids."""
    papers = list(papers)
    ids_by_key = {(a, pos): (s2, oa) for a, pos, _pid, s2, oa in mention_identities(world)}
    db.copy_rows(conn, "wove.papers", PAPER_COLUMNS, (paper_row(p) for p in papers))
    db.copy_rows(conn, "wove.paper_authors",
                 ("arxiv_id", "position", "keyname", "forenames", "suffix", "affiliations", "is_collaboration"),
                 ((p.arxiv_id, a.position, a.keyname, a.forenames, a.suffix, list(a.affiliations),
                   not is_person(world, a.person_id)) for p in papers for a in p.authors))
    as_of = fetched.date()
    db.copy_rows(conn, "wove.s2_papers", ("arxiv_id", "paper_id", "title", "citation_count", "as_of", "fetched_at"),
                 ((p.arxiv_id, p.s2.paper_id, p.s2.title, p.s2.citation_count, as_of, fetched)
                  for p in papers if p.s2 is not None))
    db.copy_rows(conn, "wove.openalex_works",
                 ("arxiv_id", "work_id", "title", "cited_by_count", "primary_topic", "topics", "authors_complete",
                  "as_of", "fetched_at"),
                 ((p.arxiv_id, p.openalex.work_id, p.openalex.title, p.openalex.cited_by_count,
                   Jsonb(p.openalex.primary_topic), Jsonb(p.openalex.topics), True, as_of, fetched)
                  for p in papers if p.openalex is not None))

    def inst(p, a):
        if p.openalex is not None and a.position < len(p.openalex.authorships):
            return list(p.openalex.authorships[a.position].institution_ids)
        return []

    db.copy_rows(conn, "wove.authorships",
                 ("arxiv_id", "position", "arxiv_name", "s2_author_id", "openalex_author_id", "institution_ids"),
                 ((p.arxiv_id, a.position, _display(a), *ids_by_key[(p.arxiv_id, a.position)], inst(p, a))
                  for p in papers for a in p.authors))
    known = researchers_known if researchers_known is not None else set()
    new = sorted({a.person_id for p in papers for a in p.authors
                  if is_person(world, a.person_id) and researcher_id(a.person_id) not in known})
    db.copy_rows(conn, "wove.researchers",
                 ("researcher_id", "display_name", "normalized_name", "mention_count", "orcid", "s2_author_ids",
                  "openalex_author_ids"),
                 ((researcher_id(pid), person_name(world.persons[pid]), normalize_name(person_name(world.persons[pid])),
                   0, world.persons[pid].orcid, world.persons[pid].s2_author_ids, world.persons[pid].openalex_author_ids)
                  for pid in new))
    db.copy_rows(conn, "wove.researcher_mentions", ("arxiv_id", "position", "researcher_id", "outcome", "score"),
                 ((p.arxiv_id, a.position, researcher_id(a.person_id), "linked", 1.0)
                  for p in papers for a in p.authors if is_person(world, a.person_id)))
    return {researcher_id(pid) for pid in new}


def papers_by_day(world) -> dict:
    """The world's papers grouped by OAI datestamp, days in order."""
    by_day: dict = {}
    for p in sorted(world.papers, key=lambda p: p.datestamp):
        by_day.setdefault(p.datestamp, []).append(p)
    return by_day


def load_world(url: str, world) -> None:
    with db.transaction(url) as conn:
        load_static(conn, world)
        load_papers(conn, world, world.papers)


def publish(url: str, **options) -> PublishResult:
    """Publish the serving schema over an autocommit connection of its own, as the serving
    asset does (``options``: serving.publish's)."""
    with db.connect(url, autocommit=True) as conn:
        return publishing.publish(conn, **options)
