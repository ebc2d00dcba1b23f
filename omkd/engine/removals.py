"""Checking that a removal is complete is not a gap (spec §3.1 ``verify_absence``).

When, earlier in the same segment (or in the same shell command), the agent removed or renamed
something — an edit whose ``old_string`` holds the search's literal target (≥ 4 characters) and whose
``new_string`` does not (``sed -i`` substitutions and ``/X/d`` deletions among them), or a file it
deleted or moved — a search for it that finds nothing confirms the edit. This module
says what a successful write removed (kept on the segment, bounded) and whether a miss looked for
it.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from typing import Final

from omkd.engine import (
    find_forms,
    judge,
    patches,
    powershell,
    probe_rules,
    same_path,
    search_pattern,
    shell,
    shell_forms,
    shell_rules,
)
from omkd.engine.events import ToolCall

MIN_TARGET: Final = 4
KEPT_EDITS: Final = 32
"""Edits remembered per segment (the newest)."""
KEPT_CHARS: Final = 8192
"""Characters kept of each side of an edit."""
EDIT_TOOLS: Final = frozenset({"Edit", "replace", "edit_file", "str_replace"})
PATCH_TOOLS: Final = frozenset({"apply_patch"})
MOVING: Final = frozenset({"mv", "Move-Item", "ren", "Rename-Item"})
_REGEX_SYNTAX: Final = re.compile(r"[\\^$.*+?()\[\]{}|]")
_ALTERNATION: Final = re.compile(r"\\?\|")
_SED_SUBSTITUTION: Final = re.compile(r"^s(.)(.+?)\1(.*?)\1[gI0-9]*$")
_SED_DELETION: Final = re.compile(r"^/(.+)/d$")
"""``sed -i '/PATTERN/d'``: the lines holding PATTERN removed (as an edit to nothing)."""
_GREP_FAMILY: Final = shell_rules.GREP_FAMILY | {"git"}  # git grep


def _name(tool: str) -> str:
    """The tool a call is judged as (``judge.unwrapped``: other agents' tools, wrapped tools), an
    MCP-wrapped edit tool by its own name too."""
    name = judge.unwrapped(tool)
    return name.rsplit("__", 1)[-1] if name.startswith("mcp__") else name


def removed_by(call: ToolCall) -> tuple[list[tuple[str, str]], list[str]]:
    """(old, new) text pairs an edit replaced, and the paths it deleted or moved away."""
    tool = _name(call.tool)
    data = call.input
    if tool in EDIT_TOOLS:
        old, new = data.get("old_string"), data.get("new_string")
        return (
            [(old[:KEPT_CHARS], new[:KEPT_CHARS] if isinstance(new, str) else "")] if isinstance(old, str) else []
        ), []
    if tool == "MultiEdit":
        edits = data.get("edits")
        pairs = [
            (e["old_string"][:KEPT_CHARS], str(e.get("new_string", ""))[:KEPT_CHARS])
            for e in (edits if isinstance(edits, list) else [])
            if isinstance(e, dict) and isinstance(e.get("old_string"), str)
        ]
        return pairs, []
    if tool in PATCH_TOOLS:
        text = data.get("input") or data.get("patch")
        return patches.envelope(text, KEPT_CHARS) if isinstance(text, str) else ([], [])
    if tool in shell_rules.SHELL_TOOLS:
        command = data.get("command") or data.get("cmd")
        if isinstance(command, list):
            command = " ".join(str(word) for word in command)
        return _shell(command) if isinstance(command, str) else ([], [])
    return [], []


def _shell(command: str) -> tuple[list[tuple[str, str]], list[str]]:
    if "*** Begin Patch" in command:
        return patches.envelope(command, KEPT_CHARS)
    pairs, paths = patches.unified(command, KEPT_CHARS)  # ``git apply <<'EOF'`` of a diff it holds
    for element in shell.parse(command).elements:
        for stage in element:
            program, args = stage.program, stage.args
            if program == "git" and args[:1] in (["rm"], ["mv"]):
                program, args = args[0], args[1:]
            # the operands only of the few programs that remove (most stages are of others)
            bound = powershell.paths(program, args)  # ``Remove-Item -Path P -ErrorAction Stop``: P
            if program in find_forms.DELETING:
                paths.extend(shell_forms.operands(args) if bound is None else bound)
            elif bound is not None and program in MOVING:  # ``Move-Item -Destination D -Path P``: P
                paths.extend(bound)
            elif program in MOVING:
                files = shell_forms.operands(args)
                if len(files) >= 2:
                    paths.extend(files[:-1])
            elif program == "find" and find_forms.deletes(args):  # ``find src -name 'legacy*' -delete``
                paths.extend(_deleted_names(args))
            elif shell_rules.edits_in_place(program, args):
                for word in _scripts(args):
                    found = _SED_SUBSTITUTION.match(word)
                    if found:
                        pairs.append((found.group(2), found.group(3)))
                    elif deleted := _SED_DELETION.match(word):
                        pairs.append((deleted.group(1), ""))
    return pairs, paths


def _deleted_names(args: list[str]) -> list[str]:
    """The names a deleting ``find`` looked for (``-name``/``-iname``), its outer ``*`` dropped
    (``legacy_retry*``: the files of ``legacy_retry``), when what is left is plain and ``MIN_TARGET``
    characters or more."""
    names = (name.strip("*") for name in find_forms.names(args, find_forms.FILE_NAMES))
    return [n for n in names if len(n) >= MIN_TARGET and not _WILDCARDS.search(n)]


def _scripts(args: list[str]) -> list[str]:
    """The operands of a ``sed`` or ``grep`` stage, its script or pattern first: ``shell_forms.operands``,
    and a word holding a space too (it was quoted: ``'s/^- ->/- /'`` is a script, not a redirection)."""
    plain = set(shell_forms.operands(args))
    return [a for a in args if a in plain or (" " in a and not a.startswith("-"))]


FILE: Final = "\0file"
"""The first piece of a ``Target`` that is a path looked at (``(FILE, path)``): the same file, not a text."""
Target = tuple[str, ...]
"""What a search looked for, as literal pieces that stand in this order on one line: one piece for a
plain literal, several for a pattern whose pieces are joined by ``.*`` (``import.*Seat.*from 'x'``)."""


def pattern_targets(pattern: str) -> list[Target]:
    """The alternatives of a search pattern as literal pieces: a plain alternative is one piece (of
    ``MIN_TARGET`` characters or more); one whose only syntax is ``.*``, ``.+`` or ``.*?`` between plain
    pieces is those pieces, in order, when one of them has ``MIN_TARGET`` characters or more."""
    found: list[Target] = []
    for part in _ALTERNATION.split(pattern):
        unanchored = part.removeprefix("^").removesuffix("$")  # an anchor says where, not what
        pieces = [_plain(piece) for piece in _GAP.split(unanchored)]
        if any(piece is None for piece in pieces):
            continue
        kept = tuple(piece for piece in pieces if piece)
        if kept and max(map(len, kept)) >= MIN_TARGET:
            found.append(kept)
    return found


_GAP: Final = re.compile(r"\.[*+]\??")
"""``.*``, ``.+``, ``.*?``: any text between two pieces of a pattern, on one line."""


def _plain(piece: str) -> str | None:
    """A piece of a pattern as the text it matches, or None when it holds regex syntax."""
    unescaped = _ESCAPED.sub("", piece)  # an escaped punctuation mark is itself, no syntax
    return None if _REGEX_SYNTAX.search(unescaped.replace(".", "")) else _ESCAPED.sub(r"\1", piece)


_ESCAPED: Final = re.compile(r"\\([^\w\s])")


def holds(text: str, target: Target) -> bool:
    """``text`` holds the target: its one piece anywhere, or its pieces in order on one line."""
    if len(target) == 1:
        return target[0] in text
    if target[0] not in text:  # the cheap test first: most edits hold none of it
        return False
    for line in text.splitlines():
        at = 0
        for piece in target:
            at = line.find(piece, at)
            if at < 0:
                break
            at += len(piece)
        else:
            return True
    return False


def search_literals(call: ToolCall) -> list[list[Target]]:
    """What a search looked for, as groups of targets (``Target``), each group a lookup that missed and
    wants its own explanation: a Grep/grep pattern's alternatives (``pattern_targets``), a Glob's or
    ``find -name``'s name without its wildcards, a path read, listed or tested (``(FILE, path)``).

    A shell command's greps group by pipeline: each pipeline of the list that greps for a literal
    looked for that (``grep X f; grep Y f``: two groups), while the greps of one pipeline read one
    another's lines (``grep -r X . | grep Y``: X gone leaves Y nothing to read, one group), and a file a
    grep or a reader before it read is in its group (``cat f | grep X`` after ``rm f``). A guard, a scope
    or a filter (``[ -f f ] &&``, ``-name '*.ts'``, ``grep -v``) is where it looked, no group. A command
    without such a grep is one group of every target it names."""
    tool = _name(call.tool)
    data = call.input
    if tool == "Grep":
        pattern = data.get("pattern")
        return _grouped(pattern_targets(pattern) if isinstance(pattern, str) else [])
    if tool == "Glob":
        pattern = data.get("pattern")
        if not isinstance(pattern, str):
            return []
        name = posixpath.basename(pattern.replace("\\", "/"))
        return _grouped([(p,) for p in re.split(r"[*?\[\]{}]+", name) if len(p) >= MIN_TARGET])
    if tool in ("Read", "list_directory", "LS"):
        path = data.get("file_path") or data.get("path") or data.get("dir_path")
        return [[(FILE, path)]] if isinstance(path, str) and path else []
    command = data.get("command") or data.get("cmd")
    if not isinstance(command, str):
        return []
    parsed = shell.parse(command)
    searching = {id(stage) for stage in parsed.searches}
    greps = [_pipeline_targets(element, searching) for element in parsed.elements]
    if any(greps):
        return [group for group in greps if group]
    found: list[Target] = []
    for stage in parsed.searches:  # ``ls src/old.ts``: that file; ``find -name 'old*'``: any of that name
        reads_paths = stage.program in shell_rules.SHELL_RULE.path_programs
        names = [] if reads_paths else [t.strip("*") for t in shell.targets_of(stage)]
        found += [(FILE, path) for path in shell.paths_of(stage)] if reads_paths else []
        found += [(name,) for name in names if len(name) >= MIN_TARGET]
    # ``test -e docs/OLD.md || echo gone``, ``Test-Path docs/OLD.md`` after ``git mv docs/OLD.md …``
    found += [(FILE, path) for stage in parsed.tests for path in shell.paths_of(stage)]
    for stage, probe in parsed.probes:
        probed = probe_rules.probed(stage.program, stage.args, probe)
        found += [(FILE, name) if probe.paths else (name,) for name in probed if len(name) >= MIN_TARGET]
    return _grouped(found)


def _pipeline_targets(element: list[shell.Stage], searching: set[int]) -> list[Target]:
    """What a pipeline that greps looked for: its greps' literals and files, and the files its readers and
    listings fed them (``cat src/x.ts | grep X`` after ``rm src/x.ts``: x.ts is gone); none without a grep."""
    found = [target for stage in element if id(stage) in searching for target in _grep_targets(stage)]
    if not found:
        return []
    readers = [stage for stage in element if stage.program in shell_rules.SHELL_RULE.path_programs]
    return found + [(FILE, path) for stage in readers for path in shell.paths_of(stage)]


def _grouped(targets: list[Target]) -> list[list[Target]]:
    return [targets] if targets else []


def _grep_targets(stage: shell.Stage) -> list[Target]:
    """The literal alternatives a grep stage looked for; none for a filter (``grep -v``)."""
    if stage.program not in _GREP_FAMILY:
        return []
    if stage.program == "git" and stage.args[:1] != ["grep"]:
        return []
    program, args = ("grep", stage.args[1:]) if stage.program == "git" else (stage.program, stage.args)
    if shell_forms.filters_out(program, args):
        return []
    pattern = search_pattern.stage_pattern(stage, None)  # what §6 says the stage looked for
    files = [(FILE, path) for path in shell.paths_of(stage) if path not in (pattern, "grep")]
    return (pattern_targets(pattern) if pattern else []) + files  # ``grep X f`` after ``rm f``: f is gone


_WILDCARDS: Final = re.compile(r"[*?\[\]{}]")


def targets_removed(call: ToolCall, paths: list[str]) -> bool:
    """A Glob or ``find`` that targets a removed path: a file-name pattern of it (holding a literal of
    ``MIN_TARGET`` characters or more) matches a removed file's name (``**/legacy_client*`` after ``mv
    legacy_client.py client.py``), or a directory it searches in is a removed directory
    (``src/legacy/**`` after ``git rm -r src/legacy``; ``find src/legacy -name '*.py'``)."""
    if not paths:
        return False
    names, folders = _searched(call)
    names = [n for n in names if any(len(piece) >= MIN_TARGET for piece in _WILDCARDS.split(n))]
    for path in paths:
        gone = posixpath.basename(path.replace("\\", "/").rstrip("/"))
        if any(fnmatch.fnmatchcase(gone, name) for name in names) or (len(gone) >= MIN_TARGET and gone in folders):
            return True
    return False


def _searched(call: ToolCall) -> tuple[list[str], set[str]]:
    """A Glob's or ``find``'s file-name patterns, and the last components of the directories it
    searches in (wildcard-free, ``MIN_TARGET`` characters or more)."""
    tool = _name(call.tool)
    if tool == "Glob":
        pattern, root = call.input.get("pattern"), call.input.get("path")
        if not isinstance(pattern, str):
            return [], set()
        parts = pattern.replace("\\", "/").split("/")
        folders = {p for p in parts[:-1] if len(p) >= MIN_TARGET and not _WILDCARDS.search(p)}
        if isinstance(root, str) and root:
            folders.add(posixpath.basename(root.replace("\\", "/").rstrip("/")))
        return [parts[-1]], folders
    command = call.input.get("command")
    if tool not in shell_rules.SHELL_TOOLS or not isinstance(command, str) or "find" not in command:
        return [], set()
    names: list[str] = []
    folders = set()
    for stage in shell.parse(command).searches:
        if stage.program != "find":
            continue
        args = stage.args
        names += find_forms.names(args, find_forms.FILE_NAMES)
        for root in args:
            if root.startswith(("-", "(", "!")):
                break
            folder = posixpath.basename(root.replace("\\", "/").rstrip("/"))
            if len(folder) >= MIN_TARGET and not _WILDCARDS.search(folder):
                folders.add(folder)
    return names, folders


def own_removal(call: ToolCall) -> bool:
    """A shell command that removes something and then looks for it (``sed -i '/X/d' f && grep X f``):
    the search in it confirms its own edit."""
    if _name(call.tool) not in shell_rules.SHELL_TOOLS:
        return False
    texts, paths = removed_by(call)
    return bool(texts or paths) and (
        confirms_removal(search_literals(call), texts, paths) or targets_removed(call, paths)
    )


def confirms_removal(looked_for: list[list[Target]], edits: list[tuple[str, str]], paths: list[str]) -> bool:
    """Each group of what a call looked for (``search_literals``) holds a removed target: one that was in
    an edit's old text and not in its new text, or that names a removed path — the path itself, its file
    name, or its file name without the extension (``grep middleware`` after ``rm src/middleware.ts``:
    what imports it names it so). A group with nothing removed looked for something still there."""
    return bool(looked_for) and all(any(_removed(t, edits, paths) for t in group) for group in looked_for)


def _removed(target: Target, edits: list[tuple[str, str]], paths: list[str]) -> bool:
    if target[0] == FILE:  # a path looked at: that file, or one inside a removed directory
        return any(same_path.same_or_inside(target[1], path) for path in paths)
    if any(holds(old, target) and not holds(new, target) for old, new in edits):
        return True
    if len(target) > 1:
        return False
    literal = target[0]
    name = posixpath.basename(literal.replace("\\", "/").rstrip("/"))
    for path in paths:
        gone = posixpath.basename(path.replace("\\", "/").rstrip("/"))
        stem = posixpath.splitext(gone)[0]
        if literal == path or (len(name) >= MIN_TARGET and name in (gone, stem)):
            return True
    return False
