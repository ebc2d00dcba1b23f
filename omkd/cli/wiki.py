"""``omkd wiki DIR``: merge the recurring gaps into a Markdown wiki; ``--lint`` checks one.

The traces come from PATHs (read as ``omkd scan`` reads them) or from a running daemon (``--url``).
Exit codes: 0 fine, 1 ``--lint`` found problems (each printed), 2 bad usage or unreadable input.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import click

from omkd.cli.gating import EXIT_GATE, EXIT_INPUT
from omkd.cli.options import home_option, kb_option, since_option, until_option
from omkd.engine import records
from omkd.engine.report.schema import GapEntry
from omkd.engine.wiki import entries
from omkd.engine.wiki.entries import Occurrence, WikiState
from omkd.engine.wiki.quiet import Judged
from omkd.shell.knowledge import FileKnowledgeIndex

Found = tuple[list[Occurrence], dict[str, frozenset[str]], dict[str, list[Judged]] | None]
"""The failed searches, each row's knowledge files, what the impact report says of the patterns."""


def _from_paths(paths: tuple[Path, ...], since: str | None, until: str | None, index: FileKnowledgeIndex) -> Found:
    from omkd.cli.scan import read_fold  # deferred: the scan's reading stack
    from omkd.shell.wiki import from_fold, judged_of

    read = read_fold("wiki", paths, since, until)
    where = {source.name: str(source.path.absolute()) for source in read.files}
    found, knowledge = from_fold(read.fold, index, lambda name: where.get(name, name))
    return found, knowledge, judged_of(read.fold.in_window(), index, read.impact)


def _from_daemon(url: str, index: FileKnowledgeIndex) -> Found:
    from omkd.cli.remote import fetch, fetch_if_served
    from omkd.engine.impact.schema import ImpactReport
    from omkd.engine.report.build import agents_of
    from omkd.engine.wiki.quiet import judged

    roots = [Path(root) for root in fetch(url, "/api/v1/status", [("limit", "1")])["watermark"]["roots"]]
    gaps = [  # each type the wiki keeps, up to the API's cap each
        records.parse(GapEntry, gap)
        for kind in entries.KINDS
        for gap in fetch(url, "/api/v1/gaps", [("type", kind), ("limit", "10000")])["gaps"]
    ]

    def path_of(name: str) -> str:
        found = [root / name for root in roots if (root / name).exists()]
        return str((found or [root / name for root in roots] or [Path(name)])[0])

    found = entries.occurrences(gaps, path_of)
    cwds: dict[str, set[str | None]] = {}
    for gap, occurrence in zip([g for g in gaps if g.type in entries.KINDS], found, strict=True):
        cwds.setdefault(occurrence.row, {None}).add(gap.cwd)
    knowledge = {
        row: frozenset().union(*(index.files_for(cwd, agents_of([row])) for cwd in where))
        for row, where in cwds.items()
    }
    served = fetch_if_served(url, "/api/v1/impact", [])  # None: an older omkd (nothing judged)
    try:
        return found, knowledge, judged(records.parse(ImpactReport, served).results) if served is not None else None
    except ValueError as error:
        click.echo(f"omkd wiki: {url} did not answer /api/v1/impact with an omkd impact report: {error}", err=True)
        sys.exit(EXIT_INPUT)


def _prose(config_path: Path | None) -> Callable[[WikiState], WikiState] | None:
    """The LLM prose writer of ``--llm CONFIG``; bad or incomplete config: a message, exit 2."""
    if config_path is None:
        return None
    from omkd.config import ConfigError, load_config
    from omkd.shell.llm_judge import LlmSettings
    from omkd.shell.wiki_prose import writer

    try:
        config = load_config(config_path)
    except ConfigError as error:
        click.echo(f"omkd wiki: {error}", err=True)
        sys.exit(EXIT_INPUT)
    if not config.hedging.llm.model.strip():
        click.echo(f"omkd wiki: {config_path}: hedging.llm.model is not set: --llm needs the model", err=True)
        sys.exit(EXIT_INPUT)
    return writer(LlmSettings.of(config.hedging.llm))


@click.command("wiki")
@click.argument("directory", type=click.Path(path_type=Path, file_okay=False))
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--url", help="Read the gaps of a running daemon at this address instead of PATHs.")
@since_option
@until_option
@kb_option
@home_option
@click.option(
    "--llm",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Have the model of this daemon config's [hedging.llm] write each entry's prose (the "
    "deterministic entry stays when it fails).",
)
@click.option("--lint", "only_lint", is_flag=True, help="Only check DIR: broken links, orphans, stale examples…")
def wiki_command(
    directory: Path,
    paths: tuple[Path, ...],
    url: str | None,
    since: str | None,
    until: str | None,
    knowledge_roots: tuple[Path, ...],
    home: Path,
    config_path: Path | None,
    only_lint: bool,
) -> None:
    """Merge the recurring gaps into a Markdown wiki a person can edit; --lint checks it.

    DIR gets skills/<slug>.md (each missing thing of a skill: pattern, count, sessions, first and
    last seen, examples with file:line, open or quiet), topics/<slug>.md (a thing several skills
    missed), index.md and log.md. Only the part between the markers of a page is rewritten. PATHs as
    for `omkd scan` (none: the agents' default folders)."""
    from omkd.shell.wiki import WikiError, changes_by_row, lint_wiki, update

    try:
        if only_lint:
            if paths or url:
                raise click.UsageError("--lint only checks DIR: give no PATH and no --url")
            problems = lint_wiki(directory)
            for problem in problems:
                click.echo(str(problem))
            click.echo(f"{len(problems)} {'problem' if len(problems) == 1 else 'problems'} in {directory}")
            sys.exit(EXIT_GATE if problems else 0)
        if url and paths:
            raise click.UsageError("give PATHs or --url, not both")
        index = FileKnowledgeIndex(home=home, extra_roots=knowledge_roots)
        found, knowledge, judged = _from_daemon(url, index) if url else _from_paths(paths, since, until, index)
        changes = changes_by_row(knowledge)
        done = update(directory, found, changes, time.time(), "omkd wiki", _prose(config_path), judged)
    except WikiError as error:
        click.echo(f"omkd wiki: {error}", err=True)
        sys.exit(EXIT_INPUT)
    for page in done.skipped:
        click.echo(f"omkd wiki: left {page} alone: its markers are damaged (see --lint)", err=True)
    click.echo(
        f"{directory}: {done.new} new entries, {done.updated} updated, {len(done.written)} pages written"
        + ("" if done.written or done.new or done.updated else " (nothing changed)")
    )
