"""The report's records: frozen dataclasses, their JSON-ready data, and reading them back.

A report is built and printed by every ``omkd scan``, so its records are plain dataclasses that
cost nothing to define (pydantic models took 0.3 s of an empty scan's start-up to import and
build). Validation is only needed where a report comes back as JSON (``omkd status`` reads the
daemon's): ``parse`` builds a pydantic validator for a record type the first time it is asked.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Final, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance
    from pydantic import TypeAdapter


class Record:
    """The base of the report's records. A parsed document's unknown keys are ignored, at every
    level: an ``omkd status`` one version older than its daemon reads the fields it knows of a
    document that has gained others (a field is only ever added with a default)."""

    __slots__ = ()
    __pydantic_config__ = {"extra": "ignore"}  # noqa: RUF012 (read by pydantic, never changed)


RecordType = TypeVar("RecordType", bound=Record)


_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def to_data(value: Any) -> Any:
    """``value`` as JSON-ready data: records as dicts in field order, tuples as lists."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is list or kind is tuple:
        return [to_data(item) for item in value]
    if isinstance(value, dict):
        return {key: to_data(item) for key, item in value.items()}
    names = _FIELD_NAMES.get(kind)
    if names is None:
        if not dataclasses.is_dataclass(kind):
            return value
        names = _FIELD_NAMES[kind] = tuple(spec.name for spec in dataclasses.fields(kind))
    return {name: to_data(getattr(value, name)) for name in names}


def fields_data(record: DataclassInstance, omit: frozenset[str]) -> dict[str, Any]:
    """``to_data(record)`` without the fields named in ``omit`` (none of them converted)."""
    names = (spec.name for spec in dataclasses.fields(record))
    return {name: to_data(getattr(record, name)) for name in names if name not in omit}


_ADAPTERS: dict[type[Record], TypeAdapter[Any]] = {}


def parse(record_type: type[RecordType], document: object) -> RecordType:
    """A record from its JSON-ready data, validated (``pydantic.ValidationError`` when it is not one)."""
    adapter = _ADAPTERS.get(record_type)
    if adapter is None:
        from pydantic import TypeAdapter

        adapter = _ADAPTERS[record_type] = TypeAdapter(record_type)
    record: RecordType = adapter.validate_python(document)
    return record
