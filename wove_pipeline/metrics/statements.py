"""The SQL of the metrics run (``compute.py`` runs it): paper, researcher and author-record
fingerprints, the researcher metrics, the co-author and institution deltas, and what
changed since the last run. Temp tables: _metrics_candidates -> _metrics_states (paper
states), _metrics_r (researchers to recompute) -> _metrics_rm, _metrics_ext, and
_metrics_delta (changed papers' states, signed).
"""

# ---------------------------------------------------------------------------------------
# fingerprints (what the metrics read about a paper / researcher / author record)

# One researcher's positions on a paper as the metrics read them (rows of _pos: position,
# researcher_id, s2_author_id, openalex_author_id, institution_ids): the digest
# '<researcher_id>:<positions>:<hash>' (migration 0026; the count since 0029), and the paper's
# structure (everything but the citation count: who, where, what, when) from its digests and
# its authorships' hash. The paper states computed whole and those patched for a moved link
# (PATCHED_STATES_SQL) share these, so that both give the same state.
_DIGEST = """researcher_id::text || ':' || count(*) || ':' || left(md5(string_agg(
        position::text || ':' || coalesce(s2_author_id, '') || ':' || coalesce(openalex_author_id, '') || ':'
        || coalesce(array_to_string(institution_ids, ';'), ''), ',' ORDER BY position)), 16)"""
_STRUCTURE = """md5(concat_ws('|', {paper}.primary_category, {paper}.published::text, {n_authors}::text,
                         {aligned_digest}, array_to_string({digests}, ',')))"""
_FINGERPRINT = "md5(concat_ws('|', {structure}, pc.cited_by_count::text, pc.source, pc.as_of::text))"

