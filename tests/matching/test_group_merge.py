"""The second stage of clustering (group_merge): group-pair features, greedy merging under
cannot-links and fixed (existing) profiles, and the shipped group model's manifest."""

import numpy as np

from wove_pipeline.matching import Mention
from wove_pipeline.matching.group_merge import CANDIDATE_FLOOR, GROUP_FEATURES, group_pairs, merge_groups
from wove_pipeline.matching.scoring import block_names, build_data

COL = {f: k for k, f in enumerate(GROUP_FEATURES)}


def _mention(mid: str, year: int, coauthors: list[str], *, vector=None, s2=None, last="Liu") -> Mention:
    return Mention(mid, f"p{mid}", 0, "Yang", None, last, coauthor_names=coauthors, year=year,
                   embedding=None if vector is None else np.asarray(vector, dtype=np.float16), s2_author_id=s2)


def _block(mentions):
    data = build_data(mentions)
    idx = np.arange(len(mentions))
    return data, idx, block_names(data, idx)


def test_group_pair_features_read_whole_groups():
    ms = [_mention("a", 2010, ["maosong sun", "qun liu"], vector=[1, 0], s2="1"),
          _mention("b", 2012, ["qun liu"], vector=[1, 0]),
          _mention("c", 2018, ["maosong sun", "zhiyuan liu"], vector=[0, 1], s2="1"),
          _mention("d", 2020, ["zhiyuan liu"])]
    data, idx, bn = _block(ms)
    P = np.full((4, 4), 0.2, dtype=np.float32)
    P[0, 2] = P[2, 0] = 0.6  # the one pair that makes (ab, cd) a candidate
    cannot = np.zeros((4, 4), dtype=bool)
    I, J, X = group_pairs(data, idx, P, cannot, [[0, 1], [2, 3]], bn)
    assert (I.tolist(), J.tolist()) == ([0], [1])
    row = X[0]
    assert row[COL["p_max"]] == np.float32(0.6)
    assert np.isclose(row[COL["p_mean"]], (0.6 + 3 * 0.2) / 4)
    # a's best in cd is c (0.6), b's 0.2: 0.4; c's best in ab 0.6, d's 0.2: 0.4
    assert np.isclose(row[COL["best_match_min"]], 0.4) and np.isclose(row[COL["best_match_max"]], 0.4)
    # co-authors by full name: {maosong sun, qun liu} and {maosong sun, zhiyuan liu} share one of two
    assert row[COL["coauthors_named_share"]] == 0.5
    assert row[COL["year_gap"]] == 6.0  # 2010-2012 and 2018-2020
    assert row[COL["embedding_cosine"]] == 0.0  # (2, 0) against (0, 1): d has no vector, left out
    assert row[COL["ids_shared"]] == 1.0  # a and c carry the same S2 author id
    assert row[COL["grade_max"]] == row[COL["grade_min"]] == 4.0  # "Yang Liu" on both sides
    assert np.isnan(row[COL["affiliation_cosine"]])  # nobody prints one: missing, not 0


def test_no_candidate_without_a_strong_pair_or_across_a_cannot_link():
    ms = [_mention(m, 2020, []) for m in "abcd"]
    data, idx, bn = _block(ms)
    P = np.full((4, 4), CANDIDATE_FLOOR - 0.01, dtype=np.float32)
    cannot = np.zeros((4, 4), dtype=bool)
    assert len(group_pairs(data, idx, P, cannot, [[0], [1], [2, 3]], bn)[0]) == 0
    P[0, 1] = P[1, 0] = P[0, 2] = P[2, 0] = 0.9
    cannot[1, 3] = cannot[3, 1] = True  # b and d: two people (another ORCID, one paper, a forced split)
    I, J, _ = group_pairs(data, idx, P, cannot, [[0], [1], [2, 3]], bn)
    assert list(zip(I.tolist(), J.tolist())) == [(0, 1), (0, 2)]


