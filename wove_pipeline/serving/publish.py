"""The serving schema: atomic publish, Parquet export, page payloads and route resolution.

Publish (``publish``), incremental by default: triggers on the core tables log the keys of
every write (migration 0009, ``wove.serving_changes``); a publish turns the keys it sees
into key sets per serving table and, in ONE transaction, recomputes only those rows with
the same SELECT a full build uses, deletes the live rows that differ and inserts the new
ones, updates ``serving.publication`` and deletes the log rows it has seen.

Full rebuild (first publish, new definition, ``full=True``, a TRUNCATE, or most rows
changed): in ONE transaction, build every serving table in a fresh schema
``serving_build`` from the core tables (``wove.*``, metrics included), index it, grant it
to ``wove_reader``, move the SQL functions other stages keep in ``serving`` (e.g.
``serving.search_papers`` and ``serving.related_papers`` from 0003) into it, then rename
``serving`` -> ``serving_old_<n>`` and ``serving_build`` -> ``serving``. The old schema is
dropped afterwards in its own transaction (readers still on it are waited for, never broken).

Either way a consumer's statement sees the old publication or the new one, never a mix.

Contract: docs/data-contract.md. Page payloads (``researcher_page``, ``paper_page``,
``institution_page``) are one SQL statement each.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import math
import os
import re
import time
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from wove_pipeline.arxiv.tex import arxiv_id_from_slug, try_normalize_arxiv_id
from wove_pipeline.database import access as db

SCHEMA = "serving"
BUILD_SCHEMA = "serving_build"
OLD_PREFIX = "serving_old_"
SCHEMA_VERSION = "1.0"
READER_ROLE = "wove_reader"
PER_PAGE = 24
SAME_NAME_LIMIT = 50
COAUTHOR_LIMIT = 50
LATEST_LIMIT = 100
LOCK_KEY = "wove-serving-publish"
# Above this share of changed papers or researchers, a full rebuild is cheaper than editing in place.
FULL_REBUILD_ABOVE = 0.2
# Serving rows are stored uncompressed up to a page: pglz-compressing every paper's abstract,
# author list and record was half of building serving.papers (1.0 -> 0.55 s for 13.6k papers;
# the table 48 -> 59 MB), and page payloads then read them without decompressing.
_STORAGE = "WITH (toast_tuple_target = 8160)"

# Tables in build order (the Parquet export writes these, in this order).
TABLES = (
    "papers", "paper_routes", "researchers", "researcher_papers", "researcher_coauthors",
    "researcher_routes", "institutions", "institution_papers", "institution_researchers",
    "institution_routes", "publication",
)
VIEWS = ("latest_papers", "sitemap", "researcher_same_name")

_PAPER_RECORD = """jsonb_build_object(
    'arxiv_id', p.arxiv_id, 'slug', p.slug, 'title', p.title, 'abstract', p.abstract,
    'authors', p.authors_display, 'categories', to_jsonb(p.categories), 'primary_category', p.primary_category,
    'published', p.published, 'abs_url', p.abs_url, 'pdf_url', p.pdf_url,
    'cited_by_count', pc.cited_by_count,
    'analysed', false, 'summary', NULL,
    'topics', CASE WHEN jsonb_array_length(coalesce(o.topics, '[]'::jsonb)) > 0 THEN o.topics END,
    'research_field', o.primary_topic -> 'field' ->> 'display_name',
    'paper_type', NULL, 'novelty', NULL, 'significance_score', NULL)"""

# ---------------------------------------------------------------------------------------
# table definitions
#
# One SELECT per serving table, shared by the full build (CREATE TABLE ... AS <select>)
# and the incremental publish (INSERT ... <select> for the changed keys only). In a
# SELECT, {s} is the schema of the serving tables it reads (serving_build in a full build,
# serving in an incremental one) and each {where...} marker is a key filter: `true` in a
# full build. An incremental publish runs one pass per dict of `passes` (marker -> filter,
# where {k_<name>} is a key set, see _KEY_SETS) and replaces the serving rows any
# condition of `delete` selects by the union of those passes. That is exact as long as
# every row outside `delete` is the same in the live table and in the SELECT: the key
# sets are built so.


@dataclasses.dataclass(frozen=True)
class _Table:
    name: str
    select: str
    pk: tuple[str, ...]
    indexes: tuple[str, ...] = ()
    # rows an incremental publish rewrites: one condition per key set, each with an index
    # to find its rows by (an OR of them was one scan of the whole table)
    delete: tuple[str, ...] = ()
    passes: tuple[dict[str, str], ...] = ()


# The (researcher_id, coauthor_id) edges in k_coauthor_pair.
_PAIRS = "(SELECT split_part(k, ':', 1)::bigint, split_part(k, ':', 2)::bigint FROM {k_coauthor_pair} AS p(k))"

# Route keys of papers in {src} (a table of serving.papers rows): the key set of an
# incremental publish reads them from the changed rows, before and after.
_PAPER_ROUTE_KEYS = """
        SELECT arxiv_id AS route_key, arxiv_id, 0 AS prio FROM {src}
        UNION ALL SELECT slug, arxiv_id, 1 FROM {src}
        UNION ALL SELECT replace(arxiv_id, '/', '-'), arxiv_id, 2 FROM {src} WHERE is_old_style"""

# route keys of institutions: id, ROR, slug, display name, aliases. serving.route_key maps every
# form of a ROR id (https://ror.org/x, ror.org/x, x) to the bare id, so one key serves them all.
_INSTITUTION_ROUTE_KEYS = """
        SELECT {s}.route_key(institution_id) AS route_key, institution_id, 'id' AS kind, 0 AS prio, papers
        FROM {src}
        UNION ALL SELECT {s}.route_key(slug), institution_id, 'slug', 1, papers FROM {src}
        UNION ALL SELECT {s}.route_key(ror), institution_id, 'ror', 2, papers FROM {src} WHERE ror IS NOT NULL
        UNION ALL SELECT {s}.route_key(display_name), institution_id, 'name', 3, papers
                  FROM {src} WHERE display_name IS NOT NULL
        UNION ALL SELECT {s}.route_key(a), institution_id, 'alias', 4, papers
                  FROM {src}, unnest(aliases) AS a"""

_TABLES = (
    # ---------------------------------------------------------------- papers
    _Table(
        "papers",
        f"""
    -- each paper's author list, built once: MATERIALIZED keeps it out of the parallel part
    -- of the plan below (a plain subquery could sit under a non-parallel Hash below the
    -- Gather, every worker then building all of it)
    WITH al AS MATERIALIZED (
        SELECT pa.arxiv_id,
               jsonb_agg(jsonb_build_object(
                   'position', pa.position,
                   'name', CASE WHEN pa.is_collaboration THEN pa.keyname
                                ELSE concat_ws(' ', pa.forenames, pa.keyname, pa.suffix) END,
                   'researcher_id', rm.researcher_id, 'researcher_slug', r.slug)
                         ORDER BY pa.position) AS author_list
        FROM wove.paper_authors pa
        LEFT JOIN wove.researcher_mentions rm ON rm.arxiv_id = pa.arxiv_id AND rm.position = pa.position
        -- a researcher's slug once per researcher, not once per author position naming them
        -- (OFFSET 0 keeps it computed in the subquery)
        LEFT JOIN (SELECT rs.researcher_id, rs.researcher_id || '-' || wove.name_slug(rs.display_name) AS slug
                   FROM wove.researchers rs WHERE {{where_slugs}} OFFSET 0) r ON r.researcher_id = rm.researcher_id
        WHERE {{where_authors}}
        GROUP BY pa.arxiv_id
    )
    SELECT p.arxiv_id, p.slug, p.title, p.title_tex, p.abstract, p.abstract_tex,
           p.authors_display AS authors,
           coalesce(al.author_list, '[]'::jsonb) AS author_list,
           p.categories, p.primary_category, p.published, p.updated, p.current_version, p.is_old_style,
           p.withdrawn, p.dois, p.journal_ref, p.comments, p.license, p.abs_url, p.pdf_url,
           pc.cited_by_count, pc.source AS cited_by_source, pc.as_of AS cited_by_as_of,
           false AS analysed, NULL::text AS summary,
           CASE WHEN jsonb_array_length(coalesce(o.topics, '[]'::jsonb)) > 0 THEN o.topics END AS topics,
           o.primary_topic -> 'field' ->> 'display_name' AS research_field,
           NULL::text AS paper_type, NULL::text AS novelty, NULL::double precision AS significance_score,
           {_PAPER_RECORD} AS record
    FROM wove.papers p
    LEFT JOIN wove.paper_citations pc ON pc.arxiv_id = p.arxiv_id
    LEFT JOIN wove.openalex_works o ON o.arxiv_id = p.arxiv_id
    LEFT JOIN al ON al.arxiv_id = p.arxiv_id
    WHERE {{where}}
    """,
        pk=("arxiv_id",),
        indexes=(
            "CREATE UNIQUE INDEX papers_slug_idx ON {s}.papers (slug)",
            "CREATE INDEX papers_published_idx ON {s}.papers (published DESC, arxiv_id DESC)",
            "CREATE INDEX papers_old_style_route_idx ON {s}.papers (replace(arxiv_id, '/', '-')) WHERE is_old_style",
        ),
        delete=("arxiv_id IN {k_paper}",),
        # = ANY(ARRAY(<key set>)): index look-ups into paper_authors and researcher_mentions
        # for a day's keys (an IN (SELECT ...) was planned as a scan of all of either)
        passes=({"where": "p.arxiv_id IN {k_paper}", "where_authors": "pa.arxiv_id = ANY(ARRAY{k_paper})",
                 "where_slugs": "rs.researcher_id IN (SELECT m.researcher_id FROM wove.researcher_mentions m"
                                " WHERE m.arxiv_id = ANY(ARRAY{k_paper}))"},),
    ),
    _Table(
        "paper_routes",
        f"""
    SELECT DISTINCT ON (route_key) route_key, arxiv_id FROM ({_PAPER_ROUTE_KEYS.replace("{src}", "{s}.papers")}
    ) k
    WHERE {{where}}
    ORDER BY route_key, prio, arxiv_id
    """,
        pk=("route_key",),
        delete=("route_key IN {k_paper_route}",),
        # = ANY(ARRAY(...)) goes into each branch of the keys' UNION ALL: index look-ups
        # into papers (arxiv_id, slug, old-style route) instead of scans of all of it
        passes=({"where": "route_key = ANY(ARRAY{k_paper_route})"},),
    ),
    # ---------------------------------------------------------------- researchers
    _Table(
        "researchers",
        """
    SELECT q.*,
           -- the page's meta description and JSON-LD (Person + BreadcrumbList)
           display_name || ': ' || papers_here || ' papers in this archive · h-index '
                      || coalesce(h_index::text, '0') || '.' AS description,
           jsonb_build_array(
            jsonb_strip_nulls(jsonb_build_object(
                '@context', 'https://schema.org', '@type', 'Person', 'name', display_name,
                'url', %(site)s || '/researchers/' || slug,
                'identifier', researcher_id::text,
                'sameAs', to_jsonb(
                    ARRAY(SELECT 'https://www.semanticscholar.org/author/' || x FROM unnest(s2_author_ids) x)
                    || ARRAY(SELECT 'https://openalex.org/' || x FROM unnest(openalex_author_ids) x)
                    || CASE WHEN orcid IS NULL THEN '{}'::text[]
                            WHEN orcid LIKE 'http%%' THEN ARRAY[orcid]
                            ELSE ARRAY['https://orcid.org/' || orcid] END),
                'affiliation', (SELECT jsonb_agg(jsonb_build_object('@type', 'Organization', 'name', e ->> 'name'))
                                FROM jsonb_array_elements(institutions) e WHERE e ->> 'name' IS NOT NULL))),
            jsonb_build_object(
                '@context', 'https://schema.org', '@type', 'BreadcrumbList',
                'itemListElement', jsonb_build_array(
                    -- the same for every row: a scalar subquery (an InitPlan) builds it once
                    (SELECT jsonb_build_object('@type', 'ListItem', 'position', 1, 'name', 'Researchers',
                                               'item', %(site)s || '/researchers')),
                    jsonb_build_object('@type', 'ListItem', 'position', 2, 'name', display_name,
                                       'item', %(site)s || '/researchers/' || slug)))) AS json_ld
    FROM (
        SELECT r.researcher_id, r.display_name,
               r.researcher_id || '-' || wove.name_slug(r.display_name) AS slug,
               r.normalized_name, r.orcid,
               m.papers_here,
               CASE WHEN m.ext_source IS NOT NULL THEN m.ext_h_index ELSE m.archive_h_index END AS h_index,
               CASE WHEN m.ext_source IS NOT NULL THEN m.ext_citations ELSE m.archive_citations END AS citations,
               CASE WHEN m.ext_source IS NOT NULL THEN m.ext_works ELSE m.archive_works END AS works_total,
               coalesce(m.ext_source, 'archive') AS metrics_source,
               m.ext_author_id AS metrics_source_id,
               CASE WHEN m.ext_source IS NOT NULL THEN m.ext_as_of ELSE m.archive_as_of END AS metrics_as_of,
               m.archive_h_index, m.archive_citations, m.archive_works, m.archive_as_of,
               m.position_first, m.position_middle, m.position_last,
               m.position_papers_considered, m.position_papers_total,
               m.categories AS fields,
               coalesce(inst.institutions, '[]'::jsonb) AS institutions,
               r.s2_author_ids, r.openalex_author_ids,
               -- the sources present, in this order (an expression: a VALUES subquery per row cost more)
               array_remove(ARRAY[
                   CASE WHEN cardinality(r.s2_author_ids) > 0 OR m.ext_records @> '[{"source": "s2"}]'
                        THEN 'Semantic Scholar' END,
                   CASE WHEN cardinality(r.openalex_author_ids) > 0 OR m.ext_records @> '[{"source": "openalex"}]'
                        THEN 'OpenAlex' END,
                   CASE WHEN r.orcid IS NOT NULL THEN 'ORCID' END], NULL) AS identity_sources,
               m.ext_records AS external_records,
               coalesce(co.coauthors_total, 0) AS coauthors_total,
               m.first_published, m.last_published, m.computed_at AS metrics_computed_at
        FROM wove.researchers r
        JOIN wove.researcher_metrics m ON m.researcher_id = r.researcher_id
        -- each researcher's institutions (metrics' list with names, ROR and slugs), in one
        -- pass over all of them: a correlated subquery per row had the planner scan every
        -- institution once per researcher at 300,000 papers (jsonb_to_recordset estimates
        -- 100 rows)
        LEFT JOIN (
            SELECT mi.researcher_id,
                   jsonb_agg(jsonb_build_object(
                                 'institution_id', x.institution_id, 'name', i.display_name, 'ror', i.ror,
                                 'slug', x.institution_id || '-' || coalesce(i.name_slug, ''),
                                 'first_year', x.first_year, 'last_year', x.last_year, 'papers', x.papers,
                                 'years', x.years)
                             ORDER BY x.first_year, x.last_year, x.institution_id) AS institutions
            FROM wove.researcher_metrics mi
            CROSS JOIN LATERAL jsonb_to_recordset(mi.institutions)
                 AS x(institution_id text, first_year int, last_year int, papers int, years int[])
            -- the slug's name part once per institution, not once per researcher listing it
            -- (OFFSET 0 keeps the subquery's columns computed in it)
            LEFT JOIN (SELECT institution_id, display_name, ror, wove.name_slug(display_name) AS name_slug
                       FROM wove.institutions OFFSET 0) i ON i.institution_id = x.institution_id
            WHERE {where_institutions}
            GROUP BY mi.researcher_id
        ) inst ON inst.researcher_id = r.researcher_id
        -- co-author counts, one GROUP BY (was a count per row)
        LEFT JOIN (
            SELECT c.researcher_id, count(*)::int AS coauthors_total
            FROM wove.researcher_coauthors c
            WHERE {where_coauthors}
            GROUP BY c.researcher_id
        ) co ON co.researcher_id = r.researcher_id
        WHERE {where}
        -- OFFSET 0 keeps q a subquery: the outer SELECT reads its columns (slug, h_index,
        -- institutions, ...) as computed once, not re-evaluated at each reference
        OFFSET 0
    ) q
    """,
        pk=("researcher_id",),
        indexes=("CREATE INDEX researchers_same_name_idx ON {s}.researchers (normalized_name, papers_here DESC, researcher_id)",),
        delete=("researcher_id IN {k_researcher}",),
        passes=({"where": "r.researcher_id IN {k_researcher}", "where_institutions": "mi.researcher_id IN {k_researcher}",
                 "where_coauthors": "c.researcher_id IN {k_researcher}"},),
    ),
    _Table(
        "researcher_papers",
        """
    SELECT DISTINCT ON (rm.researcher_id, rm.arxiv_id)
           rm.researcher_id, rm.arxiv_id, rm.position, p.primary_category, p.published
    FROM wove.researcher_mentions rm
    JOIN {s}.researchers r ON r.researcher_id = rm.researcher_id
    JOIN wove.papers p ON p.arxiv_id = rm.arxiv_id
    WHERE {where}
    ORDER BY rm.researcher_id, rm.arxiv_id, rm.position
    """,
        pk=("researcher_id", "arxiv_id"),
        indexes=(
            "CREATE INDEX researcher_papers_newest_idx ON {s}.researcher_papers (researcher_id, published DESC, arxiv_id DESC)",
            """CREATE INDEX researcher_papers_category_idx ON {s}.researcher_papers
       (researcher_id, primary_category, published DESC, arxiv_id DESC)""",
            "CREATE INDEX researcher_papers_paper_idx ON {s}.researcher_papers (arxiv_id)",
        ),
        delete=("researcher_id IN {k_researcher_exist}", "arxiv_id IN {k_paper_raw}"),
        passes=({"where": "rm.researcher_id IN {k_researcher_exist}"}, {"where": "rm.arxiv_id IN {k_paper_raw}"}),
    ),
    _Table(
        "researcher_coauthors",
        """
    SELECT c.researcher_id, c.coauthor_id, c.papers
    FROM wove.researcher_coauthors c
    JOIN {s}.researchers a ON a.researcher_id = c.researcher_id
    JOIN {s}.researchers b ON b.researcher_id = c.coauthor_id
    WHERE {where}
    """,
        pk=("researcher_id", "coauthor_id"),
        indexes=("CREATE INDEX researcher_coauthors_top_idx ON {s}.researcher_coauthors (researcher_id, papers DESC, coauthor_id)",
                 "CREATE INDEX researcher_coauthors_coauthor_idx ON {s}.researcher_coauthors (coauthor_id)"),
        delete=("(researcher_id, coauthor_id) IN " + _PAIRS, "researcher_id IN {k_researcher_exist}",
                "coauthor_id IN {k_researcher_exist}"),
        passes=({"where": "(c.researcher_id, c.coauthor_id) IN " + _PAIRS},
                {"where": "c.researcher_id IN {k_researcher_exist}"},
                {"where": "c.coauthor_id IN {k_researcher_exist}"}),
    ),
    # every live id resolves to itself; a retired id follows its redirect chain to the
    # first live id on it
    _Table(
        "researcher_routes",
        """
    WITH RECURSIVE chain(route_id, target, depth) AS (
        SELECT old_id, new_id, 1 FROM wove.researcher_redirects WHERE {where_chain}
        UNION ALL
        SELECT c.route_id, rr.new_id, c.depth + 1
        FROM chain c JOIN wove.researcher_redirects rr ON rr.old_id = c.target
        WHERE c.depth < 32
    )
    SELECT researcher_id AS route_id, researcher_id, false AS redirected FROM {s}.researchers WHERE {where_live}
    UNION ALL
    (SELECT DISTINCT ON (c.route_id) c.route_id, c.target, true
     FROM chain c JOIN {s}.researchers r ON r.researcher_id = c.target
     WHERE NOT EXISTS (SELECT 1 FROM {s}.researchers x WHERE x.researcher_id = c.route_id)
     ORDER BY c.route_id, c.depth)
    """,
        pk=("route_id",),
        delete=("route_id IN {k_route}",),
        passes=({"where_chain": "old_id IN {k_route}", "where_live": "researcher_id IN {k_route}"},),
    ),
    # ---------------------------------------------------------------- institutions
    _Table(
        "institutions",
        """
    SELECT i.institution_id, i.display_name,
           i.institution_id || '-' || coalesce(wove.name_slug(i.display_name), '') AS slug,
           i.ror, i.country_code, i.type, i.aliases, i.homepage_url, i.city,
           coalesce(m.papers, 0) AS papers, coalesce(m.researchers, 0) AS researchers,
           coalesce(m.citations, 0) AS citations, m.first_published, m.last_published,
           i.works_count AS openalex_works_count, i.cited_by_count AS openalex_cited_by_count, i.as_of
    FROM wove.institutions i
    LEFT JOIN wove.institution_metrics m ON m.institution_id = i.institution_id
    WHERE {where}
    """,
        pk=("institution_id",),
        delete=("institution_id IN {k_institution}",),
        passes=({"where": "i.institution_id IN {k_institution}"},),
    ),
    _Table(
        "institution_papers",
        """
    SELECT DISTINCT i.institution_id, s.arxiv_id, p.published
    FROM wove.metrics_paper_state s
    -- each paper's institutions unnested and joined once (a containment probe of the GIN
    -- index per institution visited a paper's row once per institution on it)
    CROSS JOIN LATERAL unnest(s.institution_ids) AS x(institution_id)
    JOIN {s}.institutions i ON i.institution_id = x.institution_id
    JOIN wove.papers p ON p.arxiv_id = s.arxiv_id
    WHERE {where}
    """,
        pk=("institution_id", "arxiv_id"),
        indexes=("CREATE INDEX institution_papers_newest_idx ON {s}.institution_papers (institution_id, published DESC, arxiv_id DESC)",
                 "CREATE INDEX institution_papers_paper_idx ON {s}.institution_papers (arxiv_id)"),
        delete=("institution_id IN {k_institution_exist}", "arxiv_id IN {k_institution_paper}"),
        # the overlap (&&) lets the GIN index find the few papers of the institutions in the key set
        passes=({"where": "i.institution_id IN {k_institution_exist} AND s.institution_ids && ARRAY{k_institution_exist}"},
                {"where": "s.arxiv_id IN {k_institution_paper}"}),
    ),
    _Table(
        "institution_researchers",
        """
    SELECT x.institution_id, rm.researcher_id, count(DISTINCT a.arxiv_id)::int AS papers
    FROM wove.authorships a
    CROSS JOIN LATERAL unnest(a.institution_ids) AS x(institution_id)
    JOIN wove.researcher_mentions rm ON rm.arxiv_id = a.arxiv_id AND rm.position = a.position
    JOIN {s}.institutions i ON i.institution_id = x.institution_id
    JOIN {s}.researchers r ON r.researcher_id = rm.researcher_id
    WHERE {where}
    GROUP BY 1, 2
    """,
        pk=("institution_id", "researcher_id"),
        indexes=("CREATE INDEX institution_researchers_top_idx ON {s}.institution_researchers (institution_id, papers DESC, researcher_id)",
                 "CREATE INDEX institution_researchers_researcher_idx ON {s}.institution_researchers (researcher_id)"),
        delete=("institution_id IN {k_institution_exist}", "researcher_id IN {k_institution_researcher}"),
        passes=({"where": "x.institution_id IN {k_institution_exist}"},
                {"where": "rm.researcher_id IN {k_institution_researcher}"}),
    ),
    # A key shared by several institutions goes to the strongest kind, then the most papers.
    _Table(
        "institution_routes",
        f"""
    SELECT DISTINCT ON (route_key) route_key, institution_id, kind FROM ({_INSTITUTION_ROUTE_KEYS.replace("{src}", "{s}.institutions")}
    ) k
    WHERE route_key <> '' AND {{where}}
    ORDER BY route_key, prio, papers DESC, institution_id
    """,
        pk=("route_key",),
        delete=("route_key IN {k_institution_route}",),
        passes=({"where": "route_key IN {k_institution_route}"},),
    ),
)

# Functions a full build creates before the tables that use them (institution_routes).
_FUNCTIONS = [
    """
    CREATE FUNCTION {s}.route_key(text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
        RETURN lower(regexp_replace(regexp_replace(
            btrim(public.unaccent('public.unaccent'::regdictionary, $1)),
            '^(https?://)?(www\\.)?ror\\.org/([^/[:space:]]+)/?$', '\\3', 'i'),  -- a ROR URL -> its bare id
            '\\s+', ' ', 'g'))
    """,
]

_VIEWS = [
    f"""
    CREATE VIEW {{s}}.latest_papers AS
    SELECT arxiv_id, slug, title, authors, abstract, primary_category, categories, published, updated,
           abs_url, pdf_url, record
    FROM {{s}}.papers WHERE NOT withdrawn
    ORDER BY published DESC, arxiv_id DESC
    LIMIT {LATEST_LIMIT}
    """,
    """
    CREATE VIEW {s}.sitemap AS
    SELECT 'paper' AS kind, '/papers/' || slug AS loc, updated AS lastmod FROM {s}.papers
    UNION ALL SELECT 'researcher', '/researchers/' || slug, last_published FROM {s}.researchers
    UNION ALL SELECT 'institution', '/institutions/' || slug, last_published FROM {s}.institutions WHERE papers > 0
    """,
    """
    CREATE VIEW {s}.researcher_same_name AS
    SELECT a.researcher_id, b.researcher_id AS same_name_id, b.display_name, b.slug, b.papers_here, b.h_index
    FROM {s}.researchers a
    JOIN {s}.researchers b ON b.normalized_name = a.normalized_name AND b.researcher_id <> a.researcher_id
    """,
]

# Key sets of an incremental publish, in the order they are made (each just before the
# first table that uses it, so a set may read the rows the tables before it changed:
# _gone_<table> and _added_<table>). wove.serving_changes holds the keys of every write to
# the core tables since the last publish (migration 0009); the publish reads it once into
# _changes (_copy_changes). For each set, why it covers every row that can differ:
_CHANGED = "SELECT key FROM _changes WHERE kind = ANY('{{{}}}'::text[])"
_KEY_SETS: dict[str, tuple[str, str]] = {
    # papers: its own row, authors, mentions, citations (S2, OpenAlex), topics; and every
    # paper with a mention of a researcher whose row (name, existence) changed
    "k_paper": ("text", _CHANGED.format("paper") + """
        UNION SELECT rm.arxiv_id FROM wove.researcher_mentions rm
        WHERE rm.researcher_id IN (SELECT key::bigint FROM _changes WHERE kind = 'researcher')"""),
    # researchers: their row, metrics, co-author count; and names/ROR of their institutions
    "k_researcher": ("bigint", "SELECT key::bigint FROM (" + _CHANGED.format("researcher,researcher_metrics,coauthor")
                     + ") c" + """
        UNION SELECT m.researcher_id FROM wove.researcher_metrics m
        WHERE EXISTS (SELECT 1 FROM _changes c WHERE c.kind = 'institution')
          AND EXISTS (SELECT 1 FROM jsonb_array_elements(m.institutions) e
                      WHERE e ->> 'institution_id' IN (""" + _CHANGED.format("institution") + "))"),
    # researcher_papers: mentions and papers by paper; a researcher row that appeared or went
    "k_paper_raw": ("text", _CHANGED.format("paper")),
    "k_researcher_exist": ("bigint", """
        (SELECT researcher_id FROM _gone_researchers EXCEPT SELECT researcher_id FROM _added_researchers)
        UNION (SELECT researcher_id FROM _added_researchers EXCEPT SELECT researcher_id FROM _gone_researchers)"""),
    "k_paper_route": ("text", "SELECT route_key FROM ("
                      + _PAPER_ROUTE_KEYS.replace("{src}", "_gone_papers") + " UNION ALL "
                      + _PAPER_ROUTE_KEYS.replace("{src}", "_added_papers") + ") k"),
    # co-author edges: each changed edge ('<researcher_id>:<coauthor_id>', migration 0010;
    # the edges of researchers that appeared or went come from k_researcher_exist)
    "k_coauthor_pair": ("text", _CHANGED.format("coauthor_pair")),
    # routes: an id resolves differently only if a node of its chain changed (its redirect
    # row, or whether it is a live researcher). Where the old and the new chain part, the
    # node's redirect changed, and that node is still on the new chain: so walking the
    # current redirects back from the changed nodes finds every such id.
    "k_route": ("bigint", """
        WITH RECURSIVE back(id) AS (
            SELECT key::bigint FROM _changes WHERE kind = 'redirect'
            UNION SELECT key FROM _k_researcher_exist
            UNION SELECT rr.old_id FROM back JOIN wove.researcher_redirects rr ON rr.new_id = back.id)
        SELECT id FROM back"""),
    "k_institution": ("text", _CHANGED.format("institution,institution_metrics")),
    "k_institution_exist": ("text", """
        (SELECT institution_id FROM _gone_institutions EXCEPT SELECT institution_id FROM _added_institutions)
        UNION (SELECT institution_id FROM _added_institutions EXCEPT SELECT institution_id FROM _gone_institutions)"""),
    # institution_papers: the paper's metrics state (its institutions), its row (published)
    "k_institution_paper": ("text", _CHANGED.format("paper,paper_state")),
    # institution_researchers: researchers of changed mentions (before and after), those
    # mentioned on papers whose authorships changed, those that appeared or went
    "k_institution_researcher": ("bigint", "SELECT key::bigint FROM (" + _CHANGED.format("mention_researcher") + ") c"
                                 """
        UNION SELECT rm.researcher_id FROM wove.researcher_mentions rm
        WHERE rm.arxiv_id IN (""" + _CHANGED.format("authorship") + """)
        UNION SELECT key FROM _k_researcher_exist"""),
    "k_institution_route": ("text", "SELECT route_key FROM ("
                            + _INSTITUTION_ROUTE_KEYS.replace("{src}", "_gone_institutions").replace("{s}", SCHEMA)
                            + " UNION ALL "
                            + _INSTITUTION_ROUTE_KEYS.replace("{src}", "_added_institutions").replace("{s}", SCHEMA)
                            + ") k"),
}

# The two wide tables get statistics on the columns pages and routes filter and sort on
# only: sampling their text and JSON columns is most of a publish's ANALYZE time.
_ANALYZE_ONLY = {
    "papers": ("arxiv_id", "slug", "published", "primary_category", "withdrawn", "updated"),
    "researchers": ("researcher_id", "normalized_name", "papers_here", "slug", "last_published"),
}

_COMMENTS = {
    "papers": "One row per arXiv paper; `record` is the paper record as served (SEED.md).",
    "paper_routes": "Route keys (arXiv id, slug, old-style id with '-') -> arxiv_id.",
    "researchers": "One row per researcher with at least one paper here: headline metrics, positions, fields, identity, JSON-LD.",
    "researcher_papers": "Each researcher's papers (one row per paper) for the paginated, category-filtered list.",
    "researcher_coauthors": "Co-author edges (both directions) with the number of shared papers.",
    "researcher_routes": "Every live researcher id and every retired id (via redirects) -> the live researcher_id.",
    "institutions": "Institutions (OpenAlex id, ROR) with papers, researchers and citations in this archive.",
    "institution_papers": "Papers with an authorship at each institution.",
    "institution_researchers": "Researchers with an authorship at each institution, with paper counts.",
    "institution_routes": "Route keys (id, slug, ROR, name, alias; normalized with serving.route_key) -> institution_id.",
    "publication": "The publication this schema holds: when, from what, schema version, row counts.",
}


# ---------------------------------------------------------------------------------------
# publish


def _ident(schema: str, name: str) -> sql.Composable:
    return sql.Identifier(schema, name)


def _move_foreign_objects(conn: psycopg.Connection) -> list[str]:
    """Move functions other stages define in `serving` (0003's search functions) into the
    build schema, so they survive the swap with their grants and comments."""
    mine = {"route_key"}
    moved = []
    rows = db.fetch_all(conn, """
        SELECT p.oid::regprocedure::text AS signature, p.proname, p.prokind
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = %s""", (SCHEMA,))
    for r in rows:
        if r["proname"] in mine:
            continue
        kind = "PROCEDURE" if r["prokind"] == "p" else "FUNCTION"
        # regprocedure text is schema-qualified with the search path; qualify explicitly
        signature = r["signature"]
        if not signature.startswith(f"{SCHEMA}."):
            signature = f"{SCHEMA}.{signature}"
        conn.execute(sql.SQL(f"ALTER {kind} {{}} SET SCHEMA {{}}").format(
            sql.SQL(signature), sql.Identifier(BUILD_SCHEMA)))
        moved.append(r["proname"])
    return moved


_WHERE = re.compile(r"\{where[a-z_]*\}")


def _render(statement: str, schema: str, filters: dict[str, str] | None = None) -> str:
    """A definition's SQL for `schema`; key filters from `filters` ({where...} marker ->
    predicate), every other marker `true` (all rows)."""
    filters = filters or {}
    text = _WHERE.sub(lambda m: "(" + filters.get(m.group(0)[1:-1], "true") + ")", statement)
    for name in _KEY_SETS:
        text = text.replace("{" + name + "}", f"(SELECT key FROM _{name})")
    return text.replace("{s}", schema)


def _definition_hash() -> str:
    """Fingerprint of everything that shapes the serving rows: a change (new code) makes the
    next publish a full rebuild."""
    parts = [SCHEMA_VERSION, _STORAGE, repr(_TABLES), repr(_FUNCTIONS), repr(_VIEWS), repr(_KEY_SETS), repr(_COMMENTS)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _params(statement: str, site_url: str) -> dict | None:
    return {"site": site_url.rstrip("/")} if "%(site)s" in statement else None


def build_tables(conn: psycopg.Connection, schema: str, site_url: str = "") -> None:
    """Every serving table, function and view, built whole in a fresh `schema` (dropped
    first if it exists). The full publish builds serving_build so; tests build a second
    copy to compare an incremental publish with."""
    conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
    conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    for statement in _FUNCTIONS:
        conn.execute(_render(statement, schema))
    for t in _TABLES:
        conn.execute(f"CREATE TABLE {schema}.{t.name} {_STORAGE} AS " + _render(t.select, schema),
                     _params(t.select, site_url))
        conn.execute(f"ALTER TABLE {schema}.{t.name} ADD PRIMARY KEY ({', '.join(t.pk)})")
        for statement in t.indexes:
            conn.execute(_render(statement, schema))
    for statement in _VIEWS:
        conn.execute(_render(statement, schema))


def _build_full(conn: psycopg.Connection, site_url: str, published_at: dt.datetime, publication_id: int,
                as_of: Any, metrics_at: Any) -> tuple[dict, list[str]]:
    """Every table in a fresh serving_build, swapped in for serving (the caller's transaction)."""
    s = BUILD_SCHEMA
    build_tables(conn, s, site_url)
    counts = {t.name: db.fetch_value(conn, sql.SQL("SELECT count(*) FROM {}").format(_ident(s, t.name)))
              for t in _TABLES}
    conn.execute(sql.SQL(
        "CREATE TABLE {} (publication_id bigint PRIMARY KEY, published_at timestamptz NOT NULL,"
        " schema_version text NOT NULL, as_of date, metrics_computed_at timestamptz,"
        " row_counts jsonb NOT NULL)").format(_ident(s, "publication")))
    conn.execute(sql.SQL("INSERT INTO {} VALUES (%s, %s, %s, %s, %s, %s)").format(_ident(s, "publication")),
                 (publication_id, published_at, SCHEMA_VERSION, as_of, metrics_at, json.dumps(counts)))
    for t, text in _COMMENTS.items():
        conn.execute(sql.SQL("COMMENT ON TABLE {} IS {}").format(_ident(s, t), sql.Literal(text)))
    for t in TABLES:
        _analyze(conn, s, t)
    conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sql.Identifier(s), sql.Identifier(READER_ROLE)))
    conn.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}").format(
        sql.Identifier(s), sql.Identifier(READER_ROLE)))
    moved = _move_foreign_objects(conn)
    old = f"{OLD_PREFIX}{publication_id}"
    if db.fetch_value(conn, "SELECT 1 FROM pg_namespace WHERE nspname = %s", (SCHEMA,)):
        conn.execute(sql.SQL("ALTER SCHEMA {} RENAME TO {}").format(sql.Identifier(SCHEMA), sql.Identifier(old)))
    conn.execute(sql.SQL("ALTER SCHEMA {} RENAME TO {}").format(sql.Identifier(s), sql.Identifier(SCHEMA)))
    counts["publication"] = 1
    return counts, moved


