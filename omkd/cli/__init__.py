"""The ``omkd`` command line."""

from __future__ import annotations

import click

from omkd import __version__
from omkd.cli.remote import gaps_command, status_command
from omkd.cli.run import check_config_command, run_command
from omkd.cli.scan import scan_command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="omkd")
def main() -> None:
    """omkd finds where the knowledge you give AI coding agents runs out."""


for command in (scan_command, run_command, check_config_command, status_command, gaps_command):
    main.add_command(command)
