"""What the upstreams say reaches wove's tables as they say it: ORCIDs given only in an
OpenAlex profile's `ids.orcid`, and preprints OpenAlex merged into their published version."""

from __future__ import annotations

import datetime as dt

import psycopg
import pytest

from wove_pipeline.enrichment.authorships import align_days
from wove_pipeline.enrichment.raw import RAW_OA_WORKS, iter_raw, raw_files
from wove_pipeline.enrichment.rebuild import rebuild_from_raw
from wove_pipeline.matching import researchers as researchers_load
from wove_pipeline.openalex.fetch import fetch_openalex_authors, fetch_openalex_works
from wove_pipeline.openalex.parser import bare_orcid
from wove_pipeline.partitions import DayRange
from wove_pipeline.semantic_scholar.fetch import fetch_s2_papers
from wove_pipeline.upstream.raw_store import RawStore

from .conftest import connect, load_days, openalex_client, s2_client, world_days


@pytest.fixture
def late(sandbox, small_world):
    sandbox.today = small_world.end_day + dt.timedelta(days=90)
    return sandbox


def _merged_and_loaded(database_url, late, small_world, tmp_path):
    """Every preprint merged into its published version, and the world's days harvested."""
    endpoint = late.endpoints["openalex"]
    merged = set(endpoint.merge_published(1.0))
    store = RawStore(tmp_path / "raw")
    days = world_days(small_world)
    load_days(database_url, late, store, days)
    return endpoint, merged, store, DayRange.of(days)


def test_an_orcid_given_only_in_the_profiles_ids_reaches_the_researchers_mentions(database_url, late, small_world,
                                                                                 tmp_path):
    store = RawStore(tmp_path / "raw")
    days = world_days(small_world)[:4]
    load_days(database_url, late, store, days)
    days = DayRange.of(days)
    with openalex_client(late) as oa, s2_client(late) as s2, connect(database_url) as conn:
        fetch_s2_papers(conn, s2, store, days)
        fetch_openalex_works(conn, oa, store, days)
        fetch_openalex_authors(conn, oa, store, days)
        align_days(conn, days)
    endpoint = late.endpoints["openalex"]
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT a.arxiv_id, a.position, a.openalex_author_id, a.orcid FROM wove.authorships a"
            " JOIN wove.openalex_works w USING (arxiv_id), jsonb_array_elements(w.authorships) s"
            " WHERE (s->>'position')::int = a.openalex_position AND s->>'orcid' IS NULL"
            " AND a.openalex_author_id IN (SELECT author_id FROM wove.openalex_authors)").fetchall()
        mentions, _ = researchers_load.load_mentions(conn, sorted({r[0] for r in rows}))
    # The profiles as the API serves them: top-level `orcid` null, `ids.orcid` set.
    ids_only = {}
    for _arxiv_id, _pos, author_id, _orcid in rows:
        profile = endpoint.render_author(author_id, late.today)
        if profile["orcid"] is None and profile["ids"].get("orcid"):
            ids_only[author_id] = bare_orcid(profile["ids"]["orcid"])
    cases = [r for r in rows if r[2] in ids_only]
    assert len(cases) >= 3, "the sandbox serves such profiles on authorships without an ORCID"
    assert all(orcid == ids_only[author_id] for _a, _p, author_id, orcid in cases)
    by_position = {(m.paper_id, m.position): m for m in mentions}
    reached = [by_position[(a, p)].orcid for a, p, author_id, _o in cases if by_position[(a, p)].openalex_author_id]
    assert reached and all(reached)  # what the matcher and the researcher row read


