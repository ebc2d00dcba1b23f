"""``omkd calibrate``: the judge in use against hand-labelled sentences (README "omkd calibrate")."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import click
import orjson
from rich.table import Table

from omkd.cli.gating import EXIT_INPUT
from omkd.cli.render import stdout_console
from omkd.engine.agreement import Measure
from omkd.engine.gold import GoldError, GoldSentence, read_gold
from omkd.engine.hedge_judge import embedded_judge
from omkd.shell.calibrate import (
    Agreement,
    Calibration,
    calibrate,
    labels_from,
    llm_labels,
    select,
    training_overlap,
)

MEASURES = ("precision", "recall", "f1", "alpha")


def _shown(measure: Measure) -> str:
    if measure.value is None:
        return "—"
    return f"{measure.value:.2f} ({measure.lower:.2f}–{measure.upper:.2f})"


def _row(table: Table, name: str, found: Agreement) -> None:
    c = found.cells
    table.add_row(name, str(c.n), f"{c.tp}/{c.fp}/{c.fn}/{c.tn}", *(_shown(found.measures[m]) for m in MEASURES))


def show(result: Calibration) -> None:
    console = stdout_console()
    console.print(f"judge {result.judge} against {result.gold}")
    if result.left_out:
        console.print(
            f"[yellow]{result.left_out} sentence(s) left out: the embedded judge was trained on them "
            "(--include-training scores them too, a flattering figure)[/yellow]"
        )
    table = Table("sentences", "n", "tp/fp/fn/tn", "precision", "recall", "F1", "Krippendorff α", box=None)
    _row(table, "all", result.overall)
    for lang, found in result.by_language.items():
        _row(table, lang, found)
    console.print(table)
    console.print("[dim]95 % percentile bootstrap intervals over the sentences; α nominal, two coders[/dim]")
    if result.fell_back:
        console.print(
            f"[yellow]{result.fell_back} sentence(s) not answered by the LLM judge: embedded verdicts used[/yellow]"
        )
    if result.self_preference is not None:
        sp = result.self_preference
        console.print(
            f"[yellow]possible self-preference: the judge is a {sp.family} model, and {sp.sentences} sentence(s) were "
            f"written by a {sp.family} model. It may favour its own family's wording: read its agreement as an "
            "upper bound, and check with a judge of another vendor or with human labels.[/yellow]"
        )


def _sentences(gold_path: Path, split: str | None, part: str) -> list[GoldSentence]:
    sentences = select(list(read_gold(gold_path)), split, part)
    if not sentences:
        raise GoldError(f"{gold_path}: no labelled sentence" + (f" in split {split!r}" if split else ""))
    return sentences


def _unseen(gold_path: Path, sentences: list[GoldSentence]) -> tuple[list[GoldSentence], int]:
    """The sentences the embedded judge was not trained on, and how many were left out."""
    seen = {id(s) for s in training_overlap(sentences)}
    kept = [s for s in sentences if id(s) not in seen]
    if not kept:
        raise GoldError(
            f"{gold_path}: all {len(seen)} sentence(s) are in the embedded judge's training data; "
            "--include-training scores them anyway (a flattering figure)"
        )
    return kept, len(seen)


@dataclasses.dataclass(frozen=True, slots=True)
class Judged:
    said: list[bool]
    judge: str
    model: str | None = None
    fell_back: int = 0


def _judged(sentences: list[GoldSentence], config_path: Path | None) -> Judged:
    """The verdicts of the judge a config sets: the LLM one when enabled, else the embedded one."""
    if config_path is not None:
        from omkd.config import ConfigError, load_config
        from omkd.shell.llm_judge import open_refiner

        try:
            config = load_config(config_path)
        except ConfigError as error:
            raise GoldError(str(error)) from None
        refiner = open_refiner(config.hedging.llm, config.state_dir())
        if refiner is not None:
            try:
                said, fell_back = llm_labels(sentences, refiner)
            finally:
                refiner.cache.close()
            return Judged(said, refiner.judge, refiner.settings.model, fell_back)
    judge = embedded_judge()
    return Judged([judge.judge(s.candidate).is_uncertainty for s in sentences], judge.name)


@click.command("calibrate")
@click.option(
    "--gold",
    "gold_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Hand-labelled sentences (JSONL, format in the README).",
)
@click.option(
    "--labels",
    "labels_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Compare another labelling of the same sentences (by id) instead of a judge.",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Use the judge this daemon config sets ([hedging.llm] when enabled).",
)
@click.option("--split", help="Only the sentences of this split (e.g. heldout).")
@click.option(
    "--part",
    type=click.Choice(["text", "thinking", "all"]),
    default="all",
    show_default=True,
    help="Only sentences from text or thinking parts.",
)
@click.option(
    "--include-training",
    is_flag=True,
    help="Also score the sentences the embedded judge was trained on (left out by default).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def calibrate_command(
    gold_path: Path, labels_path: Path | None, config_path: Path | None, split: str | None, part: str,
    include_training: bool, as_json: bool,
) -> None:  # fmt: skip
    """Precision, recall, F1 and Krippendorff's alpha of the hedging judge in use against hand labels.

    A judge is not scored on the sentences the embedded judge was trained on (its model file
    records them) unless --include-training: the count left out is printed."""
    left_out = 0
    try:
        sentences = _sentences(gold_path, split, part)
        if labels_path is None and not include_training:
            sentences, left_out = _unseen(gold_path, sentences)
        if labels_path is not None:
            judged = Judged(labels_from(labels_path, sentences), f"labels:{labels_path}")
        else:
            judged = _judged(sentences, config_path)
    except GoldError as error:
        click.echo(f"omkd calibrate: {error}", err=True)
        sys.exit(EXIT_INPUT)
    result = calibrate(gold_path, sentences, judged.said, judged.judge, judged.model, judged.fell_back, left_out)
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(dataclasses.asdict(result), option=orjson.OPT_INDENT_2) + b"\n")
    else:
        show(result)
