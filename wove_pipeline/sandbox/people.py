"""Names and people: accent folding and name normalisation, research groups, how each
person prints their name, and the population (institutions, persons, labs) a world is drawn from."""

from __future__ import annotations

import datetime as dt
import random
import unicodedata
from dataclasses import dataclass, field

from .draws import cumulative_index, weighted
from .vocabulary import (
    CATEGORIES,
    CJK_FAMILIES,
    CJK_GIVENS,
    CROSS,
    INDIAN_FAMILIES,
    INDIAN_GIVENS,
    INSTITUTION_STEMS,
    WESTERN_FAMILIES,
    WESTERN_GIVENS,
    WESTERN_MIDDLES,
    archive_of,
    area_of,
)
from .world import Institution, Person


def strip_accents(text: str) -> str:
    """'Müller' -> 'Muller', 'Yılmaz' -> 'Yilmaz' (dotless i has no decomposition)."""
    text = text.replace("ı", "i").replace("ø", "o").replace("Ø", "O").replace("ß", "ss")
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def normalize_name(text: str) -> str:
    """The 'exact normalized name' used for the difficulty numbers: accents, case and
    punctuation dropped, whitespace collapsed ("J.-P. Müller" -> "j p muller")."""
    text = strip_accents(text).lower()
    text = "".join(c if c.isalnum() else " " for c in text)
    return " ".join(text.split())


def initials(name: str) -> str:
    """'Jean-Pierre' -> 'J.-P.', 'Peng' -> 'P.', 'A.' -> 'A.'."""
    if "-" in name:
        return "-".join(p[0].upper() + "." for p in name.split("-") if p)
    return name[0] + "."


def _transliterate(name: str) -> str:
    """German-style transliteration: 'Müller' -> 'Mueller'."""
    for a, b in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("Ä", "Ae"), ("Ö", "Oe"), ("Ü", "Ue")):
        name = name.replace(a, b)
    return strip_accents(name)


def _orcid(rng: random.Random) -> str:
    """A valid ORCID iD (ISO 7064 mod 11-2 check digit)."""
    digits = [rng.randrange(10) for _ in range(15)]
    digits[0], digits[1], digits[2] = 0, 0, 0
    total = 0
    for d in digits:
        total = (total + d) * 2
    check = (12 - total % 11) % 11
    chars = "".join(map(str, digits)) + ("X" if check == 10 else str(check))
    return "-".join(chars[i:i + 4] for i in range(0, 16, 4))


_CJK_FAMILY_NAMES = frozenset(f for f, _ in CJK_FAMILIES)


@dataclass
class Group:
    """A research lab: the unit that gives people stable co-authors and categories."""

    gid: int
    institution_id: str
    categories: list[str]  # primary first
    members: list[int]  # person ids; members[0] is the PI (prints last)
    partners: list[int] = field(default_factory=list)
    weight: float = 1.0
    member_weights: list[float] = field(default_factory=list)


@dataclass
class NameHabit:
    """How a person's name gets printed."""

    initials_rate: float
    drop_middle_rate: float
    accent_drop_rate: float
    hyphen_variant_rate: float


