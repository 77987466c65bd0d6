"""The `select=` lists beside the OpenAlex parser hold exactly the root-level fields it reads.

The client asks OpenAlex for those fields only and the raw layer keeps what came back, so a
field the parser reads but the list misses would be None in every table, silently. Two checks
on the real recorded samples:

* a sample cut down to the selected fields parses to the same records as the full sample;
* the root keys the parser asks for (recorded, on the sample and on the sample with every
  field null, which takes the fallback branches) are the selected fields, no more, no fewer,
  but for the location fields, which it reads only for a work whose DOI is not arXiv's,
  never the case for a work the client fetches.
"""

from __future__ import annotations

import pytest

from wove_pipeline.openalex.parser import (
    AUTHOR_FIELDS,
    INSTITUTION_FIELDS,
    WORK_FIELDS,
    WORK_FIELDS_NOT_SELECTED,
    parse_author,
    parse_authors_page,
    parse_institution,
    parse_institutions_page,
    parse_work,
    parse_works_page,
)

# Read by the parser from old raw files only: deprecated, so not a valid select field.
NOT_SELECTABLE = {"last_known_institution"}

SAMPLES = [  # sample, its fields, page parser, record parser
    ("openalex/works_list_2026_W3038568908.json", WORK_FIELDS, parse_works_page, parse_work),
    ("openalex/work_single_W2741809807_2023.json", WORK_FIELDS, None, parse_work),
    ("openalex/authors_list_2026_A5043579160.json", AUTHOR_FIELDS, parse_authors_page, parse_author),
    ("openalex/institutions_list_2026_I27837315.json", INSTITUTION_FIELDS, parse_institutions_page,
     parse_institution),
]


def _select(record: dict, fields) -> dict:
    """What OpenAlex answers for `select=<fields>`: the record's root keys that were asked for."""
    return {k: v for k, v in record.items() if k in fields}


class _Reads(dict):
    """A record that remembers which root keys were asked for."""

    def __init__(self, record: dict):
        super().__init__(record)
        self.read: set[str] = set()

    def get(self, key, default=None):
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key):
        self.read.add(key)
        return super().__contains__(key)


@pytest.mark.parametrize("name, fields, parse_page, parse_one", SAMPLES, ids=[s[0].split("/")[1] for s in SAMPLES])
def test_selected_sample_parses_like_the_full_one(load_json, name, fields, parse_page, parse_one):
    full = load_json(name)
    if parse_page is None:  # a singleton
        assert parse_one(_select(full, fields)) == parse_one(full)
        return
    selected = dict(full, results=[_select(r, fields) for r in full["results"]])
    assert parse_page(selected) == parse_page(full)
    assert selected["results"][0] != full["results"][0]  # select did drop something


@pytest.mark.parametrize("name, fields, parse_page, parse_one", SAMPLES, ids=[s[0].split("/")[1] for s in SAMPLES])
def test_parser_reads_exactly_the_selected_fields(load_json, name, fields, parse_page, parse_one):
    full = load_json(name)
    record = full["results"][0] if parse_page else full
    read: set[str] = set()
    # With every field but the id null, the parser takes its fallbacks (display_name for a
    # null title, ids.orcid for a null orcid, locations for a non-arXiv DOI...).
    for variant in (record, {k: (v if k == "id" else None) for k, v in record.items()}):
        probe = _Reads(variant)
        parse_one(probe)
        read |= probe.read
    assert "id" in fields and len(set(fields)) == len(fields)
    if fields is WORK_FIELDS:
        assert set(WORK_FIELDS_NOT_SELECTED) <= read
        read -= set(WORK_FIELDS_NOT_SELECTED)
    assert read - NOT_SELECTABLE == set(fields)


def test_a_work_with_an_arxiv_doi_never_reads_its_locations(load_json):
    """What the client fetches: works found by their arXiv DOI (or their singletons)."""
    work = dict(load_json(SAMPLES[0][0])["results"][0], doi="https://doi.org/10.48550/arxiv.2401.00001")
    probe = _Reads(work)
    assert parse_work(probe).arxiv_id == "2401.00001"
    assert not probe.read & set(WORK_FIELDS_NOT_SELECTED)
    assert parse_work(_select(work, WORK_FIELDS)) == parse_work(work)
