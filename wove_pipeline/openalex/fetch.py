"""OpenAlex for a run's days: the works (found through DOI 10.48550/arxiv.<id>, 50 per OR-filter;
a preprint merged into its published version through that DOI), the profiles of their authors
and their institutions, through the enrichment fetch skeleton
(wove_pipeline.enrichment.fetch), within OpenAlex's daily cost budget.
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson
import psycopg

from wove_pipeline.enrichment.fetch import FetchSummary, summarize, upstream_fetch
from wove_pipeline.enrichment.lookback import EnrichmentSettings, select_candidates, window, window_authors_not_held
from wove_pipeline.enrichment.raw import OPENALEX, RAW_OA_AUTHORS, RAW_OA_INSTITUTIONS, RAW_OA_WORKS, Fetch
from wove_pipeline.enrichment.usage import openalex_spent_by_others, record_openalex
from wove_pipeline.openalex.client import OpenAlexClient
from wove_pipeline.partitions import DayRange
from wove_pipeline.upstream.raw_store import RawStore


def fetch_openalex_works(conn: psycopg.Connection, client: OpenAlexClient, store: RawStore, days: DayRange,
                         settings: EnrichmentSettings = EnrichmentSettings()) -> FetchSummary:
    with conn.transaction():
        cand = select_candidates(conn, OPENALEX, days, settings, client.or_values)
        openalex_spent_by_others(conn, client)
    summary = FetchSummary(OPENALEX, days, asked_own=len(cand.own), asked_lookback=len(cand.due) + len(cand.filler))
    with upstream_fetch(conn, client, store, RAW_OA_WORKS, days.label, "enrich:openalex", record_usage=record_openalex,
                        budget_note="OpenAlex: %s; unasked papers stay pending for the next run") as fetch:
        fetch.collect(client.works_by_arxiv_ids(cand.ids, asked_on=days.last.isoformat()))
        # Preprints OpenAlex merged into their published version answer to that DOI only.
        pairs = published_dois(conn, _unmatched(fetch.fetched))
        summary.extra["asked_by_published_doi"] = len({a for a, _ in pairs})
        fetch.collect(client.works_by_published_dois(pairs, asked_on=days.last.isoformat()))
    summarize(summary, fetch)
    derived = fetch.derived
    summary.asked = len(derived.attempts)
    summary.not_asked = len(cand.ids) - summary.asked
    summary.found = len(derived.oa_works)
    summary.still_pending = summary.asked - summary.found
    summary.extra["truncated_refetched"] = sum(1 for kind, *_ in fetch.fetched if kind == "work_singleton")
    found_by_doi = {a for kind, request, _b, (records, _) in fetch.fetched if kind == "works_doi_filter"
                    for a in _doi_hits(orjson.loads(request), records)}
    summary.extra["found_by_published_doi"] = len(found_by_doi & derived.oa_works.keys())
    return summary


def _unmatched(fetched: list[Fetch]) -> list[str]:
    """The arXiv ids asked by their arXiv DOI that no work answered."""
    asked: dict[str, None] = {}
    found: set[str] = set()
    for kind, request, _body, (records, _bad) in fetched:
        if kind == "works_filter":
            asked.update(dict.fromkeys(orjson.loads(request).get("ids", [])))
        found |= {r.arxiv_id for r in records if r.arxiv_id}
    return [i for i in asked if i not in found]


def _doi_hits(request: dict, records: list) -> list[str]:
    by_doi = dict(zip(request.get("dois", []), request.get("ids", [])))
    return [by_doi[r.doi] for r in records if r.doi in by_doi]


def published_dois(conn: psycopg.Connection, arxiv_ids: Sequence[str]) -> list[tuple[str, str]]:
    """(arxiv_id, DOI) for every non-arXiv DOI of these papers that arXiv (`papers.dois`) or
    S2 (`externalIds.DOI`) knows: the published version's, which a merged work carries."""
    if not arxiv_ids:
        return []
    with conn.transaction():
        rows = conn.execute(
            "SELECT p.arxiv_id, d.doi FROM wove.papers p LEFT JOIN wove.s2_papers s USING (arxiv_id),"
            " LATERAL (SELECT lower(x) AS doi FROM unnest(p.dois || s.doi) AS x WHERE x IS NOT NULL) d"
            " WHERE p.arxiv_id = ANY(%s) AND d.doi NOT LIKE '10.48550/%%' ORDER BY p.arxiv_id, d.doi",
            (list(arxiv_ids),)).fetchall()
    return list(dict.fromkeys((a, d) for a, d in rows))


