"""The `wove` commands a consumer or operator types first, run in-process against real
PostgreSQL databases in four states: missing (a bad URL), empty (never migrated),
migrated but never published, and published (the small world, ROR ids stored bare as the
OpenAlex parser stores them). Whatever a person gets wrong ends in one clear line on
stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import json
import uuid

import psycopg
import pytest
from psycopg import sql

from wove_pipeline import cli
from wove_pipeline.core import db, metrics, serving

from .world_db import load_papers, load_static

from tests.conftest import TEMPLATE_DB, url_for


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
    serving.publish(urls["published"])
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
