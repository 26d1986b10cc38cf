"""The workflow graph of one document: its nodes, edges, loops and subgraph calls.

It is read from the same analysis as the diagnostics, so that a picture of the
workflow never disagrees with what the editor and ``wfls check`` report: owner stacks
from the context model, severities and unreachable nodes from the placed findings,
declared outcomes from the one table of node types (``outcomes_as_written``).

A document with mistakes is the common case while it is written, so the graph is
read from the document's plain values, not from the model alone: a node that failed
to load is still drawn (without an owner stack, marked by its error), and an edge
whose outcome is undeclared or whose end is unknown is still drawn, with what is
wrong with it. Only what cannot be drawn at all is left out: a node without a string
``id``, an edge without a string ``from`` and ``to``.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import field
from typing import Literal

from wf_core.base.issues import Severity
from wf_core.base.locations import NodeRef
from wf_core.base.records import record
from wf_core.base.spans import LineIndex, Span
from wf_core.documents.source_map import Entry
from wf_core.language.tokens import END
from wf_core.models.steps import ForeachNode, WrittenOutcomes, outcomes_as_written
from wf_core.models.workflow import first_index_by_id
from wf_core.validation.report import ValidationIssueCode
from wf_core.version.snapshot import PlacedIssue
from wf_core.version.view import DiagnosedView, WorkspaceView
from wf_core.workspace.files import path_of_uri

EdgeProblem = Literal["unknown_source", "undeclared_outcome", "unknown_target"]
"""What makes an edge invalid: its ``from`` names no node, its source does not declare
its outcome, its ``to`` names no node (nor ``__end__``)."""

_RANK = {severity: rank for rank, severity in enumerate(Severity)}
"""Severities from the worst (``Severity`` lists them so)."""


@record
class GraphNode:
    """One node as written. ``type`` and ``node_def`` are None when not written as
    strings; ``owner_stack`` (outermost loop first) is None for a node without one: one
    that failed to load, is unreachable or is reached under two loops. ``span`` is the
    node's entry (its ``[[nodes]]`` table, or its object in JSON); ``severity`` the worst
    finding on that entry and ``message`` its message (the first in the document's order
    of those that bad), None when there is none."""

    id: str
    type: str | None
    node_def: str | None
    owner_stack: tuple[str, ...] | None
    span: Span
    severity: Severity | None
    unreachable: bool = False
    message: str | None = None


@record
class GraphEdge:
    """One edge as written, in document order; ``problems`` is empty for a valid one."""

    source: str
    outcome: str | None
    target: str
    span: Span
    problems: tuple[EdgeProblem, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.problems


@record
class GraphLoop:
    """A foreach: its ``over`` (canonically printed when it loaded) and alias as written,
    the loop it sits in (``parent``), the nodes whose innermost loop it is (``body``, in
    document order: nested loops' bodies are theirs) and where its ``done`` edge leads."""

    id: str
    over: str | None
    alias: str | None
    parent: str | None
    body: tuple[str, ...]
    done: str | None


@record
class SubgraphCall:
    """A subgraph node, the workflow it calls (a name or a published artifact), and the
    document of the workspace that declares that name, when there is one."""

    node: str
    workflow: str
    uri: str | None


@record
class WorkflowGraph:
    workflow: str | None
    start: str | None
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    loops: tuple[GraphLoop, ...]
    subgraphs: tuple[SubgraphCall, ...]
    lines: LineIndex = field(compare=False, repr=False)

    @property
    def unreachable(self) -> tuple[str, ...]:
        return tuple(node.id for node in self.nodes if node.unreachable)

    def to_json(self, file_of: Callable[[str], str | None] | None = None) -> dict[str, object]:
        """The graph as plain JSON (docs/graph.md): positions as ``wfls check --format
        json`` prints them. ``file_of`` names a child's document by its URI (default: the
        local path of a ``file:`` URI)."""
        name_file = file_of or _local_path
        return {
            "workflow": self.workflow,
            "start": self.start,
            "nodes": [
                {
                    "id": node.id,
                    "type": node.type,
                    "node_def": node.node_def,
                    "owner_stack": list(node.owner_stack) if node.owner_stack is not None else None,
                    "range": self._range(node.span),
                    "severity": node.severity.value if node.severity is not None else None,
                    "message": node.message,
                }
                for node in self.nodes
            ],
            "edges": [
                {
                    "from": edge.source,
                    "outcome": edge.outcome,
                    "to": edge.target,
                    "valid": edge.valid,
                    "problems": list(edge.problems),
                    "range": self._range(edge.span),
                }
                for edge in self.edges
            ],
            "loops": [
                {
                    "id": loop.id,
                    "over": loop.over,
                    "alias": loop.alias,
                    "parent": loop.parent,
                    "body": list(loop.body),
                    "done": loop.done,
                }
                for loop in self.loops
            ],
            "subgraphs": [
                {
                    "node": call.node,
                    "workflow": call.workflow,
                    "file": name_file(call.uri) if call.uri is not None else None,
                    "uri": call.uri,
                }
                for call in self.subgraphs
            ],
            "unreachable": list(self.unreachable),
        }

    def _range(self, span: Span) -> dict[str, dict[str, int]]:
        start_line, start_column = self.lines.one_based(span.start)
        end_line, end_column = self.lines.one_based(span.end)
        return {
            "start": {"line": start_line, "column": start_column},
            "end": {"line": end_line, "column": end_column},
        }


def _local_path(uri: str) -> str | None:
    path = path_of_uri(uri)
    return str(path) if path is not None else None


def build_graph(snapshot: DiagnosedView, workspace: WorkspaceView | None = None) -> WorkflowGraph:
    """The graph of ``snapshot``'s document. With its ``workspace``, subgraph calls name
    their child's document, and severities include the cross-file findings (when the
    workspace holds this very snapshot, as ``wfls check`` and the server's index do)."""
    from wf_core.workspace.catalog import outline  # the index builds on the snapshot

    values = snapshot.parsed.values if isinstance(snapshot.parsed.values, dict) else {}
    source_map = snapshot.parsed.source_map
    written_nodes = _list(values.get("nodes"))
    node_defs = values.get("node_defs")

    # The node of an id is its first entry, as everything else resolves ids.
    first = first_index_by_id(
        entry.get("id") if isinstance(entry, Mapping) else None for entry in written_nodes
    )
    order = sorted(first.values())
    stacks = _owner_stacks(snapshot, first)
    spans = [_span(source_map.get(("nodes", index))) for index in order]
    issues = None
    if workspace is not None and snapshot.uri is not None:
        issues = workspace.issues_of(snapshot.uri, snapshot)
    worst, unreachable = _findings(
        snapshot.issues if issues is None else issues, written_nodes, first, spans
    )

    nodes: list[GraphNode] = []
    for position, index in enumerate(order):
        entry = written_nodes[index]
        assert isinstance(entry, Mapping)
        node_id = entry["id"]
        written_type = entry.get("type")
        node_def = entry.get("node") if written_type == "node" else None
        nodes.append(
            GraphNode(
                node_id,
                written_type if isinstance(written_type, str) else None,
                node_def if isinstance(node_def, str) else None,
                stacks.get(node_id),
                spans[position],
                found[0] if (found := worst[position]) is not None else None,
                node_id in unreachable,
                found[1] if found is not None else None,
            )
        )

    declared: dict[str, WrittenOutcomes | None] = {}

    def outcomes_of(node_id: str) -> WrittenOutcomes | None:
        if node_id not in declared:
            declared[node_id] = outcomes_as_written(written_nodes[first[node_id]], node_defs)
        return declared[node_id]

    edges: list[GraphEdge] = []
    for index, entry in enumerate(_list(values.get("edges"))):
        if not isinstance(entry, Mapping):
            continue
        source, outcome, target = entry.get("from"), entry.get("outcome"), entry.get("to")
        if not isinstance(source, str) or not isinstance(target, str):
            continue
        outcome = outcome if isinstance(outcome, str) else None
        problems: list[EdgeProblem] = []
        if source not in first:
            problems.append("unknown_source")
        else:
            written = outcomes_of(source)
            # (nothing says what a node of an unknown type declares: its own error is the
            # mistake, not each of its edges)
            if written is not None and outcome not in written.outcomes:
                problems.append("undeclared_outcome")
        if target != END and target not in first:
            problems.append("unknown_target")
        span = _span(source_map.get(("edges", index)))
        edges.append(GraphEdge(source, outcome, target, span, tuple(problems)))

    _, uses = outline(values)
    calls = tuple(
        SubgraphCall(use.node_id, use.display, _child_uri(workspace, use.name))
        for use in uses
        if first.get(use.node_id) == use.node_index
    )
    name, start = values.get("name"), values.get("start")
    return WorkflowGraph(
        name if isinstance(name, str) else None,
        start if isinstance(start, str) else None,
        tuple(nodes),
        tuple(edges),
        _loops(snapshot, nodes, edges, written_nodes, first),
        calls,
        snapshot.lines,
    )


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _span(entry: Entry | None) -> Span:
    """The range of an element's entry (its whole table or object)."""
    return entry.value if entry is not None else Span(0, 0)


def _owner_stacks(snapshot: DiagnosedView, first: Mapping[str, int]) -> dict[str, tuple[str, ...]]:
    """The owner stack of each node id whose first entry loaded and has one."""
    context = snapshot.context
    workflow = snapshot.workflow
    if context is None or workflow is None:
        return {}
    positions = snapshot.load.node_positions
    stacks: dict[str, tuple[str, ...]] = {}
    for node_id, model_index in first_index_by_id(node.id for node in workflow.nodes).items():
        if first.get(node_id) != positions[model_index]:
            continue  # the model's node of this id is not its first entry (which failed)
        stack = context.stack_of(node_id)
        if stack is not None:
            stacks[node_id] = stack
    return stacks


def _findings(
    issues: Iterable[PlacedIssue],
    written_nodes: Sequence[object],
    first: Mapping[str, int],
    spans: Sequence[Span],
) -> tuple[list[tuple[Severity, str] | None], set[str]]:
    """The worst finding's severity and message on each node (by its place among the
    graph's nodes, whose entries are at ``spans``) and the ids of the nodes found
    unreachable. A finding is on a node when its location is in one of the node's entries
    (a duplicate's findings are the node's), names the node by id or, for a syntax
    error, which has no location, when its range is inside the node's entry."""
    position_of = {index: position for position, index in enumerate(sorted(first.values()))}
    worst: list[tuple[Severity, str] | None] = [None] * len(spans)
    unreachable: set[str] = set()

    def owner(index: int) -> int | None:
        entry = written_nodes[index] if 0 <= index < len(written_nodes) else None
        node_id = entry.get("id") if isinstance(entry, Mapping) else None
        return position_of[first[node_id]] if isinstance(node_id, str) else None

    def mark(position: int | None, placed: PlacedIssue) -> None:
        if position is None:
            return
        known = worst[position]
        if known is None or _RANK[placed.severity] < _RANK[known[0]]:
            worst[position] = (placed.severity, placed.message)

    starts = [span.start for span in spans]  # in document order, so ascending
    for placed in issues:
        location = placed.location
        if location is None:
            inside = placed.span
            last = bisect.bisect_right(starts, inside.start) - 1
            if last >= 0 and inside.end <= spans[last].end:
                mark(last, placed)
            continue
        if len(location) < 2 or location[0] != "nodes":
            continue
        part = location[1]
        if isinstance(part, int):
            mark(owner(part), placed)
        elif isinstance(part, NodeRef) and part.id in first:
            mark(position_of[first[part.id]], placed)
            if placed.code == ValidationIssueCode.UNREACHABLE_NODE:
                unreachable.add(part.id)
    return worst, unreachable


def _child_uri(workspace: WorkspaceView | None, name: str | None) -> str | None:
    if workspace is None or name is None:
        return None
    document = workspace.resolve(name)
    return document.uri if document is not None else None


def _loops(
    snapshot: DiagnosedView,
    nodes: Sequence[GraphNode],
    edges: Sequence[GraphEdge],
    written_nodes: Sequence[object],
    first: Mapping[str, int],
) -> tuple[GraphLoop, ...]:
    """Every foreach node's loop, in document order: its body is the nodes whose owner
    stack it tops, its parent the top of its own stack."""
    body: dict[str, list[str]] = {}
    for node in nodes:
        if node.owner_stack:
            body.setdefault(node.owner_stack[-1], []).append(node.id)
    done: dict[str, str] = {}
    for edge in edges:
        if edge.outcome == "done":
            done.setdefault(edge.source, edge.target)
    load = snapshot.load
    workflow = snapshot.workflow
    model_index = {position: k for k, position in enumerate(load.node_positions)}
    loops: list[GraphLoop] = []
    for node in nodes:
        if node.type != "foreach":
            continue
        index = first[node.id]
        entry = written_nodes[index]
        assert isinstance(entry, Mapping)
        over: object = entry.get("over")
        loaded = model_index.get(index)
        if (
            workflow is not None
            and loaded is not None
            and ("nodes", index, "over") not in load.stand_ins
        ):
            model = workflow.nodes[loaded]
            if isinstance(model, ForeachNode):
                over = str(model.over)  # the canonical formatter's
        alias = entry.get("as")
        loops.append(
            GraphLoop(
                node.id,
                over if isinstance(over, str) else None,
                alias if isinstance(alias, str) else None,
                node.owner_stack[-1] if node.owner_stack else None,
                tuple(body.get(node.id, ())),
                done.get(node.id),
            )
        )
    return tuple(loops)
