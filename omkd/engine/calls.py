"""Tool calls awaiting their results, and what a result does to its call's segment.

A result is credited to the segment of the call it answers (matched by its id), even when a
cut happened in between. Its verdict comes from ``judge.py``; this module applies it: tool
counts, files read (coverage), a miss of something the person named (``user_given``), a
failed search (de-duplicated against the segment's previous one) and runs of failures.
"""

from __future__ import annotations

import posixpath
import re
from collections import deque
from dataclasses import dataclass
from typing import Final, Protocol

from omkd.engine import given, judge, patterns, quoted_names, removals, runs, search_pattern, shell_reads, shell_rules
from omkd.engine.events import ToolCall, ToolResult
from omkd.engine.native import mypyc_attr
from omkd.engine.plain import attributes, set_attributes
from omkd.engine.signals import Outcome, Signal, Verdict, collapse
from omkd.engine.summary import Segment

MAX_PROMPT_CHARS: Final = 65_536
"""Typed-prompt text kept per stream (the newest) for the user-given rule."""
_WINDOWS_PATH = re.compile(r"^[A-Za-z]:[\\/]")

# What ``omkd explain`` calls each verdict.
FAILED_SEARCH: Final = "failed_search"
DEDUPLICATED: Final = "deduplicated"
USER_GIVEN: Final = "user_given"
FOUND: Final = "found"
NOT_A_SEARCH: Final = "not_a_search"
TOOL_FAULT: Final = "tool_fault"
CANCELLED: Final = "cancelled"
HARNESS_REFUSED: Final = "harness_refused"
VERIFY_ABSENCE: Final = "verify_absence"


class CallObserver(Protocol):
    def call_judged(
        self, call: ToolCall, call_line: int, verdict: str, rule: str, line: int, segment: Segment, typed: str
    ) -> None:
        """``typed``: for a ``user_given`` miss, what of it the person named (else empty)."""


@dataclass(slots=True)
class PendingCall:
    segment: Segment
    call: ToolCall
    turn: int
    line: int
    place: int = 0
    """Its place among its segment's calls (``runs.py`` walks them in this order)."""


