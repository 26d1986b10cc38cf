"""The canonical style, rule by rule: each case is the text before and the text
``format_text`` makes of it, which formatting again leaves unchanged, which means what
the text before meant and which keeps its comments before the same items."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.formatting.kept import assert_comments_kept, assert_meaning_kept
from wf_core.base.reading import Syntax
from wf_core.formatting import FormatError, FormatResult, format_text
from wf_core.formatting.text_edits import apply_edits, minimal_edits


def check_format(
    before: str, after: str, syntax: Syntax = "toml", *, width: int = 100, indent: str = "  "
) -> None:
    result = format_text(before, syntax, width=width, indent=indent)
    assert result.error is None
    assert result.text == after
    assert format_text(after, syntax, width=width, indent=indent).text == after
    assert_meaning_kept(before, after, syntax)
    if syntax == "toml":
        assert_comments_kept(before, after)


def test_top_level_keys_in_the_document_order_with_their_comments() -> None:
    check_format(
        """\
start = "a"
# what it is
name = "w"   # its name
edges = [{ from = "a", outcome = "done", to = "__end__" }]
outcomes = ["ok"]
[[nodes]]
type = "join"
id = "a"
""",
        """\
# what it is
name = "w"  # its name
start = "a"
outcomes = ["ok"]
edges = [{ from = "a", outcome = "done", to = "__end__" }]

[[nodes]]
id = "a"
type = "join"
""",
    )


def test_node_keys_in_the_node_type_order_bindings_last_unknown_keys_with_their_neighbour() -> None:
    check_format(
        """\
name = "w"
start = "t"
outcomes = ["ok"]
edges = [
  # the only edge
  { to = "__end__", from = "t", outcome = "ok" },
]

[[node_defs]]
outcomes = ["ok"]
name = "task"

[[nodes]]
output = [{ target = "state.x", source = "y" }]
input = [{ path = "input.a", target = "a" }]
node = "task"
# an author's note
owner = "me"
retry = 2
type = "node"
id = "t"
""",
        """\
name = "w"
start = "t"
outcomes = ["ok"]
edges = [
  # the only edge
  { from = "t", outcome = "ok", to = "__end__" },
]

[[node_defs]]
name = "task"
outcomes = ["ok"]

[[nodes]]
id = "t"
type = "node"
node = "task"
# an author's note
owner = "me"
retry = 2
input = [{ target = "a", path = "input.a" }]
output = [{ source = "y", target = "state.x" }]
""",
    )


def test_long_values_expanded_one_element_a_line_conditions_op_first() -> None:
    check_format(
        """\
name = "w"
start = "c"
outcomes = ["ok"]
edges = [{ from = "c", outcome = "true", to = "__end__" }, { from = "c", outcome = "false", to = "__end__" }]

[[nodes]]
id = "c"
type = "condition"
check = { args = [{ path = "input.a", op = "exists" }, { arg = { path = "input.b", op = "exists" }, op = "not" }], op = "and" }
""",  # noqa: E501
        """\
name = "w"
start = "c"
outcomes = ["ok"]
edges = [
  { from = "c", outcome = "true", to = "__end__" },
  { from = "c", outcome = "false", to = "__end__" },
]

[[nodes]]
id = "c"
type = "condition"

[nodes.check]
op = "and"
args = [
  { op = "exists", path = "input.a" },
  { op = "not", arg = { op = "exists", path = "input.b" } },
]
""",
    )


BEFORE_PATHS = """\
name='w'
start = "l"
outcomes = [ "ok" ]
edges = [{ from = "l", outcome = "loop", to = "t" }, { from = "t", outcome = "ok", to = "l" }, { from = "l", outcome = "done", to = "__end__" }]
[input_schema]
type = "object"
properties.xs = { type = "array", items = { type = "object" } }
[[nodes]]
id = "l"
type = "foreach"
over = "input.xs"
as = "x"
[[nodes]]
id = "t"
type = "node"
node = "task"
input = [{ target = "x", path = "context.foreach.'l'.item" }, { target = "y", path = "context.foreach.l.index" }]
"""  # noqa: E501


def test_paths_in_canonical_quoting_strings_and_spacing_one_way() -> None:
    check_format(
        BEFORE_PATHS,
        """\