# Each candidate's state: its links, aligned authorships, institutions and author count,
# each table aggregated once over all candidates (per-paper subqueries cost several index
# probes a paper; this is half the time on a day's candidates, the same rows). Links and
# authorships are read once each, by range, and joined whole into one row per position
# (pos): joining them position by position cost an index probe per position twice over
# (the day after 100,000 papers: 1,347 candidates holding 341,116 positions, most of them on
# old collaboration papers a merge moved a link on). On 1,340 papers of that archive holding
# 286,546 positions: 4.0 -> 3.4 s, the same rows.
PAPER_STATE_SQL = """
WITH ml AS (               -- the candidates' links and aligned authorships, each read once by range
    SELECT m.arxiv_id, m.position, m.researcher_id
    FROM _metrics_candidates c JOIN wove.researcher_mentions m ON m.arxiv_id = c.arxiv_id
),
al AS (
    SELECT a.arxiv_id, a.position, a.s2_author_id, a.openalex_author_id, a.institution_ids
    FROM _metrics_candidates c JOIN wove.authorships a ON a.arxiv_id = c.arxiv_id
),
pos AS MATERIALIZED (      -- one row per position with either: joined whole, not probed row by row
    SELECT coalesce(ml.arxiv_id, al.arxiv_id) AS arxiv_id, coalesce(ml.position, al.position) AS position,
           ml.researcher_id, al.arxiv_id IS NOT NULL AS has_authorship, al.s2_author_id, al.openalex_author_id,
           al.institution_ids
    FROM ml FULL JOIN al ON al.arxiv_id = ml.arxiv_id AND al.position = ml.position
),
a AS (                     -- each paper's aligned authorships
    SELECT arxiv_id,
           md5(string_agg(position::text || ':' || coalesce(s2_author_id, '') || ':'
                          || coalesce(openalex_author_id, '') || ':' || array_to_string(institution_ids, ';'),
                          ',' ORDER BY position)) AS aligned_digest
    FROM pos WHERE has_authorship
    GROUP BY arxiv_id
),
i AS (                     -- its institutions, and who was at each
    SELECT pos.arxiv_id, array_agg(DISTINCT x.i ORDER BY x.i) AS institution_ids,
           array_agg(DISTINCT x.i || ' ' || pos.researcher_id::text ORDER BY x.i || ' ' || pos.researcher_id::text)
               FILTER (WHERE pos.researcher_id IS NOT NULL) AS institution_researchers
    FROM pos CROSS JOIN LATERAL unnest(pos.institution_ids) AS x(i)
    GROUP BY pos.arxiv_id
),
d AS (                     -- its links: one digest per researcher (what the metrics read of their positions)
    SELECT arxiv_id, array_agg(digest ORDER BY researcher_id) AS researcher_digests,
           array_agg(researcher_id ORDER BY researcher_id) AS researcher_ids, sum(n)::int AS n_matched
    FROM (SELECT arxiv_id, researcher_id, count(*) AS n, """ + _DIGEST + """ AS digest
          FROM pos WHERE researcher_id IS NOT NULL
          GROUP BY 1, 2) r
    GROUP BY arxiv_id
),
na AS (
    SELECT pa.arxiv_id, count(*)::int AS n_authors
    FROM _metrics_candidates c JOIN wove.paper_authors pa ON pa.arxiv_id = c.arxiv_id
    GROUP BY pa.arxiv_id
)
SELECT c.arxiv_id,
       p.oai_datestamp,
       CASE WHEN p.arxiv_id IS NULL THEN 'gone' ELSE """ + _FINGERPRINT.format(structure="st.structure") + """ END
           AS fingerprint,
       st.structure,
       coalesce(na.n_authors, 0) AS n_authors,
       coalesce(d.n_matched, 0) AS n_matched,
       coalesce(d.researcher_ids, '{}') AS researcher_ids,
       coalesce(i.institution_ids, '{}') AS institution_ids,
       coalesce(i.institution_researchers, '{}') AS institution_researchers,
       coalesce(d.researcher_digests, '{}') AS researcher_digests,
       pc.cited_by_count, pc.as_of AS cited_as_of, p.primary_category, p.published, a.aligned_digest
FROM _metrics_candidates c
LEFT JOIN wove.papers p ON p.arxiv_id = c.arxiv_id
LEFT JOIN wove.paper_citations pc ON pc.arxiv_id = c.arxiv_id
LEFT JOIN a ON a.arxiv_id = c.arxiv_id
LEFT JOIN i ON i.arxiv_id = c.arxiv_id
LEFT JOIN d ON d.arxiv_id = c.arxiv_id
LEFT JOIN na ON na.arxiv_id = c.arxiv_id
CROSS JOIN LATERAL (
    SELECT """ + _STRUCTURE.format(paper="p", n_authors="coalesce(na.n_authors, 0)", aligned_digest="a.aligned_digest",
                                   digests="coalesce(d.researcher_digests, '{}')") + """ AS structure
) st
"""

