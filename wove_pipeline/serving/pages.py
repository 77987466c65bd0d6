"""The site's read API over the serving schema: route resolution and page payloads.

A route segment (paper id, old id or slug; researcher id or id-slug, retired ids followed;
institution id, slug, ROR or name) resolves to its canonical row (``resolve_*``); the page
payloads (``researcher_page``, ``paper_page``, ``institution_page``) are one SQL statement
each. ``wove show`` prints them, ``wove serve`` answers them. Contract: docs/data-contract.md.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import psycopg

from wove_pipeline.arxiv.tex import arxiv_id_from_slug, try_normalize_arxiv_id
from wove_pipeline.database import access as db

PER_PAGE = 24
SAME_NAME_LIMIT = 50
COAUTHOR_LIMIT = 50

# ---------------------------------------------------------------------------------------
# route resolution


def resolve_paper(conn: psycopg.Connection, key: str) -> dict | None:
    """A paper route segment (new or old id, with or without version/prefix, or a slug,
    even with a stale title part) -> {arxiv_id, slug, redirect}. ``redirect`` is true when
    the segment is not the canonical slug."""
    key = (key or "").strip().strip("/")
    if key.startswith("papers/"):
        key = key[len("papers/"):]
    tries = [key]
    for candidate in (try_normalize_arxiv_id(key), arxiv_id_from_slug(key)):
        if candidate and candidate not in tries:
            tries.append(candidate)
    rows = db.fetch_all(conn, """
        SELECT r.route_key, p.arxiv_id, p.slug FROM serving.paper_routes r
        JOIN serving.papers p ON p.arxiv_id = r.arxiv_id WHERE r.route_key = ANY(%s)""", (tries,))
    if not rows:
        return None
    by_key = {r["route_key"]: r for r in rows}
    hit = next(by_key[t] for t in tries if t in by_key)
    return {"arxiv_id": hit["arxiv_id"], "slug": hit["slug"], "redirect": key != hit["slug"]}


_LEADING_INT = re.compile(r"^\s*(\d+)(?:-|$)")


def resolve_researcher(conn: psycopg.Connection, key: str | int) -> dict | None:
    """``<id>`` or ``<id>-<anything>`` -> {researcher_id, slug, redirect}; retired ids follow redirects."""
    m = _LEADING_INT.match(str(key))
    if not m:
        return None
    rows = db.fetch_all(conn, """
        SELECT r.researcher_id, r.slug, rr.redirected FROM serving.researcher_routes rr
        JOIN serving.researchers r ON r.researcher_id = rr.researcher_id WHERE rr.route_id = %s""", (int(m.group(1)),))
    if not rows:
        return None
    row = rows[0]
    return {"researcher_id": row["researcher_id"], "slug": row["slug"],
            "redirect": bool(row["redirected"]) or str(key).strip() != row["slug"]}


def resolve_institution(conn: psycopg.Connection, key: str) -> dict | None:
    """An internal id, a slug, a ROR id (URL or bare), a name or an alias -> {institution_id, slug, kind}."""
    key = (key or "").strip()
    rows = db.fetch_all(conn, """
        SELECT i.institution_id, i.slug, r.kind FROM serving.institution_routes r
        JOIN serving.institutions i ON i.institution_id = r.institution_id
        WHERE r.route_key = serving.route_key(%s)""", (key,))
    if not rows:
        m = re.match(r"^(I\d+)(?:-|$)", key, re.I)  # a slug with a stale name part
        if m:
            rows = db.fetch_all(conn, """
                SELECT i.institution_id, i.slug, 'id' AS kind FROM serving.institutions i
                WHERE lower(i.institution_id) = lower(%s)""", (m.group(1),))
    if not rows:
        return None
    return {"institution_id": rows[0]["institution_id"], "slug": rows[0]["slug"], "kind": rows[0]["kind"]}


# ---------------------------------------------------------------------------------------
# page payloads (one statement each)

RESEARCHER_PAGE_SQL = """
WITH route AS (
    SELECT researcher_id, redirected FROM serving.researcher_routes WHERE route_id = %(id)s
),
r AS (
    SELECT x.*, route.redirected FROM serving.researchers x JOIN route ON route.researcher_id = x.researcher_id
),
listed AS (
    SELECT rp.arxiv_id, rp.published FROM serving.researcher_papers rp, r
    WHERE rp.researcher_id = r.researcher_id AND (%(category)s::text IS NULL OR rp.primary_category = %(category)s)
    ORDER BY rp.published DESC, rp.arxiv_id DESC
    LIMIT %(limit)s OFFSET %(offset)s
)
SELECT to_jsonb(r) AS researcher,
       (SELECT count(*) FROM serving.researcher_papers rp
        WHERE rp.researcher_id = r.researcher_id
          AND (%(category)s::text IS NULL OR rp.primary_category = %(category)s)) AS total,
       (SELECT coalesce(jsonb_agg(p.record ORDER BY l.published DESC, l.arxiv_id DESC), '[]'::jsonb)
        FROM listed l JOIN serving.papers p ON p.arxiv_id = l.arxiv_id) AS items,
       (SELECT coalesce(jsonb_agg(jsonb_build_object('id', s.researcher_id, 'display_name', s.display_name,
                                                     'slug', s.slug, 'papers', s.papers_here, 'h_index', s.h_index)
                                  ORDER BY s.papers_here DESC, s.researcher_id), '[]'::jsonb)
        FROM (SELECT * FROM serving.researchers s
              WHERE s.normalized_name = r.normalized_name AND s.researcher_id <> r.researcher_id
              ORDER BY s.papers_here DESC, s.researcher_id LIMIT %(same_name_limit)s) s) AS same_name,
       (SELECT count(*) FROM serving.researchers s
        WHERE s.normalized_name = r.normalized_name AND s.researcher_id <> r.researcher_id) AS same_name_total,
       (SELECT coalesce(jsonb_agg(jsonb_build_object('id', c.coauthor_id, 'name', o.display_name,
                                                     'slug', o.slug, 'count', c.papers)
                                  ORDER BY c.papers DESC, c.coauthor_id), '[]'::jsonb)
        FROM (SELECT * FROM serving.researcher_coauthors c WHERE c.researcher_id = r.researcher_id
              ORDER BY c.papers DESC, c.coauthor_id LIMIT %(coauthor_limit)s) c
        JOIN serving.researchers o ON o.researcher_id = c.coauthor_id) AS coauthors
