"""The full re-match block by block: peak memory bounded by the largest block, not the archive.

``match_all`` builds the features of every mention at once (1M mentions: 5.9 GiB). Blocks
are independent, so a shard's blocks can come one after the other from a stream (a
server-side cursor ordered by block, ``rematch.shard_blocks``, or a bench's generator):

1. ``cluster_stream`` packs whole blocks into chunks of about ``CHUNK_MENTIONS`` mentions (a
   block bigger than that is a chunk of its own; it is sub-blocked as in ``match_all``),
   clusters each chunk with the same model and rule (``cluster._Run`` and
   ``parallel.run_blocks``: the same code as ``match_all``), yields one compact
   ``Result`` per mention and drops the chunk's features.
2. The joins across name blocks by identical upstream ids (an ORCID, or both S2 and OpenAlex
   author ids) and the force links of the overrides are the only decisions that read more
   than one block. ``joined_labels`` finds, in one pass over (key, block, label) rows, the
   clusters that hold such a key in more than one block (or an override's end), and
   ``join_across`` runs ``cross_block``'s joins over those clusters' members alone: the
   same keys, members and order as ``match_all`` sees, hence the same merges.

Labels are unique across shards (``label_base``); researcher ids come later
(``identity.assign_ids``, in ``rematch.finish``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from .assignment import Assignment, Link, MatchConfig
from .corpus import CorpusCounts, CorpusStats, build_chunk_data
from .cross_block import apply_cross_block_links, id_keys, join_by_upstream_ids
from .mentions import Mention
from .overrides import Overrides

# Mentions clustered at once (whole blocks; a bigger block alone). Small enough that a
# chunk's features stay far below a GiB, big enough that packing small blocks into scoring
# calls of ``MatchConfig.batch_size`` works as in match_all.
CHUNK_MENTIONS = 20_000


@dataclass(slots=True)
class Result:
    """One mention's outcome in its shard, with what the final steps read: its cluster
    label, its link, and the fields of the joins across blocks and of the researcher rows."""

    mention_id: str
    paper_id: str
    position: int
    block: str
    label: int
    outcome: str
    score: float | None
    partner: str | None
    evidence: dict[str, float] = field(default_factory=dict)
    orcid: str | None = None
    s2_author_id: str | None = None
    openalex_author_id: str | None = None
    first: str | None = None
    last: str | None = None
    suffix: str | None = None

    def lite(self) -> Mention:
        """A Mention with what cross_block and the researcher rows read."""
        return Mention(self.mention_id, self.paper_id, self.position, first=self.first, last=self.last,
                       suffix=self.suffix, orcid=self.orcid, s2_author_id=self.s2_author_id,
                       openalex_author_id=self.openalex_author_id)


def label_base(shard: int) -> int:
    """First cluster label of a shard: shards never share a label."""
    return shard << 40


def chunks(blocks: Iterable[list[Mention]], limit: int = CHUNK_MENTIONS) -> Iterator[list[Mention]]:
    """Whole blocks packed into chunks of at most ``limit`` mentions (a bigger block alone)."""
    chunk: list[Mention] = []
    for block in blocks:
        if chunk and len(chunk) + len(block) > limit:
            yield chunk
            chunk = []
        chunk.extend(block)
        if len(chunk) >= limit:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def cluster_stream(blocks: Iterable[list[Mention]], overrides: Overrides | None = None,
                   config: MatchConfig | None = None, *, stats: CorpusCounts, first_label: int = 0,
                   chunk_mentions: int = CHUNK_MENTIONS) -> Iterator[list[Result]]:
    """Cluster a stream of whole name blocks chunk by chunk; one list of Results per chunk.
    With the corpus' statistics (``corpus.CorpusStats`` over every mention of the archive,
    not only this stream's), decisions are ``match_all``'s before its joins across blocks
    (see ``join_across``)."""
    from .cluster import _group_blocks, _Run
    from .parallel import run_blocks

    cfg = config or MatchConfig()
    next_label = first_label
    for mentions in chunks(blocks, chunk_mentions):
        data = build_chunk_data(mentions, stats)
        run = _Run(data, overrides, cfg, first_label=next_label)
        run_blocks(run, _group_blocks(data))
        next_label = run.next_label
        out = []
        for m, label in zip(mentions, run.labels.tolist()):
            link = run.links[m.mention_id]
            out.append(Result(m.mention_id, m.paper_id, m.position, m.block, label, link.outcome, link.score,
                              link.partner, link.evidence, m.orcid, m.s2_author_id, m.openalex_author_id,
                              m.first, m.last, m.suffix))
        del data, run
        yield out


def joined_labels(rows: Iterable[tuple[tuple, str, int]], override_labels: Iterable[int] = ()) -> set[int]:
    """Labels of the clusters a join across blocks may touch: those holding an id key that
    appears in more than one block (rows: (key, block, label)), and ``override_labels``
    (clusters holding an end of a force link). Keys and blocks are kept as 64-bit hashes in
    arrays (10M mentions: ~0.4 GiB, not ~6 GiB of tuples in a dict); a collision can only add
    a cluster to the members ``join_across`` reads, which joins by the real keys."""
    from array import array

    keys, blocks, labels = array("q"), array("q"), array("q")
    for key, block, label in rows:
        keys.append(hash(key))
        blocks.append(hash(block))
        labels.append(label)
    out = set(override_labels)
    if not keys:
        return out
    k, b, lab = (np.frombuffer(a, dtype=np.int64) for a in (keys, blocks, labels))
    order = np.lexsort((b, k))
    k, b, lab = k[order], b[order], lab[order]
    starts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
    ends = np.r_[starts[1:], len(k)] - 1
    multi = b[starts] != b[ends]  # sorted by block within a key: first != last <=> two blocks
    group = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(k)]))
    out.update(np.unique(lab[multi[group]]).tolist())
    return out


def join_across(members: list[Result], overrides: Overrides | None, stats: dict | None = None) -> dict[str, int]:
    """Every member of the clusters ``joined_labels`` found: run the joins across name blocks
    on them (in match_all's order: by paper, then position) and return mention_id -> new
    label for the members whose cluster was joined to another."""
    from collections import defaultdict

    ordered = sorted(members, key=lambda r: (r.paper_id, r.position))
    by_id = {r.mention_id: r.lite() for r in ordered}
    clusters = {r.mention_id: r.label for r in ordered}
    before = dict(clusters)
    stats = stats if stats is not None else defaultdict(int)
    join_by_upstream_ids(clusters, by_id, overrides, stats)
    apply_cross_block_links(clusters, by_id, overrides, stats)
    return {mid: c for mid, c in clusters.items() if before[mid] != c}


def override_ends(overrides: Overrides | None) -> set[str]:
    return {mid for pair in (overrides.links if overrides else []) for mid in pair}


def corpus_stats(blocks: Iterable[list[Mention]]) -> CorpusCounts:
    stats = CorpusStats()
    for chunk in chunks(blocks):
        stats.add(chunk)
    return stats.done()


def match_streaming(blocks: list[list[Mention]], overrides: Overrides | None = None,
                    config: MatchConfig | None = None, *, chunk_mentions: int = CHUNK_MENTIONS) -> Assignment:
    """The whole streaming path in memory (tests, small benches): ``match_all``'s clusters."""
    from collections import defaultdict

    stats = corpus_stats(blocks)
    results = [r for chunk in cluster_stream(blocks, overrides, config, stats=stats, chunk_mentions=chunk_mentions)
               for r in chunk]
    ends = override_ends(overrides)
    relevant = joined_labels(((k, r.block, r.label) for r in results
                              for k in id_keys(r.orcid, r.s2_author_id, r.openalex_author_id)),
                             (r.label for r in results if r.mention_id in ends))
    stats: dict[str, int] = defaultdict(int)
    moved = join_across([r for r in results if r.label in relevant], overrides, stats)
    clusters = {r.mention_id: moved.get(r.mention_id, r.label) for r in results}
    links = {r.mention_id: Link(r.mention_id, clusters[r.mention_id], r.outcome, r.score, r.partner, r.evidence)
             for r in results}
    return Assignment(clusters, links, dict(stats))


def blocks_in_order(mentions: Iterable[Mention]) -> list[list[Mention]]:
    """Mentions grouped by block key, blocks sorted by key (what a shard's cursor streams)."""
    from collections import defaultdict

    by_block: dict[str, list[Mention]] = defaultdict(list)
    for m in mentions:
        by_block[m.block].append(m)
    return [by_block[b] for b in sorted(by_block)]


_SHARD_FN = None  # what forked shard workers call (set by map_shards around the pool)


def _call_shard(shard: int):
    assert _SHARD_FN is not None
    return _SHARD_FN(shard)


def map_shards(fn, shards: list[int], processes: int = 1) -> list:
    """``fn(shard)`` for every shard, in this process or over ``processes`` forked worker
    processes (one shard at a time each, in order), results in order. ``fn`` may be any
    callable (a closure: the workers are forked and read it as the parent holds it); a worker
    is replaced after 8 shards, so what one shard left behind is returned to the system."""
    global _SHARD_FN
    if processes <= 1 or len(shards) < 2:
        return [fn(s) for s in shards]
    import multiprocessing as mp

    from .parallel import _default_signals

    _SHARD_FN = fn
    try:
        with mp.get_context("fork").Pool(processes, initializer=_default_signals, maxtasksperchild=8) as pool:
            out = pool.map(_call_shard, shards, chunksize=1)
            pool.close()
            pool.join()
    finally:
        _SHARD_FN = None
    return out
