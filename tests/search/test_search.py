"""Hybrid search, related papers, name search, the CLI, and input fuzzing."""

from __future__ import annotations

import datetime as dt
import random

import numpy as np
import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.search.conftest import paper_row, upsert_papers, world_paper_rows
from wove_pipeline.database import access as db
from wove_pipeline.partitions import DayRange
from wove_pipeline.search import query as search
from wove_pipeline.search.embedding import embed_papers

UTC = dt.timezone.utc

CORPUS = [
    ("2508.10001", "Neutrino oscillations in the early universe",
     "We study neutrino oscillations and flavour mixing during big bang nucleosynthesis.", ["hep-ph", "astro-ph.CO"], dt.datetime(2025, 3, 1, tzinfo=UTC)),
    ("2508.10002", "Graph neural networks for molecule property prediction",
     "Message passing networks predict molecular properties from atom graphs.", ["cs.LG", "q-bio.BM"], dt.datetime(2025, 5, 1, tzinfo=UTC)),
    ("2508.10003", "Sterile neutrinos and reactor anomalies",
     "Short-baseline reactor experiments constrain sterile neutrino oscillations.", ["hep-ex"], dt.datetime(2024, 6, 1, tzinfo=UTC)),
    ("2508.10004", "Schrödinger bridges for generative modelling",
     "Diffusion models as entropic optimal transport between distributions.", ["cs.LG", "stat.ML"], dt.datetime(2025, 7, 1, tzinfo=UTC)),
    ("2508.10005", "Attention is all you need, again",
     "Transformers for machine translation revisited with sparse attention.", ["cs.CL"], dt.datetime(2025, 7, 15, tzinfo=UTC)),
    ("2508.10006", "Neutrino mass ordering from cosmology",
     "Cosmological data bound the sum of neutrino masses.", ["astro-ph.CO"], dt.datetime(2025, 8, 1, tzinfo=UTC)),
    ("2508.10007", "Withdrawn: neutrino oscillations revisited",
     "This paper has been withdrawn.", ["hep-ph"], dt.datetime(2025, 8, 2, tzinfo=UTC)),
]


@pytest.fixture
def corpus_url(database_url, embedder):
    rows = [paper_row(a, t, ab, categories=c, published=p, withdrawn=a.endswith("7")) for a, t, ab, c, p in CORPUS]
    upsert_papers(database_url, rows)
    with db.connect(database_url, autocommit=True) as conn:
        embed_papers(conn, embedder, days=DayRange.day(rows[0]["oai_datestamp"]))
    return database_url


@pytest.fixture
def corpus(corpus_url):
    with psycopg.connect(corpus_url) as c:
        yield c


def ids(hits):
    return [h.arxiv_id for h in hits]


def test_hybrid_search_ranks_and_fuses(corpus, embedder):
    hits = search.search_papers(corpus, embedder, "neutrino oscillations")
    assert hits[0].arxiv_id in {"2508.10001", "2508.10003"}
    assert "2508.10007" not in ids(hits)  # withdrawn papers are left out
    assert all(a < b or a == b for a, b in zip([-h.score for h in hits], [-h.score for h in hits][1:]))
    top = hits[0]
    assert top.lexical_rank is not None and top.vector_rank is not None
    expected = sum(1 / (60 + r) for r in (top.lexical_rank, top.vector_rank, top.title_rank) if r is not None)
    assert top.score == pytest.approx(expected)
    # A semantic match with no shared word still comes back through the vector list.
    hits = search.search_papers(corpus, embedder, "how heavy are the lightest particles in the universe")
    assert "2508.10006" in ids(hits)[:3]


