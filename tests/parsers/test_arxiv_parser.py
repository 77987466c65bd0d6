from datetime import date, datetime, timezone

import pytest

from wove_pipeline.arxiv.authors import Author, split_raw_authors
from wove_pipeline.arxiv.metadata_formats import parse_arxiv_metadata, parse_arxivraw_metadata, split_dois
from wove_pipeline.arxiv.oai_pages import parse_oai_page
from wove_pipeline.arxiv.oai_xml import OaiError, OaiParseError, RecordParseError
from wove_pipeline.arxiv.paper_record import merge_paper

RAW_PAGE = "arxiv/listrecords_arXivRaw_legacy_with_token.xml"
ARXIV_PAGE = "arxiv/listrecords_arXiv_legacy_physics-hep-ex.xml"
COLLAB = "arxiv/getrecord_arXiv_legacy_collaboration_affiliations.xml"
NO_MATCH = "arxiv/error_noRecordsMatch_legacy.xml"


def utc(*a):
    return datetime(*a, tzinfo=timezone.utc)


def test_every_arxiv_sample_is_covered(samples_dir):
    # A new sample must get assertions here; this fails until it does.
    names = {p.name for p in (samples_dir / "arxiv").iterdir()}
    assert names == {p.split("/")[1] for p in (RAW_PAGE, ARXIV_PAGE, COLLAB, NO_MATCH)}


@pytest.mark.parametrize("name", [RAW_PAGE, ARXIV_PAGE, COLLAB, NO_MATCH])
def test_every_sample_parses_into_rows(load_bytes, name):
    page = parse_oai_page(load_bytes(name))
    for rec in page.records:
        if rec.metadata_prefix == "arXiv":
            paper = merge_paper(parse_arxiv_metadata(rec.xml), None, rec.datestamp)
        else:
            paper = merge_paper(None, parse_arxivraw_metadata(rec.xml), rec.datestamp)
        assert paper.arxiv_id == rec.arxiv_id
        assert paper.published.tzinfo is not None
        # the pipeline parses the page's elements in place: the same as the record's own XML
        parse = parse_arxiv_metadata if rec.metadata_prefix == "arXiv" else parse_arxivraw_metadata
        assert parse(rec.element) == parse(rec.xml)
        row = paper.as_row()
        assert set(row) == {
            "arxiv_id", "is_old_style", "current_version", "versions", "title_tex", "title",
            "abstract_tex", "abstract", "authors", "authors_display", "categories",
            "primary_category", "published", "updated", "dois", "journal_ref", "comments",
            "report_no", "license", "withdrawn", "slug", "abs_url", "pdf_url", "oai_datestamp",
        }


# ---------------------------------------------------------------------------- pages


def test_no_records_match_is_an_empty_page(load_bytes):
    page = parse_oai_page(load_bytes(NO_MATCH))
    assert page.is_empty_result
    assert page.records == []
    assert page.resumption_token is None and page.is_last_page
    assert page.error_code == "noRecordsMatch"
    assert page.error_message == "Set argument doesn't match any sets. The setSpec was 'moo'"
    assert page.request == {"verb": "ListRecords", "metadataPrefix": "arXivRaw", "set": "moo"}


def test_legacy_token_page(load_bytes):
    page = parse_oai_page(load_bytes(RAW_PAGE))
    assert not page.is_empty_result
    assert page.resumption_token == "726959|1001"
    assert page.cursor == 0
    assert page.complete_list_size == 58011
    assert page.token_expiration is None
    assert page.response_date == "2015-01-06T20:49:59Z"
    assert [r.arxiv_id for r in page.records] == [
        "0704.0471", "0704.0716", "0704.0874", "0704.1109", "0704.1114", "0704.1586",
    ]
    first = page.records[0]
    assert first.identifier == "oai:arXiv.org:0704.0471"
    assert first.datestamp == "2014-11-18"
    assert first.set_specs == ("physics:nucl-ex", "physics:nucl-th")
    assert first.metadata_prefix == "arXivRaw"
    assert not first.deleted
    # The kept XML is a self-contained record that parses again on its own.
    assert first.xml.startswith(b"<record")
    assert parse_arxivraw_metadata(first.xml).arxiv_id == "0704.0471"
    assert page.records[1].set_specs == ("math", "physics:math-ph")


