"""What decides an outcome (spec §8.5): a lookup, a closing question, a write that creates what a
miss looked for, a write related to it."""

from __future__ import annotations

import fnmatch
import functools
import re
from typing import Final

import ahocorasick

from omkd.engine import cues, judge, shell, shell_rules
from omkd.engine.events import ToolCall
from omkd.engine.metacog import rules, targets
from omkd.engine.metacog.targets import Target
from omkd.engine.metacog.writes import DEPENDENCY, Write, git_subcommand, shell_write, sql_statements

_FENCE: Final = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE: Final = re.compile(r"`[^`\n]*`")
HOW_CHARS: Final = 160
"""An outcome's ``how`` (the write, the question) is cut to this many characters."""


def is_lookup(call: ToolCall) -> bool:
    """§8.2.4: a call that reads the world (its verdict aside); a write never is one."""
    tool = judge.unwrapped(call.tool)
    if tool in rules.LOOKUP_TOOLS or judge.is_mcp_search(call.tool):
        return True
    if tool not in shell_rules.SHELL_TOOLS:
        return False
    command = call.input.get("command")
    if isinstance(command, list):
        command = " ".join(str(w) for w in command)
    if not isinstance(command, str) or not command.strip() or shell_write(command) is not None:
        return False
    stages = [s for pipeline in shell.parse(command).elements for s in pipeline if s.program]
    return bool(stages) and all(_reads(s) for s in stages)


_SEARCH_PROGRAMS: Final[frozenset[str]] = (
    shell_rules.SHELL_RULE.programs | shell_rules.SHELL_RULE.path_programs | shell_rules.SHELL_RULE.test_programs
)
"""§3.1's searches and readers (``Get-Command``, ``Select-String``, ``Get-Item``, ``test``…): each reads."""


def _reads(stage: shell.Stage) -> bool:
    """A stage whose program only reads (``git`` by its subcommand, after git's own options); a
    ``sed -i`` is a write and never comes here (``shell_write``)."""
    if stage.program in rules.LOOKUP_PROGRAMS or stage.program in _SEARCH_PROGRAMS:
        return True
    if stage.program in rules.SQL_CLIENTS:  # a query that reads (§8.3 makes the others data writes)
        return any(rules.SQL_READ.match(s) for s in sql_statements(stage.args))
    if stage.program == "git":
        sub = git_subcommand(stage.args)
        return sub is not None and ("git", sub[0]) in rules.LOOKUP_SUBCOMMANDS
    return (stage.program, (stage.args or [""])[0]) in rules.LOOKUP_SUBCOMMANDS


@functools.cache
def _gap_phrases() -> ahocorasick.Automaton:
    """``rules.GAP_ACK`` as one automaton: a text is read once for every phrase, not once per phrase.
    Built on first use, not a module constant: ``rules_hash`` reads this module's constants, and an
    automaton has no form that is the same in every process (the table itself is hashed)."""
    automaton = ahocorasick.Automaton()
    for phrase in rules.GAP_ACK:
        automaton.add_word(phrase, phrase)
    automaton.make_automaton()
    return automaton


@functools.lru_cache(maxsize=16)
def states_gap(text: str) -> bool:
    """The text holds a not-found or uncertainty phrase (``rules.GAP_ACK``)."""
    lowered = text.lower().replace("\u2019", "'")
    return next(_gap_phrases().iter(lowered), None) is not None


@functools.lru_cache(maxsize=16)  # asked once per anchor whose window the same closing text ends
def question_line(text: str) -> str:
    """The first line, outside code, quotes and tables, asking a question that is not a stock closer
    ("" when none does)."""
    text = _INLINE.sub("", _FENCE.sub("", text))
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in ">|":
            continue
        if any(mark in stripped for mark in rules.QUESTION_MARKS) and not rules.STOCK_CLOSERS.search(stripped):
            return stripped
    return ""


