"""paper_embeddings: only new or changed texts are embedded; a model change re-embeds."""

from __future__ import annotations

import datetime as dt
import hashlib

import dagster as dg
import numpy as np
import pytest

from tests.search.conftest import paper_row, upsert_papers
from wove_pipeline.database import access as db
from wove_pipeline.partitions import DayRange
from wove_pipeline.search.embedding import (
    Embedder,
    EmbeddingConfigError,
    EmbeddingModelConfig,
    embed_papers,
    paper_text,
    select_texts_to_embed,
    vector_literal,
    write_embeddings,
)

DAY = dt.date(2025, 8, 4)
OTHER_DAY = dt.date(2025, 8, 5)


class FakeEmbedder(Embedder):
    """Deterministic vectors from the text (no model): for the bookkeeping tests."""

    def __init__(self, name: str = "fake-model", dims: int = 384):
        super().__init__(EmbeddingModelConfig(name=name, path="/nonexistent", dimensions=dims))
        self.calls: list[list[str]] = []

    def encode(self, texts):
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.config.dimensions), dtype=np.float32)
        for i, t in enumerate(texts):
            rng = np.random.default_rng(int.from_bytes(hashlib.sha256(t.encode()).digest()[:4], "big"))
            v = rng.standard_normal(self.config.dimensions)
            out[i] = v / np.linalg.norm(v)
        return out

    @property
    def embedded(self) -> int:
        return sum(map(len, self.calls))


def _papers(n: int, day: dt.date = DAY, prefix: str = "2508.0") -> list[dict]:
    return [paper_row(f"{prefix}{i:04d}", f"Title number {i}", f"Abstract {i} " * (i % 7 + 1), day=day) for i in range(n)]


def _embed(url, embedder, days=DayRange.day(DAY)):
    """embed_papers on an autocommit connection, as the asset runs it."""
    with db.connect(url, autocommit=True) as conn:
        return embed_papers(conn, embedder, days=days)


def test_paper_text():
    assert paper_text(" A title ", " An abstract ") == "A title\nAn abstract"
    assert paper_text("A title", None) == "A title"
    assert paper_text("A title", "") == "A title"


def test_config_validation():
    with pytest.raises(EmbeddingConfigError):
        EmbeddingModelConfig(dimensions=0)
    with pytest.raises(EmbeddingConfigError):
        EmbeddingModelConfig(batch_size=0)
    with pytest.raises(EmbeddingConfigError, match="needs a local"):
        EmbeddingModelConfig(name="some/other-model").resolved_path()
    assert EmbeddingModelConfig().resolved_path()  # the packaged weights


def test_vector_literal_round_trips(conn):
    v = np.array([0.1, -2.5e-7, 3.0], dtype=np.float32)
    back = conn.execute("SELECT %s::vector::text", (vector_literal(v),)).fetchone()[0]
    assert np.allclose(np.array(back[1:-1].split(","), dtype=np.float32), v)


def test_only_new_or_changed_texts_are_embedded(database_url):
    upsert_papers(database_url, _papers(20) + _papers(5, OTHER_DAY, prefix="2508.9"))
    fake = FakeEmbedder()
    first = _embed(database_url, fake)
    assert (first.considered, first.embedded, first.skipped_unchanged) == (20, 20, 0)
    # Longest first, for little padding per batch.
    lengths = [len(t) for t in fake.calls[0]]
    assert lengths == sorted(lengths, reverse=True)

    again = _embed(database_url, fake)
    assert (again.embedded, again.skipped_unchanged) == (0, 20)

    # A new version changes two texts (same day): exactly those two are embedded again.
    changed = _papers(20)
    changed[3]["abstract"] = "A rewritten abstract"
    changed[7]["title"] = "A corrected title"
    for r in (changed[3], changed[7]):
        r.update(paper_row(r["arxiv_id"], r["title"], r["abstract"], day=DAY))
    upsert_papers(database_url, changed)
    third = _embed(database_url, fake)
    assert third.embedded == 2
    assert sorted(fake.calls[-1]) == sorted([paper_text(changed[3]["title"], "A rewritten abstract"),
                                             paper_text("A corrected title", changed[7]["abstract"])])
    with db.transaction(database_url) as conn:
        stored = dict(conn.execute("SELECT arxiv_id, content_hash FROM wove.paper_embeddings").fetchall())
        hashes = dict(conn.execute("SELECT arxiv_id, content_hash FROM wove.papers").fetchall())
    assert len(stored) == 20 and all(stored[a] == hashes[a] for a in stored)
    # The other day was never touched.
    assert not any(a.startswith("2508.9") for a in stored)


