from datetime import date

import pytest

from wove_pipeline.semantic_scholar.parser import (
    S2FieldOfStudy,
    S2PaperAuthor,
    S2ParseError,
    parse_author,
    parse_author_batch,
    parse_author_papers_page,
    parse_citations_page,
    parse_paper,
    parse_paper_authors_page,
    parse_paper_batch,
    parse_references_page,
)

PAPER_BATCH = "semanticscholar/paper_batch_with_null.json"
AUTHOR_BATCH = "semanticscholar/author_batch_with_null.json"
PAPER_AUTHORS = "semanticscholar/paper_authors_page.json"
AUTHOR_DETAIL = "semanticscholar/author_detail_with_papers.json"


def test_every_s2_sample_is_covered(samples_dir):
    names = {p.name for p in (samples_dir / "semanticscholar").iterdir()}
    assert names == {p.split("/")[1] for p in (PAPER_BATCH, AUTHOR_BATCH, PAPER_AUTHORS, AUTHOR_DETAIL)}


def test_paper_batch_keeps_null_in_place(load_json):
    papers = parse_paper_batch(load_json(PAPER_BATCH), expected_len=4)
    assert len(papers) == 4
    assert papers[0] is None
    p = papers[1]
    assert p.paper_id == "c31c87c591a25c64fbaa82e8ac6a81831b6ac7ce"
    assert p.corpus_id == 470667
    assert p.doi == "10.2139/ssrn.288970"
    assert p.arxiv_id is None
    assert p.title == "How Much Should We Trust Differences-in-Differences Estimates?"
    assert p.abstract.startswith("Most Difference-in-Difference (DD) papers rely on many years of data")
    assert p.year == 2001
    assert p.publication_date == date(2001, 10, 1)
    assert p.venue is None  # "" on the wire means unknown
    assert (p.citation_count, p.influential_citation_count, p.reference_count) == (10670, 578, 30)
    assert p.fields_of_study == ("Psychology", "Economics", "Mathematics")
    assert p.s2_fields_of_study[-1] == S2FieldOfStudy("Economics", "s2-fos-model")
    assert len(p.s2_fields_of_study) == 4
    assert p.authors == (
        S2PaperAuthor("81141608", "Marianne Bertrand"),
        S2PaperAuthor("2259683", "E. Duflo"),
        S2PaperAuthor("2062143", "S. Mullainathan"),
    )
    assert p.external_ids["MAG"] == "2096684396"

    q = papers[2]
    assert q.title == "The Miracle of Microfinance? Evidence from a Randomized Evaluation"
    assert q.corpus_id == 3142471 and q.doi == "10.2139/ssrn.2250500"
    assert [a.name for a in q.authors] == ["E. Duflo", "A. Banerjee", "R. Glennerster", "Cynthia Kinnan"]

    r = papers[3]
    assert r.paper_id == "0f40b1f08821e22e859c6050916cec3667778613"
    assert r.doi == "10.1257/rct.1355"
    assert r.publication_date is None and r.fields_of_study == ()
    assert r.citation_count == 0 and r.year == 2023


def test_batch_length_mismatch_is_an_error(load_json):
    with pytest.raises(S2ParseError, match="4 results for 5 ids"):
        parse_paper_batch(load_json(PAPER_BATCH), expected_len=5)


def test_author_batch_keeps_null_in_place(load_json):
    authors = parse_author_batch(load_json(AUTHOR_BATCH), expected_len=4)
    assert authors[0] is None
    assert [(a.author_id, a.name) for a in authors[1:]] == [
        ("3234559", "E. Dijkstra"), ("1726629", "D. Parnas"), ("1711844", "I. Sommerville"),
    ]
    assert authors[1].paper_count is None and authors[1].dblp_names == () and authors[1].orcid is None


def test_paper_authors_page(load_json):
    authors, nxt = parse_paper_authors_page(load_json(PAPER_AUTHORS))
    assert nxt is None  # no "next" → last page
    assert [(a.author_id, a.name, a.h_index) for a in authors] == [
        ("2259683", "E. Duflo", 91),
        ("2237651454", "A. Banerjee", 90),
        ("4249203", "R. Glennerster", 31),
        ("31549526", "Cynthia Kinnan", 12),
    ]
    duflo = authors[0]
    assert duflo.dblp_names == ("Esther Duflo",)
    assert (duflo.paper_count, duflo.citation_count) == (282, 58740)
    assert duflo.affiliations == () and duflo.homepage is None
    assert duflo.url == "https://www.semanticscholar.org/author/2259683"
    assert authors[1].dblp_names == ("Abhijit Banerjee 0001",)
    assert authors[2].dblp_names == ()


