"""``omkd calibrate``: how well the judge in use agrees with hand labels.

The judge is the embedded one, or the LLM judge a config file enables (its verdicts cached; a
sentence it cannot answer keeps the embedded verdict and is counted); or, with ``--labels``,
another labelling of the same sentences (a second annotator, matched by id).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from omkd.engine import agreement, hedge_prompt
from omkd.engine.agreement import Cells, Measure
from omkd.engine.gold import GoldError, GoldSentence, read_labels
from omkd.engine.hedge_judge import HedgeVerdict, embedded_judge
from omkd.shell.llm_judge import LlmRefiner


@dataclass(frozen=True, slots=True)
class Agreement:
    cells: Cells
    measures: dict[str, Measure]


@dataclass(frozen=True, slots=True)
class SelfPreference:
    """The LLM judge is of the family of the model that wrote (some of) the transcripts."""

    family: str
    sentences: int
    """Sentences written by a model of that family."""


@dataclass(slots=True)
class Calibration:
    judge: str
    gold: str
    overall: Agreement
    by_language: dict[str, Agreement] = field(default_factory=dict)
    fell_back: int = 0
    """Sentences the LLM judge did not answer (the embedded verdict was used)."""
    left_out: int = 0
    """Sentences left out because the embedded judge was trained on them (``--include-training`` keeps them)."""
    self_preference: SelfPreference | None = None


def agreement_of(pairs: list[tuple[bool, bool]]) -> Agreement:
    cells = Cells.of(pairs)
    return Agreement(cells, agreement.measures(cells))


def select(sentences: Sequence[GoldSentence], split: str | None, part: str) -> list[GoldSentence]:
    chosen = [s for s in sentences if split is None or s.split == split]
    if part == "text":
        return [s for s in chosen if not s.candidate.thinking]
    if part == "thinking":
        return [s for s in chosen if s.candidate.thinking]
    return chosen


def training_overlap(sentences: Sequence[GoldSentence]) -> list[GoldSentence]:
    """The sentences the embedded judge was trained on (by the keys its model file records): a
    score on them says how well it remembers, not how well it judges."""
    judge = embedded_judge()
    return [s for s in sentences if judge.trained_on(s.candidate.sentence)]


def labels_from(path: Path, sentences: Sequence[GoldSentence]) -> list[bool]:
    """Another labelling's verdicts for ``sentences``, matched by id (every one must be there)."""
    theirs = read_labels(path)
    missing = [s.id for s in sentences if s.id not in theirs]
    if missing:
        shown = ", ".join(missing[:5]) + (" …" if len(missing) > 5 else "")
        raise GoldError(f"{path}: no label for {len(missing)} sentence(s) of the gold file: {shown}")
    return [theirs[s.id] for s in sentences]


def llm_labels(sentences: Sequence[GoldSentence], refiner: LlmRefiner) -> tuple[list[bool], int]:
    """The LLM judge's verdicts (asked where not cached) and how many fell back to the embedded."""
    for s in sentences:
        refiner.consult(s.candidate, 0)
    if refiner.pending:
        asyncio.run(refiner.drain())
    said, fell_back = [], 0
    for s in sentences:
        with refiner.quietly():
            answer = refiner.consult(s.candidate, 0)
        verdict = answer if isinstance(answer, HedgeVerdict) else None
        if verdict is None:
            fell_back += 1
            verdict = embedded_judge().judge(s.candidate)
        said.append(verdict.is_uncertainty)
    return said, fell_back


def calibrate(
    gold_path: Path,
    sentences: Sequence[GoldSentence],
    said: Sequence[bool],
    judge: str,
    judge_model: str | None = None,
    fell_back: int = 0,
    left_out: int = 0,
) -> Calibration:
    pairs = [(s.is_uncertainty, j) for s, j in zip(sentences, said, strict=True)]
    result = Calibration(
        judge=judge, gold=str(gold_path), overall=agreement_of(pairs), fell_back=fell_back, left_out=left_out
    )
    for lang in sorted({s.lang for s in sentences}):
        result.by_language[lang] = agreement_of([p for p, s in zip(pairs, sentences, strict=True) if s.lang == lang])
    family = hedge_prompt.model_family(judge_model)
    if family is not None:
        same = sum(1 for s in sentences if hedge_prompt.model_family(s.model) == family)
        if same:
            result.self_preference = SelfPreference(family, same)
    return result
