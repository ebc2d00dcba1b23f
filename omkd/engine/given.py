"""What of a failed call the person may have typed earlier (spec §3.1's ``user_given``).

A miss of something the person named is their thing missing, not the knowledge: the literal names a
search looked for (a Glob's file name, a plain Grep pattern, ``find -name X``, ``ls X``), a Glob's
wildcard name matched against the names they typed, and the paths a shell command's readers and
probes named (``cat``, ``sed -n``, ``ls``, ``test -e``, ``stat``…), compared as ``Read``'s path is.
``calls.py`` asks these of a miss and searches the stream's typed prompts.
"""

from __future__ import annotations

import functools
import re
from typing import Final

from omkd.engine import judge, powershell, probe_rules, search_pattern, shell, shell_rules
from omkd.engine.events import ToolCall
from omkd.engine.shell_reads import reads


def search_targets(call: ToolCall) -> list[str]:
    """The literal names a search looked for, for the user-given rule: a Glob's file name, a plain
    Grep pattern (a name, or a proper name of several words), ``find -name X``, ``ls X``, a probe's
    name. Patterns with wildcards in the name give none."""
    tool = judge.unwrapped(call.tool)
    if tool == "Glob":
        return _file_name(_glob_name(call))
    if tool == "Grep":
        return _named(judge.first_input(call, ("pattern",)))
    if tool in shell_rules.SHELL_TOOLS:
        command = call.input.get("command")
        return _shell_names(command) if isinstance(command, str) else []
    return []


def _shell_names(command: str) -> list[str]:
    """The names a shell command's searches and probes looked for; a reader's file is not one (a bare file
    name the person typed, read in a directory the agent guessed, is a gap: ``probed_paths`` has its path)."""
    parsed = shell.parse(command)
    names: list[str] = []
    for stage in parsed.searches:
        if stage.program in shell_rules.FILE_READERS:
            continue
        literal = _command_names if shell.probes_a_command(stage) else _file_name  # ``find -name``, ``ls``
        names += [n for name in shell.targets_of(stage) for n in literal(name)]
        if _searches_text(stage):
            names += _named(search_pattern.stage_pattern(stage, None) or "")  # a grep/rg of a name, as a Grep of it
    for stage, probe in parsed.probes:  # a probe of a path (``Test-Path``) is judged as ``test -e`` is
        if not probe.paths:
            names += [n for name in probe_rules.probed(stage.program, stage.args, probe) for n in _literal(name)]
    return names


def _searches_text(stage: shell.Stage) -> bool:
    """A content search stage (``grep``, ``rg``, ``Select-String``, ``git grep``…)."""
    return stage.program in shell_rules.CONTENT_SEARCHES or (stage.program == "git" and stage.args[:1] == ["grep"])


_NOT_IN_A_NAME: Final = "*?[]{}()|^$\\+ "
"""Wildcards, regex syntax and a space: a pattern holding one is no single name the person typed."""
_NAME_LIKE = re.compile(r"[._\-0-9]|[a-z][A-Z]")
"""A word that reads as a name: a file name's dot, an identifier's ``_``, ``-``, digit or inner capital."""
_FILE_NAME_LIKE = re.compile(r"[A-Z]{4,}|[A-Z][a-z]+file")
"""A file's name without those, as a file-name search looks for it: in capitals (``CODEOWNERS``,
``LICENSE``), a build file's (``Dockerfile``, ``Procfile``). Searched in a file's text, such a word is
the person's wording (``ERROR``, ``SIGINT``)."""
_GLOB_WILDCARD = re.compile(r"\*+|\?|\{[^{}]*\}")
_NAME_CHAR = r"[A-Za-z0-9_.\-]"


def search_shape(call: ToolCall) -> re.Pattern[str] | None:
    """A Glob's file name with wildcards (``sitemap*``, ``*RetryPolicy*.ts``) as an expression matching
    a typed name, for the user-given rule: a name the person typed that the Glob would have found is
    what it looked for. Only when a literal part of the name, before any dot, has three characters or
    more: ``*.tsx`` looks for every file of a kind, not for one the person named."""
    if judge.unwrapped(call.tool) != "Glob":
        return None
    name = _glob_name(call)
    if not _GLOB_WILDCARD.search(name) or "[" in name:
        return None
    if not any(len(part.split(".", 1)[0]) >= 3 for part in _GLOB_WILDCARD.split(name)):
        return None
    return _shape(name)