def test_page_without_token_is_last(load_bytes):
    page = parse_oai_page(load_bytes(ARXIV_PAGE))
    assert page.resumption_token is None and page.is_last_page
    assert [r.arxiv_id for r in page.records] == ["1706.05371", "1706.09418", "1707.00874"]
    assert all(r.metadata_prefix == "arXiv" for r in page.records)
    assert all(r.set_specs == ("physics:hep-ex",) for r in page.records)


def _envelope(body: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">'
        "<responseDate>2025-03-01T00:00:00Z</responseDate>"
        '<request verb="ListRecords">https://oaipmh.arxiv.org/oai</request>' + body + "</OAI-PMH>"
    ).encode()


def test_new_server_token_and_empty_token():
    token = "verb%3DListRecords%26from%3D2023-10-11%26until%3D2023-12-03%26metadataPrefix%3Doai_dc%26skip%3D300"
    page = parse_oai_page(
        _envelope(f"<ListRecords><resumptionToken expirationDate='2025-03-02T00:00:00Z'>{token}</resumptionToken></ListRecords>")
    )
    assert page.resumption_token == token
    assert page.token_expiration == "2025-03-02T00:00:00Z"
    assert page.cursor is None and page.complete_list_size is None
    last = parse_oai_page(_envelope("<ListRecords><resumptionToken/></ListRecords>"))
    assert last.resumption_token is None and last.is_last_page and not last.is_empty_result


def test_deleted_header_and_list_identifiers():
    page = parse_oai_page(
        _envelope(
            "<ListIdentifiers>"
            '<header status="deleted"><identifier>oai:arXiv.org:hep-th/9901001</identifier>'
            "<datestamp>2025-01-02</datestamp><setSpec>physics:hep-th</setSpec></header>"
            "<header><identifier>oai:arXiv.org:2501.00001</identifier><datestamp>2025-01-02</datestamp>"
            "<setSpec>cs:cs:LG</setSpec></header>"
            "</ListIdentifiers>"
        )
    )
    assert [(r.arxiv_id, r.deleted, r.metadata_prefix) for r in page.records] == [
        ("hep-th/9901001", True, None),
        ("2501.00001", False, None),
    ]
    assert page.records[1].set_specs == ("cs:cs:LG",)


def test_other_oai_errors_raise():
    with pytest.raises(OaiError) as e:
        parse_oai_page(_envelope('<error code="badResumptionToken">expired</error>'))
    assert e.value.code == "badResumptionToken"
    assert e.value.message == "expired"


@pytest.mark.parametrize(
    "body",
    [b"", b"   ", b"<html><body>503 Service Unavailable</body></html>", b"<OAI-PMH", b"\x00\xff\xfe",
     b'<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"></OAI-PMH>'],
)
def test_malformed_pages_raise_parse_error(body):
    with pytest.raises(OaiParseError):
        parse_oai_page(body)


