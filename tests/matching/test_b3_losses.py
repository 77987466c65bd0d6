"""b3_losses: B3's shortfall charged to the people split and the clusters merged."""

import pytest

from wove_pipeline.matching.evaluate import b3, b3_losses

# three people named "yang liu" (P1 printed once as "y liu") and "bin li", one "bo li"
GOLD = {"a1": "P1", "a2": "P1", "a3": "P1", "b1": "P2", "c1": "P3", "c2": "P3", "d1": "P4"}
NAMES = {"a1": "yang liu", "a2": "yang liu", "a3": "y liu", "b1": "yang liu", "c1": "bin li", "c2": "bin li",
         "d1": "bo li"}
# P1 split 2 + 1 and merged with P2; P3 split 1 + 1, one half with P4
PRED = {"a1": "X", "a2": "X", "b1": "X", "a3": "Y", "c1": "Z", "d1": "Z", "c2": "W"}


def test_losses_add_up_to_b3_and_say_where():
    losses = b3_losses(PRED, GOLD, NAMES)
    score = b3(PRED, GOLD)
    assert losses.mentions == 7
    assert losses.recall_loss == pytest.approx(7 * (1 - score.recall))
    assert losses.precision_loss == pytest.approx(7 * (1 - score.precision))
    # P1: 3 - (2^2 + 1^2) / 3; P3: 2 - (1 + 1) / 2
    assert losses.splits == [(pytest.approx(4 / 3), [2, 1], "yang liu"), (pytest.approx(1.0), [1, 1], "bin li")]
    assert losses.recall_loss_shared_name == pytest.approx(4 / 3)  # P2 is a "yang liu" too
    # X: 3 - (2^2 + 1^2) / 3, one name printed; Z: 2 - (1 + 1) / 2, two names
    assert losses.merges == [(pytest.approx(4 / 3), [2, 1], ["yang liu"]), (pytest.approx(1.0), [1, 1], ["bin li", "bo li"])]
    assert losses.precision_loss_one_name == pytest.approx(4 / 3)


def test_a_perfect_clustering_loses_nothing():
    losses = b3_losses(GOLD, GOLD, NAMES)
    assert (losses.recall_loss, losses.precision_loss, losses.splits, losses.merges) == (0, 0, [], [])


def _mention(mid: str, first: str, last: str, coauthors: list[str]):
    from wove_pipeline.matching.mentions import Mention

    return Mention(mid, mid, 0, first=first, last=last, coauthor_names=coauthors)


def test_label_conflicts_name_the_labels_their_coauthors_contradict():
    from wove_pipeline.matching.evaluate import label_conflicts

    mentions = [
        _mention("t1", "Yang", "Liu", ["maosong sun", "huanbo luan"]),
        _mention("t2", "Yang", "Liu", ["maosong sun", "qun liu", "zhaopeng tu", "haitao mi"]),
        # labelled the catch-all person, but two of its co-authors are T's and none are C's
        _mention("c1", "Yang", "Liu", ["maosong sun", "huanbo luan"]),
        _mention("c2", "Yang", "Liu", ["mirella lapata"]),
        # one co-author of T's only: not enough to contradict its label
        _mention("c3", "Yang", "Liu", ["haitao mi", "someone else"]),
        # two of T's, but one of its own person's too: not a conflict
        _mention("c4", "Yang", "Liu", ["mirella lapata", "qun liu", "zhaopeng tu"]),
        # no namesake labelled apart: nothing to contradict
        _mention("b1", "Bin", "Li", ["maosong sun", "huanbo luan"]),
        _mention("b2", "Bin", "Li", []),
    ]
    gold = {"t1": "T", "t2": "T", "c1": "C", "c2": "C", "c3": "C", "c4": "C", "b1": "B", "b2": "B"}
    assert label_conflicts(mentions, gold) == {"c1"}
    # an unlabelled mention is neither audited nor evidence: without t1, c1 shares one
    # co-author with T, and T's one paper shares three with C's and none with another of T's
    assert label_conflicts(mentions, {k: v for k, v in gold.items() if k != "t1"}) == {"t2"}


def test_a_label_its_person_prints_under_another_name_supports_is_no_conflict():
    from wove_pipeline.matching.evaluate import label_conflicts

    mentions = [
        _mention("t1", "Yang", "Liu", ["maosong sun", "huanbo luan"]),
        _mention("t2", "Yang", "Liu", ["maosong sun"]),
        _mention("c1", "Yang", "Liu", ["maosong sun", "huanbo luan", "ivan titov"]),
        _mention("c2", "Yang", "Liu", ["mirella lapata"]),
        _mention("c3", "Y.", "Liu", ["ivan titov"]),  # C's own paper, printed with an initial
    ]
    gold = {"t1": "T", "t2": "T", "c1": "C", "c2": "C", "c3": "C"}
    assert label_conflicts(mentions, gold) == set()
    assert label_conflicts(mentions[:4], {k: gold[k] for k in ("t1", "t2", "c1", "c2")}) == {"c1"}


def test_set_lines_say_how_many_labels_are_contradicted():
    from wove_pipeline.matching.evaluate import PRF, SetScore, format_sets

    one = PRF(0.9, 0.5, 0.64)
    text = format_sets([SetScore("acl_homonyms", 296, 23, one, one, one, 57, contradicted=12),
                        SetScore("ads", 11935, 858, one, one, one, 912, contradicted=15)], "t")
    assert "| labels co-authors contradict |" in text.splitlines()[2]
    assert text.splitlines()[4].endswith("| 57 | 12 |") and text.splitlines()[5].endswith("| 912 | 15 |")
    assert text.splitlines()[6].endswith("| | | 27 |")  # the mean line sums them