def test_category_and_date_filters(corpus, embedder):
    hits = search.search_papers(corpus, embedder, "neutrino", categories=["astro-ph.CO"])
    assert set(ids(hits)) == {"2508.10001", "2508.10006"}  # cross-lists count
    hits = search.search_papers(corpus, embedder, "neutrino", published_from=dt.date(2025, 1, 1))
    assert "2508.10003" not in ids(hits) and "2508.10001" in ids(hits)
    hits = search.search_papers(corpus, embedder, "neutrino", published_until=dt.date(2025, 3, 1))
    assert set(ids(hits)) == {"2508.10001", "2508.10003"}  # the until day is inclusive
    hits = search.search_papers(
        corpus, embedder, "learning", categories=["cs.LG", "cs.CL"],
        published_from=dt.date(2025, 6, 1), published_until=dt.date(2025, 7, 31),
    )
    assert set(ids(hits)) == {"2508.10004", "2508.10005"}
    assert search.search_papers(corpus, embedder, "neutrino", categories=["math.AG"]) == []


def test_unaccented_full_text_and_lexical_only(corpus):
    hits = search.search_papers(corpus, None, "Schrodinger bridges")
    assert ids(hits) == ["2508.10004"] and hits[0].vector_rank is None
    assert ids(search.search_papers(corpus, None, "schrödinger"))[:1] == ["2508.10004"]


def test_limit(corpus, embedder):
    assert len(search.search_papers(corpus, embedder, "neutrino", limit=2)) == 2


def test_related_papers(corpus):
    hits = search.related_papers(corpus, "2508.10001", limit=3)
    assert len(hits) == 3 and "2508.10001" not in ids(hits) and "2508.10007" not in ids(hits)
    assert ids(hits)[0] in {"2508.10003", "2508.10006"}
    assert [h.similarity for h in hits] == sorted((h.similarity for h in hits), reverse=True)
    assert search.related_papers(corpus, "2508.10001v2", limit=1)[0].arxiv_id == hits[0].arxiv_id
    assert search.related_papers(corpus, "2509.99999") == []  # no embedding: empty, not an error
    # Only vectors of the same model are compared.
    corpus.execute("UPDATE wove.paper_embeddings SET model = 'other' WHERE arxiv_id <> '2508.10001'")
    assert search.related_papers(corpus, "2508.10001") == []


def test_sql_functions_directly(corpus_url):
    with psycopg.connect(corpus_url) as c:
        rows = c.execute("SELECT arxiv_id, lexical_rank, vector_rank FROM serving.search_papers('neutrino', NULL)").fetchall()
        assert rows and all(v is None for _, _, v in rows)
        with pytest.raises(psycopg.errors.InvalidParameterValue):
            c.execute("SELECT * FROM serving.search_papers('x', NULL, lim => 0)")
        c.rollback()
        vec = c.execute("SELECT embedding FROM wove.paper_embeddings WHERE arxiv_id = '2508.10002'").fetchone()[0]
        rows = c.execute("SELECT arxiv_id FROM serving.search_papers('', %s::vector, lim => 1)", (vec,)).fetchall()
        assert rows == [("2508.10002",)]  # no text: vector ranking alone
        assert c.execute("SELECT count(*) FROM serving.related_papers('2508.10002')").fetchone()[0] == 5


@pytest.mark.parametrize("bad", ["", "   ", "\x00\x01", "x" * (search.MAX_QUERY_CHARS + 1), None, 42])
def test_bad_queries_are_rejected_clearly(corpus, bad):
    with pytest.raises(search.SearchInputError):
        search.search_papers(corpus, None, bad)


def test_bad_filters_are_rejected_clearly(corpus):
    for kwargs in ({"limit": 0}, {"limit": search.MAX_LIMIT + 1}, {"limit": True}, {"categories": ["cs.LG'; --"]},
                   {"published_from": dt.date(2025, 2, 1), "published_until": dt.date(2025, 1, 1)}):
        with pytest.raises(search.SearchInputError):
            search.search_papers(corpus, None, "neutrino", **kwargs)
    with pytest.raises(search.SearchInputError):
        search.related_papers(corpus, "'; DROP TABLE wove.papers; --")


def test_names_search_unavailable_until_tables_exist(corpus):
    with pytest.raises(search.SearchUnavailable, match="serving.researchers does not exist"):
        search.search_researchers(corpus, "Peng Wang")
    with pytest.raises(search.SearchUnavailable, match="serving.institutions does not exist"):
        search.search_institutions(corpus, "MIT")


