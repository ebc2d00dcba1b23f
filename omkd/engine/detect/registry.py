"""The signal registry: each gap signal declared once, with everything that depends on it.

A signal's row names it, gives its weight (checked here, at import, to be a positive multiple of
½ no greater than 1: the exact weighted rate counts half-weight segments as integers), its
strength, the ``omkd explain`` verdicts its detector gives, its help text, the module that detects
it, the rule modules whose tables decide it (they enter ``rules_hash``) and the version of the
state its detector keeps in a parser state. What is derived from the rows, never written twice:

- ``patterns.SIGNAL_WEIGHTS`` and ``SIGNAL_TYPES`` (the report's ``by_type``, the ``type`` label,
  the API's and the CLI's choices), in the order of the rows;
- ``RULE_MODULES``: the modules ``reproducibility.rules_hash`` covers;
- ``state_version()``: the stamp a daemon's saved parser state carries (detector names and their
  state versions, and the shapes of the engine classes a parser state holds). A state of another
  stamp is not loaded: its file is read again from the start. Nobody bumps it by hand.

Adding a signal is one row here, its detector, and its rules (``docs/extending.md``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from omkd.build import PURE, build


@dataclass(frozen=True, slots=True)
class SignalKind:
    name: str
    weight: float
    strength: str
    """``strong`` (the agent searched and failed) or ``weak`` (the agent said so)."""
    help: str
    verdicts: tuple[str, ...]
    """What ``omkd explain`` may call the events this signal is decided on."""
    detector: str
    """The module that emits it."""
    rules: tuple[str, ...]
    """The modules whose upper-case tables decide it (``rules_hash`` covers them)."""
    state_version: int = 1
    """Raised when the detector's own state in a parser state changes meaning (not only shape)."""


SIGNALS: Final[tuple[SignalKind, ...]] = (
    SignalKind(
        "failed_search", 1.0, "strong", "A tool call looked for something and found nothing.",
        ("failed_search", "deduplicated", "user_given", "verify_absence", "found", "not_a_search", "tool_fault",
         "cancelled", "harness_refused"),
        "omkd.engine.calls",
        ("omkd.engine.patterns", "omkd.engine.shell_rules", "omkd.engine.powershell", "omkd.engine.ripgrep_types",
         "omkd.engine.http_lookups", "omkd.engine.silent_probes", "omkd.engine.probe_rules", "omkd.engine.zsh_globs",
         "omkd.engine.empty_reads", "omkd.engine.shell_output", "omkd.engine.shell_forms", "omkd.engine.find_forms",
         "omkd.engine.formats.codex_output", "omkd.engine.formats.codex_prompts", "omkd.engine.shell",
         "omkd.engine.search_pattern", "omkd.engine.missed_stages", "omkd.engine.removals",
         "omkd.engine.formats.gemini", "omkd.engine.fallback_lists", "omkd.engine.module_probes", "omkd.engine.given",
         "omkd.engine.quoted_names", "omkd.engine.run_checks", "omkd.engine.patches",
         "omkd.engine.same_path", "omkd.engine.formats.gemini_shell"),
    ),
    SignalKind(
        "repeated_failure", 1.0, "strong", "The same kind of search failed three or more times in a row.",
        ("failed_search", "deduplicated"), "omkd.engine.runs", ("omkd.engine.patterns",),
    ),
    SignalKind(
        "explicit_marker", 0.5, "weak", "The agent marked its own guess ([inferred], [unknown], 【推断】…).",
        ("explicit_marker",), "omkd.engine.text_signals", ("omkd.engine.patterns",),
    ),
    SignalKind(
        "hedging", 0.5, "weak", "The agent's wording downgraded its certainty about a fact (judged).",
        ("uncertain", "not uncertain"), "omkd.engine.text_signals", ("omkd.engine.cues",),
    ),
)  # fmt: skip
"""The gap signals, in the order every view lists them."""

OTHER_RULES: Final = (
    "omkd.engine.health",
    "omkd.engine.metacog.rules",
    "omkd.engine.metacog.targets",
    "omkd.engine.metacog.writes",
    "omkd.engine.metacog.outcomes",
    "omkd.engine.loop_items",
    "omkd.engine.powershell",
)
"""Rule tables that decide figures rather than signals (tiers, bands; what the agent did at a gap,
spec §8, whose §8.2-8.5 readers keep patterns of their own beside ``metacog/rules.py``, and the items
of a loop of probes its targets take): in ``rules_hash`` too (§8.7)."""
RULE_MODULES: Final = tuple(dict.fromkeys([m for s in SIGNALS for m in s.rules] + list(OTHER_RULES)))
"""Every module ``rules_hash`` covers, once each, in a fixed order."""

STATE_BASE: Final = 5
"""The parser state's encoding (``stream_state.py``); the rest of the stamp is derived."""
STATE_MODULES: Final = (
    "omkd.engine.stream",
    "omkd.engine.segment",
    "omkd.engine.summary",
    "omkd.engine.messages",
    "omkd.engine.calls",
    "omkd.engine.text_signals",
    "omkd.engine.links",
    "omkd.engine.lines",
    "omkd.engine.counters",
    "omkd.engine.signals",
    "omkd.engine.formats.common",
    "omkd.engine.formats.claude_code",
    "omkd.engine.formats.codex",
    "omkd.engine.formats.gemini",
    "omkd.engine.metacog.episodes",
    "omkd.engine.metacog.anchor",
    "omkd.engine.metacog.targets",
)
"""The modules whose classes a saved parser state holds."""


def _check(kinds: tuple[SignalKind, ...]) -> None:
    names = [k.name for k in kinds]
    if len(set(names)) != len(names):
        raise ValueError(f"a signal is declared twice: {names}")
    for kind in kinds:
        halves = Fraction(kind.weight) * 2
        if halves.denominator != 1 or not 1 <= halves <= 2:
            raise ValueError(f"signal {kind.name}: weight {kind.weight} is not 0.5 or 1 (a multiple of ½ up to 1)")
        if kind.strength not in ("strong", "weak"):
            raise ValueError(f"signal {kind.name}: strength {kind.strength!r} is neither strong nor weak")


_check(SIGNALS)
BY_NAME: Final = {kind.name: kind for kind in SIGNALS}


def _shape(module_name: str) -> list[str]:
    """The fields (dataclass fields or slots) of each class a module defines, by module and name (a
    saved state names its classes so: a class that moves to another module changes the stamp)."""
    module = importlib.import_module(module_name)
    shapes = []
    for name in sorted(vars(module)):
        value = getattr(module, name)
        if not isinstance(value, type) or value.__module__ != module_name:
            continue
        if dataclasses.is_dataclass(value):
            fields = [f.name for f in dataclasses.fields(value)]
        else:
            fields = list(getattr(value, "__slots__", ()))
        shapes.append(f"{module_name}:{name}({','.join(fields)})")
    return shapes


def state_version() -> str:
    """The stamp of a parser state made by this omkd's detectors and engine classes."""
    document = [
        str(STATE_BASE),
        *(f"{k.name}:{k.detector}:{k.state_version}" for k in SIGNALS),
        *(shape for module in STATE_MODULES for shape in _shape(module)),
    ]
    if build().name != PURE:  # a compiled build's classes keep their state otherwise: never read across builds
        document.append(f"build:{build().name}")
    return f"{STATE_BASE}.{hashlib.sha256(repr(document).encode()).hexdigest()[:12]}"
