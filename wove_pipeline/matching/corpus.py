"""The corpus-wide statistics a pair's features read, gathered in one pass, so that a chunk of
blocks is scored exactly as it would be inside the whole archive.

``scoring.build_data`` fits three things over the mentions it is given: the IDF of the
affiliation strings, the venues and the papers' texts. Built over one chunk, they would describe the chunk, not the archive, and a pair's
probability would depend on what else shares its chunk. ``CorpusStats`` holds them for the
whole stream (a few MiB: document frequencies per hashed term, not the mentions), and ``build_chunk_data`` builds a chunk's ``MatchData`` with them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .mentions import Mention
from .names import normalize_text
from .scoring import (AFFIL_STOP, TEXT_FEATURES, MatchData, _INDEX_BITS, _term_counts, affiliation_tokens,
                      build_data, text_term_counts)

AFFIL_FEATURES, VENUE_FEATURES = 2**20, 2**16  # as in scoring.build_data


def affiliation_string(m: Mention) -> str:
    return " ".join(affiliation_tokens(a) for a in m.affiliations if a) if m.affiliations else ""


def venue_string(m: Mention) -> str:
    return normalize_text(m.venue) if m.venue else ""


@dataclass
class CorpusStats:
    """What build_data fits over all mentions. ``add`` them in any order, chunk by chunk."""

    affiliations: set[str] = field(default_factory=set)
    venues: set[str] = field(default_factory=set)
    papers: set[str] = field(default_factory=set)
    text_df: np.ndarray = field(default_factory=lambda: np.zeros(TEXT_FEATURES, dtype=np.int64))
    _fresh_affil: list[str] = field(default_factory=list)
    _fresh_venue: list[str] = field(default_factory=list)
    affil_df: np.ndarray = field(default_factory=lambda: np.zeros(AFFIL_FEATURES, dtype=np.int64))
    venue_df: np.ndarray = field(default_factory=lambda: np.zeros(VENUE_FEATURES, dtype=np.int64))

    def add(self, mentions: Iterable[Mention], owns_text=None) -> None:
        """Count these mentions. ``owns_text(m)``: whether this pass counts m's paper's text
        (passes over disjoint shards of one archive count each paper in one of them)."""
        texts: list[str] = []
        terms: list[bytes | None] = []
        for m in mentions:
            a = affiliation_string(m)
            if a not in self.affiliations:
                self.affiliations.add(a)
                self._fresh_affil.append(a)
            v = venue_string(m)
            if v not in self.venues:
                self.venues.add(v)
                self._fresh_venue.append(v)
            if m.paper_id not in self.papers and (owns_text is None or owns_text(m)):
                self.papers.add(m.paper_id)
                texts.append(m.text or "")
                terms.append(m.text_terms)
        missing = [i for i, t in enumerate(terms) if t is None]
        for i, counted in zip(missing, text_term_counts([texts[i] for i in missing])):
            terms[i] = counted
        for t in terms:
            words = np.frombuffer(t, dtype="<u4")
            self.text_df[words & ((1 << _INDEX_BITS) - 1)] += 1
        if len(self._fresh_affil) >= 50_000:
            self._flush()

    def merge(self, other: "CorpusStats") -> None:
        """Add the counts of a pass over other mentions of the same archive (another shard's:
        passes counting each paper's text once between them). The affiliation and venue
        frequencies are over distinct strings, so they are counted again over the union."""
        self.affiliations |= other.affiliations
        self.venues |= other.venues
        self.papers |= other.papers
        self.text_df += other.text_df
        self.affil_df[:] = 0
        self.venue_df[:] = 0
        self._fresh_affil, self._fresh_venue = list(self.affiliations), list(self.venues)

    def _flush(self) -> None:
        for fresh, df, kw in ((self._fresh_affil, self.affil_df, dict(ngram=(1, 2), stop=AFFIL_STOP,
                                                                       n_features=AFFIL_FEATURES)),
                              (self._fresh_venue, self.venue_df, dict(n_features=VENUE_FEATURES))):
            if any(fresh):
                X = _term_counts(fresh, **kw)
                np.add.at(df, X.indices, 1)
            fresh.clear()

    def done(self) -> "CorpusCounts":
        """The counts build_chunk_data reads (the sets are no longer needed)."""
        self._flush()
        return CorpusCounts(len(self.affiliations), self.affil_df, len(self.venues), self.venue_df, len(self.papers),
                            self.text_df)


@dataclass
class CorpusCounts:
    """scoring.build_data's corpus-wide fits: per hashed term the document frequency over
    distinct affiliation strings, venues and papers."""

    n_affil: int
    affil_df: np.ndarray
    n_venue: int
    venue_df: np.ndarray
    n_papers: int
    text_df: np.ndarray

    def to_bytes(self) -> bytes:
        import io
        import json

        names = json.dumps({"n_affil": self.n_affil, "n_venue": self.n_venue, "n_papers": self.n_papers}).encode()
        buf = io.BytesIO()
        np.savez_compressed(buf, names=np.frombuffer(names, dtype=np.uint8), affil_df=self.affil_df,
                            venue_df=self.venue_df, text_df=self.text_df)
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, raw: bytes) -> "CorpusCounts":
        import io
        import json

        z = np.load(io.BytesIO(raw), allow_pickle=False)
        meta = json.loads(z["names"].tobytes())
        return cls(meta["n_affil"], z["affil_df"], meta["n_venue"], z["venue_df"],
                   meta["n_papers"], z["text_df"])


def _weighted(X: sp.csr_matrix, df: np.ndarray, n_docs: int) -> sp.csr_matrix:
    """TfidfTransformer(sublinear_tf=True, norm="l2", smooth_idf=True) with the corpus' df."""
    X = X.tocsr().astype(np.float64)
    X.sum_duplicates()
    idf = np.log((1.0 + n_docs) / (1.0 + df.astype(np.float64))) + 1.0
    X.data = (np.log(X.data) + 1.0) * idf[X.indices]
    norms = np.sqrt(np.bincount(np.repeat(np.arange(X.shape[0]), np.diff(X.indptr)), weights=X.data ** 2,
                                minlength=X.shape[0]))
    norms[norms == 0] = 1.0
    X.data /= np.repeat(norms, np.diff(X.indptr))
    return X.astype(np.float32).tocsr()


def _strings_tfidf(strings: list[str], df: np.ndarray, n_docs: int, **kw) -> sp.csr_matrix:
    table: dict[str, int] = {}
    rows = np.fromiter((table.setdefault(t, len(table)) for t in strings), dtype=np.int64, count=len(strings))
    distinct = list(table)
    if not any(distinct):
        return sp.csr_matrix((len(strings), 1), dtype=np.float32)
    return _weighted(_term_counts(distinct, **kw), df, n_docs)[rows]


def build_chunk_data(mentions: list[Mention], stats: CorpusCounts) -> MatchData:
    """build_data for a chunk of whole blocks, with the corpus' IDFs."""
    data = build_data(mentions)
    if data.affil.shape[1] > 1 or data.affil.nnz:
        data.affil = _strings_tfidf([affiliation_string(m) for m in mentions], stats.affil_df,
                                    stats.n_affil, ngram=(1, 2), stop=AFFIL_STOP,
                                    n_features=AFFIL_FEATURES)
    if data.venue.shape[1] > 1 or data.venue.nnz:
        data.venue = _strings_tfidf([venue_string(m) for m in mentions], stats.venue_df, stats.n_venue,
                                    n_features=VENUE_FEATURES)
    if data.text.nnz:
        n_papers = data.text.shape[0]
        # counts back from the tf-idf rows' pattern: recount from the packed terms
        seen: dict[str, int] = {}
        packed: list[bytes] = []
        fresh: list[tuple[int, str]] = []
        for m in mentions:
            if m.paper_id not in seen:
                seen[m.paper_id] = len(packed)
                packed.append(m.text_terms or b"")
                if m.text_terms is None:
                    fresh.append((len(packed) - 1, m.text or ""))
        for (i, _), counted in zip(fresh, text_term_counts([t for _, t in fresh])):
            packed[i] = counted
        words = np.frombuffer(b"".join(packed), dtype="<u4")
        indptr = np.zeros(n_papers + 1, dtype=np.int64)
        np.cumsum([len(p) // 4 for p in packed], out=indptr[1:])
        X = sp.csr_matrix(((words >> _INDEX_BITS).astype(np.float32),
                           (words & ((1 << _INDEX_BITS) - 1)).astype(np.int32), indptr),
                          shape=(n_papers, TEXT_FEATURES))
        data.text = _weighted(X, stats.text_df, stats.n_papers)
    return data