def test_merging_is_greedy_by_probability_and_keeps_untouched_profiles_apart():
    ms = [_mention(m, 2020, []) for m in "abcde"]
    data, idx, bn = _block(ms)
    P = np.full((5, 5), 0.9, dtype=np.float32)
    cannot = np.zeros((5, 5), dtype=bool)
    cannot[0, 4] = cannot[4, 0] = True

    def by_p_mean(X):  # a stand-in model: the mean pair probability
        return X[:, COL["p_mean"]]

    groups = [[0], [1], [2], [3], [4]]
    # round 1 (ties in pair order): a+b, c+d (each group once a round); round 2: ab+cd; e never
    # joins a group holding a
    merged = merge_groups(by_p_mean, 0.5, data, idx, P, cannot, groups, bn)
    assert merged == [[0, 1, 2, 3], [4]]
    # nothing reaches the threshold: nothing moves
    assert merge_groups(by_p_mean, 0.95, data, idx, P, cannot, groups, bn) == groups
    # existing profiles the call did not touch (fixed) never merge with each other ...
    data, idx, bn = _block(ms[:3])
    apart = np.zeros((3, 3), dtype=bool)
    assert merge_groups(by_p_mean, 0.5, data, idx, P[:3, :3], apart, [[0], [1], [2]], bn,
                        fixed=[True, True, True]) == [[0], [1], [2]]
    # ... but the new group joins one of them in the first round, and what it joined may then
    # join the other (a new paper bridging two halves of one person); the open groups are
    # announced before each round (the incremental step scores their members there)
    seen = []
    merged = merge_groups(by_p_mean, 0.5, data, idx, P[:3, :3], apart, [[0], [1], [2]], bn,
                          fixed=[True, True, False], before_round=lambda g, f: seen.append(([list(x) for x in g], list(f))))
    assert merged == [[0, 2, 1]]
    assert seen == [([[0], [1], [2]], [True, True, False]), ([[0, 2], [1]], [False, True])]


def test_the_shipped_group_model_is_described_by_its_manifest():
    from wove_pipeline.matching.model import default_model

    model = default_model()
    m = model.manifest
    if m["group_merge"] is None:  # training chose average linkage alone: no second file, no second stage
        assert model.group is None
        return
    assert tuple(m["group_merge"]["features"]) == GROUP_FEATURES
    assert model.group.threshold == m["group_merge"]["threshold"]
    chosen = f"{model.size_exponent}/{model.threshold}/{model.group.threshold}"
    assert m["leave_one_out_group_b3"]["ads"][chosen] == m["leave_one_out_at_threshold"]["ads"]


class _JoinAll:
    """A stand-in group model: every candidate pair is one person."""

    threshold = 0.5

    def ready(self):
        return self

    def predict(self, X):
        return np.ones(len(X))


def test_incremental_new_groups_join_existing_profiles_which_never_merge():
    from dataclasses import replace

    from wove_pipeline.matching import assign_incremental
    from wove_pipeline.matching.assignment import MatchConfig
    from wove_pipeline.matching.model import default_model

    model = replace(default_model(), group=_JoinAll(), _compiled=None)
    old = [_mention("a1", 2010, ["qun liu"], s2="A"), _mention("a2", 2011, ["qun liu"], s2="A"),
           _mention("b1", 2012, ["mirella lapata"], s2="B")]
    new = [_mention("n1", 2020, ["qun liu"], s2="A"), _mention("n2", 2021, ["mirella lapata"], s2="B")]
    # a threshold no pair reaches: the first stage opens a profile for each new mention, and
    # only the group step can join them to the existing ones
    config = MatchConfig(model=model, threshold=0.999, unsure_low=0.998)
    result = assign_incremental(old, {"a1": 0, "a2": 0, "b1": 1}, new, config=config)
    assert {m: result.clusters[m] for m in ("a1", "a2", "b1")} == {"a1": 0, "a2": 0, "b1": 1}
    assert result.clusters["n1"] == 0 and result.clusters["n2"] == 1
    assert result.links["n1"].outcome == "linked" and result.links["n1"].partner in {"a1", "a2"}
    assert result.stats["group_merges"] == 2
    # the link says what joined it: the group model's log-odds beside its pair's evidence
    assert "group:log_odds" in result.links["n1"].evidence and "log_odds" in result.links["n1"].evidence
    # without the group model, the same call leaves both apart
    plain = assign_incremental(old, {"a1": 0, "a2": 0, "b1": 1}, new,
                               config=replace(config, model=replace(model, group=None, _compiled=None)))
    assert plain.clusters["n1"] not in (0, 1) and plain.clusters["n2"] not in (0, 1)


def test_group_model_training_is_deterministic_and_competes_with_average_linkage_alone():
    from wove_pipeline.matching.train import choose_linkage, fit_groups

    rng = np.random.default_rng(0)
    X = rng.random((2000, len(GROUP_FEATURES)))
    X[rng.random(X.shape) < 0.2] = np.nan
    y = (np.nan_to_num(X[:, COL["p_mean"]]) + rng.random(2000) * 0.5 > 0.6).astype(np.int8)
    sets = [(X[:1200], y[:1200], np.full(1200, 1 / 1200)), (X[1200:], y[1200:], np.full(800, 1 / 800))]
    assert fit_groups(sets).model_to_string() == fit_groups(sets).model_to_string()

    def f1(v):
        return {"f1": v, "precision": v, "recall": v}

    loo = {"ads": {(0.1, 0.5): f1(0.93), (0.1, 0.6, 0.9): f1(0.94)},
           "aminer110": {(0.1, 0.5): f1(0.86), (0.1, 0.6, 0.9): f1(0.87)}}
    assert choose_linkage(loo) == (0.1, 0.6, 0.9)
    assert choose_linkage(loo, lambda *linkage: len(linkage) == 2) == (0.1, 0.5)  # vetoed: average linkage alone
    tie = {"ads": {(0.1, 0.5): f1(0.93), (0.1, 0.5, 0.9): f1(0.93)}}
    assert choose_linkage(tie) == (0.1, 0.5)  # a tie: without the group model


