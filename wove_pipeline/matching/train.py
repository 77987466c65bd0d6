"""``wove matching train``: fit the pair model on real labelled authors and the sandbox world.

Training pairs are mention pairs inside one name block (the pairs the matcher scores) whose
names are compatible and that are not two positions of one paper; the label is "same
person". Each set weighs the same in the fit, however many pairs it has, so the model learns
what authors share across fields rather than one big set's habits. Half of the pairs are
repeated with whole kinds of evidence hidden at random (ids, e-mail, co-authors,
affiliations, text, sentence vectors, venue, year, author count), so the model decides well
with and without each. The sets' papers carry sentence vectors as the pipeline's do
(set_vectors; the sandbox world's too).

Cross-validation is by set: leave one set out (with any set sharing its papers: held_out_with),
fit on the rest, cluster the held-out set with
average linkage at a grid of thresholds and size exponents (two groups merge at threshold x
(pairs between them) ** -exponent: cluster.merge_threshold). The shipped model is fitted on
every set; the shipped pair is the one with the best mean held-out B3 F1 over the real sets
of those under which that model keeps the sandbox default world (seed 7, the world the tests
and the issue's bar use) at B3 F1 >= 0.98 and, stripped to names, affiliations and positions,
above exact names (B3 F1 + 0.01, precision + 0.05): the real sets decide, the generated world
only vetoes. (The F1 margin was 0.02 from 2026-12-02 to 2026-12-04; at 0.02 it vetoed every
linkage with the group model, whose held-out B3 F1 is higher on all six real sets: on the
thin world it reads 0.822 against exact names' 0.808, precision 0.932 against 0.740.) The
sandbox world's people have two or three papers each, where a high threshold for two lone
mentions costs recall (the manifest's "sandbox_bar" holds each setting checked). Everything is
seeded and runs on one thread: the same inputs give the same model file, byte for byte.

The second stage (group_merge.py) is cross-validated the same way: each set's blocks, scored
by its held-out pair model, are cut at each GROUP_STAGE_ONE (size exponent, threshold); the
group pairs that leaves (and leaves on the set stripped to thin evidence) train a group model
per held-out set on the other sets' pairs, which merges the held-out set's groups at each
GROUP_THRESHOLDS. These (exponent, threshold, group threshold) compete with average linkage
alone in one ranking. (A held-out set's group model learns from groups its own data helped
cut: the other sets' pair models saw it. The pair model it is scored with never did.)
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import defaultdict
from dataclasses import dataclass, replace

import numpy as np

from .features import EVIDENCE_GROUPS, FEATURES, feature_matrix, pair_features
from .mentions import EMBEDDING_MODEL, Mention
from .model import GROUP_MODEL_FILE, MANIFEST_FILE, MODEL_DIR, MODEL_FILE, PairModel
from .scoring import block_names, build_data

SANDBOX_SEED = 11  # not the default world's 7: the sandbox figures are measured on a world the model never saw
SANDBOX_BAR_SEED, SANDBOX_BAR = 7, 0.98  # the default world, and the B3 F1 the shipped choice must keep on it
# ...and on that world stripped to names, affiliations and positions (evaluate.thin_mentions),
# how far the shipped choice must stay above the exact-name baseline (B3 F1, B3 precision)
THIN_MARGIN_F1, THIN_MARGIN_PRECISION = 0.01, 0.05
SANDBOX_SHAPE = (250, 10)  # papers per day, days
MAX_PAIRS_PER_BLOCK = 20_000
MAX_PAIRS_PER_SET = 150_000
THRESHOLDS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)
SIZE_EXPONENTS = (0.0, 0.1, 0.2, 0.3)
UNSURE_SHARE = 0.5  # incremental: a mean probability in [threshold / 2, threshold) opens a "not sure" profile
SEED = 20261201
SHARED_PAPERS = 0.1  # sets sharing this share of the smaller one's papers are held out together

PARAMS = {
    "objective": "binary",
    "learning_rate": 0.15,
    "num_leaves": 23,
    "min_data_in_leaf": 50,
    "feature_fraction": 0.9,
    "lambda_l2": 1.0,
    "num_threads": 1,
    "deterministic": True,
    "force_row_wise": True,
    "seed": SEED,
    "verbose": -1,
}
ROUNDS = 100  # 300 at 0.05 held out no better (mean held-out B3 F1 0.817 vs 0.816) and predicted 3x slower

# The second stage (group_merge.py): first-stage cuts (size exponent, threshold) tried beneath
# the group model, and the group model's thresholds. Cut higher than average linkage alone
# would be, the first stage leaves purer groups for the group model to join.
GROUP_STAGE_ONE = ((0.0, 0.6), (0.1, 0.6), (0.0, 0.7), (0.1, 0.7))
GROUP_THRESHOLDS = (0.8, 0.85, 0.9, 0.95)
# the pair model's, smaller trees over fewer rows, every feature each tree
GROUP_PARAMS = {**{k: v for k, v in PARAMS.items() if k != "feature_fraction"},
                "learning_rate": 0.1, "num_leaves": 15, "min_data_in_leaf": 30}
GROUP_ROUNDS = 150
THIN_GROUP_SHARE = 0.5  # weight of a set's thin copy in the group model's training, against the set's 1

# More of this evidence never makes "same person" less likely (and more ambiguity or a longer
# gap never more): the trees may not learn a set's accidents against it.
MONOTONE = {
    "name_grade": 1, "middle_equal": 1, "surname_variety": -1, "first_name_variety": -1,
    "orcid_equal": 1, "s2_same": 1, "openalex_same": 1, "email_same": 1, "coauthors_shared": 1,
    "coauthors_share": 1, "coauthors_named": 1, "affiliation_cosine": 1, "institution_shared": 1,
    "text_cosine": 1, "venue_cosine": 1, "year_gap": -1, "embedding_cosine": 1,
}


@dataclass
class LabelledSet:
    name: str
    mentions: list[Mention]
    gold: dict[str, object]
    digest: str


def _digest(paths: list[str]) -> str:
    h = hashlib.sha256()
    for p in sorted(paths):
        with open(p, "rb") as f:
            h.update(os.path.basename(p).encode() + b"\0" + f.read())
    return h.hexdigest()


def dev_dirs(root: str) -> list[str]:
    """The labelled sets (S2AND directories) in ``root``, by name."""
    return [os.path.join(root, n) for n in sorted(os.listdir(root)) if os.path.exists(os.path.join(root, n, "signatures.json"))]


def load_dev_sets(dirs: list[str], *, vectors: bool = True) -> list[LabelledSet]:
    """The labelled sets, their papers' sentence vectors attached (set_vectors) unless
    ``vectors=False``."""
    from .evaluate import load_s2and

    out = []
    for d in dirs:
        d = os.path.normpath(d)
        name = os.path.basename(d)
        mentions, gold = load_s2and(d, vectors=vectors)
        files = [os.path.join(d, f) for f in ("signatures.json", "papers.json", "clusters.json") if os.path.exists(os.path.join(d, f))]
        out.append(LabelledSet(name, mentions, gold, _digest(files)))
    return out


def sandbox_set(seed: int = SANDBOX_SEED) -> LabelledSet:
    """The sandbox world's mentions with their papers' sentence vectors: the pipeline embeds
    the sandbox's papers too, and its generated abstracts are alike across people of a field,
    which the model must see to not read a high cosine there as the same person."""
    from wove_pipeline.sandbox.generator import generate_world

    from .sandbox_eval import attach_world_vectors, world_mentions

    ppd, days = SANDBOX_SHAPE
    world = generate_world(seed=seed, papers_per_day=ppd, days=days)
    mentions, gold = world_mentions(world)
    attach_world_vectors(world, mentions)
    return LabelledSet(f"sandbox_seed{seed}", mentions, gold, f"generator seed={seed} {ppd}x{days}")


def _own_rng(seed: int, *parts: bytes) -> np.random.Generator:
    """A generator of its own for one set, from ``seed`` and what identifies the set: a set's
    sample (and the evidence hidden in its copy) is the same whichever sets come before it.
    One generator drawn from in turn made each set's sample depend on the order of the
    directories given and on the sets held out before it: the same sets given in another
    order read acl_homonyms 0.676 or 0.616 held out. (The booster still sees the sets' rows in
    the order given: ``wove matching train`` and the benches give them sorted by name.)"""
    digest = hashlib.sha256(b"\0".join(parts)).digest()
    return np.random.default_rng([seed, int.from_bytes(digest[:8], "little")])


def set_pairs(s: LabelledSet, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows and labels of a set's scored pairs (sampled in big blocks)."""
    rng = _own_rng(seed, s.name.encode())
    data = build_data(s.mentions)
    by_block: dict[str, list[int]] = defaultdict(list)
    for i, m in enumerate(s.mentions):
        if m.mention_id in s.gold:
            by_block[m.block].append(i)
    Xs, ys = [], []
    for block in sorted(by_block):
        idx = np.asarray(by_block[block], dtype=np.int64)
        n = len(idx)
        if n < 2:
            continue
        I, J = np.triu_indices(n, 1)
        if len(I) > MAX_PAIRS_PER_BLOCK:
            pick = np.sort(rng.choice(len(I), MAX_PAIRS_PER_BLOCK, replace=False))
            I, J = I[pick], J[pick]
        bn = block_names(data, idx)
        feats, cannot, _ = pair_features(data, idx[I], idx[J], bn, pairs=True)
        keep = ~cannot
        X = feature_matrix(feats, keep)
        gi = [s.gold[s.mentions[i].mention_id] for i in idx[I][keep]]
        gj = [s.gold[s.mentions[j].mention_id] for j in idx[J][keep]]
        Xs.append(X)
        ys.append(np.fromiter((a == b for a, b in zip(gi, gj)), dtype=np.int8, count=len(gi)))
    if not Xs:
        return np.zeros((0, len(FEATURES)), np.float32), np.zeros(0, np.int8)
    X, y = np.concatenate(Xs), np.concatenate(ys)
    if len(y) > MAX_PAIRS_PER_SET:
        pick = np.sort(rng.choice(len(y), MAX_PAIRS_PER_SET, replace=False))
        X, y = X[pick], y[pick]
    return X, y


