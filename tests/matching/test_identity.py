import datetime as dt

from wove_pipeline.matching.identity import Redirect, assign_ids, resolve

AT = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


def test_first_run_hands_out_ids():
    r = assign_ids({}, {"a": "x", "b": "x", "c": "y"}, next_id=100, at=AT)
    assert r.mention_ids["a"] == r.mention_ids["b"] != r.mention_ids["c"]
    assert set(r.mention_ids.values()) == {100, 101} and r.next_id == 102


def test_unchanged_clusters_keep_ids_whatever_the_labels():
    prev = {"a": 7, "b": 7, "c": 9}
    r = assign_ids(prev, {"a": 0, "b": 0, "c": 1, "d": 2}, at=AT)
    assert r.mention_ids == {"a": 7, "b": 7, "c": 9, "d": 10}
    assert r.new_redirects == []


def test_merge_keeps_id_with_most_mentions_and_redirects():
    prev = {"a": 5, "b": 5, "c": 3}
    r = assign_ids(prev, {"a": 0, "b": 0, "c": 0}, at=AT)
    assert set(r.mention_ids.values()) == {5}
    assert r.redirects[3] == Redirect(3, 5, "merge", AT) and resolve(r.redirects, 3) == 5
    assert r.retired == [3]
    # tie: lowest id wins
    r = assign_ids({"a": 8, "b": 4}, {"a": 0, "b": 0}, at=AT)
    assert set(r.mention_ids.values()) == {4} and resolve(r.redirects, 8) == 4


def test_split_keeps_id_on_larger_part():
    prev = {"a": 5, "b": 5, "c": 5, "d": 5, "e": 5}
    r = assign_ids(prev, {"a": 0, "b": 0, "c": 1, "d": 1, "e": 1}, next_id=50, at=AT)
    assert r.mention_ids["c"] == r.mention_ids["d"] == r.mention_ids["e"] == 5
    assert r.mention_ids["a"] == r.mention_ids["b"] == 50
    assert Redirect(5, 50, "split", AT) in r.new_redirects
    assert 5 not in r.redirects  # id 5 is still live
    assert r.created == [50]


def test_redirect_chains_are_compressed():
    r1 = assign_ids({"a": 1, "b": 2}, {"a": 0, "b": 0}, at=AT)  # 2 -> 1
    assert resolve(r1.redirects, 2) == 1
    prev = r1.mention_ids
    prev["c"] = 3
    r2 = assign_ids(prev, {"a": 0, "b": 0, "c": 0, "d": 0}, redirects=r1.redirects, next_id=r1.next_id, at=AT)
    # 1 has two mentions, 3 one: 3 retires into 1; 2 still resolves to 1
    assert set(r2.mention_ids.values()) == {1}
    assert r2.redirects[2].new_id == 1 and r2.redirects[3].new_id == 1
    # now 1 merges into a larger id 9: every retired id points at 9
    prev = dict(r2.mention_ids, x=9, y=9, z=9, w=9, v=9)
    r3 = assign_ids(prev, {k: 0 for k in prev}, redirects=r2.redirects, at=AT)
    assert set(r3.mention_ids.values()) == {9}
    for old in (1, 2, 3):
        assert r3.redirects[old].new_id == 9


def test_orphaned_ids_are_recorded():
    r = assign_ids({"a": 1, "b": 2}, {"a": 0}, at=AT)
    assert r.mention_ids == {"a": 1}
    assert r.redirects[2].reason == "orphaned" and r.redirects[2].new_id is None
