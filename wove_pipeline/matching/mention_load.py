"""Author positions out of the database as Mentions, with their evidence (``load_mentions``):
what every matching path reads (researchers, profile_run, rematch)."""

from __future__ import annotations

import hashlib
from collections import defaultdict

import numpy as np
import psycopg

from wove_pipeline.database import access as db

from .match_state import evidence_part, mention_id
from .mentions import EMBEDDING_MODEL, MAX_COAUTHOR_AUTHORS, Mention, coauthor_fields, normalize_orcid
from .names import make_name
from .scoring import TEXT_TERMS_VERSION, text_term_counts

# Author positions, and their papers' fields once per paper (a paper's title and abstract
# on every position's row were most of what a large load transferred).
POSITIONS_FROM = """
SELECT pa.arxiv_id, pa.position, pa.keyname, pa.forenames, pa.suffix, pa.affiliations,
       au.s2_author_id, au.s2_confidence, au.openalex_author_id, au.openalex_confidence,
       au.orcid, au.institution_ids, au.raw_affiliations
FROM wove.paper_authors pa
LEFT JOIN wove.authorships au USING (arxiv_id, position)
"""
MENTIONS_SQL = POSITIONS_FROM + """{where}
ORDER BY pa.arxiv_id, pa.position
"""
# Chosen positions (of collaboration papers), each looked up by its key. Written as a join (an
# IN over the pairs) the planner hashed the pairs against a scan of every position: 80,343
# positions out of 1,128,331 took 0.85 s at 100,000 papers, a scan that grows with the archive.
# LIMIT 1 (one row a key) keeps the lookup a subquery of its own, probed once per pair.
WANTED_POSITIONS_SQL = """
SELECT x.* FROM unnest(%(papers)s::text[], %(positions)s::int[]) w (arxiv_id, position),
LATERAL (""" + POSITIONS_FROM + """ WHERE pa.arxiv_id = w.arxiv_id AND pa.position = w.position LIMIT 1) x
"""
# A paper's author count is its last position + 1 (positions are 0..n-1: the papers' check
# paper_authors_positions_contiguous): one index entry a paper, not every position of a
# 3,000-author collaboration (counting them took 1.5 s of the day after 1,000,000 papers).
AUTHOR_COUNTS_SQL = """
SELECT a, n FROM unnest(%(ids)s::text[]) a,
LATERAL (SELECT max(pa.position) + 1 AS n FROM wove.paper_authors pa WHERE pa.arxiv_id = a) x
WHERE n IS NOT NULL
"""
# A paper whose text was counted before (papers.content_hash: the same title and abstract)
# comes with its kept term counts instead of its text, and with its sentence vector where
# the embedding stage made one of this text with the model the pair model was trained on
# (pgvector's binary form: a fraction of the text form's bytes, no float parsing).
MENTION_PAPERS_SQL = """
SELECT p.arxiv_id, p.published, p.categories, p.journal_ref, p.content_hash, t.terms,
       CASE WHEN t.terms IS NULL THEN p.title END, CASE WHEN t.terms IS NULL THEN p.abstract END,
       {vector}
FROM wove.papers p
LEFT JOIN wove.matching_text_terms t
       ON t.arxiv_id = p.arxiv_id AND t.content_hash = p.content_hash AND t.version = %(version)s
{join}
{where}
"""
VECTOR_JOIN = """LEFT JOIN wove.paper_embeddings e
       ON e.arxiv_id = p.arxiv_id AND e.content_hash = p.content_hash AND e.model = %(model)s"""


def _papers_sql(where: str, vectors: bool) -> str:
    return MENTION_PAPERS_SQL.format(where=where, vector="vector_send(e.embedding)" if vectors else "NULL::bytea",
                                     join=VECTOR_JOIN if vectors else "")


def unpack_vector(raw: bytes | None) -> np.ndarray | None:
    """pgvector's binary form (int16 dimensions, int16 unused, big-endian float4s), kept as
    float16: a day's load holds the vectors of hundreds of thousands of papers, and a cosine
    needs no more precision."""
    if raw is None:
        return None
    return np.frombuffer(raw, dtype=">f4", offset=4).astype(np.float16)

# An aligned upstream id below this confidence is not used as evidence.
MIN_ALIGNMENT_CONFIDENCE = 0.5


