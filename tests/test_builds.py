"""The same document whatever reads it: ``--jobs 1`` and ``--jobs 2``, the pure and the compiled build.

Each scan runs ``python -m omkd scan PATH --json --gap-limit 0`` as a subprocess on the ``omkd``
these tests import (its directory first on ``PYTHONPATH``, from a neutral working directory). The
compiled build (``OMKD_COMPILE=1 pip install .``, ``setup.py``) is compared with a pure copy of the
same installed package, its extension modules left out: the two documents must be byte for byte the
same but for ``reproducibility.build``, which names the build. ``.ci/run`` runs this file in its
compiled lane (``OMKD_COMPILED_LANE=1``), where a pure build is a failure; in a pure lane the
compiled comparison is skipped and says why.
"""

from __future__ import annotations

import importlib.machinery
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import omkd
from omkd.build import MYPYC, build

pytestmark = pytest.mark.builds

PACKAGE = Path(omkd.__file__).resolve().parent
COMPILED_LANE = os.environ.get("OMKD_COMPILED_LANE") == "1"
FIXTURE_SETS = ("real", "real-2")
HOME = ("--home", "/nonexistent")


def scan(package_parent: Path, path: Path, jobs: int, cwd: Path) -> bytes:
    env = {**os.environ, "PYTHONPATH": str(package_parent)}
    done = subprocess.run(
        [sys.executable, "-m", "omkd", "scan", str(path), "--json", "--gap-limit", "0", "--jobs", str(jobs), *HOME],
        cwd=cwd,
        env=env,
        capture_output=True,
        check=False,
    )
    assert done.returncode in (0, 1, 3), done.stderr.decode()[-3000:]
    return done.stdout


def fixture_set(real_fixtures: Path, name: str) -> Path:
    path = real_fixtures.parent / name
    assert path.is_dir(), f"{path} is missing"
    return path


@pytest.mark.parametrize("name", FIXTURE_SETS)
def test_one_worker_and_two_give_the_same_document(real_fixtures: Path, name: str, tmp_path: Path) -> None:
    path = fixture_set(real_fixtures, name)
    one = scan(PACKAGE.parent, path, 1, tmp_path)
    two = scan(PACKAGE.parent, path, 2, tmp_path)
    assert b'"skills"' in one
    assert one == two


def pure_copy(target: Path) -> Path:
    """The imported package without its extension modules and build note: the same code, interpreted."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)

    def ignored(_folder: str, names: list[str]) -> list[str]:
        return [n for n in names if n.endswith(suffixes) or n in ("_build.json", "__pycache__")]

    shutil.copytree(PACKAGE, target / "omkd", ignore=ignored)
    return target


@pytest.mark.parametrize("name", FIXTURE_SETS)
def test_the_compiled_build_gives_the_pure_builds_document(real_fixtures: Path, name: str, tmp_path: Path) -> None:
    running = build()
    if running.name != MYPYC:
        if COMPILED_LANE:
            pytest.fail(f"the compiled lane imports a {running.name} build from {PACKAGE}: {running.describe()}")
        pytest.skip("a pure build is under test: .ci/run's compiled lane runs this against its compiled build")
    path = fixture_set(real_fixtures, name)
    compiled = scan(PACKAGE.parent, path, 2, tmp_path)
    pure = scan(pure_copy(tmp_path / "pure"), path, 2, tmp_path)
    assert compiled.count(b'"build": "mypyc"') == 1
    assert pure.count(b'"build": "pure"') == 1
    assert compiled.replace(b'"build": "mypyc"', b'"build": "pure"') == pure


def test_the_version_names_the_build(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
    done = subprocess.run(
        [sys.executable, "-m", "omkd", "--version"], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == f"omkd, version {omkd.__version__} ({build().describe()})"
    assert ("compiled by mypyc" in done.stdout) == (build().name == MYPYC)


def test_a_compiled_build_that_failed_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from omkd import build as builds

    note = tmp_path / "_build.json"
    note.write_text('{"build": "pure", "requested": true, "failed": "the C build failed (CompileError: gcc)"}')
    monkeypatch.setattr(builds, "NOTE", note)
    builds.build.cache_clear()
    try:
        made = builds.build()
        assert made.name == builds.PURE
        assert made.describe() == (
            "pure Python: the compiled build was asked for and failed (the C build failed (CompileError: gcc))"
        )
        note.write_text('{"build": "mypyc", "requested": true, "modules": ["omkd.engine.no_such_module"]}')
        builds.build.cache_clear()
        assert "none of them loads" in builds.build().describe()
    finally:
        builds.build.cache_clear()


def test_a_parser_state_is_never_read_across_builds(tmp_path: Path) -> None:
    """A compiled class keeps attributes a pure one reads from its class (and the other way round):
    the state's stamp names a compiled build, so a state of the other build is read again from the start."""
    running = build()
    if running.name != MYPYC:
        if COMPILED_LANE:
            pytest.fail(f"the compiled lane imports a {running.name} build from {PACKAGE}")
        pytest.skip("a pure build is under test: .ci/run's compiled lane runs this against its compiled build")
    code = "from omkd.engine.detect import registry; print(registry.state_version())"
    stamps = [
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(parent)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for parent in (PACKAGE.parent, pure_copy(tmp_path / "pure"))
    ]
    assert stamps[0] != stamps[1]
