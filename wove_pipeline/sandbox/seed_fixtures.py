"""The seed fixtures (SEED.md): KnapFormer (2508.06001), the 3D Gaussian Splatting editing
paper (2508.03419), the captured "Peng Wang" and the six other planted ones."""

from __future__ import annotations

import datetime as dt

from .draws import at_random_time
from .papers import Slot, WorldBuilder, undo_withdrawal
from .people import Group, NameHabit, strip_accents
from .world import Paper

SEED_PENG_WANG_ID = 1
KNAPFORMER_ID = "2508.06001"
GS_EDIT_ID = "2508.03419"
KNAPFORMER_DAY = dt.date(2025, 8, 8)
GS_EDIT_DAY = dt.date(2025, 8, 5)

KNAPFORMER_TITLE = "KnapFormer: An Online Load Balancer for Efficient Diffusion Transformers Training"
KNAPFORMER_ABSTRACT = (
    "We present KnapFormer, an efficient and versatile framework to combine workload "
    "balancing and sequence parallelism in distributed training of Diffusion Transformers "
    "(DiT). KnapFormer builds on the insight that strong synergy exists between sequence "
    "parallelism and the need to address the significant token imbalance across ranks. This "
    "imbalance arises from variable-length text inputs and varying visual token counts in "
    "mixed-resolution and image-video joint training. KnapFormer redistributes tokens by first "
    "gathering sequence length metadata across all ranks in a balancing group and solving a "
    "global knapsack problem. The solver aims to minimize the variances of total workload per "
    "GPU, while accounting for the effect of sequence parallelism. By integrating DeepSpeed-Ulysses-based "
    "sequence parallelism in the load-balancing decision process and utilizing a simple "
    "semi-empirical workload model, KnapFormers achieves minimal communication overhead and less "
    "than 1\\% workload discrepancy in real-world training workloads with sequence length "
    "varying from a few hundred to tens of thousands. It eliminates straggler effects and "
    "achieves 2x to 3x speedup when training state-of-the-art diffusion models like FLUX on "
    "mixed-resolution and image-video joint data corpora. We open-source the KnapFormer "
    "implementation at https://github.com/Kai-46/KnapFormer/"
)
GS_EDIT_TITLE = "Feed-Forward State-Aware Editing of 3D Gaussian Splatting Assets from 2D Views via Test-Time Training"
GS_EDIT_ABSTRACT = (
    "We present \\ourmethod, a feed-forward, state-aware model for interactive editing of 3D "
    "Gaussian Splatting (3DGS) assets from 2D views. Given a 3DGS asset and a sequence of user "
    "edits applied to rendered views, \\ourmethod{} propagates each edit to the 3D "
    "representation in a single forward pass, maintaining a compact \\emph{editing state} "
    "that is updated with test-time training so that successive edits remain consistent. "
    "Unlike optimization-based pipelines that require minutes per edit, \\ourmethod{} responds "
    "in about a second while preserving multi-view consistency and the identity of unedited "
    "regions. Experiments on object- and scene-level benchmarks show that \\ourmethod{} "
    "outperforms prior 3D editing methods in fidelity and speed."
)
# The six other planted "Peng Wang"s: (archive paper count, S2 h-index) per SEED.md
OTHER_PENG_WANGS = [(12, 4), (11, 3), (9, 7), (9, 20), (9, 4), (9, 1)]


