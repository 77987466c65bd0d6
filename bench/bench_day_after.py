"""The same day after archives of N papers, through the daily pipeline and publish: what a day
costs as the archive grows (issue 22: the day must not depend on the archive's size; bar
R <= 1.3 at 1,000,000 papers).

    nice -n 10 .venv/bin/python -m bench.bench_day_after --papers 10000 --papers 100000 \\
        --papers 300000 --papers 1000000
    .venv/bin/python -m bench.bench_day_after --report

Every size starts from the same sandbox world (``--shape``, default the realistic one:
heavy-tailed names, hyper-authored collaborations; seed 7, 820 papers a day, ``--base-days``
days plus one) in its own embedded PostgreSQL under /tmp:

1. the base archive: the world's first ``--base-days`` days through the daily assets in one
   range run, then one publish (a full match, which builds every researcher's profile), as
   daily operation would have left it;
2. grown to N papers by K = round(N / base papers) - 1 shifted copies of its rows
   (bench/archive_copy.py: new paper, upstream and researcher ids, dates moved back past the
   enrichment look-back), then every metric and a full serving publish computed from them.
   With ``--people twins`` (the default) a copy keeps every name, so each base researcher
   has K twins sharing its name, co-authors and affiliations; with ``--people other`` each
   copy renames its people (bench/archive_people.py: name words permuted among words of
   about the same frequency and initial), so a name block holds about K + 1 times the base's
   mentions, filled by other people with other circles, as a real archive's "Y. Wang" is,
   who work at other institutions and write in words of their own (their papers' term
   counts in a vocabulary of each copy's own);
3. THE day: the world's next day (the same OAI records, the same author positions, for every
   size), its partition's daily run and then publish (researchers by profile ->
   researcher_metrics -> serving), timed per step from the runs' events.

Steps 1-2 are not timed as the day. A 1,000,000-paper archive takes an hour to grow: with
``--keep`` a size stops after step 2 and keeps its home (its path in the size's JSON), and
``--day-on HOME`` runs step 3 there later, with the code of that moment (once: the day
changes the archive; its home is removed after). ``--cold`` drops the kernel's page cache
before each day (root), so that days compare from the same cold start. ``--after-a-day`` grows
the archive one day short and runs that day (daily run and publish, untimed) just before THE
day, as a server that runs every day has: what a day reads that the day before read too (the
crowded name blocks' keys, the indexes' upper levels) is then in the caches, the rest is not
(N in its lines is the archive as grown, before the day before's papers). ``--days-before K``
grows K days short and runs those K days before THE day: the caches of a server that has run
every day (each day reads ~5 GiB of a 1,000,000-paper archive, so a few days fill the page
cache), where ``--after-a-day`` is one restarted the day before. ``--read-ahead-kb KB`` runs
THE day with the disks' read-ahead at KB (root), the days before at the machine's own. As
between two days, autovacuum sweeps what the days before changed before THE day starts, is
held off during it and sweeps what it changed after it (untimed, recorded beside the day:
``autovacuum_between_days``), so that no day has sweeps inside it that another day, by chance
of timing, has not. A day's figures hold what it read from the disk itself (/proc/diskstats)
beside the pages PostgreSQL read into its buffers (page-cache hits among them). Lines
``day after N papers: S s (R x the 10k day)`` go to RESULTS.md with a per-stage table.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import gc
import hashlib
import json
import os
import re
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_day import CATCH_UP_DAYS, DAILY_ORDER, BenchEnv, chunks, load_average, run_job  # noqa: E402
from bench.day_after_findings import FINDINGS, FINDINGS_OTHER  # noqa: E402
from wove_pipeline.matching.assignment import MatchConfig  # noqa: E402
from wove_pipeline.matching.researchers import add_override  # noqa: E402

OUT = Path(os.environ.get("WOVE_BENCH_DAY_AFTER_OUT", "/tmp/wove-bench-day-after-copy"))
START = dt.date(2025, 1, 1)
SECTION = "Day after an archive (matching by profile)"
SECTION_OTHER = "Day after an archive of other people (matching by profile)"  # figures of --people other
PUBLISH_ORDER = ["researchers", "researcher_metrics", "serving"]
# which matching code a figure was made with (R compares a size with the 10k day of the same);
# earlier codes, in RESULTS.md: "8 candidates a position, looked up by key, scored by position" and before
CODE = (f"{MatchConfig().profile_candidates} candidates a position, {MatchConfig().profile_representatives} representatives"
        " a candidate, keys by B-tree, publish checks by the day, plans by index, room to update in place,"
        " metrics by who moved, states joined whole, products over used columns,"
        " sorts in memory, links patched by position, reads split among readers, unread indexes dropped,"
        " group pairs over their own groups, readers and metrics priced by key, totals from kept counts,"
        " bridges by the group model alone, full names of many namesakes select none,"
        " autovacuum between days")
# an archive grown by copies that are other people (bench/archive_people.py), not twins
OTHER_PEOPLE = ", copies other people"
# ... at institutions of each copy's own, their papers' text counts in a vocabulary of each
# copy's own (before, a copy kept the base's affiliations and texts, and names that met again
# across copies held the same papers word for word at the same institution)
OWN_WORDS = " at workplaces of their own, in words of their own"
# (until 2026-12-06 the copies worked at the base's institutions, permuted: archive_people)
OWN_WORDS_BEFORE = " working elsewhere, in words of their own"
# the day run right after the day before it (--after-a-day), not first on a grown archive
AFTER_A_DAY = ", after the day before"
# ... right after the K days before it (--days-before K, K > 1): the caches of a server that
# has run every day, not of one restarted the day before
AFTER_DAYS = ", after {} days before"
# THE day applies a forced split the links break (--override): a curator's correction
WITH_OVERRIDE = ", an override to apply"
# THE day at another read-ahead than the days before it (--read-ahead-kb): what the disk's own
# setting costs a day whose archive does not fit in the page cache
READ_AHEAD = ", THE day at read-ahead {} KiB"
EARLIER_CODE = "candidates read whole"  # figures written before the code was recorded
_EIGHT = "8 candidates a position, looked up by key, scored by position"
FILE_TAG = {_EIGHT: "8-candidates", _EIGHT + OTHER_PEOPLE: "8-candidates-other-people",
            "bounded candidates, looked up by key, scored by position": "bounded-by-key-per-position",
            "bounded candidates, looked up by key, scored by position" + OTHER_PEOPLE:
                "bounded-by-key-per-position-other-people", "bounded candidates, looked up by key": "bounded-by-key",
            "bounded candidates, read by index": "bounded-by-index",
            "bounded candidates, collaborations read by position": "bounded-by-position",
            "bounded candidates": "bounded", "candidates read light": "light",
            "candidates read whole": "whole"}


def _code(people: str, days_before: int = 0, override: bool = False, read_ahead: int | None = None) -> str:
    return (CODE + (OTHER_PEOPLE + OWN_WORDS if people == "other" else "") + _days_before_text(days_before, AFTER_A_DAY,
            AFTER_DAYS.format(days_before)) + (WITH_OVERRIDE if override else "")
            + (READ_AHEAD.format(read_ahead) if read_ahead is not None else ""))


def _days_before_text(days_before: int, one: str, several: str) -> str:
    """``one`` after a single day before THE day (--after-a-day), ``several`` after more."""
    return "" if not days_before else one if days_before == 1 else several


def _days_before(fig: dict) -> int:
    """The days run (untimed) right before THE day (figures before --days-before: after_a_day)."""
    return fig.get("days_before", 1 if fig.get("after_a_day") else 0)


def break_an_override(conn) -> str:
    """A curator's correction for THE day (--override): a forced split of the first and the
    last position of the researcher with the most positions, which its links break."""
    rid, a, pa, b, pb = conn.execute(
        "WITH r AS (SELECT researcher_id FROM wove.researchers ORDER BY mention_count DESC, researcher_id LIMIT 1)"
        " SELECT r.researcher_id, f.arxiv_id, f.position, l.arxiv_id, l.position FROM r,"
        " LATERAL (SELECT arxiv_id, position FROM wove.researcher_mentions m WHERE m.researcher_id = r.researcher_id"
        "          ORDER BY arxiv_id, position LIMIT 1) f,"
        " LATERAL (SELECT arxiv_id, position FROM wove.researcher_mentions m WHERE m.researcher_id = r.researcher_id"
        "          ORDER BY arxiv_id DESC, position DESC LIMIT 1) l").fetchone()
    add_override(conn, "split", (a, pa), (b, pb), "bench: a curator splits a researcher")
    return f"researcher {rid}: {a}:{pa} / {b}:{pb}"


def _current(f: dict) -> bool:
    """Figures made with today's matching code (of either kind of archive, either way of running the day)."""
    return _whoever(f["code"].replace(AFTER_A_DAY, "")) == CODE