# The states of papers whose only change is links (_metrics_patch: arxiv_id), from their
# stored states: the digests of the researchers whose links there moved (_metrics_moved:
# researcher_id, arxiv_id, from the log's 'mention_pair' keys) taken again from their
# positions on the paper (by the (researcher_id, arxiv_id) index: a moved link on a 3,000-author
# paper reads its researcher's one position there, not the paper's 3,000); the others' digests
# and institution pairs kept; counts, researchers and structure follow from the digests (the
# paper's row, authors, authorships and citations are as stored: they log 'paper_data' or
# 'authorship', and such a paper is computed whole). The columns of PAPER_STATE_SQL.
PATCHED_STATES_SQL = """
WITH _pos AS (
    SELECT mv.arxiv_id, rm.researcher_id, rm.position, a.s2_author_id, a.openalex_author_id, a.institution_ids
    FROM _metrics_moved mv
    JOIN wove.researcher_mentions rm ON rm.researcher_id = mv.researcher_id AND rm.arxiv_id = mv.arxiv_id
    LEFT JOIN wove.authorships a ON a.arxiv_id = rm.arxiv_id AND a.position = rm.position
),
moved AS (                 -- per paper: who moved, their digests and institution pairs now
    SELECT mv.arxiv_id, array_agg(mv.researcher_id) AS researcher_ids,
           array_agg(g.digest) FILTER (WHERE g.digest IS NOT NULL) AS digests,
           (SELECT array_agg(x.i || ' ' || p.researcher_id::text) FROM _pos p CROSS JOIN LATERAL
                   unnest(p.institution_ids) AS x(i) WHERE p.arxiv_id = mv.arxiv_id) AS institution_researchers
    FROM _metrics_moved mv
    LEFT JOIN (SELECT arxiv_id, researcher_id, """ + _DIGEST + """ AS digest FROM _pos GROUP BY 1, 2) g
           ON g.arxiv_id = mv.arxiv_id AND g.researcher_id = mv.researcher_id
    GROUP BY mv.arxiv_id
),
patched AS MATERIALIZED (  -- each paper's new arrays built once (inlined, every use rebuilt them)
    SELECT o.arxiv_id, o.oai_datestamp, o.n_authors, o.institution_ids, o.cited_by_count, o.cited_as_of,
           o.primary_category, o.published, o.aligned_digest, coalesce(d.n_matched, 0) AS n_matched,
           coalesce(d.researcher_ids, '{}') AS researcher_ids, coalesce(d.researcher_digests, '{}') AS researcher_digests,
           coalesce(i.institution_researchers, '{}') AS institution_researchers
    FROM _metrics_patch c
    JOIN wove.metrics_paper_state o ON o.arxiv_id = c.arxiv_id
    JOIN moved m ON m.arxiv_id = c.arxiv_id
    CROSS JOIN LATERAL (   -- the unmoved researchers' digests kept, the moved ones' new: in one sort
        SELECT array_agg(g ORDER BY rid) AS researcher_digests, array_agg(rid ORDER BY rid) AS researcher_ids,
               sum(split_part(g, ':', 2)::int)::int AS n_matched
        FROM (SELECT g, split_part(g, ':', 1)::bigint AS rid, is_new FROM (
                  SELECT g, false AS is_new FROM unnest(o.researcher_digests) AS g
                  UNION ALL SELECT g, true FROM unnest(m.digests) AS g) k) kept
        WHERE is_new OR rid <> ALL(m.researcher_ids)
    ) d
    CROSS JOIN LATERAL (
        SELECT array_agg(DISTINCT e ORDER BY e) AS institution_researchers FROM (
            SELECT e FROM unnest(o.institution_researchers) AS e
            WHERE split_part(e, ' ', 2)::bigint <> ALL(m.researcher_ids)
            UNION ALL SELECT unnest(m.institution_researchers)) k
    ) i
)
SELECT o.arxiv_id, o.oai_datestamp,
       """ + _FINGERPRINT.format(structure="st.structure") + """ AS fingerprint,
       st.structure, o.n_authors, o.n_matched, o.researcher_ids, o.institution_ids, o.institution_researchers,
       o.researcher_digests, o.cited_by_count, o.cited_as_of, o.primary_category, o.published, o.aligned_digest
FROM patched o
LEFT JOIN wove.paper_citations pc ON pc.arxiv_id = o.arxiv_id
CROSS JOIN LATERAL (
    SELECT """ + _STRUCTURE.format(paper="o", n_authors="o.n_authors", aligned_digest="o.aligned_digest",
                                   digests="o.researcher_digests") + """ AS structure
) st
"""

RESEARCHER_FP = """md5(concat_ws('|', r.display_name, r.normalized_name, r.orcid,
                   array_to_string(r.s2_author_ids, ','), array_to_string(r.openalex_author_ids, ',')))"""

AUTHOR_FP = {
    "s2": ("wove.s2_authors", "md5(concat_ws('|', t.paper_count, t.citation_count, t.h_index, t.as_of))"),
    "openalex": ("wove.openalex_authors", "md5(concat_ws('|', t.works_count, t.cited_by_count, t.h_index, t.as_of))"),
}


# ---------------------------------------------------------------------------------------
# recompute for a set of researchers (temp table _metrics_r)

