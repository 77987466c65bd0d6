"""The authorship alignment: each arXiv author position aligned to its S2 author and its
OpenAlex authorship (wove.authorships), from wove.paper_authors, wove.s2_papers and
wove.openalex_works; no API call.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

import psycopg

from wove_pipeline.database import access as db
from wove_pipeline.enrichment.lookback import EnrichmentSettings, window
from wove_pipeline.partitions import DayRange


def _align(arxiv_names: list[str], other_names: list[str]) -> list[tuple[int, int | None, float]]:
    from wove_pipeline.matching.alignment import align_authorships
    return align_authorships(arxiv_names, other_names)


AUTHORSHIP_COLUMNS = (
    "arxiv_id", "position", "arxiv_name", "s2_position", "s2_author_id", "s2_name", "s2_confidence",
    "openalex_position", "openalex_author_id", "openalex_name", "openalex_confidence", "orcid", "institution_ids",
    "raw_affiliations", "is_corresponding",
)


def _arxiv_name(keyname: str, forenames: str | None, suffix: str | None) -> str:
    return " ".join(x for x in (forenames, keyname, suffix) if x)


def align_papers(conn: psycopg.Connection, arxiv_ids: Sequence[str],
                 readers: db.SnapshotReaders | None = None) -> int:
    """(Re)write wove.authorships for these papers. Returns rows written. ``readers``: the
    reads by key split among them, and the author-id index pages the rows go into read by
    them first (db.SnapshotReaders.warm_indexes): a day's few thousand keys, spread over tables
    that grow with the archive."""
    if not arxiv_ids:
        return 0
    ids = list(arxiv_ids)
    rows = _aligned_rows(conn, ids, readers)
    if readers is not None:
        at = {c: AUTHORSHIP_COLUMNS.index(c) for c in ("s2_author_id", "openalex_author_id")}
        readers.warm_indexes([("wove.authorships", c, "text", [r[k] for r in rows if r[k]]) for c, k in at.items()])
    conn.execute("DELETE FROM wove.authorships WHERE arxiv_id = ANY(%s)", (ids,))
    return db.copy_rows(conn, "wove.authorships", AUTHORSHIP_COLUMNS, rows)


def _aligned_rows(conn: psycopg.Connection, ids: list[str], readers: db.SnapshotReaders | None) -> list[tuple]:
    """The authorship rows of these papers (AUTHORSHIP_COLUMNS)."""
    authors: dict[str, list[str]] = {}
    for arxiv_id, keyname, forenames, suffix in conn.execute(
        "SELECT arxiv_id, keyname, forenames, suffix FROM wove.paper_authors WHERE arxiv_id = ANY(%s)"
        " ORDER BY arxiv_id, position", (ids,)
    ):
        authors.setdefault(arxiv_id, []).append(_arxiv_name(keyname, forenames, suffix))
    s2 = dict(conn.execute("SELECT arxiv_id, authors FROM wove.s2_papers WHERE arxiv_id = ANY(%s)", (ids,)).fetchall())
    oa = dict(conn.execute("SELECT arxiv_id, authorships FROM wove.openalex_works WHERE arxiv_id = ANY(%s)",
                           (ids,)).fetchall())
    # An authorship's ORCID, else its OpenAlex profile's: OpenAlex can leave `orcid` null on
    # the profile and give it in `ids.orcid` only (the recorded 2026 author does), and the
    # dehydrated author on a work then has none either.
    oa_ids = sorted({a["author_id"] for ships in oa.values() for a in ships or () if a.get("author_id")})
    # (each author looked up by key, LIMIT 1 keeping it a lookup of its own: joined plainly, the
    # day's ten thousand authors were hashed against a scan of every OpenAlex profile)
    profile_orcid = dict(db.fetch_keys(
        conn, "SELECT o.author_id, coalesce(a.orcid, m.orcid) FROM unnest(%(ids)s::text[]) AS o(author_id)"
        " LEFT JOIN LATERAL (SELECT a.orcid FROM wove.openalex_authors a WHERE a.author_id = o.author_id LIMIT 1) a"
        " ON true LEFT JOIN wove.openalex_author_redirects r ON r.old_author_id = o.author_id"
        " LEFT JOIN wove.openalex_authors m ON m.author_id = r.new_author_id"
        " WHERE coalesce(a.orcid, m.orcid) IS NOT NULL", {"ids": oa_ids}, ("ids",), readers)) if oa_ids else {}
    rows = []
    for arxiv_id in sorted(authors):
        names = authors[arxiv_id]
        s2_list = s2.get(arxiv_id) or []
        oa_list = oa.get(arxiv_id) or []
        s2_al = _align(names, [a["name"] or "" for a in s2_list]) if s2_list else [(i, None, 0.0) for i in range(len(names))]
        oa_al = (_align(names, [a.get("raw_author_name") or a.get("display_name") or "" for a in oa_list])
                 if oa_list else [(i, None, 0.0) for i in range(len(names))])
        for (pos, s_pos, s_conf), (_p, o_pos, o_conf) in zip(s2_al, oa_al):
            s = s2_list[s_pos] if s_pos is not None else {}
            o = oa_list[o_pos] if o_pos is not None else {}
            rows.append((
                arxiv_id, pos, names[pos], s_pos, s.get("author_id"), s.get("name"), float(s_conf),
                o_pos, o.get("author_id"), o.get("raw_author_name") or o.get("display_name"), float(o_conf),
                o.get("orcid") or profile_orcid.get(o.get("author_id")), o.get("institution_ids") or [],
                o.get("raw_affiliation_strings") or [],
                bool(o.get("is_corresponding")),
            ))
    return rows


@dataclass
class AlignSummary:
    papers: int
    rows: int
    with_s2: int
    with_openalex: int
    mean_s2_confidence: float | None
    mean_openalex_confidence: float | None


def align_days(conn: psycopg.Connection, days: DayRange,
               settings: EnrichmentSettings = EnrichmentSettings()) -> AlignSummary:
    """Align the run's own papers, and papers of the look-back window whose upstream
    records are newer than their alignment (found late, or refreshed). One transaction."""
    start, end = window(days, settings)
    with conn.transaction():
        db.advisory_lock(conn, "enrich:authorships")
        ids = [r[0] for r in conn.execute(
            "SELECT p.arxiv_id FROM wove.papers p"
            " LEFT JOIN wove.s2_papers s USING (arxiv_id) LEFT JOIN wove.openalex_works w USING (arxiv_id)"
            " LEFT JOIN LATERAL (SELECT min(aligned_at) AS aligned_at FROM wove.authorships x"
            "   WHERE x.arxiv_id = p.arxiv_id) al ON true"
            # the window first (the run's days are in it): an index range, not every paper
            " WHERE p.oai_datestamp BETWEEN %s AND %s AND (p.oai_datestamp = ANY(%s)"
            "  OR ((s.arxiv_id IS NOT NULL OR w.arxiv_id IS NOT NULL)"
            "      AND (al.aligned_at IS NULL OR s.fetched_at > al.aligned_at OR w.fetched_at > al.aligned_at)))",
            (start, end, days.days))]
        with db.SnapshotReaders(conn) if ids else contextlib.nullcontext() as readers:
            n = align_papers(conn, ids, readers)
        stats = conn.execute(
            "SELECT count(*) FILTER (WHERE s2_position IS NOT NULL), count(*) FILTER (WHERE openalex_position IS NOT NULL),"
            " avg(s2_confidence) FILTER (WHERE s2_position IS NOT NULL),"
            " avg(openalex_confidence) FILTER (WHERE openalex_position IS NOT NULL)"
            " FROM wove.authorships WHERE arxiv_id = ANY(%s)", (ids,)).fetchone()
    return AlignSummary(len(ids), n, stats[0], stats[1], None if stats[2] is None else round(float(stats[2]), 3),
                        None if stats[3] is None else round(float(stats[3]), 3))