class _ByCoauthors:
    """A stand-in group model: one person when the groups share co-authors by name (log-odds 4 x the
    share - 1)."""

    threshold = 0.9

    def ready(self):
        return self

    def predict(self, X):
        return 1.0 / (1.0 + np.exp(-(4.0 * np.nan_to_num(X[:, COL["coauthors_named_share"]]) - 1.0)))


def test_a_link_made_by_the_group_model_carries_what_decided_the_merge():
    from dataclasses import replace

    from wove_pipeline.matching import match_all
    from wove_pipeline.matching.assignment import MatchConfig
    from wove_pipeline.matching.model import default_model

    model = replace(default_model(), group=_ByCoauthors(), _compiled=None)
    ms = [_mention("a1", 2010, ["qun liu"], s2="A"), _mention("a2", 2011, ["qun liu"], s2="A"),
          _mention("a3", 2011, ["mirella lapata"])]
    # a first-stage threshold no pair reaches: only the group model can merge
    result = match_all(ms, config=MatchConfig(model=model, threshold=0.999, unsure_low=0.998))
    assert result.clusters["a1"] == result.clusters["a2"] != result.clusters["a3"]
    assert result.stats["group_merges"] == 1
    # the group that joined (a2's, the later of two equal groups) says why: co-authors in
    # common added 4 to the group model's log-odds (1 x 4 against missing), which reached 3
    joined = result.links["a2"].evidence
    assert joined["group:coauthors_named_share"] == 4.0 and joined["group:log_odds"] == 3.0
    assert joined["log_odds"] == result.links["a1"].evidence["log_odds"]  # its pair's evidence stays
    assert not any(k.startswith("group:") for k in result.links["a1"].evidence)


class _JoinOnSharedCoauthor:
    """A stand-in group model: two groups are one person when they share a co-author by name."""

    threshold = 0.5

    def ready(self):
        return self

    def predict(self, X):
        return (np.nan_to_num(X[:, COL["coauthors_named_share"]]) > 0).astype(float)


def test_a_new_mention_lets_the_profile_it_joined_merge_with_another_and_untouched_ones_stay():
    """Two existing clusters of one person with nothing in common: untouched by the new
    mentions they stay apart; once a new mention joins one and brings what the two share (a
    co-author of each), the group model may merge them, as matching everything at once would,
    link by link and by profile alike. Two existing clusters whose earlier members alone
    already call for the merge merge through a new mention too, as matching at once would:
    held out on the real sets, such merges joined one person's pieces (join_new_groups)."""
    from dataclasses import replace

    from wove_pipeline.matching import assign_incremental, match_all
    from wove_pipeline.matching.assignment import MatchConfig
    from wove_pipeline.matching.model import default_model
    from wove_pipeline.matching.profile_assign import incremental_by_profiles

    config = MatchConfig(model=replace(default_model(), group=_JoinOnSharedCoauthor(), _compiled=None))
    old = [_mention("x1", 2010, ["qun liu"], s2="A"), _mention("x2", 2012, ["mirella lapata"])]
    before = {"x1": 0, "x2": 1}
    elsewhere = [_mention("z1", 2020, ["mirella lapata"], last="Zhang")]  # another block: touches neither
    untouched = assign_incremental(old, before, elsewhere, config=config)
    assert (untouched.clusters["x1"], untouched.clusters["x2"]) == (0, 1) and not untouched.merged
    bridge = [_mention("n1", 2011, ["qun liu", "mirella lapata"], s2="A")]
    for result in (assign_incremental(old, before, bridge, config=config),
                   incremental_by_profiles(old, before, bridge, config=config)):
        assert result.merged == {1: 0}
        assert result.clusters == {"x1": 0, "x2": 0, "n1": 0}
        assert result.links["x2"].outcome == "existing" and result.links["x2"].cluster == 0
        assert result.stats["profile_merges"] == 1

    # the same S2 id and co-author on both: their earlier members alone are a candidate pair;
    # the new mention bridges them and the group model's word decides, as matching at once
    joins_all = MatchConfig(model=replace(default_model(), group=_JoinAll(), _compiled=None))
    twins = [_mention("x1", 2010, ["qun liu"], s2="A"), _mention("x2", 2012, ["qun liu"], s2="A")]
    bridge = [_mention("n1", 2011, ["qun liu"], s2="A")]
    at_once = match_all(twins + bridge, config=joins_all).clusters
    assert len(set(at_once.values())) == 1
    for result in (assign_incremental(twins, before, bridge, config=joins_all),
                   incremental_by_profiles(twins, before, bridge, config=joins_all)):
        assert result.merged == {1: 0} and result.clusters == {"x1": 0, "x2": 0, "n1": 0}


