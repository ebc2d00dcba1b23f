"""``omkd report``: the report as one self-contained HTML file, from transcripts or a daemon.

The page itself is ``render/html.py``; here the report is read (``omkd scan``'s reading of
PATHs, or a running daemon's ``/api/v1/status`` and ``/api/v1/gaps``), each skill's knowledge
changes are found (git history, mtimes) and the installed skills listed, then the file written
atomically.
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from omkd.api import MAX_GAPS
from omkd.cli.gating import EXIT_INPUT
from omkd.cli.options import home_option, jobs_option, kb_option, reading_config_option, since_option, until_option
from omkd.cli.remote import fetch, fetch_if_served, fetch_status
from omkd.engine import records
from omkd.engine.impact.schema import ImpactReport, ImpactResult
from omkd.engine.report.schema import GapEntry, Report, SkillHealth
from omkd.render.chart import Change
from omkd.render.html import InstalledSkill, PageInputs, render
from omkd.shell.knowledge import FileKnowledgeIndex, installed_skills, skill_files
from omkd.shell.knowledge_history import knowledge_changes


def _changes(report: Report, index: FileKnowledgeIndex) -> dict[tuple[str, str | None], list[Change]]:
    """Each skill's knowledge changes from the start of the UTC day before its window (a chart
    marks from the day before its first point); git is asked once for all the skills' files."""
    start = report.watermark.window_from
    since = (math.floor(datetime.fromisoformat(start).timestamp() / DAY) - 1) * DAY if start else None
    own: dict[tuple[str, str | None], set[str]] = {}
    for skill in report.skills:
        agents = (skill.agent,) if skill.agent else ()
        files = set(index.files_for(None, agents))
        for cwd in skill.projects:
            files.update(index.files_for(cwd, agents))
        own[(skill.skill, skill.agent)] = set(skill_files(files, skill.skill))
    changes = knowledge_changes(set().union(*own.values()), since)
    found: dict[tuple[str, str | None], list[Change]] = {}
    for key, files in own.items():
        found[key] = [
            Change(c.timestamp, c.commit, c.subject, touched)
            for c in changes
            if (touched := tuple(f for f in c.files if f in files))
        ]
    return found


def _projects(skills: list[SkillHealth]) -> list[str]:
    return sorted({cwd for skill in skills for cwd in skill.projects})


def _write(path: Path, text: str) -> None:
    """Atomically: a reader (a browser, a CI artifact upload) never sees half a page."""
    directory = path.parent if str(path.parent) else Path()
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=directory)
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)  # as any file the user writes, not mkstemp's 0600
        # a transcript's file name that is not UTF-8 (its bytes kept as surrogates) shows as U+FFFD
        clean = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(clean)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


DAY = 86400


@click.command("report")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--url", help="Read a running daemon's report instead of transcripts (e.g. http://127.0.0.1:9464).")
@click.option(
    "--html",
    "html_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the page here (one file, nothing fetched when it is viewed).",
)
@since_option
@until_option
@kb_option
@reading_config_option
@jobs_option
@home_option
def report_command(
    paths: tuple[Path, ...],
    url: str | None,
    html_path: Path,
    since: str | None,
    until: str | None,
    knowledge_roots: tuple[Path, ...],
    config_path: Path | None,
    jobs: int | None,
    home: Path,
) -> None:
    """Write the report as one self-contained HTML page: skill table, daily charts with knowledge changes marked, gaps.

    PATH... are read as `omkd scan` reads them; --url reads a running daemon's window instead."""
    if url is not None and paths:
        raise click.UsageError("give PATH... or --url, not both")
    if not html_path.parent.is_dir():
        click.echo(f"omkd report: {html_path.parent}: no such directory for --html", err=True)
        sys.exit(EXIT_INPUT)
    index = FileKnowledgeIndex(home=home, extra_roots=knowledge_roots)
    if url is not None:
        if since or until:
            raise click.UsageError("--since and --until apply to PATH...; the daemon reports its own window")
        document: dict[str, Any] = fetch_status(url, ())
        document["gaps"] = fetch(url, "/api/v1/gaps", [("limit", str(MAX_GAPS))]).get("gaps", [])
        try:
            report = records.parse(Report, document)
            served = fetch_if_served(url, "/api/v1/impact", [])
            if served is None:
                click.echo(
                    f"omkd report: {url} has no /api/v1/impact (an older omkd): no change effects shown", err=True
                )
            results = records.parse(ImpactReport, served).results if served is not None else []
        except ValueError as error:
            click.echo(f"omkd report: {url} did not answer with an omkd report: {error}", err=True)
            sys.exit(EXIT_INPUT)
        source = url
    else:
        from omkd.cli.scan import read_report_and_fold  # deferred: the scan's reading stack
        from omkd.shell.impact import impact_of

        report, index, read = read_report_and_fold(
            "report", paths, knowledge_roots, since, until, config_path, jobs, home, None
        )
        source = ", ".join(report.watermark.roots)
        query = dataclasses.replace(read.impact, roots=tuple(report.watermark.roots))
        results = impact_of(read.fold.in_window(), index, query).results
    gaps: list[GapEntry] = list(report.gaps)
    projects = _projects([report.overall, *report.skills])
    installed = [InstalledSkill(name, agent, path) for name, agent, path in installed_skills(home, projects)]
    impacts: dict[tuple[str, str | None], list[ImpactResult]] = {}
    for result in results:
        impacts.setdefault((result.skill, result.agent), []).append(result)
    page = render(report, gaps, PageInputs(source, _changes(report, index), installed, impacts))
    try:
        _write(html_path, page)
    except OSError as error:
        click.echo(f"omkd report: cannot write {html_path}: {error.strerror or error}", err=True)
        sys.exit(EXIT_INPUT)
    skills = len(report.skills)
    click.echo(f"omkd report: wrote {html_path} ({skills} skill{'s' if skills != 1 else ''}, {len(gaps)} gaps)")