def _analyze(conn: psycopg.Connection, schema: str, table: str) -> None:
    columns = sql.SQL(", ").join(map(sql.Identifier, _ANALYZE_ONLY.get(table, ())))
    conn.execute(sql.SQL("ANALYZE {} ({})" if table in _ANALYZE_ONLY else "ANALYZE {}").format(
        _ident(schema, table), columns))


def _make_key_set(conn: psycopg.Connection, name: str) -> int:
    kind, query = _KEY_SETS[name]
    conn.execute(f"CREATE TEMP TABLE _{name} (key {kind} PRIMARY KEY) ON COMMIT DROP")
    n = conn.execute(f"INSERT INTO _{name} SELECT DISTINCT k FROM ({query}) x(k) WHERE k IS NOT NULL").rowcount
    conn.execute(f"ANALYZE _{name}")  # the planner then picks index look-ups for a few keys
    return n


def _key_sets_in(*texts: str) -> list[str]:
    return [name for name in _KEY_SETS if any("{" + name + "}" in text for text in texts)]


def _apply(conn: psycopg.Connection, t: _Table, site_url: str, sizes: dict[str, int]) -> tuple[int, int]:
    """Replace the rows of serving.<t> that `t.delete` selects by the passes' rows, leaving
    rows that come out identical alone. The rows deleted and inserted stay in
    _gone_<t> / _added_<t> for the key sets of the tables after it. ``sizes``: rows of
    each key set. Returns (deleted, inserted)."""
    live, stage, gone, added = f"{SCHEMA}.{t.name}", f"_stage_{t.name}", f"_gone_{t.name}", f"_added_{t.name}"
    for temp in (stage, gone, added):
        conn.execute(f"CREATE TEMP TABLE {temp} (LIKE {live}) {_STORAGE} ON COMMIT DROP")
    if not any(sizes[name] for name in _key_sets_in(*t.delete)):
        return 0, 0  # no key: nothing to rewrite
    conn.execute(f"ALTER TABLE {stage} ADD PRIMARY KEY ({', '.join(t.pk)})")
    for filters in t.passes:
        if not any(sizes[name] for name in _key_sets_in(*filters.values())):
            continue  # an empty key set selects no row (and may cost a scan to find that out)
        conn.execute(f"INSERT INTO {stage} " + _render(t.select, SCHEMA, filters) + " ON CONFLICT DO NOTHING",
                     _params(t.select, site_url))
    conn.execute(f"ANALYZE {stage}")
    same_key = " AND ".join(f"n.{c} = o.{c}" for c in t.pk)
    deleted = 0
    for condition in t.delete:
        if not any(sizes[name] for name in _key_sets_in(condition)):
            continue
        deleted += conn.execute(
            f"WITH d AS (DELETE FROM {live} o WHERE ({_render(condition, SCHEMA)})"
            f" AND NOT EXISTS (SELECT 1 FROM {stage} n WHERE {same_key} AND ROW(n.*) IS NOT DISTINCT FROM ROW(o.*))"
            f" RETURNING o.*) INSERT INTO {gone} SELECT * FROM d").rowcount
    inserted = conn.execute(
        f"WITH i AS (INSERT INTO {live} SELECT n.* FROM {stage} n"
        f" WHERE NOT EXISTS (SELECT 1 FROM {live} o WHERE {same_key}) RETURNING *)"
        f" INSERT INTO {added} SELECT * FROM i").rowcount
    return deleted, inserted


