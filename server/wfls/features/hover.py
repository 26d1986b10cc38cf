"""Hover: what the thing under the cursor is.

On a path segment, what the path up to it resolves to where it is read (the
same navigator validation uses); on ``context.foreach.<id>`` the loop itself
and the owner stack here; on a node id, node def, outcome, alias, property
declaration or node ``type`` what it is and where it leads; on a node id, after
a "Run with sample input", the loop items its activations saw in that run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from wf_core.language.context_contracts import FOREACH_CONTEXT_KEY
from wf_core.language.paths import GraphSourcePath, format_segments
from wf_core.language.tokens import END
from wf_core.models.steps import (
    ARTIFACT_REF,
    ERRORS_KEPT_ACTIONS,
    NODE_TABLE,
    outcomes_as_written,
)
from wf_core.semantic.cursor import Cursor, classify
from wf_core.semantic.occurrences import (
    Occurrence,
    PathOccurrence,
    PathRole,
    PathSegment,
    SegmentKind,
    Symbol,
    SymbolKind,
)
from wf_core.validation.context_paths import structured_replacement
from wf_core.version.view import AnalysisView, WorkspaceView
from wfls.features.common import (
    document_nodes,
    node_index_of,
    node_values,
    owner_stack,
    read_navigator,
    stack_text,
    value_at,
)
from wfls.features.run import LastRun, observations_markdown
from wfls.features.schema_text import schema_markdown, without_defs
from wfls.features.types import HoverResult

ROOTS = {
    "input": "The workflow input, as declared by `input_schema`",
    "state": "The workflow state, as declared by `state_schema`",
    "context": "The runtime context at this node: standard fields and the active loops",
}


def _json(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def hover(
    view: AnalysisView,
    offset: int,
    workspace: WorkspaceView | None = None,
    last_run: LastRun | None = None,
) -> HoverResult | None:
    """``last_run``: what the last run of the document saw, shown on a node's id."""
    cursor = classify(view, offset)
    if cursor.path is not None and cursor.segment is not None:
        return path_hover(view, cursor.path, cursor.segment, workspace)
    occurrence = cursor.occurrence
    if occurrence is not None and occurrence.kind == SymbolKind.WORKFLOW:
        return HoverResult(workflow_markdown(view, occurrence.name, workspace), occurrence.span)
    if occurrence is not None:
        text = occurrence_markdown(view, occurrence)
        symbol = occurrence.symbol
        if text and last_run is not None and symbol is not None and symbol.kind == SymbolKind.NODE:
            text += "\n\n" + observations_markdown(last_run, symbol.key[0], view.text)
        return HoverResult(text, occurrence.span) if text else None
    return _value_hover(view, cursor)


def _value_hover(view: AnalysisView, cursor: Cursor) -> HoverResult | None:
    string = cursor.string
    if string is None:
        return None
    location, value = string.location, string.literal.value
    if location[:1] == ("nodes",) and len(location) == 3 and location[2] == "type":
        spec = NODE_TABLE.get(value)
        if spec is None:
            return None
        return HoverResult(f"**`{value}`** node: {spec.summary}", string.literal.span)
    if location[:1] == ("nodes",) and "workflow" in location and ARTIFACT_REF.fullmatch(value):
        return HoverResult(
            f"**`{value}`**: a workflow published in a registry; wfls cannot see the "
            "registry, so the reference is accepted as it is",
            string.literal.span,
        )
    if location[:1] == ("edges",) and location[-1] == "to" and value == END:
        return HoverResult(f"**`{END}`**: ends the workflow with outcome `ok`", string.literal.span)
    return None


def workflow_markdown(view: AnalysisView, name: str, workspace: WorkspaceView | None) -> str:
    """A workflow name: where it is declared and the contract a caller binds to."""
    values = view.parsed.values if isinstance(view.parsed.values, Mapping) else {}
    if values.get("name") == name:
        child: AnalysisView = view
        where = "this document"
    else:
        found = workspace.resolve(name) if workspace is not None else None
        if found is None:
            return f"**workflow `{name}`**: no document of the workspace declares it"
        child, where = found.snapshot, f"`{found.uri.rsplit('/', 1)[-1]}`"
    child_values = child.parsed.values if isinstance(child.parsed.values, Mapping) else {}
    parts = [f"**workflow `{name}`**, declared in {where}; it runs in its own scope"]
    for key in ("input_schema", "output_schema"):
        schema = child_values.get(key, {"type": "object"})
        parts.append(f"{key.replace('_', ' ')}:\n```json\n{_json(without_defs(schema))}\n```")
    return "\n\n".join(parts)


