"""structlog setup: JSON lines when stderr is not a terminal, readable output when it is."""

from __future__ import annotations

import logging
import os
import sys

import structlog


def colours() -> bool:
    """Colour on a terminal, unless ``NO_COLOR`` is set to anything (https://no-color.org)."""
    return sys.stderr.isatty() and not os.environ.get("NO_COLOR")


def configure(level: str = "info", json: bool | None = None) -> None:
    if json is None:
        json = not sys.stderr.isatty()
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=colours())
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