RESEARCHER_METRICS_SQL = """
INSERT INTO wove.researcher_metrics (
    researcher_id, papers_here, ext_source, ext_author_id, ext_h_index, ext_citations, ext_works, ext_as_of,
    ext_records, archive_h_index, archive_citations, archive_works, archive_cited_papers, archive_as_of,
    position_first, position_middle, position_last, position_papers_considered, position_papers_total,
    categories, institutions, first_published, last_published, computed_at)
WITH m AS (                -- one row per (researcher, paper): the earliest position
    SELECT DISTINCT ON (researcher_id, arxiv_id) researcher_id, arxiv_id, position, institution_ids
    FROM _metrics_rm ORDER BY researcher_id, arxiv_id, position
),
mp AS (                    -- paper facts from the (current) paper state: no joins to papers/citations
    SELECT m.researcher_id, m.arxiv_id, m.position, m.institution_ids, ps.primary_category, ps.published,
           ps.cited_by_count, ps.cited_as_of, ps.n_authors, ps.n_matched,
           row_number() OVER (PARTITION BY m.researcher_id
                              ORDER BY coalesce(ps.cited_by_count, 0) DESC, m.arxiv_id) AS cite_rank
    FROM m
    JOIN wove.metrics_paper_state ps ON ps.arxiv_id = m.arxiv_id   -- current: stored before this runs
),
base AS (
    SELECT researcher_id,
           count(*)::int AS papers_here,
           count(*) FILTER (WHERE coalesce(cited_by_count, 0) >= cite_rank)::int AS archive_h_index,
           coalesce(sum(cited_by_count), 0)::int AS archive_citations,
           count(cited_by_count)::int AS archive_cited_papers,
           max(cited_as_of) AS archive_as_of,
           count(*) FILTER (WHERE full_match AND position = 0)::int AS position_first,
           count(*) FILTER (WHERE full_match AND position > 0 AND position < n_authors - 1)::int AS position_middle,
           count(*) FILTER (WHERE full_match AND position > 0 AND position = n_authors - 1)::int AS position_last,
           count(*) FILTER (WHERE full_match)::int AS position_papers_considered,
           min(published) AS first_published,
           max(published) AS last_published
    FROM (SELECT *, (n_authors > 0 AND n_matched >= n_authors) AS full_match FROM mp) q
    GROUP BY researcher_id
),
cats AS (
    SELECT researcher_id,
           jsonb_agg(jsonb_build_object('category', primary_category, 'papers', n)
                     ORDER BY n DESC, primary_category) AS categories
    FROM (SELECT researcher_id, primary_category, count(*)::int AS n FROM mp GROUP BY 1, 2) c
    GROUP BY researcher_id
),
inst AS (
    SELECT researcher_id,
           jsonb_agg(jsonb_build_object('institution_id', institution_id, 'first_year', first_year,
                                        'last_year', last_year, 'papers', papers, 'years', years)
                     ORDER BY first_year, last_year, institution_id) AS institutions
    FROM (
        SELECT mp.researcher_id, i AS institution_id,
               min(extract(year FROM mp.published)::int) AS first_year,
               max(extract(year FROM mp.published)::int) AS last_year,
               count(DISTINCT mp.arxiv_id)::int AS papers,
               array_agg(DISTINCT extract(year FROM mp.published)::int ORDER BY extract(year FROM mp.published)::int) AS years
        FROM mp CROSS JOIN LATERAL unnest(mp.institution_ids) AS i
        GROUP BY 1, 2
    ) t
    GROUP BY researcher_id
),
ext AS (                   -- with the record's statistics (only records we hold)
    -- One plain join per source, not a LATERAL (s2 UNION ALL openalex) per row: the planner
    -- put a Memoize on that lateral which was reset on every row (0 hits), each reset
    -- clearing a cache sized by the estimated rows, so a full run grew quadratically
    -- (108 of 141 s at 100k papers). Plain joins get index probes for a day's few
    -- researchers and hash joins for a full run.
    SELECT e.researcher_id, e.source, e.author_id, e.mentions,
           s.h_index, s.citation_count AS citations, s.paper_count AS works, s.as_of
    FROM _metrics_ext e JOIN wove.s2_authors s ON s.author_id = e.author_id
    WHERE e.source = 's2'
    UNION ALL
    SELECT e.researcher_id, e.source, e.author_id, e.mentions, o.h_index, o.cited_by_count, o.works_count, o.as_of
    FROM _metrics_ext e JOIN wove.openalex_authors o ON o.author_id = e.author_id
    WHERE e.source = 'openalex'
),
ext_ranked AS (
    SELECT ext.*, row_number() OVER (
               PARTITION BY researcher_id
               ORDER BY (h_index IS NULL), (source <> 's2'), mentions DESC, works DESC NULLS LAST, author_id
           ) AS rk
    FROM ext
),
ext_all AS (
    SELECT researcher_id,
           jsonb_agg(jsonb_build_object('source', source, 'author_id', author_id, 'mentions', mentions,
                                        'h_index', h_index, 'citations', citations, 'works', works,
                                        'as_of', as_of, 'chosen', rk = 1)
                     ORDER BY rk) AS ext_records
    FROM ext_ranked GROUP BY researcher_id
)
SELECT b.researcher_id, b.papers_here,
       e.source, e.author_id, e.h_index, e.citations, e.works, e.as_of,
       coalesce(x.ext_records, '[]'::jsonb),
       b.archive_h_index, b.archive_citations, b.papers_here, b.archive_cited_papers, b.archive_as_of,
       b.position_first, b.position_middle, b.position_last, b.position_papers_considered, b.papers_here,
       coalesce(c.categories, '[]'::jsonb), coalesce(i.institutions, '[]'::jsonb),
       b.first_published, b.last_published, now()
FROM base b
LEFT JOIN ext_ranked e ON e.researcher_id = b.researcher_id AND e.rk = 1
LEFT JOIN ext_all x ON x.researcher_id = b.researcher_id
LEFT JOIN cats c ON c.researcher_id = b.researcher_id
LEFT JOIN inst i ON i.researcher_id = b.researcher_id
"""

