"""Author matching at scale: synthesize N author mentions, time ``match_all``, peak RSS.

    .venv/bin/python -m bench.bench_matching [--mentions 1000000] [--workers 2] [--no-write]

The synthetic corpus mimics arXiv's hard parts at scale: surnames drawn from a heavy-tailed
distribution dominated by common Chinese/Korean surnames (so blocks like "y wang" hold
thousands of mentions and go through sub-blocking), printed-name variants (initials,
hyphenated given names, diacritics), labs with stable co-author circles, affiliations,
categories, topical titles/abstracts, S2 / OpenAlex ids that split and merge people,
ORCID on a minority. The generator (not the sandbox one: that builds whole upstream views
and is ~50x slower per mention) is seeded and deterministic; ground truth is kept so the
run also reports B3 on the synthetic set.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np

CJK_SURNAMES = "Wang Li Zhang Liu Chen Yang Huang Zhao Wu Zhou Xu Sun Ma Zhu Hu Guo He Lin Gao Luo Zheng Liang Xie Song Tang Han Feng Deng Cao Peng Zeng Xiao Tian Dong Pan Yuan Cai Jiang Yu Du Ye Cheng Wei Su Lu Ding Ren Shen Yao Kim Lee Park Choi Jung Kang Cho Yoon Jang Lim".split()
CJK_SYLL = "wei jing yang ming hua xiao jun li hong lei yu xin jie hao tao bo peng qiang chen yan fang ling jian hui min kai feng lin yi zhi rui yong na ting long bin gang".split()
WEST_SURNAMES = "Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Müller Schmidt Schneider Fischer Weber Meyer Wagner Becker Schulz Hoffmann Rossi Russo Ferrari Esposito Bianchi Romano Colombo Dubois Moreau Laurent Simon Michel Ivanov Smirnov Kuznetsov Popov Petrov Sokolov Novak Kowalski Nowak Silva Santos Oliveira Souza Costa Pereira Patel Shah Singh Kumar Sharma Gupta Tanaka Suzuki Sato Takahashi Watanabe".split()
WEST_GIVEN = "James John Robert Michael William David Richard Joseph Thomas Charles Mary Patricia Jennifer Linda Elizabeth Barbara Susan Jessica Sarah Karen Anna Maria Peter Paul Mark Daniel Andrea Marco Luca Giulia Pierre Jean Jean-Pierre Marie-Claire François Hans Jürgen Klaus Stefan Andreas Sergei Dmitry Alexei Olga Elena Ivan Jan Piotr Tomasz Raj Amit Priya Anil Hiroshi Takeshi Yuki Kenji Carlos José Luis Ana Sofia Lucas Mateo Ahmed Omar Fatima Ali".split()
CATS = "cs.CV cs.LG cs.CL cs.AI cs.RO cs.DC cs.GR cs.CR stat.ML math.OC math.PR math.AP quant-ph hep-th hep-ph hep-ex astro-ph.GA astro-ph.CO cond-mat.str-el cond-mat.mtrl-sci physics.optics eess.SP q-bio.NC econ.EM".split()
INSTS = [f"{a} {b}" for a in "Tsinghua Peking Zhejiang Fudan Stanford MIT Oxford Cambridge ETH EPFL Toronto Tokyo Seoul KAIST Berkeley Princeton Caltech Harvard Yale Columbia Cornell Michigan Washington Munich Heidelberg Sorbonne Milan Rome Madrid Moscow Warsaw Delhi Bombay Sydney Melbourne Singapore Nanyang".split() for b in ("University", "Institute of Technology", "Research Center")]


def _zipf_weights(n: int, s: float) -> np.ndarray:
    w = 1.0 / np.arange(1, n + 1) ** s
    return w / w.sum()


def synthesize(n_mentions: int, seed: int = 1):
    mentions, gold = [], {}
    for m, person in synthesize_iter(n_mentions, seed):
        mentions.append(m)
        gold[m.mention_id] = person
    return mentions, gold


def synthesize_iter(n_mentions: int, seed: int = 1, keep=None):
    """(mention, person) one after the other: the generator holds the people and labs, not
    the mentions (the same corpus as ``synthesize``). ``keep(given, surname)``: whether a
    person's mentions are wanted; the others are drawn (the same random stream, the same
    corpus) but not built."""
    from wove_pipeline.matching.mentions import Mention, coauthor_fields
    from wove_pipeline.matching.names import make_name
    rng = np.random.default_rng(seed)
    n_persons = n_mentions // 6
    cjk = rng.random(n_persons) < 0.3
    sur_c = rng.choice(len(CJK_SURNAMES), n_persons, p=_zipf_weights(len(CJK_SURNAMES), 0.9))
    sur_w = rng.integers(0, len(WEST_SURNAMES), n_persons)
    # rarer western surnames: append a stem to most so western blocks stay realistic
    stems = rng.integers(0, 400, n_persons)
    given_w = rng.integers(0, len(WEST_GIVEN), n_persons)
    syl = rng.choice(len(CJK_SYLL), (n_persons, 2), p=_zipf_weights(len(CJK_SYLL), 0.8))
    one_syl = rng.random(n_persons) < 0.35
    persons = []
    for p in range(n_persons):
        if cjk[p]:
            a, b = CJK_SYLL[syl[p, 0]], CJK_SYLL[syl[p, 1]]
            given = a.capitalize() if one_syl[p] else (a + b).capitalize()
            fam = CJK_SURNAMES[sur_c[p]]
        else:
            given = WEST_GIVEN[given_w[p]]
            fam = WEST_SURNAMES[sur_w[p]] + ("" if stems[p] < 40 else f"{'abcdefghijklmnopqrstuvwxyz'[stems[p] % 26]}{stems[p] // 26}")
        persons.append((given, fam))
    # labs of 3-12 people, each with an institution and a home category
    lab_of = np.empty(n_persons, dtype=np.int64)
    labs = []
    p = 0
    while p < n_persons:
        k = int(rng.integers(3, 13))
        labs.append((list(range(p, min(p + k, n_persons))), INSTS[int(rng.integers(len(INSTS)))], CATS[int(rng.integers(len(CATS)))]))
        lab_of[p : p + k] = len(labs) - 1
        p += k
    has_orcid = rng.random(n_persons) < 0.2
    # upstream ids: 5% of persons split into two ids, 2% merged with a same-name neighbour
    s2 = np.arange(n_persons)
    oa = np.arange(n_persons)
    name_key: dict[tuple, int] = {}
    for i, nm in enumerate(persons):
        j = name_key.setdefault(nm, i)
        if j != i and rng.random() < 0.25:
            s2[i] = s2[j]
        if j != i and rng.random() < 0.25:
            oa[i] = oa[j]
    wanted = None if keep is None else np.array([bool(keep(g, f)) for g, f in persons])
    words = [f"w{k}" for k in range(20000)]
    topic_words = {c: rng.choice(len(words), 300, replace=False) for c in CATS}
    made = 0
    paper = 0
    while made < n_mentions:
        lab_members, inst, cat = labs[int(rng.integers(len(labs)))]
        k = int(min(len(lab_members), rng.integers(2, 7)))
        authors = list(rng.choice(lab_members, k, replace=False))
        if rng.random() < 0.3:
            authors.append(int(rng.integers(n_persons)))
        year = int(rng.integers(2010, 2026))
        tw = topic_words[cat]
        if wanted is not None and not any(wanted[a] for a in authors):
            # nobody wanted on this paper: the same draws, nothing built
            rng.choice(tw, 40)
            rng.integers(0, 20000, 40)
            for _ in authors:
                rng.random()
            for a in authors:
                if made >= n_mentions:
                    break
                made += 1
                rng.random()  # the split flag
                _skip_mention_draws(rng, has_orcid[a])
            paper += 1
            continue
        text = " ".join(words[int(x)] for x in rng.choice(tw, 40)) + " " + " ".join(words[int(x)] for x in rng.integers(0, 20000, 40))
        printed = []
        for a in authors:
            g, f = persons[a]
            r = rng.random()
            if r < 0.2:
                g = ".-".join(x[0] for x in g.split("-")) + "."
            printed.append((g, f))
        author_names = [make_name(g, None, f) for g, f in printed]  # co-authors as the pipeline keys them
        for pos, a in enumerate(authors):
            if made >= n_mentions:
                break
            g, f = printed[pos]
            mid = f"p{paper}:{pos}"
            split = rng.random() < 0.05
            made += 1
            if wanted is not None and not wanted[a]:
                _skip_mention_draws(rng, has_orcid[a])
                continue
            yield (
                Mention(
                    mention_id=mid,
                    paper_id=f"p{paper}",
                    position=pos,
                    first=g,
                    last=f,
                    affiliations=[inst] if rng.random() < 0.6 else [],
                    s2_author_id=(f"S{s2[a]}" + ("b" if split else "")) if rng.random() < 0.9 else None,
                    openalex_author_id=f"A{oa[a]}" if rng.random() < 0.9 else None,
                    orcid=f"0000-{a:012d}" if has_orcid[a] and rng.random() < 0.7 else None,
                    institution_ids=[f"I{hash(inst) % 100000}"] if rng.random() < 0.7 else [],
                    **coauthor_fields(author_names, pos),
                    categories=[cat],
                    text=text,
                    year=year,
                ),
                int(a),
            )
        paper += 1


def _skip_mention_draws(rng, has_orcid: bool) -> None:
    """The draws a built mention makes after its split flag (affiliation, S2 id, OpenAlex id,
    ORCID when the person has one, institution), made without building it: the random stream
    stays the same for the mentions that are built."""
    for _ in range(3 + int(has_orcid) + 1):
        rng.random()


class PssSampler:
    """Samples the proportional set size (PSS) of this process and its descendants: memory
    really in use at once, counting copy-on-write pages shared with forked workers once."""

    def __init__(self, interval: float = 0.2):
        import os
        import threading

        self.pid = os.getpid()
        self.peak = 0
        self.interval = interval
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _pids(self) -> list[int]:
        import os

        out, todo = [], [self.pid]
        while todo:
            p = todo.pop()
            out.append(p)
            try:
                for tid in os.listdir(f"/proc/{p}/task"):
                    with open(f"/proc/{p}/task/{tid}/children") as f:
                        todo.extend(int(x) for x in f.read().split())
            except OSError:
                pass
        return out

    def sample(self) -> int:
        total = 0
        for p in self._pids():
            try:
                with open(f"/proc/{p}/smaps_rollup") as f:
                    for line in f:
                        if line.startswith("Pss:"):
                            total += int(line.split()[1]) * 1024
                            break
            except OSError:
                pass
        self.peak = max(self.peak, total)
        return total

    def _run(self):
        while not self._stop.wait(self.interval):
            self.sample()

    def __enter__(self):
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()


def _config_default(name: str):
    from wove_pipeline.matching import MatchConfig

    return getattr(MatchConfig(), name)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mentions", type=int, default=1_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--streaming", action="store_true", help="the full re-match by shard (matching/streaming.py)")
    ap.add_argument("--shards", type=int, default=64)
    ap.add_argument("--processes", default="1", help="streaming: worker processes over the shards; '1,2' runs both")
    ap.add_argument("--spool-dir", default=None)
    ap.add_argument("--candidate-clusters", type=int, default=_config_default("candidate_clusters"),
                    help="streaming: candidate clusters a mention of a big block is scored against (0: every member)")
    ap.add_argument("--keep-spool", default=None,
                    help="streaming: spool the corpus under this folder once and reuse it (not removed)")
    ap.add_argument("--only-shards", default=None,
                    help="streaming: spool and match only these shards of the corpus (a sample of a corpus too big"
                         " for the session; blocks are whole in a shard, so each costs what it would in the full run)")
    ap.add_argument("--notes", default=None, help="with --section-from: a file of notes put under the table")
    ap.add_argument("--match-shards", default=None, help="streaming: match only these of the spooled shards")
    ap.add_argument("--spool-only", action="store_true", help="streaming with --keep-spool: spool, match nothing")
    ap.add_argument("--record", default=None, help="streaming: append each run's figures (JSON lines) to this file")
    ap.add_argument("--section-from", default=None,
                    help="streaming: write the RESULTS section from the runs recorded in this file (runs nothing)")
    args = ap.parse_args(argv)
    if args.section_from:
        import json

        with open(args.section_from) as f:
            runs = [json.loads(line) for line in f if line.strip()]
        notes = open(args.notes).read() if args.notes else ""
        write_streaming_section(runs, " ; ".join(dict.fromkeys(r["command"] for r in runs)), notes)
        return
    if args.streaming:
        import json

        runs = []
        for p in [int(x) for x in str(args.processes).split(",")]:
            run = main_streaming(argparse.Namespace(**{**vars(args), "processes": p}))
            if run is None:
                return
            niceness = os.nice(0)  # the command as it was run
            run["command"] = ((f"nice -n {niceness} " if niceness else "")
                              + f".venv/bin/python -m bench.bench_matching --streaming --mentions {args.mentions}"
                              f" --shards {args.shards} --processes {args.processes}"
                              f" --candidate-clusters {args.candidate_clusters}"
                              + (f" --only-shards {args.only_shards}" if args.only_shards else "")
                              + (f" --match-shards {args.match_shards}" if args.match_shards else ""))
            run["only_shards"] = args.only_shards
            run["corpus"] = args.mentions
            run["candidate_clusters"] = args.candidate_clusters
            runs.append(run)
            if args.record:
                with open(args.record, "a") as f:
                    f.write(json.dumps(run) + "\n")
        if not args.no_write:
            write_streaming_section(runs, runs[0]["command"])
        return

    from wove_pipeline.matching import MatchConfig, match_all
    from wove_pipeline.matching.evaluate import b3
    t0 = time.perf_counter()
    mentions, gold = synthesize(args.mentions)
    t_gen = time.perf_counter() - t0
    blocks: dict[str, int] = {}
    for m in mentions:
        blocks[m.block] = blocks.get(m.block, 0) + 1
    sizes = sorted(blocks.values(), reverse=True)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024

    def cpu() -> tuple[float, float]:
        a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return a.ru_utime + a.ru_stime, b.ru_utime + b.ru_stime

    c1 = cpu()
    t1 = time.perf_counter()
    with PssSampler() as pss:
        res = match_all(mentions, config=MatchConfig(workers=args.workers))
    t_match = time.perf_counter() - t1
    c2 = cpu()
    c_main, c_workers = c2[0] - c1[0], c2[1] - c1[1]
    c_match = c_main + c_workers
    # on dedicated cores: the main process's work (features, planning, merging results)
    # runs while workers are idle or overlaps them; workers split their share evenly
    est = c_main + c_workers / max(1, args.workers)
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024
    rss_child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024 / 1024
    q = b3(res.clusters, gold)
    body = f"""
