"""The learned pair model: gradient-boosted trees (LightGBM) over ``features.FEATURES``.

``wove matching train`` (train.py) fits it on real labelled authors (../shared/matching-real)
and the sandbox world, and writes two files into ``model_files/``:

* ``pair_model.txt``: LightGBM's own text format (stable across LightGBM versions, no pickle);
* ``group_model.txt``, when cross-validation chose the second stage (group_merge.py): the
  group model's trees, in the same format;
* ``manifest.json``: the features in column order, the linkage threshold and its size
  exponent chosen by cross-validation (and the group model's features and threshold under
  "group_merge"), the inputs' sha256 digests, training parameters and the cross-validated
  figures.

Loading reads those files only: no network, no training data.

Prediction runs the trees compiled to machine code by lleaves (LLVM; the same probabilities
as LightGBM's to 1e-9, about ten times faster: scoring pairs is most of the matcher's work).
The compiled object is cached per model, CPU and compiler version in ``~/.cache/wove`` (the
system's temporary folder when that cannot be written). LightGBM is used for training only.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .features import FEATURES

MODEL_DIR = os.path.join(os.path.dirname(__file__), "model_files")
MODEL_FILE = "pair_model.txt"
GROUP_MODEL_FILE = "group_model.txt"  # the second stage's trees (group_merge.py), when training chose one
MANIFEST_FILE = "manifest.json"


class ModelMissing(RuntimeError):
    pass


class _Trees:
    """A LightGBM model held as its text (``model_text``) and run compiled (``_compiled``)."""

    def _trees(self):
        if self._compiled is None:
            self._compiled = _compile(self.model_text)
        return self._compiled

    def predict(self, X: np.ndarray) -> np.ndarray:
        if len(X) == 0:
            return np.zeros(0, dtype=np.float64)
        # one thread: parallelism comes from the matcher's forked workers
        return self._trees().predict(np.ascontiguousarray(X, dtype=np.float64), n_jobs=1)

    def contributions(self, X: np.ndarray) -> np.ndarray:
        return contributions(self.predict, X)


@dataclass
class GroupModel(_Trees):
    """Probability that two groups of mentions are one person, from group_merge's features;
    groups merge from ``threshold`` (chosen by cross-validation with the first stage's cut)."""

    model_text: str
    threshold: float
    _compiled: object = field(default=None, repr=False, compare=False)

    def ready(self) -> "GroupModel":
        self._trees()
        return self


def contributions(predict, X: np.ndarray) -> np.ndarray:
    """What each feature adds to each row's log-odds under a model (``predict``: rows ->
    probabilities): the row's log-odds minus the log-odds with that feature missing (the
    models have a branch for missing evidence, so "without it" is a question they answer).
    Last column: the row's log-odds."""
    n, k = X.shape
    if n == 0:
        return np.zeros((0, k + 1))
    full = _logit(predict(X))
    hidden = np.repeat(X[None, :, :], k, axis=0)  # k copies, copy j without feature j
    for j in range(k):
        hidden[j, :, j] = np.nan
    without = _logit(predict(hidden.reshape(k * n, k))).reshape(k, n)
    return np.column_stack([(full[None, :] - without).T, full])


@dataclass
class PairModel(_Trees):
    """Calibrated same-person probability of a pair from its features.

    Holds the trees as LightGBM's text and runs them compiled (lleaves). LightGBM itself is
    not called here: its OpenMP threads in a process that forks the matcher's workers
    deadlock them (a worker hung in the first LightGBM call after the fork)."""

    model_text: str  # LightGBM's text format
    threshold: float  # average-linkage cut: merge while the mean pair probability >= threshold
    unsure_low: float  # incremental: [unsure_low, threshold) opens a "not sure" profile
    manifest: dict
    # two groups of mentions merge at threshold * (pairs between them) ** -size_exponent
    # (cluster.merge_threshold); 0: the same threshold for any two groups
    size_exponent: float = 0.0
    group: GroupModel | None = None  # the second stage (group_merge.py); None: average linkage alone
    _compiled: object = field(default=None, repr=False, compare=False)

    def ready(self) -> "PairModel":
        """Compile (or load the cached machine code) now: before forking workers."""
        self._trees()
        if self.group is not None:
            self.group.ready()
        return self

    @classmethod
    def from_files(cls, directory: str = MODEL_DIR) -> "PairModel":
        mpath, fpath = os.path.join(directory, MANIFEST_FILE), os.path.join(directory, MODEL_FILE)
        if not os.path.exists(mpath) or not os.path.exists(fpath):
            raise ModelMissing(f"no trained pair model in {directory}: run `wove matching train`")
        with open(mpath, encoding="utf-8") as f:
            manifest = json.load(f)
        if tuple(manifest["features"]) != FEATURES:
            raise ModelMissing(f"the model in {directory} was trained on other features: run `wove matching train`")
        with open(fpath, encoding="utf-8") as f:
            text = f.read()
        group = None
        if manifest.get("group_merge"):
            from .group_merge import GROUP_FEATURES

            if tuple(manifest["group_merge"]["features"]) != GROUP_FEATURES:
                raise ModelMissing(f"the group model in {directory} was trained on other features: run `wove matching train`")
            with open(os.path.join(directory, GROUP_MODEL_FILE), encoding="utf-8") as f:
                group = GroupModel(f.read(), float(manifest["group_merge"]["threshold"]))
        return cls(text, float(manifest["threshold"]), float(manifest["unsure_low"]), manifest,
                   float(manifest.get("size_exponent", 0.0)), group)

    @classmethod
    def from_booster(cls, booster, threshold: float = 0.5, unsure_low: float = 0.3, size_exponent: float = 0.0,
                     group: GroupModel | None = None) -> "PairModel":
        return cls(booster.model_to_string(), threshold, unsure_low,
                   {"features": list(FEATURES), "threshold": threshold, "size_exponent": size_exponent}, size_exponent,
                   group)


def _cache_dir() -> str:
    for base in (os.path.join(os.path.expanduser("~"), ".cache", "wove"), os.path.join(tempfile.gettempdir(), "wove-cache")):
        try:
            os.makedirs(base, exist_ok=True)
            if os.access(base, os.W_OK):
                return base
        except OSError:
            continue
    return tempfile.mkdtemp(prefix="wove-cache-")


def _compile(model_text: str):
    """The trees as machine code (lleaves), from the cache when this model was compiled on
    this CPU before. Written under a name of its own first, then renamed: processes that
    compile at once never read half a file."""
    import lleaves
    import llvmlite
    import llvmlite.binding as llvm

    key = hashlib.sha256("\0".join([model_text, llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten(),
                                     llvmlite.__version__, getattr(lleaves, "__version__", "")]).encode()).hexdigest()[:20]
    cache = os.path.join(_cache_dir(), f"pair-model-{key}.o")
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(model_text)
    try:
        compiled = lleaves.Model(model_file=f.name)
        if os.path.exists(cache):
            compiled.compile(cache=cache)
        else:
            own = f"{cache}.{os.getpid()}.tmp"
            compiled.compile(cache=own)
            os.replace(own, cache)
    finally:
        os.unlink(f.name)
    return compiled


@lru_cache(maxsize=1)
def default_model() -> PairModel:
    """The model shipped in the package (loaded once per process)."""
    return PairModel.from_files(MODEL_DIR)


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


def score_pairs(data, rows: np.ndarray, cols: np.ndarray, bn, model: PairModel, *,
                pairs: bool = False, explain: bool = False, symmetric: bool = False):
    """Log-odds that rows x cols (or aligned pairs) are one person. Returns
    ``(logit, cannot, must, parts)``; cannot-link pairs are not scored (logit -30).

    ``symmetric`` (rows and cols the same mentions) scores each unordered pair once.
    ``parts`` (with ``explain``) maps each feature to what it adds to the pair's log-odds
    (``PairModel.contributions``), and "log_odds" to the pair's log-odds."""
    from .features import feature_matrix, pair_features

    if not (pairs or explain or symmetric):
        named = _columns_some_row_fits(data, rows, cols, bn)
        if len(named) < len(cols):
            return _scored_on(named, data, rows, cols, bn, model)
    feats, cannot, must = pair_features(data, rows, cols, bn, pairs=pairs)
    live = ~cannot
    upper = np.triu(np.ones(cannot.shape, dtype=bool), 1) if symmetric else None
    if symmetric:
        live &= upper
    logit = np.full(cannot.shape, -30.0, dtype=np.float32)
    logit[live] = _logit(model.predict(feature_matrix(feats, live)))
    if symmetric:
        logit = np.where(upper, logit, logit.T)
    parts: dict[str, np.ndarray] = {}
    if explain:
        contrib = model.contributions(feature_matrix(feats, np.ones(cannot.shape, dtype=bool)))
        for k, name in enumerate(FEATURES):
            parts[name] = contrib[:, k]
        parts["log_odds"] = contrib[:, -1]
    return logit, cannot, must, parts


def _columns_some_row_fits(data, rows: np.ndarray, cols: np.ndarray, bn) -> np.ndarray:
    """The columns whose name some row's name fits (name grade above 0)."""
    row_names = np.unique(np.searchsorted(bn.uniq, data.variant[rows]))
    return np.flatnonzero((bn.grade[row_names][:, np.searchsorted(bn.uniq, data.variant[cols])] > 0).any(0))


def _scored_on(named: np.ndarray, data, rows: np.ndarray, cols: np.ndarray, bn, model: PairModel):
    """score_pairs of rows x cols with only the ``named`` columns' features computed: every other
    pair is a cannot-link by name, as pair_features would have found. A call's pool packs many
    blocks (and a block many names): the group step scores each open group's members against
    the whole pool, most of it other blocks' and other names' mentions."""
    logit = np.full((len(rows), len(cols)), -30.0, dtype=np.float32)
    cannot = np.ones((len(rows), len(cols)), dtype=bool)
    must = np.zeros((len(rows), len(cols)), dtype=bool)
    if len(named):
        logit[:, named], cannot[:, named], must[:, named], _ = score_pairs(data, rows, cols[named], bn, model)
    return logit, cannot, must, {}
