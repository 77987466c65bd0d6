"""The seed's Peng Wang: every field of the SEED.md researcher page, each checked against an
independent computation from the sandbox world's ground truth."""

from __future__ import annotations

import collections
import json
import math

import pytest

from wove_pipeline.database import access as db
from wove_pipeline.sandbox.ground_truth import mention_identities
from wove_pipeline.sandbox.people import normalize_name
from wove_pipeline.sandbox.seed_fixtures import KNAPFORMER_ID, SEED_PENG_WANG_ID
from wove_pipeline.serving import pages

from .world_db import is_person, person_name, researcher_id

MAX_COAUTHOR_AUTHORS = 100


def _h(values):
    """h-index, written independently of the code under test."""
    values = sorted((v or 0 for v in values), reverse=True)
    return max([0] + [i + 1 for i, v in enumerate(values) if v >= i + 1])


class Truth:
    """What the world says, computed from its objects only."""

    def __init__(self, world):
        self.world = world
        self.papers_of = collections.defaultdict(list)
        for p in world.papers:
            for a in p.authors:
                if is_person(world, a.person_id) and p not in self.papers_of[a.person_id]:
                    self.papers_of[a.person_id].append(p)
        self.ids = collections.defaultdict(collections.Counter)  # person -> Counter[(source, id)]
        for arxiv_id, _pos, pid, s2, oa in mention_identities(world):
            if s2:
                self.ids[pid][("s2", s2)] += 1
            if oa:
                self.ids[pid][("openalex", oa)] += 1

    @staticmethod
    def citation(p):
        if p.s2 is not None:
            return p.s2.citation_count
        return p.openalex.cited_by_count if p.openalex is not None else None

    def external(self, pid):
        """The record the page shows: S2 first; the one on most of the person's papers."""
        person = self.world.persons[pid]
        counts = collections.Counter(self.ids[pid])
        for x in person.s2_author_ids:
            counts[("s2", x)] += 0
        for x in person.openalex_author_ids:
            counts[("openalex", x)] += 0
        records = []
        for (source, aid), n in counts.items():
            if source == "s2" and aid in self.world.s2_authors:
                r = self.world.s2_authors[aid]
                records.append((0, -n, -r.paper_count, aid, source, r.h_index, r.citation_count, r.paper_count))
            elif source == "openalex" and aid in self.world.openalex_authors:
                r = self.world.openalex_authors[aid]
                records.append((1, -n, -r.works_count, aid, source, r.h_index, r.cited_by_count, r.works_count))
        if not records:
            return None
        best = min(records)
        return {"source": best[4], "author_id": best[3], "h_index": best[5], "citations": best[6], "works": best[7]}

    def h_index(self, pid):
        ext = self.external(pid)
        return ext["h_index"] if ext else _h(self.citation(p) for p in self.papers_of[pid])


@pytest.fixture(scope="module")
def page(published_url):
    with db.connect(published_url) as conn:
        return pages.researcher_page(conn, researcher_id(SEED_PENG_WANG_ID))


@pytest.fixture(scope="module")
def truth(seed_world):
    return Truth(seed_world)


def test_identity_and_headline_badges(page, truth, seed_world):
    pid = SEED_PENG_WANG_ID
    person = seed_world.persons[pid]
    papers = truth.papers_of[pid]
    ext = truth.external(pid)
    assert page["id"] == researcher_id(pid)
    assert page["display_name"] == person_name(person) == "Peng Wang"
    assert page["slug"] == f"{researcher_id(pid)}-peng-wang"
    assert page["papers_here"] == len(papers) == 6
    # SEED.md: h-index 3, 478 citations, 8 works total, from the Semantic Scholar record
    assert (page["h_index"], page["citations"], page["works_total"]) == (ext["h_index"], ext["citations"], ext["works"])
    assert (page["h_index"], page["citations"], page["works_total"]) == (3, 478, 8)
    assert page["metrics_source"] == ext["source"] == "s2"
    assert page["metrics_source_id"] == ext["author_id"] == person.s2_author_ids[0]
    assert page["metrics_as_of"] is not None
    assert page["description"] == f"Peng Wang: {len(papers)} papers in this archive · h-index {ext['h_index']}."


def test_archive_figures(page, truth):
    papers = truth.papers_of[SEED_PENG_WANG_ID]
    cites = [truth.citation(p) for p in papers]
    assert page["archive"]["works"] == len(papers)
    assert page["archive"]["citations"] == sum(c or 0 for c in cites)
    assert page["archive"]["h_index"] == _h(cites)


