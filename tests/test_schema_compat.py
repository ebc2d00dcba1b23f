"""An older client reads a newer document: unknown keys are ignored at every level.

``omkd status`` parses the daemon's ``/api/v1/status`` with ``records.parse(Report, …)``. When a
newer daemon adds fields (always with a default), the older parser must read the ones it knows and
give the same figures, never fail with a ``ValidationError``.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from omkd.engine import records
from omkd.engine.report.build import build_report
from omkd.engine.report.schema import Report
from omkd.shell.scan import discover, scan

pytestmark = pytest.mark.engine


MAPS = frozenset(
    {"by_type", "by_model", "bad_lines", "unknown_types", "ignored", "skipped_files", "outcomes", "max_write_load",
     "unchecked_write_kinds"}
)  # fmt: skip
"""Fields that map names to counts: a newer omkd adds entries (a signal type, a reason), which are kept."""
FREE = frozenset({"evidence"})
"""Fields whose objects are free-form (a signal's evidence): what they hold is kept as it is."""


def _with_extras(value: Any, name: str = "", depth: int = 0) -> tuple[Any, Any]:
    """(the document as a newer omkd writes it, what an older parser should read of it): every
    record gains keys of several JSON types this omkd does not know, which are left out; every map
    of counts gains an entry, and a free-form object a key, which are kept."""
    if isinstance(value, dict):
        pairs = {key: _with_extras(item, key, depth + 1) for key, item in value.items()}
        newer = {key: pair[0] for key, pair in pairs.items()}
        read = {key: pair[1] for key, pair in pairs.items()}
        if name in MAPS:
            newer["added_later"] = read["added_later"] = 3
        elif name in FREE:
            newer["added_later"] = read["added_later"] = {"kept": True}
        else:
            newer[f"added_in_a_later_version_{depth}"] = {"nested": [1, {"deeper": None}], "flag": True}
            newer["another_new_count"] = 7
        return newer, read
    if isinstance(value, list):
        pairs_list = [_with_extras(item, name, depth + 1) for item in value]
        return [p[0] for p in pairs_list], [p[1] for p in pairs_list]
    return value, value


def test_a_status_document_with_extra_fields_at_every_level_reads_as_without_them(real_fixtures: Path) -> None:
    root = real_fixtures / "13562964800__claude-skills"
    report = build_report(scan(discover([root])), [str(root)], gap_limit=None)
    document = records.to_data(report)
    assert document["skills"], "the sample must hold skills"
    assert document["gaps"], "the sample must hold gaps"
    newer, expected = _with_extras(copy.deepcopy(document))
    assert newer != expected
    read = records.parse(Report, newer)
    assert records.to_data(read) == expected
