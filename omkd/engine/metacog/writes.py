"""Write operations (spec §8.3, seed 004's hard triggers): what a call writes, where, and what it adds."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from omkd.engine import judge, powershell, shell, shell_forms, shell_lists, shell_rules, shell_words
from omkd.engine.events import ToolCall
from omkd.engine.metacog import rules
from omkd.engine.metacog.targets import normal_path
from omkd.engine.plain import fields_state, set_fields_state

FILE_EDIT: Final = "file_edit"
SHELL_WRITE: Final = "shell_write"
VCS: Final = "vcs"
DEPENDENCY: Final = "dependency"
DATA: Final = "data"
_REDIRECT: Final = re.compile(r"^(?:\d|&)?>>?(.*)$")
_HEREDOC: Final = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
_WRITING_PROGRAMS: Final[frozenset[str]] = (
    frozenset({"tee", "git"})
    | rules.IN_PLACE_PROGRAMS
    | rules.SHELL_WRITE_PROGRAMS
    | frozenset(rules.DEPENDENCY_WRITES)
    | rules.SQL_CLIENTS
)
"""The programs ``_stage_kind`` reads (with PowerShell's writers in any case and a Python launcher's
module); any other stage writes nothing but by a redirection."""
_REDIRECTION: Final = re.compile(
    r"(?<![0-9&<>=\-])>(?!&|>?\s*/dev/null)|&>(?!\s*/dev/null)|(?<![^\s;|&(])1>(?!&|>?\s*/dev/null)"
)
"""A redirection to a file (``>``, ``1>``, ``&>``; not ``2>``, ``>&2``, ``> /dev/null``, an arrow)."""
_PATCH_FILE: Final = re.compile(r"^\*\*\* (Add|Update|Delete) File:\s*(.+)$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Write:
    """One write operation."""

    kind: str
    paths: tuple[str, ...]
    """Every path it writes (normalised)."""
    created: tuple[str, ...]
    """Paths it creates (§8.3.4)."""
    added: str
    """The text it adds (contents, new strings, ``+`` lines, heredoc bodies, echoed text)."""
    packages: tuple[str, ...] = ()
    """A dependency write's package operands (a ``curl … | sh`` its URL)."""

    @property
    def scratch(self) -> bool:
        """Every path it writes is scratch space (§8.3.2); a write without paths never is."""
        return bool(self.paths) and all(_scratch(p) for p in self.paths)

    def __getstate__(self) -> list[object]:  # a compiled frozen dataclass pickles only so (mypyc 1213)
        return fields_state(self)

    def __setstate__(self, state: list[object]) -> None:
        set_fields_state(self, state)