# ---------------------------------------------------------------------------------------
# kept by difference: co-author edges and institution metrics. _metrics_delta holds the
# state rows of the changed papers as they were (sign -1) and as they are (sign +1).

STATE_COLUMNS = ("arxiv_id", "oai_datestamp", "fingerprint", "structure", "n_authors", "n_matched", "cited_by_count",
                  "cited_as_of", "primary_category", "published", "researcher_ids", "institution_ids",
                  "institution_researchers", "researcher_digests", "aligned_digest")

STORE_STATES_SQL = f"""
INSERT INTO wove.metrics_paper_state ({", ".join(STATE_COLUMNS)})
SELECT {", ".join(STATE_COLUMNS)} FROM _metrics_states n
WHERE n.fingerprint <> 'gone' AND (%(all)s OR n.arxiv_id = ANY(%(ids)s))
ON CONFLICT (arxiv_id) DO UPDATE SET {", ".join(f"{c} = excluded.{c}" for c in STATE_COLUMNS[1:])}
"""

# The candidates whose fingerprint moved (a paper new to the state rows and gone already is
# no change), with who is on them now and was then; cited_only: only the citation count moved.
# moved_researcher_ids: when the paper's shared facts (category, day, author and link counts)
# are as they were, the researchers whose own positions there changed (their digest appeared
# or went; migration 0026); NULL when everyone on the paper is affected. cited_moved: its
# citation figures moved (the others on it need their archive citations only).
CHANGED_STATES_SQL = """
SELECT n.arxiv_id, n.researcher_ids, o.researcher_ids AS old_researcher_ids,
       o.arxiv_id IS NOT NULL AND o.structure IS NOT DISTINCT FROM n.structure AS cited_only,
       (o.cited_by_count, o.cited_as_of) IS DISTINCT FROM (n.cited_by_count, n.cited_as_of) AS cited_moved,
       CASE WHEN o.arxiv_id IS NULL OR n.fingerprint = 'gone' OR o.researcher_digests IS NULL
                 OR (o.primary_category, o.published, o.n_authors, o.n_matched)
                    IS DISTINCT FROM (n.primary_category, n.published, n.n_authors, n.n_matched) THEN NULL
            ELSE ARRAY(SELECT DISTINCT split_part(x, ':', 1)::bigint
                       FROM ((SELECT unnest(n.researcher_digests) EXCEPT SELECT unnest(o.researcher_digests))
                             UNION ALL
                             (SELECT unnest(o.researcher_digests) EXCEPT SELECT unnest(n.researcher_digests))) t(x))
       END AS moved_researcher_ids
FROM _metrics_states n LEFT JOIN wove.metrics_paper_state o ON o.arxiv_id = n.arxiv_id
WHERE o.fingerprint IS DISTINCT FROM n.fingerprint AND NOT (o.arxiv_id IS NULL AND n.fingerprint = 'gone')
ORDER BY n.arxiv_id
"""

