"""The package's shape: no import cycle among omkd's modules, and no module too long to read.

Imports are read from the source (``ast``): every import a module makes, at its top level, under
``if TYPE_CHECKING:`` and deferred into a function body alike — a cycle hidden behind a deferred or
type-only import is still two modules that each need the other whole. The exceptions still
standing are listed with their reason; each must still hold (the list only shrinks).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Final

import pytest

pytestmark = pytest.mark.engine

PACKAGE: Final = Path(__file__).resolve().parents[1] / "omkd"
MAX_LINES: Final = 350
LONGER: Final[dict[str, str]] = {}
"""Modules allowed over ``MAX_LINES`` for now, each with the reason; the list only shrinks."""
KNOWN_CYCLES: Final[dict[tuple[str, ...], str]] = {}
"""Import cycles still standing, each with the reason; the list only shrinks."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(tree: ast.Module, name: str, is_package: bool) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = _imports(tree, name, path.name == "__init__.py")
        graph[name] = {m for m in imported if m in modules and m != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_the_cycle_finder_finds_a_cycle_and_only_cycles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_omkd_but_the_known_ones() -> None:
    found = {tuple(c) for c in cycles(import_graph())}
    assert found - set(KNOWN_CYCLES) == set(), "a new import cycle"
    assert set(KNOWN_CYCLES) - found == set(), "a known cycle is gone: take it off KNOWN_CYCLES"


def test_no_module_over_350_lines_but_the_named_ones() -> None:
    lengths = {_module_name(p): len(p.read_text(encoding="utf-8").splitlines()) for p in PACKAGE.rglob("*.py")}
    long = {name for name, n in lengths.items() if n > MAX_LINES}
    assert {name: lengths[name] for name in long - set(LONGER)} == {}, "a new module over 350 lines"
    assert set(LONGER) - long == set(), "a named module is short now: take it off LONGER"
