"""Dataclasses as record types for reading: a record named as a dataclass reads into it."""

import dataclasses
import datetime
import types
import typing


def _inner_types(hint):
    """The classes a field annotation names: list[X], Optional[X], dict[str, X], X."""
    args = typing.get_args(hint)
    if not args:
        return [hint]
    found = []
    for a in args:
        found.extend(_inner_types(a))
    return found


def _is_datetime(hint):
    if hint is datetime.datetime:
        return True
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return datetime.datetime in typing.get_args(hint)
    return False


def record_name(cls):
    """The record name a dataclass sends and reads: ``__objwire_name__`` or its class name."""
    return getattr(cls, "__objwire_name__", cls.__name__)


def record_types(types):
    """{record name: (class, its field names, its fields annotated datetime)} for the given
    dataclasses and every dataclass their fields name, for the extension's reading."""
    if types is None:
        return {}
    if not isinstance(types, (list, tuple, set, frozenset)):
        types = [types]
    table = {}
    todo = list(types)
    while todo:
        cls = todo.pop()
        if not dataclasses.is_dataclass(cls) or not isinstance(cls, type):
            raise TypeError(f"type= takes dataclasses, not {cls!r}")
        name = record_name(cls)
        if name in table:
            continue
        hints = typing.get_type_hints(cls)
        fields = [f.name for f in dataclasses.fields(cls)]
        times = frozenset(f for f in fields if _is_datetime(hints.get(f)))
        table[name] = (cls, frozenset(fields), times)
        for f in fields:
            for inner in _inner_types(hints.get(f)):
                if dataclasses.is_dataclass(inner) and isinstance(inner, type):
                    todo.append(inner)
    return table
