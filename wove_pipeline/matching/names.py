"""Author-name normalization and compatibility rules.

Follows S2AND (``s2and/text.py``) and the OpenAlex V3 notebooks, summarised in
``research/author-matching.md`` section 4:

* transliterate with ``unidecode`` (GPL-2; used as an ordinary dependency, not bundled),
  lowercase, drop apostrophes inside tokens (O'Brien -> obrien), every other non-letter
  run becomes a space;
* titles (dr, prof, ...) are dropped, suffixes (jr, sr, ii, iii, ...) go to ``suffix``;
* surname particles (van, von, de, der, da, di, le, la, ...) stay in the surname but the
  surname *key* ignores them, so "van der Berg", "Berg" and "vanderberg" compare equal;
* given names keep hyphenated parts together as one *given name*: "Jean-Pierre" ->
  tokens ``("jean", "pierre")`` with initials ``jp``; "J.-P." -> ``("j", "p")``;
  CJK romanised given names "Xiao-Ming", "Xiaoming" and "Xiao Ming" all share the joined
  form ``xiaoming`` and are compatible, while "Xiao" and "Xiaoming" are not.
* ``block_key`` = first initial + " " + surname key (S2AND's block).
* nickname / variant given names: a short hand-made list plus S2AND's 20k real pairs
  (``name_data/name_tuples.txt``, CC BY 4.0).

``names_compatible`` gives the hard "could be the same person" rule used as a cannot-link
constraint; ``name_evidence`` grades compatible pairs for the scorer.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property, lru_cache

from unidecode import unidecode

TITLES = frozenset(
    "dr prof professor mr mrs miss ms mx sir phd md doctor dipl ing".split()
)
SUFFIXES = frozenset("jr sr ii iii iv junior senior".split())
# S2AND's DROPPED_AFFIXES minus the suffixes, plus a few common Romance/Dutch ones.
PARTICLES = frozenset(
    """ab abu al am ap auf aus bar bat bath ben bet bin bint da dal dall dalla das de degli
    dei del dell della dem den der des di do dos ds du el ibn im la las le les lo los mac mc
    mhic mic op san santa st ten ter und van vande vanden vander vom von zu zum zur""".split()
)

# Common English/European nickname <-> given name pairs (both directions used).
_NICK_PAIRS = """
alex:alexander alex:alexandre alex:alexandra alex:alexei alex:alexey al:albert al:alan al:alfred
andy:andrew andy:andreas bill:william will:william liam:william bob:robert rob:robert bert:robert
dick:richard rick:richard rich:richard ben:benjamin chris:christopher chris:christian
chris:christine chris:christina dan:daniel danny:daniel dave:david ed:edward ed:edwin ted:edward
eddie:edward fred:frederick fred:frederic frank:francis frank:franklin gene:eugene greg:gregory
jim:james jimmy:james jamie:james jeff:jeffrey jeff:jeffery jerry:gerald jerry:jerome joe:joseph
jon:jonathan johnny:john jack:john ken:kenneth larry:lawrence len:leonard matt:matthew
mike:michael mick:michael nate:nathan nate:nathaniel nick:nicholas nick:nikolaos nick:nikolai
pat:patrick pat:patricia pete:peter phil:philip phil:phillip ray:raymond ron:ronald sam:samuel
sam:samantha steve:steven steve:stephen stan:stanley sue:susan tom:thomas tim:timothy
tony:anthony vince:vincent walt:walter kate:katherine kate:catherine katie:katherine
kathy:katherine cathy:catherine liz:elizabeth beth:elizabeth betty:elizabeth jen:jennifer
jenny:jennifer meg:margaret peggy:margaret maggie:margaret mandy:amanda becky:rebecca
vicky:victoria val:valentina val:valerie sasha:alexander sasha:aleksandr misha:mikhail
dima:dmitry dima:dmitri kolya:nikolai vova:vladimir volodymyr:vladimir sergey:sergei
dmitry:dmitri dmitriy:dmitry alexey:aleksei yuri:yury yuriy:yury
""".split()
NICKNAMES: dict[str, set[str]] = {}

def _name_tuples() -> list[str]:
    """S2AND's given-name variant pairs (name_data/name_tuples.txt, CC BY 4.0, see its README)."""
    import os

    path = os.path.join(os.path.dirname(__file__), "name_data", "name_tuples.txt")
    with open(path, encoding="utf-8") as f:
        return [line.strip().replace(",", ":") for line in f if "," in line]


