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
above exact names (B3 F1 + 0.02, precision + 0.05): the real sets decide, the generated world
only vetoes. Its people have two or three papers each, where a high threshold for two lone
mentions costs recall (the manifest's "sandbox_bar" holds each setting checked). Everything is
seeded and runs on one thread: the same inputs give the same model file, byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from .features import EVIDENCE_GROUPS, FEATURES, feature_matrix, pair_features
from .mentions import EMBEDDING_MODEL, Mention
from .model import MANIFEST_FILE, MODEL_DIR, MODEL_FILE, PairModel
from .scoring import block_names, build_data

SANDBOX_SEED = 11  # not the default world's 7: the sandbox figures are measured on a world the model never saw
SANDBOX_BAR_SEED, SANDBOX_BAR = 7, 0.98  # the default world, and the B3 F1 the shipped choice must keep on it
# ...and on that world stripped to names, affiliations and positions (evaluate.thin_mentions),
# how far the shipped choice must stay above the exact-name baseline (B3 F1, B3 precision)
THIN_MARGIN_F1, THIN_MARGIN_PRECISION = 0.02, 0.05
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


def set_pairs(s: LabelledSet, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows and labels of a set's scored pairs (sampled in big blocks)."""
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

    rng = np.random.default_rng(seed)
    Xs, ys, ws = [], [], []
    for X, y in pair_sets:
        if not len(y):
            continue
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


def b3_by_linkage(model: PairModel, s: LabelledSet, thresholds=THRESHOLDS,
                  exponents=SIZE_EXPONENTS) -> dict[tuple[float, float], dict]:
    """B3 of the set clustered at each (size exponent, threshold). Each block is scored once
    and cut at every pair with the average linkage match_all runs (blocks are independent; a
    block above match_all's sub-blocking size is clustered by match_all itself)."""
    from .cluster import MatchConfig, _constrained_average_linkage, match_all
    from .evaluate import b3
    from .model import score_pairs
    from .scoring import sigmoid

    data = build_data(s.mentions)
    by_block: dict[str, list[int]] = defaultdict(list)
    for i, m in enumerate(s.mentions):
        by_block[m.block if m.block.strip() else f"\0{i}"].append(i)
    grid = [(e, t) for e in exponents for t in thresholds]
    preds: dict[tuple[float, float], dict[str, tuple]] = {g: {} for g in grid}
    big = []
    for block, members in by_block.items():
        idx = np.asarray(members, dtype=np.int64)
        if len(idx) > MatchConfig().max_block:
            big.extend(members)
            continue
        if len(idx) == 1:
            groups = {g: [[0]] for g in grid}
        else:
            L, cannot, must, _ = score_pairs(data, idx, idx, block_names(data, idx), model, symmetric=True)
            P = sigmoid(L)
            groups = {(e, t): _constrained_average_linkage(P, cannot, must, t, e) for e, t in grid}
        for g, gs in groups.items():
            for k, members_g in enumerate(gs):
                for m in members_g:
                    preds[g][s.mentions[int(idx[m])].mention_id] = (block, k)
    out = {}
    for e, t in grid:
        if big:
            config = MatchConfig(model=model, threshold=t, size_exponent=e)
            rest = match_all([s.mentions[i] for i in big], config=config).clusters
            preds[(e, t)].update((m, ("big", c)) for m, c in rest.items())
        r = b3(preds[(e, t)], s.gold)
        out[(e, t)] = {"precision": round(r.precision, 4), "recall": round(r.recall, 4), "f1": round(r.f1, 4)}
    return out


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


def held_out_fits(sets: list[LabelledSet], pairs: dict[str, tuple], scored: list[LabelledSet] | None = None):
    """(set, booster) for each set of ``scored`` (default: all), the booster fitted on the
    pairs of ``sets`` less that set and those overlapping it (held_out_with)."""
    left_out = held_out_with(sets)
    for s in scored if scored is not None else sets:
        yield s, fit([pairs[o.name] for o in sets if o.name not in left_out[s.name]])


def leave_one_out(sets: list[LabelledSet], pairs: dict[str, tuple], thresholds=THRESHOLDS, log=print,
                  exponents=SIZE_EXPONENTS) -> dict[str, dict[tuple[float, float], dict]]:
    """For each set: fit on the others (held_out_fits), B3 of the held-out set per (size
    exponent, threshold)."""
    out: dict[str, dict[tuple[float, float], dict]] = {}
    t0 = time.perf_counter()
    for s, booster in held_out_fits(sets, pairs):
        out[s.name] = b3_by_linkage(PairModel.from_booster(booster), s, thresholds, exponents)
        best = max(out[s.name], key=lambda g: out[s.name][g]["f1"])
        log(f"  leave out {s.name}: held-out B3 F1 {out[s.name][best]['f1']:.4f} at its best size exponent and"
            f" threshold {best} ({time.perf_counter() - t0:.0f} s)")
        t0 = time.perf_counter()
    return out


def choose_linkage(loo: dict[str, dict[tuple[float, float], dict]],
                   allowed=lambda exponent, threshold: True) -> tuple[float, float]:
    """The (size exponent, threshold) with the best mean held-out B3 F1 over the real sets
    (ties: the smaller exponent, then the lower threshold) of those ``allowed`` (tried best
    first; the best of all when none is). The held-out sandbox is left out of the mean: held
    out, its model has never seen upstream ids."""
    real = [s for s in loo if not s.startswith("sandbox")] or list(loo)
    grid = sorted(next(iter(loo.values())))
    ranked = sorted(grid, key=lambda g: (-round(float(np.mean([loo[s][g]["f1"] for s in real])), 6), g[0], g[1]))
    return next((g for g in ranked if allowed(*g)), ranked[0])


def sandbox_bar_check(model: PairModel, log=print):
    """(allowed, checked): allowed(exponent, threshold) for choose_linkage says whether
    ``model`` keeps the sandbox default world at SANDBOX_BAR and, stripped to thin evidence,
    above exact names by the THIN margins (with nothing but names and affiliations, a high
    threshold for two lone mentions splits what exact names join); ``checked`` gets what
    it measured."""
    from .cluster import MatchConfig, match_all
    from .evaluate import b3, baseline_exact_name, thin_mentions

    world = sandbox_set(SANDBOX_BAR_SEED)
    thin = thin_mentions(world.mentions)
    exact = b3(baseline_exact_name(thin), world.gold)
    checked: dict[str, dict[str, float]] = {}

    def allowed(exponent: float, threshold: float) -> bool:
        config = MatchConfig(model=model, threshold=threshold, size_exponent=exponent)
        f1 = b3(match_all(world.mentions, config=config).clusters, world.gold).f1
        t = b3(match_all(thin, config=config).clusters, world.gold)
        checked[f"{exponent}/{threshold}"] = {"b3_f1": round(f1, 5), "thin_b3_f1": round(t.f1, 5),
                                              "thin_b3_precision": round(t.precision, 5)}
        log(f"  sandbox default world at size exponent {exponent}, threshold {threshold}: B3 F1 {f1:.5f};"
            f" thin: F1 {t.f1:.5f}, P {t.precision:.5f} (exact name {exact.f1:.5f}, {exact.precision:.5f})")
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
    rng = np.random.default_rng(SEED)
    pairs = {}
    for s in sets:
        pairs[s.name] = set_pairs(s, rng)
        X, y = pairs[s.name]
        log(f"  {s.name}: {len(s.mentions):,} mentions, {len(y):,} pairs ({int(y.sum()):,} same person)")
    loo = {}
    exponent, threshold = 0.0, 0.5
    booster = fit([pairs[s.name] for s in sets])
    checked: dict[str, dict[str, float]] = {}
    if cross_validate:
        log("leave-one-set-out cross-validation")
        loo = leave_one_out(sets, pairs, log=log)
        allowed, checked = sandbox_bar_check(PairModel.from_booster(booster), log=log)
        exponent, threshold = choose_linkage(loo, allowed)
        log(f"chosen by cross-validation: threshold {threshold}, size exponent {exponent}")
    os.makedirs(out_dir, exist_ok=True)
    booster.save_model(os.path.join(out_dir, MODEL_FILE))
    importance = dict(zip(FEATURES, (round(float(v), 1) for v in booster.feature_importance("gain"))))
    manifest = {
        "model": "LightGBM gradient-boosted trees, binary log-loss (calibrated probabilities)",
        "features": list(FEATURES),
        "threshold": threshold,
        "unsure_low": round(threshold * UNSURE_SHARE, 4),
        "size_exponent": exponent,
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
        "leave_one_out_b3": {s: _by_exponent(per) for s, per in loo.items()},
        "leave_one_out_at_threshold": {s: per[(exponent, threshold)] for s, per in loo.items()},
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
