"""Reducers: how a write is merged into a state field.

A state property names its reducer (``reducer = "wf.std.append"``); the
default is ``wf.std.replace``. A reducer is ``(current, value, config) ->
new``; ``current`` is None when the field holds nothing yet. The runtime owns
``current`` (every value in state is the runtime's own copy), so a reducer may
update it in place and return it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeAlias

from wf_core.runtime.json_values import JsonValue

__all__ = ["BUILTIN_REDUCERS", "Reducer", "append", "replace"]

Reducer: TypeAlias = Callable[[JsonValue, JsonValue, Mapping[str, object]], JsonValue]


def replace(current: JsonValue, value: JsonValue, config: Mapping[str, object]) -> JsonValue:
    """The new value replaces the old one."""
    return value


def append(current: JsonValue, value: JsonValue, config: Mapping[str, object]) -> JsonValue:
    """The value is appended to the list held by the field (created on first write)."""
    if current is None:
        return [value]
    if not isinstance(current, list):
        raise ValueError(f"wf.std.append needs a list in the field, found {type(current).__name__}")
    current.append(value)
    return current


BUILTIN_REDUCERS: Mapping[str, Reducer] = {
    "wf.std.replace": replace,
    "wf.std.append": append,
}