def _whoever(code: str) -> str:
    """The code without what the copies are (their people, their words)."""
    return code.replace(OWN_WORDS, "").replace(OWN_WORDS_BEFORE, "").replace(OTHER_PEOPLE, "")


def _figures_path(target: int, code: str = CODE) -> Path:
    tag = FILE_TAG.get(code) or re.sub(r"[^a-z0-9]+", "-", code.lower()).strip("-")
    if len(tag) > 160:  # a file name holds 255 bytes: the long codes' tags end in a digest
        tag = f"{tag[:140]}-{hashlib.sha256(code.encode()).hexdigest()[:12]}"
    return OUT / f"{target}-{tag}.json"


def _kept(home: Path) -> tuple[Path, dict]:
    """The figures of the archive a --keep run left at ``home`` (written under its code then)."""
    for path in sorted(OUT.glob("*.json")):
        fig = json.loads(path.read_text())
        if fig.get("status") == "archive kept" and fig.get("home") == str(home):
            return path, fig
    raise SystemExit(f"no archive kept at {home} among {OUT}/*.json")


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# What the server's processes of this database are doing: its backends and the processes that
# read and write for them (I/O workers, WAL writer, checkpointer) running or waiting on a read,
# the WAL, a lock; not their idle waits, nor a backend's wait for its client (the snapshot
# readers wait so between their shares, a checkpoint paces its writes by a timeout).
SERVER_WAITS_SQL = """
SELECT backend_type, coalesce(wait_event_type, 'CPU'), coalesce(wait_event, 'running')
FROM pg_stat_activity
WHERE pid <> pg_backend_pid() AND (datname = current_database() OR datname IS NULL)
  AND coalesce(wait_event_type, 'CPU') NOT IN ('Activity', 'Client', 'Timeout')
  AND coalesce(state, 'active') NOT IN ('idle', 'disabled')
"""