class Population:
    """The people of a world: institutions, persons with their name habits, and their labs."""

    def __init__(self, seed: int, days: int, start_day: dt.date):
        self.rng = random.Random(seed)
        self.seed = seed
        self.days = days
        self.start_day = start_day
        self.end_day = start_day + dt.timedelta(days=days - 1)
        self.persons: dict[int, Person] = {}
        self.habits: dict[int, NameHabit] = {}
        self.person_group: dict[int, int] = {}
        self.institutions: dict[str, Institution] = {}
        self.groups: list[Group] = []
        self.pinned: set[int] = set()  # planted persons never drawn at random
        self.next_person = 2  # 1 is reserved for the seed Peng Wang
        self.used_numbers: set[int] = set()
        self.names = None  # a name drawer with .draw(rng) (name_shapes.HeavyTailedNames); None: the default pools

    # -- ids ----------------------------------------------------------------------------

    def unique_number(self, digits: int) -> int:
        while True:
            n = self.rng.randrange(10 ** (digits - 1), 10 ** digits)
            if n not in self.used_numbers:
                self.used_numbers.add(n)
                return n

    def hex40(self) -> str:
        return "%040x" % self.rng.getrandbits(160)

    # -- institutions -------------------------------------------------------------------

    def make_institutions(self) -> list[str]:
        ids = []
        alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
        for name, country, kind, aliases in INSTITUTION_STEMS:
            iid = "I%d" % self.unique_number(9)
            ror = "https://ror.org/0" + "".join(self.rng.choice(alphabet) for _ in range(6)) + "%02d" % self.rng.randrange(100)
            self.institutions[iid] = Institution(iid, ror, name, country, kind, list(aliases))
            ids.append(iid)
        return ids

    def affiliation_string(self, iid: str) -> str:
        """A raw affiliation as people type it: full name, alias, or with a department."""
        inst = self.institutions[iid]
        r = self.rng.random()
        if inst.aliases and r < 0.25:
            return self.rng.choice(inst.aliases)
        if r < 0.4 and inst.type == "education":
            dept = self.rng.choice(["Department of Physics", "Department of Computer Science",
                                    "School of Mathematics", "Department of Electrical Engineering"])
            return f"{dept}, {inst.display_name}"
        return inst.display_name

    # -- persons ------------------------------------------------------------------------

    def new_person(self, given: str, family: str, suffix: str | None = None, pid: int | None = None) -> int:
        rng = self.rng
        if pid is None:
            pid = self.next_person
        self.next_person = max(self.next_person, pid + 1)
        person = Person(pid, given, family, suffix)
        if rng.random() < 0.2:
            person.orcid = _orcid(rng)
        self.persons[pid] = person
        variable = rng.random() < 0.6  # 40% always print the canonical form
        self.habits[pid] = NameHabit(
            initials_rate=(rng.choice([0.15, 0.3, 0.5, 0.9]) if variable else 0.0),
            drop_middle_rate=(0.4 if variable else 0.0),
            accent_drop_rate=(rng.choice([0.3, 0.6, 1.0]) if variable else 0.0),
            hyphen_variant_rate=(0.4 if variable else 0.0),
        )
        return pid

    def random_name(self) -> tuple[str, str, str | None]:
        rng = self.rng
        if self.names is not None:
            return self.names.draw(rng)
        r = rng.random()
        if r < 0.5:
            family = weighted(rng, CJK_FAMILIES)
            given = weighted(rng, CJK_GIVENS)
            return given, family, None
        if r < 0.6:
            return rng.choice(INDIAN_GIVENS), rng.choice(INDIAN_FAMILIES), None
        given = rng.choice(WESTERN_GIVENS)
        if rng.random() < 0.25:
            given += " " + rng.choice(WESTERN_MIDDLES)
        suffix = rng.choice(["Jr", "Jr.", "III"]) if rng.random() < 0.015 else None
        return given, rng.choice(WESTERN_FAMILIES), suffix

    def make_groups(self, inst_ids: list[str], n_persons: int) -> None:
        rng = self.rng
        cats = CATEGORIES
        while self.next_person <= n_persons:
            gid = len(self.groups)
            primary = weighted(rng, cats)
            area = area_of(primary)
            cross = CROSS.get(archive_of(primary), CROSS.get(area, []))
            gcats = [primary] + rng.sample(cross, min(2, len(cross)))
            gcats = list(dict.fromkeys(c for c in gcats))
            group = Group(gid, rng.choice(inst_ids), gcats, [],
                           weight=rng.lognormvariate(0, 0.8))
            size = rng.randint(3, 12)
            taken: list[tuple[str, str]] = []
            for _ in range(size):
                # no two members share family name + first initial: inside one lab even a
                # human could not tell "P. Wang" from "Ping Wang"
                for _attempt in range(20):
                    given, family, suffix = self.random_name()
                    key = (strip_accents(family).lower(), given[0])
                    if key not in taken:
                        break
                taken.append(key)
                pid = self.new_person(given, family, suffix)
                self.join(pid, group, inst_ids)
            self.groups.append(group)
        for group in self.groups:
            group.partners = [rng.randrange(len(self.groups)) for _ in range(rng.randint(1, 3))]

    def join(self, pid: int, group: Group, inst_ids: list[str], weight: float | None = None) -> None:
        rng = self.rng
        person = self.persons[pid]
        group.members.append(pid)
        # PI (first member) writes on most papers; others by a heavy-tailed activity
        group.member_weights.append(weight if weight is not None else
                                    (3.0 if len(group.members) == 1 else rng.paretovariate(1.6)))
        self.person_group[pid] = group.gid
        person.home_categories = list(group.categories)
        if rng.random() < 0.15:
            # moved from another institution to this lab
            moved = rng.randint(2015, 2025)
            person.affiliations = [(rng.choice(inst_ids), 1990, moved - 1), (group.institution_id, moved, 2026)]
        else:
            person.affiliations = [(group.institution_id, 1990, 2026)]

    def institution_at(self, pid: int, year: int) -> str | None:
        for iid, y0, y1 in self.persons[pid].affiliations:
            if y0 <= year <= y1:
                return iid
        aff = self.persons[pid].affiliations
        return aff[-1][0] if aff else None

    # -- name printing ------------------------------------------------------------------

    def print_name(self, pid: int) -> tuple[str, str | None, str | None]:
        """(keyname, forenames, suffix) as this paper prints the person."""
        person = self.persons[pid]
        habit = self.habits[pid]
        rng = self.rng
        given, family = person.given, person.family
        parts = given.split(" ")
        if len(parts) > 1 and rng.random() < habit.drop_middle_rate:
            parts = parts[:1]
        first = parts[0]
        if "-" in first and rng.random() < habit.hyphen_variant_rate:
            pieces = first.split("-")
            first = rng.choice([" ".join(pieces), "".join([pieces[0]] + [p.lower() for p in pieces[1:]])])
        elif len(first) >= 7 and first.isalpha() and family in _CJK_FAMILY_NAMES and rng.random() < habit.hyphen_variant_rate:
            # "Xiaoming" printed "Xiao-Ming"
            cut = 4 if first[:4].lower() in ("xiao", "zhi", "jia") else len(first) // 2
            first = first[:cut] + "-" + first[cut].upper() + first[cut + 1:]
        if rng.random() < habit.initials_rate:
            forenames = " ".join(initials(p) for p in [first] + parts[1:])
        else:
            forenames = " ".join([first] + parts[1:])
        keyname = family
        if rng.random() < habit.accent_drop_rate:
            keyname = strip_accents(keyname) if rng.random() < 0.85 else _transliterate(keyname)
            forenames = strip_accents(forenames)
        if keyname.startswith(("van ", "de ")) and rng.random() < 0.2:
            keyname = keyname[0].upper() + keyname[1:]
        suffix = person.suffix if (person.suffix and rng.random() < 0.7) else None
        return keyname, forenames, suffix

    # -- group picking -------------------------------------------------------------------

    def build_group_picker(self) -> None:
        acc, total = [], 0.0
        for g in self.groups:
            total += g.weight
            acc.append(total)
        self._gacc, self._gtotal = acc, total

    def group_picker(self) -> int:
        return min(cumulative_index(self._gacc, self.rng.random() * self._gtotal), len(self.groups) - 1)