FROM r
"""


def researcher_page(conn: psycopg.Connection, researcher_id: int, *, category: str | None = None,
                    page: int = 1, per_page: int = PER_PAGE, requested: str | None = None) -> dict | None:
    """The researcher page's payload (SEED.md), or None when the id is unknown. ``redirect``
    (as on the paper page): the request should redirect to ``url``, because the id is retired
    (merged into another) or, given the ``requested`` route segment, it is not the canonical slug."""
    page = max(1, int(page))
    rows = db.fetch_all(conn, RESEARCHER_PAGE_SQL, {
        "id": int(researcher_id), "category": category, "limit": per_page, "offset": (page - 1) * per_page,
        "same_name_limit": SAME_NAME_LIMIT, "coauthor_limit": COAUTHOR_LIMIT})
    if not rows:
        return None
    row = rows[0]
    r = row["researcher"]
    total = int(row["total"])
    return {
        "id": r["researcher_id"],
        "requested_id": int(researcher_id) if requested is None else requested,
        "redirect": bool(r["redirected"]) or (requested is not None and str(requested).strip() != r["slug"]),
        "display_name": r["display_name"],
        "slug": r["slug"],
        "url": f"/researchers/{r['slug']}",
        "papers_here": r["papers_here"],
        "h_index": r["h_index"],
        "citations": r["citations"],
        "works_total": r["works_total"],
        "metrics_source": r["metrics_source"],
        "metrics_source_id": r["metrics_source_id"],
        "metrics_as_of": r["metrics_as_of"],
        "archive": {"h_index": r["archive_h_index"], "citations": r["archive_citations"],
                    "works": r["archive_works"], "as_of": r["archive_as_of"]},
        "author_position": {"first": r["position_first"], "middle": r["position_middle"], "last": r["position_last"],
                            "papers_considered": r["position_papers_considered"],
                            "papers_total": r["position_papers_total"]},
        "fields": r["fields"],
        "same_name": row["same_name"],
        "same_name_total": int(row["same_name_total"]),
        "identity": {"sources": r["identity_sources"], "s2_author_ids": r["s2_author_ids"],
                     "openalex_author_ids": r["openalex_author_ids"], "orcid": r["orcid"],
                     "external_records": r["external_records"]},
        "coauthors": row["coauthors"],
        "coauthors_total": r["coauthors_total"],
        "institutions": r["institutions"],
        "papers": {"category": category, "items": row["items"], "page": page, "per_page": per_page,
                   "total_pages": math.ceil(total / per_page) if total else 0, "total": total},
        "description": r["description"],
        "json_ld": r["json_ld"],
        "first_published": r["first_published"],
        "last_published": r["last_published"],
    }


PAPER_PAGE_SQL = """
SELECT p.record, p.author_list, p.updated, p.withdrawn, p.dois, p.journal_ref, p.comments, p.license,
       p.cited_by_source, p.cited_by_as_of, p.abstract_tex, p.title_tex, p.current_version, p.is_old_style
