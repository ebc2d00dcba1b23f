"""Which build of omkd is running: pure Python, or its hot modules compiled by mypyc.

``OMKD_COMPILE=1 pip install .`` compiles the modules listed in ``pyproject.toml``
(``[tool.omkd.compile]``, ``setup.py``) and leaves a note in the package, ``_build.json``: what was
asked for, what was built, the modules, or why the compile failed. The note says what was built;
the modules actually imported say what runs: a module counts as compiled only when Python finds it
as an extension module. ``omkd --version`` and the report's ``reproducibility.build`` name the build.
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Final

PURE: Final = "pure"
MYPYC: Final = "mypyc"
NOTE: Final = Path(__file__).with_name("_build.json")


@dataclass(frozen=True, slots=True)
class Build:
    name: str
    """``pure`` or ``mypyc`` (every listed module compiled), ``mypyc-partial`` (some of them)."""
    compiled: tuple[str, ...]
    """The modules that run compiled."""
    listed: tuple[str, ...]
    """The modules the build note lists as compiled."""
    failed: str | None
    """Why a compiled build that was asked for fell back to pure Python."""

    def describe(self) -> str:
        """One line for ``omkd --version``."""
        if self.name == PURE:
            if self.failed:
                return f"pure Python: the compiled build was asked for and failed ({self.failed})"
            return "pure Python"
        return f"compiled by mypyc: {len(self.compiled)} of {len(self.listed)} listed modules"


def _is_extension(module: str) -> bool:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return False
    origin = spec.origin if spec is not None else None
    return origin is not None and origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


@functools.cache
def build() -> Build:
    """The build that runs (read once per process)."""
    try:
        note = json.loads(NOTE.read_text())
    except (OSError, ValueError):
        note = {}  # a source tree, an editable install, or a package built without the note
    listed = tuple(str(name) for name in note.get("modules", ()))
    compiled = tuple(name for name in listed if _is_extension(name))
    failed = note.get("failed")
    if listed and not compiled:
        failed = f"the note lists {len(listed)} compiled modules and none of them loads as one"
    if not compiled:
        name = PURE
    elif len(compiled) == len(listed):
        name = MYPYC
    else:
        name = f"{MYPYC}-partial"
    return Build(name, compiled, listed, str(failed) if failed else None)
