"""``mypyc_attr``, for the classes of the compiled build (``setup.py``): mypyc reads the decorator
where it compiles a class; interpreted, it changes nothing (and ``mypy_extensions`` need not be
installed). This module is never compiled itself: mypyc takes the ``else`` below for unreachable."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr  # noqa: PLC0414 (re-exported, for mypy)
else:

    def mypyc_attr(**_flags: object) -> Callable[[type], type]:
        return lambda kind: kind