def test_an_incremental_call_asks_about_the_same_pairs_over_the_groups_near_its_open_ones():
    from wove_pipeline.matching.group_merge import _open_pairs

    rng = np.random.default_rng(3)
    ms = [_mention(f"m{k}", 2000 + k % 9, [["qun liu"], ["mirella lapata"], []][k % 3], vector=rng.random(4),
                   s2=["A", "B", None][k % 3]) for k in range(14)]
    data, idx, bn = _block(ms)
    P = rng.random((14, 14)).astype(np.float32) * 0.7
    P = np.maximum(P, P.T)
    cannot = np.zeros((14, 14), dtype=bool)
    cannot[0, 13] = cannot[13, 0] = True
    groups = [[0, 1], [2], [3, 4, 5], [6], [7, 8], [9], [10, 11], [12], [13]]
    fixed = [True, False, True, True, True, False, True, True, True]
    P[np.ix_([9], [12])] = P[np.ix_([12], [9])] = 0.2  # group 7 near no open group: left out, asked about by neither
    P[np.ix_([2, 9], list(range(14)))] = np.where(np.isin(np.arange(14), [7, 8, 12]), 0.1, P[[2, 9]])
    P[:, [2, 9]] = P[[2, 9]].T
    full = group_pairs(data, idx, P, cannot, groups, bn, np.asarray(fixed))
    near = _open_pairs(data, idx, P, cannot, groups, bn, fixed)
    assert len(full[0]) > 0
    assert np.array_equal(near[0], full[0]) and np.array_equal(near[1], full[1])
    assert np.allclose(near[2], full[2], equal_nan=True)


def test_group_grades_read_a_form_both_groups_reach_and_other_groups_change_nothing():
    # forms: Yang Liu, Yuki Liu, Y. Liu. "yang liu" and "yuki liu" are incompatible (grade 0);
    # each is compatible with the initial "y liu" (grade 1), and equal to itself (4)
    ms = [Mention("a", "pa", 0, "Yang", None, "Liu", year=2010), Mention("b", "pb", 0, "Yuki", None, "Liu", year=2011),
          Mention("c", "pc", 0, "Y.", None, "Liu", year=2012), Mention("d", "pd", 0, "Yang", None, "Liu", year=2013)]
    data, idx, bn = _block(ms)
    form = {m.mention_id: int(np.searchsorted(bn.uniq, data.variant[i])) for i, m in enumerate(ms)}
    assert bn.grade[form["a"], form["b"]] == 0 and bn.grade[form["a"], form["c"]] == 1
    assert bn.grade[form["a"], form["d"]] == 4
    P = np.full((4, 4), 0.7, dtype=np.float32)
    cannot = np.zeros((4, 4), dtype=bool)
    I, J, X = group_pairs(data, idx, P, cannot, [[0], [1], [2], [3]], bn)
    grades = {(ms[i].mention_id, ms[j].mention_id): (X[k, COL["grade_max"]], X[k, COL["grade_min"]])
              for k, (i, j) in enumerate(zip(I, J))}
    # the one form Yang and Yuki both reach is the initial, at grade 1: grade_max and grade_min 1
    # (they are incompatible with each other, but no form is incompatible with both)
    assert grades[("a", "b")] == (1.0, 1.0)
    # two Yang Lius both reach their own form at 4, and both are incompatible with Yuki
    assert grades[("a", "d")] == (4.0, 0.0)
    # the features of a pair are those of the two groups whatever else the call holds
    sub = [0, 3]
    I2, J2, X2 = group_pairs(data, idx[sub], P[np.ix_(sub, sub)], cannot[np.ix_(sub, sub)], [[0], [1]], bn)
    assert (I2.tolist(), J2.tolist()) == ([0], [1])
    k = [n for n, (i, j) in enumerate(zip(I, J)) if (i, j) == (0, 3)][0]
    assert np.array_equal(X2[0], X[k], equal_nan=True)
