"""Breakpoint lines bound to nodes: any line of a node's entry binds to the node, shown
at its ``id`` line; a line outside every node is refused with the reason."""

from __future__ import annotations

import pytest

from wf_core.base.reading import Syntax
from wf_core.graph import build_graph
from wf_core.version.snapshot import analyze_text
from wfls.debug.breakpoints import Binding, bind_line, node_spots

TOML = """\
name = "w"
start = "rows"
edges = [
  { from = "rows", outcome = "loop", to = "work" },
  { from = "work", outcome = "ok", to = "rows" },
  { from = "rows", outcome = "done", to = "__end__" },
]

[[node_defs]]
name = "task"
outcomes = ["ok"]

[[nodes]]
type = "foreach"
id = "rows"
over = "input.rows"

# a comment between two nodes
[[nodes]]
id = "work"
type = "node"
node = "task"
input = [
  { target = "x", path = "context.foreach.rows.item" },
]
"""

JSON = """\
{
  "name": "w",
  "start": "rows",
  "nodes": [
    {
      "type": "foreach",
      "id": "rows",
      "over": "input.rows"
    },
    {"id": "work", "type": "node", "node": "task"}
  ],
  "edges": []
}
"""

OUTSIDE = "not inside a node"


@pytest.mark.parametrize(
    ("syntax", "text", "line", "node", "shown_at"),
    [
        ("toml", TOML, 13, "rows", 15),  # the [[nodes]] header
        ("toml", TOML, 14, "rows", 15),  # a line before the id
        ("toml", TOML, 16, "rows", 15),  # the entry's last pair
        ("toml", TOML, 24, "work", 20),  # inside a multi-line input list
        ("toml", TOML, 25, "work", 20),  # the list's closing bracket
        ("toml", TOML, 4, None, 4),  # an edge
        ("toml", TOML, 18, None, 18),  # the comment between two nodes
        ("toml", TOML, 9, None, 9),  # a node def
        ("json", JSON, 5, "rows", 7),  # the object's opening brace
        ("json", JSON, 8, "rows", 7),
        ("json", JSON, 10, "work", 10),  # a node on one line
        ("json", JSON, 12, None, 12),
    ],
)
def test_lines_bind_to_the_node_whose_entry_holds_them(
    syntax: Syntax, text: str, line: int, node: str | None, shown_at: int
) -> None:
    snapshot = analyze_text(text, syntax)
    binding = bind_line(node_spots(snapshot, build_graph(snapshot)), line)
    assert (binding.node_id, binding.line) == (node, shown_at)
    assert binding.verified == (node is not None)
    if node is None:
        assert binding.message is not None and binding.message.startswith(OUTSIDE)
    else:
        assert binding == Binding(node, shown_at)
