"""PowerShell parameter binding: the cmdlets omkd reads and writes with, and how their words bind.

A cmdlet takes named parameters (``-Path x``, ``-Encoding utf8``, ``-Param:value``), positional
arguments and switches (``-Force``); cmdlet and parameter names are case-insensitive. The tables hold
each cmdlet's documented full parameter names and common aliases that take a value, with the role of
that value; any other ``-Name`` is a switch, and abbreviations other than these aliases are not read.
The readers and probes of spec §3.1 (``Get-Content``, ``Test-Path``, ``Get-ChildItem``,
``Select-String``) and the writers of §8.3.4 bind here (``shell``, ``search_pattern``, ``given``,
``shell_forms``, ``metacog.targets``, ``metacog.writes``).
"""

from __future__ import annotations

from typing import Final, NamedTuple

PATH: Final = "path"
NAME: Final = "name"
DESTINATION: Final = "destination"
VALUE: Final = "value"
PATTERN: Final = "pattern"
FILTER: Final = "filter"


class Cmdlet(NamedTuple):
    """A cmdlet's parameters: ``positions``, the role of each positional argument in turn (past them:
    ``value``); ``parameters``, the role of each lower-case name or alias that takes a value: ``path``,
    ``name`` (``New-Item -Name``: a name inside ``-Path``), ``destination``, ``pattern`` (Select-String's),
    ``filter`` (Get-ChildItem's), ``value`` (no path)."""

    name: str
    positions: tuple[str, ...]
    parameters: dict[str, str]


class Bound(NamedTuple):
    """A cmdlet's words bound: the values of each role in order, and the switches given (lower case)."""

    values: dict[str, list[str]]
    switches: frozenset[str]

    def of(self, role: str) -> list[str]:
        return self.values.get(role, [])


_COMMON: Final = (
    "erroraction", "ea", "warningaction", "wa", "informationaction", "infa", "progressaction", "proga",
    "errorvariable", "ev", "warningvariable", "wv", "informationvariable", "iv", "outvariable", "ov",
    "outbuffer", "ob", "pipelinevariable", "pv", "credential", "cred",
)  # fmt: skip
"""PowerShell's common parameters that take a value, and ``-Credential``."""
_PATHS: Final = ("path", "literalpath", "pspath", "lp")
_SELECT: Final = ("filter", "include", "exclude")
_CONTENT: Final = ("value", "encoding", *_SELECT, "stream")


def _cmdlet(cmdlet: str, positions: tuple[str, ...], values: tuple[str, ...], /, **others: str) -> Cmdlet:
    roles = {**dict.fromkeys(_COMMON, VALUE), **dict.fromkeys(values, VALUE), **others}
    return Cmdlet(cmdlet, positions, {**roles, **dict.fromkeys(_PATHS, PATH)})


READERS: Final = (
    _cmdlet(
        "Get-Content", (PATH,),
        ("readcount", "totalcount", "first", "head", "tail", "last", "delimiter", "encoding", *_SELECT, "stream"),
    ),
    _cmdlet("Test-Path", (PATH,), ("pathtype", "type", "olderthan", "newerthan", *_SELECT)),
    _cmdlet("Get-Item", (PATH,), (*_SELECT, "stream")),  # PowerShell's ``stat``
    _cmdlet("Resolve-Path", (PATH,), ("relativebasepath",)),  # and its ``realpath``
    _cmdlet("Get-ChildItem", (PATH, FILTER), ("exclude", "depth", "attributes"), filter=FILTER, include=FILTER),
    _cmdlet(  # PowerShell's ``which``: the names of the commands it looks for
        "Get-Command", (NAME,), ("module", "commandtype", "type", "totalcount", "parametername", "parametertype"),
        name=NAME,
    ),
    _cmdlet(
        "Select-String", (PATTERN, PATH), ("inputobject", "include", "exclude", "encoding", "context", "culture"),
        pattern=PATTERN,
    ),
)  # fmt: skip
"""The readers and probes of spec §3.1: ``Get-ChildItem src *.py`` binds ``*.py`` to ``-Filter``,
``Select-String foo a.txt`` ``foo`` to ``-Pattern``."""
WRITERS: Final = (
    _cmdlet("Set-Content", (PATH, VALUE), _CONTENT),
    _cmdlet("Add-Content", (PATH, VALUE), _CONTENT),
    _cmdlet("Out-File", (PATH, VALUE), ("encoding", "width", "inputobject"), filepath=PATH),
    _cmdlet("New-Item", (PATH,), ("itemtype", "type", "value"), name=NAME),
    _cmdlet("Remove-Item", (PATH, VALUE), (*_SELECT, "stream")),
    _cmdlet("Copy-Item", (PATH, DESTINATION), (*_SELECT, "fromsession", "tosession"), destination=DESTINATION),
    _cmdlet("Move-Item", (PATH, DESTINATION), _SELECT, destination=DESTINATION),
)
"""The writers of §8.3.4: ``Set-Content a.txt hi`` binds ``hi`` to ``-Value``, ``Out-File log.txt utf8``
to ``-Encoding``, ``Remove-Item x *.log`` to ``-Filter``."""
CMDLETS: Final = {c.name.lower(): c for c in READERS + WRITERS}
"""Every cmdlet here by lower-case name."""
_ALIASES: Final = {
    "sls": "select-string", "gc": "get-content", "gci": "get-childitem", "gcm": "get-command", "gi": "get-item",
    "rvpa": "resolve-path",
}  # fmt: skip
"""The aliases omkd's rules already read as these cmdlets (others, such as ``cat``, ``ls``, ``ni``, not)."""


