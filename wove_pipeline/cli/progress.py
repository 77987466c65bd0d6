"""Progress a person can follow on long work: one line per stage, with counts and seconds.

Every line goes to **stderr** (stdout stays for results: the demo's summary, the bulk load's
JSON), prefixed by the seconds since the work began:

    [  0.4 s] harvest     arxiv_records ...
    [  2.1 s] harvest     arxiv_records: 412 records (2 days) in 1.7 s

``Progress`` prints lines; ``watch_run`` follows a Dagster run's event log from a thread
while the run executes in process (``runner.run_days``), printing a line when a step starts
and one with its figures when it ends; asset checks get one line for the whole run.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from typing import TextIO

# Which stage each asset belongs to, and what its figure counts. A figure is the sum of
# ``keys[0]`` over the step's materializations (one per day), or a run_* key's value once.
STAGES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "arxiv_records": ("harvest", "records", ("dagster/row_count", "run_row_count")),
    "papers": ("harvest", "papers", ("dagster/row_count", "run_row_count")),
    "s2_papers": ("enrichment", "papers found in Semantic Scholar", ("dagster/row_count", "run_row_count")),
    "openalex_works": ("enrichment", "works found in OpenAlex", ("dagster/row_count", "run_row_count")),
    "s2_authors": ("enrichment", "authors", ("dagster/row_count", "run_row_count")),
    "openalex_authors": ("enrichment", "authors", ("dagster/row_count", "run_row_count")),
    "institutions": ("enrichment", "institutions", ("dagster/row_count", "run_row_count")),
    "authorships": ("enrichment", "authorships", ("dagster/row_count", "run_row_count")),
    "paper_embeddings": ("embedding", "texts embedded", ("embedded", "run_embedded")),
    "researchers": ("matching", "researchers", ("dagster/row_count", "run_row_count")),
    "researcher_metrics": ("metrics", "researchers", ("dagster/row_count", "run_row_count")),
    "serving": ("publish", "papers published", ("dagster/row_count", "run_row_count")),
}
DEFAULT_STAGE = ("enrichment", "rows", ("dagster/row_count", "run_row_count"))
POLL_S = 0.5


class Progress:
    """Prints ``[elapsed] stage  text`` lines (stderr by default), flushed at once."""

    def __init__(self, stream: TextIO | None = None, *, start: float | None = None):
        self.stream = stream
        self.start = time.monotonic() if start is None else start

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def line(self, stage: str, text: str) -> None:
        stream = self.stream or sys.stderr
        print(f"[{self.elapsed():6.1f} s] {stage:<11} {text}", file=stream, flush=True)

    @contextlib.contextmanager
    def stage(self, stage: str, what: str) -> Iterator[dict]:
        """``with progress.stage("enrichment", "S2 release") as done: ...; done["text"] = "..."``:
        a line when it starts and one with ``done["text"]`` (or "done") and its seconds at the end."""
        self.line(stage, f"{what} ...")
        t0 = time.monotonic()
        done: dict = {}
        try:
            yield done
        except BaseException:
            self.line(stage, f"{what}: failed after {time.monotonic() - t0:.1f} s")
            raise
        self.line(stage, f"{what}: {done.get('text', 'done')} in {time.monotonic() - t0:.1f} s")


def stage_of(asset: str) -> tuple[str, str, tuple[str, ...]]:
    return STAGES.get(asset, DEFAULT_STAGE)


def _figure(asset: str, materializations: list[dict]) -> str | None:
    """'412 records (2 days)' from a step's materializations of one asset."""
    _, unit, (plain, run_key) = stage_of(asset)
    values = [m[plain] for m in materializations if isinstance(m.get(plain), (int, float))]
    run_values = [m[run_key] for m in materializations if isinstance(m.get(run_key), (int, float))]
    if values:
        total = sum(values)
    elif run_values:
        total = run_values[0]  # the run's figure, on every day's materialization alike
    else:
        return None
    days = len(materializations)
    return f"{int(total):,} {unit}" + (f" ({days} days)" if days > 1 else "")


