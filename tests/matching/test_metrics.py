import pytest

from wove_pipeline.matching.evaluate import b3, baseline_exact_name, baseline_id, pairwise
from wove_pipeline.matching.mentions import Mention


def test_b3_hand_computed():
    gold = {"a": 1, "b": 1, "c": 1, "d": 2}
    pred = {"a": "x", "b": "x", "c": "y", "d": "y"}
    # P: a=1, b=1, c=1/2, d=1/2 -> 3/4 ; R: a=2/3, b=2/3, c=1/3, d=1 -> 2/3
    r = b3(pred, gold)
    assert r.precision == pytest.approx(0.75)
    assert r.recall == pytest.approx(2 / 3)
    assert r.f1 == pytest.approx(2 * 0.75 * (2 / 3) / (0.75 + 2 / 3))


def test_pairwise_hand_computed():
    gold = {"a": 1, "b": 1, "c": 1, "d": 2}
    pred = {"a": "x", "b": "x", "c": "y", "d": "y"}
    # gold pairs: ab ac bc ; pred pairs: ab cd ; tp = ab
    r = pairwise(pred, gold)
    assert r.precision == pytest.approx(0.5)
    assert r.recall == pytest.approx(1 / 3)


def test_perfect_and_degenerate():
    gold = {"a": 1, "b": 1, "c": 2}
    assert tuple(b3(gold, gold)) == (1.0, 1.0, 1.0)
    assert tuple(pairwise(gold, gold)) == (1.0, 1.0, 1.0)
    singletons = {"a": 1, "b": 2, "c": 3}
    assert b3(singletons, gold).precision == 1.0
    assert b3(singletons, gold).recall == pytest.approx((0.5 + 0.5 + 1) / 3)
    # missing predictions count as singletons
    assert b3({}, gold).precision == 1.0


def test_baselines():
    ms = [
        Mention("1", "p1", 0, "Peng", None, "Wang", s2_author_id="s", openalex_author_id=None),
        Mention("2", "p2", 0, "Péng", None, "Wang", s2_author_id="s", openalex_author_id="A"),
        Mention("3", "p3", 0, "P.", None, "Wang", s2_author_id=None, openalex_author_id="A"),
    ]
    ex = baseline_exact_name(ms)
    assert ex["1"] == ex["2"] != ex["3"]
    s2 = baseline_id(ms, "s2_author_id")
    assert s2["1"] == s2["2"] and s2["3"] != s2["1"]
    oa = baseline_id(ms, "openalex_author_id")
    assert oa["2"] == oa["3"] and oa["1"] not in (oa["2"],)
