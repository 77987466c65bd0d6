"""A labelled set's papers are embedded once and kept by text: a rerun embeds nothing, a
changed abstract embeds the set again in one call (its vectors never mix batches), and a paper
without text gets no vector."""

import numpy as np

from wove_pipeline.matching import Mention
from wove_pipeline.matching.set_vectors import attach_vectors, cache_path


class CountingEmbedder:
    """Stands in for the sentence model: a vector from the text's length, and a count of
    the texts it was asked for."""

    def __init__(self):
        self.texts: list[str] = []

    def encode(self, texts):
        self.texts += list(texts)
        return np.array([[len(t), 1.0, 0.0] for t in texts], dtype=np.float32)


def test_vectors_are_kept_by_text_and_shared_by_a_papers_positions(tmp_path, monkeypatch):
    monkeypatch.setenv("WOVE_HOME", str(tmp_path))
    papers = {"1": {"title": "Dark matter halos", "abstract": "We fit profiles."},
              "2": {"title": "Galaxy clusters"},
              "3": {"title": None, "abstract": None}}
    mentions = [Mention("a", "1", 0), Mention("b", "1", 1), Mention("c", "2", 0), Mention("d", "3", 0)]
    first = CountingEmbedder()
    assert attach_vectors("tiny", papers, mentions, embedder=first, log=lambda s: None) == 2
    assert sorted(first.texts) == ["Dark matter halos\nWe fit profiles.", "Galaxy clusters"]
    assert mentions[0].embedding is mentions[1].embedding
    assert mentions[0].embedding.tolist() == [34.0, 1.0, 0.0] and mentions[3].embedding is None
    assert (tmp_path / "cache" / "set-vectors" / "tiny.npz").exists() and cache_path("tiny").endswith("tiny.npz")

    again = CountingEmbedder()
    assert attach_vectors("tiny", papers, mentions, embedder=again, log=lambda s: None) == 0
    assert mentions[2].embedding.tolist() == [15.0, 1.0, 0.0]

    papers["2"]["abstract"] = "A new abstract."
    changed = CountingEmbedder()
    assert attach_vectors("tiny", papers, mentions, embedder=changed, log=lambda s: None) == 2
    assert sorted(changed.texts) == ["Dark matter halos\nWe fit profiles.", "Galaxy clusters\nA new abstract."]
    assert mentions[2].embedding.tolist() == [31.0, 1.0, 0.0]
    with np.load(cache_path("tiny")) as kept:  # the old text's vector is not kept
        assert len(kept["keys"]) == 2
