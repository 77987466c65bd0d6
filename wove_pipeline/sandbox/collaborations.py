"""Hyper-authored collaboration papers for the realistic shape (``shape.WorldShape``).

Six collaborations, each a research group (``people.Group``) of its own with a stable member
list: on the window's first day it holds `size` members; each day about `join_per_year` of
them join and `leave_per_year` leave (never more than `cap`), so a paper lists the members of
its day and two papers of one collaboration share almost all their authors, as ATLAS / CMS /
LIGO papers do. Sizes are those of the real collaborations' author lists (2024-2025, rounded):
ATLAS ~3,000, CMS ~2,400, ALICE ~1,900, LIGO-Virgo-KAGRA ~1,650, LHCb ~1,100, Belle II ~1,050.
HEP lists print initials ("G. Aad"), the LIGO-Virgo-KAGRA list full given names. Members
write only their collaboration's papers (pinned), in alphabetical order of family name.

Papers per day: Poisson with mean ``collaboration_papers_per_day`` x the day's weight (its
share of records against the mean day); each takes the place of a regular record of its day,
so the world keeps ``papers_per_day x days`` records. A ``DayPlan`` day gets exactly the
collaboration papers it names, on top of its records.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

from .draws import at_random_time
from .papers import Slot, WorldBuilder, undo_withdrawal
from .people import Group, NameHabit, strip_accents
from .shape import WorldShape
from .world import Paper


@dataclass(frozen=True)
class Collaboration:
    name: str
    categories: tuple[str, ...]
    size: int
    cap: int
    share: float  # of the collaboration papers
    initials: bool
    titles: tuple[str, ...]
    join_per_year: float = 0.08
    leave_per_year: float = 0.05


_HEP_TITLES = (
    "Search for new phenomena in final states with {x} at $\\sqrt{{s}}=13$ TeV with the {c} detector",
    "Measurement of the {x} cross-section in $pp$ collisions at $\\sqrt{{s}}=13.6$ TeV with the {c} detector",
    "Observation of {x} and constraints on its couplings with the {c} experiment",
)
_HEP_X = ("two leptons", "jets and missing transverse momentum", "a photon", "top-quark pairs",
          "a Higgs boson and a $Z$ boson", "displaced vertices", "$B^0_s$ mesons")

COLLABORATIONS: tuple[Collaboration, ...] = (
    Collaboration("ATLAS", ("hep-ex", "hep-ph"), 3000, 3000, 0.28, True, _HEP_TITLES),
    Collaboration("CMS", ("hep-ex",), 2400, 2600, 0.28, True, _HEP_TITLES),
    Collaboration("ALICE", ("nucl-ex", "hep-ex"), 1900, 2000, 0.12, True, (
        "Measurement of {x} in Pb-Pb collisions at $\\sqrt{{s_{{NN}}}}=5.36$ TeV with {c}",)),
    Collaboration("LHCb", ("hep-ex",), 1100, 1200, 0.14, True, _HEP_TITLES),
    Collaboration("Belle II", ("hep-ex",), 1050, 1150, 0.06, True, _HEP_TITLES),
    Collaboration("LIGO-Virgo-KAGRA", ("gr-qc", "astro-ph.HE"), 1650, 1800, 0.12, False, (
        "GW{x}: observation of a compact binary coalescence in the {c} observing run",
        "Search for gravitational waves from {x} with {c} data")),
)
_LIGO_X = ("250114", "241011", "continuous sources", "cosmic strings", "intermediate-mass black holes")


class Rosters:
    """The collaborations' members day by day: (person id, first day, last day) per member."""

    def __init__(self, gen: WorldBuilder, inst_ids: list[str]):
        self.gen = gen
        self.labs = [i for i in inst_ids if gen.institutions[i].type in ("education", "facility")]
        self.inst_ids = inst_ids
        cern = next((i for i in inst_ids if gen.institutions[i].display_name == "CERN"), inst_ids[0])
        self.groups: dict[str, Group] = {}
        self.rosters: dict[str, list[tuple[int, int, int]]] = {}
        last = gen.days - 1
        for c in COLLABORATIONS:
            group = Group(len(gen.groups), cern, list(c.categories), [], weight=0.0)
            gen.groups.append(group)
            self.groups[c.name] = group
            roster = [(self._member(c, group), 0, last) for _ in range(c.size)]
            present = len(roster)
            for day in range(1, gen.days):
                for _ in range(_poisson(gen.rng, c.size * c.leave_per_year / 365)):
                    live = [k for k, (_p, a, b) in enumerate(roster) if b == last]
                    k = live[gen.rng.randrange(len(live))]
                    pid, a, _b = roster[k]
                    roster[k] = (pid, a, day - 1)
                    present -= 1
                joins = _poisson(gen.rng, c.size * c.join_per_year / 365)
                for _ in range(min(joins, c.cap - present) if present < c.cap else 0):
                    roster.append((self._member(c, group), day, last))
                    present += 1
            self.rosters[c.name] = roster

    def _member(self, c: Collaboration, group: Group) -> int:
        gen, rng = self.gen, self.gen.rng
        given, family, suffix = gen.random_name()
        pid = gen.new_person(given, family, suffix)
        gen.habits[pid] = NameHabit(1.0 if c.initials else 0.0, 1.0 if c.initials else 0.4,
                                    rng.choice([0.0, 1.0]), 0.0)
        gen.join(pid, group, self.inst_ids, weight=1.0)
        gen.persons[pid].affiliations = [(rng.choice(self.labs), 1990, 2026)]
        gen.pinned.add(pid)
        return pid

    def members_on(self, name: str, day_index: int) -> list[int]:
        persons = self.gen.persons
        pids = [p for p, a, b in self.rosters[name] if a <= day_index <= b]
        return sorted(pids, key=lambda p: (strip_accents(persons[p].family), persons[p].given, p))


