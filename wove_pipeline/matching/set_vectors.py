"""Sentence vectors for the papers of a labelled set (S2AND directory), for training and
evaluating the pair model's ``embedding_cosine`` feature.

In the pipeline a paper's vector comes from the embedding stage (wove.paper_embeddings, read
by mention_load). A labelled set's papers are embedded here with the same model and the same
text (``search.embedding.paper_text``). Embedding is slow on a CPU (the six real sets, 25,800
papers: about 47 minutes on one core), so vectors are kept under
``<WOVE_HOME>/cache/set-vectors/<set>.npz``, keyed by a digest of the model and the text: a
rerun reads them, and a changed text embeds the set's texts again, all in one call (a vector
depends slightly on the batch it was encoded in).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable

import numpy as np

from wove_pipeline.search.embedding import Embedder, EmbeddingModelConfig, paper_text
from wove_pipeline.settings import wove_home

from .mentions import EMBEDDING_MODEL, Mention


def cache_path(set_name: str) -> str:
    return str(wove_home() / "cache" / "set-vectors" / f"{set_name}.npz")


def text_key(text: str) -> str:
    return hashlib.sha256(f"{EMBEDDING_MODEL}\0{text}".encode()).hexdigest()[:32]


def _read(path: str) -> dict[str, np.ndarray]:
    if not os.path.exists(path):
        return {}
    with np.load(path) as f:
        return dict(zip(f["keys"].tolist(), f["vectors"]))


def _write(path: str, vectors: dict[str, np.ndarray]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    keys = sorted(vectors)
    tmp = f"{path}.{os.getpid()}.tmp.npz"  # two processes embedding at once each write whole files
    np.savez(tmp, keys=np.array(keys), vectors=np.stack([vectors[k] for k in keys]).astype(np.float16))
    os.replace(tmp, path)


def attach_vectors(set_name: str, papers: dict[str, dict], mentions: list[Mention], *,
                   embedder: Embedder | None = None, log: Callable[[str], None] = print) -> int:
    """Give each mention its paper's vector (one array per paper); embed the set's texts when
    any is not kept yet. A paper without title and abstract gets none (the feature is
    missing). Returns the number of texts embedded now."""
    texts = {pid: paper_text(p.get("title"), p.get("abstract")) for pid, p in papers.items()}
    keys = {pid: text_key(t) for pid, t in texts.items() if t}
    path = cache_path(set_name)
    kept = _read(path)
    todo: list[tuple[str, str]] = []
    if any(k not in kept for k in keys.values()):
        # every text of the set again, in one call: a text's vector depends, by a float16
        # step, on the batch it is encoded in, so vectors kept from other calls made a model
        # that depended on the cache's history (26 of the sandbox's 2,500 vectors one step
        # off moved held-out figures by up to 0.008, ads' newest-10% gap: bench/RESULTS.md,
        # after "Author matching errors"). A set's vectors are a function of its texts alone.
        kept = {}
        todo = sorted({k: texts[pid] for pid, k in keys.items()}.items())
        log(f"  {set_name}: embedding {len(todo):,} paper texts with {EMBEDDING_MODEL} (kept in {path})")
        embedder = embedder or Embedder(EmbeddingModelConfig(name=EMBEDDING_MODEL))
        for (k, _), v in zip(todo, embedder.encode([t for _, t in todo])):
            kept[k] = v.astype(np.float16)
        _write(path, kept)
    by_paper = {pid: kept[k] for pid, k in keys.items()}
    for m in mentions:
        m.embedding = by_paper.get(m.paper_id)
    return len(todo)
