"""The ``omkd`` command line.

Each command's module is imported only when that command runs, so ``omkd scan`` does not
pay for the daemon's imports (aiohttp, structlog, prometheus_client) at start-up.
"""

from __future__ import annotations

import importlib
from typing import Final

import click

from omkd import __version__

COMMANDS: Final = {
    "scan": ("omkd.cli.scan", "scan_command"),
    "explain": ("omkd.cli.explain", "explain_command"),
    "calibrate": ("omkd.cli.calibrate", "calibrate_command"),
    "conventions": ("omkd.cli.conventions", "conventions_command"),
    "run": ("omkd.cli.run", "run_command"),
    "check-config": ("omkd.cli.run", "check_config_command"),
    "install-unit": ("omkd.cli.run", "install_unit_command"),
    "status": ("omkd.cli.remote", "status_command"),
    "gaps": ("omkd.cli.remote", "gaps_command"),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each command's first sentence whole (click cuts it at 45 characters)."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=200)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, name = target
        command: click.Command = getattr(importlib.import_module(module), name)
        return command


@click.group(
    cls=LazyGroup,
    invoke_without_command=True,
    # OMKD_<COMMAND>_<OPTION> sets any option (OMKD_SCAN_SINCE=7d); some have short names too
    # (OMKD_CONFIG, OMKD_LISTEN, OMKD_URL).
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 120, "auto_envvar_prefix": "OMKD"},
)
@click.version_option(__version__, prog_name="omkd")
@click.pass_context
def main(ctx: click.Context) -> None:
    """omkd finds where the knowledge you give AI coding agents runs out."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())  # bare ``omkd``: the help, exit 0 (not a usage error)
