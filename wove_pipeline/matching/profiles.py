"""Researcher profiles: what a day's new mention is scored against instead of every member.

A ``Profile`` summarizes one researcher (one cluster): how often each printed name form,
co-author key, venue, affiliation and category appears among its mentions, a text centroid
(the members' hashed term counts summed, the same counts ``scoring.text_term_counts`` keeps,
its heaviest terms), the upstream ids (S2, OpenAlex, ORCID, and the S2+OpenAlex pairs that
join name blocks), the year range, and a few **representative mentions** (at most
``MAX_REPRESENTATIVES``) chosen to cover the profile's variety, each weighing the members it
stands for.

The daily assignment (profile_assign.py) scores a new mention against the representatives
with the same learned pair model and takes the *weighted* mean probability: with every
member a representative (profiles up to ``MAX_REPRESENTATIVES`` members, most of them) that
is exactly today's average linkage; above, each representative stands for the members
closest to it. The aggregates decide what must not be approximated: which name forms the
block holds (name ambiguity, compatibility with every form), ORCIDs (cannot- and
must-links) and the upstream ids (candidates across blocks).

Built from a cluster's members (``build_profile``) by the full re-match and whenever a
researcher's members change other than by a day's joins (overrides, redirects, re-decided
papers); updated in place by ``Profile.add`` when a new mention joins.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .mentions import Mention, normalize_orcid
from .names import Name, make_name, normalize_text, parse_name

MAX_REPRESENTATIVES = 16
CENTROID_TERMS = 256  # heaviest hashed terms kept in the text centroid
MAX_COUNTED = 200  # keys kept per counter (co-authors, affiliations, venues)
_INDEX_BITS = 18  # scoring.text_term_counts packing: count << 18 | index


def name_form(m: Mention) -> str:
    """A mention's printed name as a stored key (rebuilt by ``form_name``)."""
    if m.first or m.last:
        return "\t".join(x or "" for x in (m.first, m.middle, m.last, m.suffix))
    return "\t\t\t\t" + (m.display_name or "")


def form_name(form: str) -> Name:
    parts = form.split("\t")
    if len(parts) == 5:
        return parse_name(parts[4])
    first, middle, last, suffix = parts
    return make_name(first or None, middle or None, last or None, suffix or None)


def printed_name(form: str) -> str:
    """The form as researchers.display_name prints it (first, last, suffix)."""
    parts = form.split("\t")
    if len(parts) == 5:
        return parts[4]
    first, _, last, suffix = parts
    return " ".join(x for x in (first, last, suffix) if x)


def mention_tokens(m: Mention) -> frozenset[str]:
    """What tells one mention of a person from another: name form, co-authors, venue,
    primary category, first affiliation, era. Representatives are picked to cover these."""
    toks = {"n:" + m.name.key}
    toks.update("c:" + k for k in m.coauthor_keys[:12])
    if m.venue:
        toks.add("v:" + normalize_text(m.venue)[:40])
    if m.categories:
        toks.add("k:" + m.categories[0])
    if m.affiliations:
        toks.add("a:" + normalize_text(m.affiliations[0])[:60])
    if m.year:
        toks.add(f"y:{int(m.year) // 3}")
    return frozenset(toks)


def identifying_tokens(m: Mention) -> set[str]:
    """What finds a mention's candidate profiles in a crowded name block
    (profile_assign.bounded_candidates): its full name, co-author keys, affiliations and
    upstream ids, each qualified by its name block ("y wang|c:j li")."""
    toks = {_NAME + m.name.key}
    toks.update("c:" + k for k in m.coauthor_keys)
    toks.update(_affiliation_token(a) for a in m.affiliations if a)
    toks.update(_id_tokens([m.s2_author_id], [m.openalex_author_id], [normalize_orcid(m.orcid)]))
    return {m.block + "|" + t for t in toks}


_NAME = "n:"  # an identifying token's kind: the full name ("y wang|n:yi wang")


def is_name_token(token: str) -> bool:
    """An identifying token (block-qualified) that is a full name."""
    return token.partition("|")[2].startswith(_NAME)


def _affiliation_token(a: str) -> str:
    return "a:" + normalize_text(a)[:60]


def _id_tokens(s2, openalex, orcids) -> set[str]:
    return {kind + i for kind, ids in (("s:", s2), ("o:", openalex), ("r:", orcids)) for i in ids or () if i}


def _jaccard(a: frozenset, b: frozenset) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