def _poisson(rng, mean: float) -> int:
    """Knuth's method (small means): the number of uniform draws whose product stays above e^-mean."""
    if mean <= 0:
        return 0
    limit, k, prod = math.exp(-mean), 0, rng.random()
    while prod > limit:
        k += 1
        prod *= rng.random()
    return k


def _pick(rng, name: str | None) -> Collaboration:
    if name is not None:
        return next(c for c in COLLABORATIONS if c.name == name)
    x, acc = rng.random() * sum(c.share for c in COLLABORATIONS), 0.0
    for c in COLLABORATIONS:
        acc += c.share
        if x < acc:
            return c
    return COLLABORATIONS[-1]


def collaboration_papers(gen: WorldBuilder, inst_ids: list[str], slots: list[Slot],
                         shape: WorldShape, planned_days: set[dt.date]) -> tuple[list[Paper], set[int]]:
    """The realistic collaboration papers, and the indices of the regular slots they replace."""
    rng = gen.rng
    rosters = Rosters(gen, inst_ids)
    by_day: dict[dt.date, list[int]] = {}
    for i, s in enumerate(slots):
        by_day.setdefault(s.day, []).append(i)
    mean = len(slots) / gen.days
    plans = {p.day: p for p in shape.days}
    papers: list[Paper] = []
    replaced: set[int] = set()
    for k in range(gen.days):
        day = gen.start_day + dt.timedelta(days=k)
        plan = plans.get(day)
        if plan is not None:
            n, which = plan.collaboration_papers, plan.collaboration
        else:
            n, which = _poisson(rng, shape.collaboration_papers_per_day * len(by_day.get(day, [])) / mean), None
            free = [i for i in by_day.get(day, []) if slots[i].forced_person is None and day not in planned_days]
            n = min(n, len(free))
            replaced.update(rng.sample(free, n))
        for _ in range(n):
            papers.append(_paper(gen, rosters, _pick(rng, which), day, k))
    return papers, replaced


def _paper(gen: WorldBuilder, rosters: Rosters, c: Collaboration, day: dt.date, day_index: int) -> Paper:
    rng = gen.rng
    is_new = rng.random() < 0.85  # else a replacement of an older paper
    v1 = at_random_time(day, rng) if is_new else gen.old_v1(day)
    x = rng.choice(_LIGO_X if c.name.startswith("LIGO") else _HEP_X)
    title = rng.choice(c.titles).format(x=x, c=c.name)
    p = gen.assemble(day, v1, list(c.categories), rosters.members_on(c.name, day_index),
                     rosters.groups[c.name], is_new, title=title)
    undo_withdrawal(p)
    p.submitter = f"{c.name} Collaboration"
    return p
