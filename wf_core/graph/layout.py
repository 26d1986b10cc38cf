"""What the DOT and Mermaid printers draw alike: which loop box each node sits in, the
nodes that stand for an unknown edge end, and the words shown on nodes and edges.

Both printers nest the boxes the same way, from the same graph: a loop's box holds
its body (the nodes whose innermost loop it is) and the boxes of the loops in it. A
foreach node sits where its own owner stack puts it, outside its box, the way it runs:
its ``loop`` edge enters the box and its ``done`` edge leaves from outside.
"""

from __future__ import annotations

from wf_core.base.records import record
from wf_core.graph.model import EdgeProblem, GraphEdge, GraphLoop, GraphNode, WorkflowGraph
from wf_core.language.tokens import END

PROBLEM_WORDS: dict[EdgeProblem, str] = {
    "unknown_source": "unknown source",
    "undeclared_outcome": "undeclared outcome",
    "unknown_target": "unknown target",
}
"""How a printed edge says what is wrong with it."""


@record
class Box:
    """A loop's box: its body nodes (indexes into the graph's nodes) and the boxes inside."""

    loop: GraphLoop
    nodes: tuple[int, ...]
    boxes: tuple[Box, ...]


@record
class Layout:
    """The top level (nodes outside every loop, then the outermost boxes), the names
    that ``start`` or an edge uses for a node that does not exist (drawn as stand-ins,
    in the order first used) and whether an edge ends the workflow (``END`` is drawn)."""

    nodes: tuple[int, ...]
    boxes: tuple[Box, ...]
    missing: tuple[str, ...]
    ends: bool


def layout(graph: WorkflowGraph) -> Layout:
    """Every node once, each in the box of the innermost loop of its owner stack (or at
    the top level when it has none, or when that loop is not drawn); every loop box
    once, inside its parent's box when that is drawn."""
    loops = {loop.id: loop for loop in graph.loops}
    inside: dict[str | None, list[int]] = {}
    for index, node in enumerate(graph.nodes):
        innermost = node.owner_stack[-1] if node.owner_stack else None
        inside.setdefault(innermost if innermost in loops else None, []).append(index)
    children: dict[str | None, list[GraphLoop]] = {}
    for loop in graph.loops:
        children.setdefault(loop.parent if loop.parent in loops else None, []).append(loop)
    placed: set[str] = set()

    def boxes(parent: str | None) -> tuple[Box, ...]:
        made = []
        for loop in children.get(parent, ()):
            if loop.id in placed:  # (a parent chain never cycles; a graph is not trusted)
                continue
            placed.add(loop.id)
            made.append(Box(loop, tuple(inside.get(loop.id, ())), boxes(loop.id)))
        return tuple(made)

    top = boxes(None)
    known = {node.id for node in graph.nodes}
    missing: dict[str, None] = {}
    if graph.start is not None and graph.start not in known:
        missing[graph.start] = None
    for edge in graph.edges:
        for end in (edge.source, edge.target):
            if end not in known and end != END:
                missing[end] = None
    return Layout(
        tuple(inside.get(None, ())),
        top,
        tuple(missing),
        any(END in (edge.source, edge.target) for edge in graph.edges),
    )


def node_label(node: GraphNode, subgraphs: dict[str, str]) -> tuple[str, str]:
    """The two lines of a node's label: its id, and what it is (its type, with the node
    def it runs or the workflow it calls)."""
    if node.type == "node" and node.node_def is not None:
        return node.id, f"node {node.node_def}"
    if node.type == "subgraph" and node.id in subgraphs:
        return node.id, f"subgraph {subgraphs[node.id]}"
    return node.id, node.type if node.type is not None else "?"


def loop_label(loop: GraphLoop) -> str:
    """A loop box's title: the foreach, and its alias and ``over`` when they are known."""
    if loop.over is None:
        return f"foreach {loop.id}"
    alias = loop.alias if loop.alias is not None else "item"
    return f"foreach {loop.id}: {alias} in {loop.over}"


def edge_label(edge: GraphEdge) -> tuple[str, ...]:
    """The lines of an edge's label: its outcome, then what is wrong with the edge."""
    outcome = edge.outcome if edge.outcome is not None else "?"
    if edge.valid:
        return (outcome,)
    return outcome, "(" + ", ".join(PROBLEM_WORDS[p] for p in edge.problems) + ")"