DELTA_COLUMNS = "arxiv_id, n_authors, researcher_ids, institution_ids, institution_researchers, cited_by_count, published"

# Read once for the affected researchers (_metrics_r): every mention with its authorship
# (_metrics_rm), and every upstream author id linked to them with its mention count
# (_metrics_ext; ids on the researcher row count 0 mentions).
RESEARCHER_INPUTS_SQL = [
    """CREATE TEMP TABLE _metrics_rm ON COMMIT DROP AS
       SELECT rm.researcher_id, rm.arxiv_id, rm.position, a.s2_author_id,
              coalesce(rd.new_author_id, a.openalex_author_id) AS openalex_author_id, a.institution_ids
       FROM _metrics_r r
       JOIN wove.researcher_mentions rm ON rm.researcher_id = r.researcher_id
       LEFT JOIN wove.authorships a ON a.arxiv_id = rm.arxiv_id AND a.position = rm.position
       LEFT JOIN wove.openalex_author_redirects rd ON rd.old_author_id = a.openalex_author_id""",
    """CREATE TEMP TABLE _metrics_ext ON COMMIT DROP AS
       SELECT researcher_id, source, author_id, sum(n)::int AS mentions
       FROM (
           SELECT researcher_id, 's2' AS source, s2_author_id AS author_id, 1 AS n
           FROM _metrics_rm WHERE s2_author_id IS NOT NULL
           UNION ALL
           SELECT researcher_id, 'openalex', openalex_author_id, 1
           FROM _metrics_rm WHERE openalex_author_id IS NOT NULL
           UNION ALL
           SELECT rr.researcher_id, x.source, coalesce(rd.new_author_id, x.author_id), 0
           FROM _metrics_r r JOIN wove.researchers rr ON rr.researcher_id = r.researcher_id
           CROSS JOIN LATERAL (SELECT 's2', unnest(rr.s2_author_ids)
                               UNION ALL SELECT 'openalex', unnest(rr.openalex_author_ids)) AS x(source, author_id)
           LEFT JOIN wove.openalex_author_redirects rd ON x.source = 'openalex' AND rd.old_author_id = x.author_id
       ) u
       GROUP BY 1, 2, 3""",
    "ANALYZE _metrics_rm",
    "ANALYZE _metrics_ext",
]

COAUTHOR_DELTA_SQL = [
    # ordered pairs of distinct researchers on a paper of at most max_authors authors
    """CREATE TEMP TABLE _metrics_pairs ON COMMIT DROP AS
       SELECT a.r AS researcher_id, b.r AS coauthor_id, sum(d.sign)::int AS delta
       FROM _metrics_delta d
       CROSS JOIN LATERAL unnest(d.researcher_ids) AS a(r)
       CROSS JOIN LATERAL unnest(d.researcher_ids) AS b(r)
       WHERE d.n_authors <= %(max_authors)s AND a.r <> b.r
       GROUP BY 1, 2 HAVING sum(d.sign) <> 0""",
    """INSERT INTO wove.researcher_coauthors AS c (researcher_id, coauthor_id, papers)
       SELECT researcher_id, coauthor_id, delta FROM _metrics_pairs
       ORDER BY researcher_id, coauthor_id  -- index order: a full run inserts millions of pairs
       ON CONFLICT (researcher_id, coauthor_id) DO UPDATE SET papers = c.papers + excluded.papers""",
    # only a pair that lost papers can have reached zero
    """DELETE FROM wove.researcher_coauthors c USING _metrics_pairs p
       WHERE p.delta < 0 AND c.researcher_id = p.researcher_id AND c.coauthor_id = p.coauthor_id AND c.papers = 0""",
]

