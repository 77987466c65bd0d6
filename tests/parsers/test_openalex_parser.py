from datetime import date

import pytest

from wove_pipeline.openalex.parser import (
    OpenAlexInstitutionRef,
    OpenAlexParseError,
    bare_doi,
    bare_orcid,
    parse_author,
    parse_authors_page,
    parse_institution,
    parse_institutions_page,
    parse_work,
    parse_works_page,
    rebuild_abstract,
    short_id,
)

WORKS = "openalex/works_list_2026_W3038568908.json"
WORK_2023 = "openalex/work_single_W2741809807_2023.json"
AUTHORS = "openalex/authors_list_2026_A5043579160.json"
INSTITUTIONS = "openalex/institutions_list_2026_I27837315.json"

NINS = OpenAlexInstitutionRef("I199525922", "055n47h92", "National Institutes of Natural Sciences", "JP", "facility")
NIFS = OpenAlexInstitutionRef("I4210108322", "01t3wyv61", "National Institute for Fusion Science", "JP", "facility")


def test_every_openalex_sample_is_covered(samples_dir):
    names = {p.name for p in (samples_dir / "openalex").iterdir()}
    assert names == {p.split("/")[1] for p in (WORKS, WORK_2023, AUTHORS, INSTITUTIONS)}


def test_works_page_2026(load_json):
    works, next_cursor, count = parse_works_page(load_json(WORKS))
    assert next_cursor is None  # basic paging: no cursor in meta
    assert count == 11164054
    [w] = works
    assert w.work_id == "W3038568908"
    assert w.doi == "10.1585/pfr.15.2402039"
    assert w.arxiv_id is None
    assert w.title == "Radiation Resistant Camera System for Monitoring Deuterium Plasma Discharges in the Large Helical Device"
    assert w.publication_date == date(2020, 6, 8) and w.publication_year == 2020
    assert w.type == "article"
    assert w.cited_by_count == 801216  # the real upstream anomaly, passed through untouched
    assert w.counts_by_year == ((2026, 1), (2025, 801210), (2024, 2), (2022, 2), (2021, 1))
    assert w.is_authors_truncated is False
    assert w.language == "en"
    assert len(w.referenced_works) == 8 and w.referenced_works[0] == "W2069091362"

    first, group = w.authorships
    assert first.position == 0 and first.author_position == "first"
    assert first.author_id == "A5039600762"
    assert first.display_name == "M. Shoji"
    assert first.raw_author_name == "Mamoru SHOJI"
    assert first.orcid == "0000-0003-0655-7347"
    assert first.institutions == (NINS, NIFS)
    assert first.raw_affiliation_strings == ("National Institute for Fusion Science, National Institutes of Natural Sciences",)
    assert first.is_corresponding is True
    # Group author with a null id.
    assert group.position == 1 and group.author_position == "last"
    assert group.author_id is None
    assert group.display_name == "LHD Experiment Group" and group.orcid is None
    assert group.is_corresponding is False

    t = w.primary_topic
    assert (t.topic_id, t.display_name) == ("T10346", "Magnetic confinement fusion research")
    assert (t.subfield_id, t.subfield) == ("3106", "Nuclear and High Energy Physics")
    assert (t.field_id, t.field, t.domain_id, t.domain) == ("31", "Physics and Astronomy", "3", "Physical Sciences")
    assert t.score == pytest.approx(0.9991)
    assert [x.topic_id for x in w.topics][0] == "T10346" and len(w.topics) == 3
    assert w.abstract.startswith(
        "Radiation resistant camera system was constructed for monitoring deuterium plasma discharges in the Large "
        "Helical Device (LHD). This system has contributed to safe operation"
    )


