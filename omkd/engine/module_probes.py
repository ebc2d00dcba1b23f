"""Module probes (spec §3.1: ``python -c "import X"``, ``node -e "require('X')"``) told from scripts at work.

A script that only imports (or requires) and prints what it got asks whether a module is there; one
that works on something (opens or loads a file, reads its input) is a program run, whatever it imports,
and its failure (a missing module among them) is the run's, as ``python app.py`` failing is.
"""

from __future__ import annotations

import re
from typing import Final

MODULE_NEEDS: Final = frozenset({"import", "require"})
"""The module probes' ``ProbeRule.needs``: Python's imports, Node's requires."""
_IMPORTED: Final = re.compile(
    r"\bfrom\s+([A-Za-z_][\w.]*)\s+import\b|\bimport\s+([A-Za-z_][\w.]*(?:\s+as\s+\w+)?(?:\s*,\s*[A-Za-z_][\w.]*(?:\s+as\s+\w+)?)*)"
)
"""``import X`` (``import X, Y as Z``: X and Y) or ``from X import Y``: the module is X (Y is a name in it)."""
_ALIAS: Final = re.compile(r"\s+as\s+\w+")
_MISSING_MODULE: Final = re.compile(r"""No module named ['"]?([\w.]+)|Cannot find module ['"]([^'"]+)['"]""")
"""Python's and Node's words for the module an import or require did not find."""
_REQUIRED: Final = re.compile(r"""\b(?:require(?:\.resolve)?|import)\(\s*['"`]([^'"`]+)['"`]""")
_SIMPLE: Final = r"""(?:[\w.]+|'[^']*'|"[^"]*"|require(?:\.resolve)?\(\s*['"][^'"]+['"]\s*\)(?:\.\w+)*)"""
"""A value a probe prints: a name or attribute (``tenacity.__version__``), a string, a require's answer."""
_PROBE_STATEMENT: Final = re.compile(
    r"(?:import\s+[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*"
    r"|from\s+[\w.]+\s+import\s+.+"
    r"|(?:\w+\s*=\s*)?__import__\(\s*['\"][\w.]+['\"]\s*\)"
    r"|(?:const|let|var)\s+(?:\w+|\{[^}]*\})\s*=\s*require\s*\(\s*['\"][^'\"]+['\"]\s*\)(?:\.\w+)*"
    r"|(?:require(?:\.resolve)?|import)\(\s*['\"][^'\"]+['\"]\s*\)"
    rf"|(?:print|console\.log)\s*\(\s*(?:{_SIMPLE}(?:\s*,\s*{_SIMPLE})*)?\s*\)"
    r"|sys\.path\.(?:insert|append)\s*\([^()]*\)|(?:sys|process)\.exit\s*\(\s*\d*\s*\)"
    r"|try\s*:.*|except\b.*|pass)\s*"
)
"""A statement of a probe, whole: an import or require, a print of what it got, a path set, an exit code."""
_AT_WORK: Final = re.compile(
    r"\b(?:open|load|loads|read|write|input|urlopen|fetch|readFileSync|writeFileSync)\s*\(|stdin"
)
"""Signs that a script works on something (a file, its input, the network), whatever it imports."""
_STATEMENT: Final = re.compile(r"""(?:'[^'\n]*'|"[^"\n]*"|[^;\n'"])+""")
"""A statement: up to a ``;`` or a new line outside a string."""


def probe_script(script: str) -> bool:
    """A ``python -c``/``node -e`` script that only imports (or requires) and prints what it got
    (``import tenacity; print(tenacity.__version__)``): a module probe. A script that runs anything
    else (``print(run())``, ``sys.exit(main())``), or works on something (opens or loads a file, reads
    its input), is a program run, whatever it imports."""
    if _AT_WORK.search(script):
        return False
    statements = [m.group().strip() for m in _STATEMENT.finditer(script)]
    statements = [s for s in statements if s and not s.startswith(("#", "//"))]
    return bool(statements) and all(_PROBE_STATEMENT.fullmatch(s) for s in statements)


def at_work(stage_args: list[str], needs: str) -> bool:
    """A ``python -c``/``node -e`` module probe (its rule ``needs`` an import or a require) whose script is
    at work (``probe_script``)."""
    return needs in MODULE_NEEDS and not probe_script(stage_args[1] if len(stage_args) > 1 else "")


def named(args: list[str], needs: str) -> list[str]:
    """The modules a probe's script imports (``needs == "import"``) or requires (``node -e
    "require.resolve('docx')"``: docx)."""
    if needs != "import":
        return [m.group(1) for arg in args for m in _REQUIRED.finditer(arg)]
    return [
        module.strip()
        for arg in args
        for m in _IMPORTED.finditer(arg)
        for module in (m.group(1) or _ALIAS.sub("", m.group(2))).split(",")
    ]


def not_found(modules: list[str], output: str) -> list[str]:
    """The modules of a probe that its output says were not found (``import numpy, torch`` answered ``No
    module named 'torch'``: torch; ``import google.cloud.storage`` answered ``… 'google.cloud'``: the
    module whose part that is); all of them when the output names none of them."""
    named = {m.group(1) or m.group(2) for m in _MISSING_MODULE.finditer(output)}
    missed = [m for m in modules if any(m == n or m.startswith((n + ".", n + "/")) for n in named)]
    return missed or modules
