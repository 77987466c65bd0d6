"""The layout rules of wove_pipeline (issue 25), one test per rule.

Each test lists every offender as ``path:line: what`` (paths from the repository root), so a
failure says which file and line break which rule:

- no module over 600 lines;
- the environment (``os.environ``, ``os.getenv``, ...) is read or written only in
  ``wove_pipeline/settings.py``;
- Dagster is imported only by the wiring: files named ``assets.py``, ``wove_pipeline/assets/``,
  ``wove_pipeline/resources/``, ``wove_pipeline/cli/``, ``wove_pipeline/partitions.py`` and
  ``wove_pipeline/definitions.py``; every other module (the core, the sandbox included) imports
  without loading ``dagster``, even transitively (checked in a fresh interpreter);
- ``psycopg.connect`` only in ``wove_pipeline/database/``;
- no core function takes a ``database_url``; outside ``database/``, only the CLI and the
  resources open connections through ``wove_pipeline.database.access`` (``connect``,
  ``transaction``);
- no ``wove_pipeline/core/``, no leftover empty package or folder, every module reachable
  from an entry point.

The source is read with ``ast``: docstrings and comments never count.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "wove_pipeline"
PKG = ROOT / PACKAGE

MAX_LINES = 600

# Where Dagster may be imported (the wiring); everything else is "core".
DAGSTER_FOLDERS = ("assets", "resources", "cli")
DAGSTER_FILES = ("partitions.py", "definitions.py")
# Besides the database layer, these open connections (through wove_pipeline.database.access).
CONNECTION_OPENERS = ("cli", "resources")
# Test infrastructure: its modules may be used by the tests alone.
TEST_SUPPORT = ("sandbox",)
SETTINGS = f"{PACKAGE}/settings.py"


@dataclass(frozen=True)
class Module:
    path: Path
    rel: str  # wove_pipeline/x/y.py
    name: str  # wove_pipeline.x.y
    parts: tuple[str, ...]  # ("x", "y.py"): the path under wove_pipeline/
    text: str

    @functools.cached_property
    def tree(self) -> ast.Module | None:
        try:
            return ast.parse(self.text, filename=self.rel)
        except SyntaxError:
            return None

    @property
    def parse_error(self) -> str:
        try:
            ast.parse(self.text, filename=self.rel)
        except SyntaxError as exc:
            return f"{self.rel}:{exc.lineno or 1}: does not parse ({exc.msg})"
        return ""

    @property
    def is_package(self) -> bool:
        return self.path.name == "__init__.py"

    @property
    def package(self) -> str:
        """The package relative imports resolve against."""
        return self.name if self.is_package else self.name.rpartition(".")[0]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.lru_cache(maxsize=1)
def modules() -> tuple[Module, ...]:
    found = []
    for path in sorted(PKG.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        found.append(Module(
            path=path,
            rel=path.relative_to(ROOT).as_posix(),
            name=_module_name(path),
            parts=path.relative_to(PKG).parts,
            text=path.read_text(encoding="utf-8"),
        ))
    return tuple(found)


def may_import_dagster(module: Module) -> bool:
    parts = module.parts
    return (
        parts[-1] == "assets.py"
        or (len(parts) > 1 and parts[0] in DAGSTER_FOLDERS)
        or (len(parts) == 1 and parts[0] in DAGSTER_FILES)
    )


def is_core(module: Module) -> bool:
    """Not the Dagster wiring (the sandbox counts as core)."""
    return not may_import_dagster(module)


def in_folder(module: Module, *folders: str) -> bool:
    return len(module.parts) > 1 and module.parts[0] in folders


def report(rule: str, offenders: list[str]) -> None:
    """Fail with every offender, one ``path:line: what`` per line."""
    if not offenders:
        return
    lines = sorted(set(offenders), key=_sort_key)
    message = f"{rule}\n{len(lines)} offender(s):\n" + "\n".join(f"  {line}" for line in lines)
    pytest.fail(message, pytrace=False)


def _sort_key(line: str) -> tuple:
    path, _, rest = line.partition(":")
    number, _, what = rest.partition(":")
    return (path, int(number) if number.isdigit() else 0, what)


def parsed(offenders: list[str]) -> Iterator[tuple[Module, ast.Module]]:
    """Every module with its tree; a module that does not parse is an offender of every rule."""
    for module in modules():
        if module.tree is None:
            offenders.append(module.parse_error)
        else:
            yield module, module.tree


def resolve_from(module: Module, node: ast.ImportFrom) -> str:
    """The absolute module name of ``from <x> import ...``."""
    if not node.level:
        return node.module or ""
    base = module.package.split(".")
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    names.append(node.id)
    return ".".join(reversed(names))


def module_aliases(module: Module, tree: ast.Module, target: str) -> tuple[set[str], dict[str, str]]:
    """Names bound in this file to module ``target`` (``import target as x``, ``from parent
    import last as x``), and names bound to its attributes (``from target import a as b``: {b: a})."""
    aliases: set[str] = set()
    members: dict[str, str] = {}
    parent, _, last = target.rpartition(".")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    if alias.name == target:
                        aliases.add(alias.asname)
                elif alias.name == target or alias.name.startswith(target + "."):
                    # `import a.b` binds `a`: the module is then used as `a.b`.
                    aliases.add(target)
        elif isinstance(node, ast.ImportFrom):
            source = resolve_from(module, node)
            for alias in node.names:
                if source == target:
                    members[alias.asname or alias.name] = alias.name
                elif parent and source == parent and alias.name == last:
                    aliases.add(alias.asname or alias.name)
    return aliases, members


# --- a. size -------------------------------------------------------------------------------


def test_no_module_over_600_lines():
    offenders = [
        f"{module.rel}:{MAX_LINES + 1}: {len(module.text.splitlines())} lines (at most {MAX_LINES}: split it by job)"
        for module in modules()
        if len(module.text.splitlines()) > MAX_LINES
    ]
    report(f"No module of {PACKAGE} over {MAX_LINES} lines.", offenders)


# --- b. environment ------------------------------------------------------------------------

ENV_NAMES = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}


def test_environment_is_read_only_in_settings():
    offenders: list[str] = []
    for module, tree in parsed(offenders):
        if module.rel == SETTINGS:
            continue
        aliases, members = module_aliases(module, tree, "os")
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and resolve_from(module, node) == "os":
                for alias in node.names:
                    if alias.name in ENV_NAMES:
                        offenders.append(f"{module.rel}:{node.lineno}: from os import {alias.name}")
            elif isinstance(node, ast.Attribute) and node.attr in ENV_NAMES:
                owner = dotted(node.value)
                if owner in aliases:
                    offenders.append(f"{module.rel}:{node.lineno}: {owner}.{node.attr}")
    report(f"os.environ / os.getenv only in {SETTINGS} (add a function there and call it).", offenders)


# --- c. Dagster ----------------------------------------------------------------------------


def _is_dagster(name: str) -> bool:
    top = name.split(".")[0]
    return top == "dagster" or top.startswith("dagster_")


def test_dagster_is_imported_only_by_the_wiring():
    offenders: list[str] = []
    for module, tree in parsed(offenders):
        if may_import_dagster(module):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if _is_dagster(alias.name):
                        offenders.append(f"{module.rel}:{node.lineno}: import {alias.name}")
            elif isinstance(node, ast.ImportFrom):
                source = resolve_from(module, node)
                if _is_dagster(source):
                    offenders.append(f"{module.rel}:{node.lineno}: from {source} import ...")
            elif (isinstance(node, ast.Call) and dotted(node.func) in {"importlib.import_module", "__import__"}
                  and node.args and isinstance(node.args[0], ast.Constant)
                  and isinstance(node.args[0].value, str) and _is_dagster(node.args[0].value)):
                offenders.append(f"{module.rel}:{node.lineno}: {dotted(node.func)}({node.args[0].value!r})")
    report(
        "Dagster only in */assets.py, wove_pipeline/{assets,resources,cli}/, wove_pipeline/partitions.py "
        "and wove_pipeline/definitions.py (move the Dagster part into the domain's assets.py).",
        offenders,
    )


# Run in a fresh interpreter: import the core modules one by one (from `start`), and stop at the
# first whose import loads dagster, with the chain of wove_pipeline frames that loaded it.
_PROBE = r"""
import importlib, json, sys, traceback

