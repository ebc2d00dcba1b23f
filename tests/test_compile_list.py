"""The compile list (``pyproject.toml``, ``[tool.omkd.compile]``) holds modules mypyc can compile
and nothing interpreted builds on: checked here in seconds, on the pure build, so that a module
added to the list (or a class added beside one) fails here and not only in the compiled lane."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
import tomllib
from pathlib import Path

import pytest

import omkd

pytestmark = pytest.mark.engine

ROOT = Path(__file__).resolve().parents[1]


def listed_paths() -> list[str]:
    paths: list[str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["omkd"]["compile"]["modules"]
    return paths


def listed() -> set[str]:
    return {path.removesuffix(".py").removesuffix("/__init__").replace("/", ".") for path in listed_paths()}


def classes() -> list[type]:
    found: list[type] = []
    for info in pkgutil.walk_packages(omkd.__path__, "omkd."):
        module = importlib.import_module(info.name)
        found += [v for v in vars(module).values() if isinstance(v, type) and v.__module__ == info.name]
    return found


def test_the_list_names_the_hot_path_and_only_existing_modules() -> None:
    names = listed()
    assert {"omkd.engine.stream", "omkd.engine.lines", "omkd.shell.scan"} <= names
    missing = [name for name in names if importlib.util.find_spec(name) is None]
    assert not missing, f"listed in [tool.omkd.compile] but not modules: {missing}"
    assert "omkd.engine.native" not in names  # its else branch is what runs interpreted


def test_no_listed_module_branches_on_type_checking() -> None:
    """mypyc compiles ``if TYPE_CHECKING: … else: …`` as an ``else`` that is never reached, and raises
    ``Reached allegedly unreachable code`` when it is (at import): such a shim lives in ``native.py``."""
    wrong = []
    for path in sorted(listed_paths()):
        source = Path(omkd.__file__).resolve().parents[1] / path  # the sources, beside a compiled build's
        tree = ast.parse(source.read_text(encoding="utf-8"))
        wrong += [
            f"{path}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
            if node.orelse
        ]
    assert not wrong, f"if TYPE_CHECKING with an else in compiled modules: {wrong}"


def test_no_interpreted_class_builds_on_a_compiled_one() -> None:
    """mypyc refuses it at run time (``interpreted classes cannot inherit from compiled``)."""
    names = listed()
    wrong = [
        f"{kind.__module__}.{kind.__qualname__} <- {base.__module__}.{base.__qualname__}"
        for kind in classes()
        if kind.__module__ not in names
        for base in kind.__mro__[1:]
        if base.__module__ in names
    ]
    assert not wrong, "interpreted subclasses of compiled classes (take the base out of the list): " + "; ".join(wrong)


def test_a_base_of_a_compiled_class_is_compiled_too() -> None:
    """A native class can only build on native classes (and ``object``, ``Exception``s, ``Enum``s…)."""
    names = listed()
    wrong = [
        f"{kind.__module__}.{kind.__qualname__} <- {base.__module__}.{base.__qualname__}"
        for kind in classes()
        if kind.__module__ in names
        for base in kind.__bases__
        if base.__module__.startswith("omkd.") and base.__module__ not in names
    ]
    assert not wrong, "compiled classes on interpreted bases: " + "; ".join(wrong)


def test_a_compiled_build_type_checks_without_the_optional_extras() -> None:
    """``OMKD_COMPILE=1 pip install .`` runs mypy over what the listed modules import, the optional LLM
    clients included; in a venv without ``omkd[llm]`` a missing ``openai`` failed the whole compile (and
    installed pure Python). Each optional dependency's module is declared ignorable when missing."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = {req.split(">")[0].split("<")[0].split("=")[0].split("[")[0].strip()
              for req in project["project"]["optional-dependencies"]["llm"]}  # fmt: skip
    ignorable = {
        m for o in project["tool"]["mypy"]["overrides"] if o.get("ignore_missing_imports") for m in o["module"]
    }
    assert extras == {"openai", "anthropic"}
    assert {name for name in extras if name in ignorable and f"{name}.*" in ignorable} == extras, ignorable
