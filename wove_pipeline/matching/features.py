"""Pairwise features of two author mentions, for the learned pair model (model.py).

Every feature is a float with NaN for *missing*: a pair where one side has no affiliation
has no affiliation evidence, which is not the same as two affiliations that share nothing
(0.0). The gradient-boosted model routes NaN on its own branch, so it learns both what a
piece of evidence says when present and how to decide without it.

Hard constraints are not features: incompatible names, two different ORCIDs and two
positions on one paper are cannot-links (never scored); the same ORCID with compatible
names is a must-link.

Left out on purpose, because leave-one-set-out on the real sets said so (mean held-out B3 F1
0.816 with them, 0.847 without): counts of the block itself (mentions and first names whose
names fit: they describe how a labelled set was cut, not the people), the corpus's own
full-name frequency (noisy on any one corpus; the real-bylines prior in name_prior.py carries
how common a name is) and category cosine (the S2AND sets carry one coarse field for every
paper, and the sandbox world taught it as decisive: with it, ads fell from 0.937 to 0.910).
Categories still count in the researchers' profiles and pages.

Byline role (both first or both last author, of three or more) was tried and left out
(2026-12-03): held out, with the role missing where the position cannot be read (the paper's
author at that position does not carry the mention's surname and initial, an alphabetical
byline, a set whose every position is 0), the mean B3 F1 moved by +0.001 to +0.004 over the
linkage grid, less than the sets move with the training's masking seed, and aminer110 lost
0.005 to 0.013 at most settings. The role read naively (alphabetical bylines and placeholder
positions taken as roles) looked better (+0.011), which is the data's accident, not a signal.

The papers' sentence vectors (the embedding stage's all-MiniLM-L6-v2, read by mention_load;
set_vectors embeds a labelled set's papers) give ``embedding_cosine``: it carries what two
papers are about where the hashed words of ``text_cosine`` miss it (synonyms, another
phrasing of one field). A paper not embedded yet leaves it missing.

``FEATURES`` fixes the column order of the model's input; a change to it (or to what a
feature means) needs ``wove matching train`` to be run again.
"""

from __future__ import annotations

import numpy as np

from .scoring import BlockNames, MatchData, _Pairing

FEATURES: tuple[str, ...] = (
    # names
    "name_grade",  # 1 initials only, 2 partial (middle on one side), 3 nickname pair, 4 full names equal
    "middle_equal",  # both print middle names: 1 they agree, 0 they differ; NaN otherwise
    "first_name_length",  # the shorter of the two first given names (1 = an initial)
    "surname_variety",  # real bylines: log distinct first names seen with the surname (name_prior.py), the larger side
    "first_name_variety",  # real bylines: log distinct surnames seen with the first name (or initial), the larger side
    # upstream identities
    "orcid_equal",  # 1 when both carry the same ORCID; NaN otherwise (different ORCIDs never link)
    "s2_same",  # both carry an S2 author id: 1 equal, 0 different
    "openalex_same",  # both carry an OpenAlex author id: 1 equal, 0 different
    "email_same",
    # context
    "coauthors_shared",  # co-author name blocks in common (self excluded)
    "coauthors_share",  # shared / the smaller co-author list
    "coauthors_named",  # co-authors in common by full name (first given name + surname), where both print some
    "affiliation_cosine",
    "institution_shared",
    "text_cosine",
    "venue_cosine",
    "year_gap",
    "authors_max",  # log of the larger paper's author count
    "embedding_cosine",  # cosine of the two papers' sentence vectors (EMBEDDING_MODEL)
)

# Features that come and go together with one kind of evidence (training masks whole groups
# so the model learns to decide without each).
EVIDENCE_GROUPS: dict[str, tuple[str, ...]] = {
    "ids": ("orcid_equal", "s2_same", "openalex_same"),
    "email": ("email_same",),
    "coauthors": ("coauthors_shared", "coauthors_share", "coauthors_named"),
    "affiliation": ("affiliation_cosine", "institution_shared"),
    "text": ("text_cosine",),
    "embedding": ("embedding_cosine",),
    "venue": ("venue_cosine",),
    "year": ("year_gap",),
    "authors": ("authors_max",),
}

_NAN = np.float32(np.nan)


def _either_missing(ha, hb, value):
    return np.where(ha & hb, value, _NAN).astype(np.float32)


def _same_or_diff(a, b):
    both = (a >= 0) & (b >= 0)
    return np.where(both, (a == b).astype(np.float32), _NAN).astype(np.float32)


