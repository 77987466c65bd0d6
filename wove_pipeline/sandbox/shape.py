"""How a world is shaped: the default (the world every test and the old benches were written
against, byte-identical for a seed) or the realistic shape the scale benches use.

``generate_world(..., shape="realistic")`` (or ``shape=WorldShape(...)``) switches on:

* heavy-tailed names with CJK surnames as common as on arXiv (``name_shapes``): name blocks
  of 10,000+ mentions at 1,000,000 papers;
* hyper-authored collaboration papers (``collaborations``): ATLAS, CMS, ALICE, LHCb, Belle II
  (hep-ex / nucl-ex) and LIGO-Virgo-KAGRA (gr-qc / astro-ph.HE), 1,000-3,000 authors each, a few
  a day (Poisson, ``collaboration_papers_per_day`` on a mean day, weekdays heavier), from
  stable member lists that grow slowly (members join and leave over the days), every member
  on arXiv's byline in alphabetical order; the S2 view lists them all, OpenAlex's list
  responses cut authorships at 100 with ``is_authors_truncated: true`` and its singleton
  work gives them all (``openalex_records``: the real API's behaviour, research/upstream.md);
* ``days``: explicit plans for some days (``DayPlan``), so that a bench can place one
  3,000-author paper, or 300 ten-author papers, on a day of its choosing.

The default shape draws nothing new: ``generate_world(seed)`` is the same world as before.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True)
class DayPlan:
    """An explicit plan for one OAI day: `records` regular records (all new papers), each with
    exactly `authors_per_paper` authors when set, plus `collaboration_papers` collaboration
    papers (of `collaboration` when set, else drawn by the collaborations' shares) on top."""

    day: dt.date
    records: int
    authors_per_paper: int | None = None
    collaboration_papers: int = 0
    collaboration: str | None = None


@dataclass(frozen=True)
class WorldShape:
    names: str = "default"  # "default" | "heavy_tailed"
    collaborations: bool = False  # False: the default world's two ATLAS papers
    collaboration_papers_per_day: float = 3.0  # mean on a mean day (realistic collaborations)
    days: tuple[DayPlan, ...] = ()

    @property
    def is_default(self) -> bool:
        return self.names == "default" and not self.collaborations and not self.days


DEFAULT = WorldShape()
REALISTIC = WorldShape(names="heavy_tailed", collaborations=True)


def resolve(shape: WorldShape | str | None) -> WorldShape:
    if shape is None or shape == "default":
        return DEFAULT
    if shape == "realistic":
        return REALISTIC
    if isinstance(shape, WorldShape):
        if shape.names not in ("default", "heavy_tailed"):
            raise ValueError(f"unknown names shape {shape.names!r}")
        return shape
    raise ValueError(f"unknown world shape {shape!r}: 'default', 'realistic' or a WorldShape")