def _full_rebuild_reason(conn: psycopg.Connection, site_url: str, migration: int) -> str | None:
    """Why this publish cannot be incremental, or None when it can."""
    if not db.fetch_value(conn, "SELECT to_regclass('serving.publication') IS NOT NULL"):
        return "no serving schema yet"
    served = db.fetch_all(conn, "SELECT publication_id, schema_version FROM serving.publication")
    last = db.fetch_all(conn, "SELECT * FROM wove.serving_publishes ORDER BY published_at DESC LIMIT 1")
    if len(served) != 1 or not last or last[0]["publication_id"] != served[0]["publication_id"]:
        return "the served publication has no record of how it was built"
    if served[0]["schema_version"] != SCHEMA_VERSION or last[0]["definition"] != _definition_hash():
        return "the serving definition changed"
    if last[0]["site_url"] != site_url:
        return "the site URL changed"
    if last[0]["migration"] != migration:
        return "migrations were applied since"
    return None


def _copy_changes(conn: psycopg.Connection) -> bool:
    """The change log as this publish sees it, read once into _changes for every key set
    (the log is a heap of short-lived rows: after a big day, or before autovacuum has been
    by, each scan of it reads every page it ever had). True when a core table was truncated."""
    conn.execute("CREATE TEMP TABLE _changes ON COMMIT DROP AS SELECT DISTINCT kind, key FROM wove.serving_changes")
    conn.execute("CREATE INDEX ON _changes (kind, key)")
    conn.execute("ANALYZE _changes")
    return bool(db.fetch_value(conn, "SELECT EXISTS (SELECT 1 FROM _changes WHERE kind = 'truncate')"))


