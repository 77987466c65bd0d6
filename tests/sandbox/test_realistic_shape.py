"""The realistic world shape (shape.py): heavy-tailed names with arXiv's CJK share, the
hyper-authored collaboration papers and what the upstreams serve for them; and the default
world left exactly as it was."""

from __future__ import annotations

import collections
import datetime as dt
import subprocess
import sys

import httpx
import pytest

from wove_pipeline.sandbox.collaborations import COLLABORATIONS
from wove_pipeline.sandbox.generator import generate_world
from wove_pipeline.sandbox.people import strip_accents
from wove_pipeline.sandbox.shape import DayPlan, WorldShape

from .test_generator import ROOT, _fingerprint, _fingerprint_code

# generate_world(seed, papers_per_day=40, days=3) before the realistic shape existed
DEFAULT_FINGERPRINTS = {
    3: "eb640cec995fa05b3b38b260312a6c38781990ff6d0b70cc3f38df83bb7162fc",
    7: "5b33c69ccd61240a6808a867f59d843ffba092dc3d0f20ad4f35b5fa8555a6cb",
    11: "1ac1e5bc2280e7d4036ea75db473a6cf8920197a888dfc79b24a25dd79319611",
}
START = dt.date(2025, 3, 3)  # a Monday


@pytest.fixture(scope="module")
def world():
    return generate_world(seed=7, papers_per_day=400, days=10, start_day=START, shape="realistic")


@pytest.fixture(scope="module")
def names_world():
    """Heavy-tailed names only: the regular papers' blocks, without the collaborations' repeats."""
    return generate_world(seed=7, papers_per_day=1500, days=10, start_day=START,
                          shape=WorldShape(names="heavy_tailed"))


def _block(a) -> str:
    return f"{(a.forenames or '?')[0].lower()} {strip_accents(a.keyname).lower()}"


@pytest.mark.parametrize("seed", sorted(DEFAULT_FINGERPRINTS))
def test_the_default_world_is_unchanged(seed):
    assert _fingerprint(seed, "1") == DEFAULT_FINGERPRINTS[seed]
    out = subprocess.run([sys.executable, "-c", _fingerprint_code(seed).replace(
        "days=3)", "days=3, shape='default')")], cwd=ROOT, capture_output=True, text=True, check=True,
        env={"PYTHONHASHSEED": "3", "PATH": "/usr/bin:/bin"})
    assert out.stdout.strip() == DEFAULT_FINGERPRINTS[seed]


