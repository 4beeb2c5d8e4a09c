"""The layers stay layers: capsa/ is pure, data/ knows no Discord, no package has an import
circle, and every module imports on its own, in an interpreter that has loaded none of ours
(no import order)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("capsa", "data", "cogs")


def _modules(package: str) -> dict[str, Path]:
    return {
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): path
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    is_package = (ROOT / module.replace(".", "/") / "__init__.py").exists()
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _imports(module: str, path: Path, *, runtime_only: bool) -> list[tuple[str, int, bool]]:
    """(imported module, line, at module level) for each import in the file. With
    ``runtime_only``, imports under ``if TYPE_CHECKING:`` are left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int, bool]] = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if (
                runtime_only
                and isinstance(child, ast.If)
                and "TYPE_CHECKING" in ast.unparse(child.test)
            ):
                continue
            if isinstance(child, ast.Import):
                found.extend((alias.name, child.lineno, top) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                target = _absolute(module, child)
                found.append((target, child.lineno, top))
                # `from capsa import solver` imports the submodule capsa.solver
                found.extend(
                    (f"{target}.{alias.name}", child.lineno, top)
                    for alias in child.names
                    if (ROOT / target.replace(".", "/") / f"{alias.name}.py").exists()
                )
            in_body = top and not isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
            )
            visit(child, in_body)

    visit(tree, True)
    return found


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [("capsa", ("discord", "cogs", "data", "bot")), ("data", ("discord", "cogs", "bot"))],
)
def test_a_layer_never_imports_the_layers_above(package: str, forbidden: tuple[str, ...]) -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for module, path in _modules(package).items()
        for name, line, _top in _imports(module, path, runtime_only=False)
        if name.split(".")[0] in forbidden
    ]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("package", ["capsa", "data"])
def test_no_function_level_imports(package: str) -> None:
    """An import inside a function is how an import circle hides; the engine and the data
    layer import everything at the top."""
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {name} inside a function"
        for module, path in _modules(package).items()
        for name, line, top in _imports(module, path, runtime_only=True)
        if not top
    ]
    assert not bad, "\n".join(bad)


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := walk(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := walk(start)):
            return found
    return None


def _graph(package: str) -> dict[str, set[str]]:
    """Which module of the package imports which, type-only imports (``if TYPE_CHECKING:``)
    included: a reader follows those too."""
    modules = _modules(package)
    return {
        module: {
            name
            for name, _line, _top in _imports(module, path, runtime_only=False)
            if name in modules and name != module
        }
        for module, path in modules.items()
    }


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_circle(package: str) -> None:
    graph = _graph(package)
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_type_only_imports_count_for_circles() -> None:
    """The graph sees an import under ``if TYPE_CHECKING:`` (the circle this test was
    widened for went through them)."""
    path = ROOT / "cogs" / "tables.py"
    typed = {name for name, _line, _top in _imports("cogs.tables", path, runtime_only=False)}
    running = {name for name, _line, _top in _imports("cogs.tables", path, runtime_only=True)}
    assert "cogs.rounds" in typed - running
    assert "cogs.rounds" in _graph("cogs")["cogs.tables"]


# Modules at the bottom of cogs/: what the components say (custom_ids, actions, refusals,
# routes) and how delivery fails, known to every part and knowing none.
COGS_BOTTOM = ("cogs.components", "cogs.delivery", "cogs.worker_pool")


@pytest.mark.parametrize("module", COGS_BOTTOM)
def test_the_bottom_of_cogs_imports_nothing_of_cogs(module: str) -> None:
    path = _modules("cogs")[module]
    found = {name for name, _line, _top in _imports(module, path, runtime_only=False)}
    assert sorted(n for n in found if n.split(".")[0] == "cogs") == []


def test_no_component_or_screen_knows_a_controller() -> None:
    """Components and screens are below the parts that run tables: a click reaches its
    controller through the router, never through an import."""
    controllers = {
        "cogs.lobby",
        "cogs.rounds",
        "cogs.hand_builder",
        "cogs.coach",
        "cogs.board",
        "cogs.history",
        "cogs.tables",
        "cogs.capsa",
    }
    graph = _graph("cogs")
    below = [m for m in graph if m in ("cogs.items", "cogs.views") or m.startswith("cogs.screens")]
    assert below
    bad = [f"{m} imports {n}" for m in below for n in graph[m] if n in controllers]
    assert bad == []


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


# The check's child interpreter: the third-party packages the modules use are imported once,
# top level only (a module that uses a subpackage it never imported still fails), then each
# of our modules is imported alone in a fork of that interpreter (none of ours is loaded
# before the fork), so an import order among our modules still fails, at a fraction of a
# fresh interpreter's cost per module.
_IMPORT_EACH = """
import importlib, os, sys, traceback
for package in ("aiohttp", "aiosqlite", "asyncpg", "discord", "dotenv", "numpy", "PIL",
                "prometheus_client", "openskill"):
    try:
        importlib.import_module(package)
    except ImportError:
        pass
assert not [m for m in sys.modules if m.split(".")[0] in ("bot", "capsa", "cogs", "data")]
failures, running = 0, 0
for name in sys.argv[1:]:
    if running >= (os.cpu_count() or 1):  # one import per core at a time
        _, status = os.wait()
        failures, running = failures + (status != 0), running - 1
    if os.fork() == 0:
        try:
            importlib.import_module(name)
        except BaseException:
            print(f"import {name}:", traceback.format_exc()[-500:], file=sys.stderr, flush=True)
            os._exit(1)
        os._exit(0)
    running += 1
while running:
    _, status = os.wait()
    failures, running = failures + (status != 0), running - 1
sys.exit(1 if failures else 0)
"""


def test_every_module_imports_alone() -> None:
    names = ["bot"] + [m for package in PACKAGES for m in _modules(package) if "__main__" not in m]
    run = subprocess.run(
        [sys.executable, "-c", _IMPORT_EACH, *names],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr


def test_the_import_check_finds_a_module_that_needs_another_first(tmp_path: Path) -> None:
    """The check fails a module that only imports after another one (here: one that reads
    an attribute that another module sets on a package)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "setter.py").write_text("import pkg\npkg.VALUE = 1\n")
    (tmp_path / "pkg" / "reader.py").write_text("import pkg\nX = pkg.VALUE\n")
    run = subprocess.run(
        [sys.executable, "-c", _IMPORT_EACH, "pkg.setter", "pkg.reader"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1
    assert "import pkg.reader:" in run.stderr and "import pkg.setter" not in run.stderr
