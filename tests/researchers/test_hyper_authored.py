"""A 3,000-author collaboration paper of the realistic sandbox world through the whole
pipeline: the arXiv harvest, both enrichments (S2 in full; OpenAlex cut at 100 authorships in
its list responses with ``is_authors_truncated``, the singleton work in full), the authorships
alignment, matching, metrics and the publish, over real HTTP and PostgreSQL. The serving paper
page lists every author in the byline's order, each with a researcher of its own."""

from __future__ import annotations

import datetime as dt

import dagster as dg
import psycopg
import pytest

from wove_pipeline.arxiv import assets as harvest
from wove_pipeline.enrichment import assets as enrichment
from wove_pipeline.matching import assets as matching
from wove_pipeline.metrics import assets as metrics
from wove_pipeline.sandbox.generator import generate_world
from wove_pipeline.sandbox.shape import DayPlan, WorldShape
from wove_pipeline.serving import assets as serving
from wove_pipeline.serving import pages

UPSTREAM_ASSETS = [harvest.arxiv_records, harvest.papers, *enrichment.daily_enrichment_assets]
GLOBAL_ASSETS = [matching.researchers, metrics.researcher_metrics, serving.serving]
FIRST = dt.date(2025, 3, 4)  # a Tuesday
SECOND = FIRST + dt.timedelta(days=1)


@pytest.fixture(scope="module")
def world():
    shape = WorldShape(names="heavy_tailed", collaborations=True, days=(
        DayPlan(FIRST, records=20),
        DayPlan(SECOND, records=20, collaboration_papers=1, collaboration="ATLAS")))
    return generate_world(seed=7, papers_per_day=20, days=2, start_day=FIRST, shape=shape)


def run_day(resources, day: dt.date) -> None:
    tags = {"dagster/asset_partition_range_start": day.isoformat(),
            "dagster/asset_partition_range_end": day.isoformat()}
    assert dg.materialize(UPSTREAM_ASSETS, resources=resources, tags=tags).success
    assert dg.materialize(GLOBAL_ASSETS, resources={"database": resources["database"]}).success


def small_papers_of_day(conn, day: dt.date) -> list[str]:
    """The papers of a day with fewer than 100 authors."""
    return [a for (a,) in conn.execute(
        "SELECT p.arxiv_id FROM wove.papers p JOIN wove.paper_authors pa USING (arxiv_id) WHERE p.oai_datestamp = %s"
        " GROUP BY p.arxiv_id HAVING count(*) < 100", (day,))]


def byline(paper) -> list[str]:
    return [" ".join(x for x in (a.forenames, a.keyname, a.suffix) if x) for a in paper.authors]


def test_the_world_holds_a_3000_author_paper_that_both_upstreams_know(world):
    big = max(world.papers, key=lambda p: len(p.authors))
    assert big.datestamp == SECOND and len(big.authors) == 3000
    assert big.categories[0] == "hep-ex"
    assert big.s2 is not None and len(big.s2.authors) >= 2999  # S2 lists them (it may drop one)
    assert big.openalex is not None and len(big.openalex.authorships) == 3000
    assert len({a.person_id for a in big.authors}) == 3000


def test_a_3000_author_paper_end_to_end(env, world):
    url, resources = env
    big = max(world.papers, key=lambda p: len(p.authors))
    run_day(resources, FIRST)
    run_day(resources, SECOND)

    with psycopg.connect(url) as conn:
        # harvest: every author position, in order
        rows = conn.execute("SELECT position, forenames, keyname, suffix FROM wove.paper_authors "
                            "WHERE arxiv_id = %s ORDER BY position", (big.arxiv_id,)).fetchall()
        assert [r[0] for r in rows] == list(range(3000))
        assert [" ".join(x for x in r[1:] if x) for r in rows] == byline(big)
        # both enrichments aligned: S2 in full, OpenAlex past its list responses' 100
        s2, oa, oa_max = conn.execute(
            "SELECT count(s2_position), count(openalex_position), max(openalex_position) "
            "FROM wove.authorships WHERE arxiv_id = %s", (big.arxiv_id,)).fetchone()
        assert s2 >= 2990 and oa >= 2990 and oa_max >= 2990
        # matching: every position a researcher, no two positions of one paper the same one
        mentions = dict(conn.execute("SELECT position, researcher_id FROM wove.researcher_mentions "
                                     "WHERE arxiv_id = %s", (big.arxiv_id,)).fetchall())
        assert sorted(mentions) == list(range(3000))
        assert len(set(mentions.values())) == 3000
        # publish: the serving page lists every author in order, each with a researcher
        page = pages.paper_page(conn, big.arxiv_id)
        # a few of its positions read alone (representatives, members) are what the whole paper gives
        from wove_pipeline.matching.mention_load import load_mentions
        small = min(small_papers_of_day(conn, FIRST))
        every, _ = load_mentions(conn, [big.arxiv_id, small])
        wanted = {(big.arxiv_id, 0), (big.arxiv_id, 1717), (big.arxiv_id, 2999), (small, 0)}
        some, _ = load_mentions(conn, [big.arxiv_id, small], hash_evidence=False, only=wanted)
        assert [m.mention_id for m in some] == sorted(f"{a}:{p}" for a, p in wanted)
        assert some == [m for m in every if (m.paper_id, m.position) in wanted]
        assert {m.n_authors for m in some if m.paper_id == big.arxiv_id} == {3000}
    assert page is not None
    authors = page["author_list"]
    assert [a["name"] for a in authors] == byline(big)
    assert [a["position"] for a in authors] == list(range(3000))
    assert [a["researcher_id"] for a in authors] == [mentions[i] for i in range(3000)]
    assert all(a["researcher_slug"] for a in authors)
    assert page["authors_short"].endswith(" et al.")


def test_assignment_by_profile_looks_at_each_positions_block_only(monkeypatch):
    """A 3,000-author paper brings thousands of new positions in thousands of blocks onto
    thousands of candidate profiles: each position is checked against its block's profiles,
    not against every profile (that was positions x profiles work, quadratic in the paper)."""
    from wove_pipeline.matching import mentions as mentions_module
    from wove_pipeline.matching.mentions import Mention
    from wove_pipeline.matching.profile_assign import incremental_by_profiles

    n = 800
    surnames = [f"Q{chr(97 + k % 26)}{chr(97 + k // 26 % 26)}{chr(97 + k // 676)}son" for k in range(n)]
    old = [Mention(f"h{k:04d}:0", f"h{k:04d}", 0, first="Alex", last=surnames[k], coauthor_keys=[f"c{k}"],
                   year=2024, categories=["hep-ex"]) for k in range(n)]
    new = [Mention(f"big:{k}", "big", k, first="Alex", last=surnames[k], coauthor_keys=[], year=2025,
                   categories=["hep-ex"], n_authors=n) for k in range(n)]
    old_clusters = {m.mention_id: k for k, m in enumerate(old)}

    reads = [0]
    block = Mention.block

    def counted(self):
        reads[0] += 1
        return block.fget(self)

    monkeypatch.setattr(mentions_module.Mention, "block", property(counted))
    result = incremental_by_profiles(old, old_clusters, new)
    assert all(result.clusters[m.mention_id] is not None for m in new)
    assert reads[0] < 60 * n  # positions x profiles would be n * n = 640,000
