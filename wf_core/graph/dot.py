"""The workflow graph in Graphviz's DOT language: loops as nested ``cluster`` subgraphs.

Every node is named by its id, quoted (``_quote``, the one escaping of this format), so
``orders.v2``, ids with quotes, backslashes, spaces or any Unicode are names like any
other. ``__start__`` and ``__end__`` (``wf_core.language.tokens``) name the start and the end
of the workflow, which no node may be. A name that ``start`` or an edge uses for a
node that does not exist is drawn as a dashed red stand-in, and an invalid edge dashed
and red with what is wrong with it; a node's outline is red when an error is on its
entry, orange for a warning, dashed when it is unreachable.
"""

from __future__ import annotations

from collections.abc import Mapping

from wf_core.base.issues import Severity
from wf_core.graph.layout import Box, edge_label, layout, loop_label, node_label
from wf_core.graph.model import GraphNode, WorkflowGraph
from wf_core.language.tokens import END, START

ERROR_COLOUR = "#d62728"
WARNING_COLOUR = "#ff7f0e"
_SEVERITY_COLOURS = {Severity.ERROR: ERROR_COLOUR, Severity.WARNING: WARNING_COLOUR}
_SHAPES = {
    "node": "box",
    "subgraph": "component",
    "condition": "diamond",
    "foreach": "hexagon",
    "join": "oval",
    "end": "doubleoctagon",
    "interrupt": "parallelogram",
}


_ESCAPES = str.maketrans(
    {
        **{code: f"\\\\x{code:02x}" for code in (*range(0x20), *range(0x7F, 0xA0))},
        ord("\n"): "\\n",
        ord("\\"): "\\\\",
        ord('"'): '\\"',
        ord("&"): "&amp;",
    }
)
"""What ``_quote`` writes for a character: control characters in a visible form."""


def _quote(text: str) -> str:
    """``text`` as a DOT quoted string that reads back, and shows in a label, as ``text``.

    In a quoted string DOT reads ``\\"`` as a quote; in a label, a backslash starts an
    escape (``\\n``, ``\\N``, ...) and ``&`` an HTML entity. So backslashes are doubled,
    quotes escaped, ``&`` written ``&amp;``, a line break ``\\n``, and any other control
    character shown as ``\\xNN`` (never written raw)."""
    return '"' + text.translate(_ESCAPES) + '"'


def _attributes(attributes: Mapping[str, str]) -> str:
    return "[" + ", ".join(f"{key}={_quote(value)}" for key, value in attributes.items()) + "]"


def _node(node: GraphNode, subgraphs: dict[str, str]) -> str:
    attributes = {"label": "\n".join(node_label(node, subgraphs))}
    shape = _SHAPES.get(node.type or "")
    if shape is not None and shape != "box":
        attributes["shape"] = shape
    if node.unreachable:
        attributes["style"] = "rounded,dashed"
    colour = _SEVERITY_COLOURS.get(node.severity) if node.severity is not None else None
    if colour is not None:
        attributes.update(color=colour, penwidth="2")
    return f"{_quote(node.id)} {_attributes(attributes)};"


def to_dot(graph: WorkflowGraph) -> str:
    """The graph as a DOT ``digraph``, nodes and edges in document order."""
    drawn = layout(graph)
    subgraphs = {call.node: call.workflow for call in graph.subgraphs}
    title = graph.workflow if graph.workflow is not None else "workflow"
    out = [
        f"digraph {_quote(title)} {{",
        f"  graph {_attributes({'label': title, 'labelloc': 't', 'fontname': 'Helvetica'})};",
        f"  node {_attributes({'shape': 'box', 'style': 'rounded', 'fontname': 'Helvetica'})};",
        f"  edge {_attributes({'fontname': 'Helvetica', 'fontsize': '10'})};",
    ]
    if graph.start is not None:
        marker = {"shape": "circle", "label": "", "style": "filled", "fillcolor": "black"}
        out.append(f"  {_quote(START)} {_attributes({**marker, 'width': '0.2'})};")
    out.extend(f"  {_node(graph.nodes[index], subgraphs)}" for index in drawn.nodes)

    def box(inner: Box, indent: str) -> None:
        out.append(f"{indent}subgraph {_quote('cluster_' + inner.loop.id)} {{")
        title = _attributes({"label": loop_label(inner.loop), "style": "rounded,dashed"})
        out.append(f"{indent}  graph {title};")
        out.extend(f"{indent}  {_node(graph.nodes[index], subgraphs)}" for index in inner.nodes)
        for nested in inner.boxes:
            box(nested, indent + "  ")
        out.append(f"{indent}}}")

    for outer in drawn.boxes:
        box(outer, "  ")
    stand_in = {"style": "dashed", "color": ERROR_COLOUR, "fontcolor": ERROR_COLOUR}
    for name in drawn.missing:
        label = {"label": f"{name}\n(no such node)", **stand_in}
        out.append(f"  {_quote(name)} {_attributes(label)};")
    if drawn.ends:
        end = {"shape": "doublecircle", "label": "", "style": "filled", "fillcolor": "black"}
        out.append(f"  {_quote(END)} {_attributes({**end, 'width': '0.15'})};")
    if graph.start is not None:
        wrong = graph.start in drawn.missing
        attributes = {"color": ERROR_COLOUR, "style": "dashed"} if wrong else {}
        arrow = f"  {_quote(START)} -> {_quote(graph.start)}"
        out.append(f"{arrow} {_attributes(attributes)};" if attributes else f"{arrow};")
    invalid = {"color": ERROR_COLOUR, "fontcolor": ERROR_COLOUR, "style": "dashed"}
    for edge in graph.edges:
        attributes = {"label": "\n".join(edge_label(edge)), **({} if edge.valid else invalid)}
        out.append(f"  {_quote(edge.source)} -> {_quote(edge.target)} {_attributes(attributes)};")
    out.append("}")
    return "\n".join(out) + "\n"