def occurrence_markdown(view: AnalysisView, occurrence: Occurrence) -> str | None:
    symbol = occurrence.symbol
    if symbol is None:
        if occurrence.kind == SymbolKind.OUTCOME and occurrence.location[:1] == ("edges",):
            text = undeclared_outcome_markdown(view, occurrence)
            if text is not None:
                return text
        return f"`{occurrence.name}`: no {occurrence.kind.value.replace('_', ' ')} of that name"
    if symbol.kind == SymbolKind.NODE:
        return node_markdown(view, symbol.key[0])
    if symbol.kind == SymbolKind.NODE_DEF:
        return node_def_markdown(view, symbol.name)
    if symbol.kind == SymbolKind.OUTCOME:
        return outcome_markdown(view, symbol)
    if symbol.kind == SymbolKind.ALIAS:
        owner = symbol.key[0]
        return f"**alias `{symbol.name}`** of foreach `{owner}`\n\n" + (
            foreach_markdown(view, owner, None) or ""
        )
    if symbol.kind == SymbolKind.PROPERTY:
        return property_markdown(view, symbol)
    return None


def node_markdown(view: AnalysisView, node_id: str) -> str | None:
    index = node_index_of(view, node_id)
    if index is None:
        return None
    node = node_values(view, index)
    lines = [f"**node `{node_id}`**: `{node.get('type')}`"]
    if node.get("type") == "foreach":
        lines.extend(loop_lines(view, node_id, node))
    if node.get("type") == "node":
        lines.append(f"uses node def `{node.get('node')}`")
    declared = outcomes_as_written(node, _values(view).get("node_defs"))
    if declared is not None:
        lines.append(f"outcomes: {_listed(declared.outcomes)}")
    lines.append(f"owner stack: {stack_text(owner_stack(view, node_id))}")
    return "\n\n".join(lines)


def undeclared_outcome_markdown(view: AnalysisView, occurrence: Occurrence) -> str | None:
    """An edge's outcome its source node does not declare: the outcomes it does."""
    edges = _values(view).get("edges")
    at = occurrence.location[1]
    edge = edges[at] if isinstance(edges, list) and isinstance(at, int) else None
    source = edge.get("from") if isinstance(edge, Mapping) else None
    index = node_index_of(view, source) if isinstance(source, str) else None
    if index is None:
        return None
    declared = outcomes_as_written(node_values(view, index), _values(view).get("node_defs"))
    if declared is None:
        return None
    return (
        f"`{occurrence.name}`: not an outcome of node `{source}`, whose outcomes are "
        f"{_listed(declared.outcomes)}"
    )


def _listed(outcomes: tuple[str, ...]) -> str:
    return ", ".join(f"`{o}`" for o in outcomes) or "none"


def _values(view: AnalysisView) -> Mapping[str, object]:
    return view.parsed.values if isinstance(view.parsed.values, Mapping) else {}


def _node_defs(view: AnalysisView) -> list[Mapping[str, object]]:
    values = view.parsed.values if isinstance(view.parsed.values, Mapping) else {}
    defs = values.get("node_defs")
    return [d for d in defs if isinstance(d, Mapping)] if isinstance(defs, list) else []


def node_def_markdown(view: AnalysisView, name: str) -> str | None:
    definition = next((d for d in _node_defs(view) if d.get("name") == name), None)
    if definition is None:
        return None
    outcomes = definition.get("outcomes")
    outcomes = outcomes if isinstance(outcomes, list) else []
    parts = [f"**node def `{name}`**: outcomes {', '.join(f'`{o}`' for o in outcomes)}"]
    for key in ("input_schema", "output_schema"):
        schema = definition.get(key)
        if isinstance(schema, Mapping):
            text = json.dumps(without_defs(schema), indent=2, ensure_ascii=False, default=str)
            parts.append(f"{key.replace('_', ' ')}:\n```json\n{text}\n```")
    return "\n\n".join(parts)


def outcome_markdown(view: AnalysisView, symbol: Symbol) -> str:
    scope, owner, outcome = symbol.key
    if scope == "node_def":
        declared = f"declared by node def `{owner}`"
    elif scope == "node":
        declared = f"declared by node `{owner}`"
    elif scope == "workflow":
        declared = "a workflow outcome (`outcomes`)"
    elif outcome in NODE_TABLE[owner].outcomes.builtin:
        declared = f"built into every `{owner}` node"
    else:  # declared only when the node's item_error action keeps errors
        actions = " or ".join(f"`{a}`" for a in ERRORS_KEPT_ACTIONS)
        declared = f"built into a `{owner}` node whose `item_error` action is {actions}"
    values = _values(view)
    edges = values.get("edges")
    edges = edges if isinstance(edges, list) else []
    sources = _sources_of(view, symbol)
    routes = [
        f"`{e.get('from')}` → `{e.get('to')}`"
        for e in edges
        if isinstance(e, Mapping)
        and e.get("outcome") == outcome
        and isinstance(source := e.get("from"), str)
        and source in sources
    ]
    lines = [f"**outcome `{outcome}`**: {declared}"]
    if routes:
        lines.append("edges: " + ", ".join(routes))
    return "\n\n".join(lines)