name = "w"
start = "l"
outcomes = ["ok"]
edges = [
  { from = "l", outcome = "loop", to = "t" },
  { from = "t", outcome = "ok", to = "l" },
  { from = "l", outcome = "done", to = "__end__" },
]

[input_schema]
type = "object"
properties.xs = { type = "array", items = { type = "object" } }

[[nodes]]
id = "l"
type = "foreach"
over = "input.xs"
as = "x"

[[nodes]]
id = "t"
type = "node"
node = "task"
input = [
  { target = "x", path = "context.foreach.l.item" },
  { target = "y", path = "context.foreach.l.index" },
]
""",
    )


def test_width_and_indentation_are_the_options() -> None:
    check_format(
        BEFORE_PATHS,
        """\
name = "w"
start = "l"
outcomes = ["ok"]
edges = [
\t{ from = "l", outcome = "loop", to = "t" },
\t{ from = "t", outcome = "ok", to = "l" },
\t{ from = "l", outcome = "done", to = "__end__" },
]

[input_schema]
type = "object"

[input_schema.properties]
xs = { type = "array", items = { type = "object" } }

[[nodes]]
id = "l"
type = "foreach"
over = "input.xs"
as = "x"

[[nodes]]
id = "t"
type = "node"
node = "task"
input = [
\t{ target = "x", path = "context.foreach.l.item" },
\t{ target = "y", path = "context.foreach.l.index" },
]
""",
        width=60,
        indent="\t",
    )


def test_edge_tables_become_lines_unless_a_comment_is_inside_one() -> None:
    check_format(
        """\
name = "w"
start = "a"

# first edge
[[edges]]
from = "a"
outcome = "done"
to = "__end__"

# second
[[edges]]
from = "b"
outcome = "done"
to = "__end__"

[[nodes]]
id = "a"
type = "join"
""",
        """\
name = "w"
start = "a"

# first edge
edges = [
  { from = "a", outcome = "done", to = "__end__" },

  # second
  { from = "b", outcome = "done", to = "__end__" },
]

[[nodes]]
id = "a"
type = "join"
""",
    )
    commented = """\
name = "w"
start = "a"

[[edges]]
from = "a"
# which outcome
outcome = "done"
to = "__end__"

[[nodes]]
id = "a"
type = "join"
"""
    check_format(commented, commented)


def test_an_array_with_a_comment_inside_stays_expanded() -> None:
    check_format(
        """\
name = "w"
start = "a"
outcomes = [
  "ok",  # the usual one
  "failed"
]
""",
        """\