def test_truncated_sample_raises_parse_error(load_bytes):
    data = load_bytes(RAW_PAGE)
    with pytest.raises(OaiParseError):
        parse_oai_page(data[: len(data) // 2])


def test_dtd_with_entities_is_refused():
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>'
        b'<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords>'
        b"<resumptionToken>&lol2;</resumptionToken></ListRecords></OAI-PMH>"
    )
    with pytest.raises(OaiParseError, match="DTD"):
        parse_oai_page(bomb)


# ---------------------------------------------------------------------------- arXiv format


def test_collaboration_artefact(load_bytes):
    meta = parse_arxiv_metadata(load_bytes(COLLAB))
    assert meta.arxiv_id == meta.id == "1606.07538"
    assert meta.created == date(2016, 6, 23) and meta.updated is None
    kam = "Kamioka Observatory, Institute for Cosmic Ray Research, University of Tokyo"
    kavli = "Kavli Institute for the Physics and Mathematics of the Universe"
    assert meta.authors[0] == Author("Super-Kamiokande Collaboration", None, None, (kam, kavli), True)
    assert meta.authors[0].display_name == "Super-Kamiokande Collaboration"
    # The bogus ":" author is dropped, with a warning.
    assert [a.display_name for a in meta.authors] == [
        "Super-Kamiokande Collaboration", "K. Abe", "Y. Suzuki", "M. R. Vagins", "C. M. Nantais",
        "J. F. Martin", "P. de Perio",
    ]
    assert not any(a.keyname == ":" for a in meta.authors)
    assert any("':'" in w for w in meta.warnings)
    assert meta.authors[3] == Author(
        "Vagins", "M. R.", None, (kavli, "Department of Physics and Astronomy, University of California, Irvine"), False
    )
    assert meta.authors[6].keyname == "de Perio"
    assert meta.title == "Solar Neutrino Measurements in Super-Kamiokande-IV"
    assert meta.categories == ("hep-ex", "physics.ins-det")
    assert meta.comments == "Submitted to Physical Review D; 23 pages, 40 figures"
    assert meta.license == "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"
    assert meta.dois == ()
    assert meta.abstract.startswith("Upgraded electronics, improved water system dynamics")


def test_arxiv_format_records(load_bytes):
    page = parse_oai_page(load_bytes(ARXIV_PAGE))
    m1, m2, m3 = (parse_arxiv_metadata(r.xml) for r in page.records)
    assert m1.title == "Evaluation of Silicon Photomultipliers for use as Photosensors in Liquid Xenon Detectors"
    assert [a.keyname for a in m1.authors] == [
        "Anderson", "Cutter", "Dhaliwal", "Dalager", "Godfrey", "Hillbrand", "Irving", "Manalaysay",
        "Montoya", "Morad", "Neher", "Stolp", "Tripathi",
    ]
    assert m1.authors[0] == Author("Anderson", "Tyler")
    assert (m1.created, m1.updated) == (date(2017, 6, 16), date(2017, 12, 12))
    assert m1.categories == ("physics.ins-det", "hep-ex")

    assert m2.title == "R-Parity Violation at the LHC"
    assert [a.display_name for a in m2.authors] == [
        "Daniel Dercks", "Herbi Dreiner", "Manuel E. Krauss", "Toby Opferkuch", "Annika Reinert",
    ]
    assert m2.report_no == "BONN-TH-2017-03"
    assert m2.journal_ref == "Eur. Phys. J. C (2017) 77:856"
    assert m2.dois == ("10.1140/epjc/s10052-017-5414-4",)
    assert m2.comments == (
        "43 pages, 13 tables, 17 figures; updated Figs. 11-17 and Tab. 12 including NLO corrections; "
        "version accepted for publication in EPJC"
    )
    assert m2.categories == ("hep-ph", "hep-ex")

    assert m3.title == "Implications of right-handed neutrinos in $B-L$ extended standard model with scalar dark matter"
    assert m3.report_no == "IITH-PH-0001/17, IMSc/2017/07/05"
    assert m3.categories == ("hep-ph", "astro-ph.CO", "hep-ex")


def test_merge_arxiv_only(load_bytes):
    page = parse_oai_page(load_bytes(ARXIV_PAGE))
    rec = page.records[2]
    paper = merge_paper(parse_arxiv_metadata(rec.xml), None, rec.datestamp)
    assert paper.title == "Implications of right-handed neutrinos in B-L extended standard model with scalar dark matter"
    assert paper.title_tex == "Implications of right-handed neutrinos in $B-L$ extended standard model with scalar dark matter"
    assert paper.primary_category == "hep-ph"
    assert paper.published == utc(2017, 7, 4)
    assert paper.updated == utc(2017, 12, 13)
    assert paper.current_version == 2  # updated exists but no arXivRaw: a lower bound
    assert "current_version 2 is a lower bound" in " ".join(paper.warnings)
    assert paper.versions == ()
    assert paper.authors_display == "Priyotosh Bandyopadhyay, Eung Jin Chun, Rusa Mandal"
    assert paper.oai_datestamp == date(2017, 12, 14)
    assert paper.slug == "1707.00874-implications-of-right-handed-neutrinos-in-b-l-extended-standard-model-with-scalar-dark-matter"
    assert paper.abs_url == "https://arxiv.org/abs/1707.00874"
    assert paper.pdf_url == "https://arxiv.org/pdf/1707.00874"
    assert "O(TeV)" in paper.abstract.replace("𝒪", "O")
    assert "Z'" in paper.abstract and "$" not in paper.abstract
    assert paper.abstract_tex.startswith("We investigate the Standard Model (SM) with a $U(1)_{B-L}$ gauge extension\n")
    assert not paper.withdrawn and not paper.is_old_style


def test_merge_collaboration_row(load_bytes):
    meta = parse_arxiv_metadata(load_bytes(COLLAB))
    paper = merge_paper(meta, None, "2016-06-27")
    row = paper.as_row()
    assert row["authors"][0] == {
        "keyname": "Super-Kamiokande Collaboration",
        "forenames": None,
        "suffix": None,
        "affiliations": [
            "Kamioka Observatory, Institute for Cosmic Ray Research, University of Tokyo",
            "Kavli Institute for the Physics and Mathematics of the Universe",
        ],
        "is_collaboration": True,
    }
    assert row["authors_display"].startswith("Super-Kamiokande Collaboration, K. Abe, Y. Suzuki")
    assert row["current_version"] == 1
    assert row["published"] == utc(2016, 6, 23)
    assert len(row["authors"]) == 7


# ---------------------------------------------------------------------------- arXivRaw


def _raw_records(load_bytes):
    return {r.arxiv_id: r for r in parse_oai_page(load_bytes(RAW_PAGE)).records}


def test_arxivraw_several_dois_in_one_field(load_bytes):
    recs = _raw_records(load_bytes)
    raw = parse_arxivraw_metadata(recs["0704.0471"].xml)
    assert raw.dois == ("10.1103/physrevc.76.024606", "10.1103/physrevc.76.039902")
    assert raw.journal_ref == "Phys.Rev.C76:024606,2007; Erratum-ibid.C76:039902,2007"
    raw = parse_arxivraw_metadata(recs["0704.1586"].xml)
    assert raw.dois == ("10.1103/physrevc.76.014611", "10.1103/physrev.c77.049901")


def test_arxivraw_versions_and_fields(load_bytes):
    recs = _raw_records(load_bytes)
    raw = parse_arxivraw_metadata(recs["0704.0716"].xml)
    assert raw.submitter == "Christoph Richard"
    assert [(v.n, v.date, v.size_kb, v.source_type) for v in raw.versions] == [
        (1, utc(2007, 4, 5, 12, 45, 3), 43, None),
        (2, utc(2007, 9, 28, 15, 13, 43), 48, None),
        (3, utc(2008, 2, 29, 16, 5, 39), 48, None),
        (4, utc(2008, 11, 14, 9, 7, 25), 49, None),
    ]
    assert raw.title == "Limit distributions and scaling functions"
    assert raw.authors_text == "Christoph Richard"
    assert raw.categories == ("math-ph", "math.MP")
    assert raw.msc_class == "05A15, 05A16"
    assert raw.journal_ref == (
        "Polygons, polyominoes and polycubes, 247-299, Lecture Notes in Phys., 775, Springer, Dordrecht, 2009"
    )
    assert raw.license == "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"
    assert raw.dois == ()


def test_merge_arxivraw_only(load_bytes):
    recs = _raw_records(load_bytes)
    p = merge_paper(None, parse_arxivraw_metadata(recs["0704.0471"].xml), recs["0704.0471"].datestamp)
    assert p.title == (
        "Density dependence of the symmetry energy and the nuclear equation of state: "
        "A Dynamical and Statistical model perspective"
    )
    assert p.authors_display == "D.V. Shetty, S.J. Yennello, G.A. Souliotis"
    assert [(a.keyname, a.forenames) for a in p.authors] == [
        ("Shetty", "D.V."), ("Yennello", "S.J."), ("Souliotis", "G.A."),
    ]
    assert p.published == p.updated == utc(2007, 4, 3, 22, 4, 11)
    assert p.current_version == 1
    assert p.oai_datestamp == date(2014, 11, 18)
    assert 'extremely " stiff " and " soft "' in p.abstract
    assert p.as_row()["versions"] == [
        {"version": 1, "submitted": "2007-04-03T22:04:11+00:00", "size_kb": 294, "source_type": None}
    ]

    p = merge_paper(None, parse_arxivraw_metadata(recs["0704.0874"].xml), recs["0704.0874"].datestamp)
    assert p.current_version == 3
    assert p.published == utc(2007, 4, 6, 11, 7, 1)
    assert p.updated == utc(2014, 11, 20, 15, 3, 16)
    assert p.primary_category == "math.AG"
    assert p.title == "Higher ramification and varieties of secant divisors on the generic curve"

    p = merge_paper(None, parse_arxivraw_metadata(recs["0704.1109"].xml), date(2014, 11, 18))
    assert p.authors_display == "Valeria M. Rosa, Patricio S. letelier"
    assert p.oai_datestamp == date(2014, 11, 18)

    p = merge_paper(None, parse_arxivraw_metadata(recs["0704.1114"].xml), "2014-11-18")
    assert p.authors_display == "T. S. Barman"
    assert p.dois == ("10.1086/518736",)

    p = merge_paper(None, parse_arxivraw_metadata(recs["0704.1586"].xml), "2014-11-18")
    assert p.title == "Core excitation in the elastic scattering and breakup of ¹¹Be on protons"
    assert p.title_tex == "Core excitation in the elastic scattering and breakup of $^{11}$Be on protons"
    assert p.slug == "0704.1586-core-excitation-in-the-elastic-scattering-and-breakup-of-11be-on-protons"
    assert p.authors_display == "N.C. Summers, F.M. Nunes"


def test_merge_both_formats_prefers_raw_text_and_structured_authors(load_bytes):
    recs = _raw_records(load_bytes)
    raw = parse_arxivraw_metadata(recs["0704.1586"].xml)
    meta_xml = (
        '<arXiv xmlns="http://arxiv.org/OAI/arXiv/"><id>0704.1586</id><created>2007-04-12</created>'
        "<authors><author><keyname>Summers</keyname><forenames>Neil C.</forenames><affiliation>MSU</affiliation></author>"
        "<author><keyname>Nunes</keyname><forenames>Filomena M.</forenames></author></authors>"
        "<title>Core excitation … 11Be on protons</title><categories>nucl-th</categories>"
        "<doi>10.1103/PhysRevC.76.014611; 10.9999/extra</doi></arXiv>"
    ).encode()
    p = merge_paper(parse_arxiv_metadata(meta_xml), raw, "2014-11-18")
    assert p.title_tex.endswith("$^{11}$Be on protons")
    assert p.authors_display == "Neil C. Summers, Filomena M. Nunes"
    assert p.authors[0].affiliations == ("MSU",)
    assert p.dois == ("10.1103/physrevc.76.014611", "10.1103/physrev.c77.049901", "10.9999/extra")
    assert p.published == utc(2007, 4, 12, 14, 18, 58)


def _raw_xml(**over) -> bytes:
    parts = {
        "id": "<id>hep-th/9901001</id>",
        "versions": '<version version="v1"><date>Fri, 1 Jan 1999 10:00:00 GMT</date><size>10kb</size></version>'
        '<version version="v2"><date>Sat, 2 Jan 1999 10:00:00 GMT</date><size>1kb</size><source_type>W</source_type></version>',
        "title": "<title>A \\ourmethod title</title>",
        "authors": "<authors>A. One (MIT), B. Two and C. Three</authors>",
        "categories": "<categories>hep-th</categories>",
        "comments": "",
    }
    parts.update(over)
    return ('<arXivRaw xmlns="http://arxiv.org/OAI/arXivRaw/">' + "".join(parts.values()) + "</arXivRaw>").encode()


def test_old_style_withdrawn_and_macro():
    p = merge_paper(None, parse_arxivraw_metadata(_raw_xml()), "1999-01-02")
    assert p.arxiv_id == "hep-th/9901001" and p.is_old_style
    assert p.withdrawn
    assert p.current_version == 2
    assert p.title == "A ourmethod title"
    assert p.title_tex == "A \\ourmethod title"
    assert p.slug == "hep-th-9901001-a-ourmethod-title"
    assert p.abs_url == "https://arxiv.org/abs/hep-th/9901001"
    assert [(a.keyname, a.forenames, a.affiliations) for a in p.authors] == [
        ("One", "A.", ("MIT",)), ("Two", "B.", ()), ("Three", "C.", ()),
    ]
    # Withdrawal stated only in the comments (legacy records have no source_type).
    one_version = '<version version="v1"><date>Fri, 1 Jan 1999 10:00:00 GMT</date><size>10kb</size></version>'
    xml = _raw_xml(versions=one_version, comments="<comments>This paper has been withdrawn by the author</comments>")
    p = merge_paper(None, parse_arxivraw_metadata(xml), "1999-01-02")
    assert p.withdrawn and p.current_version == 1
    p = merge_paper(None, parse_arxivraw_metadata(_raw_xml(versions=one_version)), "1999-01-02")
    assert not p.withdrawn


@pytest.mark.parametrize(
    "over, reason",
    [
        ({"id": ""}, "no <id>"),
        ({"id": "<id>not-an-id</id>"}, "not an arXiv id"),
        ({"title": ""}, "no title"),
        ({"authors": ""}, "no usable authors"),
        ({"categories": ""}, "no categories"),
        ({"versions": '<version version="v1"><date>yesterday</date></version>'}, "bad RFC-822 date"),
        ({"versions": '<version version="vX"><date>Fri, 1 Jan 1999 10:00:00 GMT</date></version>'}, "bad version"),
        ({"versions": ""}, "no version dates"),
    ],
)
def test_unusable_records_raise_record_parse_error(over, reason):
    with pytest.raises(RecordParseError) as e:
        merge_paper(None, parse_arxivraw_metadata(_raw_xml(**over)), "2025-01-01")
    assert reason in e.value.reason


def test_record_parse_error_cases():
    with pytest.raises(RecordParseError):
        merge_paper(None, None, "2025-01-01")
    with pytest.raises(RecordParseError, match="no OAI datestamp"):
        merge_paper(None, parse_arxivraw_metadata(_raw_xml()), None)
    with pytest.raises(RecordParseError, match="bad OAI datestamp"):
        merge_paper(None, parse_arxivraw_metadata(_raw_xml()), "yesterday")
    with pytest.raises(RecordParseError, match="no <arXiv>"):
        parse_arxiv_metadata(_raw_xml())
    with pytest.raises(RecordParseError, match="bad created"):
        parse_arxiv_metadata(b'<arXiv xmlns="http://arxiv.org/OAI/arXiv/"><id>2501.00001</id><created>2025-13-45</created></arXiv>')
    with pytest.raises(RecordParseError, match="malformed"):
        parse_arxivraw_metadata(b"<arXivRaw")
    with pytest.raises(RecordParseError, match="id mismatch"):
        meta = parse_arxiv_metadata(
            b'<arXiv xmlns="http://arxiv.org/OAI/arXiv/"><id>2501.00001</id><created>2025-01-01</created>'
            b"<authors><author><keyname>X</keyname></author></authors><title>T</title><categories>cs.LG</categories></arXiv>"
        )
        merge_paper(meta, parse_arxivraw_metadata(_raw_xml()), "2025-01-01")


def test_split_dois():
    assert split_dois("10.1/A 10.2/b,10.1/a;  doi:10.3/C https://doi.org/10.4/D junk") == (
        "10.1/a", "10.2/b", "10.3/c", "10.4/d",
    )
    assert split_dois(None) == ()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("D.V. Shetty, S.J. Yennello, and G.A. Souliotis", [("Shetty", "D.V."), ("Yennello", "S.J."), ("Souliotis", "G.A.")]),
        ("Valeria M. Rosa and Patricio S. letelier", [("Rosa", "Valeria M."), ("letelier", "Patricio S.")]),
        ("Ludwig van Beethoven Jr.", [("van Beethoven", "Ludwig")]),
        ("Plato", [("Plato", None)]),
        ("A. Author, et al.", [("Author", "A.")]),
        (r"J. M\"uller and the ATLAS Collaboration", [("Müller", "J."), ("ATLAS Collaboration", None)]),
    ],
)
def test_split_raw_authors(text, expected):
    assert [(a.keyname, a.forenames) for a in split_raw_authors(text)] == expected