def publish(url: str, *, site_url: str = "", export_dir: str | os.PathLike | None = None,
            drop_old: bool = True, full: bool = False, full_above: float = FULL_REBUILD_ABOVE) -> dict[str, Any]:
    """Publish the serving schema from the core tables; optionally export Parquet.

    Incremental when possible: the serving rows the logged changes reach are rewritten in
    place, in one transaction (readers see the old or the new publication, never a mix).
    A full rebuild (built in serving_build, swapped in) when ``full``, on the first
    publish, when the definition, site URL or migrations changed, after a TRUNCATE of a
    core table, or when more than ``full_above`` of the papers or researchers changed
    (rebuilding is then cheaper). Both give the same rows.

    Returns {"publication_id", "published_at", "mode", "reason", "row_counts",
    "rows_written" ({table: {"deleted", "inserted"}}), "seconds_by_table" (incremental),
    "moved_functions", "export"}.
    """
    started = time.perf_counter()
    with db.connect(url, autocommit=True) as conn:
        # A session lock taken before the transaction: the snapshot then starts after the
        # previous publish committed (an incremental publish edits the live rows).
        with db.session_lock(conn, LOCK_KEY):
            with conn.transaction():
                # one snapshot of the core tables and of the change log for every statement
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                migration = db.fetch_value(conn, "SELECT max(version) FROM wove.schema_migrations")
                reason = "requested" if full else _full_rebuild_reason(conn, site_url, migration)
                if reason is None and _copy_changes(conn):
                    reason = "a core table was truncated"
                published_at = db.fetch_value(conn, "SELECT now()")
                publication_id = int(published_at.timestamp() * 1000)
                as_of = db.fetch_value(conn, "SELECT max(oai_datestamp) FROM wove.papers")
                metrics_at = db.fetch_value(conn, "SELECT max(started_at) FROM wove.metrics_runs")
                written: dict[str, dict[str, int]] = {}
                seconds: dict[str, float] = {}  # incremental: per table, its key sets included
                moved: list[str] = []
                if reason is None:
                    counts = db.fetch_value(conn, "SELECT row_counts FROM serving.publication")
                    made = {name: _make_key_set(conn, name) for name in ("k_paper", "k_researcher")}
                    if made["k_paper"] > full_above * max(counts["papers"], 1) or \
                            made["k_researcher"] > full_above * max(counts["researchers"], 1):
                        reason = f"more than {full_above:.0%} of the papers or researchers changed"
                if reason is None:
                    # a day's keys are a sliver of tables whose pages are mostly cached: price
                    # random reads as an SSD does (PostgreSQL's default, 4, is a spinning
                    # disk's), or a few thousand index look-ups lose to a scan of millions
                    conn.execute("SET LOCAL random_page_cost = 1.1")
                    for t in _TABLES:
                        table_started = time.perf_counter()
                        for name in _key_sets_in(*t.delete, *(v for p in t.passes for v in p.values())):
                            if name not in made:
                                made[name] = _make_key_set(conn, name)
                        deleted, inserted = _apply(conn, t, site_url, made)
                        written[t.name] = {"deleted": deleted, "inserted": inserted}
                        counts[t.name] += inserted - deleted
                        # statistics only when a good part of the table moved (autovacuum
                        # analyzes the rest in its own time)
                        if deleted + inserted > 0.1 * max(counts[t.name], 1):
                            _analyze(conn, SCHEMA, t.name)
                        seconds[t.name] = round(time.perf_counter() - table_started, 3)
                    conn.execute("UPDATE serving.publication SET publication_id = %s, published_at = %s, as_of = %s,"
                                 " metrics_computed_at = %s, row_counts = %s",
                                 (publication_id, published_at, as_of, metrics_at, json.dumps(counts)))
                    counts["publication"] = 1
                    mode = "incremental"
                else:
                    before = db.fetch_value(conn, "SELECT row_counts FROM serving.publication") \
                        if db.fetch_value(conn, "SELECT to_regclass('serving.publication') IS NOT NULL") else None
                    counts, moved = _build_full(conn, site_url, published_at, publication_id, as_of, metrics_at)
                    # a rebuild replaces every row of every table
                    written = {t.name: {"deleted": int((before or {}).get(t.name, 0)), "inserted": counts[t.name]}
                               for t in _TABLES}
                    mode = "full"
                # the changes this publish has seen are in it (later ones are not visible here)
                conn.execute("DELETE FROM wove.serving_changes")
                conn.execute(
                    "INSERT INTO wove.serving_publishes (publication_id, published_at, mode, reason, definition,"
                    " site_url, migration, rows_written, seconds) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    (publication_id, published_at, mode, reason, _definition_hash(), site_url, migration,
                     json.dumps(written), time.perf_counter() - started))
        # the log is a queue, emptied by every publish: reclaim its dead rows now, or the
        # next publish reads every page a big day (or a backfill) left behind
        conn.execute("VACUUM wove.serving_changes")
        if drop_old:
            drop_old_schemas(conn)
    result: dict[str, Any] = {"publication_id": publication_id, "published_at": published_at, "mode": mode,
                              "reason": reason, "row_counts": counts, "rows_written": written,
                              "seconds_by_table": seconds, "moved_functions": moved, "export": None}
    if export_dir is not None:
        result["export"] = export_parquet(url, export_dir)
    return result


