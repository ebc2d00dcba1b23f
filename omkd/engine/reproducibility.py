"""What a report was computed by (seed 001's audit trail): omkd's version, the JSON schema, a hash
of the detection rules in force, the hedging judge, the window, and the interval methods.

The rules hash covers every table a verdict depends on (``patterns.py``, the cue table of
``cues.py``, the signal weights, the health thresholds) and the configuration keys that change
one (``SegmenterRules``), and the judge's identity; it is shown beside every figure and exported
as ``omkd_rules_info``, so that a jump on a dashboard can be told apart from a change of rules.
Two reports with different hashes are not comparable figure for figure.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import importlib
import re
from dataclasses import dataclass
from typing import Any, Final

from omkd import __version__
from omkd.build import build
from omkd.engine import intervals, skills
from omkd.engine.detect import registry
from omkd.engine.records import Record
from omkd.engine.segmenting import SegmenterRules

HASH_CHARS: Final = 12


def _canonical(value: Any) -> Any:
    """A JSON-able form of a rule value that is the same in every process (sets sorted)."""
    if isinstance(value, re.Pattern):
        return {"re": value.pattern, "flags": value.flags}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _canonical(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in sorted(value.items(), key=lambda item: str(item[0]))}
    if isinstance(value, set | frozenset):
        return sorted((_canonical(v) for v in value), key=repr)
    if isinstance(value, tuple | list):
        return [_canonical(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if callable(value) or " object at 0x" in repr(value):
        # a function or an object with no form of its own (its repr holds its address): a hash over it
        # would differ in every process, and a worker's report from the daemon's
        raise TypeError(f"a rule table holds a {type(value).__name__}, which has no form the same in every process")
    return repr(value)


def _tables(module: Any) -> dict[str, Any]:
    return {name: _canonical(getattr(module, name)) for name in sorted(vars(module)) if name.isupper()}


@functools.lru_cache(maxsize=16)
def rules_hash(rules: SegmenterRules, judge: str) -> str:
    """The hash of everything that decides a verdict: rule tables, configured rules, the judge.
    Cached: the tables do not change in a process, and every report (each /api/v1/status) asks."""
    document = {
        # by the module's whole name: two modules ending alike (``metacog.rules``) must not overwrite each
        # other, nor the configured ``rules`` below (they did: §8's main table was in no hash)
        **{module: _tables(importlib.import_module(module)) for module in registry.RULE_MODULES},
        "builtins": sorted(skills.BUILTIN_COMMANDS),
        "rules": _canonical(rules),
        "judge": judge,
    }
    return hashlib.sha256(repr(document).encode()).hexdigest()[:HASH_CHARS]


@dataclass(frozen=True, slots=True, kw_only=True)
class Methods(Record):
    rate_interval: str
    """How every rate's interval is computed (gap and weighted), and its level."""
    rise_interval: str
    gates: str
    """The one-sided bound a ``--confident`` gate compares with its limit."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Reproducibility(Record):
    omkd_version: str
    schema_version: int
    rules_hash: str
    judge: str
    """The hedging judge: ``embedded-v1`` (its weights are in the rules hash), ``llm:<model>:<prompt>``."""
    methods: Methods
    seeds: str
    """Random seeds in play: none (every interval is closed-form or exact)."""
    build: str = "pure"
    """The build that computed it: ``pure`` Python or ``mypyc`` (``omkd.build``); the figures are the same."""


def reproducibility(schema_version: int, rules: SegmenterRules, judge: str) -> Reproducibility:
    level = f"{100 * intervals.DEFAULT_CONFIDENCE:.0f} %"
    return Reproducibility(
        omkd_version=__version__,
        schema_version=schema_version,
        rules_hash=rules_hash(rules, judge),
        judge=judge,
        methods=Methods(
            rate_interval=f"{intervals.METHOD} {level}",
            rise_interval=f"{intervals.RISE_METHOD} {level}",
            gates=f"{intervals.GATE_METHOD} one-sided 1 - alpha/K",
        ),
        seeds="none",
        build=build().name,
    )
