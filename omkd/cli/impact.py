"""``omkd impact``: did each knowledge edit help? Before and after each change (spec §9).

PATH... are read as ``omkd scan`` reads them (its default roots without PATH); the changes come
from the git history and mtimes of the knowledge files of the projects the segments ran in and of
the user (``shell/impact.py``). A terminal gets the Markdown rendered at its width; a pipe the
Markdown itself. Every result carries its verdicts, read from exact rise intervals,
and the sentence that before and after cover different tasks.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import click
import orjson

from omkd.cli.gating import EXIT_INPUT
from omkd.cli.impact_markdown import impact_markdown
from omkd.cli.options import home_option, jobs_option, kb_option, reading_config_option
from omkd.engine import records
from omkd.engine.timespec import parse_duration


def _span(value: str) -> float:
    try:
        span = parse_duration(value, bare_unit="d")
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--span") from None
    if span <= 0:
        raise click.BadParameter("the span must be longer than 0", param_hint="--span")
    return span


@click.command("impact")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--skill", "skills", multiple=True, help="Only this skill (repeatable).")
@click.option("--agent", "agents", multiple=True, help="Only this agent: claude_code, codex, gemini (repeatable).")
@click.option(
    "--span", help="Each side's length, cut at the neighbouring change (default: the config's impact.span, 14d)."
)
@click.option("--since", help="Only changes at or after this time (ISO-8601, or an age: 30d).")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON (schema in the README).")
@click.option(
    "--markdown",
    "markdown_path",
    type=click.Path(dir_okay=False),
    help="Also write the results as Markdown to this file (-: stdout).",
)
@kb_option
@reading_config_option
@jobs_option
@home_option
def impact_command(
    paths: tuple[Path, ...],
    skills: tuple[str, ...],
    agents: tuple[str, ...],
    span: str | None,
    since: str | None,
    as_json: bool,
    markdown_path: str | None,
    knowledge_roots: tuple[Path, ...],
    config_path: Path | None,
    jobs: int | None,
    home: Path,
) -> None:
    """Did each knowledge edit help? Each change of CLAUDE.md, AGENTS.md or a skill: before, after, verdict.

    PATH... are read as `omkd scan` reads them (its default folders without PATH)."""
    from omkd.cli.scan import _moment, read_fold  # deferred: the scan's reading stack
    from omkd.shell.impact import impact_of
    from omkd.shell.knowledge import FileKnowledgeIndex

    for root in knowledge_roots:
        if not root.is_dir():
            raise click.BadParameter(f"{root}: no such directory", param_hint="--kb")
    span_seconds, after = (_span(span) if span is not None else None), _moment("--since", since)
    read = read_fold("impact", paths, None, None, config_path, jobs)
    index = FileKnowledgeIndex(home=home, extra_roots=knowledge_roots)
    query = dataclasses.replace(
        read.impact,
        span=read.impact.span if span_seconds is None else span_seconds,
        since=after,
        skills=set(skills) or None,
        agents=set(agents) or None,
        roots=tuple(str(p) for p in read.paths),
    )
    report = impact_of(read.fold.in_window(), index, query)
    document = impact_markdown(report)
    if markdown_path == "-":
        sys.stdout.write(document)
    elif markdown_path is not None:
        try:
            Path(markdown_path).write_text(document, encoding="utf-8")
        except OSError as error:
            click.echo(f"omkd impact: cannot write {markdown_path}: {error.strerror or error}", err=True)
            sys.exit(EXIT_INPUT)
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(records.to_data(report), option=orjson.OPT_INDENT_2) + b"\n")
    elif markdown_path != "-":
        _show(document)


def _show(document: str) -> None:
    """The Markdown as it is (a pipe, a file), or rendered at the terminal's width."""
    from rich.console import Console  # deferred: only for a terminal
    from rich.markdown import Markdown

    console = Console()
    if console.is_terminal:
        console.print(Markdown(document))
    else:
        click.echo(document, nl=False)
