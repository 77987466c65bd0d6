"""How common a name is in the real world: the prior that decides how much other evidence
a merge needs ("J. Wang" needs strong evidence; a rare full name with nothing against it
merges).

The counts come from real bylines: every author of every paper in the labelled sets
(astrophysics, computer science, biomedicine, NLP), without their labels. A name is common
when many *different* names share its parts: how many distinct first names appear with a
surname ("wang": hundreds; "binzel": one or two), and how many distinct surnames with a first
name or a first initial. Counting distinct partners instead of bylines keeps one prolific
author from making his own name look common. ``build_counts`` writes the table (``wove
matching train`` calls it); ``name_parts`` reads a name's two counts. The corpus being
matched adds nothing to them (its own counts were tried as a feature and left out: see
features.py).
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

import numpy as np

from .names import Name, parse_name

COUNTS_PATH = os.path.join(os.path.dirname(__file__), "name_data", "name_counts.json.gz")
MIN_COUNT = 2  # parts seen with one partner only are left out (the table stays small; unseen counts as 0)


def _first_key(n: Name) -> str:
    return n.first if n.given and not n.first_is_initial else ""


def counts_of(author_names: list[str]) -> dict:
    """The table of these bylines (what ``build_counts`` writes)."""
    firsts_of: dict[str, set] = {}
    lasts_of: dict[str, set] = {}
    for text in author_names:
        n = parse_name(text)
        if not n.last_key or not n.given:
            continue
        fk = _first_key(n)
        if fk:
            firsts_of.setdefault(n.last_key, set()).add(fk)
            lasts_of.setdefault(fk, set()).add(n.last_key)
        lasts_of.setdefault(n.first_initial + ".", set()).add(n.last_key)
    doc = {
        "names": sum(len(v) for v in firsts_of.values()),
        "first_names_of_surname": {k: len(v) for k, v in sorted(firsts_of.items()) if len(v) >= MIN_COUNT},
        "surnames_of_first_name": {k: len(v) for k, v in sorted(lasts_of.items()) if len(v) >= MIN_COUNT},
    }
    return doc


def build_counts(author_names: list[str], path: str = COUNTS_PATH) -> dict:
    doc = counts_of(author_names)
    with gzip.GzipFile(path, "wb", mtime=0) as f:  # mtime 0: the same counts, the same bytes
        f.write(json.dumps(doc, sort_keys=True).encode())
    _shipped_counts.cache_clear()
    return doc


_override: list[dict] = []  # prior(): a table in use instead of the shipped one


@contextmanager
def prior(doc: dict) -> Iterator[None]:
    """Match with this table (``counts_of``) instead of the shipped one, inside the block
    (evaluation: a set scored with a prior that never saw its bylines)."""
    _override.append(doc)
    try:
        yield
    finally:
        _override.pop()


def _counts() -> dict | None:
    return _override[-1] if _override else _shipped_counts()


@lru_cache(maxsize=1)
def _shipped_counts() -> dict | None:
    if not os.path.exists(COUNTS_PATH):
        return None
    with gzip.open(COUNTS_PATH, "rb") as f:
        return json.loads(f.read())


def name_parts(variants: list[Name]) -> tuple[np.ndarray, np.ndarray]:
    """Per name: log(1 + distinct first names seen with its surname), and log(1 + distinct
    surnames seen with its first name, or with its first initial when it prints only
    initials). NaN without a table or a surname."""
    surname = np.full(len(variants), np.nan, dtype=np.float32)
    first = np.full(len(variants), np.nan, dtype=np.float32)
    c = _counts()
    if not c:
        return surname, first
    fos, sof = c["first_names_of_surname"], c["surnames_of_first_name"]
    for i, n in enumerate(variants):
        if not n.last_key or not n.given:
            continue
        surname[i] = np.log1p(fos.get(n.last_key, 0))
        first[i] = np.log1p(sof.get(_first_key(n) or n.first_initial + ".", 0))
    return surname, first
