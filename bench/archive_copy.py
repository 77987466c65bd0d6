"""Grow a small archive, built the normal way, to N papers by bulk copies of its rows
(bench/bench_day_after.py; issue 22 allows an archive loaded by COPY instead of a year of
daily runs).

The base archive is what the daily assets and one publish wrote for a sandbox world. Copy
``k`` (1..K) of it is every row of the tables the daily pipeline and the publish read, with
new keys and the same contents otherwise:

- arXiv ids ``0c<k>.<id>`` (slugs ``<slug>-c<k>``, DOIs ``<doi>.c<k>``), upstream ids (S2 and
  OpenAlex author, paper and work ids, ORCIDs) ``<id>-c<k>``, S2 corpus ids + k * 10^10,
  researcher ids + k * 10^7; ids inside JSON (S2 author lists, OpenAlex authorships, the
  profiles' id counts, representatives and identifying tokens) likewise;
- dates (OAI datestamps, publication times, enrichment attempts, upstream as-of days) moved
  back by ``61 + k * span`` days: each copy is an older stretch of the archive, outside the
  enrichment look-back (60 days) of the day run on top, as an old archive's papers are; and
  its arXiv ids sort before the base's, as an older paper's id does (arXiv numbers papers by
  month): the look-back's papers are the last stretch of every index on arXiv ids, not one
  paper in every K + 1 (until 2026-12-07 a copy's ids were ``<id>.c<k>``, each right after its
  base paper's);
- names, affiliations, categories, texts, profiles' name forms, co-author blocks and centroids
  as in the base: a name's block holds K + 1 times the base's mentions and researchers (the
  real archive's "Y. Wang" has tens of thousands of mentions). With ``people="other"`` the
  names, affiliations, institutions (rows of wove.institutions too) and texts' term counts are
  a copy's own (bench/archive_people.py).

Copied in SQL (``INSERT ... SELECT`` over ``generate_series``, in the server, triggers and
foreign-key checks off with ``session_replication_role = replica``, the secondary indexes
dropped and rebuilt around the copy), so nothing is logged as changed: the next publish sees
only the day. Then what is derived from the copied rows is computed as a full run would:
each copied paper's matching input fingerprint (``match_state`` SQL), every metric
(``metrics.compute.recompute_all``) and a full serving publish, and VACUUM ANALYZE.

Not copied (the day and the publish do not read them): citation_snapshots and refresh_state
(the citation refresh job's), harvests, api_usage, redirects and id events (history),
paper_embeddings (none in the bench). A copied link's evidence JSON is empty and its paper's
stored evidence hash (matching_state.content) is its base paper's: were a copied paper's
inputs to change, it would be re-decided (extra work, not a wrong link).
"""

from __future__ import annotations

import time

import psycopg
from psycopg import sql

RID_STRIDE = 10_000_000
CORPUS_STRIDE = 10_000_000_000
LOOKBACK_GAP_DAYS = 61

# a copy's arXiv ids: 0c<k>.<id>, older than the base's (and found by COPY_AX)
COPY_ID_PREFIX = "('0c' || g.k || '.')"
COPY_AX = "'^0c[0-9]+[.]'"
_AX = f"({COPY_ID_PREFIX} || t.{{c}})"                # an arXiv id
_UP = "(t.{c} || '-c' || g.k)"                      # an upstream id (NULL stays NULL)
_UPS = "(SELECT coalesce(array_agg(x || '-c' || g.k ORDER BY o), '{}') FROM unnest(t.{c}) WITH ORDINALITY u(x, o))"
_DAY = "(t.{c} - (%(gap)s + g.k * %(span)s))"       # a date
_TS = "(t.{c} - make_interval(days => %(gap)s + g.k * %(span)s))"
_RID = "(t.{c} + g.k * %(stride)s::bigint)"

# per table: the base rows' filter and the columns that change (others are copied as they are)
_BASE_AX = f"t.arxiv_id !~ {COPY_AX}"
_BASE_UP = "t.author_id !~ '-c[0-9]+$'"
_BASE_RID = "t.researcher_id < %(stride)s"