class _Every:
    """A daemon thread that calls ``tick`` every ``every_s`` seconds while its with block runs,
    counting the calls (a sampler's seconds: samples x interval)."""

    def __init__(self, every_s: float):
        import threading

        self.every_s, self.samples = every_s, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self.samples += 1
            self.tick()

    def tick(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


class _ServerWaits(_Every):
    """pg_stat_activity sampled every ``every_s`` through THE day: seconds (samples x
    interval, summed over processes) by process kind and wait. Where a day's server time
    goes as the archive grows: running, or waiting on reads, on the WAL, on locks."""

    def __init__(self, url: str, every_s: float = 0.05):
        super().__init__(every_s)
        self.url, self.conn = url, None
        self.counts: dict[str, int] = {}

    def _run(self) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as self.conn:
            super()._run()

    def tick(self) -> None:
        for kind, wait_type, wait in self.conn.execute(SERVER_WAITS_SQL):
            key = f"{kind}: {wait_type}/{wait}"
            self.counts[key] = self.counts.get(key, 0) + 1

    def summary(self, top: int = 30) -> dict:
        s = self.every_s
        return {"seconds": round(self.samples * s, 1),
                "waits_s": {k: round(v * s, 2) for k, v in sorted(self.counts.items(), key=lambda kv: -kv[1])[:top]}}


class _Sampler(_Every):
    """A low-rate stack sampler of the main thread (--sample): where a run's Python time goes,
    by wove function (inclusive and innermost), without a tracing profiler's overhead."""

    def __init__(self, every_s: float = 0.01):
        import threading

        super().__init__(every_s)
        self.main = threading.main_thread().ident
        self.inclusive: dict[str, int] = {}
        self.inner: dict[str, int] = {}
        self.inner_line: dict[str, int] = {}  # the innermost wove line: which statement of a hot function

    def tick(self) -> None:
        frame = sys._current_frames().get(self.main)
        names, inner, line = [], None, None
        while frame is not None:
            code = frame.f_code
            if "wove_pipeline" in code.co_filename:
                name = f"{Path(code.co_filename).stem}.{code.co_name}"
                names.append(name)
                inner = inner or name
                line = line or f"{name}:{frame.f_lineno}"
            frame = frame.f_back
        for name in set(names):
            self.inclusive[name] = self.inclusive.get(name, 0) + 1
        if inner:
            self.inner[inner] = self.inner.get(inner, 0) + 1
            self.inner_line[line] = self.inner_line.get(line, 0) + 1

    def summary(self, top: int = 40) -> dict:
        s = self.every_s
        pick = lambda d: {k: round(v * s, 2) for k, v in sorted(d.items(), key=lambda kv: -kv[1])[:top]}  # noqa: E731
        return {"seconds": round(self.samples * s, 1), "inclusive_s": pick(self.inclusive), "inner_s": pick(self.inner),
                "inner_line_s": pick(self.inner_line)}


class _RssGuard:
    """Stops the bench (KeyboardInterrupt in the main thread, os._exit if that does not end
    it) when its resident memory passes ``limit_gib``, first writing the size's figures with
    what the day got to (the machine is shared: a day that does not fit is a result, not a
    reason to swap)."""

    def __init__(self, fig: dict, path: Path, limit_gib: float):
        import threading

        self.fig, self.path, self.limit = fig, path, limit_gib * 2**30
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            rss = int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            if rss > self.limit:
                self.fig["status"] = "stopped"
                self.fig["note"] = (f"stopped by the bench's memory guard: {rss / 2**30:.1f} GiB resident after "
                                    f"{time.perf_counter() - self.t0:.0f} s of the {self.fig.get('phase', '?')}")
                self.path.write_text(json.dumps(self.fig, indent=1, default=str))
                print(f"[{self.fig['target']}] {self.fig['note']}", flush=True)
                import _thread

                _thread.interrupt_main()  # the environment's cleanup runs (its database stopped, removed)
                if not self._stop.wait(120):
                    os._exit(3)
                return

    def __enter__(self) -> "_RssGuard":
        self.t0 = time.perf_counter()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()


# The day's rows as served: its papers, their positions linked and listed on the papers'
# serving rows and on their researchers' lists (what "correct serving rows for the day" reads).
DAY_SERVED_SQL = """
WITH d AS (SELECT arxiv_id FROM wove.papers WHERE oai_datestamp = %(day)s)
SELECT (SELECT count(*) FROM d) AS papers,
       (SELECT count(*) FROM serving.papers s JOIN d USING (arxiv_id)) AS papers_served,
       (SELECT count(*) FROM wove.paper_authors pa JOIN d USING (arxiv_id)) AS positions,
       (SELECT count(*) FROM wove.researcher_mentions rm JOIN d USING (arxiv_id)) AS positions_linked,
       (SELECT count(*) FROM serving.papers s JOIN d USING (arxiv_id),
               jsonb_array_elements(s.author_list) e WHERE e ->> 'researcher_id' IS NOT NULL) AS positions_served,
       (SELECT count(*) FROM serving.researcher_papers rp JOIN d USING (arxiv_id)) AS researcher_papers_rows
"""


def _day_served(conn, day: dt.date) -> dict:
    row = conn.execute(DAY_SERVED_SQL, {"day": day}).fetchone()
    return dict(zip(("papers", "papers_served", "positions", "positions_linked", "positions_served",
                     "researcher_papers_rows"), row))


def _world_truth(world, day: dt.date) -> dict:
    """Who is behind the positions (people, not collaborations) from the world's ground truth,
    what _day_decisions scores against: ``day``, each of the day's positions -> its person;
    ``base``, each person -> their positions on the base archive's papers."""
    from wove_pipeline.sandbox.ground_truth import mention_identities

    on_day = {p.arxiv_id for p in world.papers if p.datestamp == day}
    truth: dict = {"day": {}, "base": {}}
    for arxiv_id, position, person, _s2, _oa in mention_identities(world):
        if world.persons[person].is_collaboration:
            continue
        if arxiv_id in on_day:
            truth["day"][(arxiv_id, position)] = person
        else:
            truth["base"].setdefault(person, set()).add((arxiv_id, position))
    return truth


def _day_decisions(conn, truth: dict) -> dict:
    """The day's links against the world's truth (the sandbox's: mechanics at scale, not real
    people). For a day's position whose person has positions in the base archive: the share of
    them its researcher holds (recall) and the share of its researcher's earlier positions (those
    off the day's papers) that are that person's (precision; a copy's positions are other
    people's, twins too). For one whose person is new: whether its researcher holds no earlier
    position (kept apart)."""
    day_keys = list(truth["day"])
    linked = {(a, p): r for a, p, r in conn.execute(
        "SELECT rm.arxiv_id, rm.position, rm.researcher_id FROM wove.researcher_mentions rm"
        " JOIN unnest(%s::text[], %s::int[]) d (arxiv_id, position) USING (arxiv_id, position)",
        ([a for a, _ in day_keys], [p for _, p in day_keys]))}
    day_papers = {a for a, _ in day_keys}
    held: dict[int, set] = {}
    for a, p, r in conn.execute("SELECT arxiv_id, position, researcher_id FROM wove.researcher_mentions"
                                " WHERE researcher_id = ANY(%s)", (sorted(set(linked.values())),)):
        if a not in day_papers:
            held.setdefault(r, set()).add((a, p))
    recall, precision, apart, newcomers = [], [], 0, 0
    for key, person in truth["day"].items():
        if key not in linked:
            continue
        earlier = held.get(linked[key], set())
        mine = truth["base"].get(person, set())
        if mine:
            both = len(mine & earlier)
            recall.append(both / len(mine))
            precision.append(both / len(earlier) if earlier else 1.0)
        else:
            newcomers += 1
            apart += not earlier
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
    return {"with_history": len(recall), "recall": mean(recall), "precision": mean(precision),
            "newcomers": newcomers, "newcomers_apart": apart}


def _archive_counts(conn) -> dict:
    one = lambda q: conn.execute(q).fetchone()[0]  # noqa: E731
    return {
        "papers": one("SELECT count(*) FROM wove.papers"),
        "positions": one("SELECT count(*) FROM wove.paper_authors"),
        "researchers": one("SELECT count(*) FROM wove.researchers"),
        "profiles": one("SELECT count(*) FROM wove.researcher_profiles"),
        "largest_block": one("SELECT max(n) FROM (SELECT count(*) AS n FROM wove.researcher_mentions GROUP BY block) b"),
        "db_gib": one("SELECT pg_database_size(current_database())") / 2**30,
    }


# What a day writes: WAL (and how much of it is full-page images: the first change of a page
# after a checkpoint logs the whole page) and, per table, rows inserted, updated, of those
# updated in place on their page without touching any index (HOT), and deleted; and the pages
# it read from outside PostgreSQL's buffers (table, its indexes, its TOAST: from disk on a
# cold day), which say where an archive's size costs reads; and the rows its sequential scans
# read (a scan of a big table is a cost that grows with the archive); and the autovacuums that
# ran on it (beside the day, on the same cores and disk).
WRITES_SQL = """
SELECT 'wal', wal_bytes::bigint, wal_fpi, wal_records, 0, 0, 0, 0 FROM pg_stat_wal
UNION ALL
SELECT CASE WHEN t.schemaname = 'wove' THEN t.relname ELSE t.schemaname || '.' || t.relname END,
       t.n_tup_ins, t.n_tup_upd, t.n_tup_hot_upd, t.n_tup_del,
       coalesce(io.heap_blks_read, 0) + coalesce(io.idx_blks_read, 0) + coalesce(io.toast_blks_read, 0)
       + coalesce(io.tidx_blks_read, 0), t.seq_tup_read, t.autovacuum_count
FROM pg_stat_user_tables t JOIN pg_statio_user_tables io USING (relid)
WHERE t.schemaname IN ('wove', 'serving')
"""


def _writes(conn) -> dict[str, tuple]:
    conn.execute("SELECT pg_stat_force_next_flush()")
    return {r[0]: tuple(int(x) for x in r[1:]) for r in conn.execute(WRITES_SQL)}


def _writes_between(before: dict[str, tuple], after: dict[str, tuple]) -> dict:
    """The day's writes: WAL bytes, full-page images and records; each table's rows inserted,
    updated, updated in place (HOT) and deleted, pages read, rows read by sequential scans and
    autovacuums (tables the day touched)."""
    d = {k: tuple(a - b for a, b in zip(v, before.get(k, (0,) * len(v)))) for k, v in after.items()}
    wal = d.pop("wal")
    return {"wal_mib": round(wal[0] / 2**20, 1), "wal_fpi": wal[1], "wal_records": wal[2],
            "tables": {k: dict(zip(("ins", "upd", "hot", "del", "read", "seq_rows", "autovacuums"), v))
                       for k, v in sorted(d.items()) if any(v)}}


def _writes_cells(w: dict | None) -> list[str]:
    """The day's WAL and its share of HOT updates, for the table ("-": not recorded then)."""
    if not w:
        return ["-", "-"]
    upd = sum(t["upd"] for t in w["tables"].values())
    return [f"{w['wal_mib']:,.0f} ({w['wal_fpi']:,})", f"{sum(t['hot'] for t in w['tables'].values()):,} / {upd:,}"]


# A whole disk's line in /proc/diskstats (not its partitions): vda, sda, xvda, nvme0n1.
_DISK = re.compile(r"(?:(?:xv|[hsv])d[a-z]+|nvme\d+n\d+)")


def disk_io() -> tuple[int, ...]:
    """The machine's disks' reads, sectors read, ms reading, writes and sectors written so far
    (/proc/diskstats): what a day read from the disk itself, not from the page cache."""
    totals = [0] * 5
    with open("/proc/diskstats") as f:
        for line in f:
            fields = line.split()
            if _DISK.fullmatch(fields[2]):
                for i, k in enumerate((3, 5, 6, 7, 9)):
                    totals[i] += int(fields[k])
    return tuple(totals)


def read_ahead_kb() -> dict[str, int]:
    """Each disk's read-ahead (KiB): how much more the kernel reads where a day's reads
    follow each other in a file."""
    out = {}
    for queue in sorted(Path("/sys/block").glob("*/queue/read_ahead_kb")):
        if _DISK.fullmatch(queue.parent.parent.name):
            out[queue.parent.parent.name] = int(queue.read_text())
    return out


def set_read_ahead(kb: dict[str, int]) -> None:
    """Set these disks' read-ahead (root)."""
    for disk, value in kb.items():
        try:
            Path(f"/sys/block/{disk}/queue/read_ahead_kb").write_text(f"{value}\n")
        except OSError as e:
            raise SystemExit(f"--read-ahead-kb needs to write /sys/block/{disk}/queue/read_ahead_kb (root): {e}") from e


@contextlib.contextmanager
def disks_read_ahead(kb: int | None, fig: dict):
    """Inside the block, each disk's read-ahead at ``kb`` KiB (root); after it, however it ends
    (the memory guard's stop included), the machine's own again, kept in
    fig["read_ahead_kb_before"]. ``kb`` None: the disks left as they are."""
    if kb is None:
        yield
        return
    own = read_ahead_kb()
    fig["read_ahead_kb_before"] = own
    set_read_ahead({disk: kb for disk in own})
    try:
        yield
    finally:
        set_read_ahead(own)


def disk_io_between(before: tuple[int, ...], after: tuple[int, ...]) -> dict:
    """What the disks did between two disk_io() readings."""
    reads, read_sectors, read_ms, writes, write_sectors = (a - b for a, b in zip(after, before))
    return {"reads": reads, "read_mib": round(read_sectors / 2048, 1), "read_ms": read_ms,
            "writes": writes, "write_mib": round(write_sectors / 2048, 1)}


def drop_page_cache() -> None:
    """Empty the kernel's page cache (root only), so that a day reads its archive from disk as
    the first day after a restart does, whatever ran before it (--cold)."""
    os.sync()
    try:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError as e:
        raise SystemExit(f"--cold needs to write /proc/sys/vm/drop_caches (root): {e}") from e


AUTOVACUUM_WORKERS_SQL = "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'"
SWEEPS_SQL = ("SELECT CASE WHEN schemaname = 'wove' THEN relname ELSE schemaname || '.' || relname END,"
              " autovacuum_count, autoanalyze_count FROM pg_stat_user_tables WHERE schemaname IN ('wove', 'serving')")


def set_server(conn, setting: str, value: str | None) -> None:
    """A server setting (``value`` None: its default again), in force at once."""
    from psycopg import sql

    if value is None:
        conn.execute(sql.SQL("ALTER SYSTEM RESET {}").format(sql.Identifier(setting)))
    else:
        conn.execute(sql.SQL("ALTER SYSTEM SET {} = {}").format(sql.Identifier(setting), sql.Literal(value)))
    conn.execute("SELECT pg_reload_conf()")


def settle_autovacuum(conn, quiet_s: float = 5.0, limit_s: float = 900.0) -> dict:
    """Let autovacuum sweep what the days changed, as it does in the hours between two days
    (untimed): its launcher looks every second meanwhile, and the sweep is over once no
    worker has run for ``quiet_s`` (or at ``limit_s``, ``settled`` False). Returns the seconds,
    what the disk read meanwhile and the tables vacuumed (v) or analyzed (a)."""
    def sweeps():
        conn.execute("SELECT pg_stat_force_next_flush()")
        return {t: (v, a) for t, v, a in conn.execute(SWEEPS_SQL)}

    before, disk = sweeps(), disk_io()
    set_server(conn, "autovacuum_naptime", "1")
    t0 = quiet_since = time.monotonic()
    try:
        while time.monotonic() - quiet_since < quiet_s and time.monotonic() - t0 < limit_s:
            time.sleep(0.5)
            if conn.execute(AUTOVACUUM_WORKERS_SQL).fetchone()[0]:
                quiet_since = time.monotonic()
    finally:
        set_server(conn, "autovacuum_naptime", None)
    # a sweep still running at ``limit_s`` is not over: said so, not taken for a settled server
    settled = time.monotonic() - quiet_since >= quiet_s
    seconds, after = time.monotonic() - t0, sweeps()
    swept = {t: "v" * (v - before.get(t, (0, 0))[0]) + "a" * (a - before.get(t, (0, 0))[1])
             for t, (v, a) in after.items()}
    return {"s": round(seconds, 1), "settled": settled, "disk": disk_io_between(disk, disk_io()),
            "swept": {t: k for t, k in sorted(swept.items()) if k}}


@contextlib.contextmanager
def autovacuum_between_days(url: str, fig: dict, log):
    """THE day with autovacuum held off, swept before and after it (settle_autovacuum): as
    between two days 24 hours apart. Left to itself, autovacuum swept a table once a day's
    writes passed its thresholds, inside THE day or not by chance of timing (in two runs 15-18
    wove tables inside each 10k day and 8 inside the 1,000,000 day, in a third none on any
    side): the bench's timing, not the day's work. What it sweeps after the day is recorded
    beside the day (``swept_after``)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        fig["settled"] = settle_autovacuum(conn)
        log(f" autovacuum swept the days before in {fig['settled']['s']:.0f} s, untimed: {fig['settled']['swept']}")
        set_server(conn, "autovacuum", "off")
    try:
        yield
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            set_server(conn, "autovacuum", None)
    with psycopg.connect(url, autocommit=True) as conn:
        fig["swept_after"] = settle_autovacuum(conn)
    log(f" autovacuum swept THE day after it in {fig['swept_after']['s']:.0f} s, untimed: {fig['swept_after']['swept']}")


def run_size(target: int, per_day: int, seed: int, shape: str, base_days: int, sample: bool = False,
             rss_limit_gib: float = 8.5, people: str = "twins", keep: bool = False, day_on: Path | None = None,
             cold: bool = False, days_before: int = 0, override: bool = False, read_ahead: int | None = None) -> dict:
    import psycopg

    from bench.bench_backfill import _commit, _openalex_budget
    from bench.results import machine
    from wove_pipeline.sandbox.generator import generate_world

    code = _code(people, days_before, override, read_ahead)
    path = _figures_path(target, code)
    log = lambda s: print(f"[{target}]{s}", flush=True)  # noqa: E731
    if day_on:  # the archive a --keep run grew: its figures so far, the day now, by today's code
        kept_path, fig = _kept(day_on)
        if fig["target"] != target or fig["people"] != people or _days_before(fig) != days_before:
            raise SystemExit(f"{kept_path}: grown for {fig['target']} papers, people {fig['people']}, "
                             f"{_days_before(fig)} days before")
        kept_path.unlink()
        fig.update(code=code, commit=_commit(), machine=machine())  # the day's, not the grow's
        # the world it was grown from, whatever this command's defaults
        per_day, seed, shape, base_days = fig["per_day"], fig["seed"], fig["shape"], fig["base_days"]
    else:
        fig = {"code": code, "people": people, "target": target, "per_day": per_day, "base_days": base_days,
               "seed": seed, "shape": shape, "commit": _commit(), "machine": machine(), "status": "generating",
               "days_before": days_before,
               "started": dt.datetime.now(dt.timezone.utc).isoformat()}
    OUT.mkdir(parents=True, exist_ok=True)
    world = generate_world(seed=seed, papers_per_day=per_day, days=base_days + 1, start_day=START, shape=shape)
    day = START + dt.timedelta(days=base_days)
    records = [p for p in world.papers if p.datestamp == day]
    truth = _world_truth(world, day)
    fig["day"] = {"date": day.isoformat(), "records": len(records), "positions": sum(len(p.authors) for p in records),
                  "ids_digest": hashlib.sha256(" ".join(sorted(p.arxiv_id for p in records)).encode()).hexdigest()[:12]}
    setup, run_config = _openalex_budget(5.0)
    with BenchEnv(world, today=world.end_day + dt.timedelta(days=CATCH_UP_DAYS), prefix="wove-bench-day-after-",
                  sandbox_setup=setup, keep=keep, home=day_on) as be:
        del world, records
        gc.collect()
        # the days before THE day: grown into the archive, or run first (--days-before)
        first_before = day - dt.timedelta(days=days_before)
        if not day_on:
            _grow_archive(be, fig, target, people, seed, run_config, first_before, log)
        elif "profile_keys" not in fig.get("grow_s", {}):
            # grown before its copies' profile keys were rebuilt (13a37f2): rebuilt now, then
            # vacuumed and analyzed as the rest (untimed)
            from bench.archive_copy import rebuild_profile_keys

            with psycopg.connect(be.env.urls.serving, autocommit=True) as conn:
                rebuild_profile_keys(conn)
                conn.execute("VACUUM ANALYZE")
        if day_on and not fig.get("room_to_update"):
            _make_room_to_update(be, fig, log)
        _publish_whole_after_upgrade(be, fig, log)
        if keep:
            fig.update(status="archive kept", home=str(be.home))
            path.write_text(json.dumps(fig, indent=1, default=str))
            log(f" archive kept in {be.home}: run the day with --day-on {be.home}")
            return fig
        fig["status"] = "archive ready, day running"
        path.write_text(json.dumps(fig, indent=1, default=str))
        print(f"[{target}] archive {fig['archive']} (grown in {fig['grow_wall']:.0f} s); the day {fig['day']}", flush=True)
        fig["rss_before_day_mib"] = _rss_mib()
        if cold:
            drop_page_cache()
            fig["cold"] = True
        for k in range(days_before):
            before = first_before + dt.timedelta(days=k)
            fig["phase"] = "the day before"
            ran = [run_job("real", "bench_daily", be.instance, before, None, run_config),
                   run_job("real", "bench_publish", be.instance)]
            fig.setdefault("days_before_run", []).append(
                {"date": before.isoformat(), "daily_wall": ran[0].wall, "publish_wall": ran[1].wall})
            log(f" the day before ({before}) in {ran[0].wall + ran[1].wall:.0f} s, untimed")
        with autovacuum_between_days(be.env.urls.serving, fig, log):
            if override:
                with psycopg.connect(be.env.urls.serving, autocommit=True) as conn:
                    fig["override"] = break_an_override(conn)
                log(f" a forced split the links break: {fig['override']}")
            # THE day at --read-ahead-kb, the days before at the machine's own
            with disks_read_ahead(read_ahead, fig):
                load = load_average()
                with psycopg.connect(be.env.urls.serving, autocommit=True) as conn:
                    writes = _writes(conn)
                disk = disk_io()
                guard = _RssGuard(fig, path, rss_limit_gib).__enter__()
                # stopped however THE day ends (the memory guard is not: its fallback must outlive a failed day)
                with _ServerWaits(be.env.urls.serving) as waits:
                    fig["phase"] = "daily run"
                    daily = run_job("real", "bench_daily", be.instance, day, None, run_config)
                    fig["phase"] = "publish"
                    fig["day"].update({"daily_wall": daily.wall, "daily_steps": daily.steps, "load_before": load})
                    fig["status"] = "daily done, publish running"
                    path.write_text(json.dumps(fig, indent=1, default=str))
                    if sample:
                        with _Sampler() as sampler:
                            publish = run_job("real", "bench_publish", be.instance)
                        fig["publish_profile"] = sampler.summary()
                    else:
                        publish = run_job("real", "bench_publish", be.instance)
                    md = {k: {kk: vv for kk, vv in v.items() if isinstance(vv, (int, float, str, dict))} for k, v in publish.metadata.items()}
                    fig["day"].update({"daily_wall": daily.wall, "publish_wall": publish.wall, "steps": {**daily.steps, **publish.steps},
                                       "rows": {**daily.rows, **publish.rows}, "researchers": md.get("researchers", {}),
                                       "serving": md.get("serving", {}), "researcher_metrics": md.get("researcher_metrics", {}), "cpu_pg": daily.cpu_pg + publish.cpu_pg,
                                       "cpu_py": daily.cpu_py + publish.cpu_py, "load_before": load, "load_after": load_average()})
                guard.__exit__()
                fig["day"]["server_waits"] = waits.summary()
                fig["day"]["disk"] = disk_io_between(disk, disk_io())
                fig["day"]["read_ahead_kb"] = read_ahead_kb()
            fig["rss_peak_mib"] = _rss_mib()
            with psycopg.connect(be.env.urls.serving) as conn:
                # (before the bench's own checks of the day, which scan)
                fig["day"]["writes"] = _writes_between(writes, _writes(conn))
                fig["day"]["served"] = _day_served(conn, day)
                fig["day"]["decisions"] = _day_decisions(conn, truth)
    fig["status"] = "done"
    path.write_text(json.dumps(fig, indent=1, default=str))
    d = fig["day"]
    print(f"[{target}] day after {fig['archive']['papers']:,} papers: {d['daily_wall'] + d['publish_wall']:.1f} s", flush=True)
    return fig


# The tables a migration leaves room in for updates in place (0025: a fillfactor), read from
# the catalogue: the migration is the one list of them.
ROOM_TO_UPDATE_SQL = """
SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'wove' AND c.relkind = 'r' AND EXISTS (
    SELECT 1 FROM unnest(c.reloptions) o WHERE o LIKE 'fillfactor=%') ORDER BY 1
"""


def _make_room_to_update(be, fig: dict, log) -> None:
    """An archive grown before migration 0025 has full pages: rewritten with the room a grow
    by today's code leaves (its rows are written after the migration), untimed."""
    import psycopg

    t0 = time.perf_counter()
    with psycopg.connect(be.env.urls.serving, autocommit=True) as conn:
        tables = [t for (t,) in conn.execute(ROOM_TO_UPDATE_SQL)]
        for table in tables:
            conn.execute(f"VACUUM (FULL, ANALYZE) {table}")
    fig["room_to_update"] = f"rewritten after the grow in {time.perf_counter() - t0:.0f} s"
    log(f" {fig['room_to_update']}: {', '.join(tables)}")


def _publish_whole_after_upgrade(be, fig: dict, log) -> None:
    """An archive grown by earlier code (another serving definition, migrations applied since):
    a full publish first, untimed, as the first publish after an upgrade makes one, so that
    the day's publish is the incremental one a day makes."""
    import psycopg

    from wove_pipeline.serving.publish import full_rebuild_reason, publish

    with psycopg.connect(be.env.urls.serving, autocommit=True) as conn:
        reason = full_rebuild_reason(conn)
        if reason:
            t0 = time.perf_counter()
            publish(conn, full=True)
            conn.execute("VACUUM ANALYZE")
            fig.setdefault("grow_s", {})["published_after_upgrade"] = time.perf_counter() - t0
            log(f" {reason}: published whole first in {time.perf_counter() - t0:.0f} s")


def _grow_archive(be, fig: dict, target: int, people: str, seed: int, run_config, day: dt.date, log) -> None:
    """Steps 1 and 2: the base archive (the world's days before ``day``) through the daily assets
    and a publish, grown by copies."""
    import psycopg

    from bench.archive_copy import derive, grow

    t0 = time.perf_counter()
    for first, last in chunks(START, day - dt.timedelta(days=1), 31):
        run_job("real", "bench_daily", be.instance, first, last, run_config)
    run_job("real", "bench_publish", be.instance)
    fig["base_s"] = time.perf_counter() - t0
    with psycopg.connect(be.env.urls.serving, autocommit=True) as conn:
        fig["base"] = _archive_counts(conn)
        copies = max(0, round(target / fig["base"]["papers"]) - 1)
        fig["copies"] = copies
        print(f"[{target}] base {fig['base']['papers']:,} papers in {fig['base_s']:.0f} s; {copies} copies", flush=True)
        t0 = time.perf_counter()
        fig["grow_s"] = grow(conn, copies, people=people, seed=seed, log=log)
        if copies and people == "other":
            from bench.archive_people import verify

            fig["renamed_check"] = verify(conn, log=log)
        if copies:
            fig["grow_s"].update(derive(conn, log=log))
        else:  # as derive ends: every size's day starts on vacuumed, analyzed tables
            conn.execute("VACUUM ANALYZE")
        fig["grow_wall"] = time.perf_counter() - t0
        fig["archive"] = _archive_counts(conn)
        fig["room_to_update"] = "grown with it"  # every row written after migration 0025


def _day_s(f: dict) -> float:
    return f["day"]["daily_wall"] + f["day"]["publish_wall"]


def _checks_s(f: dict, publish: bool) -> float:
    prefixes = tuple(f"{k}_" for k in PUBLISH_ORDER)
    return sum(v for k, v in f["day"]["steps"].items()
               if k not in DAILY_ORDER + PUBLISH_ORDER and k.startswith(prefixes) == publish)


def _cpu_s(f: dict) -> float:
    return f["day"]["cpu_py"] + f["day"]["cpu_pg"]


def report(write: bool = True) -> str:
    every = sorted((json.loads(p.read_text()) for p in OUT.glob("*.json")), key=lambda f: f["target"])
    figs = [f for f in every if f.get("status") == "done"]
    unfinished = [f for f in every if f.get("status") != "done" and "archive" in f]
    if not figs:
        raise SystemExit(f"no figures under {OUT}")
    for f in every:
        f.setdefault("code", EARLIER_CODE)
    # an archive of other people's figures go to a section of their own, with what they say
    other = any(OTHER_PEOPLE in f["code"] for f in every)
    findings = FINDINGS_OTHER if other else FINDINGS
    tens = {f["code"]: f for f in figs if f["target"] == 10_000}
    # an archive of 10k papers has no copies: its day is the same whoever the copies would be
    base_of = lambda f: tens.get(f["code"]) or tens.get(_whoever(f["code"]), figs[0])  # noqa: E731
    base = next((f for f in tens.values() if _current(f)), None) or base_of(figs[0])
    tag = lambda f: "" if len(tens) < 2 else f" [{f['code']}]"  # noqa: E731
    lines = [f"day after {f['archive']['papers']:,} papers: {_day_s(f):.1f} s ({_day_s(f) / _day_s(base_of(f)):.2f} x the "
             f"10k day){tag(f)}; CPU {_cpu_s(f):.0f} s ({_cpu_s(f) / _cpu_s(base_of(f)):.2f} x)" for f in figs]
    lines += [f"day after {f['archive']['papers']:,} papers: not completed{tag(f)} ({f.get('note', f['status'])})"
              + (f"; its daily run: {f['day']['daily_wall']:.1f} s at a load of {f['day']['load_before'].split()[0]} "
                 f"({f['day']['daily_wall'] / base_of(f)['day']['daily_wall']:.2f} x the 10k day's, at "
                 f"{base_of(f)['day']['load_before'].split()[0]})" if "daily_wall" in f["day"] else "") for f in unfinished]
    step = lambda f, k: f["day"]["steps"].get(k, 0.0)  # noqa: E731
    heads = ["matching code", "archive papers", "positions", "largest block", "researchers", "day s (R)", "CPU s (R)",
             "daily assets s", "daily checks s", "researchers s (positions loaded)", "researcher_metrics s",
             "serving s", "publish checks s", "WAL MiB (full-page images)", "HOT updates / updates",
             "bench peak RSS MiB", "load (1 min) before / after"]
    rows = ["| " + " | ".join(heads) + " |", "|" + "---:|" * (len(heads) - 1) + "---|"]
    for f in sorted(figs, key=lambda f: (f["code"], f["target"])):
        a, d = f["archive"], f["day"]
        rows.append("| " + " | ".join([
            f["code"], f"{a['papers']:,}", f"{a['positions']:,}", f"{a['largest_block']:,}", f"{a['researchers']:,}",
            f"{_day_s(f):.1f} ({_day_s(f) / _day_s(base_of(f)):.2f})",
            f"{_cpu_s(f):.0f} ({_cpu_s(f) / _cpu_s(base_of(f)):.2f})",
            f"{sum(step(f, k) for k in DAILY_ORDER):.1f}", f"{_checks_s(f, False):.1f}",
            f"{step(f, 'researchers'):.1f} ({d['researchers'].get('positions_loaded', 0):,})",
            f"{step(f, 'researcher_metrics'):.1f}", f"{step(f, 'serving'):.1f}", f"{_checks_s(f, True):.1f}",
            *_writes_cells(d.get("writes")),
            f"{f['rss_peak_mib']:,.0f}", f"{d['load_before'].split()[0]} / {d['load_after'].split()[0]}"]) + " |")
    largest = max(figs + unfinished, key=lambda f: (f["target"], _current(f)))
    day = base["day"]
    same = len({(f["day"]["records"], f["day"]["positions"], f["day"]["ids_digest"]) for f in figs + unfinished}) == 1
    if largest["target"] < 1_000_000:
        verdict = "1,000,000 not measured."
    elif largest in unfinished:
        done = max(figs, key=lambda f: (f["target"], _current(f)))
        verdict = (f"not met. The 1,000,000-paper day did not complete (its line); the largest completed, "
                   f"{done['archive']['papers']:,} papers, costs {_day_s(done) / _day_s(base_of(done)):.2f} x the "
                   f"10k day (CPU {_cpu_s(done) / _cpu_s(base_of(done)):.2f} x), and the growth is linear in the "
                   f"archive (below).")
    else:
        r = _day_s(largest) / _day_s(base_of(largest))
        verdict = f"R = {r:.2f} at {largest['archive']['papers']:,} papers: " + ("met." if r <= 1.3 else "not met.")
    grown = {f["target"]: f for f in sorted(figs + unfinished, key=lambda f: f["grow_wall"])}
    grow_rows = "; ".join(f"{f['archive']['papers']:,} papers: {f['copies']} copies, grown in {f['grow_wall'] / 60:.0f} min, "
                          f"{f['archive']['db_gib']:.1f} GiB" for _, f in sorted(grown.items()))
    commits = "; ".join(f"{code}: {', '.join(sorted({f['commit'] for f in figs + unfinished if f['code'] == code}))}"
                        for code in sorted({f["code"] for f in figs + unfinished}))
    body = "\n".join(f"- {x}" for x in lines) + "\n\nBar (issue 22): R <= 1.3 at 1,000,000 papers: " + verdict + "\n\n" + (
        f"The day: {day['date']} of the sandbox world (seed {base['seed']}, {base['per_day']} papers a day, shape "
        f"{base['shape']}), {day['records']:,} OAI records with {day['positions']:,} author positions, "
        + ("the same records on every archive" if same else "**not the same records on every archive**")
        + f". Base archive: the world's first {base['base_days'] - _days_before(base)} days "
        + _days_before_text(_days_before(base), "(THE day's eve run just before it, untimed: --after-a-day) ",
                            f"(the {_days_before(base)} days before THE day run just before it, untimed: --days-before) ")
        + f"({base['base']['papers']:,} papers, "
        f"{base['base']['positions']:,} positions) through the daily assets and one publish; grown by shifted copies "
        f"(bench/archive_copy.py: new ids, dates moved back past the enrichment look-back; names kept, every name "
        f"block holding copies + 1 times the base's mentions and researchers as twins, or, rows '{OTHER_PEOPLE[2:]}', "
        f"renamed by bench/archive_people.py: blocks about as big, filled by other people), then a full metrics run, a full publish "
        f"and VACUUM ANALYZE ({grow_rows}). Day = its partition's daily run (the daily assets but embeddings, with "
        f"their checks) + publish (researchers by profile -> researcher_metrics -> serving, with their checks); "
        f"per-step seconds from the runs' STEP_SUCCESS events; CPU: the bench process's and the PostgreSQL "
        f"server's CPU seconds during the day (less sensitive to the machine's load than wall time); 'positions "
        f"loaded': what the matching run read (the day's positions plus the representatives of the candidate "
        f"profiles).\n\n") + "\n".join(rows) + "\n\n" + (
        f"Commits ({commits}). 2 cores shared with other benches and their loads (the table's last column): "
        f"wall seconds swing with it, CPU seconds much less."
        + "".join(f" {f['archive']['papers']:,} papers: the day's {v['papers']:,} papers {v['papers_served']:,} served, "
                  f"{v['positions_linked']:,} of its {v['positions']:,} positions linked, {v['positions_served']:,} listed "
                  f"with their researcher on the papers' rows, {v['researcher_papers_rows']:,} researcher_papers rows."
                  for f in figs if (v := f["day"].get("served")))
        + "".join(f" {f['archive']['papers']:,} papers [{f['code']}]: of the day's {q['with_history']:,} positions whose "
                  f"person has papers in the base archive, B3-like recall {q['recall']:.4f} (the share of that person's "
                  f"base positions their researcher holds) and precision {q['precision']:.4f} (the share of their "
                  f"researcher's earlier positions that are that person's); {q['newcomers_apart']:,} of "
                  f"{q['newcomers']:,} newcomers kept apart (world truth)."
                  for f in figs if (q := f["day"].get("decisions")))
        + ("\n\n" + findings.strip() if findings.strip() else ""))
    if write:
        from bench.results import write_section

        sizes = " ".join(f"--papers {t}" for t in sorted({f["target"] for f in figs + unfinished}))
        write_section(SECTION_OTHER if other else SECTION, body,
                      command=f".venv/bin/python -m bench.bench_day_after {sizes}" + (" --people other" if other else ""))
    return body


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers", type=int, action="append")
    ap.add_argument("--per-day", type=int, default=820)
    ap.add_argument("--base-days", type=int, default=12)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--shape", default="realistic")
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--sample", action="store_true", help="sample the publish's Python stacks (figures in the JSON)")
    ap.add_argument("--rss-limit-gib", type=float, default=8.5, help="stop a day whose bench process passes this")
    ap.add_argument("--no-write", action="store_true", help="run the sizes, leave RESULTS.md as it is")
    ap.add_argument("--people", choices=("twins", "other"), default="twins",
                    help="the copies' people: the base's again (twins) or renamed (other: bench/archive_people.py)")
    ap.add_argument("--keep", action="store_true", help="grow each size's archive and keep it; no day")
    ap.add_argument("--day-on", type=Path, help="the day on the archive a --keep run left there (one --papers)")
    ap.add_argument("--cold", action="store_true", help="drop the kernel's page cache before each day (root)")
    ap.add_argument("--after-a-day", action="store_true",
                    help="grow one day short and run that day (untimed) right before THE day")
    ap.add_argument("--days-before", type=int, default=0,
                    help="grow K days short and run those days (untimed) right before THE day (1: --after-a-day)")
    ap.add_argument("--read-ahead-kb", type=int,
                    help="THE day with each disk's read-ahead at this many KiB (root), the days before it at the"
                         " machine's own; restored after")
    ap.add_argument("--override", action="store_true",
                    help="THE day also applies a forced split that the links break (a curator's correction)")
    args = ap.parse_args(argv)
    if args.day_on and len(args.papers or []) != 1:
        ap.error("--day-on takes the one --papers the archive was grown for")
    if args.after_a_day and args.days_before not in (0, 1):
        ap.error("--after-a-day is --days-before 1")
    days_before = args.days_before or int(args.after_a_day)
    if not args.report:
        for n in args.papers or [10_000]:
            try:
                run_size(n, args.per_day, args.seed, args.shape, args.base_days, args.sample, args.rss_limit_gib,
                         args.people, args.keep, args.day_on, args.cold, days_before, args.override,
                         args.read_ahead_kb)
            except KeyboardInterrupt:
                stopped = _figures_path(n, _code(args.people, days_before, args.override, args.read_ahead_kb))
                if not (stopped.exists() and json.loads(stopped.read_text()).get("status") == "stopped"):
                    raise
                print(f"[{n}] stopped; next size", flush=True)  # the memory guard: its figures are written
    if not args.no_write:
        print(report())


if __name__ == "__main__":
    main()