def _glob_name(call: ToolCall) -> str:
    """The file-name part of a Glob's pattern (its last component)."""
    return judge.first_input(call, ("pattern",)).replace("\\", "/").rsplit("/", 1)[-1]


@functools.lru_cache(maxsize=256)
def _shape(name: str) -> re.Pattern[str]:
    body: list[str] = []
    position = 0
    for wildcard in _GLOB_WILDCARD.finditer(name):
        body.append(re.escape(name[position : wildcard.start()]))
        text = wildcard.group()
        if text.startswith("*"):
            body.append(f"{_NAME_CHAR}*")
        elif text == "?":
            body.append(_NAME_CHAR)
        else:
            body.append("(?:" + "|".join(re.escape(choice) for choice in text[1:-1].split(",")) + ")")
        position = wildcard.end()
    body.append(re.escape(name[position:]))
    return re.compile(rf"(?<![A-Za-z0-9_.\-]){''.join(body)}(?![A-Za-z0-9_\-])")


def typed_name(shape: re.Pattern[str], typed: str) -> str | None:
    """The first name in ``typed`` that ``shape`` matches and that reads as a name (a file name, an
    identifier); None without one."""
    return next((found.group() for found in shape.finditer(typed) if _NAME_LIKE.search(found.group())), None)


def _literal(name: str, files: bool = False) -> list[str]:
    """The name as a literal, when it reads as a name (a file name, an identifier; with ``files``, a file
    name search's ``_FILE_NAME_LIKE`` too): a plain word such as ``retry`` is not something a person names
    as a thing to find. Wildcards at its ends are dropped (``launch_swu*`` looks for ``launch_swu…``)."""
    name = name.strip().strip("'\"").strip("*")
    if len(name) < 3 or any(c in name for c in _NOT_IN_A_NAME):
        return []
    return [name] if _NAME_LIKE.search(name) or (files and _FILE_NAME_LIKE.fullmatch(name)) else []


def _file_name(name: str) -> list[str]:
    return _literal(name, files=True)


def _command_names(names: str) -> list[str]:
    """The programs a search for a program looked for (``which X``, ``type X``, ``command -v X``,
    ``Get-Command a,b``): each is a name whatever it reads like (``nca`` or ``uv`` is a command, not a word
    of the person's sentence). A probe that runs the program (``X --version``) is no search of a name
    (spec §3.1 lists it with the probes): ``_literal`` reads it."""
    found = [part.strip().strip("'\"") for part in names.split(",")]
    return [name for name in found if len(name) >= 2 and not any(c in name for c in _NOT_IN_A_NAME + "/")]


def _named(pattern: str) -> list[str]:
    """A content search's pattern as a name: a literal name (``_literal``; its escaped punctuation read as
    itself), or a proper name of several
    words (``Maple Mono``, ``Visual Studio Code``: each word capitalised or a number). A phrase of plain
    words (``error handling``) is the person's wording, not a thing they named. A pattern of several
    alternatives is not one name (one of them typed by the person does not make the search theirs)."""
    phrase = pattern.strip().strip("'\"")
    return [phrase] if _PROPER_NAME.fullmatch(phrase) else _literal(_ESCAPED.sub(r"\1", pattern))


_ESCAPED: Final = re.compile(r"\\([^\w\s])")
"""An escaped punctuation mark is itself: ``legacy_pricing\\.csv`` looks for ``legacy_pricing.csv``."""


def alternative_names(call: ToolCall) -> list[str]:
    """The alternatives of a content search's pattern when it has several and every one is a name
    (``_named``): ``Maple Mono|MapleMono|NF CN``. The search is the person's when each is a name they typed
    or one of those names spelled without its spaces or in another case (``calls``); one typed alternative
    beside words of the agent's own does not make it theirs."""
    tool = judge.unwrapped(call.tool)
    if tool == "Grep":
        patterns = [judge.first_input(call, ("pattern",))]
    elif tool in shell_rules.SHELL_TOOLS and isinstance(command := call.input.get("command"), str):
        stages = [stage for stage in shell.parse(command).searches if _searches_text(stage)]
        patterns = [search_pattern.stage_pattern(stage, None) or "" for stage in stages]
    else:
        return []
    names: list[str] = []
    for pattern in patterns:
        alternatives = [_named(alternative) for alternative in _ALTERNATIVES.split(pattern.strip().strip("'\""))]
        if len(alternatives) < 2 or not all(len(named) == 1 for named in alternatives):
            return []
        names += [named[0].strip() for named in alternatives]  # as the person wrote it (``\.`` read as ``.``)
    return names


