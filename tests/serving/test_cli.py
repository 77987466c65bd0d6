"""The `wove` commands a consumer or operator types first, run in-process against real
PostgreSQL databases in four states: missing (a bad URL), empty (never migrated),
migrated but never published, and published (the small world, ROR ids stored bare as the
OpenAlex parser stores them). Whatever a person gets wrong ends in one clear line on
stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import json
import re
import uuid

import psycopg
import pytest
from psycopg import sql

from tests.conftest import TEMPLATE_DB, url_for
from wove_pipeline import cli
from wove_pipeline.database import access as db
from wove_pipeline.metrics import compute as metrics

from .world_db import load_papers, load_static, publish


@pytest.fixture(scope="module")
def dbs(pg_server, small_world):
    tag = uuid.uuid4().hex[:8]
    names = {"empty": f"t_cli_empty_{tag}", "migrated": f"t_cli_migrated_{tag}", "published": f"t_cli_pub_{tag}"}
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(names["empty"])))
        for state in ("migrated", "published"):
            conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(names[state]), sql.Identifier(TEMPLATE_DB)))
    urls = {state: url_for(pg_server.admin_url, name) for state, name in names.items()}
    urls["missing"] = url_for(pg_server.admin_url, f"t_cli_no_such_db_{tag}")
    with db.transaction(urls["published"]) as conn:
        load_static(conn, small_world)
        conn.execute("UPDATE wove.institutions SET ror = regexp_replace(ror, '^.*/', '') WHERE ror IS NOT NULL")
        load_papers(conn, small_world, small_world.papers)
        metrics.update_metrics(conn)
    publish(urls["published"])
    yield urls
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        for name in names.values():
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def wove(monkeypatch, capsys, url: str | None, *argv: str) -> tuple[int, str, str]:
    """`wove ARGV` in-process with WOVE_DATABASE_URL=url: (exit status, stdout, stderr)."""
    if url is not None:
        monkeypatch.setenv("WOVE_DATABASE_URL", url)
    capsys.readouterr()
    try:
        rc = cli.main(list(argv))
    except SystemExit as exc:  # argparse
        rc = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return rc, out, err


def _adobe(world):
    return next(i for i in world.institutions.values() if i.display_name == "Adobe Research")


def test_every_form_of_a_ror_id_resolves(dbs, small_world, monkeypatch, capsys):
    inst = _adobe(small_world)
    bare = inst.ror.rstrip("/").rsplit("/", 1)[1]
    forms = (bare, f"https://ror.org/{bare}", f"http://ror.org/{bare}/", f"ror.org/{bare}",
             f"HTTPS://ROR.ORG/{bare}", f"https://www.ror.org/{bare}", f" https://ror.org/{bare} ")
    with db.connect(dbs["published"]) as conn:
        for key in forms:
            # the data contract's example query
            rows = conn.execute("""
                SELECT i.institution_id, r.kind FROM serving.institution_routes r
                JOIN serving.institutions i USING (institution_id)
                WHERE r.route_key = serving.route_key(%s)""", (key,)).fetchall()
            assert rows == [(inst.institution_id, "ror")], key
        assert conn.execute("SELECT serving.route_key('https://ror.org/0denc8s44')").fetchone()[0] == "0denc8s44"
        # a name that merely contains ror.org is not cut
        assert conn.execute("SELECT serving.route_key('The ror.org  Project')").fetchone()[0] == "the ror.org project"
    rc, out, err = wove(monkeypatch, capsys, dbs["published"], "show", "institution", f"https://ror.org/{bare}")
    assert rc == 0, err
    page = json.loads(out)
    assert page["id"] == inst.institution_id and page["resolved_by"] == "ror"
    assert page["json_ld"][0]["sameAs"] == [f"https://ror.org/{bare}"]


# ---------------------------------------------------------------------------------------
# no tracebacks: the commands against each database state

def _one_clear_line(rc: int, err: str, *words: str, prefix: str = "wove ") -> None:
    assert rc != 0
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(prefix), err
    for w in words:
        assert w in lines[0], (w, lines[0])


def _read_commands(tmp_path):
    from wove_pipeline.sandbox.seed_fixtures import KNAPFORMER_ID, SEED_PENG_WANG_ID

    from .world_db import researcher_id

    return {
        "show paper": ("show", "paper", KNAPFORMER_ID),
        "show researcher": ("show", "researcher", str(researcher_id(SEED_PENG_WANG_ID))),
        "show institution": ("show", "institution", "Adobe Research"),
        "search papers": ("search", "graph", "--lexical-only"),
        "search researchers": ("search", "--researchers", "Peng Wang"),
        "search institutions": ("search", "--institutions", "Adobe"),
    }


# what each state answers: a word of the one line, or None for success (exit 0)
EXPECTED = {
    "missing": dict.fromkeys(("show paper", "show researcher", "show institution", "search papers",
                              "search researchers", "search institutions"), "cannot connect"),
    "empty": dict.fromkeys(("show paper", "show researcher", "show institution", "search papers",
                            "search researchers", "search institutions"), "not a wove database"),
    "migrated": {"show paper": "nothing is published", "show researcher": "nothing is published",
                 "show institution": "nothing is published", "search papers": None,
                 "search researchers": "not available yet", "search institutions": "not available yet"},
    "published": dict.fromkeys(("show paper", "show researcher", "show institution", "search papers",
                                "search researchers", "search institutions"), None),
}


@pytest.mark.parametrize("state", ["missing", "empty", "migrated", "published"])
def test_read_commands_in_every_database_state(state, dbs, tmp_path, monkeypatch, capsys):
    for name, argv in _read_commands(tmp_path).items():
        rc, out, err = wove(monkeypatch, capsys, dbs[state], *argv)
        want = EXPECTED[state][name]
        if want is None:
            assert rc == 0 and "Traceback" not in err, (name, err)
            assert out.strip(), name
        else:
            _one_clear_line(rc, err, want)
            assert out == "", name
    if state != "published":
        return
    rc, out, err = wove(monkeypatch, capsys, dbs[state], "show", "paper", "2501.99999")
    _one_clear_line(rc, err, "not found")


def test_backup_and_restore_mistakes(dbs, tmp_path, monkeypatch, capsys):
    rc, out, err = wove(monkeypatch, capsys, dbs["missing"], "backup", str(tmp_path / "a.dump"))
    _one_clear_line(rc, err, "no backup written", "does not exist")
    (tmp_path / "file").write_text("x")
    rc, out, err = wove(monkeypatch, capsys, dbs["migrated"], "backup", str(tmp_path / "file" / "b.dump"))
    _one_clear_line(rc, err, "no backup written")
    good = tmp_path / "good.dump"
    rc, out, err = wove(monkeypatch, capsys, dbs["migrated"], "backup", str(good))
    assert rc == 0 and good.is_file(), err
    bad = tmp_path / "bad.dump"
    bad.write_bytes(b"PGDMP this is not a backup\n" * 10)
    for argv, words in (
        (("restore", str(bad)), ("not restored", "bad.dump")),
        (("restore", str(tmp_path / "absent.dump")), ("not restored", "no backup file")),
        (("restore", str(good), "--into", "postgresql://wove@127.0.0.1:1/nowhere"), ("not restored",)),
    ):
        rc, out, err = wove(monkeypatch, capsys, dbs["migrated"], *argv)
        _one_clear_line(rc, err, *words)


def test_matching_evaluate_with_a_bad_directory(tmp_path, monkeypatch, capsys):
    # the matching command words its own messages; whatever they say, one line and no traceback
    rc, out, err = wove(monkeypatch, capsys, None, "matching", "evaluate", str(tmp_path / "absent"))
    _one_clear_line(rc, err, "signatures.json", prefix="")
    (tmp_path / "signatures.json").write_text("{not json")
    rc, out, err = wove(monkeypatch, capsys, None, "matching", "evaluate", str(tmp_path))
    _one_clear_line(rc, err, "JSON", prefix="")


def test_the_real_process_prints_no_traceback(dbs):
    import os
    import subprocess
    import sys

    env = {**os.environ, "WOVE_DATABASE_URL": dbs["migrated"]}
    env.pop("WOVE_DEBUG", None)
    proc = subprocess.run([sys.executable, "-m", "wove_pipeline.cli", "show", "researcher", "1"],
                          env=env, capture_output=True, text=True, timeout=120)
    _one_clear_line(proc.returncode, proc.stderr, "nothing is published")


# ---------------------------------------------------------------------------------------
# the commands' quirks: a query starting with '-', --related with a query, help texts

def test_a_query_may_start_with_an_excluded_word(dbs, monkeypatch, capsys):
    from wove_pipeline.cli.search import parse_search_args
    parser = cli.build_parser()
    assert parse_search_args(parser, ["search", "-graph"]).query == "-graph"
    args = parse_search_args(parser, ["search", "-graph", "networks", "--limit", "3", "-survey"])
    assert (args.query, args.limit) == ("-graph networks -survey", 3)
    assert parse_search_args(parser, ["search", "--", "-graph"]).query == "-graph"
    rc, out, err = wove(monkeypatch, capsys, dbs["published"], "search", "-zzzqqq", "learning", "--lexical-only")
    assert rc == 0 and "error" not in err, err
    assert out.startswith("#") and len(out.splitlines()) > 1  # results, the excluded word excluded nothing
    rc, out, err = wove(monkeypatch, capsys, dbs["published"], "search", "--limt", "3", "learning")
    assert rc == 2 and "unrecognized arguments: --limt" in err  # a mistyped option is still an error


def test_related_takes_no_query_and_says_not_found(dbs, monkeypatch, capsys):
    from wove_pipeline.sandbox.seed_fixtures import KNAPFORMER_ID
    url = dbs["published"]
    rc, out, err = wove(monkeypatch, capsys, url, "search", "--related", KNAPFORMER_ID, "graph")
    assert rc == 2 and "takes no QUERY" in err and out == ""
    rc, out, err = wove(monkeypatch, capsys, url, "search", "--researchers", "Peng Wang", "--category", "cs.LG")
    assert rc == 2 and "--category filter paper search only" in err
    rc, out, err = wove(monkeypatch, capsys, url, "search", "--related", "2501.99999")
    _one_clear_line(rc, err, "not found")
    assert "no results" not in out
    rc, out, err = wove(monkeypatch, capsys, url, "search", "--related", KNAPFORMER_ID)  # no embeddings loaded
    _one_clear_line(rc, err, "has no embedding yet")
    rc, out, err = wove(monkeypatch, capsys, url, "search", "graph", "--limit", "201")
    assert rc == 2 and "between 1 and 200" in err


def _subcommands(parser):
    import argparse

    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


def test_every_option_has_help_and_the_limits_show(monkeypatch, capsys):
    parser = cli.build_parser()
    for name, sub in _subcommands(parser).items():
        if name in ("sandbox", "matching"):  # sandbox: its own parser, below; matching: its module's
            continue
        for action in sub._actions:
            if action.dest != "help":
                assert action.help, (name, action.dest)
    assert "1 to 200" in _subcommands(parser)["search"].format_help()
    rc, out, err = wove(monkeypatch, capsys, None, "sandbox", "--help")
    assert rc == 0 and "--port" in out and "--papers-per-day" in out and "--refuse-field" in out
    rc, out, err = wove(monkeypatch, capsys, None, "--version")
    from importlib.metadata import version

    assert rc == 0 and out.strip() == f"wove {version('wove-pipeline')}"


def test_researcher_payload_has_one_redirect_field(dbs, monkeypatch, capsys):
    from wove_pipeline.sandbox.seed_fixtures import SEED_PENG_WANG_ID

    from .world_db import researcher_id

    rid = researcher_id(SEED_PENG_WANG_ID)
    for key, redirect in ((str(rid), True), (f"{rid}-peng-wang", False), (f"{rid}-old-name", True)):
        rc, out, err = wove(monkeypatch, capsys, dbs["published"], "show", "researcher", key)
        assert rc == 0, err
        page = json.loads(out)
        assert "redirected" not in page and page["redirect"] is redirect and page["requested_id"] == key, key


def test_same_named_researchers_are_told_apart(dbs, monkeypatch, capsys):
    rc, out, err = wove(monkeypatch, capsys, dbs["published"], "search", "--researchers", "Peng Wang", "--limit", "50")
    assert rc == 0, err
    lines = out.splitlines()
    assert "papers · field · institution" in lines[0]
    same = [line for line in lines[1:] if line.endswith("  Peng Wang")]
    assert len(same) >= 3
    extras = [line.split("  ")[3:] for line in same]  # the columns between similarity and the name
    assert all(re.match(r"\d+ papers? · ", " ".join(e).strip()) for e in extras), extras
    assert not re.search(r"\b1 papers", out)
    assert len({" ".join(e) for e in extras}) > 1  # not all alike: something tells them apart