def test_author_position_over_fully_matched_papers(page, truth, seed_world):
    counts = collections.Counter()
    considered = 0
    for p in truth.papers_of[SEED_PENG_WANG_ID]:
        if not all(is_person(seed_world, a.person_id) for a in p.authors):
            continue
        considered += 1
        pos = next(a.position for a in p.authors if a.person_id == SEED_PENG_WANG_ID)
        counts["first" if pos == 0 else "last" if pos == len(p.authors) - 1 else "middle"] += 1
    assert page["author_position"] == {
        "first": counts["first"], "middle": counts["middle"], "last": counts["last"],
        "papers_considered": considered, "papers_total": len(truth.papers_of[SEED_PENG_WANG_ID]),
    }
    assert page["author_position"]["middle"] == 6 and considered == 6  # "middle author 6 ... 6 of 6"


def test_fields_by_primary_category(page, truth):
    counts = collections.Counter(p.categories[0] for p in truth.papers_of[SEED_PENG_WANG_ID])
    expected = [{"category": c, "papers": n} for c, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    assert page["fields"] == expected
    assert [(f["category"], f["papers"]) for f in page["fields"]] == [("cs.CV", 4), ("cs.DC", 1), ("cs.GR", 1)]


def test_same_name_list(page, truth, seed_world):
    me = SEED_PENG_WANG_ID
    key = normalize_name(person_name(seed_world.persons[me]))
    others = [pid for pid, person in seed_world.persons.items()
              if pid != me and is_person(seed_world, pid) and normalize_name(person_name(person)) == key
              and truth.papers_of[pid]]
    expected = sorted(({"id": researcher_id(pid), "papers": len(truth.papers_of[pid]), "h_index": truth.h_index(pid)}
                       for pid in others), key=lambda r: (-r["papers"], r["id"]))
    got = [{"id": r["id"], "papers": r["papers"], "h_index": r["h_index"]} for r in page["same_name"]]
    assert got == expected
    assert all(r["display_name"] == "Peng Wang" for r in page["same_name"])
    assert page["same_name_total"] == len(expected)
    # SEED.md: 12 papers h 4; 11 papers h 3; then four with 9 papers, h 7, 20, 4 and 1, in id order
    assert [(r["papers"], r["h_index"]) for r in got[:6]] == [(12, 4), (11, 3), (9, 7), (9, 20), (9, 4), (9, 1)]


def test_identity_provenance(page, seed_world):
    person = seed_world.persons[SEED_PENG_WANG_ID]
    assert page["identity"]["sources"][:2] == ["Semantic Scholar", "OpenAlex"]
    assert page["identity"]["s2_author_ids"] == person.s2_author_ids
    assert page["identity"]["openalex_author_ids"] == person.openalex_author_ids
    chosen = [r for r in page["identity"]["external_records"] if r["chosen"]]
    assert len(chosen) == 1 and chosen[0]["source"] == "s2"


def test_coauthors(page, truth, seed_world):
    counts = collections.Counter()
    for p in truth.papers_of[SEED_PENG_WANG_ID]:
        if len(p.authors) > MAX_COAUTHOR_AUTHORS:
            continue
        for pid in {a.person_id for a in p.authors if is_person(seed_world, a.person_id)} - {SEED_PENG_WANG_ID}:
            counts[pid] += 1
    expected = sorted(({"id": researcher_id(pid), "name": person_name(seed_world.persons[pid]), "count": n}
                       for pid, n in counts.items()), key=lambda r: (-r["count"], r["id"]))
    assert [{k: r[k] for k in ("id", "name", "count")} for r in page["coauthors"]] == expected
    assert page["coauthors_total"] == len(expected)
    assert page["coauthors"][0]["name"] == "Kai Zhang"  # on all six papers


def test_institutions_over_time(page, truth, seed_world):
    years = collections.defaultdict(set)
    papers = collections.defaultdict(set)
    for p in truth.papers_of[SEED_PENG_WANG_ID]:
        a = next(a for a in p.authors if a.person_id == SEED_PENG_WANG_ID)
        ships = p.openalex.authorships if p.openalex else []
        for iid in (ships[a.position].institution_ids if a.position < len(ships) else []):
            years[iid].add(p.versions[0].submitted.year)
            papers[iid].add(p.arxiv_id)
    got = {i["institution_id"]: (i["years"], i["papers"], i["name"]) for i in page["institutions"]}
    assert got == {iid: (sorted(years[iid]), len(papers[iid]), seed_world.institutions[iid].display_name)
                   for iid in years}


def test_paper_list_newest_first_with_totals(page, truth):
    papers = sorted(truth.papers_of[SEED_PENG_WANG_ID], key=lambda p: (p.versions[0].submitted, p.arxiv_id), reverse=True)
    listing = page["papers"]
    assert [i["arxiv_id"] for i in listing["items"]] == [p.arxiv_id for p in papers]
    assert (listing["page"], listing["per_page"], listing["total"], listing["total_pages"]) == (1, 24, 6, 1)
    item = listing["items"][[p.arxiv_id for p in papers].index(KNAPFORMER_ID)]
    assert set(item) >= {"arxiv_id", "slug", "title", "abstract", "authors", "categories", "primary_category",
                         "published", "abs_url", "pdf_url", "cited_by_count", "analysed", "summary", "topics",
                         "research_field", "paper_type", "novelty", "significance_score"}
    assert item["slug"] == ("2508.06001-knapformer-an-online-load-balancer-for-efficient-diffusion-"
                            "transformers-training")
    assert item["authors"] == "Kai Zhang, Peng Wang, Sai Bi, Jianming Zhang, Yuanjun Xiong"
    assert item["primary_category"] == "cs.DC" and item["categories"] == ["cs.DC", "cs.CV"]
    assert item["analysed"] is False
    assert all(item[k] is None for k in ("summary", "paper_type", "novelty", "significance_score"))
    assert item["research_field"] == "Computer Science"  # from the OpenAlex primary topic


def test_category_filter_gives_exactly_knapformer(published_url):
    with db.connect(published_url) as conn:
        dc = pages.researcher_page(conn, researcher_id(SEED_PENG_WANG_ID), category="cs.DC")
        cv = pages.researcher_page(conn, researcher_id(SEED_PENG_WANG_ID), category="cs.CV")
    assert [i["arxiv_id"] for i in dc["papers"]["items"]] == [KNAPFORMER_ID]
    assert (dc["papers"]["total"], dc["papers"]["total_pages"]) == (1, 1)
    assert cv["papers"]["total"] == 4 and all(i["primary_category"] == "cs.CV" for i in cv["papers"]["items"])


def test_pagination_24_per_page(published_url, truth):
    # the researcher with the most papers (the ATLAS-style collaboration members have 1-2;
    # pick whoever has most) pages through every paper exactly once, newest first
    best = max(truth.papers_of, key=lambda pid: (len(truth.papers_of[pid]), -pid))
    n = len(truth.papers_of[best])
    with db.connect(published_url) as conn:
        first = pages.researcher_page(conn, researcher_id(best))
        listings = [pages.researcher_page(conn, researcher_id(best), page=k)["papers"]
                    for k in range(1, first["papers"]["total_pages"] + 1)]
    assert first["papers"]["total"] == n and first["papers"]["total_pages"] == math.ceil(n / 24)
    seen = [i["arxiv_id"] for p in listings for i in p["items"]]
    expected = sorted(truth.papers_of[best], key=lambda p: (p.versions[0].submitted, p.arxiv_id), reverse=True)
    assert seen == [p.arxiv_id for p in expected]
    assert all(len(p["items"]) == 24 for p in listings[:-1])


def test_structured_data(page):
    person, crumbs = page["json_ld"]
    assert person["@type"] == "Person" and person["name"] == "Peng Wang"
    assert person["url"].endswith("/researchers/" + page["slug"])
    assert any("semanticscholar.org/author/" in s for s in person["sameAs"])
    assert crumbs["@type"] == "BreadcrumbList"
    assert [e["position"] for e in crumbs["itemListElement"]] == [1, 2]


def test_cli_show_researcher_prints_the_payload(published_url, monkeypatch, capsys):
    from wove_pipeline.cli import main
    monkeypatch.setenv("WOVE_DATABASE_URL", published_url)
    assert main(["show", "researcher", f"{researcher_id(SEED_PENG_WANG_ID)}-peng-wang", "--category", "cs.DC"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["papers_here"] == 6 and [i["arxiv_id"] for i in out["papers"]["items"]] == [KNAPFORMER_ID]
    assert main(["show", "paper", KNAPFORMER_ID]) == 0
    paper = json.loads(capsys.readouterr().out)
    assert paper["arxiv_id"] == KNAPFORMER_ID and paper["authors_short"] == "Kai Zhang, Peng Wang, Sai Bi et al."
    assert main(["show", "institution", "Adobe Research"]) == 0
    inst = json.loads(capsys.readouterr().out)
    assert inst["display_name"] == "Adobe Research"
    assert main(["show", "researcher", "999999999"]) == 1