for _p in _NICK_PAIRS + _name_tuples():
    _a, _b = _p.split(":")
    NICKNAMES.setdefault(_a, set()).add(_b)
    NICKNAMES.setdefault(_b, set()).add(_a)

_NONLETTER = re.compile(r"[^a-z]+")
_APOS = re.compile(r"(?<=[a-z])['\u2019`](?=[a-z])")


def normalize_text(s: str | None) -> str:
    """Transliterate, lowercase, drop in-word apostrophes, non-letters -> single spaces."""
    if not s:
        return ""
    s = unidecode(unicodedata.normalize("NFKC", s)).lower()
    s = _APOS.sub("", s).replace("'", "")
    return _NONLETTER.sub(" ", s).strip()


def _given_groups(raw: str | None) -> list[list[str]]:
    """Split raw forenames into given-name groups; a hyphen keeps parts in one group.

    "Jean-Pierre" -> [["jean","pierre"]]; "J.-P. Marie" -> [["j","p"],["marie"]];
    "Xiao Ming" -> [["xiao"],["ming"]]; "JP" stays one token "jp" (ambiguous; see
    ``_expand_caps``).
    """
    if not raw:
        return []
    raw = unicodedata.normalize("NFKC", raw)
    raw = _expand_caps(raw)
    groups: list[list[str]] = []
    for chunk in re.split(r"[\s,]+|(?<=\.)(?=[^\s\-.])", raw):
        if not chunk:
            continue
        parts = [normalize_text(p) for p in re.split(r"[-\u2010\u2011\u2012\u2013]+", chunk)]
        toks: list[str] = []
        for p in parts:
            toks.extend(t for t in p.split() if t)
        if toks:
            groups.append(toks)
    return groups


def _expand_caps(raw: str) -> str:
    """"JP" / "J.P." style all-caps initials -> "J. P."; leaves real names alone."""
    out = []
    for tok in raw.split():
        bare = tok.replace(".", "")
        if 2 <= len(bare) <= 3 and bare.isalpha() and bare.isupper():
            out.append(" ".join(c + "." for c in bare))
        else:
            out.append(tok)
    return " ".join(out)


@dataclass(frozen=True)
class Name:
    """A normalized author name (immutable; derived keys are computed once per instance)."""

    given: tuple[tuple[str, ...], ...]  # given-name groups, tokens normalized
    last: str  # normalized surname incl. particles, e.g. "van der berg"
    suffix: str | None = None

    @cached_property
    def given_tokens(self) -> tuple[str, ...]:
        return tuple(t for g in self.given for t in g)

    @cached_property
    def first_initial(self) -> str:
        toks = self.given_tokens
        return toks[0][0] if toks else ""

    @cached_property
    def last_key(self) -> str:
        return surname_key(self.last)

    @cached_property
    def first(self) -> str:
        """The first given name, hyphen-joined ("jean-pierre" -> "jeanpierre")."""
        return "".join(self.given[0]) if self.given else ""

    @cached_property
    def first_is_initial(self) -> bool:
        return bool(self.given) and all(len(t) == 1 for t in self.given[0])

    @cached_property
    def middle_initials(self) -> str:
        return "".join(g[0][0] for g in self.given[1:])

    @cached_property
    def initials(self) -> str:
        return "".join(t[0] for t in self.given_tokens)

    @cached_property
    def full_given(self) -> str:
        """All given tokens joined without spaces: the CJK-insensitive given-name key."""
        return "".join(self.given_tokens)

    @property
    def display(self) -> str:
        g = " ".join("-".join(grp) for grp in self.given)
        return f"{g} {self.last}".strip()

    @cached_property
    def key(self) -> str:
        """Exact normalized full-name key (used by the exact-name baseline and 'same name')."""
        return f"{self.full_given} {self.last_key}".strip()

    @cached_property
    def block(self) -> str:
        return block_key(self)