name = "w"
start = "a"
outcomes = [
  "ok",  # the usual one
  "failed",
]
""",
    )


def test_json_two_space_indentation_same_key_order_short_values_on_one_line() -> None:
    check_format(
        """\
{"nodes": [{"type": "join", "id": "a"}], "name": "w", "start": "a", "edges": [{"to": "__end__", "outcome": "done", "from": "a"}],
 "input_schema": {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string", "description": "a long description of the name"}}}}}}}
""",  # noqa: E501
        """\
{
  "name": "w",
  "start": "a",
  "edges": [{"from": "a", "outcome": "done", "to": "__end__"}],
  "input_schema": {
    "type": "object",
    "properties": {
      "xs": {
        "type": "array",
        "items": {
          "type": "object",
          "properties": {
            "name": {"type": "string", "description": "a long description of the name"}
          }
        }
      }
    }
  },
  "nodes": [
    {
      "id": "a",
      "type": "join"
    }
  ]
}
""",
        "json",
    )


def test_json_paths_in_canonical_quoting() -> None:
    check_format(
        """{"name": "w", "start": "l", "edges": [], "nodes": [
{"id": "l", "type": "foreach", "over": "input.xs", "as": "x"},
{"id": "t", "type": "node", "node": "n", "input": [{"target": "x", "path": "context.foreach.'l'.item"}]}]}""",  # noqa: E501
        """\
{
  "name": "w",
  "start": "l",
  "edges": [],
  "nodes": [
    {
      "id": "l",
      "type": "foreach",
      "over": "input.xs",
      "as": "x"
    },
    {
      "id": "t",
      "type": "node",
      "node": "n",
      "input": [{"target": "x", "path": "context.foreach.l.item"}]
    }
  ]
}
""",
        "json",
    )


@pytest.mark.parametrize(
    ("text", "syntax", "error"),
    [
        ('name = "w"\nnodes = [', "toml", FormatError("array is not closed", 19, 1, 8)),
        ("a = 1\na = 2\n", "toml", FormatError("duplicate key 'a'", 6, 1, 0)),
        ('{"a": }', "json", FormatError("missing value for key 'a'", 4, 0, 4)),
        (
            "[1]",
            "json",
            FormatError(
                "this is TOML, not JSON: a TOML workflow belongs in a .wf.toml file (a .wf.json "
                "file holds one JSON object)",
                0,
                0,
                0,
            ),
        ),
    ],
)
def test_a_syntax_error_is_the_answer_never_half_formatted(
    text: str, syntax: Syntax, error: FormatError
) -> None:
    assert format_text(text, syntax) == FormatResult(None, error)


def test_a_blank_document_is_empty() -> None:
    assert format_text("\n  \n", "toml").text == ""


@pytest.mark.parametrize(
    ("old", "new", "edits"),
    [
        ("a = 1\nb = 2\n", "a = 1\nb = 2\n", []),
        ("a = 1\nb =  2\nc = 3\n", "a = 1\nb = 2\nc = 3\n", [(9, 10, "")]),
        ("x = [1,2]\n", "x = [\n  1,\n  2,\n]\n", [(5, 8, "\n  1,\n  2,\n")]),
        ("a = 1\n\n\nb = 2\n", "a = 1\n\nb = 2\n", [(7, 8, "")]),
        ("b = 2\n", "a = 1\nb = 2\n", [(0, 0, "a = 1\n")]),
    ],
)
def test_minimal_edits_touch_only_what_changed(
    old: str, new: str, edits: list[tuple[int, int, str]]
) -> None:
    found = minimal_edits(old, new)
    assert [(e.start, e.end, e.text) for e in found] == edits
    assert apply_edits(old, found) == new


GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("name", ["messy.wf.toml", "messy.wf.json"])
def test_golden_files(name: str) -> None:
    """A messy document in each syntax and its formatted text (the VS Code end-to-end
    test formats the TOML one in the editor and compares it with the same file)."""
    before = (GOLDEN / name).read_text(encoding="utf-8")
    after = (GOLDEN / f"{name}.formatted").read_text(encoding="utf-8")
    check_format(before, after, "json" if name.endswith(".json") else "toml")


@pytest.mark.parametrize(
    ("old", "new", "edits"),
    [
        ("a = 1\n", "a = 1\nb = 2\n", [(5, 5, "\nb = 2")]),
        ("a = 1\nb = 2\n", "a = 1\n", [(5, 11, "")]),
        ("a = 1\nb = 2\n", "a = 1\nc = 3\n", [(6, 11, "c = 3")]),
    ],
)
def test_edits_stay_inside_the_lines_of_the_document(
    old: str, new: str, edits: list[tuple[int, int, str]]
) -> None:
    found = minimal_edits(old, new)
    assert [(e.start, e.end, e.text) for e in found] == edits
    assert apply_edits(old, found) == new