FROM serving.papers p WHERE p.arxiv_id = %(id)s
"""


def paper_page(conn: psycopg.Connection, key: str, *, site_url: str = "") -> dict | None:
    """The paper page payload: the paper record as served (SEED.md) plus page extras."""
    route = resolve_paper(conn, key)
    if route is None:
        return None
    rows = db.fetch_all(conn, PAPER_PAGE_SQL, {"id": route["arxiv_id"]})
    row = rows[0]
    record = dict(row["record"])
    url = f"{site_url.rstrip('/')}/papers/{record['slug']}"
    authors = row["author_list"]
    record.update({
        "url": f"/papers/{record['slug']}",
        "redirect": route["redirect"],
        "author_list": authors,
        "authors_short": _short_authors([a["name"] for a in authors]) if authors else record["authors"],
        "updated": row["updated"], "withdrawn": row["withdrawn"], "dois": row["dois"],
        "journal_ref": row["journal_ref"], "comments": row["comments"], "license": row["license"],
        "cited_by_source": row["cited_by_source"], "cited_by_as_of": row["cited_by_as_of"],
        "title_tex": row["title_tex"], "abstract_tex": row["abstract_tex"],
        "current_version": row["current_version"],
        "json_ld": [
            {"@context": "https://schema.org", "@type": "ScholarlyArticle", "headline": record["title"],
             "name": record["title"], "url": url, "identifier": f"arXiv:{record['arxiv_id']}",
             "datePublished": record["published"], "abstract": record["abstract"],
             "author": [{"@type": "Person", "name": a["name"],
                         **({"url": f"{site_url.rstrip('/')}/researchers/{a['researcher_slug']}"}
                            if a.get("researcher_slug") else {})} for a in authors]},
            {"@context": "https://schema.org", "@type": "BreadcrumbList", "itemListElement": [
                {"@type": "ListItem", "position": 1, "name": "Papers", "item": f"{site_url.rstrip('/')}/papers"},
                {"@type": "ListItem", "position": 2, "name": record["title"], "item": url}]},
        ],
    })
    return record


def _short_authors(names: list[str]) -> str:
    """"Kai Zhang, Peng Wang, Sai Bi et al." (SEED.md: abbreviate after three names)."""
    return ", ".join(names[:3]) + (" et al." if len(names) > 3 else "")


INSTITUTION_PAGE_SQL = """
SELECT to_jsonb(i) AS institution,
       (SELECT coalesce(jsonb_agg(jsonb_build_object('id', r.researcher_id, 'name', r.display_name, 'slug', r.slug,
                                                     'papers', x.papers) ORDER BY x.papers DESC, x.researcher_id),
                        '[]'::jsonb)
        FROM (SELECT * FROM serving.institution_researchers x WHERE x.institution_id = i.institution_id
              ORDER BY x.papers DESC, x.researcher_id LIMIT %(limit)s) x
        JOIN serving.researchers r ON r.researcher_id = x.researcher_id) AS researchers_top,
       (SELECT coalesce(jsonb_agg(p.record ORDER BY x.published DESC, x.arxiv_id DESC), '[]'::jsonb)
        FROM (SELECT * FROM serving.institution_papers x WHERE x.institution_id = i.institution_id
              ORDER BY x.published DESC, x.arxiv_id DESC LIMIT %(limit)s) x
        JOIN serving.papers p ON p.arxiv_id = x.arxiv_id) AS latest_papers
