"""Papers and their text: the day plan (which OAI records each day holds), authors drawn from
the labs, arXiv ids, versions, titles, abstracts and the decoration real records carry,
and the two big collaboration papers."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

from .draws import at_random_time, weighted
from .people import Group, NameHabit, Population, strip_accents
from .vocabulary import (
    DOI_PREFIXES,
    JOURNALS,
    LICENSES,
    SENTENCES,
    TEX_SNIPPETS,
    WORDS,
    archive_of,
    area_of,
)
from .world import Authorship, Paper, Version


@dataclass
class Slot:
    """One OAI record to produce: a datestamp day and whether the paper is new that day."""

    day: dt.date
    is_new: bool
    forced_person: int | None = None
    forced_group: int | None = None
    n_authors: int | None = None  # exactly this many authors (a DayPlan day of the realistic shape)


class WorldBuilder(Population):
    """The population plus the papers it writes."""

    def __init__(self, seed: int, papers_per_day: int, days: int, start_day: dt.date):
        super().__init__(seed, days, start_day)
        self.papers_per_day = papers_per_day
        self.papers: list[Paper] = []
        self.used_ids: set[str] = set()  # membership only, never iterated
        self.month_counters: dict[str, int] = {}
        self.citations: dict[str, int] = {}  # arxiv id -> "true" citation count

    def pick_authors(self, group: Group, forced: int | None) -> list[int]:
        rng = self.rng
        members = group.members
        k = min(len(members), rng.choice([1, 2, 2, 3, 3, 3, 4, 4, 5, 6]))
        chosen: list[int] = []
        # the PI is on most papers and prints last
        weights = group.member_weights
        for _ in range(k * 3):
            if len(chosen) >= k:
                break
            pid = rng.choices(members, weights)[0]
            if pid not in chosen and pid not in self.pinned:
                chosen.append(pid)
        if forced is not None and forced not in chosen:
            chosen.insert(rng.randrange(len(chosen) + 1) if chosen else 0, forced)
        # outside collaborators from partner groups
        if rng.random() < 0.3 and group.partners:
            partner = self.groups[rng.choice(group.partners)]
            for _ in range(rng.randint(1, 2)):
                pid = rng.choice(partner.members)
                if pid not in chosen and pid not in self.pinned:
                    chosen.insert(rng.randrange(len(chosen) + 1), pid)
        if not chosen:
            chosen = [members[0]]
        pi = members[0]
        if pi in chosen and len(chosen) > 1 and chosen[-1] != pi:
            chosen.remove(pi)
            chosen.append(pi)
        return chosen

    def pick_exactly(self, group: Group, n: int, forced: int | None) -> list[int]:
        """`n` authors: the lab's members first, then its partners' and other labs' members."""
        rng = self.rng
        chosen = [] if forced is None else [forced]
        pool = [m for m in group.members if m not in self.pinned and m != forced]
        rng.shuffle(pool)
        chosen += pool[:max(0, n - len(chosen))]
        taken = set(chosen)  # membership only
        while len(chosen) < n:
            if group.partners and rng.random() < 0.6:
                other = self.groups[rng.choice(group.partners)]
            else:
                other = self.groups[self.group_picker()]
            cands = [m for m in other.members if m not in self.pinned and m not in taken]
            if cands:
                pid = rng.choice(cands)
                chosen.insert(rng.randrange(len(chosen) + 1), pid)
                taken.add(pid)
        pi = group.members[0]
        if pi in taken and chosen[-1] != pi:
            chosen.remove(pi)
            chosen.append(pi)
        return chosen

    def new_id(self, v1: dt.datetime, primary: str) -> str:
        rng = self.rng
        if v1.date() < dt.date(2007, 4, 1):
            archive = archive_of(primary)
            if archive in ("cs", "math") and "." in primary and rng.random() < 0.5:
                archive = primary  # "math.GT/0309136" style
            while True:
                aid = "%s/%02d%02d%03d" % (archive, v1.year % 100, v1.month, rng.randint(1, 999))
                if aid not in self.used_ids:
                    return aid
        yymm = "%02d%02d" % (v1.year % 100, v1.month)
        digits = 4 if v1.year < 2015 else 5
        if digits == 5 and v1.date() >= self.start_day - dt.timedelta(days=40):
            # sequential within a month, like the real numbering
            n = self.month_counters.get(yymm, 0) + 1
            aid = f"{yymm}.{n:05d}"
            while aid in self.used_ids:
                n += 1
                aid = f"{yymm}.{n:05d}"
            self.month_counters[yymm] = n
            return aid
        while True:
            aid = f"{yymm}.{rng.randint(1, 10 ** digits - 1):0{digits}d}"
            if aid not in self.used_ids:
                return aid

    def old_v1(self, day: dt.date) -> dt.datetime:
        rng = self.rng
        r = rng.random()
        if r < 0.65:
            days_back = rng.randint(20, 3 * 365)
        elif r < 0.85:
            days_back = rng.randint(3 * 365, 15 * 365)
        else:
            days_back = rng.randint(19 * 365, 33 * 365)  # 1992-2006: old-style ids
        d = day - dt.timedelta(days=days_back)
        return at_random_time(d, rng)

    def make_paper(self, slot: Slot) -> Paper:
        rng = self.rng
        if slot.forced_group is not None:
            group = self.groups[slot.forced_group]
        else:
            group = self.groups[self.group_picker()]
        if slot.n_authors is None:
            pids = self.pick_authors(group, slot.forced_person)
        else:
            pids = self.pick_exactly(group, slot.n_authors, slot.forced_person)
        categories = list(group.categories[:1])
        for c in group.categories[1:]:
            if rng.random() < 0.45:
                categories.append(c)
        if slot.is_new:
            v1 = at_random_time(slot.day, rng)
        else:
            v1 = self.old_v1(slot.day)
        return self.assemble(slot.day, v1, categories, pids, group, slot.is_new)

    def assemble(self, day: dt.date, v1: dt.datetime, categories: list[str], pids: list[int],
                 group: Group | None, is_new: bool, arxiv_id: str | None = None,
                 title: str | None = None, abstract: str | None = None) -> Paper:
        rng = self.rng
        primary = categories[0]
        if arxiv_id is None:
            arxiv_id = self.new_id(v1, primary)
        self.used_ids.add(arxiv_id)
        versions = self.versions(v1, day, is_new)
        year = v1.year
        with_affil = rng.random() < 0.6
        authors = []
        for pos, pid in enumerate(pids):
            keyname, forenames, suffix = self.print_name(pid)
            iid = self.institution_at(pid, year)
            affs = [self.affiliation_string(iid)] if (with_affil and iid) else []
            authors.append(Authorship(pos, pid, keyname, forenames, suffix, affs, [iid] if iid else []))
        area = area_of(primary)
        if title is None:
            title = self.title(area)
        if abstract is None:
            abstract = self.abstract(area, title)
        paper = Paper(arxiv_id=arxiv_id, versions=versions, datestamp=day, title=title,
                      abstract=abstract, authors=authors, categories=categories)
        first = authors[0]
        paper.submitter = f"{first.forenames} {first.keyname}" if first.forenames else first.keyname
        self.decorate(paper, area, v1)
        return paper

    def versions(self, v1: dt.datetime, day: dt.date, is_new: bool) -> list[Version]:
        rng = self.rng
        out = [Version(1, v1, rng.randint(20, 9000), "D")]
        if is_new:
            return out
        # a replacement on the datestamp day, or a metadata fix that adds no version
        n_more = rng.choice([0, 1, 1, 1, 2, 3])
        span = max(1, (day - v1.date()).days)
        last = v1
        for k in range(n_more):
            if k == n_more - 1:
                when = at_random_time(day, rng)
            else:
                when = last + dt.timedelta(days=rng.randint(1, max(1, span // (n_more + 1))))
            if when <= last:
                when = last + dt.timedelta(minutes=5)
            out.append(Version(k + 2, when, out[-1].size_kb + rng.randint(-5, 300), "D"))
            last = when
        return out

    def title(self, area: str) -> str:
        rng = self.rng
        w = WORDS[area]
        form = rng.random()
        if form < 0.4:
            t = f"{rng.choice(w['adj'])} {_cap(rng.choice(w['method']))} for {_cap(rng.choice(w['task']))}"
        elif form < 0.7:
            t = f"{_cap(rng.choice(w['method']))}: {rng.choice(w['adj'])} Approaches to {_cap(rng.choice(w['task']))}"
        elif form < 0.85:
            t = f"On {rng.choice(w['task'])} and {rng.choice(TEX_SNIPPETS[area])}"
        else:
            t = f"{rng.choice(w['adj'])} {rng.choice(w['method'])} with {rng.choice(TEX_SNIPPETS[area])} for {rng.choice(w['task'])}"
        return t

    def abstract(self, area: str, title: str) -> str:
        rng = self.rng
        w = WORDS[area]
        slug = "".join(c for c in title.lower() if c.isalnum())[:12] or "code"
        chosen = rng.sample(SENTENCES, rng.randint(4, 7))
        out = []
        for s in chosen:
            out.append(s.format(adj_l=rng.choice(w["adj"]).lower(), method=rng.choice(w["method"]),
                                task=rng.choice(w["task"]), tex=rng.choice(TEX_SNIPPETS[area]),
                                slug=slug))
        return " ".join(out)

    def decorate(self, paper: Paper, area: str, v1: dt.datetime) -> None:
        """comments, journal-ref, DOIs, license, report-no, msc/acm-class, withdrawals."""
        rng = self.rng
        pages, figs = rng.randint(4, 60), rng.randint(0, 20)
        paper.comments = f"{pages} pages, {figs} figures" if rng.random() < 0.75 else None
        if v1.date() >= dt.date(2004, 1, 1):
            paper.license = weighted(rng, LICENSES)
        age_days = (paper.datestamp - v1.date()).days
        if age_days > 150 and rng.random() < 0.45:
            paper.journal_ref = rng.choice(JOURNALS["cs" if area == "cs" else area])
            prefix = rng.choice(DOI_PREFIXES["cs" if area == "cs" else area])
            paper.dois = [f"{prefix}/{_doi_suffix(rng)}"]
            if rng.random() < 0.08:  # erratum: a second DOI
                paper.dois.append(f"{prefix}/{_doi_suffix(rng)}")
        if area == "physics" and rng.random() < 0.15:
            paper.report_no = f"{rng.choice(['CERN-TH', 'FERMILAB-PUB', 'BONN-TH', 'IPMU'])}-{v1.year}-{rng.randint(1, 300):03d}"
        if area == "math" and rng.random() < 0.3:
            paper.msc_class = f"{rng.randint(11, 94):02d}A{rng.randint(10, 99)}, {rng.randint(11, 94):02d}B{rng.randint(10, 99)}"
        if paper.categories[0].startswith("cs.") and rng.random() < 0.05:
            paper.acm_class = f"I.{rng.randint(2, 5)}.{rng.randint(1, 9)}"
        if len(paper.versions) > 1 and rng.random() < 0.04:
            # withdrawal: the last version is a withdrawal notice
            paper.withdrawn = True
            paper.versions[-1].source_type = "W"
            paper.versions[-1].size_kb = 1
            paper.comments = "This paper has been withdrawn by the author due to a crucial error in the proof"
        # latent citation count, the truth both upstreams estimate
        years = max(0.0, (self.end_day - v1.date()).days / 365.25)
        self.citations[paper.arxiv_id] = int(rng.lognormvariate(1.0, 1.2) * years ** 1.1)


def _cap(text: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in text.split(" "))


def _doi_suffix(rng: random.Random) -> str:
    return rng.choice(["PhysRevD.", "s10052-0", "j.nuclphysb.", "TPAMI.", "3592433."]) + str(rng.randint(100000, 999999))


def undo_withdrawal(paper: Paper) -> None:
    """Fixtures must stay live papers whatever the random decoration drew."""
    if paper.withdrawn:
        paper.withdrawn = False
        paper.versions[-1].source_type = "D"
        paper.versions[-1].size_kb = 500
        paper.comments = None


def _day_weights(rng: random.Random, start: dt.date, days: int) -> list[float]:
    """Weekdays heavy, weekends light, and an occasional very light day (holiday)."""
    out = []
    for i in range(days):
        d = start + dt.timedelta(days=i)
        w = {0: 1.15, 1: 1.2, 2: 1.15, 3: 1.1, 4: 0.95, 5: 0.3, 6: 0.35}[d.weekday()]
        if rng.random() < 0.03:
            w = 0.05
        out.append(w)
    return out


def plan_slots(gen: WorldBuilder) -> list[Slot]:
    rng = gen.rng
    weights = _day_weights(rng, gen.start_day, gen.days)
    total = gen.papers_per_day * gen.days
    scale = total / sum(weights)
    slots: list[Slot] = []
    carry = 0.0
    for i, w in enumerate(weights):
        day = gen.start_day + dt.timedelta(days=i)
        exact = w * scale + carry
        n = int(exact)
        carry = exact - n
        for _ in range(n):
            slots.append(Slot(day, rng.random() < 0.82))
    return slots


def planned_slots(gen: WorldBuilder, plans) -> tuple[list[Slot], set[dt.date]]:
    """plan_slots, with every planned day's records replaced by its DayPlan's (all new)."""
    slots = plan_slots(gen)
    planned = {p.day for p in plans}
    if not planned:
        return slots, planned
    slots = [s for s in slots if s.day not in planned]
    for plan in plans:
        if not gen.start_day <= plan.day <= gen.end_day:
            raise ValueError(f"planned day {plan.day} outside {gen.start_day}..{gen.end_day}")
        slots += [Slot(plan.day, True, n_authors=plan.authors_per_paper) for _ in range(plan.records)]
    slots.sort(key=lambda s: s.day)
    return slots, planned


def collaboration_papers(gen: WorldBuilder, inst_ids: list[str], slots: list[Slot]) -> list[Paper]:
    """Two hep-ex papers with ~1,200 and ~2,600 authors from one big collaboration, the
    first author printed as the legacy artefact keyname="Collaboration" forenames="ATLAS".
    Members print as initials (as HEP author lists do), which makes names collide a lot."""
    rng = gen.rng
    if len(slots) < 50:
        return []
    labs = [i for i in inst_ids if gen.institutions[i].type in ("education", "facility")]
    group = Group(len(gen.groups), next(i for i in inst_ids if gen.institutions[i].display_name == "CERN"),
                   ["hep-ex", "hep-ph"], [], weight=0.0)
    gen.groups.append(group)
    collab = gen.new_person("ATLAS", "Collaboration")
    gen.persons[collab].is_collaboration = True
    gen.persons[collab].orcid = None
    gen.habits[collab] = NameHabit(0.0, 0.0, 0.0, 0.0)
    members = []
    taken: set[tuple[str, str]] = set()  # membership only
    for _ in range(2700):
        # HEP lists print initials; keep "initial + family" unique inside the collaboration
        # so the two papers can be linked by a careful matcher
        for _attempt in range(60):
            given, family, suffix = gen.random_name()
            key = (strip_accents(family).lower(), given[0])
            if key not in taken:
                break
        taken.add(key)
        pid = gen.new_person(given, family, suffix)
        gen.habits[pid] = NameHabit(1.0, 1.0, rng.choice([0.0, 1.0]), 0.0)  # "G. Aad" style
        gen.join(pid, group, labs, weight=1.0)
        gen.persons[pid].affiliations = [(rng.choice(labs), 1990, 2026)]
        members.append(pid)
    gen.pinned.update(members)
    gen.pinned.add(collab)
    papers = []
    for n in (1200, 2600):
        day = gen.start_day + dt.timedelta(days=rng.randrange(gen.days))
        authors = sorted(rng.sample(members, n), key=lambda p: strip_accents(gen.persons[p].family))
        p = gen.assemble(day, at_random_time(day, rng) if rng.random() < 0.5 else gen.old_v1(day),
                         ["hep-ex", "hep-ph"], [collab] + authors, group, rng.random() < 0.5,
                         title=f"Search for new phenomena in final states with {rng.choice(['two leptons', 'jets and missing transverse momentum', 'a photon'])} at $\\sqrt{{s}}=13$ TeV with the ATLAS detector")
        p.authors[0].keyname, p.authors[0].forenames = "Collaboration", "ATLAS"
        p.authors[0].affiliations, p.authors[0].institution_ids = [], []
        undo_withdrawal(p)
        p.submitter = "ATLAS Publications"
        papers.append(p)
    return papers
