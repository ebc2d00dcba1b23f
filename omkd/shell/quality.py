"""How true omkd's figures are: its verdicts against hand-labelled tool calls, and its segments
against Claude Code's own ``attributionSkill`` on copies of transcripts with the field removed.

Used by ``bench/detection_quality.py`` (the figures) and by the tests (the arithmetic, on
hand-made labels). Labels are decided by reading each case, never by running omkd.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

from omkd.engine import skills
from omkd.engine.explain import record_skills
from omkd.engine.judge import unwrapped
from omkd.shell.explain import explain
from omkd.shell.scan import Source

CALL_LABELS: Final = frozenset(
    {"failed_search", "found", "not_a_search", "cancelled", "harness_refused", "syntax_error", "user_given"}
    | {"other_error", "verify_absence", "tool_fault"}
)
POSITIVE_VERDICTS: Final = frozenset({"failed_search", "deduplicated"})
FAMILIES: Final = ("Bash", "Read", "Grep", "Glob", "WebFetch", "WebSearch")
ATTRIBUTION_SINCE: Final = (2, 1, 123)
"""Claude Code versions from which ``attributionSkill`` is written whenever a skill is active."""


@dataclass(frozen=True, slots=True)
class Scores:
    true_positive: int
    false_positive: int
    false_negative: int
    true_negative: int

    @property
    def precision(self) -> float | None:
        flagged = self.true_positive + self.false_positive
        return self.true_positive / flagged if flagged else None

    @property
    def recall(self) -> float | None:
        actual = self.true_positive + self.false_negative
        return self.true_positive / actual if actual else None

    @property
    def total(self) -> int:
        return self.true_positive + self.false_positive + self.false_negative + self.true_negative


def score(pairs: Iterable[tuple[bool, bool]]) -> Scores:
    """(labelled positive, predicted positive) pairs -> the confusion counts."""
    counts = Counter(pairs)
    return Scores(counts[True, True], counts[False, True], counts[True, False], counts[False, False])


def family(tool: str) -> str:
    name = unwrapped(tool)
    if name == "PowerShell":
        return "Bash"
    return name if name in FAMILIES else "other"


def read_labels(path: Path) -> list[dict[str, Any]]:
    rows = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    for row in rows:
        if row["label"] not in CALL_LABELS:
            raise ValueError(f"{path}: unknown label {row['label']!r} for call {row['call_id']}")
    return rows


def call_verdicts(fixtures: Path, files: Iterable[str]) -> dict[tuple[str, str], tuple[str, str]]:
    """omkd's (verdict, rule) of every tool call in these files, by (file, call id).

    A side-question fork repeats its parent's calls (omkd judges them in the parent, once): a call
    of a fork's copied head takes the verdict the parent file's copy got.
    """
    found: dict[tuple[str, str], tuple[str, str]] = {}
    for file in sorted(set(files)):
        explanation, _, _ = explain([Source(fixtures / file, file)])
        for call in explanation.calls:
            found[(file, call.call_id)] = (call.verdict, call.rule)
        if "/subagents/agent-aside_question-" in file:
            parent = file.split("/subagents/", 1)[0] + ".jsonl"
            explanation, _, _ = explain([Source(fixtures / parent, parent)])
            for call in explanation.calls:
                found.setdefault((file, call.call_id), (call.verdict, call.rule))
    return found


def failed_search_quality(fixtures: Path, labels: list[dict[str, Any]]) -> dict[str, Any]:
    """Precision and recall of failed_search, overall and per tool family, with every disagreement."""
    verdicts = call_verdicts(fixtures, (row["file"] for row in labels))
    pairs: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    disagreements = []
    for row in labels:
        verdict, rule = verdicts.get((row["file"], row["call_id"]), ("(no verdict)", ""))
        truth, predicted = row["label"] == "failed_search", verdict in POSITIVE_VERDICTS
        pairs[family(row["tool"])].append((truth, predicted))
        pairs["overall"].append((truth, predicted))
        if truth != predicted:
            disagreements.append({**row, "verdict": verdict, "rule": rule})
    return {"scores": {name: score(p) for name, p in pairs.items()}, "disagreements": disagreements}


# --- segmentation against attributionSkill -----------------------------------------------------


def _version(value: object) -> tuple[int, ...]:
    if not isinstance(value, str):
        return ()
    parts = []
    for piece in value.split("."):
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def attributed_files(fixtures: Path) -> list[Path]:
    """Claude Code transcripts written by versions that stamp ``attributionSkill``."""
    found = []
    for path in sorted(fixtures.rglob("*.jsonl")):
        for line in path.read_bytes().splitlines()[:50]:
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(record, dict) and record.get("type") in ("user", "assistant") and "message" in record:
                if _version(record.get("version")) >= ATTRIBUTION_SINCE:
                    found.append(path)
                break
    return found


def expected_skill(record: dict[str, Any], builtins: frozenset[str]) -> str:
    """The skill Claude Code attributes a record to, as omkd names it (built-ins are general)."""
    value = record.get("attributionSkill")
    if not isinstance(value, str) or not value:
        return skills.GENERAL
    name = skills.normalise(value)
    return skills.GENERAL if name.lower() in builtins else name


def _assistant_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in enumerate(path.read_bytes().splitlines(), 1):
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        message = record.get("message") if isinstance(record, dict) else None
        if record.get("type") == "assistant" and isinstance(message, dict) and message.get("model") != "<synthetic>":
            yield number, record


def _is_skill_call(record: dict[str, Any]) -> bool:
    content = record["message"].get("content")
    return isinstance(content, list) and any(
        isinstance(p, dict) and p.get("type") == "tool_use" and unwrapped(str(p.get("name"))) == "Skill"
        for p in content
    )


def _stripped_copy(files: list[Path], fixtures: Path, into: Path) -> list[Source]:
    sources = []
    for path in files:
        relative = path.relative_to(fixtures)
        target = into / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        lines = []
        for raw in path.read_bytes().splitlines(keepends=True):
            try:
                record = orjson.loads(raw)
            except orjson.JSONDecodeError:
                lines.append(raw)
                continue
            if isinstance(record, dict) and "attributionSkill" in record:
                del record["attributionSkill"]
                lines.append(orjson.dumps(record) + b"\n")
            else:
                lines.append(raw)
        target.write_bytes(b"".join(lines))
        sources.append(Source(target, relative.as_posix()))
    return sources


def segmentation_agreement(fixtures: Path, strip: bool) -> dict[str, Any]:
    """The share of assistant records whose segment's skill is Claude Code's ``attributionSkill``.

    Every repository folder of the fixtures is scanned as a whole, so sub-agent files find their
    parent. ``Skill`` call records are left out: Claude Code counts the call in the previous
    skill and omkd in the new one (no figure depends on it).
    """
    builtins = skills.BUILTIN_COMMANDS
    files = attributed_files(fixtures)
    by_owner: dict[str, list[Path]] = defaultdict(list)
    for path in files:
        by_owner[path.relative_to(fixtures).parts[0]].append(path)
    agree = total = 0
    per_owner: dict[str, tuple[int, int]] = {}
    misses: Counter[tuple[str, str]] = Counter()
    with tempfile.TemporaryDirectory(prefix="omkd-quality-") as scratch:
        for owner, paths in sorted(by_owner.items()):
            sources = (
                _stripped_copy(paths, fixtures, Path(scratch))
                if strip
                else [Source(p, p.relative_to(fixtures).as_posix()) for p in paths]
            )
            _, fold, streams = explain(sources)
            predicted = record_skills(streams, fold)
            owner_agree = owner_total = 0
            for path in paths:
                name = path.relative_to(fixtures).as_posix()
                for number, record in _assistant_records(path):
                    if _is_skill_call(record):
                        continue
                    want = expected_skill(record, builtins)
                    got = predicted.get((name, number), "(not counted)")
                    owner_total += 1
                    if got == want:
                        owner_agree += 1
                    else:
                        misses[(want, got)] += 1
            per_owner[owner] = (owner_agree, owner_total)
            agree, total = agree + owner_agree, total + owner_total
        shutil.rmtree(scratch, ignore_errors=True)
    return {
        "agreement": agree / total if total else None,
        "agree": agree,
        "records": total,
        "files": len(files),
        "per_owner": per_owner,
        "misses": [{"claude_code": w, "omkd": g, "records": n} for (w, g), n in misses.most_common()],
    }
