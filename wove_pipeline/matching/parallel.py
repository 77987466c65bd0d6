"""Running a match over many blocks: small blocks packed into tasks, tasks (or incremental
assignment calls) spread over forked worker processes in shares of even cost, and the
workers' labels, links and stats merged back into the run. Blocks are independent, so a
parallel run decides exactly what a sequential one would; only cluster numbering differs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .assignment import Link, MatchConfig
from .scoring import BlockNames, MatchData, block_names, combine_block_names

if TYPE_CHECKING:
    from .cluster import _Run


def plan_tasks(blocks: list[np.ndarray], cfg: MatchConfig) -> list[list[np.ndarray]]:
    """Tasks: single big blocks, or packs of small blocks of about ``batch_size`` mentions."""
    tasks: list[list[np.ndarray]] = []
    pack: list[np.ndarray] = []
    size = 0
    for idx in sorted(blocks, key=len):
        if len(idx) > cfg.batch_size // 2:
            tasks.append([idx])
            continue
        if size + len(idx) > cfg.batch_size and pack:
            tasks.append(pack)
            pack, size = [], 0
        pack.append(idx)
        size += len(idx)
    if pack:
        tasks.append(pack)
    return tasks


def run_task(run: "_Run", task: list[np.ndarray]) -> None:
    d = run.data
    if len(task) == 1:
        run.cluster_block(task[0])
        return
    singles = [t for t in task if len(t) == 1]
    for t in singles:
        run.cluster(t, None)  # type: ignore[arg-type]
    multi = [t for t in task if len(t) > 1]
    if not multi:
        return
    idx = np.concatenate(multi)
    batch = np.concatenate([np.full(len(t), k) for k, t in enumerate(multi)])
    bn = combine_block_names([block_names(d, t) for t in multi])
    run.cluster(idx, bn, batch)


def run_blocks(run: "_Run", blocks: list[np.ndarray]) -> None:
    tasks = plan_tasks(blocks, run.cfg)
    workers = max(1, int(run.cfg.workers))
    if workers == 1 or len(tasks) < 2:
        for t in tasks:
            run_task(run, t)
        return
    run_parallel(run, tasks, workers)


# What forked workers read (set by fork_map around the pool): the run and its work items.
_FORK_RUN: "_Run | None" = None
_FORK_ITEMS: list = []


def _worker(task_ids: list[int]):
    run = _FORK_RUN
    assert run is not None
    run.labels[:] = -1
    run.links = {}
    run.stats.clear()
    run.next_label = 0
    touched = []
    for t in task_ids:
        run_task(run, _FORK_ITEMS[t])
        touched.append(np.concatenate(_FORK_ITEMS[t]))
    idx = np.concatenate(touched) if touched else np.zeros(0, dtype=np.int64)
    links = [(mid, l.outcome, l.score, l.partner, l.evidence) for mid, l in run.links.items()]
    return idx, run.labels[idx], links, dict(run.stats), run.next_label


def balanced_shares(cost: list[int], workers: int) -> list[list[int]]:
    """Indexes of the items in about 4 shares per worker of even total cost (biggest first,
    each to the lightest share), so one slow share does not hold the others up."""
    shares: list[list[int]] = [[] for _ in range(workers * 4)]
    load = [0] * len(shares)
    for i in sorted(range(len(cost)), key=lambda i: -cost[i]):
        k = load.index(min(load))
        shares[k].append(i)
        load[k] += cost[i]
    return [s for s in shares if s]


def fork_map(fn, shares: list, workers: int, run: "_Run", items: list) -> list:
    """fn over shares (lists of indexes into items) in forked worker processes, which read
    run and items as the parent holds them."""
    import multiprocessing as mp

    global _FORK_RUN, _FORK_ITEMS
    _FORK_RUN, _FORK_ITEMS = run, items
    try:
        with mp.get_context("fork").Pool(workers, initializer=_default_signals) as pool:
            results = pool.map(fn, shares, chunksize=1)
            # Let the workers finish on their own: the pool's exit terminates them with SIGTERM,
            # which a handler the parent had (Dagster's run sets one) would catch and ignore.
            pool.close()
            pool.join()
    finally:
        _FORK_RUN, _FORK_ITEMS = None, []
    return results


def _default_signals() -> None:
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_parallel(run: "_Run", tasks: list[list[np.ndarray]], workers: int) -> None:
    # cost estimate: sum of squared block sizes
    shares = balanced_shares([sum(min(len(b), run.cfg.max_block) * len(b) for b in t) for t in tasks], workers)
    results = fork_map(_worker, shares, workers, run, tasks)
    for idx, labs, links, stats, n_labels in results:
        base = run.next_label
        run.labels[idx] = labs + base
        run.next_label += n_labels
        for mid, oc, sc, partner, ev in links:
            run.links[mid] = Link(mid, -1, oc, sc, partner, ev)
        for k, v in stats.items():
            run.stats[k] += v
    for i, m in enumerate(run.data.mentions):
        run.links[m.mention_id].cluster = int(run.labels[i])


@dataclass
class AssignCall:
    """One Run.assign call of assign_incremental: labelled mentions, new ones newest first,
    and the blocks whose names it scores (several when small blocks are packed)."""

    old: np.ndarray
    new: np.ndarray
    blocks: list[np.ndarray]
    packed: bool

    def names(self, data: MatchData) -> BlockNames:
        if self.packed:
            return combine_block_names([block_names(data, idx) for idx in self.blocks])
        return block_names(data, self.blocks[0])


# Below this many (new, candidate) pairs to score, forking workers costs more than it saves:
# a pool of 2 forked from a 100k-paper run starts in ~0.07 s, scoring takes ~3.6 us a pair
# (a 100k archive's day: 1,029 new positions, 686k pairs, 2.5 -> 1.4 s with 2 workers).
PARALLEL_ASSIGN_MIN_PAIRS = 100_000


def run_assign_calls(run: "_Run", calls: list[AssignCall]) -> None:
    """Run the calls in this process, or spread over cfg.workers forked processes. Calls
    touch disjoint blocks, so each decides alone what it would in sequence; only the
    numbering of new clusters differs, and researcher ids do not depend on it (identity
    numbers new clusters by their smallest mention id)."""
    workers = max(1, int(run.cfg.workers))
    pairs = [len(c.new) * (len(c.old) + len(c.new)) for c in calls]
    if workers == 1 or len(calls) < 2 or sum(pairs) < PARALLEL_ASSIGN_MIN_PAIRS:
        for c in calls:
            run.assign(c.old, c.new, c.names(run.data))
        return
    shares = balanced_shares(pairs, workers)
    results = fork_map(_assign_worker, shares, workers, run, calls)
    base = run.next_label
    for idx, labs, links, stats, worker_first, n_labels, merged in results:
        run.merged_profiles.update(merged)  # existing labels: numbered alike in every process
        # the share's new clusters, numbered from where its worker process stood (a process
        # runs several shares in turn), move to a range of their own
        run.labels[idx] = np.where(labs >= worker_first, labs - worker_first + base, labs)
        base += n_labels
        for mid, oc, sc, partner, ev in links:
            run.links[mid] = Link(mid, -1, oc, sc, partner, ev)  # cluster set by the caller
        for k, v in stats.items():
            run.stats[k] += v
    run.next_label = base


def _assign_worker(call_ids: list[int]):
    run = _FORK_RUN
    assert run is not None
    first = run.next_label
    run.links = {}
    run.stats.clear()
    run.merged_profiles = {}
    for c in call_ids:
        call = _FORK_ITEMS[c]
        run.assign(call.old, call.new, call.names(run.data))
    idx = np.concatenate([_FORK_ITEMS[c].new for c in call_ids])
    links = [(mid, l.outcome, l.score, l.partner, l.evidence) for mid, l in run.links.items()]
    return idx, run.labels[idx], links, dict(run.stats), first, run.next_label - first, run.merged_profiles
