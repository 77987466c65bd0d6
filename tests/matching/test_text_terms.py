"""Kept term counts give the text evidence the texts themselves give, to the last bit."""

import dataclasses

import numpy as np

from wove_pipeline.matching.sandbox_eval import world_mentions
from wove_pipeline.matching.scoring import (
    TEXT_CHARS,
    _text_tfidf,
    _tfidf,
    build_data,
    text_term_counts,
)
from wove_pipeline.sandbox.generator import generate_world

TEXTS = [
    "Graph neural networks for graph-level anomaly detection\nWe study graphs, graphs and GRAPHS.",
    "",  # a paper without text
    "1234 5678",  # text without a single term
    "Über die Quantenmechanik\nα-decay of heavy nuclei, the the the of",
    "x" * 10 + " long " * 900,  # beyond TEXT_CHARS: cut as the text evidence cuts it
]


def same_matrix(a, b):
    return (a.shape == b.shape and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
            and np.array_equal(a.data, b.data) and a.data.dtype == b.data.dtype)


def test_packed_counts_are_the_hashed_counts():
    counted = text_term_counts(["we study graphs graphs and trees", "", "trees " * 2000])
    assert counted[1] == b""
    words = np.frombuffer(counted[0], dtype="<u4")
    assert sorted((words >> 18).tolist()) == [1, 1, 2]  # study, trees, graphs x2 ("we", "and": stop words)
    assert list(words & (2**18 - 1)) == sorted(words & (2**18 - 1))  # index order
    # 2,000 repeats of one term, cut at TEXT_CHARS characters: 500 of them counted
    assert (np.frombuffer(counted[2], dtype="<u4") >> 18).tolist() == [TEXT_CHARS // len("trees ")]


def test_kept_counts_give_the_same_tfidf_as_the_texts():
    cut = [t[:TEXT_CHARS] for t in TEXTS]
    counted = text_term_counts(TEXTS)
    nothing_kept = _text_tfidf(TEXTS, [None] * len(TEXTS))
    assert same_matrix(nothing_kept, _tfidf(cut))  # as the text evidence was computed before
    some_kept = _text_tfidf(TEXTS, [c if i % 2 else None for i, c in enumerate(counted)])
    all_kept = _text_tfidf([""] * len(TEXTS), counted)  # no text needed once counted
    assert same_matrix(some_kept, nothing_kept) and same_matrix(all_kept, nothing_kept)
    assert _text_tfidf(["", "12"], [None, None]).nnz == 0


def test_build_data_reads_kept_counts_like_texts():
    mentions, _ = world_mentions(generate_world(seed=3, papers_per_day=20, days=2))
    counts = dict(zip((m.paper_id for m in mentions), text_term_counts([m.text for m in mentions])))
    kept = [dataclasses.replace(m, text="", text_terms=counts[m.paper_id]) if i % 3 else m
            for i, m in enumerate(mentions)]
    a, b = build_data(mentions), build_data(kept)
    assert a.text.nnz > 1000 and same_matrix(a.text, b.text)
    assert np.array_equal(a.has_text, b.has_text) and np.array_equal(a.paper_row, b.paper_row)
