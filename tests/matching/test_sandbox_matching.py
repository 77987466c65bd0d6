"""Quality bars on the default sandbox world (seed 7, 250 papers/day x 10 days)."""

import pytest

from wove_pipeline.matching import assign_incremental, match_all
from wove_pipeline.matching.evaluate import b3, default_methods, evaluate, format_report
from wove_pipeline.matching.identity import assign_ids, resolve
from wove_pipeline.matching.sandbox_eval import attach_world_vectors, world_mentions
from wove_pipeline.sandbox.generator import generate_world
from wove_pipeline.sandbox.seed_fixtures import KNAPFORMER_ID, SEED_PENG_WANG_ID


@pytest.fixture(scope="module")
def world():
    return generate_world(seed=7, papers_per_day=250, days=10)


@pytest.fixture(scope="module")
def corpus(world):
    """The world's mentions as the pipeline matches them: with their papers' sentence
    vectors (embedded once, ~2,500 texts, then kept in WOVE_HOME's cache)."""
    mentions, gold = world_mentions(world)
    attach_world_vectors(world, mentions)
    return mentions, gold


@pytest.fixture(scope="module")
def batch(corpus):
    mentions, _ = corpus
    return match_all(mentions)


@pytest.mark.slow
def test_bars_against_baselines(corpus, batch):
    mentions, gold = corpus
    methods = default_methods()
    methods["matcher"] = lambda ms: batch.clusters
    r = evaluate(mentions, gold, name="sandbox", methods=methods)
    print(format_report(r))
    m = r.methods
    assert m["exact normalized name"]["b3"].f1 <= 0.85
    assert m["S2 author id alone"]["b3"].f1 <= 0.95
    assert m["OpenAlex author id alone"]["b3"].f1 <= 0.95
    assert m["matcher"]["b3"].f1 >= 0.98
    # the learned model (trained on seed 11, threshold cross-validated on real sets) measured
    # on seed 7 with the papers' vectors: P 0.986 R 0.987 F1 0.987 (the same model without
    # vectors: F1 0.979; the model before the vector feature: 0.988)
    assert m["matcher"]["b3"].precision >= 0.98
    for base in ("exact normalized name", "S2 author id alone", "OpenAlex author id alone"):
        assert m["matcher"]["b3"].f1 > m[base]["b3"].f1
        assert m["matcher"]["pairwise"].f1 > m[base]["pairwise"].f1


def test_every_link_keeps_evidence_and_score(batch):
    multi = [l for l in batch.links.values() if l.outcome in ("clustered", "forced")]
    assert multi
    for l in multi[:500]:
        assert l.partner is not None and l.score is not None and l.evidence


def test_peng_wangs_come_out_separate(world, corpus, batch):
    mentions, gold = corpus
    seed_mention = f"{KNAPFORMER_ID}:1"
    assert gold[seed_mention] == SEED_PENG_WANG_ID
    cluster = batch.clusters[seed_mention]
    his = {m for m, p in gold.items() if p == SEED_PENG_WANG_ID}
    got = {m for m, c in batch.clusters.items() if c == cluster}
    assert got == his and len(his) == 6
    pws = {pid for pid, p in world.persons.items() if p.given == "Peng" and p.family == "Wang"}
    assert len(pws) >= 7
    seen = {}
    for m, p in gold.items():
        if p in pws:
            c = batch.clusters[m]
            assert seen.setdefault(c, p) == p, "two Peng Wangs in one cluster"


def _v1(paper):
    return paper.versions[0].submitted


def test_incremental_newest_10_percent_close_to_batch(world, corpus, batch):
    mentions, gold = corpus
    papers = sorted(world.papers, key=lambda p: (_v1(p), p.arxiv_id))
    cut = len(papers) - len(papers) // 10
    new_ids = {p.arxiv_id for p in papers[cut:]}
    old = [m for m in mentions if m.paper_id not in new_ids]
    new = [m for m in mentions if m.paper_id in new_ids]
    base = match_all(old)
    inc = assign_incremental(old, base, new)
    assert set(inc.clusters) == {m.mention_id for m in mentions}
    f_inc = b3(inc.clusters, gold).f1
    f_batch = b3(batch.clusters, gold).f1
    print(f"batch {f_batch:.4f} incremental {f_inc:.4f} stats {inc.stats}")
    assert abs(f_batch - f_inc) <= 0.005
    # existing assignments move only where the group model merged two existing clusters
    assert all(inc.clusters[m.mention_id] == inc.merged.get(c, c) for m in old for c in [base.clusters[m.mention_id]])
    assert set(inc.merged) <= set(base.clusters.values())


def test_adding_a_day_keeps_untouched_ids(world):
    last = world.end_day
    before = [p for p in world.papers if p.datestamp < last]
    day = [p for p in world.papers if p.datestamp == last]
    assert day
    old, _ = world_mentions(world, before)
    new, _ = world_mentions(world, day)
    new = [m for m in new if m.mention_id not in {o.mention_id for o in old}]
    first = match_all(old)
    ids1 = assign_ids({}, first.clusters, next_id=1)
    # daily path: incremental assignment onto researcher ids
    inc = assign_incremental(old, ids1.mention_ids, new)
    ids2 = assign_ids(ids1.mention_ids, inc.clusters, redirects=ids1.redirects, next_id=ids1.next_id)
    # an earlier mention keeps its id, or follows it where the group model merged its
    # researcher into another the day touched (a merge redirect)
    merged = {r.old_id: r.new_id for r in ids2.new_redirects if r.reason == "merge"}
    assert all(ids2.mention_ids[m] == merged.get(rid, rid) for m, rid in ids1.mention_ids.items())
    assert len(merged) == len(inc.merged) and all(r.new_id in set(ids2.mention_ids.values()) for r in ids2.new_redirects)
    # full re-clustering path (periodic): global IDF shifts can move borderline mentions
    # anywhere, so the guarantee here is the identity rules: every researcher whose
    # mentions are unchanged keeps the id, the id stays on the larger part of a split,
    # and every retired id redirects to a live one.
    full = match_all(old + new)
    ids3 = assign_ids(ids1.mention_ids, full.clusters, redirects=ids1.redirects, next_id=ids1.next_id)
    by_id1: dict = {}
    for m, rid in ids1.mention_ids.items():
        by_id1.setdefault(rid, set()).add(m)
    by_id3: dict = {}
    for m, rid in ids3.mention_ids.items():
        by_id3.setdefault(rid, set()).add(m)
    new_ids = {m.mention_id for m in new}
    for rid, ms in by_id1.items():
        if rid in by_id3:
            # the id stays where most of its old mentions went
            assert len(by_id3[rid] & ms) * 2 >= len(ms) or all(len(v & ms) <= len(by_id3[rid] & ms) for v in by_id3.values())
        same = [v for v in by_id3.values() if v - new_ids == ms and v & ms]
        if same and not (same[0] - ms) - new_ids:
            assert by_id3.get(rid) == same[0]
    live = set(ids3.mention_ids.values())
    for rid in set(ids1.mention_ids.values()) - live:
        assert rid in ids3.redirects and resolve(ids3.redirects, rid) in live
    kept = sum(1 for rid, ms in by_id1.items() if by_id3.get(rid, set()) - new_ids == ms)
    assert kept >= 0.97 * len(by_id1)