def test_names_search_by_trigram_with_accents_folded(corpus):
    corpus.execute("CREATE TABLE serving.researchers (researcher_id bigint PRIMARY KEY, display_name text NOT NULL, "
                   "papers_here integer, fields jsonb, institutions jsonb)")
    corpus.execute("CREATE TABLE serving.institutions (institution_id text PRIMARY KEY, display_name text NOT NULL, ror text)")
    corpus.execute("INSERT INTO serving.researchers (researcher_id, display_name) VALUES (1, 'José García'), "
                   "(2, 'Peng Wang'), (3, 'Peng Wong'), (4, 'Anna Smith')")
    corpus.execute("INSERT INTO serving.institutions VALUES ('I1', 'Université Paris-Saclay', 'https://ror.org/03xjwb503'), "
                   "('I2', 'Tsinghua University', NULL)")
    corpus.commit()
    assert [h.id for h in search.search_researchers(corpus, "Jose Garcia")] == [1]
    hits = search.search_researchers(corpus, "peng wang")
    assert hits[0].id == 2 and hits[0].similarity == pytest.approx(1.0) and 4 not in [h.id for h in hits]
    inst = search.search_institutions(corpus, "universite paris saclay")
    assert inst[0].id == "I1" and inst[0].extra == "https://ror.org/03xjwb503"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(max_size=80) | st.sampled_from([
    "'; DROP TABLE wove.papers; --", "\" OR 1=1 --", "a & b | !c <-> d", "a:* & (b", "%s %(q)s {}", "\\x00",
    "-neutrino", "\"unterminated phrase", "or or or", "🙂 ∑ ψ", "$1 $2", "E'\\''",
]), lexical_only=st.booleans())
def test_fuzzed_queries_never_crash_or_inject(corpus, embedder, query, lexical_only):
    try:
        hits = search.search_papers(corpus, None if lexical_only else embedder, query, limit=5)
    except search.SearchInputError:
        return
    assert len(hits) <= 5
    assert corpus.execute("SELECT count(*) FROM wove.papers").fetchone()[0] == len(CORPUS)


def test_cli_search(corpus_url, monkeypatch, capsys):
    from wove_pipeline.cli import main
    monkeypatch.setenv("WOVE_DATABASE_URL", corpus_url)
    assert main(["search", "neutrino oscillations", "--category", "hep-ph", "--limit", "3"]) == 0
    out = capsys.readouterr().out
    assert "2508.10001" in out and "Neutrino oscillations in the early universe" in out
    assert main(["search", "neutrino", "--from", "2025-01-01", "--until", "2025-12-31", "--lexical-only"]) == 0
    assert "2508.10003" not in capsys.readouterr().out
    assert main(["search", "--related", "2508.10001", "--limit", "2"]) == 0
    assert len([l for l in capsys.readouterr().out.splitlines() if "2508." in l]) == 2
    assert main(["search", "Peng Wang", "--researchers"]) == 3
    assert "not available yet" in capsys.readouterr().err
    assert main(["search", "   "]) == 2
    assert "empty" in capsys.readouterr().err
    assert main(["search"]) == 2


class _EncodedOnce:
    """The embedder with the sample's queries encoded in one batch up front: the same model
    and vectors the search asks for one at a time (500 single-text calls cost a minute)."""

    def __init__(self, embedder, texts):
        self.config = embedder.config
        self._vectors = dict(zip(texts, embedder.encode(texts)))

    def encode(self, texts):
        return np.stack([self._vectors[t] for t in texts])


