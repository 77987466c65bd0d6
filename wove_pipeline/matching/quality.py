"""Leave-one-set-out quality: each labelled set scored by a model that never saw it.

The model is fitted as ``wove matching train`` fits it (train.fit) on the other sets given
and the sandbox world (a set overlapping the held-out one left out too: train.held_out_with),
and clusters the held-out set at the shipped model's threshold and size exponent (chosen by
cross-validation in training). Used by ``wove matching evaluate --leave-one-out`` and
``bench/bench_matching_quality.py``.
"""

from __future__ import annotations

import numpy as np

from .assignment import MatchConfig
from .evaluate import SetScore, incremental_gap, score_set
from .model import ModelMissing, PairModel, default_model
from .train import SEED, held_out_fits, load_dev_sets, sandbox_set, set_pairs


def shipped_linkage() -> tuple[float, float]:
    """The shipped model's (size exponent, threshold), in train.choose_linkage's order: what
    its clustering cuts at."""
    try:
        model = default_model()
    except ModelMissing:
        return 0.0, 0.5
    return model.size_exponent, model.threshold


def leave_one_out_scores(dirs: list[str], *, log=print, incremental: bool = False,
                         vectors: bool = True) -> list[SetScore]:
    exponent, threshold = shipped_linkage()
    sets = load_dev_sets(dirs, vectors=vectors)
    training = sets + [sandbox_set()]
    rng = np.random.default_rng(SEED)
    pairs = {s.name: set_pairs(s, rng) for s in training}
    out = []
    for s, booster in held_out_fits(training, pairs, scored=sets):
        model = PairModel.from_booster(booster, threshold, size_exponent=exponent)
        config = MatchConfig(model=model)
        score = score_set(s.name, s.mentions, s.gold, config)
        if incremental:
            score.incremental = incremental_gap(s.mentions, s.gold, config)
        log(f"  {s.name}: held-out B3 F1 {score.matcher.f1:.4f}")
        out.append(score)
    return out
