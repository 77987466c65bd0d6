"""The day-after bench's copies of other people (bench/archive_people.py): each copy renames its
people consistently, blocks keep their initials, and what the matcher derives from a renamed
name is one block per old block; each copy's people work at other institutions and write in a vocabulary of their own."""

from __future__ import annotations

from collections import Counter

import numpy as np

from bench.archive_copy import _UPS
from bench.archive_people import (INSTITUTIONS_SQL, RENAMED, affiliation_maps, copy_words, permutations, rename,
                                  salted_centroid, salted_terms, vocabulary_salts)
from wove_pipeline.matching.names import make_name
from wove_pipeline.matching.profile_store import pack_centroid, unpack_centroid
from wove_pipeline.matching.scoring import text_term_counts


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


def _unpacked(packed: bytes) -> dict[int, int]:
    words = np.frombuffer(packed, dtype="<u4")
    return dict(zip((words & ((1 << 18) - 1)).tolist(), (words >> 18).tolist()))


def test_a_copy_counts_its_texts_in_a_vocabulary_of_its_own():
    salts = vocabulary_salts(copies=40, seed=7)
    assert len(set(salts)) == 40 and 0 not in salts and max(salts) < 1 << 18
    assert vocabulary_salts(40, 7) == salts and vocabulary_salts(40, 8) != salts
    text, other = text_term_counts(["Graph neural networks for graph matching, and networks again",
                                    "Dark matter halos in dwarf galaxies"])
    base, copy = _unpacked(text), _unpacked(salted_terms(text, salts[0]))
    # each term keeps its count under another index: a bijection, in index order as counted
    assert sorted(base.values()) == sorted(copy.values()) and len(copy) == len(base)
    assert {i ^ salts[0]: n for i, n in base.items()} == copy
    words = np.frombuffer(salted_terms(text, salts[0]), dtype="<u4") & ((1 << 18) - 1)
    assert (np.diff(words.astype(np.int64)) > 0).all()
    assert salted_terms(salted_terms(other, salts[1]), salts[1]) == other
    # a profile's centroid is salted alike: its copy's terms are its copied papers' terms
    centroid = pack_centroid(Counter(base))
    assert unpack_centroid(salted_centroid(centroid, salts[0])) == copy


def test_a_copy_works_at_institutions_of_its_own_and_prints_its_own_affiliations():
    texts = ["KAIST", "Dept. of Physics, KAIST", "MIT", "MIT CSAIL", "Peking University", "Somewhere", "ETH"]
    maps = affiliation_maps(texts, copies=20, seed=7)
    assert maps == affiliation_maps(texts, copies=20, seed=7) and len(maps) == 20
    words = copy_words(20, seed=7)
    assert len(set(words)) == 20 and all(w.isalpha() and w[0].isupper() for w in words)
    for k, moved in enumerate(maps, start=1):  # every one moves, to the copy's own
        assert moved == {a: f"{words[k - 1]} {a}" for a in texts}
    # no string is printed by two copies, nor by a copy and the base
    printed = [a for t in maps for a in t.values()] + texts
    assert len(printed) == len(set(printed)) == 21 * len(texts)
    # a copy's institution ids are suffixed as its upstream ids are, and its rows written so
    assert RENAMED["authorships"]["institution_ids"] == _UPS
    assert "t.institution_id || '-c' || w.k" in INSTITUTIONS_SQL