@pytest.mark.slow
def test_title_query_ranks_own_paper_first(database_url, embedder):
    """A paper's own title as the query ranks that paper first for >= 95% of 500 sampled
    sandbox papers. Titles shared by several papers (the sandbox reuses some) cannot
    single one out, so a top hit with the identical title counts for the bar; the strict
    rate is asserted too, lower (it measured 457/500)."""
    from wove_pipeline.sandbox.generator import generate_world
    world = generate_world(seed=11, papers_per_day=70, days=8)
    rows = world_paper_rows(world)
    upsert_papers(database_url, rows)
    with db.connect(database_url, autocommit=True) as conn:
        embed_papers(conn, embedder, days=DayRange.of(r["oai_datestamp"] for r in rows))
    visible = [r for r in rows if not r["withdrawn"]]
    sample = random.Random(0).sample(visible, 500)
    queries = _EncodedOnce(embedder, [r["title"] for r in sample])
    strict = ambiguous = 0
    with psycopg.connect(database_url) as conn:
        for r in sample:
            hits = search.search_papers(conn, queries, r["title"], limit=3)
            if hits and hits[0].arxiv_id == r["arxiv_id"]:
                strict += 1
            elif hits and hits[0].title == r["title"]:
                ambiguous += 1
    print(f"title query ranks own paper first: {strict}/500 strictly, {strict + ambiguous}/500 counting identical titles")
    assert (strict + ambiguous) / 500 >= 0.95
    assert strict / 500 >= 0.90


def test_ranking_past_the_candidate_caps(database_url, embedder):
    """Migration 0016 ranks at most 1000 + 1000 full-text candidates and takes the title list
    from a nearest-neighbour scan. 1,300 near-copies of one paper ('..., part N', each a
    perturbed copy of its vector) match every word of its title and are read before it: the
    paper with the exact title still comes first, in all three lists, and a paper that only
    full text finds (a word no other paper has) is still found."""

    from wove_pipeline.search.embedding import write_embeddings
    exact = "Graph neural networks for molecule property prediction"
    abstract = "Message passing networks predict molecular properties from atom graphs."
    copies = [paper_row(f"2601.{n:05d}", f"{exact}, part {n}", abstract, day=dt.date(2026, 1, 5))
              for n in range(1, 1301)]
    upsert_papers(database_url, copies)  # first: in index (physical) order before the paper
    upsert_papers(database_url, [
        paper_row("2602.00001", exact, abstract, day=dt.date(2026, 2, 2)),
        paper_row("2602.00002", "Ergodic averages along the primes",
                  "Mean convergence of ergodic averages; an aside on zymurgy.", categories=["math.DS"],
                  day=dt.date(2026, 2, 2)),
    ])
    with db.connect(database_url, autocommit=True) as conn:
        embed_papers(conn, embedder, days=DayRange.day(dt.date(2026, 2, 2)))
    with psycopg.connect(database_url) as conn:
        vec = np.array(embedder.encode([exact + "\n" + abstract])[0], dtype=np.float32)
        rng = np.random.default_rng(0)
        noisy = vec + rng.standard_normal((len(copies), vec.size)).astype(np.float32) * (0.48 / np.sqrt(vec.size))
        noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
        with conn.transaction():
            write_embeddings(conn, ((r["arxiv_id"], embedder.config.name, vec.size, r["content_hash"], v)
                                    for r, v in zip(copies, noisy)))
        conn.execute("ANALYZE wove.papers")
        # the caps bite: over 1000 papers match the title's words before the paper itself
        before = conn.execute(
            "SELECT count(*) FROM wove.papers WHERE search_tsv @@ websearch_to_tsquery('english', %s)"
            " AND ctid < (SELECT ctid FROM wove.papers WHERE arxiv_id = '2602.00001')", (exact,)).fetchone()[0]
        assert before > 1000

        hits = search.search_papers(conn, embedder, exact, limit=5, min_similarity=search.RELEVANCE_FLOOR)
        assert hits[0].arxiv_id == "2602.00001"
        assert (hits[0].lexical_rank, hits[0].vector_rank, hits[0].title_rank) == (1, 1, 1)
        assert all(h.title.startswith(exact) for h in hits)
        lexical_only = search.search_papers(conn, None, exact, limit=3)
        assert ids(lexical_only)[0] == "2602.00001"

        for embed in (embedder, None):
            hits = search.search_papers(conn, embed, "zymurgy", min_similarity=search.RELEVANCE_FLOOR)
            found = [h for h in hits if h.arxiv_id == "2602.00002"]
            assert found and found[0].lexical_rank == 1 and found[0].title_rank is None
        hits = search.search_papers(conn, embedder, "ergodic averages zymurgy", limit=3)
        assert ids(hits)[0] == "2602.00002"