def _scratch(path: str) -> bool:
    return (
        path.startswith(rules.SCRATCH_PREFIXES)
        or path in rules.SCRATCH_DIRS
        or bool(rules.SCRATCH_WINDOWS.search(path))
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def write_of(call: ToolCall, tool: str | None = None) -> Write | None:
    """The write a call makes (None for a call that writes nothing); ``tool``: the call's tool
    unwrapped (``judge.unwrapped``), when the caller has it."""
    if tool is None:
        tool = judge.unwrapped(call.tool)
    inner = call.tool.rsplit("__", 1)[-1] if call.tool.startswith("mcp__") else tool
    if inner in rules.NOT_WRITES or tool in rules.NOT_WRITES:
        return None
    data = call.input
    if inner in rules.FILE_EDIT_TOOLS:
        return _file_edit(inner, data)
    if tool in shell_rules.SHELL_TOOLS:
        command = data.get("command")
        if isinstance(command, list):
            command = " ".join(str(w) for w in command)
        return shell_write(command) if isinstance(command, str) else None
    if call.tool.startswith("mcp__"):
        for key in rules.SQL_INPUT_KEYS:
            if rules.SQL_WRITE.match(_text(data.get(key))):
                return Write(DATA, (), (), "")
    return None


def _file_edit(tool: str, data: dict[str, Any]) -> Write:
    if tool == "apply_patch":
        return _patch(_text(data.get("input") or data.get("patch") or data.get("command")))
    path = normal_path(_text(data.get("file_path") or data.get("notebook_path") or data.get("path")))
    paths = (path,) if path else ()
    if tool in ("Write", "write_file"):
        return Write(FILE_EDIT, paths, paths, _text(data.get("content")))
    if tool == "MultiEdit":
        edits = [e for e in data.get("edits") or [] if isinstance(e, dict)]
        created = paths if edits and edits[0].get("old_string") == "" else ()
        return Write(FILE_EDIT, paths, created, "\n".join(_text(e.get("new_string")) for e in edits))
    if tool == "NotebookEdit":
        return Write(FILE_EDIT, paths, (), _text(data.get("new_source")))
    created = paths if data.get("old_string") == "" else ()
    return Write(FILE_EDIT, paths, created, _text(data.get("new_string")))


def _patch(text: str) -> Write:
    paths, created = [], []
    for kind, path in _PATCH_FILE.findall(text):
        paths.append(normal_path(path.strip()))
        if kind == "Add":
            created.append(normal_path(path.strip()))
    added = "\n".join(line[1:] for line in text.splitlines() if line.startswith("+") and not line.startswith("+++"))
    return Write(FILE_EDIT, tuple(paths), tuple(created), added)


def _heredoc_bodies(command: str) -> list[str]:
    bodies: list[str] = []
    closing: list[str] = []
    current: list[str] = []
    for line in command.split("\n"):
        if closing:
            if line.strip() == closing[0]:
                closing.pop(0)
                bodies.append("\n".join(current))
                current = []
            else:
                current.append(line)
            continue
        closing.extend(m.group(2) for m in _HEREDOC.finditer(line))
    return bodies


def shell_write(command: str) -> Write | None:
    """The write a shell command makes, its kinds merged (the hardest kind named): None when none.
    It reads ``shell.parse`` (cached: the judge reads the same command when its result comes), stage by
    stage; a regular expression over the whole command cost more than that walk."""
    if "*** Begin Patch" in command:
        return _patch(command)
    redirecting = _redirecting(command)
    kinds: list[str] = []
    paths: list[str] = []
    created: list[str] = []
    added: list[str] = []
    packages: list[str] = []
    for pipeline in shell.parse(command).elements:
        before: shell.Stage | None = None
        for stage in pipeline:
            for part in _blocks(stage):
                kind = _stage_kind(part.program, part.args, paths, created, packages)
                if kind is not None:
                    kinds.append(kind)
            if stage.program in rules.PIPE_SHELLS and before is not None and before.program in ("curl", "wget"):
                kinds.append(DEPENDENCY)
                packages += shell_forms.operands(before.args)
            before = stage
    if redirecting:
        for _, text in shell_lists.parts(command):
            if ">" not in text:
                continue
            targets = _redirections([w.strip("'\"") for w in shell_words.words(text)])
            if targets:
                kinds.append(SHELL_WRITE)
                paths += targets
                created += targets
                stage = shell.stage_of(text)
                if stage.program in ("echo", "printf"):
                    added.append(" ".join(stage.args))
    if not kinds:
        return None
    if "<<" in command:
        added += _heredoc_bodies(command)
    order = (DATA, DEPENDENCY, VCS, SHELL_WRITE, FILE_EDIT)
    kind = next(k for k in order if k in kinds)
    return Write(
        kind, tuple(normal_path(p) for p in paths), tuple(normal_path(p) for p in created), "\n".join(added),
        tuple(packages),
    )  # fmt: skip


def _redirecting(command: str) -> bool:
    """The command redirects into a file somewhere. ``2>&1`` and ``2>/dev/null``, the common ``>`` that
    never write, are set aside by a plain replace first: most commands then hold no ``>`` at all."""
    if ">" not in command:
        return False
    if ">" not in command.replace("2>&1", "").replace("2>/dev/null", ""):
        return False
    return _REDIRECTION.search(command) is not None


def _blocks(stage: shell.Stage) -> list[shell.Stage]:
    """The commands of a stage holding script blocks (PowerShell's ``foreach (…) { Remove-Item $p }``,
    ``if (…) { … }``, ``ForEach-Object { … }``): each run of words between ``{`` and ``}`` is a
    command of its own. A stage without a bare brace is itself."""
    if "{" not in stage.args and "}" not in stage.args:
        return [stage]
    parts: list[shell.Stage] = []
    run: list[str] = []
    for word in [stage.program, *stage.args, "}"]:
        if word not in ("{", "}"):
            run.append(word)
            continue
        if run:
            parts.append(shell.Stage(run[0], run[1:]))
        run = []
    return parts


def _redirections(words: list[str]) -> list[str]:
    found: list[str] = []
    for i, word in enumerate(words):
        if ">" not in word or word.startswith("2>") or word.startswith("<"):
            continue
        match = _REDIRECT.match(word)
        if match is None:
            continue
        target = match.group(1) or (words[i + 1] if i + 1 < len(words) else "")
        if target.startswith("&") or target in rules.NOT_WRITE_TARGETS or not target:
            continue
        found.append(target)
    return found


def powershell_operands(writer: powershell.Cmdlet, args: list[str]) -> list[str]:
    """A PowerShell writer's paths, its destination last: its arguments bound as PowerShell binds
    them (``powershell.bind``); a value that is no path (``-Value``, ``-ItemType``, ``-Encoding``) and a
    switch (``-Force``) are left out."""
    bound = powershell.bind(writer, args)
    paths = bound.of(powershell.PATH)
    if bound.of(powershell.NAME):  # ``New-Item -Path dir -Name x``: ``dir/x``
        paths = [f"{p.rstrip('/')}/{n}" for p in paths or ["."] for n in bound.of(powershell.NAME)]
    return [p for p in paths + bound.of(powershell.DESTINATION) if p]


def python_module(args: list[str]) -> tuple[str, list[str]] | None:
    """The program a Python launcher runs as a module (``python -m pip install X``: ``pip``, with
    ``install X``), past the launcher's own options (``py -3.12``, ``-W error``); None for any other."""
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
        elif arg == "-m":
            module = args[i + 1] if i + 1 < len(args) else ""
            return (module, args[i + 2 :]) if module in rules.PYTHON_MODULE_PROGRAMS else None
        elif not arg.startswith("-"):
            return None  # a script
        else:
            skip = arg in rules.PYTHON_VALUE_OPTIONS
    return None


def _stage_kind(program: str, args: list[str], paths: list[str], created: list[str], packages: list[str]) -> str | None:
    launcher = rules.PYTHON_LAUNCHERS.match(program) is not None
    if not launcher and program not in _WRITING_PROGRAMS and powershell.writer(program) is None:
        return None  # most stages: read before any list is made
    module = python_module(args) if launcher else None
    if module is not None:
        program, args = module
    valued = rules.WRITE_VALUE_OPTIONS.get(program)
    if valued is not None:  # an option's value is no path
        args = [a for i, a in enumerate(args) if a in valued or i == 0 or args[i - 1] not in valued]
    operands = shell_forms.operands(args)
    writer = powershell.writer(program)
    if writer is not None:
        program, operands = writer.name, powershell_operands(writer, args)
    if program == "tee":
        paths += operands
        created += operands
        return SHELL_WRITE if operands else None
    if program in rules.IN_PLACE_PROGRAMS:
        if shell_rules.edits_in_place(program, args):
            paths += operands[1:]  # after the script
            return SHELL_WRITE
        return None
    if program in rules.SHELL_WRITE_PROGRAMS:
        files = operands[1:] if program in ("chmod", "chown") else operands
        if program == "dd":
            files = [a[3:] for a in args if a.startswith("of=")]
        copying = program in rules.COPYING_PROGRAMS and len(files) >= 2
        paths += files[-1:] if copying else files
        if program in rules.DESTINATION_PROGRAMS and len(files) >= 2:
            created.append(files[-1])
        if program in rules.CREATING_PROGRAMS:
            created += files
        return SHELL_WRITE
    if program == "git":
        sub = git_subcommand(args)
        if sub is None or sub[0] not in rules.VCS_WRITES:
            return None
        if sub[0] == "stash" and sub[1][:1] and sub[1][0] in rules.VCS_READ_STASH:
            return None
        return VCS
    subs = rules.DEPENDENCY_WRITES.get(program)
    if subs is not None and operands and operands[0] in subs:
        named = operands[1:]
        if program == "uv" and operands[0] in ("pip", "tool"):
            if len(operands) < 2 or operands[1] != "install":
                return None
            named = operands[2:]
        if program in rules.BARE_RESTORES and operands[0] in ("install", "i") and not named:
            return None
        packages += named
        return DEPENDENCY
    if program in rules.SQL_CLIENTS and any(rules.SQL_WRITE.match(s) for s in sql_statements(args)):
        return DATA
    return None


def sql_statements(args: list[str]) -> list[str]:
    """The statements a SQL client's arguments carry (``-c``/``-e``/``--query`` values, operands with a space)."""
    statements = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-c", "-e", "--query", "-q")]
    return statements + [o for o in shell_forms.operands(args) if " " in o]


def git_subcommand(args: list[str]) -> tuple[str, list[str]] | None:
    """``git``'s subcommand and its arguments, after git's own options (``--no-pager``, ``-C DIR``)."""
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg in ("-C", "-c", "--git-dir", "--work-tree"):
            skip = True
            continue
        if arg.startswith("-"):
            continue
        return arg, args[i + 1 :]
    return None
