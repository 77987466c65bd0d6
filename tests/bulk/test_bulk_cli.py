"""`wove bulk`: the bulk backfill from the command line (the loading itself is proven equal to
the API path in test_bulk_formats.py)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from wove_pipeline.cli import main as wove_main
from wove_pipeline.sandbox.snapshots import write_snapshots


def test_wove_bulk_needs_a_bulk_product(capsys):
    with pytest.raises(SystemExit) as exit_:
        wove_main(["bulk"])
    assert exit_.value.code == 2
    assert "give --s2 and/or --openalex" in capsys.readouterr().err


def test_wove_bulk_loads_for_the_papers_held_and_says_what_it_did(database_url, small_world, tmp_path, monkeypatch,
                                                                   capsys):
    today = small_world.end_day + dt.timedelta(days=90)
    write_snapshots(small_world, tmp_path / "bulk", today, shard_size=100, part_size=100)
    monkeypatch.setenv("WOVE_DATABASE_URL", database_url)
    monkeypatch.setenv("WOVE_DATA_DIR", str(tmp_path / "raw"))
    # No paper harvested yet: nothing is wanted, nothing is loaded, and it says so.
    assert wove_main(["bulk", "--s2", str(tmp_path / "bulk" / "s2"), "--openalex", str(tmp_path / "bulk" / "openalex"),
                      "--snapshot-date", today.isoformat()]) == 0
    out = capsys.readouterr()
    summary = json.loads(out.out)
    assert summary["wanted"] == 0 and summary["s2_papers"] == 0 and summary["openalex_works"] == 0
    assert summary["s2_release"] == today.isoformat()
    assert "Semantic Scholar release" in out.err and "authorship alignment" in out.err
