"""Facts of the HTTP API that the daemon serves and the CLI reads (without importing the server)."""

from __future__ import annotations

from typing import Final

DEFAULT_PORT: Final = 9717
"""Where the daemon listens, and where ``omkd status`` asks, unless told otherwise."""
SKILLS_TOTAL_HEADER: Final = "X-Omkd-Skills-Total"
"""How many skills the whole report has: /api/v1/status holds one page of them."""
SKILLS_PAGE: Final = 500
"""Skills in one /api/v1/status answer unless ``limit`` says otherwise."""
MAX_GAPS: Final = 10_000
"""The most gaps one /api/v1/gaps answer holds (its ``limit``)."""