def test_model_change_re_embeds(database_url):
    upsert_papers(database_url, _papers(10))
    _embed(database_url, FakeEmbedder("model-a"))
    with db.transaction(database_url) as conn:
        assert select_texts_to_embed(conn, [f"2508.0{i:04d}" for i in range(10)], "model-a") == []
        assert len(select_texts_to_embed(conn, [f"2508.0{i:04d}" for i in range(10)], "model-b")) == 10
    b = FakeEmbedder("model-b")
    summary = _embed(database_url, b)
    assert summary.embedded == 10
    assert _embed(database_url, b).embedded == 0
    with db.transaction(database_url) as conn:
        assert conn.execute("SELECT DISTINCT model FROM wove.paper_embeddings").fetchall() == [("model-b",)]


def test_other_dimensions_are_stored_and_checked(database_url):
    upsert_papers(database_url, _papers(3))
    _embed(database_url, FakeEmbedder("wide-model", dims=768))
    with db.transaction(database_url) as conn:
        assert conn.execute("SELECT DISTINCT dimensions, vector_dims(embedding) FROM wove.paper_embeddings").fetchall() == [(768, 768)]
    with pytest.raises(Exception, match="paper_embeddings_dims_match"):
        with db.transaction(database_url) as conn:
            write_embeddings(conn, [("2508.00000", "liar", 384, "h", np.zeros(768))])


def test_real_model_encode_keeps_input_order(embedder):
    texts = ["short", "a much longer text about neutrino oscillations in the early universe", "mid length text"]
    together = embedder.encode(texts)
    alone = np.stack([embedder.encode([t])[0] for t in texts])
    assert together.shape == (3, 384) and together.dtype == np.float32
    assert np.allclose(together, alone, atol=1e-5)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert embedder.encode([]).shape == (0, 384)


def test_wrong_dimensions_in_config_fail_clearly():
    with pytest.raises(EmbeddingConfigError, match="384-d"):
        Embedder(EmbeddingModelConfig(dimensions=768)).model


@pytest.mark.slow
def test_asset_rematerialized_unchanged_partition_embeds_nothing(database_url, embedder):
    from wove_pipeline.resources import DatabaseResource
    from wove_pipeline.resources.embedder import EmbedderResource
    from wove_pipeline.search.assets import paper_embeddings
    upsert_papers(database_url, _papers(12) + _papers(4, OTHER_DAY, prefix="2508.9"))
    resources = {"database": DatabaseResource(url=database_url), "embedder": EmbedderResource(device="cpu")}

    def run():
        result = dg.materialize([paper_embeddings], partition_key=DAY.isoformat(), resources=resources)
        assert result.success
        (mat,) = result.asset_materializations_for_node("paper_embeddings")
        return {k: v.value for k, v in mat.metadata.items()}

    first = run()
    assert first["embedded"] == 12 and first["skipped_unchanged"] == 0 and first["dagster/row_count"] == 12
    assert first["model"] == "sentence-transformers/all-MiniLM-L6-v2" and first["texts_per_second"] > 0
    second = run()
    assert second["embedded"] == 0 and second["skipped_unchanged"] == 12 and second["dagster/row_count"] == 12
    with db.transaction(database_url) as conn:
        assert conn.execute("SELECT count(*) FROM wove.paper_embeddings").fetchone()[0] == 12