def _json_ids(col: str, keys: tuple[str, ...]) -> str:
    """A JSON array of objects with these id keys suffixed (order kept)."""
    expr = "e"
    for key in keys:
        expr = (f"CASE WHEN jsonb_typeof({expr} -> '{key}') = 'string' THEN "
                f"jsonb_set({expr}, '{{{key}}}', to_jsonb(({expr} ->> '{key}') || '-c' || g.k)) ELSE {expr} END")
    return (f"(SELECT coalesce(jsonb_agg({expr} ORDER BY o), '[]'::jsonb) "
            f"FROM jsonb_array_elements(t.{col}) WITH ORDINALITY x(e, o))")


def _id_counts() -> str:
    each = ("(SELECT coalesce(jsonb_object_agg(key || '-c' || g.k, value), '{{}}'::jsonb)"
            " FROM jsonb_each(coalesce(t.id_counts -> '{part}', '{{}}'::jsonb)))")
    side = "CASE WHEN split_part(key, '|', {n}) = '' THEN '' ELSE split_part(key, '|', {n}) || '-c' || g.k END"
    pairs = (f"(SELECT coalesce(jsonb_object_agg({side.format(n=1)} || '|' || {side.format(n=2)}, value), '{{}}'::jsonb)"
             " FROM jsonb_each(coalesce(t.id_counts -> 'pairs', '{}'::jsonb)))")
    return (f"jsonb_build_object('s2', {each.format(part='s2')}, 'openalex', {each.format(part='openalex')},"
            f" 'orcid', {each.format(part='orcid')}, 'pairs', {pairs})")


# a profile's identifying tokens ("<block>|<kind>:<value>"): the upstream ids (s:, o:, r:) suffixed
_TOKENS = ("(SELECT coalesce(array_agg(CASE WHEN x ~ '^[^|]*[|][sor]:' THEN x || '-c' || g.k ELSE x END ORDER BY o),"
           " '{}') FROM unnest(t.match_tokens) WITH ORDINALITY u(x, o))")
_REPS = (f"(SELECT coalesce(jsonb_agg(jsonb_set(e, '{{0}}', to_jsonb({COPY_ID_PREFIX} || (e ->> 0))) ORDER BY o),"
         " '[]'::jsonb) FROM jsonb_array_elements(t.representatives) WITH ORDINALITY x(e, o))")

TABLES: dict[str, tuple[str, dict[str, str]]] = {
    "papers": (_BASE_AX, {"arxiv_id": _AX, "slug": "(t.slug || '-c' || g.k)",
                          "dois": "(SELECT coalesce(array_agg(x || '.c' || g.k ORDER BY o), '{}') FROM unnest(t.dois) WITH ORDINALITY u(x, o))",
                          "published": _TS, "updated": _TS, "oai_datestamp": _DAY}),
    "paper_authors": (_BASE_AX, {"arxiv_id": _AX}),
    "s2_papers": (_BASE_AX, {"arxiv_id": _AX, "paper_id": _UP, "corpus_id": "(t.corpus_id + g.k * %(corpus)s::bigint)",
                             "doi": "(t.doi || '.c' || g.k)", "authors": _json_ids("authors", ("author_id",)),
                             "as_of": _DAY, "fetched_at": _TS}),
    "openalex_works": (_BASE_AX, {"arxiv_id": _AX, "work_id": _UP, "doi": "(t.doi || '.c' || g.k)",
                                  "authorships": _json_ids("authorships", ("author_id", "orcid")),
                                  "as_of": _DAY, "fetched_at": _TS}),
    "s2_authors": (_BASE_UP, {"author_id": _UP, "orcid": _UP, "as_of": _DAY, "fetched_at": _TS}),
    "openalex_authors": (_BASE_UP, {"author_id": _UP, "orcid": _UP, "as_of": _DAY, "fetched_at": _TS}),
    "authorships": (_BASE_AX, {"arxiv_id": _AX, "s2_author_id": _UP, "openalex_author_id": _UP, "orcid": _UP}),
    "enrichment_attempts": (_BASE_AX, {"arxiv_id": _AX, "first_attempt": _DAY, "last_attempt": _DAY, "found_at": _DAY,
                                       "first_attempt_at": _TS, "last_attempt_at": _TS}),
    "researchers": (_BASE_RID, {"researcher_id": _RID, "orcid": _UP, "s2_author_ids": _UPS,
                                "openalex_author_ids": _UPS}),
    "researcher_mentions": (_BASE_AX, {"arxiv_id": _AX, "researcher_id": _RID, "evidence": "'{}'::jsonb"}),
    "researcher_profiles": (_BASE_RID, {"researcher_id": _RID, "s2_author_ids": _UPS, "openalex_author_ids": _UPS,
                                        "orcids": _UPS, "id_counts": _id_counts(), "representatives": _REPS,
                                        "match_tokens": _TOKENS}),
    "matching_state": (_BASE_AX, {"arxiv_id": _AX}),
    "matching_text_terms": (_BASE_AX, {"arxiv_id": _AX}),
}

