"""The workflow graph as a Mermaid ``flowchart``: loops as nested ``subgraph`` blocks.

Mermaid ids must be plain words, and some words (``end``, ``graph``, ...) are its own,
so nodes are named by their place (``n0``, ``n1``, ...; ``u0``... for the stand-ins of
names that no node has, ``loop0``... for the loop boxes, ``wf_start`` and ``wf_end``)
and every id is shown in a quoted label, written by ``_text``, the one escaping of
this format. Marks are classes: ``error`` and ``warning`` for the worst finding on a
node, ``unreachable``, ``missing`` for the stand-ins; an invalid edge is dotted, red,
and says what is wrong with it.
"""

from __future__ import annotations

import json

from wf_core.graph.dot import ERROR_COLOUR, WARNING_COLOUR
from wf_core.graph.layout import Box, edge_label, layout, loop_label, node_label
from wf_core.graph.model import GraphNode, WorkflowGraph
from wf_core.language.tokens import END

_SHAPES = {
    "node": ('["', '"]'),
    "subgraph": ('[["', '"]]'),
    "condition": ('{"', '"}'),
    "foreach": ('{{"', '"}}'),
    "join": ('(("', '"))'),
    "end": ('(["', '"])'),
    "interrupt": ('[/"', '"/]'),
}
_PLAIN = ('["', '"]')
_CLASSES = {
    "error": f"stroke:{ERROR_COLOUR},stroke-width:2px",
    "warning": f"stroke:{WARNING_COLOUR},stroke-width:2px",
    "unreachable": "stroke-dasharray:5 5,color:#777777",
    "missing": f"stroke:{ERROR_COLOUR},stroke-dasharray:5 5,color:{ERROR_COLOUR}",
}
_ENTITIES = str.maketrans(
    {code: f"#{code};" for code in (*b'"#&<>`', *range(0x20), *range(0x7F, 0xA0))}
)


def _text(text: str) -> str:
    """``text`` for a quoted label, shown as written: Mermaid reads ``#...;`` as an entity
    and a label as HTML, so the quote, ``#``, ``&``, ``<``, ``>``, the backtick (which
    starts a Markdown label) and control characters are written as numeric entities
    (``#34;``); line breaks between parts of a label are the printer's own ``<br>``."""
    return text.translate(_ENTITIES)


def _label(*lines: str) -> str:
    return "<br>".join(_text(line) for line in lines)


def to_mermaid(graph: WorkflowGraph) -> str:
    """The graph as a Mermaid flowchart, nodes and edges in document order (the workflow's
    name is its title)."""
    drawn = layout(graph)
    subgraphs = {call.node: call.workflow for call in graph.subgraphs}
    names = {node.id: f"n{index}" for index, node in enumerate(graph.nodes)}
    names.update((name, f"u{index}") for index, name in enumerate(drawn.missing))
    names[END] = "wf_end"
    title = graph.workflow if graph.workflow is not None else "workflow"
    # (YAML's double-quoted strings are JSON's, escapes included)
    out = ["---", f"title: {json.dumps(title)}", "---", "flowchart TD"]
    classes: dict[str, list[str]] = {name: [] for name in _CLASSES}

    def node(index: int, indent: str) -> str:
        node: GraphNode = graph.nodes[index]
        opening, closing = _SHAPES.get(node.type or "", _PLAIN)
        if node.severity is not None and node.severity.value in classes:
            classes[node.severity.value].append(names[node.id])
        if node.unreachable:
            classes["unreachable"].append(names[node.id])
        return f"{indent}{names[node.id]}{opening}{_label(*node_label(node, subgraphs))}{closing}"

    if graph.start is not None:
        out.append('  wf_start(("start"))')
    out.extend(node(index, "  ") for index in drawn.nodes)
    loop_names = {loop.id: f"loop{index}" for index, loop in enumerate(graph.loops)}

    def box(inner: Box, indent: str) -> None:
        title = _label(loop_label(inner.loop))
        out.append(f'{indent}subgraph {loop_names[inner.loop.id]}["{title}"]')
        out.extend(node(index, indent + "  ") for index in inner.nodes)
        for nested in inner.boxes:
            box(nested, indent + "  ")
        out.append(f"{indent}end")

    for outer in drawn.boxes:
        box(outer, "  ")
    for name in drawn.missing:
        out.append(f'  {names[name]}["{_label(name, "(no such node)")}"]')
        classes["missing"].append(names[name])
    if drawn.ends:
        out.append('  wf_end(("end"))')
    links = 0
    wrong: list[int] = []
    if graph.start is not None:
        if graph.start in drawn.missing:
            wrong.append(links)
            out.append(f"  wf_start -.-> {names[graph.start]}")
        else:
            out.append(f"  wf_start --> {names[graph.start]}")
        links += 1
    for edge in graph.edges:
        arrow = "-->" if edge.valid else "-.->"
        label = _label(*edge_label(edge))
        out.append(f'  {names[edge.source]} {arrow}|"{label}"| {names[edge.target]}')
        if not edge.valid:
            wrong.append(links)
        links += 1
    for name, style in _CLASSES.items():
        if classes[name]:
            out.append(f"  classDef {name} {style}")
            out.append(f"  class {','.join(classes[name])} {name}")
    if wrong:
        out.append(
            f"  linkStyle {','.join(map(str, wrong))} stroke:{ERROR_COLOUR},color:{ERROR_COLOUR}"
        )
    return "\n".join(out) + "\n"
