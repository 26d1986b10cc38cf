"""The scopes and variables of a stop, as the Debug Adapter Protocol hands them out.

Every value is JSON: a variable shows its value as compact JSON, and an object or a
list is expandable into its members. References live only while the run is stopped, as
the protocol has them, and are never reused.

The Context scope lists, for each active loop from the outermost, its
``foreach.<id>.item`` and ``foreach.<id>.index`` (the id quoted as paths quote it:
``foreach."orders.v2".item``), then every other key of the context the node reads
(aliases, ``loop_item``, ``loop_index``, ``prior_outcome``, ...), then the whole
``foreach`` mapping: the context exactly as ``wfls run --trace --format json`` prints
it, with the loops' entries first.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from wf_core.language.paths import format_segment, format_segments
from wf_core.runtime.json_values import JsonValue

__all__ = ["Variables", "context_entries", "render"]


def render(value: JsonValue) -> str:
    """A value as the Variables view and the console show it: compact JSON."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


@dataclass(frozen=True, slots=True)
class _Entry:
    name: str
    value: JsonValue
    evaluate_name: str | None


def context_entries(context: dict[str, JsonValue]) -> list[tuple[str, JsonValue, str]]:
    """The Context scope's lines: ``(name, value, path)``; see the module's docstring."""
    entries: list[tuple[str, JsonValue, str]] = []
    loops = context.get("foreach")
    if isinstance(loops, dict):
        for owner, entry in loops.items():
            if not isinstance(entry, dict):
                continue
            for key in ("item", "index"):
                name = f"foreach.{format_segment(owner)}.{key}"
                entries.append((name, entry.get(key), f"context.{name}"))
    for key, value in context.items():
        if key != "foreach":
            entries.append((key, value, format_segments(("context", key))))
    if "foreach" in context:
        entries.append(("foreach", context["foreach"], "context.foreach"))
    return entries


class Variables:
    """The references of one stop: each names a list of entries, made when asked."""

    def __init__(self) -> None:
        self._tables: dict[int, list[_Entry]] = {}
        self._last = 0

    def clear(self) -> None:
        """Forget the references of the last stop. Numbers go on rising: a client that
        keeps what it showed by reference never takes a new stop's for an old one."""
        self._tables.clear()

    def scope(self, entries: list[tuple[str, JsonValue, str | None]]) -> int:
        """A reference for a scope holding ``entries`` (name, value, path to evaluate)."""
        self._last += 1
        self._tables[self._last] = [_Entry(n, v, p) for n, v, p in entries]
        return self._last

    def _children(self, value: JsonValue, path: str | None) -> int:
        if isinstance(value, dict) and value:
            return self.scope(
                [
                    (key, member, f"{path}.{format_segment(key)}" if path else None)
                    for key, member in value.items()
                ]
            )
        if isinstance(value, list) and value:
            # Paths have no index syntax: list members are shown but not evaluable.
            return self.scope([(f"[{i}]", member, None) for i, member in enumerate(value)])
        return 0

    def variables(self, reference: int) -> list[dict[str, object]]:
        """The protocol's ``Variable`` objects of ``reference`` (none for an unknown one)."""
        out: list[dict[str, object]] = []
        for entry in self._tables.get(reference, []):
            variable: dict[str, object] = {
                "name": entry.name,
                "value": render(entry.value),
                "type": _type_name(entry.value),
                "variablesReference": self._children(entry.value, entry.evaluate_name),
            }
            if entry.evaluate_name is not None:
                variable["evaluateName"] = entry.evaluate_name
            out.append(variable)
        return out

    def expandable(self, value: JsonValue, path: str | None) -> int:
        """A reference for the members of ``value`` (0 when it has none)."""
        return self._children(value, path)


def _type_name(value: JsonValue) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"