def _sources_of(view: AnalysisView, symbol: Symbol) -> set[str]:
    """The ids of the nodes whose edges can carry this outcome (an id written as anything
    but a string names no node an edge can leave)."""
    scope, owner, outcome = symbol.key
    nodes = document_nodes(view)
    if scope == "node_def":
        found = [n for n in nodes if n.get("type") == "node" and n.get("node") == owner]
    elif scope == "node":
        return {owner}
    elif scope == "builtin":
        defs = _values(view).get("node_defs")
        found = [
            n
            for n in nodes
            if n.get("type") == owner
            and (declared := outcomes_as_written(n, defs)) is not None
            and outcome in declared.outcomes
        ]
    else:
        return set()
    return {node_id for n in found if isinstance(node_id := n.get("id"), str)}


def property_markdown(view: AnalysisView, symbol: Symbol) -> str:
    location = symbol.key[0]
    value = value_at(view, location)
    readers = view.index.references(symbol, include_declaration=False)
    text = json.dumps(without_defs(value), indent=2, ensure_ascii=False, default=str)
    where = ".".join(str(p) for p in location if p != "properties")
    return (
        f"**property `{symbol.name}`** of `{where}`\n\n```json\n{text}\n```\n\n"
        f"read or written in {len(readers)} place(s)"
    )


def loop_lines(view: AnalysisView, owner: str, node: Mapping[str, object]) -> list[str]:
    """What a foreach loop is, wherever it is hovered (its own ``id``, its alias, its
    ``context.foreach.<id>`` segment in a path): what it runs over, its alias and the
    schema of its items."""
    model = view.context
    item = model.item_schema(owner) if model is not None else {}
    return [
        f"over: `{node.get('over')}`",
        f"alias: `{node.get('as')}`",
        f"item schema:\n```json\n{_json(without_defs(item))}\n```",
    ]


def foreach_markdown(view: AnalysisView, owner: str, stack: tuple[str, ...] | None) -> str | None:
    index = node_index_of(view, owner)
    if index is None:
        return None
    node = node_values(view, index)
    lines = [
        f"**foreach `{owner}`**: the current iteration of this loop",
        *loop_lines(view, owner, node),
    ]
    if stack is not None:
        lines.append(f"owner stack here: {stack_text(stack)}")
    return "\n\n".join(lines)


def path_hover(
    view: AnalysisView,
    path: PathOccurrence,
    segment: PathSegment,
    workspace: WorkspaceView | None = None,
) -> HoverResult | None:
    values = [s.value for s in path.segments[: segment.index + 1]]
    span = segment.span
    local = path.role in (PathRole.LOCAL_TARGET, PathRole.LOCAL_SOURCE, PathRole.OUTPUT_TARGET)
    if local:
        navigator = read_navigator(view, path, "", workspace)
        view_at = navigator.at_path(values) if navigator is not None else None
        if view_at is None:
            return None
        return HoverResult(schema_markdown(view_at, title=format_segments(values)), span)
    if segment.index == 0:
        doc = ROOTS.get(values[0])
        return HoverResult(f"**{values[0]}**: {doc}", span) if doc else None
    root, rest = values[0], values[1:]
    if path.role == PathRole.STATE_TARGET and root != "state":
        return None
    navigator = read_navigator(view, path, root)
    if navigator is None:
        return None
    stack = () if path.role == PathRole.OUTPUT else owner_stack(view, path.node_id)
    if (
        root == "context"
        and segment.kind == SegmentKind.FOREACH_ID
        and rest[0] == FOREACH_CONTEXT_KEY
    ):
        text = foreach_markdown(view, rest[1], stack)
        if text:
            return HoverResult(text, span)
    view_at = navigator.at_path(rest)
    if view_at is None:
        return None
    text = schema_markdown(view_at, title=format_segments(values))
    if root == "context" and len(rest) == 1 and stack and view.context is not None:
        replacement = structured_replacement(
            GraphSourcePath("context", tuple(rest)), stack, view.context
        )
        if replacement is not None:
            text = f"Convenience key: read `{replacement}` instead.\n\n{text}"
    return HoverResult(text, span)
