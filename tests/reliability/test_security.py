"""Security: the consumer role only reads serving; API keys appear nowhere; SQL is parameterized."""

from __future__ import annotations

import ast
import logging
import uuid
from pathlib import Path

import dagster as dg
import psycopg
import pyarrow.parquet as pq
import pytest
from psycopg import sql

from wove_pipeline.serving import publish as serving
from wove_pipeline.upstream.raw_store import RawStore

from .conftest import harvest_and_load, world_days

ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------------------
# the consumer role


@pytest.fixture
def reader_url(database_url, sandbox, small_world, tmp_path):
    harvest_and_load(database_url, sandbox, RawStore(tmp_path / "raw"), world_days(small_world)[:1])
    with psycopg.connect(database_url, autocommit=True) as conn:
        serving.publish(conn)
    name = f"reader_{uuid.uuid4().hex[:8]}"
    password = uuid.uuid4().hex  # the embedded server asks every login for its password
    with psycopg.connect(database_url, autocommit=True) as conn:
        serving.create_reader_login(conn, name, password)
    head, _, query = database_url.partition("?")
    scheme, rest = head.split("://", 1)
    url = f"{scheme}://{name}:{password}@{rest.split('@', 1)[1]}" + (f"?{query}" if query else "")
    yield url
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(name)))
        conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(name)))


DENIED = [
    "INSERT INTO serving.papers (arxiv_id) VALUES ('x')",
    "UPDATE serving.papers SET arxiv_id = arxiv_id",
    "DELETE FROM serving.papers",
    "TRUNCATE serving.papers",
    "CREATE TABLE serving.evil (x int)",
    "CREATE VIEW serving.evil AS SELECT 1",
    "DROP TABLE serving.papers",
    "ALTER TABLE serving.papers ADD COLUMN evil int",
    "SELECT count(*) FROM wove.papers",
    "INSERT INTO wove.quarantine (source, partition_key, reason, payload) VALUES ('x','x','x','x')",
    "DELETE FROM wove.papers",
    "CREATE SCHEMA evil",
    "CREATE TABLE public.evil (x int)",
    "COPY serving.papers FROM STDIN",
    "CREATE ROLE evil",
]


