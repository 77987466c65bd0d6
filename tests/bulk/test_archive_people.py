"""The day-after bench's copies of other people (bench/archive_people.py): each copy renames its
people consistently, blocks keep their initials, and what the matcher derives from a renamed
name is one block per old block."""

from __future__ import annotations

from collections import Counter

from bench.archive_people import permutations, rename
from wove_pipeline.matching.names import make_name


def test_copies_rename_words_within_runs_of_one_initial_and_keep_case():
    surnames = Counter({"wang": 50, "wu": 40, "wei": 30, "li": 45, "lin": 20, "muller": 5})
    given = Counter({"peng": 9, "ping": 8, "pei": 7, "jun": 6, "jie": 5})
    maps = permutations(surnames, given, copies=3, seed=7, frozen=frozenset({"muller"}))
    assert len(maps) == 3 and any(maps)
    for mapping in maps:
        assert all(a[0] == b[0] for a, b in mapping.items())  # initials stay
        assert sorted(mapping) == sorted(mapping.values())  # a permutation of the words it moves
        assert set(mapping) <= set(surnames) | set(given) and "muller" not in mapping
        for a, b in mapping.items():  # a surname becomes a surname, a given name a given name
            assert (a in surnames) == (b in surnames)
    moved = next(m for m in maps if "peng" in m or "wang" in m)
    assert rename("Peng Wang", moved) == " ".join(
        w.capitalize() for w in (moved.get("peng", "peng"), moved.get("wang", "wang")))
    assert rename("P. WANG", moved) == "P. " + moved.get("wang", "wang").upper()
    assert rename("Müller", moved) == "Müller" and rename(None, moved) is None
    assert permutations(surnames, given, 3, 7, frozenset({"muller"})) == maps  # the same seed, the same copies


def test_a_renamed_name_keeps_one_block_per_old_block():
    surnames = Counter({"wang": 3, "wu": 2, "wei": 1, "zhang": 3, "zhao": 2})
    given = Counter({"peng": 3, "ping": 2, "pei": 1, "zhi": 2, "zhen": 1})
    names = [("Peng", "Wang"), ("P.", "Wang"), ("Ping", "Wang"), ("Zhi", "Zhang"), ("Z.", "Zhang"), ("Pei", "Wu")]
    for mapping in permutations(surnames, given, copies=5, seed=1):
        blocks: dict[str, set] = {}
        for first, last in names:
            old, new = make_name(first, None, last), make_name(rename(first, mapping), None, rename(last, mapping))
            blocks.setdefault(old.block, set()).add(new.block)
        assert all(len(v) == 1 for v in blocks.values()), blocks