def verdict_name(verdict: Verdict) -> str:
    """A verdict as ``omkd explain`` names it (before the segment's own rules: dedup, user_given)."""
    outcome = verdict.outcome
    if outcome is Outcome.MISSED:
        return FAILED_SEARCH
    if outcome is Outcome.CANCELLED:
        return CANCELLED
    if outcome is Outcome.REFUSED:
        return HARNESS_REFUSED
    if verdict.rule.endswith(".found") or verdict.rule == "shell.found":
        return FOUND
    if outcome is Outcome.FAILED and "." in verdict.rule:
        return TOOL_FAULT
    return NOT_A_SEARCH


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # made without __init__ on restore, as in Python
class CallTracker:
    """The calls of one stream awaiting results, and the typed prompts that may excuse a miss."""

    def __init__(self, cwd: object, extra_search_tools: frozenset[str]) -> None:
        self._context = cwd
        self._extra = extra_search_tools
        self.pending: dict[str, PendingCall] = {}
        self._prompts: deque[str] = deque()
        self._prompt_chars = 0
        self._typed: str | None = None
        """The kept prompts as one text, joined when a miss needs it (not saved with the state)."""
        self._quoted: dict[str, int] | None = None
        """What the kept prompts quote, read when a miss first needs it (not saved with the state)."""

    def remember_prompt(self, text: str) -> None:
        """Keep a typed prompt (the last ``MAX_PROMPT_CHARS`` of them in all). A joined text kept
        from an earlier miss is extended and cut in place: joined again per miss, thousands of
        short prompts cost more than all else a long session's reading does."""
        text = text[-(MAX_PROMPT_CHARS - 1) :]  # with its newline, one prompt fits alone
        joined = self._typed
        if joined is not None:
            joined = f"{joined}\n{text}" if self._prompts else text
        self._prompts.append(text)
        self._prompt_chars += len(text) + 1  # and its newline: empty prompts count too
        quoted = self._quoted
        if quoted is not None:
            _count(quoted, text, 1)
        while self._prompt_chars > MAX_PROMPT_CHARS:  # never the prompt just kept: it fits alone
            gone = self._prompts.popleft()
            self._prompt_chars -= len(gone) + 1
            if joined is not None:
                joined = joined[len(gone) + 1 :]  # "gone\n"
            if quoted is not None:
                _count(quoted, gone, -1)
        self._typed = joined

    def add(self, segment: Segment, call: ToolCall, turn: int, line: int) -> None:
        segment.tool_calls += 1
        self.pending[call.call_id] = PendingCall(segment, call, turn, line, segment.tool_calls)

    def repoint(self, old: Segment, new: Segment) -> None:
        """Calls of a segment that was undone now belong to the one that took it in."""
        for pending in self.pending.values():
            if pending.segment is old:
                pending.segment = new

    def answer(
        self, result: ToolResult, line: int, cwd: str | None, observer: CallObserver | None
    ) -> tuple[PendingCall, Verdict, str] | None:
        """Apply a result to its call's segment: the call, its verdict and what ``omkd explain`` names
        it (``failed_search`` only for a kept miss); None for a result whose call this stream never made."""
        pending = self.pending.pop(result.call_id, None)
        if pending is None:
            return None
        segment, call = pending.segment, pending.call
        segment.touch(result.timestamp, line)
        segment.tool_answered += 1
        verdict = judge.judge(call, result, self._extra)
        outcome = verdict.outcome
        name = verdict_name(verdict)
        failed_tool: str | None = None
        typed = ""
        if outcome is Outcome.CANCELLED:
            segment.tool_cancelled += 1
        elif outcome is Outcome.OK:
            for path in shell_reads.read_paths(call):
                segment.accessed.add(absolute(path, cwd))
            _remember_removals(segment, call)
        else:
            if result.is_error:
                segment.tool_failures += 1
            if outcome is Outcome.MISSED:
                own = removals.own_removal(call)
                if own or (
                    (segment.removed_texts or segment.removed_paths)
                    and (
                        removals.confirms_removal(
                            removals.search_literals(call), segment.removed_texts, segment.removed_paths
                        )
                        or removals.targets_removed(call, segment.removed_paths)
                    )
                ):
                    segment.tallies[VERIFY_ABSENCE] += 1
                    name = VERIFY_ABSENCE
                    if own:  # the command removed something too: a later search for it confirms that
                        _remember_removals(segment, call)
                elif verdict.user_given and (named := self._user_gave(call, verdict, cwd)) is not None:
                    segment.user_given.append(verdict.search_key)
                    name, typed = USER_GIVEN, named
                else:
                    failed_tool = call.tool
                    name = self._failed_search(segment, pending, result, verdict.search_key, line, cwd)
        walked = (pending.place, pending.turn, failed_tool or "", result.timestamp, line)
        runs.answered(segment, walked, lambda place, turn: self._waiting(segment, place, turn))
        if observer is not None:
            observer.call_judged(call, pending.line, name, verdict.rule, line, segment, typed)
        return pending, verdict, name

    def _waiting(self, segment: Segment, place: int, turn: int) -> bool:
        """A call of ``segment`` made before ``place`` in message ``turn`` still awaits its result."""
        return any(p.turn == turn and p.place < place and p.segment is segment for p in self.pending.values())

    def _failed_search(
        self, segment: Segment, pending: PendingCall, result: ToolResult, key: str, line: int, cwd: str | None
    ) -> str:
        call = pending.call
        pattern = search_pattern.pattern_of(call, key, judge.unwrapped(call.tool), cwd, result)
        identity = (call.tool, pattern)
        if identity == segment.last_kept_miss:
            segment.deduplicated += 1
            return DEDUPLICATED
        segment.last_kept_miss = identity
        answer = collapse(result.text, 80) or "(no output)"
        segment.signals.append(
            Signal(
                patterns.FAILED_SEARCH,
                pending.turn,
                result.timestamp,
                collapse(f"{call.tool} {key} -> {answer}"),
                _evidence(call, pattern, key),
                line,
            )
        )
        return FAILED_SEARCH

    def _user_gave(self, call: ToolCall, verdict: Verdict, cwd: str | None) -> str | None:
        """What of this miss the person named in an earlier typed prompt of the stream (a path, a URL, a
        name, a phrase they quoted), as the call wrote it; None when they named none of it."""
        if not self._prompts:
            return None
        key = verdict.search_key
        if verdict.user_given == patterns.PATH_GIVEN:
            return key if self._typed_path(key, cwd) else None
        if verdict.user_given == patterns.URL_GIVEN:  # a WebFetch's URL, or a shell HTTP client's
            typed = self._typed_text()
            return next((url for url in [key, *given.http_urls(call)] if url and given.typed_url(typed, url)), None)
        typed = self._typed_text()
        named = next((name for name in given.search_targets(call) if given.mentions(typed, name)), None)
        if named is not None:
            return named
        quoted = self._quoted_phrases()  # each lookup looked for a phrase the person quoted (not one of several)
        phrases = quoted_names.call_phrases(call) if quoted else []
        if phrases and all(phrase is not None and phrase.casefold() in quoted for phrase in phrases):
            return " | ".join(dict.fromkeys(phrase for phrase in phrases if phrase is not None))
        alternatives = given.alternative_names(call)
        if alternatives and given.each_typed(typed, alternatives):
            return " | ".join(alternatives)
        shape = given.search_shape(call)
        named = given.typed_name(shape, typed) if shape is not None else None
        if named is not None:
            return named
        # a shell reader or probe (``cat``, ``sed -n``, ``ls``) of a path the person typed reads as Read does
        return next((path for path in given.probed_paths(call) if self._typed_path(path, cwd)), None)

    def _typed_text(self) -> str:
        """The kept prompts as one text, joined by a newline (which no name holds and which stands
        as a boundary): one search per name, not one per prompt — a long session types thousands
        of short prompts, and a search per prompt made every miss cost more than the last."""
        if self._typed is None:
            self._typed = "\n".join(self._prompts)
        return self._typed

    def _quoted_phrases(self) -> dict[str, int]:
        """The phrases the kept prompts quote (``quoted_names.quoted_phrases``), each with the number of
        prompts quoting it: read once when a miss first asks, then kept up as prompts come and go."""
        if self._quoted is None:
            self._quoted = {}
            for prompt in self._prompts:
                _count(self._quoted, prompt, 1)
        return self._quoted

    def __getstate__(self) -> dict[str, object]:
        return {key: value for key, value in attributes(self).items() if key not in ("_typed", "_quoted")}

    def __setstate__(self, state: dict[str, object]) -> None:
        set_attributes(self, state)
        self._typed = None
        self._quoted = None

    def _typed_path(self, path: str, cwd: str | None) -> bool:
        """The path as typed (absolute, or relative to the cwd); a bare file name is not enough:
        the agent guessed where it lives, and that guess failed."""
        if not path:
            return False
        typed = self._typed_text()
        last = path.replace("\\", "/").rsplit("/", 1)[-1]  # empty when it ends in a separator
        if last not in ("", ".", "..", "~") and last not in typed:
            return False  # each form of a path not ending in a separator ends in it: one look, not one a form
        forms = {path}
        if cwd and path.startswith(cwd.rstrip("/\\") + ("\\" if _WINDOWS_PATH.match(cwd) else "/")):
            relative = path[len(cwd.rstrip("/\\")) + 1 :]
            forms.update({relative, "./" + relative})
        elif cwd and cwd.startswith("/") and path.startswith("/"):  # ``../shared/x.md`` typed, read absolute
            forms.add(posixpath.relpath(path, cwd))
        elif not (path.startswith("/") or _WINDOWS_PATH.match(path)):
            relative = path.removeprefix("./")  # a relative read: the same relative path typed,
            forms.update({relative, "./" + relative})
            if cwd:  # or the path it resolves to
                forms.add(absolute(path, cwd))
                if _WINDOWS_PATH.match(cwd):  # ``docs\\x.md`` in ``C:\\shop``: ``C:\\shop\\docs\\x.md``
                    forms.add(cwd.rstrip("\\/") + "\\" + relative)
        tilde = "" if path.startswith(("~", "$")) else search_pattern.normalised(path, None).replace("\\", "/")
        if tilde.startswith("~/"):  # a path under a home directory, typed as ``~/…`` (or ``$HOME/…``)
            forms.update({tilde, "$HOME/" + tilde[2:]})
        if "\\" in path or (cwd and _WINDOWS_PATH.match(cwd)):  # Windows: ``docs\\x.md`` typed as ``docs/x.md``
            forms |= {form.replace("\\", "/") for form in forms} | {form.replace("/", "\\") for form in forms}
        return any(given.mentions(typed, form, path=True) for form in forms)