def test_author_detail_with_papers(load_json):
    a = parse_author(load_json(AUTHOR_DETAIL))
    assert (a.author_id, a.name, a.dblp_names) == ("2262347", "A. Turing", ("Alan M. Turing",))
    assert (a.paper_count, a.citation_count, a.h_index) == (60, 12415, 23)
    assert len(a.papers) == 60
    first = a.papers[0]
    assert first.paper_id == "5d10faffeae5e9f2ae868626b29e6e9b8047cecb"
    assert first.title == "Dystopian or Utopian? Two Images of Alan Turing"
    assert first.doi is None and first.corpus_id == 251848799
    mind = next(p for p in a.papers if p.paper_id.startswith("2d5673ca"))
    assert mind.title == "Computing Machinery and Intelligence"
    assert mind.doi == "10.1093/mind/lix.236.433"  # lower-cased
    assert mind.year == 1950
    assert a.papers[-1].year is None
    assert all(p.authors and p.authors[0].author_id for p in a.papers)


def test_citations_and_references_pages():
    page = {
        "offset": 0,
        "next": 100,
        "data": [
            {"citingPaper": {"paperId": "aaa", "title": "x"}, "isInfluential": False, "contexts": []},
            {"citingPaper": {"paperId": None, "title": "unresolved"}},
            {"citingPaper": {"paperId": "bbb"}, "extraField": 1},
        ],
    }
    assert parse_citations_page(page) == (["aaa", "bbb"], 100)
    assert parse_citations_page({"offset": 1800, "data": []}) == ([], None)
    assert parse_references_page({"offset": 0, "data": [{"citedPaper": {"paperId": "ccc"}}]}) == (["ccc"], None)
    papers, nxt = parse_author_papers_page({"offset": 0, "next": 2, "data": [{"paperId": "p1", "title": "T"}]})
    assert [p.paper_id for p in papers] == ["p1"] and nxt == 2


def test_arxiv_external_id_and_missing_fields():
    p = parse_paper({"paperId": "x", "externalIds": {"ArXiv": "2508.06001", "DOI": "10.48550/ARXIV.2508.06001"},
                     "authors": [{"authorId": None, "name": "Anon Ymous"}], "unknownField": {"a": 1}})
    assert p.arxiv_id == "2508.06001"
    assert p.doi == "10.48550/arxiv.2508.06001"
    assert p.authors == (S2PaperAuthor(None, "Anon Ymous"),)
    assert p.title is None and p.abstract is None and p.citation_count is None
    a = parse_author({"authorId": "1", "externalIds": {"ORCID": "0000-0002-1825-0097", "DBLP": ["A B"]}})
    assert a.orcid == "0000-0002-1825-0097" and a.dblp_names == ("A B",)


@pytest.mark.parametrize(
    "fn, payload",
    [
        (parse_paper_batch, {"data": []}),
        (parse_paper_batch, [1]),
        (parse_paper_batch, [{"title": "no id"}]),
        (parse_paper_batch, [{"paperId": "x", "citationCount": "many"}]),
        (parse_paper_batch, [{"paperId": "x", "citationCount": True}]),
        (parse_paper_batch, [{"paperId": "x", "authors": "A, B"}]),
        (parse_paper_batch, [{"paperId": "x", "externalIds": []}]),
        (parse_author_batch, [{"name": "no id"}]),
        (parse_author_batch, [{"authorId": "1", "externalIds": {"DBLP": [3]}}]),
        (parse_citations_page, {"offset": 0}),
        (parse_citations_page, {"data": [{"citingPaper": "aaa"}]}),
        (parse_citations_page, {"data": [], "next": "100"}),
        (parse_paper_authors_page, []),
    ],
)
def test_structurally_wrong_payloads(fn, payload):
    with pytest.raises(S2ParseError):
        fn(payload)
