"""Hand-labelled hedging sentences: the format ``omkd calibrate --gold`` reads, and the judge is
trained from (``tests/data/hedging_sentences.jsonl``).

One JSON object per line. Required: ``sentence`` (the candidate sentence, as the agent wrote it)
and ``is_uncertainty`` (true when it expresses uncertainty about knowledge or facts). Optional:
``id``; ``cue`` (the cue the net caught: used only when today's net finds none in the
sentence); ``before`` and ``after`` (the neighbouring sentences); ``part`` (``text`` or
``thinking``; anything else counts as text); ``after_tool_result`` (the text answers a tool
result just read); ``lang``; ``kind`` and ``reason`` (why the label); ``file`` (the
transcript); ``model`` (the model that wrote it, for the self-preference check); ``split``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

from omkd.engine.cues import CONTEXT_MARK, Candidate, Net

KINDS_UNCERTAIN = ("guess_fact", "dont_know", "need_verify")
KINDS_NOT = (
    "possibility_analysis",
    "suggestion",
    "plan",
    "observation",
    "future",
    "user_intent",
    "quote_code",
    "non_epistemic",
)


class GoldError(ValueError):
    """A labelled file that cannot be read; the message names the line and the field."""


@dataclass(frozen=True, slots=True)
class GoldSentence:
    id: str
    candidate: Candidate
    is_uncertainty: bool
    lang: str
    split: str
    written: bool
    model: str | None
    file: str
    """The transcript it comes from, when known."""


def _text(row: dict[str, object], key: str, where: str) -> str:
    value = row.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise GoldError(f"{where}: {key!r} must be a string, not {type(value).__name__}")
    return value


def gold_sentence(row: object, where: str, net: Net | None = None) -> GoldSentence:
    """One labelled row as the judge sees it; ``where`` names it in errors (``file:line``)."""
    if not isinstance(row, dict):
        raise GoldError(f"{where}: expected a JSON object")
    sentence = _text(row, "sentence", where)
    if not sentence.strip():
        raise GoldError(f"{where}: 'sentence' is missing or empty")
    label = row.get("is_uncertainty")
    if not isinstance(label, bool):
        raise GoldError(f"{where}: 'is_uncertainty' must be true or false")
    # the cue is picked as the net picks it when reading; the row's own when the net finds none
    cue = (net or Net()).pick(sentence) or _text(row, "cue", where)
    before, after = _text(row, "before", where), _text(row, "after", where)
    candidate = Candidate(
        sentence=sentence,
        context=f"{before} {CONTEXT_MARK} {after}".strip(),
        cue=cue,
        thinking=row.get("part") == "thinking",
        after_tool_result=row.get("after_tool_result") is True,
    )
    lang = _text(row, "lang", where) or ("zh" if candidate.chinese else "en")
    model = row.get("model")
    return GoldSentence(
        id=_text(row, "id", where) or where,
        candidate=candidate,
        is_uncertainty=label,
        lang=lang,
        split=_text(row, "split", where),
        written=row.get("written") is True,
        model=model if isinstance(model, str) and model else None,
        file=_text(row, "file", where),
    )


def _rows(path: Path) -> Iterator[tuple[str, object]]:
    try:
        lines = path.read_bytes().splitlines()
    except OSError as exc:
        raise GoldError(f"cannot read {path}: {exc.strerror or exc}") from exc
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        where = f"{path}:{number}"
        try:
            yield where, orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise GoldError(f"{where}: not JSON ({exc})") from exc


def read_labels(path: Path) -> dict[str, bool]:
    """Another labelling of gold sentences: ``is_uncertainty`` by ``id`` (the other fields unused)."""
    found: dict[str, bool] = {}
    for where, row in _rows(path):
        if not isinstance(row, dict) or not isinstance(row.get("id"), str) or not row["id"]:
            raise GoldError(f"{where}: expected an object with an 'id'")
        label = row.get("is_uncertainty")
        if not isinstance(label, bool):
            raise GoldError(f"{where}: 'is_uncertainty' must be true or false")
        found[row["id"]] = label
    return found


def read_gold(path: Path) -> Iterator[GoldSentence]:
    """Every labelled row of a file, in order; blank lines skipped, a bad line is an error."""
    net = Net()
    for where, row in _rows(path):
        yield gold_sentence(row, where, net)