INSTITUTION_DELTA_SQL = [
    # (institution, researcher) pairs: papers with that researcher at that institution
    """CREATE TEMP TABLE _metrics_ir ON COMMIT DROP AS
       SELECT split_part(pair, ' ', 1) AS institution_id, split_part(pair, ' ', 2)::bigint AS researcher_id,
              sum(d.sign)::int AS delta
       FROM _metrics_delta d CROSS JOIN LATERAL unnest(d.institution_researchers) AS pair
       GROUP BY 1, 2 HAVING sum(d.sign) <> 0""",
    """INSERT INTO wove.metrics_institution_researchers AS t (institution_id, researcher_id, papers)
       SELECT institution_id, researcher_id, delta FROM _metrics_ir ORDER BY institution_id, researcher_id
       ON CONFLICT (institution_id, researcher_id) DO UPDATE SET papers = t.papers + excluded.papers""",
    """DELETE FROM wove.metrics_institution_researchers t USING _metrics_ir d
       WHERE d.delta < 0 AND t.institution_id = d.institution_id AND t.researcher_id = d.researcher_id
         AND t.papers = 0""",
    # papers and citations by difference; the first/last day from what was added
    """CREATE TEMP TABLE _metrics_ip ON COMMIT DROP AS
       SELECT i AS institution_id, sum(d.sign)::int AS papers,
              sum(d.sign * coalesce(d.cited_by_count, 0))::bigint AS citations,
              min(d.published) FILTER (WHERE d.sign > 0) AS added_first,
              max(d.published) FILTER (WHERE d.sign > 0) AS added_last
       FROM _metrics_delta d CROSS JOIN LATERAL unnest(d.institution_ids) AS i
       GROUP BY 1""",
    """INSERT INTO wove.institution_metrics AS m (institution_id, papers, researchers, citations, first_published,
                                                 last_published, computed_at)
       SELECT institution_id, papers, 0, citations, added_first, added_last, now() FROM _metrics_ip
       ON CONFLICT (institution_id) DO UPDATE SET
           papers = m.papers + excluded.papers, citations = m.citations + excluded.citations,
           first_published = least(m.first_published, excluded.first_published),
           last_published = greatest(m.last_published, excluded.last_published), computed_at = now()""",
    # a paper that left an institution and held its first or last day: that day is re-read
    """WITH removed AS (
           SELECT i AS institution_id, d.published FROM _metrics_delta d CROSS JOIN LATERAL unnest(d.institution_ids) i
           WHERE d.sign < 0 AND d.published IS NOT NULL
           EXCEPT ALL
           SELECT i, d.published FROM _metrics_delta d CROSS JOIN LATERAL unnest(d.institution_ids) i
           WHERE d.sign > 0 AND d.published IS NOT NULL
       ),
       stale AS (
           SELECT DISTINCT m.institution_id FROM removed r JOIN wove.institution_metrics m USING (institution_id)
           WHERE r.published <= m.first_published OR r.published >= m.last_published
       )
       UPDATE wove.institution_metrics m SET first_published = x.first_published, last_published = x.last_published
       FROM stale CROSS JOIN LATERAL (
           SELECT min(s.published) AS first_published, max(s.published) AS last_published
           FROM wove.metrics_paper_state s WHERE s.institution_ids @> ARRAY[stale.institution_id]
       ) x
       WHERE m.institution_id = stale.institution_id""",
    """UPDATE wove.institution_metrics m SET researchers = (
           SELECT count(*) FROM wove.metrics_institution_researchers t WHERE t.institution_id = m.institution_id)
       WHERE m.institution_id IN (SELECT DISTINCT institution_id FROM _metrics_ir)""",
    """DELETE FROM wove.institution_metrics m USING _metrics_ip d
       WHERE d.papers < 0 AND m.institution_id = d.institution_id AND m.papers = 0""",
]