def test_a_preprint_merged_into_its_published_version_is_found_by_that_doi(database_url, late, small_world,
                                                                         tmp_path):
    """OpenAlex merges a preprint into its published version, whose DOI the work then
    carries: the arXiv DOI finds nothing. The DOI arXiv (`papers.dois`) or S2
    (`externalIds.DOI`) gives for the published version finds it, 50 (here 10) a call."""
    endpoint, merged, store, days = _merged_and_loaded(database_url, late, small_world, tmp_path)
    with s2_client(late) as s2, connect(database_url) as conn:
        fetch_s2_papers(conn, s2, store, days)
    s2_only = sorted(merged)[::2]  # arXiv's metadata lacks the DOI: S2's externalIds.DOI has it
    with psycopg.connect(database_url) as conn:
        conn.execute("UPDATE wove.papers SET dois = '{}' WHERE arxiv_id = ANY(%s)", (s2_only,))
        assert conn.execute("SELECT count(*) FROM wove.s2_papers WHERE arxiv_id = ANY(%s) AND doi IS NOT NULL",
                            (s2_only,)).fetchone()[0] == len(s2_only)
    with openalex_client(late, or_values=10) as oa, connect(database_url) as conn:
        summary = fetch_openalex_works(conn, oa, store, days)
    assert len(merged) >= 10 and s2_only
    with psycopg.connect(database_url) as conn:
        rows = {a: (w, d) for a, w, d in conn.execute(
            "SELECT arxiv_id, work_id, doi FROM wove.openalex_works WHERE arxiv_id = ANY(%s)", (sorted(merged),))}
        found = {a for (a,) in conn.execute(
            "SELECT arxiv_id FROM wove.enrichment_attempts WHERE source = 'openalex' AND found_at IS NOT NULL"
            " AND arxiv_id = ANY(%s)", (sorted(merged),))}
        others = conn.execute("SELECT count(*) FROM wove.openalex_works WHERE doi LIKE '10.48550/arxiv.%%'"
                              ).fetchone()[0]
    assert set(rows) == merged == found  # every merged preprint, and none stays pending
    assert all(doi == endpoint.published_doi[work_id] for work_id, doi in rows.values())
    assert others > 100  # the arXiv-DOI route still finds the rest
    assert summary.extra["found_by_published_doi"] == len(merged)
    # Batched: only papers still unmatched, at most `or_values` DOIs per OR-filter.
    requests = [r for r in iter_raw(store, raw_files(store, [RAW_OA_WORKS]))
                if r.kind == "works_doi_filter"]
    assert all(len(r.request["dois"]) <= 10 for r in requests)
    asked = {a for r in requests for a in r.request["ids"]}
    assert merged <= asked and len(requests) == -(-len(asked) // 10)
    # The raw layer alone gives the same rows again.
    with psycopg.connect(database_url) as conn:
        before = conn.execute("SELECT arxiv_id, work_id, doi, authorships FROM wove.openalex_works"
                              " ORDER BY arxiv_id").fetchall()
    with connect(database_url) as conn:
        rebuild_from_raw(conn, store)
    with psycopg.connect(database_url) as conn:
        assert conn.execute("SELECT arxiv_id, work_id, doi, authorships FROM wove.openalex_works"
                            " ORDER BY arxiv_id").fetchall() == before


def test_a_display_name_tie_goes_to_the_form_the_upstream_profiles_print(database_url):
    """Two printed forms, as often each: the researcher is shown as the S2 / OpenAlex
    profiles name them ("Jianming Li"), whatever order the mentions come in, not by length."""
    import itertools

    from wove_pipeline.matching.mentions import Mention
    def mention(i, first, s2=None, oa=None):
        return Mention(mention_id=f"2501.0000{i}:0", paper_id=f"2501.0000{i}", position=0, first=first,
                       last="Li", s2_author_id=s2, openalex_author_id=oa)

    members = [mention(1, "Jian-Ming", s2="1741101"), mention(2, "Jian-Ming"),
               mention(3, "Jianming", oa="A5023888391"), mention(4, "Jianming", s2="1741101")]
    with psycopg.connect(database_url) as conn:
        conn.execute("INSERT INTO wove.s2_authors (author_id, name, as_of, fetched_at)"
                     " VALUES ('1741101', 'Jianming  Li', '2026-01-01', now())")
        conn.execute("INSERT INTO wove.openalex_authors (author_id, display_name, as_of, fetched_at)"
                     " VALUES ('A5023888391', 'Jianming Li', '2026-01-01', now())")
        profiles = researchers_load.profile_names(conn, members)
    assert profiles == {"1741101": "Jianming  Li", "A5023888391": "Jianming Li"}
    for order in itertools.permutations(members):
        assert researchers_load._display_name(list(order), profiles) == "Jianming Li"
    # More mentions of one form still win; without profiles the fullest form, deterministically.
    assert researchers_load._display_name(members + [mention(5, "Jian-Ming")], profiles) == "Jian-Ming Li"
    assert {researchers_load._display_name(list(o)) for o in itertools.permutations(members)} == {"Jian-Ming Li"}


def test_the_citation_refresh_finds_merged_works_by_their_published_doi(database_url, late, small_world, tmp_path):
    from wove_pipeline.enrichment.refresh import RefreshBudget
    from wove_pipeline.openalex.refresh import refresh_openalex
    _endpoint, merged, store, days = _merged_and_loaded(database_url, late, small_world, tmp_path)
    with openalex_client(late) as oa, connect(database_url) as conn:
        fetch_openalex_works(conn, oa, store, days)
        n = conn.execute("SELECT count(*) FROM wove.openalex_works").fetchone()[0]
        s = refresh_openalex(conn, oa, store, RefreshBudget(openalex_work_calls=n // 50 + 2, openalex_author_calls=0))
    assert s.papers_checked == n and s.papers_found == n  # the merged ones too
    with psycopg.connect(database_url) as conn:
        missed = conn.execute(
            "SELECT count(*) FROM wove.refresh_state WHERE source = 'openalex' AND entity_kind = 'paper'"
            " AND entity_id = ANY(%s) AND last_found_at < last_checked_at", (sorted(merged),)).fetchone()[0]
    assert merged and missed == 0