def test_work_2023_shape(load_json):
    w = parse_work(load_json(WORK_2023))
    assert w.work_id == "W2741809807"
    assert w.doi == "10.7717/peerj.4375"
    assert w.title == "The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles"
    assert w.publication_date == date(2018, 2, 13)
    assert w.cited_by_count == 565
    assert w.primary_topic is None and w.topics == ()  # pre-topics era
    assert w.counts_by_year == ((2022, 13), (2021, 108))
    # The sample's inverted index is trimmed by its author: words at 57, 73, … only.
    assert w.abstract == "Despite growing interest in in in in in"
    assert [a.display_name for a in w.authorships] == [
        "Heather A. Piwowar", "Jason Priem", "Vincent Larivière", "Juan Pablo Alperín", "Lisa Matthias",
        "Bree Norlander", "Ashley Farley", "Jevin D. West", "Stefanie Haustein",
    ]
    assert [a.author_position for a in w.authorships] == ["first"] + ["middle"] * 7 + ["last"]
    alperin = w.authorships[3]
    assert alperin.orcid is None and alperin.author_id == "A5045110184"
    assert alperin.raw_author_name == "Juan Pablo Alperin"
    assert alperin.raw_affiliation_strings == (
        "Canadian Institute for Studies in Publishing, Simon Fraser University, Vancouver, BC, Canada.",
        "Public Knowledge Project, Canada.",
    )
    # Institution without lineage (2023) still parses.
    assert w.authorships[0].institutions == (
        OpenAlexInstitutionRef("I4200000001", "02nr0ka47", "Our Research", "CA", "nonprofit"),
    )
    assert w.authorships[0].orcid == "0000-0003-1613-5981"


def test_singular_raw_affiliation_string_only():
    w = parse_work({
        "id": "https://openalex.org/W1",
        "authorships": [{"author": {"id": "https://openalex.org/A1", "display_name": "X"},
                         "raw_affiliation_string": "Dept of X, Univ Y"}],
    })
    assert w.authorships[0].raw_affiliation_strings == ("Dept of X, Univ Y",)
    w = parse_work({
        "id": "https://openalex.org/W2",
        "authorships": [{"author": {}, "affiliations": [{"raw_affiliation_string": "Lab Z", "institution_ids": []}]}],
    })
    assert w.authorships[0].raw_affiliation_strings == ("Lab Z",)
    assert w.authorships[0].author_id is None


def test_arxiv_id_from_doi_or_location():
    w = parse_work({"id": "https://openalex.org/W1", "doi": "https://doi.org/10.48550/arXiv.2205.01833"})
    assert w.doi == "10.48550/arxiv.2205.01833" and w.arxiv_id == "2205.01833"
    w = parse_work({
        "id": "https://openalex.org/W2",
        "doi": "https://doi.org/10.1145/1234",
        "locations": [{"landing_page_url": "https://doi.org/10.1145/1234"},
                      {"landing_page_url": "https://arxiv.org/abs/2508.06001v2", "version": "submittedVersion"}],
        "is_authors_truncated": True,
    })
    assert w.arxiv_id == "2508.06001" and w.doi == "10.1145/1234"
    assert w.is_authors_truncated is True
    w = parse_work({"id": "https://openalex.org/W3", "locations": [{"pdf_url": "http://arxiv.org/pdf/hep-th/9901001v1"}]})
    assert w.arxiv_id == "hep-th/9901001"


def test_authors_page_orcid_from_ids(load_json):
    authors, next_cursor, count = parse_authors_page(load_json(AUTHORS))
    assert next_cursor is None and count == 8329749
    [a] = authors
    assert a.author_id == "A5043579160"
    assert a.display_name == "T. Tokuzawa"
    assert a.orcid == "0000-0001-5473-2109"  # top-level orcid is null; ids.orcid has it
    assert a.works_count == 671592 and a.cited_by_count == 6540
    assert (a.h_index, a.i10_index) == (40, 184)
    assert a.two_year_mean_citedness == pytest.approx(9.238536019859872e-05)
    assert "LHD Experiment Group" in a.alternatives and "K. Tanaka" in a.alternatives
    assert len(a.alternatives) == 10
    assert a.last_known_institution_ids == ("I135598925", "I199525922", "I200475212", "I4210108322")
    assert len(a.affiliations) == 17
    ornl = a.affiliations[0]
    assert (ornl.institution_id, ornl.years) == ("I1289243028", (2008,))
    assert ornl.institution.ror == "01qz5mb56"
    assert ornl.institution.display_name == "Oak Ridge National Laboratory"
    assert a.affiliations[1][:2] == ("I135598925", (2026, 2025, 2024, 2023, 2022, 2014, 2013))


