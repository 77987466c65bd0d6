"""The daily assignment takes average linkage's step: the new mentions' own profile joins an
existing one when the group's average probability reaches the threshold, though each
member alone fell short or was first drawn to the others (cluster._Run.join_new_profiles).

The pair model here is a stand-in whose probability is a function of the year gap alone,
so the scenario is exact: three old papers of one person (2000), two new ones (2004, 2010).

    pair                 year gap   probability
    old - old                   0   0.9
    2004 - old                  4   0.35
    2004 - 2010                 6   0.9
    2010 - old                 10   0.28

Matched at once (average linkage, threshold 0.3): the two new papers merge (0.9), then join
the old three at (3 x 0.28 + 3 x 0.35) / 6 = 0.315. Newest first, the 2010 paper alone is at
0.28 (a profile of its own); the 2004 paper prefers it (0.9) to the old profile (0.35); the
pair's average to the old profile, 0.315, then joins them as the batch run does.
"""

import numpy as np
import pytest

from wove_pipeline.matching import Mention, assign_incremental, match_all
from wove_pipeline.matching.assignment import MatchConfig
from wove_pipeline.matching.features import FEATURES
from wove_pipeline.matching.model import PairModel
from wove_pipeline.matching.profile_assign import incremental_by_profiles

BY_GAP = {0: 0.9, 4: 0.35, 6: 0.9, 10: 0.28}


class YearGapModel(PairModel):
    def __init__(self):
        super().__init__("", threshold=0.3, unsure_low=0.15, manifest={})

    def ready(self):
        return self

    def predict(self, X):
        gaps = X[:, FEATURES.index("year_gap")]  # NaN: the gap hidden (the links' evidence asks)
        return np.array([0.01 if np.isnan(g) else BY_GAP.get(int(g), 0.01) for g in gaps], dtype=np.float64)


def paper(mid, year):
    return Mention(mid, f"p-{mid}", 0, "John", None, "Smith", year=year)


OLD = [paper("o1", 2000), paper("o2", 2000), paper("o3", 2000)]
NEW = [paper("n2004", 2004), paper("n2010", 2010)]


@pytest.fixture
def config():
    return MatchConfig(model=YearGapModel())


def test_batch_run_puts_all_five_together(config):
    assert len(set(match_all(OLD + NEW, config=config).clusters.values())) == 1


@pytest.mark.parametrize("assign", ["link_by_link", "by_profile"])
def test_new_mentions_join_as_a_group_where_each_alone_falls_short(config, assign):
    base = match_all(OLD, config=config)
    old_profile = base.clusters["o1"]
    if assign == "link_by_link":
        inc = assign_incremental(OLD, base, NEW, config=config)
    else:
        inc = incremental_by_profiles(OLD, base.clusters, NEW, config=config)
    assert inc.clusters["n2010"] == old_profile
    assert inc.clusters["n2004"] == old_profile
    late = inc.links["n2010"]
    assert late.outcome == "linked"
    assert late.score == pytest.approx(0.28)  # its own mean: the group's carried it
    assert late.partner in {"o1", "o2", "o3"}


def test_a_group_below_the_threshold_stays_apart(config, monkeypatch):
    monkeypatch.setitem(BY_GAP, 4, 0.31)  # the pair's average: (0.28 + 0.31) / 2 < 0.3
    base = match_all(OLD, config=config)
    inc = assign_incremental(OLD, base, NEW, config=config)
    assert inc.clusters["n2010"] == inc.clusters["n2004"] != base.clusters["o1"]
    assert inc.links["n2010"].outcome == "not_sure"