# the matching input fingerprint of the copied papers (match_state._FINGERPRINT over its parts)
_INPUTS_SQL = """
UPDATE wove.matching_state ms SET inputs = fp.inputs
FROM (
    SELECT p.arxiv_id, md5(concat_ws('#', array_to_string(p.categories, ','), pa.names, au.aligned)) AS inputs
    FROM wove.papers p
    LEFT JOIN (SELECT pa.arxiv_id, {names} AS names FROM wove.paper_authors pa
               WHERE pa.arxiv_id ~ {copy} GROUP BY pa.arxiv_id) pa USING (arxiv_id)
    LEFT JOIN (SELECT arxiv_id, {aligned} AS aligned FROM wove.authorships
               WHERE arxiv_id ~ {copy} GROUP BY arxiv_id) au USING (arxiv_id)
    WHERE p.arxiv_id ~ {copy}
) fp
WHERE ms.arxiv_id = fp.arxiv_id
"""


def _columns(conn: psycopg.Connection, table: str) -> list[str]:
    return [r[0] for r in conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'wove' AND table_name = %s"
        " AND is_generated = 'NEVER' ORDER BY ordinal_position", (table,))]


def _secondary_indexes(conn: psycopg.Connection, table: str) -> list[tuple[str, str]]:
    """(name, definition) of the table's indexes that back no constraint."""
    return conn.execute(
        "SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid"
        " WHERE x.indrelid = %s::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.oid)",
        (f"wove.{table}",)).fetchall()


def insert_sql(conn: psycopg.Connection, table: str, people: str = "twins") -> sql.Composed:
    base, changed = TABLES[table]
    if people == "other":
        from bench.archive_people import RENAMED

        changed = {**changed, **RENAMED.get(table, {})}
    cols = _columns(conn, table)
    exprs = [sql.SQL(changed[c].replace("{c}", c)) if c in changed else sql.SQL("t.") + sql.Identifier(c) for c in cols]
    return sql.SQL("INSERT INTO wove.{t} ({cols}) SELECT {exprs} FROM wove.{t} t"
                   " CROSS JOIN generate_series(%(k0)s::int, %(k1)s::int) AS g(k) WHERE " + base).format(
        t=sql.Identifier(table), cols=sql.SQL(", ").join(map(sql.Identifier, cols)), exprs=sql.SQL(", ").join(exprs))


def base_span_days(conn: psycopg.Connection) -> int:
    lo, hi = conn.execute("SELECT min(oai_datestamp), max(oai_datestamp) FROM wove.papers").fetchone()
    return (hi - lo).days + 1


