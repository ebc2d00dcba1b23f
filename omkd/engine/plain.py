"""Counter records as plain data: add, copy, save and restore them from their own fields.

The counter records of omkd (``StreamCounters``, ``PipelineCounters``, ``SkillCounters``,
``GapCounts``, ``SkillTotals``) are dataclasses whose fields are integers, floats, strings
or ``Counter``s of them. Everything that handles them generically lives here, so that a
field added to a record is saved, restored, summed and copied without another line of code.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance as _Dataclass

Record = TypeVar("Record", bound="_Dataclass")


def field_names(record_type: type[_Dataclass]) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(record_type))


def to_plain(record: _Dataclass) -> dict[str, Any]:
    """The record's fields as JSON-ready data; a ``Counter`` becomes a key-sorted dict."""
    out: dict[str, Any] = {}
    for name in field_names(type(record)):
        value = getattr(record, name)
        if isinstance(value, Counter):
            value = {key: value[key] for key in sorted(value) if value[key]}
        elif isinstance(value, list):
            value = list(value)
        out[name] = value
    return out


def from_plain(record_type: type[Record], document: dict[str, Any]) -> Record:
    """A record from ``to_plain`` output. Missing fields keep their defaults; unknown keys are
    ignored (a state written by a newer omkd), wrong types raise ``TypeError``."""
    record = record_type()
    for spec in dataclasses.fields(record_type):
        if spec.name not in document:
            continue
        value = document[spec.name]
        current = getattr(record, spec.name)
        if isinstance(current, Counter):
            if not isinstance(value, dict):
                raise TypeError(f"{record_type.__name__}.{spec.name}: expected an object, got {value!r}")
            current.update({str(k): v for k, v in value.items()})
            continue
        if isinstance(current, bool) or not isinstance(current, int | float | str | list | type(None)):
            raise TypeError(f"{record_type.__name__}.{spec.name}: cannot restore a {type(current).__name__}")
        if isinstance(current, int | float) and (not isinstance(value, int | float) or isinstance(value, bool)):
            raise TypeError(f"{record_type.__name__}.{spec.name}: expected a number, got {value!r}")
        setattr(record, spec.name, value)
    return record


def add_into(target: _Dataclass, source: _Dataclass, sign: int = 1) -> None:
    """``target += sign * source``, field by field, over the fields both records have.

    Counters drop keys that fall to zero, so adding and then taking away leaves no trace.
    """
    source_fields = set(field_names(type(source)))
    for name in field_names(type(target)):
        if name not in source_fields:
            continue
        value = getattr(source, name)
        if isinstance(value, Counter):
            counter: Counter[str] = getattr(target, name)
            for key, count in value.items():
                total = counter[key] + sign * count
                if total:
                    counter[key] = total
                else:
                    del counter[key]
        elif isinstance(value, int | float) and not isinstance(value, bool):
            setattr(target, name, getattr(target, name) + sign * value)


def copy_record(record: Record) -> Record:
    """A copy that shares no mutable field with the original."""
    changes = {
        name: Counter(value) if isinstance(value, Counter) else list(value)
        for name in field_names(type(record))
        if isinstance(value := getattr(record, name), Counter | list)
    }
    return dataclasses.replace(record, **changes)


def attributes(value: object) -> dict[str, Any]:
    """An engine object's attributes as plain data: its ``__dict__``; a class compiled by mypyc has
    none, and names its attributes in ``__mypyc_attrs__`` along its MRO (those set are taken)."""
    found = getattr(value, "__dict__", None)
    if found is not None:
        return dict(found)
    out: dict[str, Any] = {}
    for kind in reversed(type(value).__mro__):
        for name in getattr(kind, "__mypyc_attrs__", ()):
            if not name.startswith("__") and name not in out and hasattr(value, name):
                out[name] = getattr(value, name)
    return out


def set_attributes(target: object, state: dict[str, Any]) -> None:
    """``attributes`` given back: into the ``__dict__``, or attribute by attribute (compiled)."""
    found = getattr(target, "__dict__", None)
    if found is not None:
        found.update(state)
        return
    for name, item in state.items():
        object.__setattr__(target, name, item)


def fields_state(record: _Dataclass) -> list[object]:
    """A frozen dataclass's pickled state: its field values in order (what ``dataclass(slots=True)``
    gives one by itself; a class compiled by mypyc needs it written out, mypyc issue 1213)."""
    return [getattr(record, spec.name) for spec in dataclasses.fields(record)]


def set_fields_state(record: _Dataclass, state: list[object]) -> None:
    """``fields_state`` given back to a frozen dataclass (past its ``__setattr__``)."""
    for spec, item in zip(dataclasses.fields(record), state, strict=False):
        object.__setattr__(record, spec.name, item)