def surname_key(last: str) -> str:
    toks = last.split()
    core = [t for t in toks if t not in PARTICLES]
    return "".join(core or toks)


def block_key(name: Name) -> str:
    """S2AND block: first initial + ' ' + surname key."""
    return f"{name.first_initial} {name.last_key}".strip()


def make_name(
    first: str | None,
    middle: str | None = None,
    last: str | None = None,
    suffix: str | None = None,
) -> Name:
    """Build a Name from structured parts (arXiv forenames/keyname, S2AND first/middle/last)."""
    return _make_name_cached(first or "", middle or "", last or "", suffix or "")


@lru_cache(maxsize=500_000)
def _make_name_cached(first: str, middle: str, last: str, suffix: str) -> Name:
    groups = _given_groups(first) + _given_groups(middle)
    sfx = normalize_text(suffix) or None
    # titles at the front of the given names
    while groups and len(groups[0]) == 1 and groups[0][0] in TITLES:
        groups.pop(0)
    # suffixes at the end of the given names ("John Jr.")
    while len(groups) > 1 and len(groups[-1]) == 1 and groups[-1][0] in SUFFIXES:
        popped = groups.pop()[0]
        sfx = sfx or popped
    last_toks = normalize_text(last).split()
    while len(last_toks) > 1 and last_toks[-1] in SUFFIXES:
        sfx = sfx or last_toks.pop()
    # trailing particles printed with the forenames ("Jan van" + "Berg")
    while groups and len(groups) > 1 and len(groups[-1]) == 1 and groups[-1][0] in PARTICLES:
        last_toks.insert(0, groups.pop()[0])
    if not last_toks and groups:  # mononym / everything in one field
        last_toks = list(groups.pop())
    return Name(tuple(tuple(g) for g in groups), " ".join(last_toks), _canon_suffix(sfx))


def _canon_suffix(s: str | None) -> str | None:
    if not s:
        return None
    return {"junior": "jr", "senior": "sr"}.get(s, s)


def parse_name(text: str | None) -> Name:
    """Parse a free-text display name ("Wang, Peng", "Jean-Pierre van der Berg Jr.")."""
    if not text or not text.strip():
        return Name((), "", None)
    return _parse_cached(text.strip())


@lru_cache(maxsize=500_000)
def _parse_cached(text: str) -> Name:
    from nameparser import HumanName

    if "," not in text:
        # Fast path for the common "Given [Middle] Last" form with particles.
        toks = text.split()
        if len(toks) >= 2:
            norm = [normalize_text(t) for t in toks]
            sfx = None
            while len(toks) > 2 and norm[-1] in SUFFIXES:
                sfx = norm[-1]
                toks, norm = toks[:-1], norm[:-1]
            i = len(toks) - 1
            while i > 1 and norm[i - 1] in PARTICLES:
                i -= 1
            return make_name(" ".join(toks[:i]), None, " ".join(toks[i:]), sfx)
        return make_name(None, None, text, None)
    hn = HumanName(text)
    return make_name(hn.first, hn.middle, hn.last, hn.suffix or None)


def _tok_compatible(a: str, b: str) -> bool:
    """One given-name token against another: equal, initial-prefix, or nickname pair."""
    if a == b:
        return True
    if len(a) == 1 or len(b) == 1:
        return a[0] == b[0]
    return b in NICKNAMES.get(a, ())


def _group_compatible(ga: tuple[str, ...], gb: tuple[str, ...]) -> bool:
    """Two given-name groups (hyphen groups) could be the same name."""
    if "".join(ga) == "".join(gb):
        return True
    if len(ga) == len(gb):
        return all(_tok_compatible(x, y) for x, y in zip(ga, gb))
    # "J." vs "Jean-Pierre": an initial-only group matches any group with the same first letter
    if len(ga) == 1 and len(ga[0]) == 1:
        return ga[0] == gb[0][0]
    if len(gb) == 1 and len(gb[0]) == 1:
        return gb[0] == ga[0][0]
    return False


