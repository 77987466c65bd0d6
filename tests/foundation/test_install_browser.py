"""`make test` on a fresh machine installs the browser test's Chromium itself.

scripts/install-browser.sh is run for real with a fake ``apt-get`` first on PATH (the
fake records its arguments and "installs" the browser by creating the file), so the test
checks what the script would do on a fresh Debian machine without touching this one.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPT = REPO_ROOT / "scripts" / "install-browser.sh"

FAKE_APT = """#!/bin/sh
echo "$DEBIAN_FRONTEND $*" >> "$APT_LOG"
case "$1" in install) printf '#!/bin/sh\\n' > "$WOVE_CHROMIUM"; chmod +x "$WOVE_CHROMIUM";; esac
"""


def _run(tmp_path: Path, chromium: Path, **extra: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    apt = bindir / "apt-get"
    apt.write_text(FAKE_APT)
    apt.chmod(0o755)
    log = tmp_path / "apt.log"
    env = {k: v for k, v in os.environ.items() if k not in ("WOVE_SKIP_BROWSER", "DEBIAN_FRONTEND")}
    env.update(PATH=f"{bindir}:{env['PATH']}", APT_LOG=str(log), WOVE_CHROMIUM=str(chromium), **extra)
    proc = subprocess.run([str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)
    return proc, (log.read_text().splitlines() if log.exists() else [])


def test_installs_chromium_with_apt_get_when_missing(tmp_path):
    if os.geteuid() != 0:
        import pytest

        pytest.skip("the install path runs apt-get as root; this test runs it through a fake apt-get as root")
    chromium = tmp_path / "chromium"
    proc, calls = _run(tmp_path, chromium)
    assert proc.returncode == 0, proc.stderr
    assert "update" in calls[0].split()
    assert calls[1].split() == [
        "noninteractive", "install", "-y", "-q", "--no-install-recommends", "chromium", "chromium-driver"
    ]
    assert os.access(chromium, os.X_OK)
    # Idempotent: the second run finds the browser and calls nothing.
    proc, calls_after = _run(tmp_path, chromium)
    assert proc.returncode == 0 and calls_after == calls


def test_no_op_when_present_or_skipped(tmp_path):
    chromium = tmp_path / "chromium"
    chromium.write_text("#!/bin/sh\n")
    chromium.chmod(0o755)
    proc, calls = _run(tmp_path, chromium)
    assert proc.returncode == 0 and calls == []
    proc, calls = _run(tmp_path, tmp_path / "absent", WOVE_SKIP_BROWSER="1")
    assert proc.returncode == 0 and calls == []


def test_make_test_and_ci_run_call_the_script():
    # `make -n` prints the recipe without running it; the install comes before pytest.
    out = subprocess.run(
        ["make", "-n", "test"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60
    ).stdout.splitlines()
    recipe = [line.strip() for line in out]
    install = recipe.index("scripts/install-browser.sh")
    pytest_line = next(i for i, line in enumerate(recipe) if "bin/pytest" in line)
    assert install < pytest_line
    ci = (REPO_ROOT / ".ci" / "run").read_text()
    assert "scripts/install-browser.sh" in ci and "make test" in ci
    assert "WOVE_SKIP_BROWSER" not in ci  # CI keeps running the browser test
