"""A compiled build that fails installs pure Python and says so (``setup.py``): here a listed module
mypyc refuses, in a small package built by the real ``setup.py``. A build without ``OMKD_COMPILE=1``
compiles nothing, and leaves the note that says so."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = """[project]
name = "omkd"
version = "0.0.0"

[tool.omkd.compile]
modules = ["omkd/refused.py", "omkd/not_there.py"]
"""
REFUSED = "class Base: ...\nclass Other: ...\nclass Both(Base, Other): ...\n"  # multiple inheritance


def build(tmp_path: Path, compile_flag: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    shutil.copy(ROOT / "setup.py", tmp_path / "setup.py")
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "omkd").mkdir()
    (tmp_path / "omkd" / "__init__.py").write_text("")
    (tmp_path / "omkd" / "refused.py").write_text(REFUSED)
    env = {**os.environ, "OMKD_COMPILE": compile_flag}
    done = subprocess.run(
        [sys.executable, "setup.py", "build", "--build-lib", "out"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    return done, tmp_path / "out" / "omkd"


@pytest.mark.slow
def test_a_compile_mypyc_refuses_installs_pure_python_and_says_so(tmp_path: Path) -> None:
    done, package = build(tmp_path, "1")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "omkd/not_there.py is listed in [tool.omkd.compile] but does not exist: skipped" in done.stderr
    assert "installing pure Python instead" in done.stderr
    note = json.loads((package / "_build.json").read_text())
    assert note["build"] == "pure"
    assert note["requested"] is True
    assert "mypyc refused the modules" in note["failed"]
    assert (package / "refused.py").is_file()
    assert not [p.name for p in package.iterdir() if p.suffix == ".so"]


def test_without_the_flag_nothing_is_compiled(tmp_path: Path) -> None:
    done, package = build(tmp_path, "")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "omkd build:" not in done.stderr
    assert json.loads((package / "_build.json").read_text()) == {"build": "pure", "requested": False}