def drop_old_schemas(conn: psycopg.Connection, lock_timeout_ms: int = 5000) -> list[str]:
    """Drop the schemas earlier publishes swapped out (each in its own transaction; one
    still read by a long query is left for the next publish). ``conn`` is in autocommit mode."""
    dropped = []
    names = [r[0] for r in conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE %s",
                                        (OLD_PREFIX.replace("_", r"\_") + "%",))]
    for name in names:
        try:
            with conn.transaction():
                conn.execute(sql.SQL("SET LOCAL lock_timeout = {}").format(sql.Literal(f"{lock_timeout_ms}ms")))
                conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(name)))
            dropped.append(name)
        except psycopg.errors.LockNotAvailable:
            continue
    return dropped


def create_reader_login(conn: psycopg.Connection, name: str, password: str | None = None) -> None:
    """A login role that reads the serving schema through wove_reader (and nothing else)."""
    statement = sql.SQL("CREATE ROLE {} LOGIN IN ROLE {}").format(sql.Identifier(name), sql.Identifier(READER_ROLE))
    if password is not None:
        statement = sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE {}").format(
            sql.Identifier(name), sql.Literal(password), sql.Identifier(READER_ROLE))
    conn.execute(statement)


# ---------------------------------------------------------------------------------------
# Parquet export

