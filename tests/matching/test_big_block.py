"""The assignment inside a huge name block (big_block.py): each mention is scored against the
representatives of a few candidate clusters, not every earlier member, and the cluster-wide
constraints still hold."""

import numpy as np

from wove_pipeline.matching import MatchConfig, Mention, match_all
from wove_pipeline.matching.evaluate import b3


def _people(n_people: int, per: int) -> tuple[list[Mention], dict[str, int]]:
    """n_people "Wei Wang"s, each with an own S2 id and lab (co-authors, institution)."""
    ms, gold = [], {}
    k = 0
    for year in range(per):
        for p in range(n_people):
            mid = f"m{k}"
            ms.append(Mention(mid, f"p{k}", 0, "Wei" if k % 5 else "W.", None, "Wang", s2_author_id=f"S{p}",
                              coauthor_keys=[f"c{p}a", f"c{p}b"], institution_ids=[f"I{p}"], categories=["cs.LG"],
                              text=f"topic{p} method{p} data{p}", year=2000 + year))
            gold[mid] = p
            k += 1
    return ms, gold


def test_a_huge_block_is_assigned_with_bounded_work_and_the_same_people(monkeypatch):
    from wove_pipeline.matching import big_block

    ms, gold = _people(120, 6)  # one block of 720 mentions, over max_block
    exact = match_all(ms, config=MatchConfig(max_block=100, candidate_clusters=0))
    scored: list[int] = []  # pairs scored per mention
    real = big_block.score_pairs

    def counting(d, rows, cols, *a, **kw):
        scored.extend(np.unique(rows, return_counts=True)[1].tolist())
        return real(d, rows, cols, *a, **kw)

    monkeypatch.setattr(big_block, "score_pairs", counting)
    bounded = match_all(ms, config=MatchConfig(max_block=100, candidate_clusters=4))
    assert bounded.stats["chunk_bounded"] + bounded.stats["initials_bounded"] == len(ms) - 100
    assert b3(bounded.clusters, gold).f1 >= b3(exact.clusters, gold).f1 - 0.005
    # at most 4 candidate clusters x 16 representatives (+ earlier mentions of the call sharing a token) a mention
    assert 0 < len(scored) <= len(ms) - 100 and max(scored) <= 4 * 16 + 6


def test_cluster_constraints_hold_over_members_that_are_no_representative():
    """Another ORCID or the same paper anywhere in a cluster keeps a mention out of it, even
    when the member carrying it is not among the cluster's representatives."""
    from wove_pipeline.matching.big_block import assign_bounded
    from wove_pipeline.matching.cluster import _Run
    from wove_pipeline.matching.scoring import block_names, build_data

    def m(i, paper, orcid=None, year=2000):
        return Mention(f"m{i}", paper, i % 3, "Wei", None, "Wang", s2_author_id="S1", orcid=orcid,
                       coauthor_keys=["c1", "c2"], institution_ids=["I1"], year=year)

    old = [m(i, f"p{i}", year=2000 + i) for i in range(40)]
    old[0] = m(0, "p0", orcid="0000-0000-0000-0001")
    new = [m(100, "p2", year=2030), m(101, "p500", orcid="0000-0000-0000-0002", year=2031),
           m(102, "p501", year=2032)]
    data = build_data(old + new)
    run = _Run(data, None, MatchConfig())
    run.labels[: len(old)] = 7  # one cluster of 40: more members than representatives
    idx = np.arange(len(old) + len(new))
    assign_bounded(run, idx[: len(old)], idx[len(old):][::-1], block_names(data, idx))
    lab = dict(zip((x.mention_id for x in old + new), run.labels.tolist()))
    assert lab["m102"] == 7  # a plain look-alike joins
    assert lab["m100"] != 7  # a second position on paper p2 of a member
    assert lab["m101"] != 7  # another ORCID than member m0's