| figure | value |
|---|---|
| author mentions | {len(mentions):,} |
| name blocks | {len(blocks):,} (largest {sizes[0]:,}, {sum(1 for s in sizes if s > 2000)} above 2,000 -> sub-blocked) |
| workers | {args.workers} |
| synthesize corpus (not timed as matching) | {t_gen:.0f} s |
| `match_all` wall time | **{t_match:.0f} s** ({len(mentions) / t_match:,.0f} mentions/s) |
| `match_all` CPU time (all processes) | {c_match:.0f} s (main process {c_main:.0f} s, workers {c_workers:.0f} s) |
| estimated wall time on {args.workers} dedicated cores (main CPU + workers' CPU / {args.workers}) | {est:.0f} s |
| load average at the end (1/5/15 min; other jobs share the machine) | {" / ".join(load)} |
| peak RSS, main process (GiB) | **{rss:.2f}** (after synthesis: {rss_before:.2f}) |
| peak RSS, largest forked worker (GiB; shares the parent's pages copy-on-write) | {rss_child:.2f} |
| **peak memory in use at once** (sum of PSS over main process and workers, sampled every 0.2 s, GiB) | **{pss.peak / 2**30:.2f}** |
| clusters | {len(set(res.clusters.values())):,} |
| B3 P / R / F1 on the synthetic truth | {q.precision:.4f} / {q.recall:.4f} / {q.f1:.4f} |

Bar: 1,000,000 mentions in at most 10 minutes and 8 GiB on 2 cores. The synthetic corpus
is in `bench/bench_matching.py` (`synthesize`); its B3 only shows the matcher ran
sensibly at scale (its names and evidence are simpler than the sandbox world's).
"""
    print(body)
    if not args.no_write:
        from bench.results import write_section

        write_section("Author matching", body, command=f".venv/bin/python -m bench.bench_matching --mentions {args.mentions} --workers {args.workers}")



# --------------------------------------------------------------------------- streaming by shard

def _spool(n_mentions: int, root, n_shards: int, keep_gold: bool, only: set[int] | None = None):
    """Write the synthetic corpus shard by shard (pickled Mentions, one file per shard) as it
    is generated: neither the generator nor the matcher ever holds the whole corpus."""
    import pickle

    from wove_pipeline.matching.shards import shard_of

    from wove_pipeline.matching.scoring import text_term_counts

    files = {s: open(root / f"shard{s:03d}.pkl", "wb") for s in range(n_shards) if only is None or s in only}
    buffers: list[list] = [[] for _ in range(n_shards)]
    gold: dict[str, int] = {}
    blocks: dict[str, int] = {}
    pending: list = []

    def route() -> None:
        # the papers' texts counted once (the pipeline keeps them counted: wove.matching_text_terms)
        texts: dict[str, str] = {}
        routed = [(m, person, shard_of(m.block, n_shards)) for m, person in pending]
        routed = [x for x in routed if x[2] in files]
        for m, _, _ in routed:
            texts.setdefault(m.paper_id, m.text)
        terms = dict(zip(texts, text_term_counts(list(texts.values()))))
        for m, person, s in routed:
            m.text, m.text_terms = "", terms[m.paper_id]
            buffers[s].append(m)
            blocks[m.block] = blocks.get(m.block, 0) + 1
            if keep_gold:
                gold[m.mention_id] = person
            if len(buffers[s]) >= 2000:
                pickle.dump(buffers[s], files[s], protocol=5)
                buffers[s] = []
        pending.clear()

    keep = None
    if only is not None:
        from wove_pipeline.matching.names import make_name

        def keep(given: str, surname: str) -> bool:  # the printed forms' blocks (full, initials)
            initials = ".-".join(x[0] for x in given.split("-")) + "."
            return any(shard_of(make_name(g, None, surname).block, n_shards) in only for g in (given, initials))

    for m, person in synthesize_iter(n_mentions, keep=keep):
        pending.append((m, person))
        if len(pending) >= 20_000:
            route()
    route()
    for s, f in files.items():
        if buffers[s]:
            pickle.dump(buffers[s], f, protocol=5)
        f.close()
    return gold, blocks


def _read(path):
    import pickle

    with open(path, "rb") as f:
        while True:
            try:
                yield from pickle.load(f)
            except EOFError:
                return


def _owns_text(m) -> bool:
    return m.position == 0  # a paper's text is counted in the shard of its first author


def main_streaming(args) -> None:
    import gc
    import pickle
    import tempfile
    from pathlib import Path

    from wove_pipeline.matching import MatchConfig
    from wove_pipeline.matching.evaluate import b3
    from wove_pipeline.matching.streaming import (CorpusStats, blocks_in_order, cluster_stream, id_keys,
                                                  join_across, joined_labels, label_base, map_shards)

    n_shards, processes = args.shards, args.processes
    only = sorted(int(x) for x in args.only_shards.split(",")) if args.only_shards else None
    t0 = time.perf_counter()
    if args.keep_spool:
        # the corpus is deterministic: spooled once, reused by later runs (1 vs 2 processes)
        root = Path(args.keep_spool) / (f"spool-{args.mentions}-{n_shards}"
                                        + (f"-only-{'-'.join(map(str, only))}" if only else ""))
        done = root / "spooled.pkl"
        if done.exists():
            with open(done, "rb") as f:
                gold, blocks, t_gen = pickle.load(f)
        else:
            root.mkdir(parents=True, exist_ok=True)
            gold, blocks = _spool(args.mentions, root, n_shards, keep_gold=args.mentions <= 2_000_000,
                                  only=set(only) if only else None)
            t_gen = time.perf_counter() - t0
            with open(done, "wb") as f:
                pickle.dump((gold, blocks, t_gen), f, protocol=5)
        if args.spool_only:
            return None
    else:
        root = Path(tempfile.mkdtemp(prefix="wove-bench-shards-", dir=args.spool_dir))
        gold, blocks = _spool(args.mentions, root, n_shards, keep_gold=args.mentions <= 2_000_000)
        t_gen = time.perf_counter() - t0
    shards = only or list(range(n_shards))
    if args.match_shards:  # a part of what was spooled
        shards = sorted(int(x) for x in args.match_shards.split(","))
        gold = {}  # (the truth is by mention, not by shard)
        from wove_pipeline.matching.shards import shard_of as _shard_of

        blocks = {b: c for b, c in blocks.items() if _shard_of(b, n_shards) in set(shards)}
    sizes = sorted(blocks.values(), reverse=True)
    n_blocks = len(blocks)
    del blocks
    gc.collect()
    cfg = MatchConfig(workers=1, candidate_clusters=args.candidate_clusters)

    def stats_of(shard: int):
        st = CorpusStats()
        batch = []
        for m in _read(root / f"shard{shard:03d}.pkl"):
            batch.append(m)
            if len(batch) >= 20_000:
                st.add(batch, owns_text=_owns_text)
                batch = []
        st.add(batch, owns_text=_owns_text)
        return st

    def cluster_shard(shard: int) -> int:
        c_start, t_start = time.process_time(), time.perf_counter()
        blocks_ = blocks_in_order(_read(root / f"shard{shard:03d}.pkl"))
        n = 0
        with open(root / f"result{shard:03d}.pkl", "wb") as out:
            for chunk in cluster_stream(blocks_, None, cfg, stats=STATS, first_label=label_base(shard)):
                pickle.dump(chunk, out, protocol=5)
                n += len(chunk)
        # progress (a run cut short still says how far it got)
        print(f"{time.strftime('%H:%M:%S')} shard {shard}: {n:,} mentions clustered in"
              f" {time.process_time() - c_start:.0f} s CPU, {time.perf_counter() - t_start:.0f} s wall",
              file=sys.stderr, flush=True)
        return n

    def cpu() -> float:
        a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime

    global STATS
    with open("/proc/loadavg") as f:
        load0 = f.read().split()[:3]
    c0 = cpu()
    with PssSampler() as pss:
        t1 = time.perf_counter()
        STATS = CorpusStats()
        for part in map_shards(stats_of, shards, processes):
            STATS.merge(part)
        STATS = STATS.done()
        t_stats = time.perf_counter() - t1
        print(f"{time.strftime('%H:%M:%S')} statistics pass: {t_stats:.0f} s", file=sys.stderr, flush=True)
        t2 = time.perf_counter()
        counts = map_shards(cluster_shard, shards, processes)
        t_cluster = time.perf_counter() - t2
        t3 = time.perf_counter()
        results = lambda: (r for s in shards for r in _read(root / f"result{s:03d}.pkl"))  # noqa: E731
        relevant = joined_labels((k, r.block, r.label) for r in results()
                                 for k in id_keys(r.orcid, r.s2_author_id, r.openalex_author_id))
        members = [r for r in results() if r.label in relevant]
        moved = join_across(members, None)
        t_join = time.perf_counter() - t3
    t_match = time.perf_counter() - t1
    c_match = cpu() - c0
    q = None
    if gold:
        clusters = {r.mention_id: moved.get(r.mention_id, r.label) for r in results()}
        q = b3(clusters, gold)
        n_clusters = len(set(clusters.values()))
    for p in root.iterdir():
        if not args.keep_spool or p.name.startswith("result"):
            p.unlink()
    if not args.keep_spool:
        root.rmdir()
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    body = f"""
| figure | value |
|---|---|
| author mentions | {sum(counts):,} |
| name blocks | {n_blocks:,} (largest {sizes[0]:,}, {sum(1 for s in sizes if s > 2000)} above 2,000 -> sub-blocked) |
| shards / processes | {n_shards} / {processes} |
| synthesize and spool by shard (not timed as matching) | {t_gen:.0f} s |
| corpus statistics pass (name counts, IDFs) | {t_stats:.0f} s |
| clustering, shard by shard, chunk by chunk | {t_cluster:.0f} s |
| joins across blocks (clusters sharing ids: {len(members):,} mentions) | {t_join:.0f} s |
| **full re-match wall time** | **{t_match:.0f} s** ({sum(counts) / t_match:,.0f} mentions/s) |
| CPU time (all processes) | {c_match:.0f} s |
| load average at the end (1/5/15 min; other jobs share the machine) | {" / ".join(load)} |
| **peak memory in use at once** (sum of PSS over all processes, sampled every 0.2 s, GiB) | **{pss.peak / 2**30:.2f}** |
| clusters | {n_clusters:,} |
| B3 P / R / F1 on the synthetic truth | {q.precision:.4f} / {q.recall:.4f} / {q.f1:.4f} |
""" if q else ""
    print(body or f"{sum(counts):,} mentions, {n_shards} shards, {processes} processes: {t_match:.0f} s"
          f" (stats {t_stats:.0f}, cluster {t_cluster:.0f}, join {t_join:.0f}), peak {pss.peak / 2**30:.2f} GiB,"
          f" CPU {c_match:.0f} s, gen {t_gen:.0f} s")
    big = sum(1 for s in sizes if s > cfg.max_block)
    return dict(processes=processes, cpu_s=c_match, mentions=sum(counts), seconds=t_match, peak_gib=pss.peak / 2**30,
                stats_s=t_stats, cluster_s=t_cluster, join_s=t_join, gen_s=t_gen, joined=len(members),
                b3=[q.precision, q.recall, q.f1] if q else None, blocks=n_blocks, largest=sizes[0], big_blocks=big,
                in_big=sum(s for s in sizes if s > cfg.max_block), load_start=" / ".join(load0),
                load_end=" / ".join(load), date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))


STATS = None


def streaming_body(runs: list[dict]) -> str:
    head = ("| mentions | processes | **wall time** | stats pass | clustering | joins | CPU (all processes) |"
            " **peak memory** (PSS, GiB) | B3 P / R / F1 | load avg at start -> end (1/5/15 min) | date |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|\n")
    def what(r: dict) -> str:
        if not r.get("only_shards"):
            return f"{r['mentions']:,}"
        corpus = r.get("corpus") or int(r["command"].split("--mentions ")[1].split()[0])
        return f"{r['mentions']:,} of {corpus:,} (shards {r['only_shards']} of 64)"

    rows = "".join(
        f"| {what(r)} | {r['processes']} | **{r['seconds']:.0f} s** ({r['seconds'] / 60:.1f} min) |"
        f" {r['stats_s']:.0f} s | {r['cluster_s']:.0f} s | {r['join_s']:.0f} s | {r['cpu_s']:.0f} s |"
        f" **{r['peak_gib']:.2f}** | {' / '.join(f'{x:.4f}' for x in r['b3']) if r['b3'] else 'truth not kept'} |"
        f" {r['load_start']} -> {r['load_end']} | {r['date']} |\n" for r in runs)
    shapes = "".join(
        f"- {what(r)} mentions: {r['blocks']:,} name blocks, the largest {r['largest']:,} mentions,"
        f" {r['big_blocks']:,} above max_block (2,000) holding {r['in_big']:,} mentions; {r['joined']:,} mentions in"
        f" clusters joined across blocks; synthesize and spool by shard {r['gen_s']:.0f} s (not counted)\n"
        for r in {(r['mentions']): r for r in runs}.values())
    return head + rows + "\n" + shapes


def write_streaming_section(runs: list[dict], command: str, notes: str = "") -> None:
    from bench.results import write_section

    write_section("Full re-match by shard", streaming_body(runs) + "\n" + notes, command=command)


if __name__ == "__main__":
    main()