@dataclass
class Representative:
    mention_id: str
    weight: float
    tokens: frozenset[str]
    block: str


@dataclass
class Profile:
    label: int  # researcher id (or cluster label)
    mention_count: int = 0
    name_forms: Counter = field(default_factory=Counter)
    coauthors: Counter = field(default_factory=Counter)
    venues: Counter = field(default_factory=Counter)
    affiliations: Counter = field(default_factory=Counter)
    categories: Counter = field(default_factory=Counter)
    centroid: Counter = field(default_factory=Counter)  # hashed term index -> summed count
    s2_ids: Counter = field(default_factory=Counter)
    openalex_ids: Counter = field(default_factory=Counter)
    orcids: Counter = field(default_factory=Counter)
    id_pairs: Counter = field(default_factory=Counter)  # "s2|openalex" carried by one mention
    first_year: int | None = None
    last_year: int | None = None
    representatives: list[Representative] = field(default_factory=list)

    # ---- derived
    @property
    def blocks(self) -> set[str]:
        return {form_name(f).block for f in self.name_forms}

    def identifying_tokens(self) -> list[str]:
        """``identifying_tokens`` over every member (the counters' keys): each name form in
        its own block, the rest in every block of the profile (the index the daily
        assignment finds crowded blocks' candidates by, researcher_profiles.match_tokens)."""
        names = {form_name(f) for f in self.name_forms}
        rest = {"c:" + k for k in self.coauthors} | {_affiliation_token(a) for a in self.affiliations if a}
        rest |= _id_tokens(self.s2_ids, self.openalex_ids, self.orcids)
        toks = {n.block + "|" + _NAME + n.key for n in names}
        toks.update(b + "|" + t for b in {n.block for n in names} for t in rest)
        return sorted(toks)

    def forms_in(self, block: str) -> list[tuple[Name, int]]:
        return [(n, c) for f, c in self.name_forms.items() if (n := form_name(f)).block == block]

    # ---- updates
    def _aggregate(self, m: Mention) -> None:
        self.mention_count += 1
        self.name_forms[name_form(m)] += 1
        self.coauthors.update(m.coauthor_keys)
        if m.venue:
            self.venues[normalize_text(m.venue)] += 1
        self.affiliations.update(a for a in m.affiliations if a)
        self.categories.update(m.categories)
        if m.text_terms:
            words = np.frombuffer(m.text_terms, dtype="<u4")
            for idx, cnt in zip((words & ((1 << _INDEX_BITS) - 1)).tolist(), (words >> _INDEX_BITS).tolist()):
                self.centroid[idx] += cnt
        if m.s2_author_id:
            self.s2_ids[m.s2_author_id] += 1
        if m.openalex_author_id:
            self.openalex_ids[m.openalex_author_id] += 1
        if m.s2_author_id and m.openalex_author_id:
            self.id_pairs[f"{m.s2_author_id}|{m.openalex_author_id}"] += 1
        orcid = normalize_orcid(m.orcid)
        if orcid:
            self.orcids[orcid] += 1
        if m.year:
            y = int(m.year)
            self.first_year = y if self.first_year is None else min(self.first_year, y)
            self.last_year = y if self.last_year is None else max(self.last_year, y)

    def trim(self) -> None:
        """Bound the counters: the heaviest keys stay."""
        for name in ("coauthors", "venues", "affiliations"):
            c = getattr(self, name)
            if len(c) > MAX_COUNTED:
                setattr(self, name, Counter(dict(c.most_common(MAX_COUNTED))))
        if len(self.centroid) > CENTROID_TERMS:
            self.centroid = Counter(dict(self.centroid.most_common(CENTROID_TERMS)))

    def add(self, m: Mention, k: int = MAX_REPRESENTATIVES) -> None:
        """A new member joins: aggregates count it; it becomes a representative while there
        is room, or when it brings what no representative covers (the two most alike
        representatives then merge into one, weights added); otherwise the closest
        representative of its block stands for it too."""
        self._aggregate(m)
        self.trim()
        toks = mention_tokens(m)
        rep = Representative(m.mention_id, 1.0, toks, m.block)
        same = [r for r in self.representatives if r.block == m.block]
        if len(self.representatives) < k or not same:
            if len(self.representatives) >= k:
                self._merge_closest()
            self.representatives.append(rep)
            return
        covered = frozenset().union(*(r.tokens for r in same))
        if len(toks - covered) >= 2 and self._merge_closest():
            self.representatives.append(rep)
            return
        max(same, key=lambda r: _jaccard(r.tokens, toks)).weight += 1.0

    def _merge_closest(self) -> bool:
        reps = self.representatives
        best, pair = -1.0, None
        for a in range(len(reps)):
            for b in range(a + 1, len(reps)):
                if reps[a].block != reps[b].block:
                    continue
                s = _jaccard(reps[a].tokens, reps[b].tokens)
                if s > best:
                    best, pair = s, (a, b)
        if pair is None:
            return False
        a, b = pair
        reps[b].weight += reps[a].weight  # the later (newer) one stays
        del reps[a]
        return True

    # ---- what researchers' rows read
    def printed_names(self) -> Counter:
        """Each printed name of the members, with how many print it."""
        names: Counter = Counter()
        for f, c in self.name_forms.items():
            names[printed_name(f)] += c
        return names

    def voter_ids(self) -> tuple[set[str], set[str]]:
        """The S2 and OpenAlex author ids whose upstream names ``display_name`` reads: none
        unless the most frequent printed names tie, as the names only break that tie (a day's
        run reads no other: a read by key for every id of every touched researcher grew with
        the archive)."""
        top = [c for _, c in self.printed_names().most_common(2)]
        if len(top) < 2 or top[0] != top[1]:
            return set(), set()
        return set(self.s2_ids), set(self.openalex_ids)

    def display_name(self, profile_names: dict[str, str] | None = None) -> str:
        """researchers._display_name over the members, from the counts: the most frequent
        printed name, then the upstream profiles' votes, the fullest form, alphabetically."""
        names = self.printed_names()
        profiles = profile_names or {}
        votes: Counter = Counter()
        for ids in (self.s2_ids, self.openalex_ids):
            for i, c in ids.items():
                if i in profiles:
                    votes[" ".join(profiles[i].split()).casefold()] += c
        return max(names, key=lambda n: (names[n], votes[" ".join(n.split()).casefold()], len(n), n))