_ARROW_TYPES = {
    "text": "string", "bigint": "int64", "integer": "int32", "boolean": "bool", "date": "date32",
    "double precision": "float64", "real": "float32", "jsonb": "string", "timestamp with time zone": "timestamp",
    "text[]": "list<string>", "bigint[]": "list<int64>", "integer[]": "list<int32>",
}


def _arrow_type(pg_type: str):
    import pyarrow as pa

    kind = _ARROW_TYPES.get(pg_type, "string")
    return {
        "string": pa.string(), "int64": pa.int64(), "int32": pa.int32(), "bool": pa.bool_(), "date32": pa.date32(),
        "float64": pa.float64(), "float32": pa.float32(), "timestamp": pa.timestamp("us", tz="UTC"),
        "list<string>": pa.list_(pa.string()), "list<int64>": pa.list_(pa.int64()), "list<int32>": pa.list_(pa.int32()),
    }[kind]


def relation_columns(conn: psycopg.Connection, relation: str, schema: str = SCHEMA) -> list[dict]:
    """[{name, type}] of a serving table or view, in column order (type as format_type prints it)."""
    return db.fetch_all(conn, """
        SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = %s AND c.relname = %s AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum""", (schema, relation))


CONTRACT = Path(__file__).resolve().parents[2] / "docs" / "data-contract.md"