names = json.loads(sys.argv[1])
start = int(sys.argv[2])
loaded = []

class Watch:
    def find_spec(self, fullname, path=None, target=None):
        top = fullname.split(".")[0]
        if not loaded and (top == "dagster" or top.startswith("dagster_")):
            chain = []
            frame = sys._getframe(1)
            while frame is not None:
                name = frame.f_globals.get("__name__", "")
                if name == "wove_pipeline" or name.startswith("wove_pipeline."):
                    chain.append([name, frame.f_lineno])
                frame = frame.f_back
            loaded.append({"dagster": fullname, "chain": chain[::-1]})
        return None

sys.meta_path.insert(0, Watch())
already = sorted(m for m in sys.modules if m.split(".")[0] == "dagster" or m.startswith("dagster_"))
if already:
    print(json.dumps({"index": -1, "error": "dagster loaded before any wove module: " + ", ".join(already)}))
    sys.exit(0)
for index in range(start, len(names)):
    try:
        importlib.import_module(names[index])
    except BaseException as exc:
        where = [[f.filename, f.lineno] for f in traceback.extract_tb(exc.__traceback__)
                 if "/wove_pipeline/" in f.filename.replace("\\", "/")]
        print(json.dumps({"index": index, "error": "".join(traceback.format_exception_only(exc)).strip(),
                          "where": where[-1] if where else None}))
        sys.exit(0)
    if loaded:
        print(json.dumps({"index": index, **loaded[0]}))
        sys.exit(0)
