"""One segment's metacognition figures (spec §8.6): each a yes/no, added to the segment's tallies in
its summary, as the stream's end where it was read to would decide them (``SegmentMeta.now``).

The tally names are the catalogue's (``figures.py``): ``lookup_gap_segments``, one
``outcome_<name>`` per outcome (the partition: exactly one for a lookup-gap segment),
``open_gap_segments``, ``asked_at_gap_segments``, ``proceeded_candidates``, ``writing_segments``,
``unchecked_write_segments``, one ``write_load_<bucket>`` per writing segment, and
``unchecked_<kind>`` for the kinds of the writes that tripped M4; and, counted per anchor (not a
yes/no), ``episodes_<kind>_<outcome>``: its kind ``failed_search`` for a kept miss, ``hedging`` for a
hedge anchor (a kept hedge or a marker, §8.1.3).
"""

from __future__ import annotations

from typing import Final

from omkd.engine.metacog import loads, rules

LOOKUP_GAP: Final = "lookup_gap_segments"
OPEN_GAP: Final = "open_gap_segments"
ASKED_AT_GAP: Final = "asked_at_gap_segments"
PROCEEDED: Final = "proceeded_candidates"
WRITING: Final = "writing_segments"
UNCHECKED: Final = "unchecked_write_segments"
OUTCOME_TALLIES: Final = {outcome: f"outcome_{outcome}" for outcome in rules.OUTCOMES}
LOAD_TALLIES: Final = {
    bucket: "write_load_" + bucket.replace(".", "_").replace("+", "_plus") for bucket in rules.LOAD_BUCKETS
}
KIND_TALLIES: Final = {kind: f"unchecked_{kind}" for kind in ("file_edit", "shell_write", "vcs", "dependency", "data")}
ANCHOR_KINDS: Final = ("failed_search", "hedging")
"""The ``anchor`` label of ``omkd_gap_episodes_total``: a kept miss, a hedge anchor."""
EPISODE_TALLIES: Final = {
    (kind, outcome): f"episodes_{kind}_{outcome}" for kind in ANCHOR_KINDS for outcome in rules.OUTCOMES
}
ALL_TALLIES: Final = (
    LOOKUP_GAP, *OUTCOME_TALLIES.values(), OPEN_GAP, ASKED_AT_GAP, PROCEEDED, WRITING, UNCHECKED,
    *LOAD_TALLIES.values(), *KIND_TALLIES.values(), *EPISODE_TALLIES.values(),
)  # fmt: skip
_RESOLVED: Final = frozenset({"recovered", "created"})


def partition(outcomes: list[str | None]) -> str | None:
    """A lookup-gap segment's one outcome: the worst of its eligible misses' (§8.6)."""
    for outcome in rules.PRECEDENCE:
        if outcome in outcomes:
            return outcome
    return None


def figures_of(
    anchors: list[tuple[bool, bool, str]],
    main: bool,
    writing: bool,
    max_load: float,
    unchecked: bool,
    tripped: set[str],
) -> dict[str, int]:
    """The segment's tallies (those not 0), from (is a miss, eligible, outcome) of each anchor and its writes."""
    found: dict[str, int] = {}
    eligible: list[str | None] = [outcome for miss, ok, outcome in anchors if miss and ok]
    if eligible:
        found[LOOKUP_GAP] = 1
        found[OUTCOME_TALLIES[partition(eligible) or "dropped"]] = 1
        if "proceeded" in eligible:
            found[PROCEEDED] = 1
    open_outcomes = [outcome for _, _, outcome in anchors if outcome not in _RESOLVED]
    if main and open_outcomes:
        found[OPEN_GAP] = 1
        if "asked" in open_outcomes:
            found[ASKED_AT_GAP] = 1
    for miss, _, outcome in anchors:
        if outcome in rules.OUTCOMES:
            name = EPISODE_TALLIES[(ANCHOR_KINDS[0] if miss else ANCHOR_KINDS[1], outcome)]
            found[name] = found.get(name, 0) + 1
    if writing:
        found[WRITING] = 1
        found[LOAD_TALLIES[loads.bucket(max_load)]] = 1
        if unchecked:
            found[UNCHECKED] = 1
            for kind in tripped:
                found[KIND_TALLIES[kind]] = 1
    return found
