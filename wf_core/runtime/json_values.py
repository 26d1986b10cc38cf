"""JSON values as the runtime keeps them.

Everything the runtime stores (state, items, payloads, frame metadata) is
plain JSON: ``None``, ``bool``, ``int``, finite ``float``, ``str``, lists and
string-keyed dicts. Values crossing into or out of user code are copied with
:func:`copy_json`, which also refuses anything else, so the run state can
always be dumped and a handler can never alias what the runtime owns.
"""

from __future__ import annotations

import math
from typing import TypeAlias

from pydantic import JsonValue

__all__ = ["MAX_VALUE_DEPTH", "JsonObject", "JsonValue", "NotJsonError", "copy_json"]

JsonObject: TypeAlias = dict[str, JsonValue]


class NotJsonError(TypeError):
    """A value that JSON cannot carry (a tuple, a set, NaN, a non-string key...)."""


MAX_VALUE_DEPTH = 200
"""Values nest at most this deep (a run-time input of 1,000 nested lists would exhaust
the stack of the copy and of the schema checks after it); deeper is refused as not
JSON the runtime carries."""


def copy_json(value: object, where: str = "value", _depth: int = 0) -> JsonValue:
    """A deep copy of ``value`` made only of JSON types; raises :class:`NotJsonError`.

    Written out rather than ``copy.deepcopy``: it is several times faster on
    the small documents nodes exchange, and it checks while it copies.
    """
    if _depth > MAX_VALUE_DEPTH:
        raise NotJsonError(f"{where} nests deeper than {MAX_VALUE_DEPTH} levels")
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NotJsonError(f"{where} holds a non-finite number")
        return value
    if isinstance(value, dict):
        out: dict[str, JsonValue] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotJsonError(f"{where} has a non-string key {key!r}")
            out[key] = copy_json(item, where, _depth + 1)
        return out
    if isinstance(value, list):
        return [copy_json(item, where, _depth + 1) for item in value]
    raise NotJsonError(f"{where} holds a {type(value).__name__}, which is not JSON")
