"""Shards of the name blocks and the streaming full re-match: a stable shard per block key, and
clustering chunk by chunk of whole blocks (with the corpus' statistics) deciding exactly what
match_all decides, joins across blocks by identical upstream ids included."""

from collections import defaultdict

import pytest

from wove_pipeline.matching import Mention, match_all
from wove_pipeline.matching.corpus import CorpusCounts
from wove_pipeline.matching.names import make_name
from wove_pipeline.matching.shards import N_SHARDS, shard_ids, shard_of
from wove_pipeline.matching.streaming import blocks_in_order, corpus_stats, match_streaming, map_shards


def test_a_block_key_has_one_shard_on_every_machine():
    # pinned values: the hash is BLAKE2b of the key, not Python's per-process salted hash
    assert [shard_of(k) for k in ("p wang", "w peng", "y wang", "j smith")] == [2, 34, 17, shard_of("j smith")]
    assert shard_of("") == shard_of("   ") == 0
    assert all(0 <= shard_of(f"{c} name{i}") < N_SHARDS for c in "abc" for i in range(200))
    assert len({shard_of(f"a name{i}") for i in range(2000)}) == N_SHARDS  # every shard used
    assert shard_ids()[:3] == ["00", "01", "02"] and len(shard_ids()) == N_SHARDS


def _partition(clusters: dict[str, int]) -> set[frozenset]:
    groups = defaultdict(set)
    for mid, c in clusters.items():
        groups[c].add(mid)
    return {frozenset(g) for g in groups.values()}


@pytest.fixture(scope="module")
def corpus():
    from bench.bench_matching import synthesize

    mentions, gold = synthesize(12_000, seed=3)
    return sorted(mentions, key=lambda m: (m.paper_id, m.position)), gold


def test_streaming_decides_what_match_all_decides(corpus):
    mentions, _ = corpus
    whole = match_all(mentions)
    streamed = match_streaming(blocks_in_order(mentions), chunk_mentions=1500)  # many chunks
    assert _partition(streamed.clusters) == _partition(whole.clusters)
    for mid, link in whole.links.items():
        got = streamed.links[mid]
        assert (got.outcome, got.score, got.partner, got.evidence) == (link.outcome, link.score, link.partner,
                                                                        link.evidence), mid


def test_without_the_corpus_statistics_a_chunk_would_score_differently(corpus):
    """Why corpus.py exists: IDFs fitted over one chunk are another model."""
    from wove_pipeline.matching.scoring import build_data

    mentions, _ = corpus
    chunk = max(blocks_in_order(mentions), key=len)
    from wove_pipeline.matching.corpus import build_chunk_data

    counts = corpus_stats(blocks_in_order(mentions))
    alone, inside = build_data(chunk), build_chunk_data(chunk, counts)
    whole = build_data(mentions)
    import numpy as np

    rows = [whole.index[m.mention_id] for m in chunk]
    assert abs(alone.affil - whole.affil[rows]).max() > 1e-3  # the chunk's own IDF is another weighting
    np.testing.assert_allclose(inside.text[inside.paper_row].toarray(), whole.text[whole.paper_row[rows]].toarray(),
                               atol=1e-6)
    np.testing.assert_allclose(inside.affil.toarray(), whole.affil[rows].toarray(), atol=1e-6)
    # the statistics travel as bytes (the plan stores them for every shard)
    again = CorpusCounts.from_bytes(counts.to_bytes())
    assert again.n_papers == counts.n_papers and again.n_affil == counts.n_affil
    assert (again.text_df == counts.text_df).all() and (again.affil_df == counts.affil_df).all()


def _peng(mid, paper, first="Peng", last="Wang", **kw):
    base = dict(s2_author_id="S77", openalex_author_id="A77", affiliations=["Adobe Research"],
                coauthor_keys=[f"k{paper}"], year=2024)
    base.update(kw)
    return Mention(mid, paper, 0, first, None, last, **base)


def test_a_surname_first_copy_in_another_shard_joins_by_its_upstream_ids():
    profile = [_peng(f"m{i}", f"p{i}") for i in range(9)]
    swapped = _peng("x", "p9", first="Wang", last="Peng")
    assert shard_of(make_name("Wang", None, "Peng").block) != shard_of(make_name("Peng", None, "Wang").block)
    a = match_streaming(blocks_in_order(profile + [swapped]))
    assert a.clusters["x"] == a.clusters["m0"] and len({a.clusters[m.mention_id] for m in profile}) == 1
    # ids alone do not join incompatible names, nor a mention with another ORCID
    stranger = _peng("y", "p10", first="Li", last="Zhang")
    other_orcid = _peng("z", "p11", first="Wang", last="Peng", orcid="0000-0002-0000-0001")
    mentions = profile + [stranger, other_orcid, _peng("o", "p12", orcid="0000-0002-0000-0009")]
    b = match_streaming(blocks_in_order(mentions))
    assert b.clusters["y"] != b.clusters["m0"] and b.clusters["z"] != b.clusters["o"]
    assert _partition(b.clusters) == _partition(match_all(mentions).clusters)


def test_shards_over_two_processes_give_what_one_gives():
    assert map_shards(lambda s: s * s, list(range(10)), processes=2) == [s * s for s in range(10)]
    seen = []
    assert map_shards(lambda s: seen.append(s) or s, [3, 1], processes=1) == [3, 1] and seen == [3, 1]


def test_statistics_of_shards_merged_are_the_corpus_statistics(corpus):
    """CorpusStats.merge: passes over disjoint shards (each paper's text counted in the shard of
    its first author) give, merged, the counts of one pass over everything."""
    from wove_pipeline.matching.corpus import CorpusStats

    mentions, _ = corpus
    whole = corpus_stats(blocks_in_order(mentions))
    merged = CorpusStats()
    for shard in (0, 1, 2):
        part = CorpusStats()
        part.add([m for m in mentions if shard_of(m.block, 3) == shard], owns_text=lambda m: m.position == 0)
        merged.merge(part)
    counts = merged.done()
    assert (counts.n_papers, counts.n_affil, counts.n_venue) == (whole.n_papers, whole.n_affil, whole.n_venue)
    for name in ("text_df", "affil_df", "venue_df"):
        assert (getattr(counts, name) == getattr(whole, name)).all(), name
