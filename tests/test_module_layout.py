"""The engine, the store and the testing tools stay in rooms of a readable size, without cycles.

Read from the source (``ast``), so the check needs no import-graph tool: every import between
modules of one package counts, those under ``if TYPE_CHECKING:`` and inside functions too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "sqsmock"
SPLIT = ("_engine", "_store", "_features")
#: Lines a hand-written module of these packages may hold.
MOST_LINES = 400


def _modules(package: str) -> dict[str, Path]:
    return {path.stem: path for path in sorted((PACKAGE / package).glob("*.py"))}


def _imports(package: str, path: Path, names: set[str]) -> set[str]:
    """The sibling modules of ``package`` that ``path`` imports (relative or absolute)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level == 1:
            base = node.module or ""
        elif node.level == 0 and (node.module or "").startswith(f"sqsmock.{package}"):
            base = (node.module or "")[len(f"sqsmock.{package}") :].lstrip(".")
        else:
            continue
        if base:
            found.add(base.split(".")[0])
        else:  # ``from . import x``: x may be a module
            found.update(alias.name for alias in node.names if alias.name in names)
    return (found & names) - {path.stem}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` (as a path that returns to its start), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


@pytest.mark.parametrize("package", SPLIT)
def test_no_module_imports_one_that_imports_it_back(package: str) -> None:
    modules = _modules(package)
    graph = {name: _imports(package, path, set(modules)) for name, path in modules.items()}
    graph.pop("__init__", None)
    for targets in graph.values():
        targets.discard("__init__")
    assert _cycle(graph) is None, f"import cycle in sqsmock.{package}: {_cycle(graph)}"


@pytest.mark.parametrize("package", SPLIT)
def test_modules_are_of_a_readable_size(package: str) -> None:
    sizes = {
        name: len(path.read_text(encoding="utf-8").splitlines())
        for name, path in _modules(package).items()
    }
    assert {name: n for name, n in sizes.items() if n > MOST_LINES} == {}


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
