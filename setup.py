"""The optional compiled build: ``OMKD_COMPILE=1 pip install .`` compiles the modules listed in
``pyproject.toml`` (``[tool.omkd.compile]``) with mypyc. Everything else is in ``pyproject.toml``.

- Without ``OMKD_COMPILE=1`` nothing here runs: the install is pure Python, as before.
- An editable install (``pip install -e .``) is never compiled: the extension modules would sit
  beside the sources and shadow every later edit.
- A compile that fails (mypy or mypyc refusing a module, no C compiler, a C error) installs the pure
  Python package instead and says so: on stderr while building (``pip install -v`` shows it) and in
  ``omkd --version`` and the report's ``reproducibility.build`` afterwards (``omkd/build.py`` reads
  the note this script leaves in the package, ``omkd/_build.json``).

The compiled modules are the same source: the wheel carries each ``.py`` beside its extension module
(Python imports the extension first), so a broken extension can be told apart from the source.
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
NOTE = "omkd/_build.json"
REQUESTED = os.environ.get("OMKD_COMPILE", "") == "1"
BUILDING = any(command in sys.argv[1:] for command in ("bdist_wheel", "build", "build_ext", "install"))
EDITABLE = any(command in sys.argv[1:] for command in ("editable_wheel", "develop"))


def say(message: str) -> None:
    print(f"omkd build: {message}", file=sys.stderr, flush=True)  # noqa: T201 (pip -v shows it)


def compile_list() -> tuple[list[str], list[str]]:
    """The modules to compile that exist, and those listed that do not (skipped, named)."""
    listed = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["omkd"]["compile"]["modules"]
    present = [name for name in listed if (ROOT / name).is_file()]
    return present, [name for name in listed if name not in present]


NOTE_DATA: dict[str, Any] = {"build": "pure", "requested": REQUESTED}


class BuildPy(build_py):
    """Writes the build note into the package (after the sources are copied)."""

    def run(self) -> None:
        super().run()
        self._write_note()

    def _write_note(self) -> None:
        target = Path(self.build_lib) / NOTE
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(NOTE_DATA, indent=1) + "\n")


class BuildExt(build_ext):
    """Compiles the extension modules; any failure leaves none of them, and the pure package."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:  # one C file per module: compile them on every core
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        try:
            super().run()
        except (Exception, SystemExit) as error:  # any failure means: install pure Python
            built = [Path(self.get_ext_fullpath(ext.name)) for ext in self.extensions]
            for path in built:
                path.unlink(missing_ok=True)
            self.extensions = []
            fall_back(f"the C build failed ({type(error).__name__}: {error})")
            self.get_finalized_command("build_py")._write_note()


def fall_back(reason: str) -> None:
    NOTE_DATA.update(build="pure", failed=reason)
    say(f"{reason}; installing pure Python instead")


def compiled_extensions() -> list[Any]:
    """The mypyc extension modules, or none (the reason said and noted)."""
    if EDITABLE:
        say("an editable install is never compiled (OMKD_COMPILE ignored)")
        NOTE_DATA.update(requested=False)
        return []
    modules, missing = compile_list()
    for name in missing:
        say(f"{name} is listed in [tool.omkd.compile] but does not exist: skipped")
    try:
        from mypyc.build import mypycify
    except ImportError as error:
        fall_back(f"mypyc is not installed ({error})")
        return []
    say(f"compiling {len(modules)} modules with mypyc")
    try:
        extensions = mypycify(modules, opt_level=os.environ.get("MYPYC_OPT_LEVEL", "3"), multi_file=True)
    except (Exception, SystemExit) as error:  # mypyc exits on a type error
        fall_back(f"mypyc refused the modules ({type(error).__name__}: {error})")
        return []
    NOTE_DATA.update(build="mypyc", modules=[name.removesuffix(".py").replace("/", ".") for name in modules])
    return list(extensions)


extensions = compiled_extensions() if REQUESTED and (BUILDING or EDITABLE) else []
setup(
    ext_modules=extensions,
    cmdclass={"build_py": BuildPy, "build_ext": BuildExt},
    setup_requires=["mypy>=1.10,<3"] if REQUESTED and not EDITABLE else [],
)