def grow(conn: psycopg.Connection, copies: int, *, people: str = "twins", seed: int = 7, chunk: int = 8,
         log=print) -> dict[str, float]:
    """Add ``copies`` shifted copies of the base archive's rows (autocommit connection; one
    transaction per table and chunk of copies). ``people``: "twins" keeps every name as in
    the base, "other" renames each copy's people (bench/archive_people.py). Returns seconds
    per phase."""
    from bench import archive_people
    from wove_pipeline.matching import match_state

    seconds: dict[str, float] = {}
    if copies <= 0:
        return seconds
    if people == "other":
        t0 = time.perf_counter()
        archive_people.build_name_maps(conn, copies, seed, log=log)
        salts = archive_people.vocabulary_salts(copies, seed)
        seconds["name_maps"] = time.perf_counter() - t0
    params = {"gap": LOOKBACK_GAP_DAYS, "span": base_span_days(conn), "stride": RID_STRIDE, "corpus": CORPUS_STRIDE}
    conn.execute("SET session_replication_role = replica")  # no triggers (change logs), no FK checks
    conn.execute("SET synchronous_commit = off")
    conn.execute("SET maintenance_work_mem = '512MB'")
    for table in TABLES:
        t0 = time.perf_counter()
        indexes = _secondary_indexes(conn, table)
        for name, _ in indexes:
            conn.execute(sql.SQL("DROP INDEX wove.{}").format(sql.Identifier(name)))
        stmt = insert_sql(conn, table, people)
        texts = archive_people.base_texts(conn, table) if people == "other" and table in archive_people.SALTED_TEXTS \
            else None
        for k0 in range(1, copies + 1, chunk):
            k1 = min(copies, k0 + chunk - 1)
            if texts is not None:
                archive_people.stage_texts(conn, table, texts, k0, k1, salts)
            conn.execute(stmt, {**params, "k0": k0, "k1": k1})
        for _, definition in indexes:
            conn.execute(definition)
        seconds[table] = time.perf_counter() - t0
        log(f"  copied {table} x{copies} in {seconds[table]:.0f} s")
    if people == "other":  # the copies' own institutions (their authorships' ids)
        t0 = time.perf_counter()
        conn.execute(archive_people.INSTITUTIONS_SQL, {"words": archive_people.copy_words(copies, seed)})
        seconds["institutions"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    conn.execute(sql.SQL(_INPUTS_SQL.format(names=match_state._NAMES, aligned=match_state._ALIGNED, copy=COPY_AX)))
    seconds["matching_inputs"] = time.perf_counter() - t0
    conn.execute("SELECT setval('wove.researcher_id_seq', greatest((SELECT max(researcher_id) FROM wove.researchers)"
                 " + 1, nextval('wove.researcher_id_seq')), false)")
    conn.execute("SET session_replication_role = origin")
    archive_people.drop_name_maps(conn)
    t0 = time.perf_counter()
    rebuild_profile_keys(conn)
    conn.execute("SELECT wove.recount_rows()")  # the counts the triggers keep (migration 0031), off during the copies
    seconds["profile_keys"] = time.perf_counter() - t0
    return seconds


def rebuild_profile_keys(conn: psycopg.Connection) -> None:
    """wove.profile_keys from every profile (migration 0022's statement triggers keep it, but
    the copies are written with triggers off; a profile's keys: migration 0033)."""
    with conn.transaction():
        conn.execute("TRUNCATE wove.profile_keys")
        conn.execute("INSERT INTO wove.profile_keys (key, researcher_id) SELECT DISTINCT k, p.researcher_id"
                     " FROM wove.researcher_profiles p,"
                     " unnest(wove.profile_keys_of(p.blocks, p.match_tokens, p.orcids, p.id_counts)) k")


def derive(conn: psycopg.Connection, log=print) -> dict[str, float]:
    """What a full run computes from the copied rows: every metric, a full serving publish,
    then VACUUM ANALYZE (autocommit connection)."""
    from wove_pipeline.metrics.compute import recompute_all
    from wove_pipeline.serving.publish import publish

    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    with conn.transaction():
        recompute_all(conn)
    seconds["metrics_full"] = time.perf_counter() - t0
    log(f"  metrics (full) in {seconds['metrics_full']:.0f} s")
    t0 = time.perf_counter()
    publish(conn, full=True)
    seconds["serving_full"] = time.perf_counter() - t0
    log(f"  serving (full publish) in {seconds['serving_full']:.0f} s")
    t0 = time.perf_counter()
    conn.execute("VACUUM ANALYZE")
    seconds["vacuum_analyze"] = time.perf_counter() - t0
    log(f"  vacuum analyze in {seconds['vacuum_analyze']:.0f} s")
    return seconds