def test_realistic_is_deterministic_whatever_the_hash_seed():
    code = _fingerprint_code(5).replace("days=3)", "days=3, shape='realistic')")
    runs = [subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": h, "PATH": "/usr/bin:/bin"}).stdout.strip() for h in ("1", "999")]
    assert runs[0] == runs[1] and runs[0] != _fingerprint(5, "1")


def test_name_blocks_are_heavy_tailed_with_arxiv_cjk_surnames(names_world):
    blocks = collections.Counter(_block(a) for p in names_world.papers for a in p.authors)
    surnames = collections.Counter(strip_accents(a.keyname) for p in names_world.papers for a in p.authors)
    total = sum(blocks.values())
    top = blocks.most_common(10)
    # CJK surnames lead: the ten biggest blocks are Chinese or Korean surnames
    assert {b.split(" ", 1)[1] for b, _ in top} <= {"wang", "li", "zhang", "liu", "chen", "yang", "kim", "huang",
                                                    "zhao", "wu", "zhou", "xu", "lee"}
    assert surnames.most_common(1)[0][0] in ("Wang", "Li", "Zhang")
    # 1,000,000 papers at this world's positions per paper: the biggest block passes 10,000
    per_paper = total / len(names_world.papers)
    assert top[0][1] / total * 1_000_000 * per_paper > 10_000
    # and the tail is long: most surnames are rare
    rare = sum(1 for n in surnames.values() if n <= 2)
    assert rare / len(surnames) > 0.4 and len(surnames) > 3_000


def test_collaboration_papers_a_few_a_day_from_stable_growing_lists(world):
    collab = [p for p in world.papers if p.submitter.endswith(" Collaboration")]
    assert 10 <= len(collab) <= 60  # about 3 a mean day over 10 days
    assert len(world.papers) == 400 * 10  # they take regular records' places
    assert all(1_000 <= len(p.authors) <= 3_000 for p in collab)
    assert max(len(p.authors) for p in collab) == 3_000
    cats = {c.name: c.categories for c in COLLABORATIONS}
    by_collab = collections.defaultdict(list)
    for p in collab:
        name = p.submitter.removesuffix(" Collaboration")
        assert tuple(p.categories) == cats[name]
        by_collab[name].append(p)
        families = [strip_accents(world.persons[a.person_id].family) for a in p.authors]
        assert families == sorted(families)  # alphabetical, as the collaborations print
        assert len({a.person_id for a in p.authors}) == len(p.authors)
    for name, papers in by_collab.items():
        papers.sort(key=lambda p: p.datestamp)
        for a, b in zip(papers, papers[1:]):
            ids_a, ids_b = {x.person_id for x in a.authors}, {x.person_id for x in b.authors}
            assert len(ids_a & ids_b) >= 0.98 * max(len(ids_a), len(ids_b)), name  # stable lists
    assert {"hep-ex", "gr-qc"} <= {p.categories[0] for p in collab}
    # HEP lists print initials
    atlas = by_collab["ATLAS"][0]
    assert all(a.forenames.endswith(".") for a in atlas.authors if a.forenames)


def test_a_planned_day(world):
    day = START + dt.timedelta(days=2)
    shape = WorldShape(names="heavy_tailed", collaborations=True, collaboration_papers_per_day=0.0,
                       days=(DayPlan(day, records=30, authors_per_paper=10),
                             DayPlan(day + dt.timedelta(days=1), records=5, collaboration_papers=1,
                                     collaboration="LIGO-Virgo-KAGRA")))
    w = generate_world(seed=3, papers_per_day=50, days=5, start_day=START, shape=shape)
    on = [p for p in w.papers if p.datestamp == day]
    assert len(on) == 30 and all(len(p.authors) == 10 for p in on)
    assert all(p.versions[0].submitted.date() == day for p in on)
    nxt = [p for p in w.papers if p.datestamp == day + dt.timedelta(days=1)]
    assert len(nxt) == 6 and sorted(len(p.authors) for p in nxt)[-1] >= 1_600
    ligo = max(nxt, key=lambda p: len(p.authors))
    assert ligo.categories[0] == "gr-qc" and not ligo.authors[0].forenames.endswith(".")  # full names
    assert not [p for p in w.papers if len(p.authors) >= 1_000 and p not in nxt]  # no Poisson papers
    with pytest.raises(ValueError):
        generate_world(seed=3, papers_per_day=5, days=2, start_day=START,
                       shape=WorldShape(days=(DayPlan(START + dt.timedelta(days=9), records=1),)))


def test_upstreams_serve_a_3000_author_paper_as_the_real_apis_do(world):
    """S2 lists every author; OpenAlex's list responses cut authorships at 100 and flag it,
    its singleton work holds them all; arXiv lists all."""
    from wove_pipeline.cli.runtime import start_sandbox
    big = next(p for p in world.papers if len(p.authors) == 3_000 and p.s2 and p.openalex)
    server = start_sandbox(world, today=world.end_day + dt.timedelta(days=90))
    try:
        with httpx.Client(timeout=60) as http:
            s2 = http.post(server.url_for("s2") + "/paper/batch", params={"fields": "authors"},
                           json={"ids": [f"ARXIV:{big.arxiv_id}"]}).json()[0]
            assert len(s2["authors"]) == len(big.s2.authors) >= 2_999
            doi = f"https://doi.org/10.48550/arxiv.{big.arxiv_id}"
            listed = http.get(server.url_for("openalex") + "/works", params={"filter": f"doi:{doi}"}).json()
            work = listed["results"][0]
            assert len(work["authorships"]) == 100 and work["is_authors_truncated"] is True
            single = http.get(server.url_for("openalex") + f"/works/doi:10.48550/arxiv.{big.arxiv_id}").json()
            assert len(single["authorships"]) == 3_000 and "is_authors_truncated" not in single
            assert [a["raw_author_name"] for a in single["authorships"]] == \
                   [f"{a.forenames} {a.keyname}" if a.forenames else a.keyname for a in big.authors]
            oai = http.get(server.url_for("arxiv"), params={
                "verb": "GetRecord", "identifier": f"oai:arXiv.org:{big.arxiv_id}", "metadataPrefix": "arXiv"}).text
            assert oai.count("<keyname>") == 3_000
    finally:
        server.stop()
