"""Spec §3.4 repeated_failure: a segment's tool calls walked in the order they were made; three
failed searches in a row by the same tool are one signal, any other call resets the count.

Results do not always come back in that order: an assistant message's parallel calls are answered
as each finishes (one result in twenty in the real fixtures). A result is therefore held while an
earlier call of the same message and segment still waits for its own, and walked in call order once
none does. A call still unanswered when a result of a later message comes back (a command left
running, a call never answered) holds nothing up any longer: what waited behind it is walked, and
the call itself where its result arrives, as calls of different messages always are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from omkd.engine import patterns
from omkd.engine.signals import Signal

if TYPE_CHECKING:
    from omkd.engine.summary import Segment

Outcome = tuple[int, int, str, "float | None", int]
"""One answered call: (its place among the segment's calls, its turn, the tool of a failed search
or "" for any other call, the result's timestamp, the result's line)."""
Waiting = Callable[[int, int], bool]
"""Whether a call of the segment made before ``place`` in message ``turn`` still awaits its result."""
_PLACE: Final = 0
_TURN: Final = 1


def answered(segment: Segment, outcome: Outcome, waiting: Waiting) -> None:
    """Walk ``outcome`` and every held one it frees, in call order; hold those an earlier call of
    their own message still keeps waiting."""
    held = segment.run_held
    held.append(outcome)
    if len(held) > 1:
        held.sort(key=lambda o: o[_PLACE])
    while held:
        first = held[0]
        # its message may still have calls out: is one of them before it?
        if first[_TURN] >= outcome[_TURN] and waiting(first[_PLACE], first[_TURN]):
            return
        held.pop(0)
        _walk(segment, first)


def _walk(segment: Segment, outcome: Outcome) -> None:
    _, turn, failed_tool, timestamp, line = outcome
    run = patterns.REPEATED_RUN
    if not failed_tool:
        segment.run_tool, segment.run_length = "", 0
        return
    if failed_tool == segment.run_tool:
        segment.run_length += 1
    else:
        segment.run_tool, segment.run_length, segment.run_first_turn = failed_tool, 1, turn
    if segment.run_length == run:
        segment.signals.append(
            Signal(
                patterns.REPEATED_FAILURE,
                segment.run_first_turn,
                timestamp,
                f"{failed_tool} found nothing {run} times in a row",
                {"tool": failed_tool, "count": run, "first_turn": segment.run_first_turn},
                line,
            )
        )