# Researchers whose papers changed only in citation count: their archive figures alone,
# over the same (researcher, paper) rows as RESEARCHER_METRICS_SQL.
ARCHIVE_CITATIONS_SQL = """
WITH rp AS (               -- one row per (researcher, paper), as in the full recompute
    SELECT DISTINCT rm.researcher_id, rm.arxiv_id
    FROM unnest(%(ids)s::bigint[]) AS r(id) JOIN wove.researcher_mentions rm ON rm.researcher_id = r.id
),
c AS (
    SELECT rp.researcher_id, ps.cited_by_count, ps.cited_as_of,
           row_number() OVER (PARTITION BY rp.researcher_id
                              ORDER BY coalesce(ps.cited_by_count, 0) DESC, rp.arxiv_id) AS cite_rank
    FROM rp JOIN wove.metrics_paper_state ps ON ps.arxiv_id = rp.arxiv_id
),
agg AS (
    SELECT researcher_id,
           count(*) FILTER (WHERE coalesce(cited_by_count, 0) >= cite_rank)::int AS h_index,
           coalesce(sum(cited_by_count), 0)::int AS citations,
           count(cited_by_count)::int AS cited_papers,
           max(cited_as_of) AS as_of
    FROM c GROUP BY researcher_id
)
UPDATE wove.researcher_metrics m
SET archive_h_index = agg.h_index, archive_citations = agg.citations, archive_cited_papers = agg.cited_papers,
    archive_as_of = agg.as_of, computed_at = now()
FROM agg WHERE m.researcher_id = agg.researcher_id
"""


# ---------------------------------------------------------------------------------------
# what changed since the last run

# Researchers (of the logged ids) whose row is gone or whose identity (names, upstream ids) moved.
IDENTITY_CHANGED_SQL = f"""
        SELECT t.id FROM unnest(%s::bigint[]) AS t(id)
        LEFT JOIN wove.researchers r ON r.researcher_id = t.id
        LEFT JOIN wove.metrics_researcher_state s ON s.researcher_id = t.id
        WHERE r.researcher_id IS NULL OR s.fingerprint IS DISTINCT FROM {RESEARCHER_FP}"""

# Per source: the logged author ids whose record's fingerprint moved (or that are gone).
AUTHOR_CHANGED_SQL = {source: f"""
            SELECT x.id FROM unnest(%(ids)s::text[]) AS x(id)
            LEFT JOIN {table} t ON t.author_id = x.id
            LEFT JOIN wove.metrics_author_state s ON s.source = %(source)s AND s.author_id = x.id
            WHERE s.fingerprint IS DISTINCT FROM {fp}
        """ for source, (table, fp) in AUTHOR_FP.items()}

# The researchers linked to changed author records (%(s2)s, %(oa)s; OpenAlex redirects followed):
# through their authorships and through the ids on their researcher row.
AUTHOR_RESEARCHERS_SQL = """
            WITH s2 AS (SELECT DISTINCT unnest(%(s2)s::text[]) AS id),
                 oa AS (SELECT DISTINCT unnest(%(oa)s::text[]) AS id
                        UNION SELECT old_author_id FROM wove.openalex_author_redirects
                              WHERE new_author_id = ANY(%(oa)s::text[]))
            SELECT rm.researcher_id FROM s2 JOIN wove.authorships a ON a.s2_author_id = s2.id
            JOIN wove.researcher_mentions rm ON rm.arxiv_id = a.arxiv_id AND rm.position = a.position
            UNION
            SELECT rm.researcher_id FROM oa JOIN wove.authorships a ON a.openalex_author_id = oa.id
            JOIN wove.researcher_mentions rm ON rm.arxiv_id = a.arxiv_id AND rm.position = a.position
            UNION  -- id by id through the GIN indexes (migration 0024; OFFSET 0: never one scan of all)
            SELECT r.researcher_id FROM s2, LATERAL (SELECT researcher_id FROM wove.researchers
                                                     WHERE s2_author_ids @> ARRAY[s2.id] OFFSET 0) r
            UNION
            SELECT r.researcher_id FROM oa, LATERAL (SELECT researcher_id FROM wove.researchers
                                                     WHERE openalex_author_ids @> ARRAY[oa.id] OFFSET 0) r
        """
