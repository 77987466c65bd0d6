"""Search for consumers and the CLI, Dagster-free.

Papers: the query is embedded with the same model as the papers, then
serving.search_papers fuses full-text and vector ranks (reciprocal rank fusion). Related
papers: serving.related_papers. Researchers and institutions: trigram similarity over
serving.researchers / serving.institutions, which later stages create; until they exist
these answer with a clear SearchUnavailable instead of an SQL error.

Every value travels as a query parameter; the only SQL text built here is fixed.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import psycopg

from wove_pipeline.database import access as db
from wove_pipeline.search.embedding import Embedder, vector_literal

MAX_QUERY_CHARS = 500
MAX_LIMIT = 200
# Chosen with bench/bench_hnsw.py (m=24, ef_construction=96): recall@24 0.984 on 100k vectors at
# p95 0.076x the exact scan. search_papers wants >= 100 candidates; pgvector's iterative
# scan (hnsw.iterative_scan, set on the SQL functions) goes past ef_search to get them.
EF_SEARCH = 64
NAME_SIMILARITY_THRESHOLD = 0.2
# The relevance floor of the site's paper search (`wove serve`): vector hits below this cosine
# similarity to the query are dropped (lexical and title hits stay), so a nonsense query finds
# nothing instead of 24 weak neighbours. Measured on the sandbox world with the default model
# (bench/bench_relevance_floor.py, bench/RESULTS.md "Relevance floor").
RELEVANCE_FLOOR = 0.3
_CATEGORY = re.compile(r"^[A-Za-z][A-Za-z0-9.\-]{0,31}$")
_ARXIV_ID = re.compile(r"^(\d{4}\.\d{4,5}|[a-z][a-z\-]*(\.[A-Z]{2})?/\d{7})(v\d+)?$")


class SearchInputError(ValueError):
    """The query or a filter is not acceptable (empty, too long, malformed)."""


class SearchUnavailable(RuntimeError):
    """What this search reads does not exist yet (e.g. researchers before matching ran)."""


@dataclass(frozen=True)
class PaperHit:
    arxiv_id: str
    title: str
    score: float
    lexical_rank: int | None
    vector_rank: int | None
    title_rank: int | None
    primary_category: str
    published: dt.datetime
    similarity: float | None = None  # cosine to the query vector, when it was a vector candidate


@dataclass(frozen=True)
class RelatedHit:
    arxiv_id: str
    title: str
    similarity: float
    primary_category: str
    published: dt.datetime


@dataclass(frozen=True)
class NameHit:
    id: object
    display_name: str
    similarity: float
    extra: str | None = None  # e.g. the ROR id of an institution


def clean_query(query: object) -> str:
    """Normalize a free-text query; reject what cannot be searched with a clear message."""
    if not isinstance(query, str):
        raise SearchInputError("the query must be text")
    text = unicodedata.normalize("NFC", query)
    # PostgreSQL text cannot hold NUL; other control characters carry no meaning here.
    text = "".join(" " if unicodedata.category(c) in ("Cc", "Cs") else c for c in text)
    text = " ".join(text.split())
    if not text:
        raise SearchInputError("the query is empty")
    if len(text) > MAX_QUERY_CHARS:
        raise SearchInputError(f"the query is too long ({len(text)} characters, at most {MAX_QUERY_CHARS})")
    return text


def _check_limit(limit: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise SearchInputError(f"limit must be an integer between 1 and {MAX_LIMIT}")
    return limit


def _check_categories(categories: Sequence[str] | None) -> list[str] | None:
    if not categories:
        return None
    out = []
    for c in categories:
        if not isinstance(c, str) or not _CATEGORY.match(c):
            raise SearchInputError(f"not an arXiv category: {c!r}")
        out.append(c)
    return out


def _check_arxiv_id(arxiv_id: str) -> str:
    arxiv_id = (arxiv_id or "").strip()
    if not _ARXIV_ID.match(arxiv_id):
        raise SearchInputError(f"not an arXiv id: {arxiv_id!r}")
    return re.sub(r"v\d+$", "", arxiv_id)


def search_papers(
    conn: psycopg.Connection,
    embedder: Embedder | None,
    query: str,
    *,
    categories: Sequence[str] | None = None,
    published_from: dt.date | None = None,
    published_until: dt.date | None = None,
    limit: int = 24,
    ef_search: int = EF_SEARCH,
    min_similarity: float | None = None,
) -> list[PaperHit]:
    """Hybrid search (full text + vectors, RRF). With `embedder=None`, full text alone.
    ``min_similarity``: the relevance floor (vector hits below it are dropped; e.g.
    RELEVANCE_FLOOR); None keeps every vector candidate."""
    text = clean_query(query)
    limit = _check_limit(limit)
    if min_similarity is not None and not -1.0 <= float(min_similarity) <= 1.0:
        raise SearchInputError("min_similarity must be between -1 and 1")
    cats = _check_categories(categories)
    if published_from and published_until and published_from > published_until:
        raise SearchInputError("the 'from' date is after the 'until' date")
    vector = None
    model = None
    if embedder is not None:
        vector = vector_literal(embedder.encode([text])[0])
        model = embedder.config.name
    with conn.transaction():
        conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(int(ef_search)),))
        rows = conn.execute(
            "SELECT arxiv_id, title, score, lexical_rank, vector_rank, title_rank, primary_category, published, "
            "similarity FROM serving.search_papers(%s, %s::vector, %s::text[], %s::date, %s::date, %s, %s, "
            "%s::double precision)",
            (text, vector, cats, published_from, published_until, limit, model, min_similarity),
        ).fetchall()
    return [PaperHit(*r) for r in rows]


def related_papers(conn: psycopg.Connection, arxiv_id: str, *, limit: int = 10, ef_search: int = EF_SEARCH) -> list[RelatedHit]:
    arxiv_id = _check_arxiv_id(arxiv_id)
    limit = _check_limit(limit)
    with conn.transaction():
        conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(int(max(ef_search, limit))),))
        rows = conn.execute(
            "SELECT arxiv_id, title, similarity, primary_category, published FROM serving.related_papers(%s, %s)",
            (arxiv_id, limit),
        ).fetchall()
    return [RelatedHit(*r) for r in rows]


def _require_table(conn: psycopg.Connection, table: str, what: str) -> None:
    if db.fetch_value(conn, "SELECT to_regclass(%s)", (table,)) is None:
        raise SearchUnavailable(
            f"{what} search is not available yet: {table} does not exist "
            "(the first publish of the serving tables creates it)"
        )


_FOLDED_NAME = "public.unaccent('public.unaccent'::regdictionary, display_name)"
_FOLDED_QUERY = "public.unaccent('public.unaccent'::regdictionary, %(q)s)"


def _search_names(conn, table: str, id_column: str, extra_column: str | None, query: str, limit: int) -> list[NameHit]:
    text = clean_query(query)
    limit = _check_limit(limit)
    extra = f", {extra_column}" if extra_column else ", NULL"
    # Identifiers are constants of this module; the query and limit are parameters. Accents are
    # folded with public.unaccent itself (what wove.immutable_unaccent wraps): the read-only
    # role (`wove serve`) has no USAGE on schema wove, and no index here needs the wrapper.
    statement = (
        f"SELECT {id_column}, display_name, similarity({_FOLDED_NAME}, {_FOLDED_QUERY}) AS sim"
        f"{extra} FROM {table} "
        f"WHERE {_FOLDED_NAME} %% {_FOLDED_QUERY} "
        "ORDER BY sim DESC, display_name, 1 LIMIT %(lim)s"
    )
    with conn.transaction():
        conn.execute("SELECT set_config('pg_trgm.similarity_threshold', %s, true)", (str(NAME_SIMILARITY_THRESHOLD),))
        rows = conn.execute(statement, {"q": text, "lim": limit}).fetchall()
    return [NameHit(r[0], r[1], float(r[2]), r[3]) for r in rows]


# What tells same-named researchers apart in a list ("Yan Hu" four times at similarity 1.000):
# papers here, the main field, the latest institution, e.g. "12 papers · cs.LG · Adobe Research".
_RESEARCHER_EXTRA = (
    "concat_ws(' · ', papers_here || CASE WHEN papers_here = 1 THEN ' paper' ELSE ' papers' END, "
    "fields -> 0 ->> 'category', "
    "(SELECT x ->> 'name' FROM jsonb_array_elements(institutions) AS x "
    "ORDER BY (x ->> 'last_year')::int DESC NULLS LAST, (x ->> 'papers')::int DESC NULLS LAST LIMIT 1))"
)


def search_researchers(conn: psycopg.Connection, query: str, *, limit: int = 24) -> list[NameHit]:
    """Researchers by name (trigram similarity, accents folded) from serving.researchers;
    ``extra`` tells same-named ones apart (papers here, main field, latest institution)."""
    _require_table(conn, "serving.researchers", "researcher")
    return _search_names(conn, "serving.researchers", "researcher_id", _RESEARCHER_EXTRA, query, limit)


def search_institutions(conn: psycopg.Connection, query: str, *, limit: int = 24) -> list[NameHit]:
    """Institutions by name (trigram similarity, accents folded) from serving.institutions."""
    _require_table(conn, "serving.institutions", "institution")
    return _search_names(conn, "serving.institutions", "institution_id", "ror", query, limit)