def plant_seed(gen: WorldBuilder, inst_ids: list[str], slots: list[Slot]) -> list[Paper]:
    """The Adobe group with Kai Zhang and the captured Peng Wang, and his six papers."""
    rng = gen.rng
    adobe = next(i for i in inst_ids if gen.institutions[i].display_name == "Adobe Research")
    stanford = next(i for i in inst_ids if gen.institutions[i].display_name == "Stanford University")
    group = Group(len(gen.groups), adobe, ["cs.CV", "cs.GR", "cs.LG"], [], weight=1.0)
    gen.groups.append(group)
    names = [("Kai", "Zhang"), ("Peng", "Wang"), ("Sai", "Bi"), ("Jianming", "Zhang"),
             ("Yuanjun", "Xiong"), ("Hao", "Tan"), ("Yang", "Zheng"), ("Zexiang", "Xu"),
             ("Fujun", "Luan")]
    pids = {}
    for given, family in names:
        pid = gen.new_person(given, family, pid=SEED_PENG_WANG_ID if (given, family) == ("Peng", "Wang") else None)
        gen.habits[pid] = NameHabit(0.0, 0.0, 0.0, 0.0)  # the seed authors print canonically
        gen.join(pid, group, inst_ids, weight=1.0)
        pids[given + " " + family] = pid
    # Yang Zheng was at Stanford (intern at Adobe); the first member is the PI
    gen.persons[pids["Yang Zheng"]].affiliations = [(stanford, 1990, 2026)]
    gen.pinned.add(SEED_PENG_WANG_ID)
    gen.persons[SEED_PENG_WANG_ID].home_categories = ["cs.CV", "cs.GR", "cs.DC"]
    gen.persons[SEED_PENG_WANG_ID].orcid = None

    papers = []
    if gen.end_day < KNAPFORMER_DAY:
        return papers
    kz, pw = pids["Kai Zhang"], SEED_PENG_WANG_ID

    def clamp(day: dt.date) -> dt.date:
        return min(max(day, gen.start_day), gen.end_day)

    day = clamp(KNAPFORMER_DAY)
    v1 = dt.datetime(2025, 8, 8, 17, 31, 2, tzinfo=dt.timezone.utc)
    knap = gen.assemble(day, v1, ["cs.DC", "cs.CV"],
                        [kz, pw, pids["Sai Bi"], pids["Jianming Zhang"], pids["Yuanjun Xiong"]],
                        group, True, KNAPFORMER_ID, KNAPFORMER_TITLE, KNAPFORMER_ABSTRACT)
    knap.comments, knap.withdrawn, knap.journal_ref, knap.dois = "Code available at https://github.com/Kai-46/KnapFormer/", False, None, []
    knap.license = "http://creativecommons.org/licenses/by/4.0/"
    papers.append(knap)

    day = clamp(GS_EDIT_DAY)
    v1 = dt.datetime(GS_EDIT_DAY.year, 8, 5, 16, 2, 44, tzinfo=dt.timezone.utc)
    gs = gen.assemble(day, v1, ["cs.CV", "cs.GR"],
                      [pids["Yang Zheng"], pids["Hao Tan"], kz, pw, pids["Sai Bi"], pids["Zexiang Xu"]],
                      group, True, GS_EDIT_ID, GS_EDIT_TITLE, GS_EDIT_ABSTRACT)
    gs.comments, gs.withdrawn, gs.journal_ref, gs.dois = "Project page: https://example.github.io/gs-edit", False, None, []
    papers.append(gs)

    # four older papers, replaced/fixed inside the window: 3x cs.CV, 1x cs.GR, all middle author
    for k, cats in enumerate([["cs.CV"], ["cs.CV", "cs.LG"], ["cs.CV", "cs.GR"], ["cs.GR", "cs.CV"]]):
        day = gen.start_day + dt.timedelta(days=rng.randrange(gen.days))
        v1 = at_random_time(dt.date(2023, 3, 1) + dt.timedelta(days=150 * k + rng.randrange(60)), rng)
        others = [p for p in group.members if p not in (kz, pw)]
        authors = rng.sample(others, 2) + [pw] + [kz]
        p = gen.assemble(day, v1, cats, authors, group, False)
        undo_withdrawal(p)
        papers.append(p)
    return papers


def plant_other_peng_wangs(gen: WorldBuilder, inst_ids: list[str], slots: list[Slot]) -> list[int]:
    """Six more Peng Wangs, each in his own random group, with fixed paper counts."""
    rng = gen.rng
    planted = []
    # never the seed's Adobe group (gid 0), never a lab that already has a "P. Wang"
    candidates = [g for g in gen.groups[1:] if len(g.members) >= 3 and not any(
        (strip_accents(gen.persons[m].family), gen.persons[m].given[0]) == ("Wang", "P") for m in g.members)]
    free = [i for i, s in enumerate(slots) if s.forced_person is None]
    picks = rng.sample(free, min(len(free), sum(n for n, _ in OTHER_PENG_WANGS)))
    cursor = 0
    for n_papers, _h in OTHER_PENG_WANGS:
        group = rng.choice(candidates)
        candidates.remove(group)
        pid = gen.new_person("Peng", "Wang")
        gen.join(pid, group, inst_ids, weight=1.0)
        gen.pinned.add(pid)
        for i in picks[cursor:cursor + n_papers]:
            slots[i].forced_person = pid
            slots[i].forced_group = group.gid
        cursor += n_papers
        planted.append(pid)
    return planted
