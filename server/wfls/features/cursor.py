"""What the cursor is on: a path string (and which segment), an id, a key.

Every feature starts here, so completion, hover and definition agree on what
a place in the document means. Offsets are code points into the document.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any, Literal

from wf_core.documents import StringLiteral
from wf_core.locations import Location
from wf_core.path_scan import CursorScan, PathScan, scan_at, scan_path
from wf_core.schema_nav import SchemaNavigator
from wf_core.snapshot import DocumentSnapshot

PathRole = Literal["read", "state_target", "local_target", "local_source", "output_target"]

_READ_CONTAINERS = ("input", "request")


def path_role(location: Location) -> PathRole | None:
    """Which kind of path a string at ``location`` holds, from its place in the document."""
    if not location:
        return None
    last = location[-1]
    if location[0] == "output" and len(location) >= 3:
        if last == "path":
            return "read"
        if last == "target" and len(location) == 3:
            return "output_target"
        return None
    if location[0] != "nodes" or len(location) < 3:
        return None
    field = location[2]
    if field == "over" and len(location) == 3:
        return "read"
    if field == "check" and last == "path":
        return "read"
    if field in _READ_CONTAINERS and len(location) >= 5:
        if last == "path":
            return "read"
        if last == "target" and len(location) == 5:
            return "local_target"
    if field in ("output", "resume") and len(location) == 5:
        if last == "target":
            return "state_target"
        if last == "source":
            return "local_source"
    if field == "item_error" and last == "collect_to":
        return "state_target"
    return None


_VALUE_KEYS_READ_AS_TEXT = frozenset(("start", "from", "to", "outcome", "node", "op", "type"))


def editable_without_reanalysis(location: Location) -> bool:
    """Strings whose edits leave the graph, the stacks and the schemas as they were.

    Paths and references only read the model, so completion while they are being
    typed may answer from the previous analysis (see ``wf_core.overlay``).
    """
    if path_role(location) is not None:
        return True
    return (
        bool(location)
        and location[-1] in _VALUE_KEYS_READ_AS_TEXT
        and (location[0] in ("start", "edges") or (location[0] == "nodes" and len(location) >= 3))
    )


def decoded_offset(literal: StringLiteral, offset: int) -> int:
    """Inverse of ``StringLiteral.doc_offset``: the decoded index at a document offset."""
    if offset <= literal.content.start:
        return 0
    lo_values = range(len(literal.value) + 1)
    index = bisect.bisect_right(lo_values, offset, key=literal.doc_offset) - 1
    return max(0, min(index, len(literal.value)))


@dataclass(frozen=True)
class StringCursor:
    """The cursor inside a string value."""

    location: Location
    literal: StringLiteral
    offset: int  # decoded offset of the cursor inside the string


@dataclass(frozen=True)
class PathCursor:
    """The cursor inside a path string."""

    string: StringCursor
    role: PathRole
    scan: PathScan
    at: CursorScan
    node_index: int | None  # document index of the consuming node; None for workflow output

    @property
    def location(self) -> Location:
        return self.string.location

    def segment_index_at(self) -> int | None:
        """Index of the complete segment under the cursor (hover, definition)."""
        for index, segment in enumerate(self.scan.segments):
            if segment.start <= self.string.offset <= segment.end:
                return index
        return None


def string_at(snapshot: DocumentSnapshot, offset: int) -> StringCursor | None:
    located = snapshot.parsed.source_map.locate(offset)
    if located is None or located.in_key:
        return None
    literal = snapshot.parsed.source_map.string(located.location)
    if literal is None:
        return None
    inside_end = literal.content.end if literal.closed else literal.span.end
    if not (literal.content.start <= offset <= inside_end):
        return None
    return StringCursor(located.location, literal, decoded_offset(literal, offset))


def path_at(snapshot: DocumentSnapshot, offset: int) -> PathCursor | None:
    string = string_at(snapshot, offset)
    if string is None:
        return None
    role = path_role(string.location)
    if role is None:
        return None
    node_index = string.location[1] if string.location[0] == "nodes" else None
    value = string.literal.value
    return PathCursor(
        string,
        role,
        scan_path(value),
        scan_at(value, string.offset),
        node_index if isinstance(node_index, int) else None,
    )


def node_id_at_index(snapshot: DocumentSnapshot, index: int) -> str | None:
    """The id of the document's ``nodes[index]``, even when that node failed to validate."""
    nodes = (
        snapshot.parsed.values.get("nodes") if isinstance(snapshot.parsed.values, dict) else None
    )
    if isinstance(nodes, list) and 0 <= index < len(nodes) and isinstance(nodes[index], dict):
        node_id = nodes[index].get("id")
        return node_id if isinstance(node_id, str) else None
    return None


def read_navigator(snapshot: DocumentSnapshot, cursor: PathCursor, root: str) -> Any:
    """The navigator a read with ``root`` is checked against at the cursor's node."""
    model = snapshot.context
    if model is None:
        return None
    if root in ("input", "state"):
        return model.source_navigator(root)
    if root != "context":
        return None
    if cursor.node_index is None:
        return model.navigator_for_stack(None)
    node_id = node_id_at_index(snapshot, cursor.node_index)
    if node_id is None:
        return None
    return model.navigator_for_node(node_id)


def owner_stack_at(snapshot: DocumentSnapshot, cursor: PathCursor) -> tuple[str, ...] | None:
    model = snapshot.context
    if model is None:
        return None
    if cursor.node_index is None:
        return ()
    node_id = node_id_at_index(snapshot, cursor.node_index)
    return model.stack_of(node_id) if node_id is not None else None


def local_schema_navigator(snapshot: DocumentSnapshot, cursor: PathCursor) -> Any:
    """Navigator over the schema a local target or source names fields of."""
    workflow = snapshot.workflow
    if workflow is None:
        return None
    if cursor.role == "output_target":
        return SchemaNavigator(snapshot.context.output_schema) if snapshot.context else None
    if cursor.node_index is None:
        return None
    node = snapshot.node_at_document_index(cursor.node_index)
    raw = snapshot.parsed.values.get("nodes", [])[cursor.node_index]
    node_type = getattr(node, "type", None) or (raw.get("type") if isinstance(raw, dict) else None)
    want_output = cursor.role == "local_source"
    if node_type == "node":
        name = getattr(node, "node", None) or (raw.get("node") if isinstance(raw, dict) else None)
        definition = next((d for d in workflow.node_defs if d.name == name), None)
        if definition is None:
            return None
        schema = definition.output_schema if want_output else definition.input_schema
    elif node_type == "subgraph" and node is not None:
        schema = node.output_schema if want_output else node.input_schema
    else:
        return None
    return SchemaNavigator(schema.model_dump(mode="json", exclude_none=True, by_alias=True))