def asked_by_tool(call: ToolCall) -> str:
    """An ``asked`` outcome's ``how`` for a question tool: the tool and what it asked, its
    ``questions[].question`` (Claude Code, Gemini CLI, Codex CLI) or ``question`` joined by `` / ``
    (the inventory keeps the question, §8.6 M2)."""
    asked = call.input.get("questions")
    found = [q.get("question") for q in asked if isinstance(q, dict)] if isinstance(asked, list) else []
    found.append(call.input.get("question"))
    said = " / ".join(" ".join(q.split()) for q in found if isinstance(q, str) and q.strip())
    return f"{call.tool} (question tool){': ' + said if said else ''}"[:HOW_CHARS]


def closing(text: str) -> str:
    """An ``asked`` outcome's ``how`` for a closing question: the question line itself."""
    return f"closing question: {question_line(text)}"[:HOW_CHARS]


def _under(path: str, base: str) -> bool:
    """``path`` is ``base`` or inside it (paths compared as written, a relative base as a tail)."""
    if not base or not path:
        return False
    if path == base or path.startswith(base + "/"):
        return True
    relative = base.lstrip("~/").lstrip("/")
    return bool(relative) and (path.endswith("/" + relative) or f"/{relative}/" in path)


def creates(write: Write, miss: Target) -> bool:
    """§8.5.2: the write makes what the miss looked for (a wildcard survey's name, ``*`` or
    ``**/*.md``, names nothing: every created path would match it)."""
    names = [n.lower() for n in miss.names if n and not miss.probe and targets.specific_name(n)]
    for path in write.created:
        last = path.rsplit("/", 1)[-1].lower()
        if any(fnmatch.fnmatchcase(last, n) for n in names):
            return True
        if miss.probe and any(t.lower() in path.lower() for t in miss.tokens if len(t) >= rules.CREATED_NAME_TOKEN):
            return True
        if not miss.content and any(_under(path, p) for p in miss.paths):
            return True
    # the program a probe missed, or what a content search looked for (``grep twilio package.json``:
    # installing ``twilio`` adds it to the manifest, as an edit's added text holding it would)
    wanted = miss.names + miss.literals if miss.content else miss.names
    if write.kind == DEPENDENCY and wanted:
        for name in wanted:
            word = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")
            if any(word.search(p) for p in write.packages):
                return True
    return miss.content and any(x in write.added for x in miss.literals)


def related(write: Write, miss: Target) -> bool:
    """The write touches what the miss searched, or its path carries one of the miss's tokens."""
    for path in write.paths:
        if any(_under(path, p) or _under(p, path) for p in miss.paths):
            return True
        lowered = path.lower()
        if any(t.lower() in lowered for t in miss.tokens):
            return True
    return False


def asks(text: str, words: tuple[str, ...], sentence: str) -> bool:
    """§8.5.3(b): the text asks a question and states the gap — a not-found or uncertainty phrase,
    a strong token of the miss (``words``) or the hedge anchor's own ``sentence``."""
    if not question_line(text):
        return False
    if states_gap(text) or targets.names(text, words) is not None:
        return True
    # the sentence as §3.3 keeps it: inline code marked ``…`` (``cues.readable_text``)
    return bool(sentence) and (sentence in text or sentence in cues.readable_text(text))


_WHAT_KEYS: Final = ("command", "cmd", "file_path", "absolute_path", "path", "dir_path", "pattern", "url", "query")
_WHAT_CHARS: Final = 120


def looked_at(call: ToolCall) -> str:
    """What a recovering call looked at (its command, path or pattern, cut), as ``: what``: where
    the pointer of a hard-to-find gap points (the wiki's **hard to find**); "" when it names none."""
    what = " ".join(judge.first_input(call, _WHAT_KEYS).split())
    if len(what) > _WHAT_CHARS:
        what = what[: _WHAT_CHARS - 1] + "…"
    return f": {what}" if what else ""