def _masked_copy(X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """X with, per row, each kind of evidence hidden (NaN) with probability 1/2."""
    M = X.copy()
    col = {f: k for k, f in enumerate(FEATURES)}
    for cols in EVIDENCE_GROUPS.values():
        hide = rng.random(len(M)) < 0.5
        for f in cols:
            M[hide, col[f]] = np.nan
    return M


def fit(pair_sets: list[tuple[np.ndarray, np.ndarray]], seed: int = SEED):
    """One LightGBM booster over the sets' pairs, each set weighing the same."""
    import lightgbm as lgb

    Xs, ys, ws = [], [], []
    for X, y in pair_sets:
        if not len(y):
            continue
        rng = _own_rng(seed, np.ascontiguousarray(X).tobytes(), np.ascontiguousarray(y).tobytes())
        half = rng.random(len(y)) < 0.5
        Xa = np.concatenate([X, _masked_copy(X[half], rng)])
        ya = np.concatenate([y, y[half]])
        Xs.append(Xa)
        ys.append(ya)
        ws.append(np.full(len(ya), 1.0 / len(ya)))
    X, y, w = np.concatenate(Xs), np.concatenate(ys), np.concatenate(ws)
    w *= len(w) / w.sum()
    params = dict(PARAMS, monotone_constraints=[MONOTONE.get(f, 0) for f in FEATURES])
    ds = lgb.Dataset(X, y, weight=w, feature_name=list(FEATURES), free_raw_data=True)
    return lgb.train(params, ds, num_boost_round=ROUNDS)


@dataclass
class ScoredSet:
    """A labelled set's blocks scored by one pair model: (block, positions, P, cannot, must)
    per block (P None for a lone mention), and the mentions of blocks above match_all's
    sub-blocking size, which match_all clusters itself."""

    labelled: LabelledSet
    model: PairModel
    data: object
    blocks: list[tuple]
    big: list[int]


def scored_blocks(model: PairModel, s: LabelledSet) -> ScoredSet:
    from .cluster import MatchConfig
    from .model import score_pairs
    from .scoring import sigmoid

    data = build_data(s.mentions)
    by_block: dict[str, list[int]] = defaultdict(list)
    for i, m in enumerate(s.mentions):
        by_block[m.block if m.block.strip() else f"\0{i}"].append(i)
    blocks, big = [], []
    for block, members in by_block.items():
        idx = np.asarray(members, dtype=np.int64)
        if len(idx) > MatchConfig().max_block:
            big.extend(members)
        elif len(idx) == 1:
            blocks.append((block, idx, None, None, None))
        else:
            L, cannot, must, _ = score_pairs(data, idx, idx, block_names(data, idx), model, symmetric=True)
            blocks.append((block, idx, sigmoid(L), cannot, must))
    return ScoredSet(s, model, data, blocks, big)


def _cut(scored: ScoredSet, exponent: float, threshold: float, group=None) -> dict[str, tuple]:
    """Each mention's cluster when the scored blocks are cut at (exponent, threshold), then
    merged by ``group`` (a GroupModel) when given."""
    from .cluster import MatchConfig, _constrained_average_linkage, match_all
    from .group_merge import merge_groups

    s, data = scored.labelled, scored.data
    pred: dict[str, tuple] = {}
    for block, idx, P, cannot, must in scored.blocks:
        groups = [[0]] if P is None else _constrained_average_linkage(P, cannot, must, threshold, exponent)
        if group is not None and len(groups) > 1:
            groups = merge_groups(group.predict, group.threshold, data, idx, P, cannot, groups, block_names(data, idx))
        for k, members in enumerate(groups):
            for m in members:
                pred[s.mentions[int(idx[m])].mention_id] = (block, k)
    if scored.big:
        model = replace(scored.model, group=group, _compiled=None)
        config = MatchConfig(model=model, threshold=threshold, size_exponent=exponent)
        rest = match_all([s.mentions[i] for i in scored.big], config=config).clusters
        pred.update((m, ("big", c)) for m, c in rest.items())
    return pred


def _figures(pred: dict, gold: dict) -> dict:
    from .evaluate import b3

    r = b3(pred, gold)
    return {"precision": round(r.precision, 4), "recall": round(r.recall, 4), "f1": round(r.f1, 4)}


def b3_by_linkage(scored: ScoredSet, thresholds=THRESHOLDS, exponents=SIZE_EXPONENTS) -> dict[tuple[float, float], dict]:
    """B3 of the set clustered at each (size exponent, threshold): each block scored once
    (scored_blocks) and cut at every pair with the average linkage match_all runs."""
    return {(e, t): _figures(_cut(scored, e, t), scored.labelled.gold) for e in exponents for t in thresholds}


def group_examples(scored: ScoredSet, exponent: float, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The group model's training rows from one set: the candidate group pairs (group_merge)
    its blocks leave when cut at (exponent, threshold), labelled "one person" when their
    majority people agree, weighted by sqrt(size x size) (what a merge moves in B3)."""
    from collections import Counter

    from .cluster import _constrained_average_linkage
    from .group_merge import GROUP_FEATURES, group_pairs

    s, data = scored.labelled, scored.data
    Xs, ys, ws = [], [], []
    for _, idx, P, cannot, must in scored.blocks:
        if P is None:
            continue
        groups = _constrained_average_linkage(P, cannot, must, threshold, exponent)
        I, J, X = group_pairs(data, idx, P, cannot, groups, block_names(data, idx))
        if not len(I):
            continue
        person = [Counter(s.gold.get(s.mentions[int(idx[m])].mention_id) for m in g).most_common(1)[0][0] for g in groups]
        size = np.array([len(g) for g in groups], dtype=np.float64)
        Xs.append(X)
        ys.append(np.array([person[a] is not None and person[a] == person[b] for a, b in zip(I, J)], dtype=np.int8))
        ws.append(np.sqrt(size[I] * size[J]))
    if not Xs:
        return np.zeros((0, len(GROUP_FEATURES))), np.zeros(0, np.int8), np.zeros(0)
    w = np.concatenate(ws)
    return np.concatenate(Xs), np.concatenate(ys), w / w.sum()


def thin_set(s: LabelledSet) -> LabelledSet:
    """The set stripped to names, affiliations and positions (evaluate.thin_mentions)."""
    from .evaluate import thin_mentions

    return LabelledSet(f"{s.name} (thin)", thin_mentions(s.mentions), s.gold, s.digest)


def set_group_examples(full: ScoredSet, thin: ScoredSet, exponent: float, threshold: float):
    """A set's group pairs as the group model learns them: those of the set (weights summing
    to 1) and of the set stripped to names, affiliations and positions (summing to
    THIN_GROUP_SHARE). Where mentions carry little evidence the first stage leaves more lone
    mentions apart, and the group model must learn what a pair of them is worth there too
    (the sandbox bar's thin world)."""
    X, y, w = group_examples(full, exponent, threshold)
    Xt, yt, wt = group_examples(thin, exponent, threshold)
    return np.concatenate([X, Xt]), np.concatenate([y, yt]), np.concatenate([w, wt * THIN_GROUP_SHARE])


def fit_groups(example_sets: list[tuple[np.ndarray, np.ndarray, np.ndarray]]):
    """The group model (LightGBM) over the sets' group pairs (set_group_examples: each set
    weighing the same)."""
    import lightgbm as lgb

    from .group_merge import GROUP_FEATURES, GROUP_MONOTONE

    X = np.concatenate([e[0] for e in example_sets])
    y = np.concatenate([e[1] for e in example_sets])
    w = np.concatenate([e[2] for e in example_sets])  # each set's summing to the same (set_group_examples)
    w *= len(w) / w.sum()
    params = dict(GROUP_PARAMS, monotone_constraints=[GROUP_MONOTONE.get(f, 0) for f in GROUP_FEATURES])
    return lgb.train(params, lgb.Dataset(X, y, weight=w, feature_name=list(GROUP_FEATURES)), num_boost_round=GROUP_ROUNDS)


def group_model(booster, threshold: float):
    from .model import GroupModel

    return GroupModel(booster.model_to_string(), threshold)


def held_out_with(sets: list[LabelledSet], share: float = SHARED_PAPERS) -> dict[str, set[str]]:
    """For each set, the sets left out of training when it is scored: itself and every set
    holding at least ``share`` of the smaller one's papers (by title and abstract). Two sets
    cut from one source overlap (all of acl_homonyms' papers are in acl_blocks, with the same
    people): scoring one by a model trained on the other is not held out."""
    papers = {s.name: {m.text for m in s.mentions if m.text} for s in sets}

    def overlap(a: set, b: set) -> bool:
        return bool(a and b) and len(a & b) >= share * min(len(a), len(b))

    return {s.name: {o.name for o in sets if o.name == s.name or overlap(papers[s.name], papers[o.name])}
            for s in sets}


def held_out_fits(sets: list[LabelledSet], pairs: dict[str, tuple], scored: list[LabelledSet] | None = None,
                  seed: int = SEED):
    """(set, booster) for each set of ``scored`` (default: all), the booster fitted on the
    pairs of ``sets`` less that set and those overlapping it (held_out_with)."""
    left_out = held_out_with(sets)
    for s in scored if scored is not None else sets:
        yield s, fit([pairs[o.name] for o in sets if o.name not in left_out[s.name]], seed)


def held_out_scored(sets: list[LabelledSet], pairs: dict[str, tuple], fits: dict | None = None):
    """(set, its blocks scored by its held-out pair model, the same for the set stripped to
    thin evidence) for each set; the held-out boosters from ``fits`` when given."""
    for s, booster in (((s, fits[s.name]) for s in sets) if fits is not None else held_out_fits(sets, pairs)):
        model = PairModel.from_booster(booster)
        yield s, scored_blocks(model, s), scored_blocks(model, thin_set(s))


def held_out_group_models(sets: list[LabelledSet], pairs: dict[str, tuple], linkage: tuple,
                          scored: list[LabelledSet] | None = None, fits: dict | None = None) -> dict[str, object]:
    """For each set of ``scored`` (default: all), the group model it is scored with when held
    out: fitted on the group pairs of the sets not held out with it, each of those cut at
    ``linkage`` (size exponent, threshold, group threshold) by its own held-out pair model
    (from ``fits``, set name -> booster, when the caller has them: held_out_fits).
    None for every set when ``linkage`` has no group threshold."""
    scored = scored if scored is not None else sets
    if len(linkage) < 3:
        return {s.name: None for s in scored}
    cut = tuple(linkage[:2])
    examples = {s.name: set_group_examples(full, thin, *cut) for s, full, thin in held_out_scored(sets, pairs, fits)}
    left_out = held_out_with(sets)
    return {s.name: group_model(fit_groups([examples[o.name] for o in sets if o.name not in left_out[s.name]]), linkage[2])
            for s in scored}


def leave_one_out(sets: list[LabelledSet], pairs: dict[str, tuple], thresholds=THRESHOLDS, log=print,
                  exponents=SIZE_EXPONENTS, stage_one=GROUP_STAGE_ONE,
                  group_thresholds=GROUP_THRESHOLDS) -> tuple[dict[str, dict[tuple, dict]], dict]:
    """For each set: fit on the others (held_out_fits), B3 of the held-out set per (size
    exponent, threshold), and per (size exponent, threshold, group threshold): cut at the first
    two, then merged by a group model fitted on the other sets' group pairs (each of those
    cut by its own held-out pair model: group_examples). Returns the figures and, per
    first-stage cut, every set's group examples (for the shipped group model)."""
    out: dict[str, dict[tuple, dict]] = {}
    t0 = time.perf_counter()
    scored: dict[str, ScoredSet] = {}
    thin: dict[str, ScoredSet] = {}
    for s, full, stripped in held_out_scored(sets, pairs):
        scored[s.name], thin[s.name] = full, stripped
        out[s.name] = b3_by_linkage(full, thresholds, exponents)
    examples = {cut: {name: set_group_examples(scored[name], thin[name], *cut) for name in scored} for cut in stage_one}
    left_out = held_out_with(sets)
    for s in sets:
        for cut in stage_one:
            group = fit_groups([examples[cut][o.name] for o in sets if o.name not in left_out[s.name]])
            for t2 in group_thresholds:
                out[s.name][cut + (t2,)] = _figures(_cut(scored[s.name], *cut, group_model(group, t2)), s.gold)
        best = max(out[s.name], key=lambda g: out[s.name][g]["f1"])
        log(f"  leave out {s.name}: held-out B3 F1 {out[s.name][best]['f1']:.4f} at its best linkage {best}"
            f" ({time.perf_counter() - t0:.0f} s)")
        t0 = time.perf_counter()
    return out, examples


def choose_linkage(loo: dict[str, dict[tuple, dict]], allowed=lambda *linkage: True) -> tuple:
    """The linkage with the best mean held-out B3 F1 over the real sets of those ``allowed``
    (tried best first; the best of all when none is): (size exponent, threshold) for average
    linkage alone, (size exponent, threshold, group threshold) with the group model after it.
    Ties: the smaller exponent, then the lower threshold, then without the group model. The
    held-out sandbox is left out of the mean: held out, its model has never seen upstream ids."""
    real = [s for s in loo if not s.startswith("sandbox")] or list(loo)
    grid = sorted(next(iter(loo.values())))
    ranked = sorted(grid, key=lambda g: (-round(float(np.mean([loo[s][g]["f1"] for s in real])), 6),) + tuple(g))
    return next((g for g in ranked if allowed(*g)), ranked[0])


def sandbox_bar_check(model: PairModel, groups: dict | None = None, log=print):
    """(allowed, checked): allowed(exponent, threshold[, group threshold]) for choose_linkage
    says whether ``model`` (with the group model fitted for that first-stage cut, from
    ``groups``) keeps the sandbox default world at SANDBOX_BAR and, stripped to thin
    evidence, above exact names by the THIN margins (with nothing but names and
    affiliations, a high threshold for two lone mentions splits what exact names join);
    ``checked`` gets what it measured."""
    from .cluster import MatchConfig, match_all
    from .evaluate import b3, baseline_exact_name, thin_mentions

    world = sandbox_set(SANDBOX_BAR_SEED)
    thin = thin_mentions(world.mentions)
    exact = b3(baseline_exact_name(thin), world.gold)
    checked: dict[str, dict[str, float]] = {}

    def allowed(exponent: float, threshold: float, group_threshold: float | None = None) -> bool:
        group = None if group_threshold is None else group_model(groups[(exponent, threshold)], group_threshold)
        config = MatchConfig(model=replace(model, group=group), threshold=threshold, size_exponent=exponent)
        f1 = b3(match_all(world.mentions, config=config).clusters, world.gold).f1
        t = b3(match_all(thin, config=config).clusters, world.gold)
        key = "/".join(str(v) for v in (exponent, threshold, group_threshold) if v is not None)
        checked[key] = {"b3_f1": round(f1, 5), "thin_b3_f1": round(t.f1, 5), "thin_b3_precision": round(t.precision, 5)}
        log(f"  sandbox default world at size exponent {exponent}, threshold {threshold}, group threshold"
            f" {group_threshold}: B3 F1 {f1:.5f}; thin: F1 {t.f1:.5f}, P {t.precision:.5f}"
            f" (exact name {exact.f1:.5f}, {exact.precision:.5f})")
        return (f1 >= SANDBOX_BAR and t.f1 > exact.f1 + THIN_MARGIN_F1
                and t.precision > exact.precision + THIN_MARGIN_PRECISION)

    return allowed, checked


def train(dev_root: str, out_dir: str = MODEL_DIR, *, log=print, cross_validate: bool = True) -> dict:
    from . import name_prior

    t0 = time.perf_counter()
    log(f"reading the labelled sets in {dev_root}")
    sets = load_dev_sets(dev_dirs(dev_root))
    # the name prior first: pair features read it
    names = _byline_names(dev_root)
    prior = name_prior.build_counts(names)
    log(f"name prior: {prior['names']:,} distinct names, {len(prior['first_names_of_surname']):,} surnames, "
        f"{len(prior['surnames_of_first_name']):,} first names and initials")
    log("building the sandbox world")
    sets.append(sandbox_set())
    pairs = {}
    for s in sets:
        pairs[s.name] = set_pairs(s)
        X, y = pairs[s.name]
        log(f"  {s.name}: {len(s.mentions):,} mentions, {len(y):,} pairs ({int(y.sum()):,} same person)")
    loo: dict[str, dict[tuple, dict]] = {}
    linkage: tuple = (0.0, 0.5)
    booster = fit([pairs[s.name] for s in sets])
    checked: dict[str, dict[str, float]] = {}
    group_boosters: dict[tuple, object] = {}
    if cross_validate:
        log("leave-one-set-out cross-validation")
        loo, examples = leave_one_out(sets, pairs, log=log)
        # the shipped group model of each first-stage cut: every set's group pairs, each set cut
        # by its held-out pair model (as the model will cut sets it never saw)
        group_boosters = {cut: fit_groups(list(by_set.values())) for cut, by_set in examples.items()}
        allowed, checked = sandbox_bar_check(PairModel.from_booster(booster), group_boosters, log=log)
        linkage = choose_linkage(loo, allowed)
        log(f"chosen by cross-validation: size exponent, threshold[, group threshold] {linkage}")
    exponent, threshold = linkage[:2]
    os.makedirs(out_dir, exist_ok=True)
    booster.save_model(os.path.join(out_dir, MODEL_FILE))
    group_merge = None
    group_path = os.path.join(out_dir, GROUP_MODEL_FILE)
    if len(linkage) == 3:
        from .group_merge import GROUP_FEATURES, GROUP_MONOTONE

        group_booster = group_boosters[linkage[:2]]
        group_booster.save_model(group_path)
        group_merge = {
            "file": GROUP_MODEL_FILE,
            "threshold": linkage[2],
            "features": list(GROUP_FEATURES),
            "params": {**GROUP_PARAMS, "rounds": GROUP_ROUNDS, "monotone": GROUP_MONOTONE},
            "gain_importance": dict(zip(GROUP_FEATURES, (round(float(v), 1) for v in group_booster.feature_importance("gain")))),
        }
    elif os.path.exists(group_path):
        os.unlink(group_path)
    importance = dict(zip(FEATURES, (round(float(v), 1) for v in booster.feature_importance("gain"))))
    manifest = {
        "model": "LightGBM gradient-boosted trees, binary log-loss (calibrated probabilities)",
        "features": list(FEATURES),
        "threshold": threshold,
        "unsure_low": round(threshold * UNSURE_SHARE, 4),
        "size_exponent": exponent,
        "group_merge": group_merge,
        "sandbox_bar": {"seed": SANDBOX_BAR_SEED, "b3_f1_at_least": SANDBOX_BAR,
                        "thin_above_exact_name": {"b3_f1": THIN_MARGIN_F1, "b3_precision": THIN_MARGIN_PRECISION},
                        "checked": checked},
        "params": {**PARAMS, "rounds": ROUNDS, "monotone": MONOTONE},
        "sampling": {"max_pairs_per_block": MAX_PAIRS_PER_BLOCK, "max_pairs_per_set": MAX_PAIRS_PER_SET,
                     "evidence_masked_copies": 0.5},
        "inputs": {s.name: {"sha256": s.digest, "mentions": len(s.mentions), "pairs": int(len(pairs[s.name][1]))}
                   for s in sets},
        "sentence_vectors": {"model": EMBEDDING_MODEL, "text": "search.embedding.paper_text (title, abstract)"},
        "name_prior": {"file": "name_data/name_counts.json.gz", "distinct_names": prior["names"],
                       "sha256": _digest([name_prior.COUNTS_PATH])},
        "gain_importance": importance,
        "leave_one_out_b3": {s: _by_exponent({g: f for g, f in per.items() if len(g) == 2}) for s, per in loo.items()},
        "leave_one_out_group_b3": {s: {"/".join(map(str, g)): f for g, f in per.items() if len(g) == 3}
                                   for s, per in loo.items()},
        "leave_one_out_at_threshold": {s: per[linkage] for s, per in loo.items()},
    }
    with open(os.path.join(out_dir, MANIFEST_FILE), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    from .model import default_model

    default_model.cache_clear()
    log(f"wrote {out_dir}/{MODEL_FILE} and {MANIFEST_FILE} ({time.perf_counter() - t0:.0f} s)")
    return manifest


def _by_exponent(per: dict[tuple[float, float], dict]) -> dict[str, dict[str, dict]]:
    """One held-out set's figures keyed by size exponent, then threshold (JSON keys)."""
    out: dict[str, dict[str, dict]] = {}
    for (exponent, threshold), figures in per.items():
        out.setdefault(str(exponent), {})[str(threshold)] = figures
    return out


def _byline_names(dev_root: str) -> list[str]:
    """Every author name printed on the labelled sets' papers (labels are not read)."""
    return [n for name in sorted(os.listdir(dev_root)) for n in byline_names(os.path.join(dev_root, name))]


def byline_names(directory: str) -> list[str]:
    """Every author name printed on one labelled set's papers (none without papers.json)."""
    p = os.path.join(directory, "papers.json")
    if not os.path.exists(p):
        return []
    with open(p, encoding="utf-8") as f:
        papers = json.load(f)
    return [a["author_name"] for paper in (papers.values() if isinstance(papers, dict) else papers)
            for a in paper.get("authors") or [] if a.get("author_name")]
