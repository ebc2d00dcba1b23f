"""A stream processor's state as plain data (JSON), saved with the checkpoint and read back.

Every engine object says what its state is the way Python's copy protocol asks it to
(``__reduce_ex__``: its ``__getstate__`` where it has one — the splitter keeps no partial line,
the text side no judge or net, the call tracker no cache —, else its fields), and takes it back
with its ``__setstate__`` (or its fields). The encoding is JSON with a few tags: ``$o`` an object
of an omkd engine class (by module and name) with its constructor arguments and state, ``$r`` a
second reference to one (a segment is held by the segmenter, the calls awaiting a result and the
changed list at once), ``$t``/``$s``/``$f``/``$q``/``$C``/``$D``/``$b``/``$B`` a tuple, set, frozenset,
deque, Counter, dict with keys that are not strings, bytes, bytearray. Only classes of ``omkd.engine``
modules are made on reading: the state file cannot make Python run anything else.

A state is read only by the omkd, and with the rules, that wrote it (``daemon/streams.py``
checks the fingerprint first): the format carries no migration of its own.
"""

from __future__ import annotations

import collections
import copyreg
import importlib
from typing import Any, Final

import orjson

from omkd.engine import plain

ENGINE: Final = "omkd.engine."
_NEW_OBJECT: Final = getattr(copyreg, "__newobj__")  # noqa: B009 (not in the stubs)
"""What ``__reduce_ex__`` names when an object is made by ``cls.__new__(cls, *args)``."""
"""Only classes of these modules are encoded and made."""
_DEFAULT_GETSTATE: Final[Any] = object.__getstate__
"""The copy protocol's own state (``__dict__`` and slots), which a class compiled by mypyc lacks."""


class StateError(ValueError):
    """A state that cannot be encoded or read (an unknown class, a malformed document)."""


def dumps(value: object) -> bytes:
    return orjson.dumps(_encode(value, {}))


def loads(data: bytes) -> Any:
    return _Decoder().decode(orjson.loads(data))


def _encode(value: Any, memo: dict[int, int]) -> Any:
    kind = type(value)
    if value is None or kind is bool or kind is int or kind is float or kind is str:
        return value
    if kind is list:
        return [_encode(item, memo) for item in value]
    if kind is tuple:
        return {"$t": [_encode(item, memo) for item in value]}
    if kind is dict:
        if all(type(key) is str and not key.startswith("$") for key in value):
            return {key: _encode(item, memo) for key, item in value.items()}
        return _pairs(value, memo)  # keys that are not strings, or that could be read as tags
    if kind is set:
        return {"$s": [_encode(item, memo) for item in value]}
    if kind is frozenset:
        return {"$f": [_encode(item, memo) for item in value]}
    if kind is collections.deque:
        return {"$q": [_encode(item, memo) for item in value], "max": value.maxlen}
    if kind is collections.Counter:
        return {"$C": [[_encode(key, memo), count] for key, count in value.items()]}
    if kind is bytes:
        return {"$b": value.hex()}
    if kind is bytearray:
        return {"$B": value.hex()}
    return _object(value, memo)


def _pairs(value: dict[Any, Any], memo: dict[int, int]) -> dict[str, Any]:
    return {"$D": [[_encode(key, memo), _encode(item, memo)] for key, item in value.items()]}


def _object(value: Any, memo: dict[int, int]) -> dict[str, Any]:
    kind = type(value)
    if not kind.__module__.startswith(ENGINE):
        raise StateError(f"{kind.__module__}.{kind.__qualname__} is not an engine class")
    seen = memo.get(id(value))
    if seen is not None:
        return {"$r": seen}
    number = memo[id(value)] = len(memo)
    if hasattr(kind, "__mypyc_attrs__") and kind.__getstate__ is _DEFAULT_GETSTATE:
        # a class compiled by mypyc: no __dict__ for the copy protocol to read; its attributes are
        # the same plain data (``plain.attributes``)
        arguments: tuple[Any, ...] = (kind,)
        state: Any = plain.attributes(value)
    else:
        reduced = value.__reduce_ex__(4)
        maker, arguments = reduced[0], reduced[1]
        if maker is not _NEW_OBJECT:
            raise StateError(f"{kind.__qualname__} is not made by __new__")
        state = reduced[2] if len(reduced) > 2 else None
    return {
        "$o": f"{kind.__module__}:{kind.__qualname__}",
        "$i": number,
        "a": _encode(list(arguments[1:]), memo),
        "s": _encode(state, memo),
    }


class _Decoder:
    def __init__(self) -> None:
        self.made: dict[int, Any] = {}

    def decode(self, value: Any) -> Any:
        if not isinstance(value, dict | list):
            return value
        if isinstance(value, list):
            return [self.decode(item) for item in value]
        if "$o" in value:
            return self._object(value)
        if "$r" in value:
            return self.made[value["$r"]]
        if "$t" in value:
            return tuple(self.decode(item) for item in value["$t"])
        if "$s" in value:
            return {self.decode(item) for item in value["$s"]}
        if "$f" in value:
            return frozenset(self.decode(item) for item in value["$f"])
        if "$q" in value:
            return collections.deque((self.decode(item) for item in value["$q"]), value.get("max"))
        if "$C" in value:
            return collections.Counter({self.decode(key): count for key, count in value["$C"]})
        if "$D" in value:
            return {self.decode(key): self.decode(item) for key, item in value["$D"]}
        if "$b" in value:
            return bytes.fromhex(value["$b"])
        if "$B" in value:
            return bytearray.fromhex(value["$B"])
        return {key: self.decode(item) for key, item in value.items()}

    def _object(self, value: dict[str, Any]) -> Any:
        module, _, name = str(value["$o"]).partition(":")
        if not module.startswith(ENGINE):
            raise StateError(f"{value['$o']} is not an engine class")
        kind: Any = importlib.import_module(module)
        for part in name.split("."):
            kind = getattr(kind, part)
        if not isinstance(kind, type):
            raise StateError(f"{value['$o']} is not a class")
        arguments = self.decode(value["a"])
        made = kind.__new__(kind, *arguments)
        self.made[int(value["$i"])] = made
        state = self.decode(value["s"])
        if state is None:
            return made
        setstate = getattr(made, "__setstate__", None)
        if setstate is not None:
            setstate(state)
            return made
        fields, slots = state if isinstance(state, tuple) and len(state) == 2 else (state, None)
        if fields:
            plain.set_attributes(made, fields)
        for key, item in (slots or {}).items():
            object.__setattr__(made, key, item)
        return made