def cmdlet(program: str) -> Cmdlet | None:
    """The cmdlet a program name is, in any case (``get-content`` is ``Get-Content``), or None."""
    lowered = program.lower()
    return CMDLETS.get(_ALIASES.get(lowered, lowered))


def writer(program: str) -> Cmdlet | None:
    """The writer (§8.3.4) a program name is, in any case, or None."""
    found = cmdlet(program)
    return found if found in WRITERS else None


def canonical(program: str) -> str:
    """The cmdlet's documented name for a program that is one by its full name (any case), else the
    program as written."""
    found = CMDLETS.get(program.lower()) if "-" in program else None
    return program if found is None else found.name


def _parameter(word: str) -> bool:
    return len(word) > 1 and word[0] == "-" and (word[1].isalpha() or word[1] == "_")


def bind(found: Cmdlet, args: list[str]) -> Bound:
    """The cmdlet's words bound as PowerShell binds them: ``-Param value`` and ``-Param:value`` by name
    (any case), a switch (``-Force``) kept aside, the rest by position; ``--%`` (stop parsing) is left out."""
    values: dict[str, list[str]] = {}
    switches: set[str] = set()
    positions = iter(found.positions)
    role: str | None = None
    for arg in _arrays(args):
        if role is not None:
            values.setdefault(role, []).append(arg)
            role = None
        elif arg == "--%":
            continue
        elif _parameter(arg):
            name, colon, value = arg[1:].partition(":")
            role = found.parameters.get(name.lower())
            if role is None:
                switches.add(name.lower())
            elif colon and value:
                values.setdefault(role, []).append(value)
                role = None
        else:
            values.setdefault(next(positions, VALUE), []).append(arg)
    return Bound(values, frozenset(switches))


def _arrays(args: list[str]) -> list[str]:
    """The words with an array written over several (``node, npm, npx``) joined into one, as ``node,npm,npx``
    is written: PowerShell binds it to one parameter."""
    joined: list[str] = []
    for arg in args:
        if joined and (joined[-1].endswith(",") or (arg.startswith(",") and len(arg) > 1)):
            joined[-1] += arg
        else:
            joined.append(arg)
    return joined


def paths(program: str, args: list[str]) -> list[str] | None:
    """The paths a cmdlet's words name (``-Path``, ``-LiteralPath`` and their position), in order; None
    when the program is no cmdlet here."""
    found = cmdlet(program)
    return None if found is None else _items(bind(found, args).of(PATH))


def _items(values: list[str]) -> list[str]:
    """Each value's array items (``Test-Path .env, .env.local``: two paths bound to ``-Path`` as one array, its
    words joined as ``.env,.env.local``); a value with a space was quoted whole (``'Q1, Q2 report.md'``)."""
    if not any("," in value for value in values):
        return values
    return [item for value in values for item in (value.split(",") if " " not in value else [value]) if item]


def listed(program: str, words: list[str]) -> list[str]:
    """A cmdlet's words with each comma list split (``Get-Command node,npm``: PowerShell binds an array,
    ``node`` and ``npm``); any other program's words as they are."""
    if cmdlet(program) is None or not any("," in word for word in words):
        return words
    return [part for word in words for part in word.split(",") if part]


def operands(program: str, args: list[str], plain: list[str]) -> list[str]:
    """What a reader's words name: for a cmdlet, its paths then its filter (``Get-ChildItem src *.py``) or
    the names it looks for (``Get-Command gh``), never a parameter's value (``-Encoding utf8``, ``-ErrorAction
    SilentlyContinue``); for any other program, ``plain``."""
    found = cmdlet(program)
    if found is None:
        return plain
    bound = bind(found, args)
    return _items(bound.of(PATH)) + bound.of(FILTER) + (bound.of(NAME) if found in READERS else [])


_NAME_PROPERTIES: Final = frozenset(
    {"$_.name", "$_.fullname", "$_.basename", "$psitem.name", "name", "fullname", "basename"}
)
_NAME_TESTS: Final = frozenset({"-like", "-ilike", "-clike", "-match", "-imatch", "-cmatch", "-eq", "-ieq", "-ceq"})


def name_filter(program: str, args: list[str]) -> str | None:
    """What a ``Where-Object`` keeps by an item's name (``{ $_.Name -like '*retry*' }``, ``Name -eq
    gh.exe``): after a listing, PowerShell's ``find -name``. None for another program, a test that keeps
    what does not match (``-notlike``), or one of several tests joined by ``-or``."""
    if program.lower() not in ("where-object", "?"):
        return None
    words = [w.strip("{}") for w in args]  # ``{$_.Name -like '*X*'}`` as ``{ $_.Name -like '*X*' }``
    words = [w for w in words if w]
    if any(w.lower() == "-or" for w in words):
        return None
    for at in range(len(words) - 2):
        if words[at].lower() in _NAME_PROPERTIES and words[at + 1].lower() in _NAME_TESTS:
            value = words[at + 2]
            return None if value.startswith("$") else value  # ``-like $pattern``: not told
    return None