def test_split_raw_authors_affiliation_legend():
    authors = split_raw_authors("A. Author (1), B. Bauthor (1, 2), C. Cee (MIT) ((1) Univ X, (2) Univ Y)")
    assert [(a.keyname, a.affiliations) for a in authors] == [
        ("Author", ("Univ X",)), ("Bauthor", ("Univ X", "Univ Y")), ("Cee", ("MIT",)),
    ]
    assert split_raw_authors("Ludwig van Beethoven Jr.")[0].suffix == "Jr."
    assert split_raw_authors("the CMS Collaboration")[0].is_collaboration


def test_a_suffix_keeps_the_dot_it_is_printed_with(small_world):
    """arXiv's <suffix> drops the printed dot ("Jr." comes as <suffix>Jr</suffix>); the
    arXivRaw author string has the name as printed, and the paper keeps it so. Sandbox
    payloads, rendered as the sandbox serves them."""
    from wove_pipeline.sandbox.arxiv_oai import ArxivOaiEndpoint
    endpoint = ArxivOaiEndpoint(small_world)
    dotted = [(p, a) for p in small_world.papers for a in p.authors if a.suffix == "Jr."]
    undotted = [(p, a) for p in small_world.papers for a in p.authors if a.suffix in ("Jr", "III")]
    assert dotted and undotted
    for paper in {p.arxiv_id: p for p, _a in dotted + undotted}.values():
        arxiv_xml = endpoint.record(paper, "arXiv").encode()
        raw_xml = endpoint.record(paper, "arXivRaw").encode()
        row = merge_paper(parse_arxiv_metadata(arxiv_xml), parse_arxivraw_metadata(raw_xml), paper.datestamp)
        assert b"<suffix>Jr.</suffix>" not in arxiv_xml  # as the real arXiv format writes it
        by_name = {(a.forenames, a.keyname): a for a in row.authors}
        for p, a in dotted + undotted:
            if p is paper:
                got = by_name[(a.forenames, a.keyname)]
                assert got.suffix == a.suffix, (paper.arxiv_id, a)
                assert got.display_name == f"{a.forenames} {a.keyname} {a.suffix}"


