import argparse
import json
from pathlib import Path

from wove_pipeline.cli import main
from wove_pipeline.cli.matching import add_matching_commands
from wove_pipeline.matching.evaluate import evaluate_s2and_dir, format_report, load_s2and

EXAMPLE = Path(__file__).resolve().parents[3] / "shared" / "matching-format"
if not EXAMPLE.exists():  # checkout layout: /work/main/tests/matching -> /work/shared
    EXAMPLE = Path("/work/shared/matching-format")


def test_load_s2and_example():
    mentions, gold = load_s2and(str(EXAMPLE))
    by = {m.mention_id: m for m in mentions}
    assert len(mentions) == 9 and set(gold) == {"0", "1", "2", "3", "4"}
    assert by["0"].name.full_given == "abdul"  # "Dr A'bdul": title and apostrophe dropped
    assert by["0"].orcid == "1" and by["1"].orcid is None and by["1"].s2_author_id == "1"
    assert by["4"].s2_author_id is None  # "Extracted" ids are names, not ids
    assert "r east" in by["4"].coauthor_keys and by["4"].year == 2001
    # full names beside the blocks ("Roop K. Goyal": the first given name only)
    assert sorted(by["4"].coauthor_names) == ["andrea rosso", "art haddad", "jay theodore", "mike tait",
                                              "roop goyal", "russell east"]
    assert by["0"].text.startswith("Teach graphics")


def test_evaluate_example_runs_and_respects_orcids():
    r = evaluate_s2and_dir(str(EXAMPLE))
    text = format_report(r)
    for label in ("matcher", "exact normalized name", "S2 author id alone", "OpenAlex author id alone"):
        assert label in text
    assert "hardest blocks" in text
    # signatures 0 and 2 carry different ORCIDs: never one cluster
    from wove_pipeline.matching import match_all
    mentions, _ = load_s2and(str(EXAMPLE))
    a = match_all(mentions)
    assert a.clusters["0"] != a.clusters["2"]


def test_names_affiliations_positions_only(tmp_path):
    """Real labelled data may come without papers.json: the matcher must still run."""
    sigs = json.loads((EXAMPLE / "signatures.json").read_text())
    for s in sigs.values():
        s.pop("sourced_author_ids", None)
        s.pop("sourced_author_source", None)
        s["author_info"]["email"] = None
    (tmp_path / "signatures.json").write_text(json.dumps(sigs))
    (tmp_path / "clusters.json").write_text((EXAMPLE / "clusters.json").read_text())
    r = evaluate_s2and_dir(str(tmp_path))
    assert r.n_mentions == 5 and 0 <= r.methods["matcher"]["b3"].f1 <= 1


def test_cli(capsys):
    assert main(["matching", "evaluate", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "B3 F1" in out and "matcher" in out
    parser = argparse.ArgumentParser(prog="wove")
    add_matching_commands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["matching", "evaluate", "--sandbox", "--seed", "3"])
    assert args.sandbox and args.seed == 3 and args.dirs == []
    assert main(["matching", "evaluate"]) == 2


def test_cli_sandbox_small(capsys):
    assert main(["matching", "evaluate", "--sandbox", "--seed", "5", "--papers-per-day", "40", "--days", "3"]) == 0
    out = capsys.readouterr().out
    assert "sandbox world seed=5" in out and "S2 author id alone" in out
