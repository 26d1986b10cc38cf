"""Completion: path members at the cursor's node, ids, outcomes, types, keys.

Path members come from the same navigators validation walks, so a completion
is never rejected by a diagnostic (and a path validation accepts is always
offered). Inserted segments go through the canonical formatter and are then
escaped for the string literal that holds them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from wf_core.context_contracts import FOREACH_CONTEXT_KEY, STANDARD_CONTEXT_NAMES
from wf_core.models.steps import declared_outcomes
from wf_core.paths import format_segment
from wf_core.schema_nav import SchemaView
from wf_core.snapshot import DocumentSnapshot
from wf_core.spans import Span
from wf_core.tokens import END
from wfls.features.cursor import (
    PathCursor,
    StringCursor,
    local_schema_navigator,
    path_at,
    read_navigator,
    string_at,
)
from wfls.features.schema_text import schema_markdown
from wfls.features.types import CompletionCandidate

ROOTS = {
    "input": "The workflow input, as declared by `input_schema`",
    "state": "The workflow state, as declared by `state_schema`",
    "context": "The runtime context at this node: standard fields and the active loops",
}
NODE_TYPES = ("node", "subgraph", "condition", "foreach", "join", "end", "interrupt")
CONDITION_OPS = ("exists", "not", "and", "or", "eq", "ne", "gt", "ge", "lt", "le")
TOP_LEVEL_KEYS = (
    "name",
    "start",
    "outcomes",
    "edges",
    "output",
    "input_schema",
    "state_schema",
    "output_schema",
    "node_defs",
    "nodes",
)
NODE_KEYS = {
    "node": ("id", "type", "node", "desc", "input", "output", "retry", "timeout_seconds"),
    "subgraph": (
        "id",
        "type",
        "workflow",
        "desc",
        "input_schema",
        "output_schema",
        "input",
        "output",
        "outcomes",
    ),
    "condition": ("id", "type", "check"),
    "foreach": ("id", "type", "over", "as", "mode", "item_error", "concurrent"),
    "join": ("id", "type"),
    "end": ("id", "type", "outcome"),
    "interrupt": (
        "id",
        "type",
        "kind",
        "request",
        "resume",
        "outcomes",
        "request_schema",
        "resume_schema",
    ),
}
RECORD_KEYS = {
    "edges": ("from", "outcome", "to"),
    "node_defs": (
        "name",
        "input_schema",
        "output_schema",
        "outcomes",
        "retry",
        "timeout_seconds",
    ),
    "output": ("target", "path", "value"),
}
BINDING_KEYS = {
    "input": ("target", "path", "value", "expression"),
    "request": ("target", "path", "value", "expression"),
    "output": ("source", "target"),
    "resume": ("source", "target"),
}


def complete(snapshot: DocumentSnapshot, offset: int) -> list[CompletionCandidate]:
    cursor = path_at(snapshot, offset)
    if cursor is not None:
        return path_completions(snapshot, cursor)
    string = string_at(snapshot, offset)
    if string is not None:
        return value_completions(snapshot, string)
    return key_completions(snapshot, offset)


def encode_for_literal(text: str, style: str) -> str:
    """Escape inserted text for the string literal it lands in."""
    if style in ("literal", "multiline_literal"):
        return text
    return text.replace("\\", "\\\\").replace('"', '\\"')


def path_completions(snapshot: DocumentSnapshot, cursor: PathCursor) -> list[CompletionCandidate]:
    literal = cursor.string.literal
    partial = cursor.at.partial
    replace = literal.doc_span(partial.start, partial.end)
    before = [segment.value for segment in cursor.at.before]
    if cursor.role in ("local_target", "local_source", "output_target"):
        navigator = local_schema_navigator(snapshot, cursor)
        view = navigator.at_path(before) if navigator is not None else None
        return _member_candidates(view, (), replace, literal.style, context_top=False)
    if not before:
        roots = ("state",) if cursor.role == "state_target" else tuple(ROOTS)
        return [
            _candidate(root, "module", replace, literal.style, detail="root", doc=ROOTS[root])
            for root in roots
        ]
    root, rest = before[0], before[1:]
    if cursor.role == "state_target":
        if root != "state" or snapshot.context is None:
            return []
        navigator = snapshot.context.source_navigator("state")
    else:
        navigator = read_navigator(snapshot, cursor, root)
    if navigator is None:
        return []
    view = navigator.at_path(rest)
    return _member_candidates(
        view,
        (root, *rest),
        replace,
        literal.style,
        context_top=root == "context" and not rest,
        foreach_level=root == "context" and tuple(rest) == (FOREACH_CONTEXT_KEY,),
    )


def _member_candidates(
    view: SchemaView | None,
    prefix: tuple[str, ...],
    replace: Span,
    style: str,
    *,
    context_top: bool,
    foreach_level: bool = False,
) -> list[CompletionCandidate]:
    if view is None:
        return []
    out = []
    for name in view.declared_names():
        child = view.child(name)
        if child is None:
            continue
        convenience = context_top and name not in STANDARD_CONTEXT_NAMES and name != "foreach"
        title = ".".join(format_segment(s) for s in (*prefix, name))
        doc = schema_markdown(child, title=title)
        if convenience:
            doc = "Convenience key: prefer the structured `context.foreach.<id>` path.\n\n" + doc
        out.append(
            _candidate(
                name,
                "module" if foreach_level else ("variable" if convenience else "field"),
                replace,
                style,
                detail=child.type_summary(),
                doc=doc,
                sort_group=1 if convenience else 0,
                deprecated=convenience,
            )
        )
    return out


def _candidate(
    name: str,
    kind: str,
    replace: Span,
    style: str,
    *,
    detail: str | None = None,
    doc: str | None = None,
    sort_group: int = 0,
    deprecated: bool = False,
    raw: bool = False,
) -> CompletionCandidate:
    text = name if raw else format_segment(name)
    insert = encode_for_literal(text, style)
    return CompletionCandidate(
        label=text,
        kind=kind,
        replace=replace,
        insert_text=insert,
        detail=detail,
        documentation=doc,
        sort_text=f"{sort_group}_{name}",
        filter_text=insert,
        deprecated=deprecated,
    )


def _node_ids(snapshot: DocumentSnapshot) -> list[tuple[str, str]]:
    nodes = snapshot.parsed.values.get("nodes")
    out = []
    for node in nodes if isinstance(nodes, list) else ():
        if isinstance(node, dict) and isinstance(node.get("id"), str):
            out.append((node["id"], str(node.get("type", ""))))
    return out


def value_completions(
    snapshot: DocumentSnapshot, string: StringCursor
) -> list[CompletionCandidate]:
    location = string.location
    literal = string.literal
    replace = Span(
        literal.content.start, literal.content.end if literal.closed else literal.span.end
    )
    style = literal.style
    values = snapshot.parsed.values if isinstance(snapshot.parsed.values, dict) else {}

    def plain(names: Iterable[tuple[str, str | None]], kind: str) -> list[CompletionCandidate]:
        return [_candidate(n, kind, replace, style, detail=d, raw=True) for n, d in names if n]

    last = location[-1] if location else None
    if location == ("start",) or (location[:1] == ("edges",) and last in ("from", "to")):
        names: list[tuple[str, str | None]] = [(i, t) for i, t in _node_ids(snapshot)]
        if last == "to":
            names.append((END, "ends the workflow with outcome ok"))
        return plain(names, "reference")
    if location[:1] == ("edges",) and last == "outcome" and isinstance(location[1], int):
        return plain(((o, None) for o in _edge_outcomes(snapshot, location[1])), "enum")
    if location[:1] == ("nodes",) and len(location) == 3 and last == "type":
        return plain(((t, None) for t in NODE_TYPES), "keyword")
    if location[:1] == ("nodes",) and len(location) == 3 and last == "node":
        defs = values.get("node_defs")
        names = [
            (d["name"], "node def")
            for d in (defs if isinstance(defs, list) else ())
            if isinstance(d, dict) and isinstance(d.get("name"), str)
        ]
        return plain(names, "reference")
    if location[:1] == ("nodes",) and "check" in location and last == "op":
        return plain(((o, None) for o in CONDITION_OPS), "keyword")
    if location[:1] == ("nodes",) and len(location) == 3 and last == "outcome":
        outcomes = values.get("outcomes")
        return (
            plain(((o, None) for o in outcomes if isinstance(o, str)), "enum")
            if isinstance(outcomes, list)
            else []
        )
    return []


def _edge_outcomes(snapshot: DocumentSnapshot, edge_index: int) -> list[str]:
    edges = snapshot.parsed.values.get("edges")
    if not isinstance(edges, list) or not (0 <= edge_index < len(edges)):
        return []
    edge = edges[edge_index]
    source = edge.get("from") if isinstance(edge, dict) else None
    workflow = snapshot.workflow
    if workflow is None or not isinstance(source, str):
        return []
    node = next((n for n in workflow.nodes if n.id == source), None)
    if node is None:
        return []
    node_defs = {d.name: d for d in workflow.node_defs}
    return sorted(declared_outcomes(node, node_defs))


def key_completions(snapshot: DocumentSnapshot, offset: int) -> list[CompletionCandidate]:
    located = snapshot.parsed.source_map.locate(offset)
    if located is None or not located.in_key:
        return []
    parent = located.location[:-1]
    keys = allowed_keys(snapshot, parent)
    present = {
        loc[-1] for loc in snapshot.parsed.source_map.children(parent) if loc != located.location
    }
    return [
        CompletionCandidate(
            label=key,
            kind="property",
            replace=located.span,
            insert_text=key,
            sort_text=f"0_{key}",
        )
        for key in keys
        if key not in present
    ]


def allowed_keys(snapshot: DocumentSnapshot, parent: tuple[Any, ...]) -> tuple[str, ...]:
    if parent == ():
        return TOP_LEVEL_KEYS
    if len(parent) == 2 and parent[0] == "nodes":
        nodes = snapshot.parsed.values.get("nodes")
        raw = nodes[parent[1]] if isinstance(nodes, list) and parent[1] < len(nodes) else {}
        node_type = raw.get("type") if isinstance(raw, dict) else None
        return NODE_KEYS.get(node_type, ("id", "type"))
    if len(parent) == 2 and parent[0] in RECORD_KEYS:
        return RECORD_KEYS[parent[0]]
    if len(parent) == 4 and parent[0] == "nodes" and parent[2] in BINDING_KEYS:
        return BINDING_KEYS[parent[2]]
    return ()
