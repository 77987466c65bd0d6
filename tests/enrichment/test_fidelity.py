"""What the upstreams say reaches wove's tables as they say it: ORCIDs given only in an
OpenAlex profile's `ids.orcid`, and preprints OpenAlex merged into their published version."""

from __future__ import annotations

import datetime as dt

import psycopg
import pytest

from wove_pipeline.core import enrichment as en
from wove_pipeline.core import researchers_load
from wove_pipeline.core.openalex_parser import bare_orcid
from wove_pipeline.core.raw_store import RawStore

from .conftest import load_days, openalex_client, s2_client, world_days


@pytest.fixture
def late(sandbox, small_world):
    sandbox.today = small_world.end_day + dt.timedelta(days=90)
    return sandbox


def test_an_orcid_given_only_in_the_profiles_ids_reaches_the_researchers_mentions(database_url, late, small_world,
                                                                                 tmp_path):
    store = RawStore(tmp_path / "raw")
    days = world_days(small_world)[:4]
    load_days(database_url, late, store, days)
    with openalex_client(late) as oa, s2_client(late) as s2:
        en.fetch_s2_papers(database_url, s2, store, days)
        en.fetch_openalex_works(database_url, oa, store, days)
        en.fetch_openalex_authors(database_url, oa, store, days)
    en.align_days(database_url, days)
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