def pair_features(data: MatchData, rows: np.ndarray, cols: np.ndarray, bn: BlockNames, *, pairs: bool = False):
    """Features of rows x cols (or of aligned pairs ``rows[k], cols[k]``).

    Returns ``(features, cannot, must)``: ``features`` maps each name in FEATURES to a float32
    array (broadcastable to the pair shape), ``cannot`` / ``must`` are the hard constraints.
    """
    P = _Pairing(rows, cols, pairs)
    f: dict[str, np.ndarray] = {}
    lr = np.searchsorted(bn.uniq, data.variant[rows])
    lc = np.searchsorted(bn.uniq, data.variant[cols])
    if pairs:
        grade, middle = bn.grade[lr, lc], bn.middle_eq[lr, lc]
    else:
        grade, middle = bn.grade[np.ix_(lr, lc)], bn.middle_eq[np.ix_(lr, lc)]
    f["name_grade"] = grade.astype(np.float32)
    ma, mb = P.take(data.has_middle, data.variant)
    f["middle_equal"] = _either_missing(ma, mb, middle.astype(np.float32))
    la, lb = P.take(data.first_length, data.variant)
    f["first_name_length"] = np.minimum(la, lb).astype(np.float32)
    for name, arr in (("surname_variety", data.surname_variety), ("first_name_variety", data.first_name_variety)):
        a, b = P.take(arr, data.variant)
        f[name] = np.fmax(a, b).astype(np.float32)
    cannot = grade == 0

    a, b = P.take(data.orcid)
    both = (a >= 0) & (b >= 0)
    o_eq = both & (a == b)
    f["orcid_equal"] = np.where(o_eq, np.float32(1.0), _NAN).astype(np.float32)
    cannot = cannot | (both & (a != b))
    # two authors of one paper (different positions) are two people
    pa, pb = P.take(data.paper_row)
    qa, qb = P.take(data.position)
    cannot = cannot | ((pa == pb) & (qa != qb))
    must = o_eq & ~cannot

    f["s2_same"] = _same_or_diff(*P.take(data.s2))
    f["openalex_same"] = _same_or_diff(*P.take(data.oa))
    f["email_same"] = _same_or_diff(*P.take(data.email))

    ha, hb = P.take(data.has_coauthors)
    co = P.sim(data.coauthors) if data.coauthors.nnz else np.float32(0.0)
    f["coauthors_shared"] = _either_missing(ha, hb, co)
    na, nb = P.take(data.n_coauthors)
    with np.errstate(invalid="ignore", divide="ignore"):
        f["coauthors_share"] = _either_missing(ha, hb, co / np.maximum(np.minimum(na, nb), 1))
    # Blocks collide among namesakes of one field ("y zhang" is Yue, Yang and Yi Zhang):
    # a shared co-author block says less where the full names behind it differ.
    ha, hb = P.take(data.has_coauthor_names)
    f["coauthors_named"] = _either_missing(ha, hb, P.sim(data.coauthor_names) if data.coauthor_names.nnz else np.float32(0.0))

    for name, X, has in (
        ("affiliation_cosine", data.affil, data.has_affil),
        ("venue_cosine", data.venue, data.has_venue),
    ):
        ha, hb = P.take(has)
        f[name] = _either_missing(ha, hb, P.sim(X) if X.nnz else np.float32(0.0))
    ha, hb = P.take(data.has_inst)
    f["institution_shared"] = _either_missing(ha, hb, (P.sim(data.inst) > 0).astype(np.float32) if data.inst.nnz else 0.0)
    ha, hb = P.take(data.has_text)
    f["text_cosine"] = _either_missing(ha, hb, P.sim(data.text, data.paper_row) if data.text.nnz else np.float32(0.0))

    ha, hb = P.take(data.has_embedding)
    f["embedding_cosine"] = _either_missing(ha, hb, P.dot(data.embedding, data.paper_row) if ha.any() and hb.any() else np.float32(0.0))

    a, b = P.take(data.year)
    f["year_gap"] = np.abs(a - b).astype(np.float32)  # NaN when either year is unknown
    a, b = P.take(data.n_authors)
    f["authors_max"] = np.log(np.fmax(a, b)).astype(np.float32)
    return f, cannot, must


def feature_matrix(features: dict[str, np.ndarray], mask: np.ndarray) -> np.ndarray:
    """The model's input rows for the pairs where ``mask`` is set (C order of the pair shape)."""
    X = np.empty((int(mask.sum()), len(FEATURES)), dtype=np.float32)
    for k, name in enumerate(FEATURES):
        X[:, k] = np.broadcast_to(features[name], mask.shape)[mask]
    return X