FROM serving.institutions i WHERE i.institution_id = %(id)s
"""


def _ror_url(ror: str) -> str:
    """The ROR id as its URL (the pipeline stores the bare id, as OpenAlex's ids.ror ends)."""
    return ror if "://" in ror else f"https://ror.org/{ror}"


def institution_page(conn: psycopg.Connection, key: str, *, site_url: str = "") -> dict | None:
    route = resolve_institution(conn, key)
    if route is None:
        return None
    row = db.fetch_all(conn, INSTITUTION_PAGE_SQL, {"id": route["institution_id"], "limit": PER_PAGE})[0]
    i = row["institution"]
    url = f"{site_url.rstrip('/')}/institutions/{i['slug']}"
    return {
        "id": i["institution_id"], "display_name": i["display_name"], "slug": i["slug"],
        "url": f"/institutions/{i['slug']}", "resolved_by": route["kind"],
        "ror": i["ror"], "country_code": i["country_code"], "type": i["type"], "aliases": i["aliases"],
        "homepage_url": i["homepage_url"], "city": i["city"],
        "papers": i["papers"], "researchers": i["researchers"], "citations": i["citations"],
        "first_published": i["first_published"], "last_published": i["last_published"],
        "openalex": {"works_count": i["openalex_works_count"], "cited_by_count": i["openalex_cited_by_count"],
                     "as_of": i["as_of"]},
        "top_researchers": row["researchers_top"],
        "latest_papers": row["latest_papers"],
        "description": f"{i['display_name']}: {i['papers']} papers and {i['researchers']} researchers in this archive.",
        "json_ld": [
            {"@context": "https://schema.org", "@type": "Organization", "name": i["display_name"], "url": url,
             **({"sameAs": [_ror_url(i["ror"])]} if i["ror"] else {}), **({"alternateName": i["aliases"]} if i["aliases"] else {})},
            {"@context": "https://schema.org", "@type": "BreadcrumbList", "itemListElement": [
                {"@type": "ListItem", "position": 1, "name": "Institutions", "item": f"{site_url.rstrip('/')}/institutions"},
                {"@type": "ListItem", "position": 2, "name": i["display_name"], "item": url}]},
        ],
    }


def served_publication(conn: psycopg.Connection) -> dict:
    """The publication served: its id, when, schema version and as-of day (what /health answers)."""
    return db.fetch_all(conn, "SELECT publication_id, published_at, schema_version, as_of FROM serving.publication")[0]


def latest_papers(conn: psycopg.Connection, limit: int = 50) -> list[dict]:
    return [r["record"] for r in db.fetch_all(conn, "SELECT record FROM serving.latest_papers LIMIT %s", (limit,))]


def to_json(payload: Any) -> str:
    """JSON text of a payload (dates and timestamps as ISO 8601)."""
    return json.dumps(payload, default=lambda o: o.isoformat() if hasattr(o, "isoformat") else str(o),
                      ensure_ascii=False, indent=2)
