"""Go to definition: from a use to the place that declares it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wf_core.context_contracts import FOREACH_CONTEXT_KEY, LOOP_INDEX_KEY, LOOP_ITEM_KEY
from wf_core.locations import Location
from wf_core.schema_nav import SchemaNavigator
from wf_core.snapshot import DocumentSnapshot
from wfls.features.cursor import PathCursor, owner_stack_at, path_at, string_at
from wfls.features.types import Target


def definition(snapshot: DocumentSnapshot, offset: int) -> list[Target]:
    cursor = path_at(snapshot, offset)
    if cursor is not None:
        return path_definition(snapshot, cursor)
    string = string_at(snapshot, offset)
    if string is None:
        return []
    location, value = string.location, string.literal.value
    if location == ("start",) or (location[:1] == ("edges",) and location[-1] in ("from", "to")):
        return _node_field(snapshot, value, "id")
    if location[:1] == ("nodes",) and len(location) == 3 and location[-1] == "node":
        return _node_def(snapshot, value)
    return []


def _node_field(snapshot: DocumentSnapshot, node_id: str, field: str) -> list[Target]:
    nodes = snapshot.parsed.values.get("nodes")
    for index, node in enumerate(nodes if isinstance(nodes, list) else ()):
        if isinstance(node, dict) and node.get("id") == node_id:
            entry = snapshot.parsed.source_map.get(("nodes", index, field))
            if entry is not None:
                return [Target(entry.value)]
    return []


def _node_def(snapshot: DocumentSnapshot, name: str) -> list[Target]:
    defs = snapshot.parsed.values.get("node_defs")
    for index, definition in enumerate(defs if isinstance(defs, list) else ()):
        if isinstance(definition, dict) and definition.get("name") == name:
            entry = snapshot.parsed.source_map.get(("node_defs", index, "name"))
            if entry is not None:
                return [Target(entry.value)]
    return []


def path_definition(snapshot: DocumentSnapshot, cursor: PathCursor) -> list[Target]:
    index = cursor.segment_index_at()
    if index is None or index == 0 or cursor.role not in ("read", "state_target"):
        return []
    values = [s.value for s in cursor.scan.segments[: index + 1]]
    root, rest = values[0], values[1:]
    if root == "context":
        stack = owner_stack_at(snapshot, cursor) or ()
        if len(rest) == 2 and rest[0] == FOREACH_CONTEXT_KEY:
            return _node_field(snapshot, rest[1], "id")
        if len(rest) == 1 and stack:
            if rest[0] in (LOOP_ITEM_KEY, LOOP_INDEX_KEY):
                return _node_field(snapshot, stack[-1], "id")
            model = snapshot.context
            for owner in reversed(stack):
                if model is not None and model.alias_of(owner) == rest[0]:
                    return _node_field(snapshot, owner, "as")
        return []
    if root in ("input", "state"):
        return _schema_property(snapshot, f"{root}_schema", rest)
    return []


def _schema_property(snapshot: DocumentSnapshot, key: str, parts: list[str]) -> list[Target]:
    """The key declaring the last of ``parts``, following ``$ref`` inside the document."""
    values = snapshot.parsed.values if isinstance(snapshot.parsed.values, dict) else {}
    document = values.get(key)
    if not isinstance(document, Mapping):
        return []
    view = SchemaNavigator(document).at_path(parts)
    if view is None:
        return []
    locations = _locations_by_identity(document, (key,))
    targets = []
    for branch in view.nodes:
        location = locations.get(id(branch.schema))
        entry = snapshot.parsed.source_map.get(location) if location else None
        if entry is not None:
            targets.append(Target(entry.key or entry.value))
    return targets


def _locations_by_identity(root: Any, prefix: Location) -> dict[int, Location]:
    out: dict[int, Location] = {}
    stack: list[tuple[Any, Location]] = [(root, prefix)]
    while stack:
        value, location = stack.pop()
        if isinstance(value, Mapping):
            out[id(value)] = location
            stack.extend((v, (*location, k)) for k, v in value.items())
        elif isinstance(value, list):
            out[id(value)] = location
            stack.extend((v, (*location, i)) for i, v in enumerate(value))
    return out
