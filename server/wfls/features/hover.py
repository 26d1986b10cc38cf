"""Hover: what a path prefix resolves to, what a loop is, what a node is."""

from __future__ import annotations

import json

from wf_core.context_contracts import FOREACH_CONTEXT_KEY
from wf_core.paths import GraphSourcePath, format_segments
from wf_core.snapshot import DocumentSnapshot
from wf_core.validation.context_paths import structured_replacement
from wfls.features.completion import ROOTS
from wfls.features.cursor import (
    PathCursor,
    local_schema_navigator,
    owner_stack_at,
    path_at,
    read_navigator,
    string_at,
)
from wfls.features.schema_text import _without_defs, schema_markdown
from wfls.features.types import HoverResult


def hover(snapshot: DocumentSnapshot, offset: int) -> HoverResult | None:
    cursor = path_at(snapshot, offset)
    if cursor is not None:
        return path_hover(snapshot, cursor)
    string = string_at(snapshot, offset)
    if string is None:
        return None
    location, literal = string.location, string.literal
    span = literal.span
    value = literal.value
    if (
        location == ("start",)
        or (location[:1] == ("edges",) and location[-1] in ("from", "to"))
        or (location[:1] == ("nodes",) and len(location) == 3 and location[-1] == "id")
    ):
        text = node_markdown(snapshot, value)
        return HoverResult(text, span) if text else None
    if location[:1] == ("nodes",) and len(location) == 3 and location[-1] == "node":
        text = node_def_markdown(snapshot, value)
        return HoverResult(text, span) if text else None
    return None


def _stack_text(stack: tuple[str, ...] | None) -> str:
    if stack is None:
        return "none (unreachable or reachable under two foreach regions)"
    return " > ".join(f"`{s}`" for s in stack) if stack else "no active loop"


def node_markdown(snapshot: DocumentSnapshot, node_id: str) -> str | None:
    model = snapshot.context
    if model is None or node_id not in model.nodes_by_id:
        return None
    node = model.nodes_by_id[node_id]
    lines = [f"**node `{node_id}`**: `{node.type}`"]
    if node.type == "foreach":
        lines.append(f"over `{node.over}` as `{node.as_}`")
    if node.type == "node":
        lines.append(f"uses node def `{node.node}`")
    lines.append(f"owner stack: {_stack_text(model.stack_of(node_id))}")
    return "\n\n".join(lines)


def node_def_markdown(snapshot: DocumentSnapshot, name: str) -> str | None:
    workflow = snapshot.workflow
    definition = next((d for d in workflow.node_defs if d.name == name), None) if workflow else None
    if definition is None:
        return None
    schema = definition.input_schema.model_dump(mode="json", exclude_none=True, by_alias=True)
    return (
        f"**node def `{name}`**: outcomes {', '.join(f'`{o}`' for o in definition.outcomes)}"
        f"\n\ninput schema:\n```json\n{json.dumps(schema, indent=2)}\n```"
    )


def path_hover(snapshot: DocumentSnapshot, cursor: PathCursor) -> HoverResult | None:
    index = cursor.segment_index_at()
    if index is None:
        return None
    segments = cursor.scan.segments
    values = [s.value for s in segments[: index + 1]]
    segment = segments[index]
    span = cursor.string.literal.doc_span(segment.start, segment.end)
    if cursor.role in ("local_target", "local_source", "output_target"):
        navigator = local_schema_navigator(snapshot, cursor)
        view = navigator.at_path(values) if navigator is not None else None
        if view is None:
            return None
        return HoverResult(schema_markdown(view, title=format_segments(values)), span)
    if index == 0:
        doc = ROOTS.get(values[0])
        return HoverResult(f"**{values[0]}**: {doc}", span) if doc else None
    root, rest = values[0], values[1:]
    if cursor.role == "state_target":
        if root != "state" or snapshot.context is None:
            return None
        navigator = snapshot.context.source_navigator("state")
    else:
        navigator = read_navigator(snapshot, cursor, root)
    if navigator is None:
        return None
    view = navigator.at_path(rest)
    if view is None:
        return None
    stack = owner_stack_at(snapshot, cursor)
    if root == "context" and len(rest) == 2 and rest[0] == FOREACH_CONTEXT_KEY:
        text = foreach_entry_markdown(snapshot, rest[1], stack)
        if text:
            return HoverResult(text, span)
    text = schema_markdown(view, title=format_segments(values))
    if root == "context" and len(rest) == 1 and stack and snapshot.context is not None:
        replacement = structured_replacement(
            GraphSourcePath("context", tuple(rest)), stack, snapshot.context
        )
        if replacement is not None:
            text = f"Convenience key: read `{replacement}` instead.\n\n{text}"
    return HoverResult(text, span)


def foreach_entry_markdown(
    snapshot: DocumentSnapshot, owner: str, stack: tuple[str, ...] | None
) -> str | None:
    model = snapshot.context
    if model is None or owner not in model.nodes_by_id:
        return None
    node = model.nodes_by_id[owner]
    item = json.dumps(_without_defs(model.item_schema(owner)), indent=2, ensure_ascii=False)
    return "\n\n".join(
        [
            f"**foreach `{owner}`**: the current iteration of this loop",
            f"over: `{node.over}`",
            f"alias: `{node.as_}`",
            f"item schema:\n```json\n{item}\n```",
            f"owner stack here: {_stack_text(stack)}",
        ]
    )