def _fetch_entities(conn: psycopg.Connection, client: OpenAlexClient, store: RawStore, days: DayRange,
                    ids: list[str], raw_source: str, method: str) -> FetchSummary:
    with conn.transaction():
        openalex_spent_by_others(conn, client)
    summary = FetchSummary(OPENALEX, days, asked=len(ids))
    with upstream_fetch(conn, client, store, raw_source, days.label, f"enrich:{raw_source}",
                        record_usage=record_openalex,
                        budget_note="OpenAlex: %s; the rest is fetched by the next run") as fetch:
        fetch.collect(getattr(client, method)(ids, asked_on=days.last.isoformat()))
    summarize(summary, fetch)
    derived = fetch.derived
    summary.found = len(derived.oa_authors) if method == "authors_by_ids" else len(derived.institutions)
    summary.extra["redirects"] = len(derived.oa_redirects)
    summary.still_pending = max(0, summary.asked - summary.found - len(derived.oa_redirects))
    return summary


def fetch_openalex_authors(conn: psycopg.Connection, client: OpenAlexClient, store: RawStore, days: DayRange,
                           settings: EnrichmentSettings = EnrichmentSettings()) -> FetchSummary:
    """OpenAlex profiles of the authors on the window's works that we do not hold yet."""
    ids = window_authors_not_held(
        conn, days, settings,
        "SELECT DISTINCT a->>'author_id' FROM wove.openalex_works w JOIN wove.papers p USING (arxiv_id),"
        " jsonb_array_elements(w.authorships) a WHERE p.oai_datestamp BETWEEN %(start)s AND %(end)s"
        " AND a->>'author_id' IS NOT NULL",
        "SELECT x.id FROM unnest(%(ids)s::text[]) x(id)"
        " WHERE EXISTS (SELECT 1 FROM wove.openalex_authors a WHERE a.author_id = x.id)"
        " OR EXISTS (SELECT 1 FROM wove.openalex_author_redirects r WHERE r.old_author_id = x.id)")
    return _fetch_entities(conn, client, store, days, ids, RAW_OA_AUTHORS, "authors_by_ids")


def fetch_institutions(conn: psycopg.Connection, client: OpenAlexClient, store: RawStore, days: DayRange,
                       settings: EnrichmentSettings = EnrichmentSettings()) -> FetchSummary:
    """Institutions on the window's works (and their authors' last known ones) not held yet."""
    start, end = window(days, settings)
    sql = (
        "WITH works AS (SELECT w.authorships FROM wove.openalex_works w JOIN wove.papers p USING (arxiv_id)"
        "  WHERE p.oai_datestamp BETWEEN %s AND %s),"
        " ids AS ("
        "  SELECT jsonb_array_elements_text(a->'institution_ids') AS id FROM works, jsonb_array_elements(works.authorships) a"
        "  UNION SELECT unnest(oa.last_known_institution_ids) FROM works, jsonb_array_elements(works.authorships) a"
        "   JOIN wove.openalex_authors oa ON oa.author_id = a->>'author_id')"
        " SELECT DISTINCT id FROM ids WHERE id IS NOT NULL"
        " AND NOT EXISTS (SELECT 1 FROM wove.institutions i WHERE i.institution_id = ids.id) ORDER BY 1"
    )
    with conn.transaction():
        ids = [r[0] for r in conn.execute(sql, (start, end))]
    return _fetch_entities(conn, client, store, days, ids, RAW_OA_INSTITUTIONS, "institutions_by_ids")