def test_author_top_level_orcid_wins():
    a = parse_author({"id": "https://openalex.org/A1", "orcid": "https://orcid.org/0000-0002-1825-0097",
                      "ids": {"orcid": "https://orcid.org/0000-0001-0000-0000"},
                      "last_known_institution": {"id": "https://openalex.org/I9"}})
    assert a.orcid == "0000-0002-1825-0097"
    assert a.last_known_institution_ids == ("I9",)  # deprecated singular still read


def test_institutions_page(load_json):
    insts, next_cursor, count = parse_institutions_page(load_json(INSTITUTIONS))
    assert next_cursor is None and count == 31340
    [i] = insts
    assert i.institution_id == "I27837315"
    assert i.ror == "00jmfr291"
    assert i.display_name == "University of Michigan"
    assert (i.country_code, i.type) == ("US", "education")
    assert i.aliases == ("UM", "UMich", "University of Michigan", "University of Michigan–Ann Arbor", "Université du Michigan")
    assert i.lineage == ("I27837315",)
    assert i.homepage_url == "https://www.umich.edu" and i.city == "Ann Arbor"
    assert i.works_count == 941687


def test_cursor_paging_envelope():
    works, nxt, count = parse_works_page({"meta": {"count": 3, "next_cursor": "IlsxNjA5MzcyODAwMDAwLCAnaHR0cHM6Ly9vcGVuYWxleC5vcmcvVzI0ODg0OTk1NjQnXSI="}, "results": []})
    assert works == [] and nxt.startswith("Ils") and count == 3
    assert parse_works_page({"meta": {"count": 3, "next_cursor": None}, "results": []})[1] is None


def test_helpers():
    assert short_id("https://openalex.org/W123") == "W123"
    assert short_id(None) is None
    assert bare_doi("https://doi.org/10.1/ABC") == "10.1/abc"
    assert bare_doi("not a doi") is None
    assert bare_orcid("https://orcid.org/0000-0002-1694-233x") == "0000-0002-1694-233X"
    assert rebuild_abstract({"b": [1], "a": [0, 2]}) == "a b a"
    assert rebuild_abstract({"far": [10**12]}) == "far"  # no giant allocation
    assert rebuild_abstract(None) is None and rebuild_abstract({}) is None


@pytest.mark.parametrize(
    "fn, payload",
    [
        (parse_works_page, []),
        (parse_works_page, {"meta": {}}),
        (parse_works_page, {"results": {}}),
        (parse_works_page, {"results": [{"doi": "no id"}]}),
        (parse_works_page, {"results": [{"id": "https://openalex.org/W1", "authorships": {}}]}),
        (parse_works_page, {"results": [{"id": "https://openalex.org/W1", "cited_by_count": "lots"}]}),
        (parse_works_page, {"results": [{"id": "https://openalex.org/W1", "abstract_inverted_index": {"a": "0"}}]}),
        (parse_works_page, {"meta": {"count": "x"}, "results": []}),
        (parse_work, "W1"),
        (parse_author, {"id": "https://openalex.org/A1", "affiliations": [{"institution": {}, "years": ["2020"]}]}),
        (parse_authors_page, {"results": [{"id": 5}]}),
        (parse_institution, {"id": "https://openalex.org/I1", "lineage": "I1"}),
        (parse_institutions_page, None),
    ],
)
def test_structurally_wrong_payloads(fn, payload):
    with pytest.raises(OpenAlexParseError):
        fn(payload)