def test_a_suffix_dot_from_arxivraw_even_when_the_names_differ_in_tex():
    arxiv = b"""<record><metadata><arXiv xmlns="http://arxiv.org/OAI/arXiv/"><id>2501.00001</id>
    <created>2025-01-02</created><authors><author><keyname>Hayes</keyname><forenames>Robert T.</forenames>
    <suffix>Jr</suffix></author><author><keyname>M\\"uller</keyname><forenames>Anna</forenames><suffix>Sr</suffix>
    </author><author><keyname>Ford</keyname><forenames>Henry</forenames><suffix>III</suffix></author></authors>
    <title>T</title><categories>hep-th</categories><abstract>A.</abstract></arXiv></metadata></record>"""
    raw = b"""<record><metadata><arXivRaw xmlns="http://arxiv.org/OAI/arXivRaw/"><id>2501.00001</id>
    <title>T</title><authors>Robert T. Hayes Jr., Anna M{\\"u}ller Sr. and Henry Ford III</authors>
    <categories>hep-th</categories><abstract>A.</abstract>
    <version version="v1"><date>Thu, 2 Jan 2025 10:00:00 GMT</date><size>10kb</size></version></arXivRaw></metadata></record>"""
    row = merge_paper(parse_arxiv_metadata(arxiv), parse_arxivraw_metadata(raw), "2025-01-02")
    assert [a.display_name for a in row.authors] == ["Robert T. Hayes Jr.", "Anna M\u00fcller Sr.", "Henry Ford III"]
