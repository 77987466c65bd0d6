"""The serving tables' definitions: one SELECT per table, the functions and views, the key
sets of an incremental publish, comments and statistics (SQL text only; ``publish.py``
runs it).

A full build renders each definition for the build schema with every key filter ``true``;
an incremental publish renders it for ``serving`` with the filters of the changed keys
(``render``). ``definition_hash`` fingerprints all of it: a change makes the next publish
a full rebuild. Contract: docs/data-contract.md.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re

SCHEMA = "serving"
BUILD_SCHEMA = "serving_build"
OLD_PREFIX = "serving_old_"
SCHEMA_VERSION = "1.0"
READER_ROLE = "wove_reader"
LATEST_LIMIT = 100
# Serving rows are stored uncompressed up to a page: pglz-compressing abstracts, author lists and
# records was half of building serving.papers (1.0 -> 0.55 s for 13.6k papers; 48 -> 59 MB).
# Autovacuum is started by dead rows, not inserts (-1): PostgreSQL 18 counts inserts against a table's
# unfrozen part only, so on a big frozen archive every publish's inserts started one, which scanned the
# whole indexes for the day's deleted rows (a day's cost growing with the archive); by dead rows (20% of
# the table) one comes the less often the bigger the table: amortized, the same cost a day.
STORAGE = "WITH (toast_tuple_target = 8160, autovacuum_vacuum_insert_threshold = -1)"

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
# where {k_<name>} is a key set, see KEY_SETS) and replaces the serving rows any
# condition of `delete` selects by the union of those passes. That is exact as long as
# every row outside `delete` is the same in the live table and in the SELECT: the key
# sets are built so.


@dataclasses.dataclass(frozen=True)
class Table:
    name: str
    select: str
    pk: tuple[str, ...]
    indexes: tuple[str, ...] = ()
    # rows an incremental publish rewrites: one condition per key set, each with an index
    # to find its rows by (an OR of them was one scan of the whole table)
    delete: tuple[str, ...] = ()
    # marker -> filter; "select": the pass's own SELECT instead of `select` (same columns)
    passes: tuple[dict[str, str], ...] = ()
    warm: tuple[str, ...] = dataclasses.field(default=(), repr=False)  # publish._warm_indexes' (shapes no row)


# The (researcher_id, coauthor_id) edges in k_coauthor_pair.
_PAIRS = "(SELECT split_part(k, ':', 1)::bigint, split_part(k, ':', 2)::bigint FROM {k_coauthor_pair} AS p(k))"
# The (researcher_id, arxiv_id) pairs of the links written, before and after, in k_mention_pair.
_MENTION_PAIRS = "(SELECT split_part(k, ':', 1)::bigint, split_part(k, ':', 2) FROM {k_mention_pair} AS p(k))"

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


def _slug(alias: str) -> str:
    """A researcher's slug from its wove.researchers row (``alias``): the one their page, the
    papers' author lists and the key set of renamed researchers all compute."""
    return f"{alias}.researcher_id || '-' || wove.name_slug({alias}.display_name)"


# The served rows of the papers whose only change is links or slugs (k_paper_links), each
# author list patched at those positions (k_link_position) with the position's researcher and
# slug as the full build gives them; every other column is the live row's. A merge that moves
# one position of a 3,000-author paper, or a rename of one of its authors, reads that
# position, not the paper's 3,000 links and slugs.
_PATCHED_AUTHOR_LISTS = f"""
    WITH moved AS (
        SELECT k.arxiv_id, jsonb_object_agg(k.position::text, jsonb_build_object(
                   'researcher_id', rm.researcher_id, 'researcher_slug', {_slug('rs')})) AS links
        FROM (SELECT split_part(key, ':', 1) AS arxiv_id, split_part(key, ':', 2)::int AS position
              FROM {{k_link_position}} AS l(key)) k
        LEFT JOIN wove.researcher_mentions rm ON rm.arxiv_id = k.arxiv_id AND rm.position = k.position
        LEFT JOIN wove.researchers rs ON rs.researcher_id = rm.researcher_id
        WHERE k.arxiv_id IN {{k_paper_links}}
        GROUP BY k.arxiv_id
    )
    SELECT patched.*
    FROM {{s}}.papers o JOIN moved m ON m.arxiv_id = o.arxiv_id
    -- in FROM: a (function(...)).* in the SELECT list would run it once per column
    CROSS JOIN LATERAL jsonb_populate_record(o, jsonb_build_object('author_list', (
        SELECT jsonb_agg(coalesce(e.author || (m.links -> (e.author ->> 'position')), e.author) ORDER BY e.n)
        FROM jsonb_array_elements(o.author_list) WITH ORDINALITY AS e(author, n)))) AS patched
    """

