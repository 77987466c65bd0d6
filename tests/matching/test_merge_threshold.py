"""Two groups of mentions merge at threshold x (pairs between them) ^ -exponent, floored at
MERGE_PAIRS_CAP pairs (cluster.merge_threshold): in the batch linkage, in the newest-first
assignment link by link, and by profile alike.

The pair model is a stand-in whose probability depends on the year gap alone:

    pair               year gap   probability
    2000 - 2000               0   0.9
    2006 - 2000               6   0.4

Threshold 0.5, exponent 0.2. One new paper (2006) against a person's five papers (2000):
five pairs at 0.4, and 0.5 x 5 ^ -0.2 = 0.362, so it joins; with exponent 0 it needs 0.5 and
stays apart ("not sure": 0.4 is above the band's 0.25). Two lone papers six years apart (one
pair at 0.4) stay apart under either rule.
"""

import numpy as np
import pytest

from wove_pipeline.matching import Mention, assign_incremental, match_all
from wove_pipeline.matching.assignment import MatchConfig
from wove_pipeline.matching.cluster import MERGE_PAIRS_CAP, decide_link, merge_threshold
from wove_pipeline.matching.features import FEATURES
from wove_pipeline.matching.model import PairModel
from wove_pipeline.matching.profile_assign import incremental_by_profiles

BY_GAP = {0: 0.9, 6: 0.4}


class YearGapModel(PairModel):
    def __init__(self, exponent: float):
        super().__init__("", threshold=0.5, unsure_low=0.25, manifest={}, size_exponent=exponent)

    def ready(self):
        return self

    def predict(self, X):
        gaps = X[:, FEATURES.index("year_gap")]
        return np.array([0.01 if np.isnan(g) else BY_GAP.get(int(g), 0.01) for g in gaps], dtype=np.float64)


def paper(mid, year):
    return Mention(mid, f"p-{mid}", 0, "John", None, "Smith", year=year)


OLD = [paper(f"o{k}", 2000) for k in range(5)]
NEW = [paper("n2006", 2006)]


def test_the_threshold_falls_with_the_pairs_between_two_groups_down_to_the_cap():
    assert merge_threshold(0.5, 1, 0.2) == 0.5
    assert merge_threshold(0.5, 5, 0.2) == pytest.approx(0.5 * 5 ** -0.2)
    assert merge_threshold(0.5, 25, 0.2) < merge_threshold(0.5, 5, 0.2)
    assert merge_threshold(0.5, 10_000, 0.2) == merge_threshold(0.5, MERGE_PAIRS_CAP, 0.2) == pytest.approx(0.5 * 100 ** -0.2)
    assert merge_threshold(0.5, 10_000, 0.0) == 0.5
    assert np.allclose(merge_threshold(0.5, np.array([1, 4]), 0.5), [0.5, 0.25])


@pytest.mark.parametrize("exponent, together", [(0.2, True), (0.0, False)])
def test_batch_and_both_daily_assignments_agree(exponent, together):
    config = MatchConfig(model=YearGapModel(exponent))
    batch = match_all(OLD + NEW, config=config)
    assert (len(set(batch.clusters.values())) == 1) is together
    base = match_all(OLD, config=config)
    assert len(set(base.clusters.values())) == 1
    for inc in (assign_incremental(OLD, base, NEW, config=config),
                incremental_by_profiles(OLD, base.clusters, NEW, config=config)):
        assert (inc.clusters["n2006"] == base.clusters["o0"]) is together
        link = inc.links["n2006"]
        assert link.outcome == ("linked" if together else "not_sure")
        assert link.score == pytest.approx(0.4)


@pytest.mark.parametrize("exponent", [0.0, 0.2])
def test_two_lone_mentions_need_the_full_threshold(exponent):
    config = MatchConfig(model=YearGapModel(exponent))
    pair = [paper("a", 2000), paper("b", 2006)]
    assert len(set(match_all(pair, config=config).clusters.values())) == 2


def test_a_mention_joins_the_best_cluster_that_passes_not_the_best_mean():
    uniq = np.array([7, 8])  # 7: a lone mention at 0.45; 8: ten members at 0.40
    mean, sizes = np.array([0.45, 0.40]), np.array([1, 10])
    none = np.zeros(2, dtype=bool)
    assert decide_link(uniq, mean, none, none, 0.5, 0.25, sizes, 0.2) == ("linked", 8, 0.40)
    # without the size rule neither passes: a new "not sure" profile, scored by the best mean
    assert decide_link(uniq, mean, none, none, 0.5, 0.25, sizes, 0.0) == ("not_sure", -1, 0.45)
    barred = np.array([False, True])
    assert decide_link(uniq, mean, barred, none, 0.5, 0.25, sizes, 0.2) == ("not_sure", -1, 0.45)
