"""Deterministic synthetic world for the sandbox upstreams (see world.py for the contract).

``generate_world(seed, papers_per_day, days, start_day)`` builds, in one pass:

* a population of research groups (a lab = one institution, home categories, a stable
  circle of members and partner groups), whose members carry the real signal a good
  matcher needs: co-authors, affiliations, categories, topics, ORCID;
* papers spread over the OAI datestamp days: mostly new papers (v1 that day) plus
  replacements and metadata fixes of older papers, some with old-style ids;
* the noise real data has: many people sharing common names (CJK names especially, and
  at least seven "Peng Wang"s), printed name variants of the same person, collaboration
  papers with thousands of authors, TeX, withdrawals, cross-lists, several DOIs;
* the upstream views (``Paper.s2``, ``Paper.openalex``, ``World.s2_authors``,
  ``World.openalex_authors``) with coverage lag and split / merged author identities.

The parts, one module each: ``vocabulary`` (categories, name pools, words), ``people`` (names,
persons, labs), ``papers`` (the day plan, papers and their text, collaboration papers),
``seed_fixtures`` (SEED.md), ``upstream_views`` (S2 / OpenAlex), ``ground_truth`` (gold and
the S2AND set); ``generate_world`` here runs them in order.

Only ``random.Random(seed)`` is used, and nothing iterates a set or hashes a string, so one
seed gives one world whatever PYTHONHASHSEED is.

Seed fixtures (SEED.md): 2508.06001 KnapFormer and the 3D Gaussian Splatting editing paper
(2508.03419) are always present when the window reaches 2025-08-08. The captured "Peng Wang"
(``SEED_PENG_WANG_ID``) is a middle author on exactly six papers (cs.CV x4, cs.DC x1,
cs.GR x1); his **Semantic Scholar** profile holds the external stats the site shows
(h-index 3, 478 citations, 8 papers). Six other planted "Peng Wang"s have 12, 11, 9, 9, 9, 9
papers and S2 h-indexes 4, 3, 7, 20, 4, 1; the random population adds more.
"""

from __future__ import annotations

import datetime as dt

from . import collaborations
from .name_shapes import HeavyTailedNames
from .papers import WorldBuilder, collaboration_papers, planned_slots
from .seed_fixtures import plant_other_peng_wangs, plant_seed
from .shape import WorldShape, resolve
from .upstream_views import UpstreamViews, link_citations
from .world import World


def generate_world(seed: int = 7, papers_per_day: int = 250, days: int = 10,
                   start_day: dt.date = dt.date(2025, 8, 4),
                   shape: WorldShape | str | None = None) -> World:
    """Build the world. Size = papers_per_day x days records (the seed and collaboration papers
    take the place of random ones; a ``DayPlan`` day holds its own count). About 1.6 persons per
    paper, in labs of 3-12 people. `shape`: "default" (None) or "realistic" or a ``WorldShape``
    (shape.py); the default draws exactly what it always drew."""
    if papers_per_day < 1 or days < 1:
        raise ValueError("papers_per_day and days must be positive")
    shape = resolve(shape)
    gen = WorldBuilder(seed, papers_per_day, days, start_day)
    if shape.names == "heavy_tailed":
        gen.names = HeavyTailedNames()
    inst_ids = gen.make_institutions()
    slots, planned = planned_slots(gen, shape.days)
    seed_papers = plant_seed(gen, inst_ids, slots)
    n_persons = max(200, int(len(slots) * 1.6))
    gen.make_groups(inst_ids, gen.next_person + n_persons)
    gen.build_group_picker()
    seed_pws = plant_other_peng_wangs(gen, inst_ids, slots)
    if shape.collaborations:
        collab, drop = collaborations.collaboration_papers(gen, inst_ids, slots, shape, planned)
        # the seed papers take the place of random records (not of a planned day's)
        free = [i for i, s in enumerate(slots) if s.forced_person is None and i not in drop and s.day not in planned]
        drop |= set(gen.rng.sample(free, min(len(free), len(seed_papers))))
    else:
        collab = collaboration_papers(gen, inst_ids, slots)
        # the seed and collaboration papers take the place of random records (any days)
        free = [i for i, s in enumerate(slots) if s.forced_person is None and s.day not in planned]
        drop = set(gen.rng.sample(free, min(len(free), len(seed_papers) + len(collab))))
    chosen = [s for i, s in enumerate(slots) if i not in drop]
    papers = [gen.make_paper(s) for s in chosen] + seed_papers + collab
    # v1 order gives stable S2/OpenAlex identity draws and citation links
    papers.sort(key=lambda p: (p.datestamp, p.arxiv_id))
    gen.papers = papers

    views = UpstreamViews(gen)
    views.assign_identities(seed_pws)
    for paper in sorted(papers, key=lambda p: (p.versions[0].submitted, p.arxiv_id)):
        views.paper_views(paper)
    link_citations(gen)
    views.finish_profiles(seed_pws)

    return World(seed=seed, size=len(papers), start_day=gen.start_day, end_day=gen.end_day,
                 papers=papers, persons=gen.persons, institutions=gen.institutions,
                 s2_authors=views.s2_authors, openalex_authors=views.oa_authors,
                 openalex_redirects=views.redirects)
