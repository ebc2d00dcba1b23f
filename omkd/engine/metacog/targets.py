"""What a search looked for (spec §8.2): its targets and tokens, whether it is specific (§8.1.2),
whether a later search has the same target, and whether a lookup's output names it."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Final

from omkd.engine import judge, loop_items, patterns, powershell, shell, shell_forms, shell_output, shell_rules
from omkd.engine.events import ToolCall, ToolResult
from omkd.engine.metacog import grep_args, rules
from omkd.engine.plain import fields_state, set_fields_state

_WILDCARDS: Final = re.compile(r"[*?\[\]{},]+")
_EXTENSION: Final = re.compile(r"\.[A-Za-z0-9]{1,6}$")
_BARE_EXTENSION: Final = re.compile(r"^\.[A-Za-z0-9]{1,6}$")
_TOKEN: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:[.\-][A-Za-z0-9_]+)*")
_CLASSES: Final = re.compile(r"\\([^A-Za-z0-9\s])|\[[^\]]*\]|\\[A-Za-z]")
"""An escaped punctuation character (``\\.``, ``\\-``: that character), a character class, a letter escape."""
_REGEX_SYNTAX: Final = re.compile(r"[\\^$*+?()\[\]{}|]")
_ALTERNATION: Final = re.compile(r"\\?\|")
_ANCHORS: Final = re.compile(r"^(?:\^|\\b)|(?:\$|\\b)$")
"""A line's start or end, or a word boundary, at an alternative's ends: where the text is, not what."""
_MARKED: Final = re.compile(r"[._\-0-9]")
_NAME_LIKE: Final = re.compile(r"[._\-0-9]|[a-z][A-Z]")
_WORD_CHARS: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_HOME_PREFIXES: Final = ("$HOME/", "${HOME}/", "~/")
_HOMES: Final = frozenset({"$HOME", "${HOME}", "$HOME/", "${HOME}/"})


@dataclass(frozen=True, slots=True)
class Target:
    """What one search call looked for."""

    content: bool
    """A content search (grep family): location equality never makes a same target."""
    paths: tuple[str, ...] = ()
    """File and directory targets, normalised (``~`` for home, no leading ``./``)."""
    names: tuple[str, ...] = ()
    """Names looked for (a Glob's last component, ``find -name``, ``which X``, ``*X*`` of a name probe)."""
    tokens: tuple[str, ...] = ()
    literals: tuple[str, ...] = ()
    """A content search's plain alternatives (≥ 4 characters)."""
    web: bool = False
    """A web search: two shared tokens make a same target (one when it has at most two)."""
    probe: bool = False
    """A name probe (``ls | grep X``)."""
    specific: bool = False
    why: str = ""
    """Why it is not specific (empty when it is)."""

    @property
    def strong(self) -> tuple[str, ...]:
        return tuple(t for t in self.tokens if strong(t))

    @property
    def lasts(self) -> frozenset[str]:
        """Last components of its paths and its literal names, lower-cased."""
        found = {_last(p).lower() for p in self.paths}
        found.update(n.lower() for n in self.names if not _WILDCARDS.search(n))
        return frozenset(x for x in found if x)

    def __getstate__(self) -> list[object]:  # a compiled frozen dataclass pickles only so (mypyc 1213)
        return fields_state(self)

    def __setstate__(self, state: list[object]) -> None:
        set_fields_state(self, state)


NOTHING: Final = Target(content=False, why="looks for nothing omkd can name")


def strong(token: str) -> bool:
    """§8.2.2: ≥ 6 characters, or ≥ 4 with a dot, underscore, dash or digit."""
    return len(token) >= rules.STRONG_LONG or (len(token) >= rules.MIN_TOKEN and bool(_MARKED.search(token)))


_HOME_DIR: Final = re.compile(r"^(?:/home/[^/]+|/Users/[^/]+|/root)(?=/|$)")


def normal_path(path: str) -> str:
    path = path.strip().strip("'\"")
    if path in _HOMES:
        return "~"
    for prefix in _HOME_PREFIXES:
        if path.startswith(prefix):
            path = "~/" + path[len(prefix) :]
            break
    if path.startswith(("/home/", "/Users/", "/root")):
        path = _HOME_DIR.sub("~", path, count=1)
    while path.startswith(("./", ".\\")):  # PowerShell's ``.\\x`` as ``./x``
        path = path[2:]
    return path.rstrip("/") or path


def _last(path: str) -> str:
    return posixpath.basename(path.replace("\\", "/").rstrip("/"))


def tokens_of(text: str) -> list[str]:
    """Identifiers of ≥ 4 characters (dotted and kebab names whole), generic words left out."""
    return [t for t in _TOKEN.findall(text) if len(t) >= rules.MIN_TOKEN and t.lower() not in rules.STOP_WORDS]


def _name_literal(name: str) -> bool:
    """A file-name pattern with a literal of ≥ 3 characters besides its extension (a dotfile's
    name, ``.bashrc``, ``.env*``, is no extension: nothing stands before its dot)."""
    stem = name if _BARE_EXTENSION.match(name.rstrip("*?")) else _EXTENSION.sub("", name)
    return any(sum(c.isalnum() for c in piece) >= rules.MIN_GLOB_LITERAL for piece in _WILDCARDS.split(stem))


def specific_name(name: str) -> bool:
    """A name that names something (§8.1.2): literal, or a pattern with a literal of ≥ 3 characters
    besides its extension (``**/NOTES*``; not ``*``, ``.*``, ``*.md``)."""
    return not _WILDCARDS.search(name) or _name_literal(name)


def _name_tokens(name: str) -> list[str]:
    """A name pattern's literal pieces (an extension alone is no token: the stop list's
    extensions) and its identifiers."""
    found = [
        p
        for p in _WILDCARDS.split(name)
        if len(p.strip(".")) >= rules.MIN_GLOB_LITERAL and not _BARE_EXTENSION.match(p)
    ]
    return [*found, *(t for t in tokens_of(name) if t not in found)]


def _content(pattern: str, paths: list[str]) -> Target:
    cleaned = _CLASSES.sub(lambda m: m.group(1) or " ", pattern)
    pieces = (_ANCHORS.sub("", a) for a in _ALTERNATION.split(pattern))
    literals = tuple(a for a in pieces if len(a) >= rules.MIN_CONTENT_LITERAL and not _REGEX_SYNTAX.search(a))
    tokens = tuple(dict.fromkeys(tokens_of(cleaned)))
    specific = bool(literals) or any(strong(t) for t in tokens)
    return Target(
        True, tuple(normal_path(p) for p in paths), (), tokens, literals, specific=specific,
        why="" if specific else "content search without a literal of 4 characters or a strong token",
    )  # fmt: skip


def _file(path: str) -> Target:
    path = normal_path(path)
    last = _last(path)
    tokens = tuple(tokens_of(last)) or ((last,) if len(last) >= rules.MIN_TOKEN else ())
    return Target(  # a file target: its last component is a name (§8.2.1)
        False, (path,), (last,) if last else (), tokens, specific=bool(path), why="" if path else "no path"
    )


def _names(names: list[str], paths: list[str], probe: bool = False) -> Target:
    specific = any(_name_literal(n) for n in names)
    tokens = tuple(dict.fromkeys(t for n in names for t in _name_tokens(n)))
    return Target(
        False, tuple(normal_path(p) for p in paths), tuple(names), tokens, probe=probe, specific=specific,
        why="" if specific else "a wildcard survey (no literal of 3 characters besides the extension)",
    )  # fmt: skip


def target_of(call: ToolCall, cwd: str | None = None, result: ToolResult | None = None) -> Target:
    """The target of a search call (``NOTHING`` for a call that names nothing); ``cwd``, the
    stream's working directory, is no Glob's directory target (§8.2.1); ``result``, a miss's answer,
    tells which items of a shell loop of probes missed (``loop_items``)."""
    tool = judge.unwrapped(call.tool)
    data = call.input
    if tool in ("Read", "list_directory", "LS"):
        path = judge.first_input(call, (*patterns.PATH_KEYS, "path", "dir_path"))
        return _file(path) if path else NOTHING
    if tool == "Glob":
        pattern = judge.first_input(call, ("pattern",))
        base = judge.first_input(call, ("path",))
        here = normal_path(base) in (".", normal_path(cwd or "."))
        inside = base and not here
        return _names([_last(pattern) or pattern], [base] if inside else [])
    if tool == "Grep":
        pattern = judge.first_input(call, ("pattern", "query"))
        base = judge.first_input(call, ("path",))
        return _content(pattern, [base] if base else [])
    if tool == "WebFetch":
        url = judge.first_input(call, ("url", "prompt"))
        path = re.split(r"[?#]", url.split("://", 1)[-1], maxsplit=1)[0]  # no query, no fragment
        parts = [p for p in path.split("/")[1:] if len(p) >= rules.MIN_TOKEN]
        return Target(False, (), (), tuple(parts), specific=bool(url), why="" if url else "no URL")
    if tool == "WebSearch" or judge.is_mcp_search(call.tool):
        query = judge.first_input(call, ("query", "q", "search", "pattern", "prompt"))
        words = tuple(w for w in re.findall(r"[\w.\-]+", query) if len(w) >= rules.MIN_TOKEN)
        return Target(False, (), (), words, web=True, specific=bool(words), why="" if words else "empty query")
    if tool in shell_rules.SHELL_TOOLS:
        command = data.get("command")
        if isinstance(command, list):
            command = " ".join(str(w) for w in command)
        if not isinstance(command, str):
            return NOTHING
        output = shell_output.output_of(result.text, result.is_error, result.detail)[0] if result is not None else None
        return shell_target(command, output)
    return NOTHING


def shell_target(command: str, output: str | None = None) -> Target:
    """The targets of a shell command's search stages, merged. A loop's variable stands for the items
    ``output`` says missed, or for nothing when it does not say (never for the loop's variable itself)."""
    parsed = shell.parse(command)
    told = loop_items.told(command, output)
    parts: list[Target] = []
    for pipeline in parsed.elements:
        previous = ""
        found: list[Target] = []
        # a file read into a grep is where it looked (as Grep's path), not a name it looked for
        last_grep = max((at for at, stage in enumerate(pipeline) if stage.program in rules.GREP_PROGRAMS), default=-1)
        for at, stage in enumerate(pipeline):
            part = _stage_target(stage, previous, told, at < last_grep)
            if part is not None:
                found.append(part)
            previous = "ls" if grep_args.lists(stage) else stage.program
        if any(p.probe for p in found):  # ``ls DIR | grep X``: DIR is where it looked for X, not what
            found = [p for p in found if p.probe]
        parts.extend(found)
    if not parts:
        return NOTHING
    content = all(p.content for p in parts)
    specific = [p for p in parts if p.specific]
    return Target(
        content,
        tuple(dict.fromkeys(x for p in parts for x in p.paths)),
        tuple(dict.fromkeys(x for p in parts for x in p.names)),
        tuple(dict.fromkeys(x for p in parts for x in p.tokens)),
        tuple(dict.fromkeys(x for p in parts for x in p.literals)),
        probe=any(p.probe for p in parts),
        specific=bool(specific),
        why="" if specific else parts[0].why,
    )


def _stage_target(
    stage: shell.Stage, previous: str, told: dict[str, list[str]] | None = None, feeds: bool = False
) -> Target | None:
    program, args = stage.program, stage.args
    if program == "git" and args[:1] == ["grep"]:
        program, args = "grep", args[1:]
    if program == "rg" and "--files" in args:  # a listing: its ``-g`` globs are names, as find's ``-name``
        globs, files = shell_forms.rg_listed_names(args), grep_args.grep_parts(program, args)[1]
        return _names(globs, files) if globs else (_listed(files) if files else None)
    kept = powershell.name_filter(program, args)
    if kept is not None and previous in shell_rules.LISTINGS:  # PowerShell's ``ls | grep X``
        return _names([kept], [], probe=True)
    if program in rules.GREP_PROGRAMS:
        pattern, files, excluding = grep_args.grep_parts(program, args)
        if pattern is None and files:
            return _listed(files)
        if excluding or pattern is None:
            return None
        if previous in shell_rules.LISTINGS and not stage.by_xargs:  # ``| xargs grep X`` reads the files
            return _names([f"*{pattern}*"], [], probe=True)
        return _content(pattern, files)
    if program in ("find", "fd"):
        if program == "fd":
            names, roots = shell_forms.operands(args)[:1], shell_forms.operands(args)[1:2]
        else:
            names, roots = shell.targets_of(stage), [a for a in args[:1] if not a.startswith("-")]
        if not names:
            return Target(False, tuple(map(normal_path, roots)), why="find without a name")
        return _names(names, roots)
    if program in rules.NAME_PROGRAMS or shell.probes_a_command(stage):
        names = shell.targets_of(stage)  # ``Get-Command -Name gh -ErrorAction SilentlyContinue``: gh
        specific = any(names)
        return Target(False, (), tuple(names), tuple(names), specific=specific, why="" if specific else "no name")
    if program in rules.FILE_PROGRAMS:
        named = shell.paths_of(stage)  # not ``-Encoding utf8``, a count, sed's script
        operands = [item for o in named for item in loop_items.standing_for(o, told or {})]
        if not operands:
            return None
        lasts = [_last(o) for o in operands]
        specific = any(len(x) >= rules.MIN_PROBE_NAME and not _WILDCARDS.search(x) for x in lasts)
        tokens = tuple(t for x in lasts for t in (tokens_of(x) or ([x] if len(x) >= rules.MIN_TOKEN else [])))
        found_names: tuple[str, ...] = () if feeds else tuple(x for x in lasts if x)  # a file target: a name
        return Target(
            False, tuple(normal_path(o) for o in operands), found_names, tokens, specific=specific,
            why="" if specific else "a probe of a path whose last component is under 3 characters",
        )  # fmt: skip
    return None


def _listed(paths: list[str]) -> Target:
    """A listing of paths (``rg --files DIR``): file and directory targets."""
    lasts = [_last(p) for p in paths]
    tokens = tuple(t for x in lasts for t in (tokens_of(x) or ([x] if len(x) >= rules.MIN_TOKEN else [])))
    specific = any(len(x) >= rules.MIN_PROBE_NAME for x in lasts)
    why = "" if specific else "a probe of a path whose last component is under 3 characters"
    return Target(False, tuple(normal_path(p) for p in paths), (), tokens, specific=specific, why=why)


def same_target(miss: Target, later: Target) -> bool:
    """§8.2.3: a later search looks for what the miss looked for."""
    if not miss.content and (set(miss.paths) & set(later.paths)):
        return True
    if not miss.content:
        shared = {x for x in miss.lasts & later.lasts if len(x) >= rules.MIN_SAME_LAST}
        if shared:
            return True
    mine = {t.lower() for t in miss.strong}
    theirs = {t.lower() for t in later.tokens}
    common = mine & theirs
    if miss.web:
        return len(common) >= 2 or (len(common) >= 1 and len(miss.tokens) <= 2)
    return bool(common)


def naming_words(miss: Target) -> tuple[str, ...]:
    """§8.2.5: the words whose presence in a lookup's output names the miss."""
    words = [
        t for t in miss.tokens
        if (len(t) >= rules.NAMING_TOKEN and _MARKED.search(t)) or len(t) >= rules.NAMING_LONG
    ]  # fmt: skip
    words += [x for x in miss.literals if len(x) >= rules.NAMING_LITERAL and _NAME_LIKE.search(x)]
    return tuple(dict.fromkeys(words))


def names(output: str, words: tuple[str, ...]) -> str | None:
    """The first of ``words`` standing in ``output`` as a whole word (None when none does)."""
    for word in words:
        start = output.find(word)
        while start >= 0:
            end = start + len(word)
            if (start == 0 or output[start - 1] not in _WORD_CHARS) and (
                end == len(output) or output[end] not in _WORD_CHARS
            ):
                return word
            start = output.find(word, start + 1)
    return None