TABLE_DEFINITIONS = (
    # ---------------------------------------------------------------- papers
    Table(
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
        LEFT JOIN (SELECT rs.researcher_id, {_slug('rs')} AS slug
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
        delete=("arxiv_id IN {k_paper}", "arxiv_id IN {k_paper_links}"),
        # = ANY(ARRAY(<key set>)): index look-ups into paper_authors and researcher_mentions
        # for a day's keys (an IN (SELECT ...) was planned as a scan of all of either)
        passes=({"where": "p.arxiv_id IN {k_paper}", "where_authors": "pa.arxiv_id = ANY(ARRAY{k_paper})",
                 "where_slugs": "rs.researcher_id IN (SELECT m.researcher_id FROM wove.researcher_mentions m"
                                " WHERE m.arxiv_id = ANY(ARRAY{k_paper}))"},
                {"select": _PATCHED_AUTHOR_LISTS}),
    ),
    Table(
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
    Table(
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
               """ + _slug("r") + """ AS slug,
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
        pk=("researcher_id",), warm=("normalized_name",),  # (a rewrite's names land all over the index)
        indexes=("CREATE INDEX researchers_same_name_idx ON {s}.researchers (normalized_name, papers_here DESC, researcher_id)",),
        delete=("researcher_id IN {k_researcher}",),
        passes=({"where": "r.researcher_id IN {k_researcher}", "where_institutions": "mi.researcher_id IN {k_researcher}",
                 "where_coauthors": "c.researcher_id IN {k_researcher}"},),
    ),
    Table(
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
        delete=("researcher_id IN {k_researcher_exist}", "arxiv_id IN {k_paper_row}",
                "(researcher_id, arxiv_id) IN " + _MENTION_PAIRS),
        passes=({"where": "rm.researcher_id IN {k_researcher_exist}"}, {"where": "rm.arxiv_id IN {k_paper_row}"},
                {"where": "(rm.researcher_id, rm.arxiv_id) IN " + _MENTION_PAIRS}),
    ),
    Table(
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
    Table(
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
    Table(
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
    Table(
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
    Table(
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
    Table(
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
FUNCTION_DEFINITIONS = [
    """
    CREATE FUNCTION {s}.route_key(text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
        RETURN lower(regexp_replace(regexp_replace(
            btrim(public.unaccent('public.unaccent'::regdictionary, $1)),
            '^(https?://)?(www\\.)?ror\\.org/([^/[:space:]]+)/?$', '\\3', 'i'),  -- a ROR URL -> its bare id
            '\\s+', ' ', 'g'))
    """,
]

VIEW_DEFINITIONS = [
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
# _changes (publish._copy_changes). For each set, why it covers every row that can differ:
_CHANGED = "SELECT key FROM _changes WHERE kind = ANY('{{{}}}'::text[])"
KEY_SETS: dict[str, tuple[str, str]] = {
    # papers: its own row, authors, citations (S2, OpenAlex), topics. A paper whose author
    # list changed only in links and slugs is k_paper_links'.
    "k_paper": ("text", _CHANGED.format("paper_data")),
    # the author positions whose link or researcher slug the author lists may show wrong:
    # each written link, and every position of a researcher whose slug is not the one served
    # (renamed, new or gone). Not every position of every changed researcher: a researcher's
    # row changes with each new paper, and rewriting all of a prolific one's papers
    # (collaboration papers of 3,000 positions among them) grew with the archive (2,467 papers
    # with 294,894 positions for a day of 1,208 papers at 300k papers).
    "k_link_position": ("text", _CHANGED.format("mention_position") + """
        UNION SELECT rm.arxiv_id || ':' || rm.position FROM wove.researcher_mentions rm
        WHERE rm.researcher_id IN (
            SELECT c.key::bigint FROM _changes c
            LEFT JOIN wove.researchers r ON r.researcher_id = c.key::bigint
            LEFT JOIN """ + SCHEMA + """.researchers s ON s.researcher_id = c.key::bigint
            WHERE c.kind = 'researcher' AND s.slug IS DISTINCT FROM """ + _slug("r") + ")"),
    # the papers of those positions, but those rebuilt whole: their author lists are patched
    # at those positions (_PATCHED_AUTHOR_LISTS)
    "k_paper_links": ("text", "SELECT split_part(key, ':', 1) FROM _k_link_position EXCEPT SELECT key FROM _k_paper"),
    # researchers: their row, metrics, co-author count; and names/ROR of their institutions
    "k_researcher": ("bigint", "SELECT key::bigint FROM (" + _CHANGED.format("researcher,researcher_metrics,coauthor")
                     + ") c" + """
        UNION SELECT m.researcher_id FROM wove.researcher_metrics m
        WHERE EXISTS (SELECT 1 FROM _changes c WHERE c.kind = 'institution')
          AND EXISTS (SELECT 1 FROM jsonb_array_elements(m.institutions) e
                      WHERE e ->> 'institution_id' IN (""" + _CHANGED.format("institution") + "))"),
    # researcher_papers: papers by their row (day, category, gone), links by the
    # (researcher, paper) pairs they left and joined, researcher rows that appeared or went
    "k_paper_row": ("text", _CHANGED.format("paper_row")),
    "k_mention_pair": ("text", _CHANGED.format("mention_pair")),
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

# The wide tables' statistics: the columns pages and routes filter and sort on (text and JSON were most of ANALYZE).
ANALYZE_ONLY = {
    "papers": ("arxiv_id", "slug", "published", "primary_category", "withdrawn", "updated"),
    "researchers": ("researcher_id", "normalized_name", "papers_here", "slug", "last_published"),
}

COMMENTS = {
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
# rendering

_WHERE = re.compile(r"\{where[a-z_]*\}")


def render(statement: str, schema: str, filters: dict[str, str] | None = None) -> str:
    """A definition's SQL for `schema`; key filters from `filters` ({where...} marker -> predicate), others `true`."""
    filters = filters or {}
    text = _WHERE.sub(lambda m: "(" + filters.get(m.group(0)[1:-1], "true") + ")", statement)
    for name in KEY_SETS:
        text = text.replace("{" + name + "}", f"(SELECT key FROM _{name})")
    return text.replace("{s}", schema)


def params(statement: str, site_url: str) -> dict | None:
    """The statement's parameters: the site URL where it builds absolute URLs."""
    return {"site": site_url.rstrip("/")} if "%(site)s" in statement else None


def key_sets_in(*texts: str) -> list[str]:
    """The key sets these SQL texts name ({k_<name>}), in KEY_SETS order."""
    return [name for name in KEY_SETS if any("{" + name + "}" in text for text in texts)]


def definition_hash() -> str:
    """Fingerprint of everything that shapes the serving rows and tables: a change (new code) makes the next
    publish a full rebuild. The key sets are not in it: they choose which rows an incremental publish
    rewrites, not what a row holds (the tests compare an incremental publish with a full build)."""
    parts = [SCHEMA_VERSION, STORAGE, repr(TABLE_DEFINITIONS), repr(FUNCTION_DEFINITIONS), repr(VIEW_DEFINITIONS),
             repr(COMMENTS)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