def _metadata_numbers(event) -> dict:
    out = {}
    for key, value in (event.step_materialization_data.materialization.metadata or {}).items():
        raw = getattr(value, "value", value)
        if isinstance(raw, (int, float)) and not isinstance(raw, bool):
            out[key] = raw
    return out


class RunWatcher:
    """Follows one run's event log (by run id) and prints its steps as they start and end."""

    def __init__(self, instance, run_id: str, progress: Progress, check_steps: set[str] = frozenset()):
        self.instance = instance
        self.check_steps = set(check_steps)  # steps that only evaluate asset checks: one line for all
        self._checks: list[tuple[str, bool, str]] = []  # (check, passed, severity)
        self.run_id = run_id
        self.progress = progress
        self._cursor = None
        self._failed = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"progress-{run_id[:8]}", daemon=True)
        self._started: dict[str, float] = {}
        self._materialized: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))

    def __enter__(self) -> "RunWatcher":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=30)
        self._poll_quietly()  # whatever the last interval left
        if self._checks:
            failed = [f"{name} ({severity})" for name, passed, severity in self._checks if not passed]
            text = f"{len(self._checks) - len(failed)} of {len(self._checks)} asset checks passed"
            self.progress.line("checks", text + (f"; not passed: {', '.join(failed)}" if failed else ""))

    def _loop(self) -> None:
        while not self._stop.wait(POLL_S):
            self._poll_quietly()

    def _poll_quietly(self) -> None:
        """Progress never fails the work it follows: a failed poll is said once, then retried."""
        try:
            self.poll()
        except Exception as exc:
            if not self._failed:
                self._failed = True
                self.progress.line("progress", f"cannot follow the run's events: {type(exc).__name__}: {exc}")

    def poll(self) -> None:
        from dagster import DagsterEventType

        kinds = {DagsterEventType.STEP_START, DagsterEventType.STEP_SUCCESS, DagsterEventType.STEP_FAILURE,
                 DagsterEventType.ASSET_MATERIALIZATION, DagsterEventType.ASSET_CHECK_EVALUATION}
        while True:
            conn = self.instance.get_records_for_run(self.run_id, cursor=self._cursor, of_type=kinds, limit=500)
            for record in conn.records:
                self._handle(record.event_log_entry)
            self._cursor = conn.cursor
            if not conn.has_more:
                return

    def _handle(self, entry) -> None:
        from dagster import DagsterEventType

        event = entry.dagster_event
        if event is None or event.step_key is None:
            return
        step = event.step_key
        if event.event_type == DagsterEventType.ASSET_CHECK_EVALUATION:
            data = event.asset_check_evaluation_data
            self._checks.append((data.check_name, bool(data.passed), getattr(data.severity, "value", "")))
            return
        if step in self.check_steps:
            if event.event_type == DagsterEventType.STEP_FAILURE:
                self.progress.line("checks", f"{step}: failed")
            return
        if event.event_type == DagsterEventType.STEP_START:
            self._started[step] = entry.timestamp
            self.progress.line(stage_of(step)[0], f"{step} ...")
        elif event.event_type == DagsterEventType.ASSET_MATERIALIZATION:
            asset = event.asset_key.path[-1]
            self._materialized[step][asset].append(_metadata_numbers(event))
        else:
            seconds = entry.timestamp - self._started.get(step, entry.timestamp)
            assets = self._materialized.pop(step, {})
            if event.event_type == DagsterEventType.STEP_FAILURE:
                self.progress.line(stage_of(step)[0], f"{step}: failed after {seconds:.1f} s")
                return
            figures = [f"{asset}: {fig}" for asset, mats in assets.items() if (fig := _figure(asset, mats))]
            text = "; ".join(figures) if figures else f"{step}: done"
            self.progress.line(stage_of(next(iter(assets), step))[0], f"{text} in {seconds:.1f} s")
