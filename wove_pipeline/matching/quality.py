"""Leave-one-set-out quality: each labelled set scored by a model that never saw it.

The model is fitted as ``wove matching train`` fits it (train.fit) on the other sets given
and the sandbox world (a set overlapping the held-out one left out too: train.held_out_with),
and clusters the held-out set at the shipped model's threshold and size exponent (chosen by
cross-validation in training), then, when the shipped model has a group model, merges the
groups with a group model fitted as training fits it on the other sets' groups
(train.held_out_group_models). Used by ``wove matching evaluate --leave-one-out`` and
``bench/bench_matching_quality.py``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from . import name_prior
from .assignment import MatchConfig
from .evaluate import PRF, SetScore, incremental_gap, score_set
from .model import ModelMissing, PairModel, default_model
from .train import (SEED, UNSURE_SHARE, byline_names, fit, held_out_fits, held_out_group_models, held_out_with,
                    load_dev_sets, sandbox_set, set_pairs)


def shipped_linkage() -> tuple:
    """The shipped model's (size exponent, threshold[, group threshold]), in
    train.choose_linkage's order: what its clustering cuts at, and the group model's
    threshold when it has one."""
    try:
        model = default_model()
    except ModelMissing:
        return 0.0, 0.5
    if model.group is None:
        return model.size_exponent, model.threshold
    return model.size_exponent, model.threshold, model.group.threshold


def _held_out_model(booster, linkage: tuple, group) -> PairModel:
    exponent, threshold = linkage[:2]
    return PairModel.from_booster(booster, threshold, round(threshold * UNSURE_SHARE, 4), exponent, group)


@dataclass
class HeldOut:
    """What holding each set out takes, made once for every figure of one run: the sets (and
    the sandbox world), their training pairs, each set's held-out pair model (``fits``: set
    name -> booster) and group model (``groups``), at the shipped linkage."""

    sets: list
    training: list
    pairs: dict
    fits: dict
    groups: dict
    linkage: tuple
    seed: int

    def config(self, name: str) -> MatchConfig:
        """What set ``name`` is matched with when held out: its pair and group models."""
        return MatchConfig(model=_held_out_model(self.fits[name], self.linkage, self.groups[name]))


def held_out(dirs: list[str], *, vectors: bool = True, seed: int = SEED) -> HeldOut:
    """``seed``: of the training pairs' sampling and hidden evidence (train.set_pairs, train.fit);
    another seed tells how much of a figure is the sample's luck."""
    linkage = shipped_linkage()
    sets = load_dev_sets(dirs, vectors=vectors)
    training = sets + [sandbox_set()]
    pairs = {s.name: set_pairs(s, seed) for s in training}
    fits = {s.name: booster for s, booster in held_out_fits(training, pairs, seed=seed)}  # pair and group models read them
    return HeldOut(sets, training, pairs, fits, held_out_group_models(training, pairs, linkage, scored=sets, fits=fits),
                   linkage, seed)


def leave_one_out_scores(dirs: list[str], *, log=print, incremental: bool = False,
                         vectors: bool = True, seed: int = SEED, held: HeldOut | None = None) -> list[SetScore]:
    """Each set scored by its held-out models (``held``, made from ``dirs`` when not given)."""
    held = held or held_out(dirs, vectors=vectors, seed=seed)
    out = []
    for s in held.sets:
        config = held.config(s.name)
        score = score_set(s.name, s.mentions, s.gold, config)
        if incremental:
            score.incremental = incremental_gap(s.mentions, s.gold, config)
        log(f"  {s.name}: held-out B3 F1 {score.matcher.f1:.4f}")
        out.append(score)
    return out


def unseen_names_scores(dirs: list[str], *, log=print, vectors: bool = True,
                        held: HeldOut | None = None) -> dict[str, PRF]:
    """Each set scored as ``leave_one_out_scores`` scores it, with a name prior that never saw
    its bylines either (nor those of the sets held out with it): the shipped prior counts every
    labelled set's bylines, so a held-out set's own names are counted in it, and a set of
    people whose names no labelled set prints (another field, another country) gets less
    than the leave-one-out figure says. The pair features read the prior, so the training
    pairs are made again under each set's. The group model (when the shipped model has one)
    is the one leave_one_out_scores holds the set out with: fitted under the shipped prior."""
    held = held or held_out(dirs, vectors=vectors)
    bylines = {os.path.basename(os.path.normpath(d)): byline_names(d) for d in dirs}
    left_out = held_out_with(held.training)
    out: dict[str, PRF] = {}
    for s in held.sets:
        seen = [n for o in held.sets if o.name not in left_out[s.name] for n in bylines[o.name]]
        with name_prior.prior(name_prior.counts_of(seen)):
            # the pairs leave_one_out_scores samples, under this prior
            pairs = {o.name: set_pairs(o, held.seed) for o in held.training}
            booster = fit([pairs[o.name] for o in held.training if o.name not in left_out[s.name]], held.seed)
            model = _held_out_model(booster, held.linkage, held.groups[s.name])
            out[s.name] = score_set(s.name, s.mentions, s.gold, MatchConfig(model=model)).matcher
        log(f"  {s.name}: held out with its names out of the prior, B3 F1 {out[s.name].f1:.4f}")
    return out


def nested_group_scores(dirs: list[str], *, log=print, vectors: bool = True,
                        held: HeldOut | None = None) -> dict[str, PRF]:
    """Each set scored as ``leave_one_out_scores`` scores it, but with a group model whose
    training groups were cut by pair models that never saw the scored set either (for each
    other set Y: a pair model fitted without the scored set and without Y). The held-out group
    model of train.held_out_group_models learns from groups cut by Y's held-out pair model,
    which saw the scored set: this is the figure without that. Empty when the shipped model has
    no group model. A pair model without X and Y serves both X's and Y's group model: fitted once."""
    from .evaluate import b3
    from .train import _cut, fit_groups, group_model, scored_blocks, set_group_examples, thin_set

    if len(held.linkage if held else shipped_linkage()) < 3:
        return {}
    held = held or held_out(dirs, vectors=vectors)
    linkage = held.linkage
    left_out = held_out_with(held.training)
    boosters: dict[frozenset, object] = {}

    def without(unseen: frozenset):
        if unseen not in boosters:
            boosters[unseen] = fit([held.pairs[o.name] for o in held.training if o.name not in unseen], held.seed)
        return boosters[unseen]

    out: dict[str, PRF] = {}
    for s in held.sets:
        examples = []
        for other in held.training:
            if other.name in left_out[s.name]:
                continue
            model = PairModel.from_booster(without(frozenset(left_out[s.name] | left_out[other.name])))
            examples.append(set_group_examples(scored_blocks(model, other), scored_blocks(model, thin_set(other)),
                                               *linkage[:2]))
        group = group_model(fit_groups(examples), linkage[2])
        model = PairModel.from_booster(held.fits[s.name])
        out[s.name] = b3(_cut(scored_blocks(model, s), *linkage[:2], group), s.gold)
        log(f"  {s.name}: fully nested, B3 F1 {out[s.name].f1:.4f}")
    return out