print(json.dumps({"index": len(names)}))
"""


def _core_import_names() -> list[str]:
    # `__main__` modules run a program when imported; their imports are checked statically above.
    return sorted(m.name for m in modules() if is_core(m) and m.path.name != "__main__.py" and m.tree is not None)


def test_core_modules_do_not_load_dagster():
    names = _core_import_names()
    by_name = {m.name: m for m in modules()}
    offenders: list[str] = []
    start = 0
    while start < len(names):
        probe = subprocess.run(
            [sys.executable, "-c", _PROBE, json.dumps(names), str(start)],
            cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "HF_HUB_OFFLINE": "1"},
        )
        lines = probe.stdout.strip().splitlines()
        if probe.returncode != 0 or not lines:
            pytest.fail(f"the import probe failed (rc {probe.returncode}):\n{probe.stdout}\n{probe.stderr}", pytrace=False)
        result = json.loads(lines[-1])
        index = result["index"]
        if index < 0:
            pytest.fail(result["error"], pytrace=False)
        if index >= len(names):
            break
        requested = by_name[names[index]]
        if "error" in result:
            path, line = requested.rel, 1
            if result.get("where"):
                file, line = result["where"]
                path = Path(os.path.relpath(Path(file).resolve(), ROOT)).as_posix()
            offenders.append(f"{path}:{line}: importing {requested.name} fails: {result['error']}")
        else:
            chain = [(name, line) for name, line in result["chain"]]
            # The innermost core module on the way: the one whose import line pulled Dagster in.
            culprit = next(((n, line) for n, line in reversed(chain) if n in by_name and is_core(by_name[n])),
                           (requested.name, 1))
            path = by_name[culprit[0]].rel
            route = " -> ".join(f"{n}:{line}" for n, line in chain) or requested.name
            offenders.append(f"{path}:{culprit[1]}: loads {result['dagster']} "
                             f"(importing {requested.name}: {route} -> {result['dagster']})")
        start = index + 1
    report("Core modules (all but the Dagster wiring; the sandbox included) must import without loading dagster, "
           "even transitively.", offenders)


# --- d. psycopg.connect --------------------------------------------------------------------


def test_psycopg_connect_only_in_the_database_module():
    offenders: list[str] = []
    for module, tree in parsed(offenders):
        if in_folder(module, "database"):
            continue
        for driver in ("psycopg", "psycopg2"):
            aliases, members = module_aliases(module, tree, driver)
            classes = {name for name, real in members.items() if real in {"Connection", "AsyncConnection"}}
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and resolve_from(module, node) == driver:
                    for alias in node.names:
                        if alias.name == "connect":
                            offenders.append(f"{module.rel}:{node.lineno}: from {driver} import connect")
                elif isinstance(node, ast.Attribute) and node.attr == "connect":
                    owner = dotted(node.value) or ""
                    head, _, rest = owner.partition(".")
                    if (owner in aliases or owner in classes
                            or (head in aliases and rest in {"Connection", "AsyncConnection"})):
                        offenders.append(f"{module.rel}:{node.lineno}: {owner}.connect")
    report(f"psycopg.connect only in {PACKAGE}/database/ (take the connection you are given; "
           "the resources and the CLI open them).", offenders)


# --- e. connections are given ---------------------------------------------------------------

ACCESS = f"{PACKAGE}.database.access"
OPENS = {"connect", "transaction"}  # access.connect(url), access.transaction(url)


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[str]:
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


def test_no_core_function_takes_a_database_url():
    offenders: list[str] = []
    for module, tree in parsed(offenders):
        if not is_core(module) or in_folder(module, "database"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                if "database_url" in _parameters(node):
                    name = getattr(node, "name", "<lambda>")
                    offenders.append(f"{module.rel}:{node.lineno}: {name}(database_url=...)")
    report(f"No core function (outside {PACKAGE}/database/) takes a database_url: "
           "take the psycopg.Connection the caller gives.", offenders)


def test_only_the_cli_and_the_resources_open_connections():
    offenders: list[str] = []
    for module, tree in parsed(offenders):
        if in_folder(module, "database", *CONNECTION_OPENERS):
            continue
        aliases, members = module_aliases(module, tree, ACCESS)
        opened = {name for name, real in members.items() if real in OPENS}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = dotted(node.func) or ""
            owner, _, attr = func.rpartition(".")
            if (owner in aliases and attr in OPENS) or (not owner and func in opened):
                offenders.append(f"{module.rel}:{node.lineno}: {func}(...) opens a connection")
    report(f"Outside {PACKAGE}/database/, only the CLI and the resources open connections "
           f"({ACCESS}.connect / .transaction); take the connection you are given.", offenders)


# --- f. every module has a home -------------------------------------------------------------


def _entry_points() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    entries = {project["tool"]["dagster"]["module_name"]}
    for target in project["project"].get("scripts", {}).values():
        entries.add(target.split(":")[0])
    # python -m <package> (a __main__.py), python -m <module> (an `if __name__ == "__main__":` block)
    entries |= {m.name for m in modules() if m.path.name == "__main__.py" or _runs_as_main(m)}
    # classes the Dagster instance loads by name (dagster.yaml: `module: wove_pipeline...`)
    entries |= set(re.findall(r"^\s*module:\s*(wove_pipeline[\w.]*)\s*$", (ROOT / "dagster.yaml").read_text(), re.M))
    return entries


def _used_by_tests(known: set[str]) -> set[str]:
    """Test-support modules (the sandbox) the tests and benches import."""
    used: set[str] = set()
    for folder in ("tests", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    used |= {alias.name for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    used |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return {name for name in used & known if name.split(".")[1:2] and name.split(".")[1] in TEST_SUPPORT}


def _runs_as_main(module: Module) -> bool:
    for node in module.tree.body if module.tree else ():
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            sides = [node.test.left, *node.test.comparators]
            if any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
                    isinstance(s, ast.Constant) and s.value == "__main__" for s in sides):
                return True
    return False


def _imports(module: Module, tree: ast.Module, known: set[str]) -> set[str]:
    """wove_pipeline modules this one imports (anywhere in it: lazy imports count), with their packages."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            source = resolve_from(module, node)
            found.add(source)
            found |= {f"{source}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in known:
            # named to be imported at run time: __import__(name), importlib.import_module(name)
            found.add(node.value)
    closed = set()
    for name in found:
        parts = name.split(".")
        closed |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return closed & known


def test_every_module_has_a_home():
    offenders: list[str] = []
    if (PKG / "core").exists():
        offenders.append(f"{PACKAGE}/core:1: the core/ folder is still there (one folder per domain)")
    # Folders: each one with Python in it is a package; none is left with nothing in it.
    for folder in sorted(p for p in PKG.rglob("*") if p.is_dir() and "__pycache__" not in p.parts):
        rel = folder.relative_to(ROOT).as_posix()
        content = [p for p in folder.iterdir() if p.name != "__pycache__"]
        if not content:
            offenders.append(f"{rel}:1: empty folder (only __pycache__ left): remove it")
        elif any(p.suffix == ".py" for p in content) and not (folder / "__init__.py").exists():
            offenders.append(f"{rel}:1: Python modules without an __init__.py")
    # Packages: none is an empty shell (an __init__ with no code and nothing beside it).
    for module in modules():
        if not module.is_package or module.tree is None or module.path.parent == PKG:
            continue
        beside = [p for p in module.path.parent.iterdir() if p.name not in {"__init__.py", "__pycache__"}]
        body = [n for n in module.tree.body
                if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
        if not beside and not body:
            offenders.append(f"{module.rel}:1: empty package: nothing in it but an empty __init__.py")
    # Modules: each is reachable from an entry point (the code location, the CLI, python -m).
    known = {m.name for m in modules()}
    graph: dict[str, set[str]] = {}
    for module, tree in parsed(offenders):
        graph[module.name] = _imports(module, tree, known)
    entries = _entry_points()
    for entry in sorted(entries - known):
        offenders.append(f"pyproject.toml:1: entry point {entry} is not a module of {PACKAGE}")
    seen, todo = set(), [e for e in entries if e in known]
    todo += sorted(_used_by_tests(known))
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(graph.get(name, ()))
    for module in modules():
        if module.name not in seen and module.name != PACKAGE:
            offenders.append(f"{module.rel}:1: {module.name} is not imported from any entry point: "
                             "a leftover? (import it where it is used, or remove it)")
    report(f"Every module of {PACKAGE} has a home: no core/, no empty package or folder, every module reachable "
           f"from an entry point ({', '.join(sorted(entries))}; the sandbox also from tests/ and bench/).",
           offenders)