def _evidence(call: ToolCall, pattern: str, key: str) -> dict[str, str]:
    """A failed search's evidence: its pattern (§6) and, where that is not all of it, the full command
    or path it came from (a Glob's ``path``, where it looked)."""
    tool = call.tool
    if pattern == key:
        root = call.input.get("path") if judge.unwrapped(tool) == "Glob" else None
        return (
            {"tool": tool, "pattern": pattern, "path": root}
            if isinstance(root, str) and root
            else {"tool": tool, "pattern": pattern}
        )
    whole = "command" if judge.unwrapped(tool) in shell_rules.SHELL_TOOLS else "path"
    return {"tool": tool, "pattern": pattern, whole: key}


def _remember_removals(segment: Segment, call: ToolCall) -> None:
    """What a successful write removed: a later search for it that finds nothing confirms the edit."""
    texts, paths = removals.removed_by(call)
    if texts:
        segment.removed_texts = (segment.removed_texts + texts)[-removals.KEPT_EDITS :]
    if paths:
        segment.removed_paths = (segment.removed_paths + paths)[-2 * removals.KEPT_EDITS :]


def _count(quoted: dict[str, int], prompt: str, step: int) -> None:
    """Count the phrases ``prompt`` quotes in or out of ``quoted`` (a phrase no kept prompt quotes leaves). A
    prompt cut to its last ``MAX_PROMPT_CHARS`` starts inside a line: that line is not read (its marks'
    pairs are not known)."""
    if len(prompt) >= MAX_PROMPT_CHARS - 1:
        prompt = prompt.partition("\n")[2]
    for phrase in quoted_names.quoted_phrases(prompt):
        left = quoted.get(phrase, 0) + step
        if left > 0:
            quoted[phrase] = left
        else:
            quoted.pop(phrase, None)


def absolute(path: str, cwd: str | None) -> str:
    if path.startswith("/"):
        return posixpath.normpath(path)
    if _WINDOWS_PATH.match(path):
        return path
    if cwd and cwd.startswith("/"):
        return posixpath.normpath(posixpath.join(cwd, path))
    return path
