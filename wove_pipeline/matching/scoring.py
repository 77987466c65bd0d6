"""The evidence of a list of mentions, column by column, for the pair features.

``build_data`` turns mentions into arrays and sparse matrices once per run (name variants,
upstream ids, co-author blocks, TF-IDF of affiliations, venues and texts); ``block_names`` tabulates the name relations inside one block.
``features.pair_features`` reads these per pair, and the learned model (model.py) turns the
features into a probability. Affiliation strings gain the acronyms of their parts, so
"Massachusetts Institute of Technology" meets "MIT".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer

from . import name_prior
from .mentions import Mention, normalize_orcid
from .names import Name, name_evidence, normalize_text

AFFIL_STOP = frozenset(
    """of the and for at in de la le der und di del des du y e a an
    department dept univ university universitat universite universita universidad
    institute institut instituto school college faculty division laboratory lab labs
    center centre research""".split()
)

_GRADE_CODES = {"incompatible": 0, "initials": 1, "partial": 2, "full_nick": 3, "full_exact": 4}


_ACRO_SKIP = frozenset("of the and for at in de la le der und di del des du y e a an".split())


@lru_cache(maxsize=200_000)  # a lab's string repeats on every paper of its members
def affiliation_tokens(raw: str) -> str:
    """Normalized affiliation text plus the acronym of each comma-separated part.

    Real affiliation strings mix full names and acronyms ("Massachusetts Institute of
    Technology" / "MIT", "University of California, San Diego" / "UCSD"); the acronym of
    every part of three or more significant words, and of the whole string, is added as an
    extra token so either spelling meets the other in the TF-IDF cosine."""
    text = normalize_text(raw)
    extra = []
    parts = [p for p in raw.split(",") if p.strip()]
    for chunk in parts + ([raw] if len(parts) > 1 else []):
        words = [w for w in normalize_text(chunk).split() if w not in _ACRO_SKIP]
        if len(words) >= 3:
            extra.append("".join(w[0] for w in words))
    return " ".join([text] + extra)


def _codes(values: list[str | None]) -> np.ndarray:
    table: dict[str, int] = {}
    out = np.full(len(values), -1, dtype=np.int64)
    for i, v in enumerate(values):
        if v:
            out[i] = table.setdefault(v, len(table))
    return out


def _binary_csr(lists: list[list[str]], dedupe_self: list[str] | None = None) -> sp.csr_matrix:
    vocab: dict[str, int] = {}
    indptr = [0]
    indices: list[int] = []
    for i, lst in enumerate(lists):
        seen = set()
        own = dedupe_self[i] if dedupe_self else None
        for t in lst:
            if not t or t == own or t in seen:
                continue
            seen.add(t)
            indices.append(vocab.setdefault(t, len(vocab)))
        indptr.append(len(indices))
    data = np.ones(len(indices), dtype=np.float32)
    return sp.csr_matrix(
        (data, np.asarray(indices, dtype=np.int64), np.asarray(indptr, dtype=np.int64)),
        shape=(len(lists), max(1, len(vocab))),
    )


def _term_counts(texts: list[str], *, ngram=(1, 1), stop=None, n_features=2**18) -> sp.csr_matrix:
    """Hashed term counts per text (float32, indices sorted within each row)."""
    hv = HashingVectorizer(
        n_features=n_features,
        ngram_range=ngram,
        alternate_sign=False,
        norm=None,
        stop_words=list(stop) if stop else "english",
        token_pattern=r"(?u)\b[a-z][a-z]+\b",
        lowercase=True,
        dtype=np.float32,
    )
    return hv.transform(texts)


def _idf_weighted(X: sp.csr_matrix) -> sp.csr_matrix:
    return TfidfTransformer(sublinear_tf=True, norm="l2").fit_transform(X).astype(np.float32).tocsr()


def _tfidf(texts: list[str], **kw) -> sp.csr_matrix:
    if not any(texts):
        return sp.csr_matrix((len(texts), 1), dtype=np.float32)
    return _idf_weighted(_term_counts(texts, **kw))


# A paper's text evidence: title + abstract, the first TEXT_CHARS characters, as hashed term
# counts. Counting terms (tokenizing) was most of the text evidence's cost, and a daily run
# reads the texts of ~90,000 papers at 100k: the pipeline keeps each paper's counts
# (wove.matching_text_terms), packed by `text_term_counts`, and counts only new or changed
# texts. The IDF is still fitted over the papers of each run, so the result is the same.
TEXT_CHARS = 3000
_INDEX_BITS = 18  # packed term: count << 18 | index (a count stays far below 2**14 in 3,000 characters)
TEXT_FEATURES = 1 << _INDEX_BITS  # every hashed index fits the packed word
TEXT_TERMS_VERSION = 1  # bump when TEXT_CHARS, TEXT_FEATURES or the tokenizer change: kept counts are recounted


def text_term_counts(texts: list[str]) -> list[bytes]:
    """Each text's hashed term counts, packed: little-endian uint32 ``count << 18 | index``
    in index order."""
    if not texts:
        return []
    X = _term_counts([t[:TEXT_CHARS] for t in texts], n_features=TEXT_FEATURES)
    packed = ((X.data.astype(np.uint32) << _INDEX_BITS) | X.indices.astype(np.uint32)).astype("<u4")
    return [packed[X.indptr[i]:X.indptr[i + 1]].tobytes() for i in range(len(texts))]


def _text_tfidf(texts: list[str], terms: list[bytes | None]) -> sp.csr_matrix:
    """TF-IDF of the papers' texts from their packed term counts, counting those not given."""
    missing = [i for i, t in enumerate(terms) if t is None]
    packed = list(terms)
    for i, counted in zip(missing, text_term_counts([texts[i] for i in missing])):
        packed[i] = counted
    words = np.frombuffer(b"".join(packed), dtype="<u4")
    if not len(words):
        return sp.csr_matrix((len(texts), 1), dtype=np.float32)
    indptr = np.zeros(len(packed) + 1, dtype=np.int64)
    np.cumsum([len(p) // 4 for p in packed], out=indptr[1:])
    X = sp.csr_matrix(((words >> _INDEX_BITS).astype(np.float32), (words & ((1 << _INDEX_BITS) - 1)).astype(np.int32),
                       indptr), shape=(len(packed), TEXT_FEATURES))
    return _idf_weighted(X)


def _dedup_tfidf(texts: list[str], **kw) -> sp.csr_matrix:
    """TF-IDF of many repeated short strings: vectorize each distinct string once.

    (IDF is then over distinct strings, which suits affiliations: a string repeated on
    every paper of a big lab should not look common.)"""
    table: dict[str, int] = {}
    rows = np.fromiter((table.setdefault(t, len(table)) for t in texts), dtype=np.int64, count=len(texts))
    X = _tfidf(list(table), **kw)
    return X[rows]


def _paper_vectors(vectors: list[np.ndarray | None]) -> tuple[np.ndarray, np.ndarray]:
    """The papers' vectors as one matrix (zeros where a paper has none) and which have one.
    Vectors of a size other than the most common one are left out (another model's)."""
    sizes = [len(v) for v in vectors if v is not None]
    if not sizes:
        return np.zeros((len(vectors), 1), dtype=np.float16), np.zeros(len(vectors), dtype=bool)
    dim = max(set(sizes), key=sizes.count)
    has = np.array([v is not None and len(v) == dim for v in vectors], dtype=bool)
    E = np.zeros((len(vectors), dim), dtype=np.float16)
    rows = np.flatnonzero(has)
    for k in range(0, len(rows), _VECTOR_CHUNK):  # float32 a chunk at a time: a big day has 500k papers
        chunk = rows[k:k + _VECTOR_CHUNK]
        X = np.stack([vectors[r] for r in chunk]).astype(np.float32)
        norms = np.linalg.norm(X, axis=1)
        has[chunk] = norms > 0
        E[chunk] = X / np.where(norms > 0, norms, 1)[:, None]  # cosines, whatever the embedder's normalize setting
    return E, has


_VECTOR_CHUNK = 20_000


@dataclass
class MatchData:
    """Column-oriented evidence for a list of mentions (built once per run)."""

    mentions: list[Mention]
    names: list[Name]
    variant: np.ndarray  # index into variants
    variants: list[Name]
    blocks: list[str]
    orcid: np.ndarray
    s2: np.ndarray
    oa: np.ndarray
    email: np.ndarray
    year: np.ndarray
    coauthors: sp.csr_matrix
    coauthor_names: sp.csr_matrix  # co-authors printed with a full first name (mentions.coauthor_name)
    affil: sp.csr_matrix
    inst: sp.csr_matrix
    venue: sp.csr_matrix
    text: sp.csr_matrix  # rows = papers
    embedding: np.ndarray  # rows = papers: unit text vectors (float16 to halve a big load), zeros where none
    paper_row: np.ndarray
    position: np.ndarray
    has_affil: np.ndarray
    has_coauthors: np.ndarray
    has_coauthor_names: np.ndarray
    has_inst: np.ndarray
    has_text: np.ndarray
    has_embedding: np.ndarray
    has_venue: np.ndarray
    n_coauthors: np.ndarray  # co-author keys per mention
    n_authors: np.ndarray  # authors of the mention's paper (NaN unknown)
    has_middle: np.ndarray  # per variant: prints more than one given name
    first_length: np.ndarray  # per variant: letters of the first given name (1 = initial)
    surname_variety: np.ndarray  # per variant: real bylines' distinct first names with the surname (log1p; name_prior.py)
    first_name_variety: np.ndarray  # per variant: real bylines' distinct surnames with the first name / initial (log1p)
    index: dict[str, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.mentions)


def build_data(mentions: list[Mention]) -> MatchData:
    names = [m.name for m in mentions]
    vt: dict[Name, int] = {}
    variant = np.fromiter((vt.setdefault(n, len(vt)) for n in names), dtype=np.int64, count=len(names))
    variants = [None] * len(vt)
    for n, i in vt.items():
        variants[i] = n
    blocks = [n.block for n in names]
    year = np.array([float(m.year) if m.year else np.nan for m in mentions], dtype=np.float64)
    coauth = _binary_csr([m.coauthor_keys for m in mentions], dedupe_self=blocks)
    coauth_names = _binary_csr([m.coauthor_names for m in mentions])
    affil = _dedup_tfidf(
        [" ".join(affiliation_tokens(a) for a in m.affiliations if a) if m.affiliations else "" for m in mentions],
        ngram=(1, 2), stop=AFFIL_STOP, n_features=2**20,
    )
    inst = _binary_csr([m.institution_ids for m in mentions])
    venue = _dedup_tfidf([normalize_text(m.venue) if m.venue else "" for m in mentions], n_features=2**16)
    # text per paper (mentions of one paper share it)
    prow: dict[str, int] = {}
    texts: list[str] = []
    terms: list[bytes | None] = []
    vectors: list[np.ndarray | None] = []
    paper_row = np.empty(len(mentions), dtype=np.int64)
    for i, m in enumerate(mentions):
        r = prow.get(m.paper_id)
        if r is None:
            r = prow[m.paper_id] = len(texts)
            texts.append(m.text or "")
            terms.append(m.text_terms)
            vectors.append(m.embedding)
        paper_row[i] = r
    text = _text_tfidf(texts, terms)
    embedding, has_vector = _paper_vectors(vectors)
    surname_variety, first_name_variety = name_prior.name_parts(variants)
    return MatchData(
        surname_variety=surname_variety,
        first_name_variety=first_name_variety,
        n_coauthors=np.diff(coauth.indptr).astype(np.float32),
        n_authors=np.array([float(m.n_authors) if m.n_authors else np.nan for m in mentions], dtype=np.float32),
        has_middle=np.array([len(n.given) > 1 for n in variants], dtype=bool),
        first_length=np.array([len(n.first) if n.given else 0 for n in variants], dtype=np.float32),
        mentions=mentions,
        names=names,
        variant=variant,
        variants=variants,
        blocks=blocks,
        orcid=_codes([normalize_orcid(m.orcid) for m in mentions]),
        s2=_codes([m.s2_author_id for m in mentions]),
        oa=_codes([m.openalex_author_id for m in mentions]),
        email=_codes([(m.email or "").strip().lower() or None for m in mentions]),
        year=year,
        coauthors=coauth,
        coauthor_names=coauth_names,
        affil=affil,
        inst=inst,
        venue=venue,
        text=text,
        paper_row=paper_row,
        position=np.array([m.position if m.position is not None else -1 for m in mentions], dtype=np.int64),
        has_affil=np.diff(affil.indptr) > 0,
        has_coauthors=np.diff(coauth.indptr) > 0,
        has_coauthor_names=np.diff(coauth_names.indptr) > 0,
        has_inst=np.diff(inst.indptr) > 0,
        has_text=(np.diff(text.indptr) > 0)[paper_row],
        embedding=embedding,
        has_embedding=has_vector[paper_row],
        has_venue=np.diff(venue.indptr) > 0,
        index={m.mention_id: i for i, m in enumerate(mentions)},
    )


class _Pairing:
    """Evaluate features either on a rectangle rows x cols or on explicit pairs (I[k], J[k])."""

    def __init__(self, rows: np.ndarray, cols: np.ndarray, pairs: bool):
        self.r, self.c, self.pairs = rows, cols, pairs

    def take(self, a: np.ndarray, by: np.ndarray | None = None):
        """a at the rows and the columns; with ``by``, a[by[...]] (a per-variant array read
        through the mentions' variant ids, without gathering it for every mention loaded)."""
        r, c = (self.r, self.c) if by is None else (by[self.r], by[self.c])
        if self.pairs:
            return a[r], a[c]
        return a[r][:, None], a[c][None, :]

    # Similarities are rounded: summed pair by pair or through a matrix product, one cosine
    # comes out 1.0 or 0.99999994, on either side of a tree's split, and the daily run scores
    # both ways (profile_assign). Rounded, both ways give the model the same input.
    DECIMALS = 4

    def dot(self, E: np.ndarray, rmap: np.ndarray) -> np.ndarray:
        """Dot products of dense rows (``E[rmap[...]]``), in float32."""
        a, b = E[rmap[self.r]].astype(np.float32), E[rmap[self.c]].astype(np.float32)
        out = np.einsum("ij,ij->i", a, b) if self.pairs else a @ b.T
        return out.round(self.DECIMALS)

    def sim(self, X: sp.csr_matrix, rmap: np.ndarray | None = None) -> np.ndarray:
        r = self.r if rmap is None else rmap[self.r]
        c = self.c if rmap is None else rmap[self.c]
        if not self.pairs:
            return _products(X, r, c).round(self.DECIMALS)
        ur, ir = np.unique(r, return_inverse=True)
        uc, ic = np.unique(c, return_inverse=True)
        if len(ur) * len(uc) <= len(r):  # a few rows paired many times over: their rectangle, read
            return _products(X, ur, uc)[ir.ravel(), ic.ravel()].round(self.DECIMALS)
        return np.asarray(X[r].multiply(X[c]).sum(1)).ravel().astype(np.float32).round(self.DECIMALS)


def _products(X: sp.csr_matrix, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    """X[r] . X[c] for every row and column, dense, in float32."""
    both = used_columns(X[np.concatenate([r, c])])
    return (both[:len(r)] @ both[len(r):].T).toarray().astype(np.float32)


def used_columns(X: sp.csr_matrix) -> sp.csr_matrix:
    """X without the columns none of its rows uses (the kept ones in their order: products and
    sums come out the same), when it is far wider than its entries. scipy's matrix product
    and transpose allocate and fill buffers as wide as the matrix: over the 2^20 hashed
    co-author or affiliation keys that is about a millisecond a call, and a day's run makes
    tens of thousands of calls on a few rows each (the group step's features of 10 groups:
    18.5 -> 0.8 ms; 1 x 384 rows of co-author keys: 1.2 -> 0.4 ms). Narrower, as the text's
    2^18 terms over a few hundred rows, finding the used columns costs what it saves."""
    if X.shape[1] <= 64 * X.nnz:
        return X
    used, inverse = np.unique(X.indices, return_inverse=True)
    return sp.csr_matrix((X.data, inverse.ravel(), X.indptr), shape=(X.shape[0], max(len(used), 1)))


@dataclass
class BlockNames:
    """Name relations among the variants present in one block."""

    uniq: np.ndarray  # sorted global variant ids present in the block
    compat: np.ndarray  # bool (v x v)
    grade: np.ndarray  # int8 (v x v)
    middle_eq: np.ndarray  # bool (v x v): both carry middle names and they agree


def block_names(data: MatchData, idx: np.ndarray) -> BlockNames:
    gv = data.variant[idx]
    uniq = np.unique(gv)
    v = len(uniq)
    if v == 1:
        n = data.variants[int(uniq[0])]
        g = _GRADE_CODES[name_evidence(n, n)]
        me = len(n.given) > 1 and g > 0
        compat1 = np.array([[g > 0]])
        return BlockNames(
            uniq,
            compat1,
            np.array([[g]], dtype=np.int8),
            np.array([[me]]),
        )
    grade = np.zeros((v, v), dtype=np.int8)
    middle = np.zeros((v, v), dtype=bool)
    names = [data.variants[g] for g in uniq]
    codes = _GRADE_CODES
    for a in range(v):
        na = names[a]
        multi_a = len(na.given) > 1
        for b in range(a, v):
            nb = names[b]
            g = codes[name_evidence(na, nb)]
            if g == 0:
                continue
            grade[a, b] = grade[b, a] = g
            if multi_a and len(nb.given) > 1:
                me = all(
                    "".join(x) == "".join(y) and len("".join(x)) > 1
                    for x, y in zip(na.given[1:], nb.given[1:])
                ) or (na.middle_initials == nb.middle_initials and len(na.given) == len(nb.given))
                middle[a, b] = middle[b, a] = me
    return BlockNames(uniq, grade > 0, grade, middle)

def combine_block_names(parts: list[BlockNames]) -> BlockNames:
    """Block-diagonal union of several blocks' name tables (blocks never share a variant)."""
    if len(parts) == 1:
        return parts[0]
    uniq = np.concatenate([p.uniq for p in parts])
    v = len(uniq)
    compat = np.zeros((v, v), dtype=bool)
    grade = np.zeros((v, v), dtype=np.int8)
    middle = np.zeros((v, v), dtype=bool)
    o = 0
    for p in parts:
        k = len(p.uniq)
        compat[o : o + k, o : o + k] = p.compat
        grade[o : o + k, o : o + k] = p.grade
        middle[o : o + k, o : o + k] = p.middle_eq
        o += k
    order = np.argsort(uniq, kind="stable")
    ix = np.ix_(order, order)
    return BlockNames(uniq[order], compat[ix], grade[ix], middle[ix])


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-np.clip(x, -30, 30)))
