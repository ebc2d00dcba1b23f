"""The items of a shell loop of probes, and those its output says missed (spec §3.1's loop of probes;
§6's pattern and §8.2's targets name them).

``for f in A B C; do echo "== $f =="; cat "$f" || echo "(missing)"; done`` looks at A, B and C in turn:
a stage whose path operand is the loop's variable (``$f``, ``"$f"``, ``${f}``) looks at each of the
loop's words. Only literal words are items (no variable, command substitution or wildcard: what those
stand for is not in the command). Which items missed, the output tells when the line just above a
fallback line (``|| echo TEXT``, printed whole) names one of them — the loop's own header — or when a
not-found message names one (``cat: B: No such file or directory``), or when there is a fallback line
for every item. Anything else tells nothing: the items that missed are then not known, and nothing is
made up.
"""

from __future__ import annotations

import re
from typing import Final

from omkd.engine import http_lookups, shell, shell_output

_VARIABLE: Final = re.compile(r"^\$\{?(\w+)\}?$")
_NOT_LITERAL: Final = re.compile(r"[$`*?\[\]{}]")
MIN_ITEM: Final = 3
"""An item's name (its last component) is this long at least to be recognised in a line of output."""


def loop_items(parsed: shell.ParsedCommand) -> dict[str, list[str]]:
    """Each ``for`` variable of the command and its literal words (a loop over anything else: none)."""
    found: dict[str, list[str]] = {}
    for element in parsed.elements:
        for stage in element:
            if stage.program == "for" and len(stage.args) >= 3 and stage.args[1] == "in":
                words = [w.rstrip(";") for w in stage.args[2:] if w not in (";", "do")]
                if words and not any(_NOT_LITERAL.search(w) for w in words):
                    found[stage.args[0]] = words
    return found


def told(command: str, output: str | None) -> dict[str, list[str]]:
    """Each loop variable of the command and the items ``output`` says missed (empty when it tells none)."""
    loops = loop_items(shell.parse(command))
    return {var: (missed(command, output, words) if output else None) or [] for var, words in loops.items()}


_IN_TEXT: Final = re.compile(r"\$\{?(\w+)\}?")


def fallback_lines(parsed: shell.ParsedCommand) -> dict[str, str]:
    """Each line a fallback of the command prints, with the loop item it names: a fallback's text whose
    loop variable stands for each of the loop's words (``echo "$f missing"`` of ``for f in a.md b.md``:
    ``a.md missing`` and ``b.md missing``); a text without one, as it is ("" for no item)."""
    loops = loop_items(parsed) if any("$" in text for text in parsed.fallbacks) else {}
    found: dict[str, str] = {}
    for text in parsed.fallbacks:
        names = {match.group(1) for match in _IN_TEXT.finditer(text)}
        # ``echo "$f"`` alone prints what ``ls "$f"`` prints (``$f:`` and ``$f/`` too); ``no $f``, ``✗ $f`` say more
        words = _IN_TEXT.sub("", text).strip(" :-=/.")
        if len(names) == 1 and (name := names.pop()) in loops and words:
            for item in loops[name]:
                found[_IN_TEXT.sub(lambda _: item, text)] = item  # noqa: B023 (used at once)
        else:
            found[text] = ""
    return found


def variable_of(operand: str) -> str | None:
    """The variable an operand is, whole (``$f``, ``${f}``), or None."""
    match = _VARIABLE.match(operand)
    return match.group(1) if match else None


def standing_for(operand: str, told: dict[str, list[str]]) -> list[str]:
    """An operand, or for a loop's variable (a key of ``told``) the items told missed (none when not told)."""
    return told.get(variable_of(operand) or "", [operand])


def _named(line: str, items: list[str]) -> str | None:
    """The item a line of output names (the longest, when several do), or None."""
    named = [item for item in items if _mentions(line, item)]
    return max(named, key=len) if named else None


def _mentions(line: str, item: str) -> bool:
    tail = item[1:] if item.startswith("~") else item.removeprefix("./")  # ``~`` is printed expanded
    name = tail.rstrip("/").rsplit("/", 1)[-1]
    return len(name) >= MIN_ITEM and tail in line


def missed(command: str, output: str, items: list[str]) -> list[str] | None:
    """The items of a loop the output says missed, in the order it says so; None when it tells none."""
    parsed = shell.parse(command)
    fallbacks = fallback_lines(parsed)
    lines = shell_output.output_lines(output)
    told: list[str] = []
    for at, line in enumerate(lines):
        item = None
        if fallbacks.get(line) in items:  # ``b.md missing``: the fallback's text names its item
            item = fallbacks[line]
        elif line in fallbacks and at > 0:
            item = _named(lines[at - 1], items)
        elif shell_output.missing_path(line):
            item = _named(line, items)
        if item is not None and item not in told:
            told.append(item)
    if not told and sum(line in fallbacks for line in lines) == len(items):
        return list(items)  # a fallback line for every item: each missed
    return told or None


def urls_missed(parsed: shell.ParsedCommand, stage: shell.Stage, url: str, lines: list[str]) -> list[str]:
    """A loop's URL (``https://x.dev/$u``) for each item a line of the client's write-out says got 404 or
    410 (``404 docs/api.html``): ``https://x.dev/docs/api.html``; none when no such line names an item."""
    names = {match.group(1) for match in _IN_TEXT.finditer(url)}
    words = loop_items(parsed).get(names.pop(), []) if len(names) == 1 else []
    said = [line for line in lines if http_lookups.written_missing(line, [stage])]
    printed = {word.strip(":,;()[]'\"") for line in said for word in line.split()}  # an item is a word of its line
    return [_IN_TEXT.sub(lambda _: item, url) for item in words if item in printed]  # noqa: B023