def test_consumer_role_reads_serving_and_cannot_write_anything(reader_url, figures):
    with psycopg.connect(reader_url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM serving.papers").fetchone()[0] > 0
        assert conn.execute("SELECT count(*) FROM serving.publication").fetchone()[0] == 1
        for statement in DENIED:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
        assert conn.execute("SELECT current_setting('is_superuser')").fetchone()[0] == "off"
    figures.bad_inputs["consumer_write_attempts"] += len(DENIED)


# --------------------------------------------------------------------------------------
# API keys appear nowhere

S2_KEY = "s2key-" + "Qz7" * 6 + "-sekret"
OA_KEY = "oakey-" + "Jx4" * 6 + "-sekret"
KEYS = (S2_KEY, OA_KEY)


def _leaks(text: str) -> list[str]:
    return [k for k in KEYS if k in text]


def test_api_keys_reach_no_log_metadata_raw_file_table_or_exception(database_url, small_world, tmp_path, caplog,
                                                                    monkeypatch, figures):
    import datetime as dt

    from wove_pipeline.enrichment import assets as ea
    from wove_pipeline.resources import DatabaseResource, RawStoreResource
    from wove_pipeline.resources.enrichment import OpenAlexResource, SemanticScholarResource
    from wove_pipeline.sandbox.arxiv_oai import ArxivOaiEndpoint
    from wove_pipeline.sandbox.openalex import OpenAlexEndpoint
    from wove_pipeline.sandbox.semantic_scholar import SemanticScholarEndpoint
    from wove_pipeline.sandbox.server import FaultPlan, SandboxServer
    monkeypatch.setenv("S2_API_KEY", S2_KEY)
    monkeypatch.setenv("OPENALEX_API_KEY", OA_KEY)
    caplog.set_level(logging.DEBUG)  # everything any logger says, httpx included
    server = SandboxServer(small_world, endpoints=[
        ArxivOaiEndpoint(small_world), SemanticScholarEndpoint(small_world, api_key=S2_KEY),
        OpenAlexEndpoint(small_world, require_api_key=OA_KEY)],
        today=small_world.end_day + dt.timedelta(days=90)).start()
    raw = tmp_path / "raw"
    days = world_days(small_world)[:2]
    texts: list[str] = []
    try:
        harvest_and_load(database_url, server, RawStore(raw), days)
        fast = dict(min_interval_s=0, retry_attempts=4, backoff_initial_s=0.001, backoff_max_s=0.002, timeout_s=0.3)
        resources = {
            "database": DatabaseResource(url=database_url), "raw_store": RawStoreResource(root=str(raw)),
            # keys from the environment at run time (api_key unset), as definitions.py binds them
            "s2": SemanticScholarResource(base_url=server.url_for("s2"), **fast),
            "openalex": OpenAlexResource(base_url=server.url_for("openalex"), daily_budget_usd=None, **fast),
        }
        plan = FaultPlan(rate_429=0.1, rate_500=0.1, rate_timeout=0.05, rate_truncate=0.05, timeout_seconds=0.5,
                         retry_after=0, seed=5)
        server.set_faults("s2", plan)
        server.set_faults("openalex", plan)
        instance = dg.DagsterInstance.ephemeral()
        ok = dg.materialize(ea.daily_enrichment_assets, partition_key=days[0].isoformat(), resources=resources,
                            instance=instance)
        assert ok.success
        # ...and fetches that fail: every request errors until retries run out (exception texts).
        # (Called below Dagster: the assets' RetryPolicy would wait minutes between attempts.)
        import traceback

        from wove_pipeline.database import access as db
        from wove_pipeline.openalex.fetch import fetch_openalex_works
        from wove_pipeline.partitions import DayRange
        from wove_pipeline.semantic_scholar.fetch import fetch_s2_papers
        from wove_pipeline.upstream.http import UpstreamError
        server.set_faults("s2", FaultPlan(rate_500=1.0))
        server.set_faults("openalex", FaultPlan(rate_500=1.0))
        for resource, fetch in ((resources["s2"], fetch_s2_papers), (resources["openalex"], fetch_openalex_works)):
            with resource.client() as client, db.connect(database_url, autocommit=True) as conn, \
                    pytest.raises(UpstreamError) as failure:
                fetch(conn, client, RawStore(raw), DayRange.day(days[1]))
            texts.extend([str(failure.value), repr(failure.value), "".join(traceback.format_exception(failure.value))])
        # a wrong key: the 401/403 answer's error names the request URL
        server.set_faults("s2", None)
        server.set_faults("openalex", None)
        monkeypatch.setenv("OPENALEX_API_KEY", OA_KEY[::-1])  # the reversed key is secret material too
        with resources["openalex"].client() as client, db.connect(database_url, autocommit=True) as conn:
            try:
                fetch_openalex_works(conn, client, RawStore(raw), DayRange.day(days[1]))
            except Exception as exc:  # noqa: BLE001 - whatever it is, its text must not leak
                texts.extend([str(exc), repr(exc), "".join(traceback.format_exception(exc))])
        for run in (ok,):
            for record in instance.all_logs(run.run_id):
                texts.append(repr(record))
                if record.dagster_event is not None:
                    texts.append(repr(record.dagster_event.event_specific_data))
        for mat in ok.get_asset_materialization_events():
            texts.append(repr(mat.materialization.metadata))
        figures.add_faults(server)
    finally:
        server.stop()
    texts.append(caplog.text)
    texts.extend(repr(r.__dict__) for r in caplog.records)
    # raw Parquet: every column of every file, decoded (the files are compressed)
    files = [p for p in raw.rglob("*") if p.is_file()]
    assert any("s2_papers" in str(p) for p in files) and any("openalex_works" in str(p) for p in files)
    for path in files:
        if path.suffix == ".parquet":
            table = pq.read_table(path)
            for column in table.column_names:
                texts.extend(v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
                             for v in table.column(column).to_pylist())
        else:
            texts.append(path.read_bytes().decode("utf-8", "replace"))
    # every table in the database, as text
    with psycopg.connect(database_url) as conn:
        for schema, name in conn.execute("SELECT table_schema, table_name FROM information_schema.tables"
                                         " WHERE table_schema IN ('wove', 'serving')").fetchall():
            rows = conn.execute(sql.SQL("SELECT t::text FROM {} t").format(sql.Identifier(schema, name))).fetchall()
            texts.extend(r[0] for r in rows)
    assert len(texts) > 1000
    leaks = [t[:300] for t in texts if _leaks(t) or OA_KEY[::-1] in t]
    assert not leaks, leaks[:3]
    figures.bad_inputs["secret_scan_texts"] += len(texts)


# --------------------------------------------------------------------------------------
# every SQL statement is parameterized (static scan)

SQL_SINKS = {"execute", "executemany", "copy", "fetch_all", "fetch_value", "SQL"}
SQL_START = ("select ", "insert ", "update ", "delete ", "with ", "create ", "drop ", "alter ", "copy ",
             "truncate ", "grant ", "set ", "comment ", "do ")


def _is_code_constant(node: ast.AST, constants: set[str]) -> bool:
    """A value that comes from code, not data: a literal, an UPPER_CASE constant, an attribute
    of one, a local bound only to such values, or an if/else over them."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id.isupper() or node.id in constants
    if isinstance(node, ast.Attribute):
        return node.attr.isupper() or _is_code_constant(node.value, constants)
    if isinstance(node, ast.IfExp):
        return _is_code_constant(node.body, constants) and _is_code_constant(node.orelse, constants)
    if isinstance(node, ast.JoinedStr):
        return all(_is_code_constant(v.value, constants) for v in node.values if isinstance(v, ast.FormattedValue))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _is_code_constant(node.left, constants) and _is_code_constant(node.right, constants)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("items", "values", "keys", "join")):
        return _is_code_constant(node.func.value, constants) and all(_is_code_constant(a, constants)
                                                                     for a in node.args)
    return False


def _local_constants(func: ast.AST, proven: frozenset[str] = frozenset()) -> set[str]:
    """Locals every assignment of which is a code constant (e.g. kind = "PROCEDURE" if ... else
    "FUNCTION", or loop variables over a constant table), plus `proven` parameters."""
    assigned: dict[str, list[ast.AST]] = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).append(node.value)
        elif isinstance(node, (ast.For, ast.comprehension)):
            for target in ast.walk(node.target):
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).append(node.iter)
    constants: set[str] = set(proven)
    changed = True
    while changed:
        changed = False
        for name, values in assigned.items():
            if name not in constants and all(
                    _is_code_constant(v, constants) or (isinstance(v, (ast.Tuple, ast.List)) and all(
                        _is_code_constant(e, constants) for e in v.elts)) for v in values):
                constants.add(name)
                changed = True
    return constants


def _looks_like_sql(node: ast.AST) -> bool:
    parts = []
    if isinstance(node, ast.JoinedStr):
        parts = [v.value for v in node.values if isinstance(v, ast.Constant)]
    elif isinstance(node, ast.BinOp):
        parts = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Constant):
        parts = [node.func.value.value]
    text = " ".join(str(p) for p in parts).strip().lower()
    return text.startswith(SQL_START) or " from " in text or " where " in text


def proven_parameters(sources: list[str]) -> dict[str, frozenset[str]]:
    """function name -> parameters that every call site in `sources` passes a code constant
    (a table name written at the call, say). Such a parameter may be interpolated as an
    identifier; one call site passing data and it may not."""
    trees = [ast.parse(src) for src in sources]
    params: dict[str, list[str]] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                params[node.name] = [a.arg for a in node.args.args + node.args.kwonlyargs]
    ok: dict[str, set[str]] = {name: set(p) for name, p in params.items()}
    called: set[str] = set()
    for tree in trees:
        for caller in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
            constants = _local_constants(caller)
            for call in [n for n in ast.walk(caller) if isinstance(n, ast.Call)]:
                name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
                if name not in params:
                    continue
                called.add(name)
                names = params[name]
                offset = 1 if names and names[0] in ("self", "cls") and isinstance(call.func, ast.Attribute) else 0
                passed = {names[i + offset]: a for i, a in enumerate(call.args) if i + offset < len(names)}
                passed.update({k.arg: k.value for k in call.keywords if k.arg})
                for param in list(ok[name]):
                    if param not in passed or not _is_code_constant(passed[param], constants):
                        ok[name].discard(param)
    return {name: frozenset(p) for name, p in ok.items() if name in called}


# Reviewed by hand: (file, function) -> why the text it puts into SQL is not data.
REVIEWED = {
    ("wove_pipeline/serving/publish.py", "_move_foreign_objects"):
        "regprocedure::text read from pg_catalog: PostgreSQL's own quoted rendering of a function signature",
    # The serving definitions: SQL text and table names from this module's constants (_TABLES,
    # _KEY_SETS, SCHEMA/BUILD_SCHEMA, fixed temp-table prefixes); no value read from data.
    ("wove_pipeline/serving/publish.py", "build_tables"): "statements of the constant _TABLES/_FUNCTIONS/_VIEWS",
    ("wove_pipeline/serving/publish.py", "_make_key_set"): "a key set of the constant _KEY_SETS, by its name",
    ("wove_pipeline/serving/publish.py", "_apply"): "a table of the constant _TABLES: its name, key columns and SQL",
}


def unsafe_sql(source: str, filename: str = "<src>", proven: dict[str, frozenset[str]] | None = None) -> list[str]:
    """SQL text built from data: an f-string, %-format, + concatenation or str.format() passed
    to execute()/fetch_*()/copy()/sql.SQL(), directly or through a local variable, whose
    interpolated values are not code constants. psycopg.sql composition is the allowed way."""
    tree = ast.parse(source, filename)
    problems = []
    proven = proven or {}
    for func in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module))]:
        if (filename, getattr(func, "name", "")) in REVIEWED:
            continue
        constants = _local_constants(func, proven.get(getattr(func, "name", ""), frozenset()))
        nested = {id(n) for inner in ast.walk(func) if inner is not func
                  and isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in ast.walk(inner)}
        built: dict[str, ast.AST] = {}
        for node in ast.walk(func):
            if id(node) in nested:
                continue  # judged with its own function's locals
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                built[node.targets[0].id] = node.value
        for node in ast.walk(func):
            if id(node) in nested or not (isinstance(node, ast.Call) and node.args):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name not in SQL_SINKS:
                continue
            query = node.args[0] if name not in ("fetch_all", "fetch_value") or len(node.args) < 2 else node.args[1]
            if isinstance(query, ast.Name) and query.id in built:
                query = built[query.id]
            bad = False
            if isinstance(query, ast.JoinedStr):
                bad = not _is_code_constant(query, constants)
            elif isinstance(query, ast.BinOp) and isinstance(query.op, ast.Mod):
                bad = isinstance(query.left, (ast.Constant, ast.JoinedStr))
            elif isinstance(query, ast.BinOp) and isinstance(query.op, ast.Add):
                bad = not _is_code_constant(query, constants) and _looks_like_sql(query)
            elif (isinstance(query, ast.Call) and isinstance(query.func, ast.Attribute)
                  and query.func.attr == "format" and isinstance(query.func.value, (ast.Constant, ast.JoinedStr))):
                bad = True
            if bad and (_looks_like_sql(query) or name == "SQL" or name in ("execute", "executemany")):
                problems.append(f"{filename}:{node.lineno}: {ast.unparse(query)[:120]}")
    return sorted(set(problems))


def test_no_sql_is_built_from_data_in_the_code_base(figures):
    files = [p for p in sorted((ROOT / "wove_pipeline").rglob("*.py")) if "sandbox" not in p.parts]
    sources = {p: p.read_text() for p in files}  # (the sandbox speaks HTTP, not SQL)
    proven = proven_parameters(list(sources.values()))
    problems = []
    for path, source in sources.items():
        problems += unsafe_sql(source, str(path.relative_to(ROOT)), proven)
    assert not problems, "\n".join(problems)
    figures.bad_inputs["source_files_scanned_for_sql"] += len(files)


PLANTED = [
    'def f(conn, arxiv_id):\n    conn.execute(f"SELECT * FROM wove.papers WHERE arxiv_id = \'{arxiv_id}\'")\n',
    'def f(conn, arxiv_id):\n    conn.execute("SELECT * FROM wove.papers WHERE arxiv_id = \'%s\'" % arxiv_id)\n',
    'def f(conn, arxiv_id):\n    conn.execute("DELETE FROM wove.papers WHERE arxiv_id = \'" + arxiv_id + "\'")\n',
    'def f(conn, name):\n    conn.execute("SELECT * FROM wove.papers WHERE title = \'{}\'".format(name))\n',
    'def f(conn, name):\n    q = f"SELECT * FROM wove.papers WHERE title = \'{name}\'"\n    conn.execute(q)\n',
    'def f(conn, table):\n    db.fetch_all(conn, f"SELECT count(*) FROM {table}")\n',
    'def f(conn, table):\n    conn.execute(sql.SQL(f"SELECT count(*) FROM {table}"))\n',
    # an identifier parameter is fine only while every caller passes a constant
    'def count(conn, table):\n    conn.execute(f"SELECT count(*) FROM {table}")\n'
    'def g(conn, user_table):\n    count(conn, "wove.papers")\n    count(conn, user_table)\n',
]
ALLOWED = [
    'def f(conn, arxiv_id):\n    conn.execute("SELECT * FROM wove.papers WHERE arxiv_id = %s", (arxiv_id,))\n',
    'def f(conn, t):\n    conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(t)))\n',
    'SCHEMA = "serving"\ndef f(conn):\n    conn.execute(f"DROP SCHEMA {SCHEMA} CASCADE")\n',
    'def f(conn, p):\n    kind = "PROCEDURE" if p else "FUNCTION"\n    conn.execute(sql.SQL(f"ALTER {kind} {{}}"))\n',
    'def count(conn, table):\n    conn.execute(f"SELECT count(*) FROM {table}")\n'
    'def g(conn):\n    count(conn, "wove.papers")\n    count(conn, table="wove.s2_papers")\n',
    'TABLES = ("a", "b")\ndef f(conn):\n    for t in TABLES:\n        conn.execute(f"SELECT count(*) FROM {t}")\n',
]


@pytest.mark.parametrize("source", PLANTED)
def test_the_scan_catches_a_planted_injection(source, figures):
    assert unsafe_sql(source, proven=proven_parameters([source])), source
    figures.bad_inputs["planted_sql_injections"] += 1


@pytest.mark.parametrize("source", ALLOWED)
def test_the_scan_allows_parameters_and_sql_composition(source):
    assert not unsafe_sql(source, proven=proven_parameters([source])), source