def contract_column_meanings(path: str | os.PathLike = CONTRACT) -> dict[str, dict[str, str]]:
    """{relation: {column: meaning}} from the data contract's ``| column | type | meaning |``
    tables under each ``### `serving.<relation>` `` heading ("title, abstract" rows give both
    columns). Empty when the document is not there (an installed package without docs/)."""
    try:
        text = Path(path).read_text()
    except OSError:
        return {}
    out: dict[str, dict[str, str]] = {}
    relation = None
    for line in text.splitlines():
        heading = re.match(r"^###\s+`serving\.(\w+)`", line)
        if heading:
            relation = heading.group(1)
            continue
        if line.startswith("#"):
            relation = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if relation is None or len(cells) < 3 or cells[0] in ("column", "") or set(cells[0]) <= {"-", " "}:
            continue
        meaning = " ".join(c for c in cells[2:] if c).strip()
        for name in cells[0].split(","):
            name = name.strip().strip("`")
            if re.fullmatch(r"\w+", name):
                out.setdefault(relation, {})[name] = meaning
    return out


def serving_columns(conn: psycopg.Connection) -> dict[str, list[dict]]:
    """{relation: [{name, type, description}]} for every serving table and view, read from the
    catalog; descriptions from the data contract where it has them."""
    meanings = contract_column_meanings()
    out = {}
    for relation in (*TABLES, *VIEWS):
        cols = relation_columns(conn, relation)
        if cols:
            known = meanings.get(relation, {})
            out[relation] = [{**c, "description": known.get(c["name"], "")} for c in cols]
    return out


