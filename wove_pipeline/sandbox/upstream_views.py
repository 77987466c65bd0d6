"""The upstream views of a world: Semantic Scholar and OpenAlex identities (split and merged
authors), each paper's S2 / OpenAlex record with coverage lag, author profiles and their
stats, citation links and retired ids."""

from __future__ import annotations

import datetime as dt
import random

from .draws import weighted
from .papers import WorldBuilder
from .people import initials, normalize_name
from .seed_fixtures import (
    GS_EDIT_ID,
    KNAPFORMER_ID,
    OTHER_PENG_WANGS,
    SEED_PENG_WANG_ID,
)
from .vocabulary import CATEGORY_CODES, field_of
from .world import (
    Authorship,
    OpenAlexAuthor,
    OpenAlexAuthorship,
    OpenAlexWork,
    Paper,
    Person,
    S2Author,
    S2Paper,
)

# how many OpenAlex ids a person gets (OpenAlex over-splits)
OA_SPLITS = [(1, 65), (2, 25), (3, 10)]


class UpstreamViews:
    """Builds S2 and OpenAlex identities and paper views with their realistic noise."""

    def __init__(self, gen: WorldBuilder):
        self.gen = gen
        self.rng = gen.rng
        self.s2_authors: dict[str, S2Author] = {}
        self.oa_authors: dict[str, OpenAlexAuthor] = {}
        self.redirects: dict[str, str] = {}
        self.s2_cites: dict[str, list[int]] = {}
        self.oa_cites: dict[str, list[int]] = {}
        self.s2_split_weight: dict[int, float] = {}
        self.oa_split_weights: dict[int, list[float]] = {}

    def s2_id(self) -> str:
        return str(self.gen.unique_number(10))

    def oa_id(self) -> str:
        return "A5%09d" % self.gen.unique_number(9)

    def assign_identities(self, seed_pws: list[int]) -> None:
        """S2: ~15% of people split in two, same-name pairs merged; OpenAlex: ~35% split in
        2-3, a few giant common-name profiles, same-name pairs merged."""
        gen, rng = self.gen, self.rng
        by_name: dict[str, list[int]] = {}
        for pid in sorted(gen.persons):
            p = gen.persons[pid]
            if p.is_collaboration:
                continue
            by_name.setdefault(normalize_name(f"{p.given.split(' ')[0]} {p.family}"), []).append(pid)
        protected = {SEED_PENG_WANG_ID, *seed_pws}
        for pid in sorted(gen.persons):
            p = gen.persons[pid]
            if p.is_collaboration:
                continue
            p.s2_author_ids = [self.s2_id()]
            if pid not in protected and rng.random() < 0.15:
                p.s2_author_ids.append(self.s2_id())
                self.s2_split_weight[pid] = rng.uniform(0.2, 0.5)
            n_oa = 1 if pid == SEED_PENG_WANG_ID else weighted(rng, OA_SPLITS)
            p.openalex_author_ids = [self.oa_id() for _ in range(n_oa)]
            if n_oa > 1:
                self.oa_split_weights[pid] = [rng.uniform(0.3, 1.0) for _ in range(n_oa)]
        # merges among people who share a name; the largest name groups become giant
        # OpenAlex profiles (one "Wei Wang" covering every Wei Wang)
        names = sorted(by_name, key=lambda n: (-len(by_name[n]), n))
        self.giant_names = [n for n in names if n != "peng wang" and len(by_name[n]) >= 4][:4]
        for name in names:
            pids = [p for p in by_name[name] if p != SEED_PENG_WANG_ID]
            if len(pids) < 2:
                continue
            if name in self.giant_names:
                shared = gen.persons[pids[0]].openalex_author_ids[0]
                for other in pids[1:]:
                    gen.persons[other].openalex_author_ids[0] = shared
            elif rng.random() < 0.35:
                a, b = rng.sample(pids, 2)
                gen.persons[b].openalex_author_ids[0] = gen.persons[a].openalex_author_ids[0]
            s2_pool = [p for p in pids if p not in protected]
            if len(s2_pool) >= 2 and rng.random() < 0.3:
                a, b = rng.sample(s2_pool, 2)
                gen.persons[b].s2_author_ids[0] = gen.persons[a].s2_author_ids[0]

    def pick_s2(self, pid: int) -> str:
        ids = self.gen.persons[pid].s2_author_ids
        if len(ids) > 1 and self.rng.random() < self.s2_split_weight.get(pid, 0.3):
            return ids[1]
        return ids[0]

    def pick_oa(self, pid: int) -> str:
        ids = self.gen.persons[pid].openalex_author_ids
        if len(ids) == 1:
            return ids[0]
        return self.rng.choices(ids, self.oa_split_weights[pid])[0]

    def paper_views(self, paper: Paper) -> None:
        gen, rng = self.gen, self.rng
        v1 = paper.versions[0].submitted.date()
        true_c = gen.citations[paper.arxiv_id]
        is_seed = paper.arxiv_id in (KNAPFORMER_ID, GS_EDIT_ID)
        never = (not is_seed) and rng.random() < 0.05
        s2_lag = rng.randint(2, 25) if rng.random() < 0.9 else rng.randint(26, 60)
        oa_lag = rng.randint(4, 40)
        # a replacement of an old paper is long known; new papers wait
        s2_c = max(0, int(true_c * rng.uniform(0.85, 1.2)) + rng.choice([0, 0, 1, 2]))
        oa_c = max(0, int(true_c * rng.uniform(0.7, 1.1)))
        primary = paper.categories[0]
        fid, fname, did, dname, fos = field_of(primary)
        s2_authors: list[tuple[str | None, str]] = []
        oa_ships: list[OpenAlexAuthorship] = []
        drop = -1
        if not is_seed and len(paper.authors) > 3 and rng.random() < 0.03:
            drop = rng.randrange(1, len(paper.authors) - 1)
        wrong_orcid = rng.random() < 0.01
        for a in paper.authors:
            person = gen.persons[a.person_id]
            printed = f"{a.forenames} {a.keyname}" if a.forenames else a.keyname
            if person.is_collaboration:
                printed = "ATLAS Collaboration"
                s2_authors.append((None, printed))
                oa_ships.append(OpenAlexAuthorship(None, printed, printed, None))
                continue
            s2id = self.pick_s2(a.person_id) if rng.random() > 0.02 else None  # null authorId
            oaid = self.pick_oa(a.person_id)
            name = printed
            if a.forenames and rng.random() < 0.15:
                name = " ".join(initials(x) for x in a.forenames.split(" ")) + " " + a.keyname
            if a.position == drop:
                s2id = None
            else:
                s2_authors.append((s2id, name))
            orcid = person.orcid if (person.orcid and rng.random() < 0.8) else None
            if wrong_orcid and orcid is None and rng.random() < 0.3:
                other = gen.persons.get(rng.randint(1, gen.next_person - 1))
                orcid = other.orcid if other else None
            display = self.oa_authors[oaid].display_name if oaid in self.oa_authors else f"{person.given.split(' ')[0]} {person.family}"
            ship = OpenAlexAuthorship(oaid, display, printed, orcid, list(a.institution_ids),
                                      list(a.affiliations) or [gen.institutions[i].display_name for i in a.institution_ids],
                                      a.position == 0 and rng.random() < 0.5)
            oa_ships.append(ship)
            self.note_author(None if never else s2id, None if never else oaid, a, person, name, s2_c, oa_c, v1.year)
        if never:
            return
        published = v1
        old = v1 < gen.start_day - dt.timedelta(days=60)
        s2_from = (gen.start_day - dt.timedelta(days=30)) if old else v1 + dt.timedelta(days=s2_lag)
        oa_from = (gen.start_day - dt.timedelta(days=30)) if old else v1 + dt.timedelta(days=oa_lag)
        flat = paper.abstract
        paper.s2 = S2Paper(
            paper_id=gen.hex40(), corpus_id=gen.unique_number(9), available_from=s2_from,
            title=paper.title, abstract=flat if rng.random() < 0.9 else None, year=v1.year,
            publication_date=published, venue=(paper.journal_ref.split(" (")[0] if paper.journal_ref else "arXiv.org"),
            citation_count=s2_c, influential_citation_count=s2_c // rng.randint(5, 20),
            reference_count=rng.randint(10, 80), fields_of_study=[fos] if rng.random() < 0.95 else None,
            doi=paper.dois[0] if paper.dois else None, authors=s2_authors)
        topic = _topic(primary)
        counts = _counts_by_year(rng, v1.year, gen.end_day.year, oa_c)
        paper.openalex = OpenAlexWork(
            work_id="W%d" % gen.unique_number(10), available_from=oa_from,
            doi=f"https://doi.org/10.48550/arxiv.{paper.arxiv_id}".lower(), title=paper.title,
            publication_date=published, type="article" if paper.journal_ref else "preprint",
            cited_by_count=oa_c, counts_by_year=counts, authorships=oa_ships,
            primary_topic=topic, topics=[topic] + [_topic(c, 0.6) for c in paper.categories[1:2]],
            abstract=flat)

    def note_author(self, s2id, oaid, a: Authorship, person: Person, name: str, s2_c: int, oa_c: int, year: int) -> None:
        if s2id is not None:
            prof = self.s2_authors.get(s2id)
            if prof is None:
                prof = S2Author(s2id, name, [], orcid=None)
                self.s2_authors[s2id] = prof
                self.s2_cites[s2id] = []
            if person.person_id not in prof.person_ids:
                prof.person_ids.append(person.person_id)
            if a.affiliations and a.affiliations[0] not in prof.affiliations and len(prof.affiliations) < 3:
                prof.affiliations.append(a.affiliations[0])
            if len(name) > len(prof.name):
                prof.name = name
            self.s2_cites[s2id].append(s2_c)
        if oaid is None:
            return
        prof2 = self.oa_authors.get(oaid)
        if prof2 is None:
            prof2 = OpenAlexAuthor(oaid, f"{person.given.split(' ')[0]} {person.family}", [], None)
            self.oa_authors[oaid] = prof2
            self.oa_cites[oaid] = []
        if person.person_id not in prof2.person_ids:
            prof2.person_ids.append(person.person_id)
        printed = f"{a.forenames} {a.keyname}" if a.forenames else a.keyname
        if printed != prof2.display_name and printed not in prof2.display_name_alternatives:
            prof2.display_name_alternatives.append(printed)
        for iid in a.institution_ids:
            for entry in prof2.affiliations:
                if entry[0] == iid:
                    if year not in entry[1]:
                        entry[1].append(year)
                    break
            else:
                prof2.affiliations.append((iid, [year]))
        self.oa_cites[oaid].append(oa_c)

    def finish_profiles(self, seed_pws: list[int]) -> None:
        """Fill stats: archive papers plus works the archive does not hold."""
        gen, rng = self.gen, self.rng
        for sid in sorted(self.s2_authors):
            prof = self.s2_authors[sid]
            cites = self.s2_cites[sid] + [int(rng.lognormvariate(1.5, 1.3)) for _ in range(rng.randint(0, 25))]
            prof.paper_count, prof.citation_count, prof.h_index = len(cites), sum(cites), _h_index(cites)
            person = gen.persons[prof.person_ids[0]]
            if person.orcid and len(prof.person_ids) == 1 and rng.random() < 0.5:
                prof.orcid = person.orcid  # a claimed profile
            if rng.random() < 0.3:
                prof.dblp_names = [prof.name]
        for oid in sorted(self.oa_authors):
            prof = self.oa_authors[oid]
            cites = self.oa_cites[oid] + [int(rng.lognormvariate(1.3, 1.4)) for _ in range(rng.randint(0, 30))]
            prof.works_count, prof.cited_by_count, prof.h_index = len(cites), sum(cites), _h_index(cites)
            prof.i10_index = sum(1 for c in cites if c >= 10)
            prof.two_year_mean_citedness = round(rng.uniform(0, 6), 3)
            person = gen.persons[prof.person_ids[0]]
            prof.orcid = person.orcid if len(prof.person_ids) == 1 else None
            prof.affiliations.sort(key=lambda e: max(e[1]))
            for e in prof.affiliations:
                e[1].sort(reverse=True)
            prof.last_known_institution_ids = [prof.affiliations[-1][0]] if prof.affiliations else []
        # seed Peng Wang: the Semantic Scholar profile carries the site's numbers
        seed = gen.persons[SEED_PENG_WANG_ID]
        prof = self.s2_authors.get(seed.s2_author_ids[0])
        if prof is not None:  # absent when the window ends before KnapFormer
            prof.paper_count, prof.citation_count, prof.h_index, prof.name = 8, 478, 3, "Peng Wang"
        oa = self.oa_authors.get(seed.openalex_author_ids[0])
        if oa is not None:  # OpenAlex disagrees a little, as the real sources do
            oa.works_count, oa.cited_by_count, oa.h_index, oa.i10_index = 9, 451, 3, 2
        for pid, (_n, h) in zip(seed_pws, OTHER_PENG_WANGS):
            p = self.s2_authors.get(gen.persons[pid].s2_author_ids[0])
            if p is not None:
                p.h_index = h
                p.paper_count = max(p.paper_count, h + _n)
                p.citation_count = max(p.citation_count, h * h + rng.randint(0, 200))
        # retired ids that answer 301: a few works and authors were merged upstream
        works = [p.openalex for p in gen.papers if p.openalex is not None]
        for w in rng.sample(works, min(len(works), max(2, len(works) // 400))):
            self.redirects["W%d" % gen.unique_number(10)] = w.work_id
        authors = sorted(self.oa_authors)
        for aid in rng.sample(authors, min(len(authors), max(2, len(authors) // 400))):
            self.redirects["A5%09d" % gen.unique_number(9)] = aid


def _topic(category: str, score: float = 0.99) -> dict:
    fid, fname, did, dname, _ = field_of(category)
    # topic/subfield ids derived from the category position: stable across runs
    k = CATEGORY_CODES.index(category) if category in CATEGORY_CODES else len(CATEGORY_CODES)
    sub_id = fid * 100 + 1 + k % 97
    return {
        "id": f"https://openalex.org/T{10000 + k * 7}",
        "display_name": f"Advances in {category} research",
        "score": score,
        "subfield": {"id": f"https://openalex.org/subfields/{sub_id}", "display_name": f"{fname}: {category}"},
        "field": {"id": f"https://openalex.org/fields/{fid}", "display_name": fname},
        "domain": {"id": f"https://openalex.org/domains/{did}", "display_name": dname},
    }


def _counts_by_year(rng: random.Random, y0: int, y1: int, total: int) -> list[tuple[int, int]]:
    years = list(range(max(y0, y1 - 9), y1 + 1))
    if not years or total == 0:
        return []
    raw = [rng.random() + 0.2 for _ in years]
    s = sum(raw)
    counts = [int(total * r / s) for r in raw]
    counts[-1] += total - sum(counts)
    return sorted([(y, c) for y, c in zip(years, counts) if c > 0], reverse=True)


def _h_index(citations: list[int]) -> int:
    h = 0
    for i, c in enumerate(sorted(citations, reverse=True), start=1):
        if c >= i:
            h = i
        else:
            break
    return h


def link_citations(gen: WorldBuilder) -> None:
    """Each paper cites up to 3 older papers known to S2 (for /paper/{id}/citations)."""
    rng = gen.rng
    known = [p for p in sorted(gen.papers, key=lambda p: (p.versions[0].submitted, p.arxiv_id)) if p.s2]
    for i in range(1, len(known)):
        for _ in range(rng.randint(0, 3)):
            cited = known[rng.randrange(i)]
            if len(cited.s2.citing_paper_ids) < cited.s2.citation_count:
                cited.s2.citing_paper_ids.append(known[i].s2.paper_id)