def select_representatives(members: list[Mention], k: int = MAX_REPRESENTATIVES) -> list[Representative]:
    """Up to k members covering the variety of a cluster: the newest first, then greedily
    the member that brings the most tokens not yet covered (every name block of the cluster
    gets one), each member then counted for the most alike representative of its block."""
    toks = [mention_tokens(m) for m in members]
    blocks = [m.block for m in members]
    if len(members) <= k:
        return [Representative(m.mention_id, 1.0, t, b) for m, t, b in zip(members, toks, blocks)]
    order = sorted(range(len(members)), key=lambda i: members[i].sort_date, reverse=True)
    chosen: list[int] = []
    covered: dict[str, set] = {}
    rank = {i: r for r, i in enumerate(order)}
    left = set(order)
    while left and len(chosen) < k:
        def gain(i: int) -> tuple:
            own = covered.get(blocks[i])
            return (own is None, len(toks[i] - own) if own is not None else len(toks[i]), -rank[i])
        i = max(left, key=gain)
        left.discard(i)
        chosen.append(i)
        covered.setdefault(blocks[i], set()).update(toks[i])
    weight = {i: 0.0 for i in chosen}
    by_block: dict[str, list[int]] = {}
    for i in chosen:
        by_block.setdefault(blocks[i], []).append(i)
    for i in range(len(members)):
        cands = by_block.get(blocks[i])
        if not cands:
            continue
        if i in weight:
            weight[i] += 1.0
            continue
        j = max(cands, key=lambda c: (_jaccard(toks[c], toks[i]), -rank[c]))
        weight[j] += 1.0
    return [Representative(members[i].mention_id, weight[i], toks[i], blocks[i]) for i in chosen]


def build_profile(label: int, members: list[Mention], k: int = MAX_REPRESENTATIVES) -> Profile:
    p = Profile(label)
    for m in members:
        p._aggregate(m)
    p.trim()
    p.representatives = select_representatives(members, k)
    return p


def build_profiles(mentions: list[Mention], clusters: dict[str, int], k: int = MAX_REPRESENTATIVES) -> dict[int, Profile]:
    """A profile per cluster label of these mentions."""
    members: dict[int, list[Mention]] = {}
    for m in mentions:
        if m.mention_id in clusters:
            members.setdefault(clusters[m.mention_id], []).append(m)
    return {label: build_profile(label, ms, k) for label, ms in members.items()}
