"""The rows of the enrichment tables, one builder per table, and their columns.

Pure: a parsed upstream record and its fetch time in, the row tuple out, in the order of
the table's column tuple (what wove_pipeline.enrichment.writes upserts).
"""

from __future__ import annotations

import datetime as dt

from psycopg.types.json import Jsonb

from wove_pipeline.openalex.parser import InstitutionRecord, OpenAlexAuthorRecord, OpenAlexWorkRecord
from wove_pipeline.semantic_scholar.parser import S2AuthorRecord, S2PaperRecord


def s2_paper_row(arxiv_id: str, r: S2PaperRecord, at: dt.datetime) -> tuple:
    return (
        arxiv_id, r.paper_id, r.corpus_id, r.doi, r.title, r.abstract, r.year, r.publication_date, r.venue,
        r.citation_count, r.influential_citation_count, r.reference_count, list(r.fields_of_study),
        Jsonb([{"category": f.category, "source": f.source} for f in r.s2_fields_of_study]),
        Jsonb([{"author_id": a.author_id, "name": a.name} for a in r.authors]),
        Jsonb(r.external_ids), r.url, at.date(), at,
    )


S2_PAPER_COLUMNS = (
    "arxiv_id", "paper_id", "corpus_id", "doi", "title", "abstract", "year", "publication_date", "venue",
    "citation_count", "influential_citation_count", "reference_count", "fields_of_study", "s2_fields_of_study",
    "authors", "external_ids", "url", "as_of", "fetched_at",
)


def s2_author_row(r: S2AuthorRecord, at: dt.datetime) -> tuple:
    return (r.author_id, r.name, r.orcid, list(r.dblp_names), list(r.affiliations), r.homepage, r.url,
            r.paper_count, r.citation_count, r.h_index, at.date(), at)


S2_AUTHOR_COLUMNS = ("author_id", "name", "orcid", "dblp_names", "affiliations", "homepage", "url",
                     "paper_count", "citation_count", "h_index", "as_of", "fetched_at")


def _topic(t) -> dict | None:
    return None if t is None else t._asdict()


def oa_work_row(arxiv_id: str, r: OpenAlexWorkRecord, complete: bool, at: dt.datetime) -> tuple:
    ships = [
        {
            "position": a.position, "author_position": a.author_position, "author_id": a.author_id,
            "display_name": a.display_name, "raw_author_name": a.raw_author_name, "orcid": a.orcid,
            "institution_ids": [i.institution_id for i in a.institutions if i.institution_id],
            "institution_rors": [i.ror for i in a.institutions if i.ror],
            "raw_affiliation_strings": list(a.raw_affiliation_strings), "is_corresponding": a.is_corresponding,
        }
        for a in r.authorships
    ]
    return (
        arxiv_id, r.work_id, r.doi, r.title, r.publication_date, r.publication_year, r.type, r.language,
        r.cited_by_count, Jsonb([list(x) for x in r.counts_by_year]), Jsonb(_topic(r.primary_topic)),
        Jsonb([_topic(t) for t in r.topics]), r.abstract, Jsonb(ships), complete, at.date(), at,
    )


OA_WORK_COLUMNS = (
    "arxiv_id", "work_id", "doi", "title", "publication_date", "publication_year", "type", "language",
    "cited_by_count", "counts_by_year", "primary_topic", "topics", "abstract", "authorships", "authors_complete",
    "as_of", "fetched_at",
)


def oa_author_row(r: OpenAlexAuthorRecord, at: dt.datetime) -> tuple:
    return (
        r.author_id, r.display_name, list(r.alternatives), r.orcid, r.works_count, r.cited_by_count, r.h_index,
        r.i10_index, r.two_year_mean_citedness, list(r.last_known_institution_ids),
        Jsonb([{"institution_id": a.institution_id, "years": list(a.years)} for a in r.affiliations]),
        at.date(), at,
    )


OA_AUTHOR_COLUMNS = (
    "author_id", "display_name", "display_name_alternatives", "orcid", "works_count", "cited_by_count", "h_index",
    "i10_index", "two_year_mean_citedness", "last_known_institution_ids", "affiliations", "as_of", "fetched_at",
)


def institution_row(r: InstitutionRecord, at: dt.datetime) -> tuple:
    return (r.institution_id, r.ror, r.display_name, r.country_code, r.type, list(r.aliases), list(r.lineage),
            r.homepage_url, r.city, r.works_count, r.cited_by_count, at.date(), at)


INSTITUTION_COLUMNS = ("institution_id", "ror", "display_name", "country_code", "type", "aliases", "lineage",
                       "homepage_url", "city", "works_count", "cited_by_count", "as_of", "fetched_at")
SNAPSHOT_COLUMNS = ("source", "entity_kind", "entity_id", "as_of", "citation_count", "influential_citation_count",
                    "works_count", "h_index", "i10_index")
REDIRECT_COLUMNS = ("old_author_id", "new_author_id", "as_of")