def load_mentions(conn: psycopg.Connection, arxiv_ids: list[str] | None = None, *,
                  hash_evidence: bool = True, only: set[tuple[str, int]] | None = None,
                  vectors: bool = True, readers: db.SnapshotReaders | None = None
                  ) -> tuple[list[Mention], dict[str, str | None]]:
    """Every author position (of these papers; of them, the ``only`` (arxiv_id, position)
    pairs) as a Mention, and a hash of each paper's author evidence (None for every paper
    with ``hash_evidence=False``: papers whose input fingerprint says their evidence did
    not move). Co-author keys always come from every position of the paper. ``vectors=False``
    leaves the papers' sentence vectors out (a pass that only counts). ``readers``: the reads
    by paper split among them (db.SnapshotReaders); text terms counted now are written on
    ``conn``."""
    if only is not None and hash_evidence:
        raise ValueError("a paper's evidence hash reads all its positions: `only` needs hash_evidence=False")
    # plain tuples in the queries' column order: a dict per row was a tenth of a day's matching
    sizes: dict[str, int] | None = None  # a paper's author count where not every row is read
    if arxiv_ids is None:
        rows = conn.execute(MENTIONS_SQL.format(where="")).fetchall()
        papers = conn.execute(_papers_sql("", vectors), {"version": TEXT_TERMS_VERSION, "model": EMBEDDING_MODEL}).fetchall()
    else:
        ids = list(arxiv_ids)
        whole, wanted = ids, []
        if only is not None:
            # a giant collaboration's positions give each other no co-author keys: of its 3,000
            # rows only the wanted ones are read (a representative there read every row)
            sizes = dict(db.fetch_keys(conn, AUTHOR_COUNTS_SQL, {"ids": ids}, ("ids",), readers))
            whole = [a for a in ids if sizes.get(a, 0) <= MAX_COAUTHOR_AUTHORS]
            wanted = sorted((a, p) for a, p in only if sizes.get(a, 0) > MAX_COAUTHOR_AUTHORS)
        rows = db.fetch_keys(conn, MENTIONS_SQL.format(where="WHERE pa.arxiv_id = ANY(%(ids)s)"), {"ids": whole},
                             ("ids",), readers)
        if wanted:
            rows += db.fetch_keys(conn, WANTED_POSITIONS_SQL, {"papers": [a for a, _ in wanted],
                                                               "positions": [p for _, p in wanted]},
                                  ("papers", "positions"), readers)
        if wanted or readers is not None:
            rows.sort(key=lambda r: (r[0], r[1]))
        papers = db.fetch_keys(conn, _papers_sql("WHERE p.arxiv_id = ANY(%(ids)s)", vectors),
                               {"ids": ids, "version": TEXT_TERMS_VERSION, "model": EMBEDDING_MODEL}, ("ids",), readers)
    paper_fields = _with_text_terms(conn, papers)
    by_paper: dict[str, list[tuple]] = defaultdict(list)
    for row in rows:
        by_paper[row[0]].append(row)
    mentions: list[Mention] = []
    evidence_hash: dict[str, str | None] = {}
    for arxiv_id, paper_rows in by_paper.items():
        if arxiv_id not in paper_fields:
            continue  # positions of a paper that is gone (the inner join of one query did this)
        published, categories, journal_ref, text_terms, vector = paper_fields[arxiv_id]
        categories = list(categories or [])
        n_authors = sizes[arxiv_id] if sizes is not None else len(paper_rows)
        big = n_authors > MAX_COAUTHOR_AUTHORS  # giant collaborations carry no per-person co-author signal
        author_names = [] if big else [make_name(r[3], None, r[2]) for r in paper_rows]
        digest = hashlib.sha256()
        for k, (_, position, keyname, forenames, suffix, affiliations, s2_author_id, s2_confidence,
                openalex_author_id, openalex_confidence, orcid, institution_ids,
                raw_affiliations) in enumerate(paper_rows):
            if only is not None and (arxiv_id, position) not in only:
                continue
            s2_ok = (s2_confidence or 0) >= MIN_ALIGNMENT_CONFIDENCE
            oa_ok = (openalex_confidence or 0) >= MIN_ALIGNMENT_CONFIDENCE
            confidences = [c for c, ok in ((s2_confidence, s2_ok), (openalex_confidence, oa_ok)) if ok]
            m = Mention(
                mention_id=mention_id(arxiv_id, position),
                paper_id=arxiv_id,
                position=position,
                first=forenames,
                last=keyname,
                suffix=suffix,
                affiliations=list(affiliations or []) or list(raw_affiliations or []),
                s2_author_id=s2_author_id if s2_ok else None,
                openalex_author_id=openalex_author_id if oa_ok else None,
                orcid=normalize_orcid(orcid) if oa_ok else None,
                institution_ids=list(institution_ids or []) if oa_ok else [],
                **coauthor_fields(author_names, k),
                categories=list(categories),
                text_terms=text_terms,  # the text itself is not needed once counted
                embedding=vector,
                year=published.year if published else None,
                published=published,
                venue=journal_ref,
                n_authors=n_authors,
                alignment_confidence=min(confidences) if confidences else None,
            )
            mentions.append(m)
            if hash_evidence:
                digest.update(evidence_part(m))
        evidence_hash[arxiv_id] = digest.hexdigest() if hash_evidence else None
    return mentions, evidence_hash


def _with_text_terms(conn: psycopg.Connection, papers: list[tuple]) -> dict[str, tuple]:
    """arxiv_id -> (published, categories, journal_ref, text_terms, vector): the kept term
    counts, and for texts not counted before (new papers, changed titles or abstracts) counts
    made now and kept (in the run's transaction)."""
    fresh = [(arxiv_id, content_hash, f"{title}\n{abstract or ''}")
             for arxiv_id, _, _, _, content_hash, terms, title, abstract, _ in papers if terms is None]
    counted = text_term_counts([text for _, _, text in fresh])
    if fresh:
        db.upsert_rows(conn, "wove.matching_text_terms", ("arxiv_id", "content_hash", "version", "terms"),
                       ((a, h, TEXT_TERMS_VERSION, t) for (a, h, _), t in zip(fresh, counted)), key=("arxiv_id",))
    made = {arxiv_id: terms for (arxiv_id, _, _), terms in zip(fresh, counted)}
    return {arxiv_id: (published, categories, journal_ref, made[arxiv_id] if terms is None else terms,
                       unpack_vector(vector))
            for arxiv_id, published, categories, journal_ref, _, terms, _, _, vector in papers}
