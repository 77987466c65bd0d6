"""Fixtures for the embeddings and search tests: one loaded model for the session, and
papers written straight into wove.papers (what the papers asset would have written)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json

import psycopg
import pytest

from wove_pipeline.database import access as db
from wove_pipeline.search.embedding import Embedder, EmbeddingModelConfig


def content_hash(title: str, abstract: str | None) -> str:
    return hashlib.sha256(f"{title}\n{abstract or ''}".encode()).hexdigest()


def paper_row(
    arxiv_id: str,
    title: str,
    abstract: str | None,
    *,
    categories: list[str] | None = None,
    published: dt.datetime | None = None,
    day: dt.date = dt.date(2025, 8, 4),
    withdrawn: bool = False,
) -> dict:
    categories = categories or ["cs.LG"]
    published = published or dt.datetime(2025, 8, 1, 12, tzinfo=dt.timezone.utc)
    return {
        "arxiv_id": arxiv_id, "is_old_style": "/" in arxiv_id, "current_version": 1,
        "versions": json.dumps([{"version": 1}]), "title_tex": title, "title": title,
        "abstract_tex": abstract, "abstract": abstract, "authors": "[]", "authors_display": "",
        "categories": categories, "primary_category": categories[0], "published": published,
        "updated": published, "withdrawn": withdrawn, "slug": f"{arxiv_id}-slug",
        "abs_url": f"https://arxiv.org/abs/{arxiv_id}", "pdf_url": f"https://arxiv.org/pdf/{arxiv_id}",
        "oai_datestamp": day, "content_hash": content_hash(title, abstract),
    }


def upsert_papers(url: str, rows: list[dict]) -> None:
    if not rows:
        return
    columns = list(rows[0])
    with db.transaction(url) as conn:
        db.upsert_rows(conn, "wove.papers", columns, ([r[c] for c in columns] for r in rows), key=("arxiv_id",))


def world_paper_rows(world, limit: int | None = None) -> list[dict]:
    """The sandbox world's papers as wove.papers rows (clean title/abstract from the TeX)."""
    from wove_pipeline.arxiv.tex import tex_to_text
    rows = []
    for p in world.papers[:limit]:
        rows.append(paper_row(
            p.arxiv_id, tex_to_text(p.title), tex_to_text(p.abstract), categories=list(p.categories),
            published=p.versions[0].submitted, day=p.datestamp, withdrawn=p.withdrawn,
        ))
    return rows


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    emb = Embedder(EmbeddingModelConfig(device="cpu"))
    emb.model  # load once for the session
    return emb


@pytest.fixture
def conn(database_url):
    with psycopg.connect(database_url) as c:
        yield c