def _given_compatible(a: Name, b: Name) -> bool:
    if not a.given or not b.given:
        return True  # nothing to compare (surname-only)
    if a.full_given == b.full_given:
        return True  # "xiao ming" == "xiao-ming" == "xiaoming"
    ta, tb = a.given_tokens, b.given_tokens
    # all-initials on one side: "j p" vs "jean pierre" / "jean-pierre"
    if all(len(t) == 1 for t in ta) or all(len(t) == 1 for t in tb):
        ia, ib = a.initials, b.initials
        short, long_ = (ia, ib) if len(ia) <= len(ib) else (ib, ia)
        if long_.startswith(short):
            return True
        # "J. Smith" vs "John A. Smith" handled above; "J. A." vs "John B." not compatible
        return _groups_rule(a, b)
    return _groups_rule(a, b)


def _groups_rule(a: Name, b: Name) -> bool:
    ga, gb = a.given, b.given
    if not _group_compatible(ga[0], gb[0]):
        # "Xiao Ming" (two groups) vs "Xiaoming" (one group): joined equality handled above;
        # "Xiaoming" vs "Xiao-Ming Jr" style, compare first group joined to other's joined
        return False
    ra, rb = ga[1:], gb[1:]
    if not ra or not rb:
        return True  # middle names missing on one side
    # S2AND: non-empty middle-initial sets with empty intersection -> incompatible;
    # stricter when both are full names: any pairwise conflict at the same slot.
    for x, y in zip(ra, rb):
        if not _group_compatible(x, y):
            return False
    return True


@lru_cache(maxsize=1_000_000)
def names_compatible(a: Name, b: Name) -> bool:
    """Hard rule: could these two printed names belong to one person?

    Different surname keys (space/hyphen/particle insensitive) -> no; different first
    initials -> no; two full first names that are neither equal (hyphen-insensitive), nor
    an initial of each other, nor a nickname pair -> no ("jian" vs "jianming" -> no);
    conflicting middle names -> no. Swapped CJK order ("Wang Peng" vs "Peng Wang") is
    accepted when the tokens swap exactly.
    """
    if a.last_key != b.last_key and a.last.replace(" ", "") != b.last.replace(" ", ""):
        return _swapped(a, b)
    if a.given and b.given and a.first_initial != b.first_initial:
        return False
    if a.suffix and b.suffix and a.suffix != b.suffix:
        return False
    return _given_compatible(a, b)


def _swapped(a: Name, b: Name) -> bool:
    return (
        len(a.given) == 1
        and len(b.given) == 1
        and a.full_given == b.last_key
        and b.full_given == a.last_key
        and len(a.full_given) > 1
    )


@lru_cache(maxsize=1_000_000)
def name_evidence(a: Name, b: Name) -> str:
    """Grade of a compatible pair, used by the scorer.

    ``full_exact``   full given names equal (hyphen/space insensitive), > 1 letter;
    ``full_nick``    full names equal up to a nickname pair;
    ``initials``     at least one side gives only initials and they agree;
    ``partial``      compatible but not equal (e.g. middle name on one side only);
    ``incompatible`` fails ``names_compatible``.
    """
    if not names_compatible(a, b):
        return "incompatible"
    if not a.given or not b.given:
        return "initials"
    fa, fb = a.full_given, b.full_given
    a_init = all(len(t) == 1 for t in a.given_tokens)
    b_init = all(len(t) == 1 for t in b.given_tokens)
    if a_init or b_init:
        return "initials"
    if fa == fb and len(fa) > 1:
        return "full_exact"
    if a.first == b.first or "".join(a.given[0]) == "".join(b.given[0]):
        return "partial"
    return "full_nick"


def first_variant(name: Name) -> str:
    """Sub-block key for very large blocks: the joined first given name, or '' for initials."""
    return "" if name.first_is_initial else name.first