_ALTERNATIVES: Final = re.compile(r"\\?\|")
_PROPER_NAME = re.compile(r"[A-Z][A-Za-z0-9.+#\-]*(?: (?:[A-Z]|[0-9])[A-Za-z0-9.+#\-]*){1,4}")


def probed_paths(call: ToolCall) -> list[str]:
    """The paths a shell command's readers and probes named (``cat``, ``sed -n``, ``ls``, ``test -e``…),
    as written: a path the person typed reads as ``Read``'s does."""
    command = call.input.get("command")
    if judge.unwrapped(call.tool) not in shell_rules.SHELL_TOOLS or not isinstance(command, str):
        return []
    rule = shell_rules.SHELL_RULE
    paths = reads(command)  # the readers' files (a sed script, a head -n count left out)
    parsed = shell.parse(command)
    for stage in parsed.searches + parsed.tests:
        if stage.program in rule.test_programs or (
            stage.program in rule.path_programs and stage.program not in shell_rules.SHELL_READERS
        ):
            named = powershell.paths(stage.program, stage.args)  # a filter is a name, not a path
            named = shell.paths_of(stage) if named is None else named
            paths.extend(a for a in named if not a.isdigit() and a not in ("]", "]]"))
        elif stage.program == "type":  # cmd's and PowerShell's ``type docs\\x.md`` reads a file (bash's, a name)
            paths.extend(a for a in shell.paths_of(stage) if "/" in a or "\\" in a)
    return [_SHELL_ESCAPE.sub(r"\1", path) if "\\" in path else path for path in paths]


_SHELL_ESCAPE = re.compile(r"""\\([()\[\]{}'"&;|<>*?$!#~=,@ ])""")
"""A backslash before a character the shell would read (``app/\\(admin\\)/x.ts``): the path is the
character itself. Only these: a Windows path's backslashes separate its parts."""


_ASCII_WORD: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_JOINS_BEFORE: Final = _ASCII_WORD | frozenset("./\\")
"""What continues a name on its left (the tail of a longer path or word) or on its right."""


def each_typed(typed: str, names: list[str]) -> bool:
    """Each name stands in ``typed`` (``mentions``), or is one that does spelled without its spaces or in
    another case (``MapleMono`` beside a typed ``Maple Mono``)."""
    spelled = {_spelling(name) for name in names if mentions(typed, name)}
    return bool(spelled) and all(_spelling(name) in spelled for name in names)


def _spelling(name: str) -> str:
    return name.replace(" ", "").casefold()


def mentions(prompt: str, name: str, path: bool = False) -> bool:
    """``name`` stands in ``prompt`` as a whole (not as the tail of a longer path or word). Only ASCII
    letters and digits join a name: in ``可以用launch_swu.sh`` the name stands alone (and ``launch_swu``,
    a search's stem, is named by it). A ``path`` goes on after a dot and a letter: ``docs/setup.md.bak``
    typed is another file than ``docs/setup.md``. (Found with ``str.find`` and a look at each side: a
    regular expression per name cost a compile per miss.)"""
    start = prompt.find(name)
    while start >= 0:
        end = start + len(name)
        after = prompt[end : end + 2]
        if (start == 0 or prompt[start - 1] not in _JOINS_BEFORE) and (
            not after or (after[0] not in _ASCII_WORD and not (path and after[0] == "." and after[1:] in _ASCII_WORD))
        ):
            return True
        start = prompt.find(name, start + 1)
    return False


def http_urls(call: ToolCall) -> list[str]:
    """The URLs a shell command's HTTP clients asked for (``curl -s -o /dev/null -w … URL``), as written."""
    command = call.input.get("command")
    if not isinstance(command, str) or "://" not in command:
        return []
    return [a.strip("'\"") for stage in shell.parse(command).http for a in stage.args if "://" in a]


def typed_url(typed: str, url: str) -> bool:
    """``url`` stands whole in ``typed``, a slash at its end, a query or a fragment aside (the same page): not
    the start of a longer path (``https://docs.x.dev`` fetched is not the ``https://docs.x.dev/v2/limits``
    typed)."""
    base = url.rstrip("/")
    if not base or base not in typed:
        return False
    return re.search(re.escape(base) + r"/?(?![\w/\-=&%~+:@])", typed) is not None
