"""Write one benchmark's section of bench/RESULTS.md (between markers), with the command,
the machine and the date, leaving every other section as it is."""

from __future__ import annotations

import datetime as dt
import os
import platform
import re
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
HEADER = "# Benchmark results\n\nEach section is rewritten by the script named in it. Figures are from one run.\n"


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(next(l for l in Path("/proc/meminfo").read_text().splitlines() if l.startswith("MemTotal")).split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, StopIteration):
        pass
    return f"{os.cpu_count()} cores ({cpu}){mem}, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def write_section(name: str, body: str, command: str | None = None) -> None:
    command = command or "python " + " ".join(sys.argv)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    block = (
        f"<!-- section:{name} -->\n## {name}\n\n"
        f"- command: `{command}`\n- machine: {machine()}\n- date: {stamp}\n\n{body.strip()}\n"
        f"<!-- /section:{name} -->\n"
    )
    text = RESULTS.read_text() if RESULTS.exists() else HEADER
    pattern = re.compile(rf"<!-- section:{re.escape(name)} -->.*?<!-- /section:{re.escape(name)} -->\n", re.S)
    text = pattern.sub(lambda _: block, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + block
    RESULTS.write_text(text)


def report(name: str, text: str, command: str, *, write: bool = True) -> None:
    """Print a benchmark's section and, unless ``write`` is off (--no-write), write it."""
    print(text)
    if write:
        write_section(name, text, command)
