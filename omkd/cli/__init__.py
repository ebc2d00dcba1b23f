"""The ``omkd`` command line.

Each command's module is imported only when that command runs, so ``omkd scan`` does not
pay for the daemon's imports (aiohttp, structlog, prometheus_client) at start-up, and
``omkd --help`` imports none of them.
"""

from __future__ import annotations

import importlib
from typing import Final, NamedTuple

import click

from omkd import __version__
from omkd.build import build


class LazyCommand(NamedTuple):
    module: str
    name: str
    summary: str
    """Its first sentence, as ``omkd --help`` lists it (the same as the command's own; a test
    compares them): the list imports no command's module, the daemon's included."""


COMMANDS: Final = {
    "scan": LazyCommand(
        "omkd.cli.scan", "scan_command", "Scan transcript files or directories (recursively) and report skill health."
    ),
    "report": LazyCommand(
        "omkd.cli.report",
        "report_command",
        "Write the report as one self-contained HTML page: skill table, daily charts with knowledge changes "
        "marked, gaps.",
    ),
    "impact": LazyCommand(
        "omkd.cli.impact",
        "impact_command",
        "Did each knowledge edit help? Each change of CLAUDE.md, AGENTS.md or a skill: before, after, verdict.",
    ),
    "explain": LazyCommand(
        "omkd.cli.explain",
        "explain_command",
        "Explain transcripts: each segment and why it started and ended, each tool call's verdict and the rule "
        "that decided it, each uncertainty candidate.",
    ),
    "calibrate": LazyCommand(
        "omkd.cli.calibrate",
        "calibrate_command",
        "Precision, recall, F1 and Krippendorff's alpha of the hedging judge in use against hand labels.",
    ),
    "conventions": LazyCommand(
        "omkd.cli.conventions",
        "conventions_command",
        "Print the marker convention for CLAUDE.md or AGENTS.md (README: Hedging, omkd conventions).",
    ),
    "wiki": LazyCommand(
        "omkd.cli.wiki",
        "wiki_command",
        "Merge the recurring gaps into a Markdown wiki a person can edit; --lint checks it.",
    ),
    "run": LazyCommand(
        "omkd.cli.run",
        "run_command",
        "Run the daemon: tail transcripts, keep state, serve /metrics and the status API.",
    ),
    "check-config": LazyCommand(
        "omkd.cli.run",
        "check_config_command",
        "Validate a config file; report every bad key by name (exit 2 when invalid).",
    ),
    "install-unit": LazyCommand(
        "omkd.cli.run",
        "install_unit_command",
        "Write omkd's systemd unit with this installation's real paths (then: daemon-reload, enable --now).",
    ),
    "status": LazyCommand(
        "omkd.cli.remote",
        "status_command",
        "Spot-check a running daemon: skill table, tiers and watermark; same gates as scan.",
    ),
    "gaps": LazyCommand(
        "omkd.cli.remote",
        "gaps_command",
        "The gap inventory of a running daemon, newest first: what is missing, where.",
    ),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each command's first sentence whole (click cuts it at 45 characters)."""
        with formatter.section("Commands"):
            formatter.write_dl([(name, command.summary) for name, command in COMMANDS.items()])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        command: click.Command = getattr(importlib.import_module(target.module), target.name)
        return command


@click.group(
    cls=LazyGroup,
    invoke_without_command=True,
    # OMKD_<COMMAND>_<OPTION> sets any option (OMKD_SCAN_SINCE=7d); some have short names too
    # (OMKD_CONFIG, OMKD_LISTEN, OMKD_URL).
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 120, "auto_envvar_prefix": "OMKD"},
)
@click.version_option(__version__, prog_name="omkd", message=f"%(prog)s, version %(version)s ({build().describe()})")
@click.pass_context
def main(ctx: click.Context) -> None:
    """omkd finds where the knowledge you give AI coding agents runs out."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())  # bare ``omkd``: the help, exit 0 (not a usage error)