def export_parquet(url: str, directory: str | os.PathLike, batch_rows: int = 50_000) -> dict[str, Any]:
    """Write every serving table and view as <name>.parquet plus manifest.json (row counts,
    as-of, schema version), all read from one snapshot. The manifest is written last: a reader
    that finds it finds every file complete."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / "manifest.json"
    if manifest_path.exists():
        manifest_path.unlink()  # files are about to change: no manifest until they all are
    written: dict[str, dict[str, Any]] = {"tables": {}, "views": {}}
    with db.connect(url, autocommit=True) as conn, conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        pub = db.fetch_all(conn, "SELECT * FROM serving.publication")[0]
        for kind, relations in (("tables", TABLES), ("views", VIEWS)):
            for table in relations:
                cols = relation_columns(conn, table)
                if not cols:
                    continue  # a view an older serving schema does not have
                schema = pa.schema([(c["name"], _arrow_type(c["type"])) for c in cols])
                select = sql.SQL(", ").join(
                    sql.SQL("{}::text").format(sql.Identifier(c["name"])) if c["type"] in ("jsonb", "numeric")
                    or c["type"] not in _ARROW_TYPES else sql.Identifier(c["name"])
                    for c in cols)
                final = out / f"{table}.parquet"
                tmp = out / f".{table}.parquet.tmp"
                rows = 0
                with pq.ParquetWriter(tmp, schema) as writer, conn.cursor(name=f"export_{table}") as cur:
                    cur.itersize = batch_rows
                    cur.execute(sql.SQL("SELECT {} FROM {}").format(select, _ident(SCHEMA, table)))
                    while True:
                        batch = cur.fetchmany(batch_rows)
                        if not batch:
                            break
                        columns = list(zip(*batch))
                        writer.write_table(pa.Table.from_arrays(
                            [pa.array(list(col), type=f.type) for col, f in zip(columns, schema)], schema=schema))
                        rows += len(batch)
                    if rows == 0:
                        writer.write_table(schema.empty_table())
                os.replace(tmp, final)
                digest = hashlib.sha256(final.read_bytes()).hexdigest()
                written[kind][table] = {"file": final.name, "rows": rows, "sha256": digest,
                                        "columns": [{"name": c["name"], "type": c["type"]} for c in cols]}
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "publication_id": pub["publication_id"],
        "published_at": pub["published_at"].isoformat(),
        "as_of": pub["as_of"].isoformat() if pub["as_of"] else None,
        "exported_at": dt.datetime.now(dt.timezone.utc).isoformat(),
        **written,
    }
    tmp = out / ".manifest.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=2))
    os.replace(tmp, manifest_path)
    rows = {t: v["rows"] for group in written.values() for t, v in group.items()}
    return {"directory": str(out), "manifest": str(manifest_path), "rows": rows}


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


def latest_papers(conn: psycopg.Connection, limit: int = 50) -> list[dict]:
    return [r["record"] for r in db.fetch_all(conn, "SELECT record FROM serving.latest_papers LIMIT %s", (limit,))]


def to_json(payload: Any) -> str:
    """JSON text of a payload (dates and timestamps as ISO 8601)."""
    return json.dumps(payload, default=lambda o: o.isoformat() if hasattr(o, "isoformat") else str(o),
                      ensure_ascii=False, indent=2)
