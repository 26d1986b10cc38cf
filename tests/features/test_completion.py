"""Completion, data-driven: a fixture with ``$0``, the offered labels, the text after accepting."""

from __future__ import annotations

import json
import tomllib
from typing import Any

import pytest
from inline_snapshot import snapshot

from tests.features.fixture import analyze, apply, check_edited, cursor, errors, expected
from wfls.features.completion import complete

BASE = """
name = "c"
start = "rows"
edges = [
  { from = "rows", outcome = "loop", to = "use" },
  { from = "use", outcome = "ok", to = "rows" },
  { from = "rows", outcome = "done", to = "__end__" },
]

[input_schema]
type = "object"
properties.rows = { type = "array", items = { type = "object", properties = { "a b" = { type = "string" }, sku = { type = "string" } } } }

[[node_defs]]
name = "task"
outcomes = ["ok"]
input_schema = { type = "object", properties = { x = {} } }
output_schema = { type = "object" }

[[nodes]]
id = "rows"
type = "foreach"
over = "input.rows"
as = "row"

[[nodes]]
id = "use"
type = "node"
node = "task"
input = [{ target = "x", path = "PATH" }]
"""


def with_path(path: str) -> str:
    return BASE.replace("PATH", path)


def check_completion(fixture: str, labels: list[str]) -> None:
    snapshot, offset = cursor(fixture)
    found = [c.label for c in complete(snapshot, offset)]
    assert found == labels


def check_accept(fixture: str, label: str, after: Any) -> None:
    """Accepting ``label`` gives ``after``, which has no error the fixture did not have."""
    snapshot, offset = cursor(fixture)
    candidate = next(c for c in complete(snapshot, offset) if c.label == label)
    text = apply(snapshot.text, [(candidate.replace, candidate.insert_text)])
    check_edited(snapshot.text, text, after)
    assert set(errors(analyze(text))) <= set(errors(snapshot))


def test_foreach_entries_in_the_body() -> None:
    check_completion(with_path("context.foreach.$0"), snapshot(["rows"]))


def test_item_members_are_quoted_when_they_need_it() -> None:
    check_completion(with_path("context.foreach.rows.item.$0"), snapshot(['"a b"', "sku"]))
    check_accept(
        with_path("context.foreach.rows.item.$0"),
        '"a b"',
        snapshot(
            [
                '- input = [{ target = "x", path = "context.foreach.rows.item." }]',
                '+ input = [{ target = "x", path = "context.foreach.rows.item.\\"a b\\"" }]',
            ]
        ),
    )


def test_a_literal_string_gets_the_quotes_unescaped() -> None:
    fixture = BASE.replace('"PATH"', "'context.foreach.rows.item.$0'")
    check_accept(
        fixture,
        '"a b"',
        snapshot(
            [
                "- input = [{ target = \"x\", path = 'context.foreach.rows.item.' }]",
                '+ input = [{ target = "x", path = \'context.foreach.rows.item."a b"\' }]',
            ]
        ),
    )


def test_the_segment_being_typed_is_replaced_whole() -> None:
    check_accept(
        with_path("context.foreach.ro$0ws.item"),
        "rows",
        snapshot([]),
    )


def test_roots_and_entry_fields() -> None:
    check_completion(with_path("$0"), snapshot(["input", "state", "context"]))
    check_completion(
        with_path("context.foreach.rows.$0"),
        snapshot(
            ["node_id", "activation_id", "frame_id", "scope_id", "lineage_id", "index", "item"]
        ),
    )


def test_binding_targets_come_from_the_node_def() -> None:
    fixture = BASE.replace('target = "x"', 'target = "$0"')
    check_completion(fixture, snapshot(["x"]))


def test_node_ids_outcomes_types_and_node_defs() -> None:
    check_completion(
        BASE.replace(
            '{ from = "use", outcome = "ok", to = "rows" }',
            '{ from = "use", outcome = "ok", to = "$0" }',
        ),
        snapshot(["rows", "use", "__end__"]),
    )
    check_completion(
        BASE.replace('{ from = "rows", outcome = "done"', '{ from = "rows", outcome = "$0"'),
        snapshot(["done", "loop"]),
    )
    check_completion(
        BASE.replace('type = "node"', 'type = "$0"'),
        snapshot(["node", "subgraph", "condition", "foreach", "join", "end", "interrupt"]),
    )
    check_completion(BASE.replace('node = "task"', 'node = "$0"'), snapshot(["task"]))


def test_enum_values() -> None:
    fixture = BASE.replace('as = "row"', 'as = "row"\nmode = "$0"')
    check_completion(fixture, snapshot(["serial", "concurrent"]))
    fixture = BASE.replace('as = "row"', 'as = "row"\nitem_error = { action = "$0" }')
    check_completion(fixture, snapshot(["fail", "skip", "collect"]))


def test_keys_on_an_empty_line_in_a_node_table() -> None:
    fixture = BASE.replace('as = "row"', 'as = "row"\n$0')
    check_completion(
        fixture, snapshot(["mode", "item_error", "concurrent", "on_item_error", "parallel"])
    )
    analysed, offset = cursor(fixture)
    mode = next(c for c in complete(analysed, offset) if c.label == "mode")
    assert apply(analysed.text, [(mode.replace, mode.insert_text)]) == expected(
        BASE.replace('as = "row"', 'as = "row"\nmode = ')
    )


def test_keys_while_typing_one() -> None:
    check_completion(
        BASE.replace('as = "row"', 'as = "row"\nmo$0'),
        snapshot(["mode", "item_error", "concurrent", "on_item_error", "parallel"]),
    )


def test_json_schema_keywords_inside_a_schema() -> None:
    fixture = BASE.replace('[input_schema]\ntype = "object"', '[input_schema]\ntype = "object"\n$0')
    labels = [c.label for c in complete(*cursor(fixture))]
    assert labels[:4] == ["required", "items", "additionalProperties", "description"]
    assert "properties" not in labels and "type" not in labels  # already written


def test_schema_type_values() -> None:
    fixture = BASE.replace('[input_schema]\ntype = "object"', '[input_schema]\ntype = "$0"')
    check_completion(
        fixture, snapshot(["object", "array", "string", "number", "integer", "boolean", "null"])
    )


def test_an_unwired_node_is_offered_every_loop_marked() -> None:
    fixture = (
        BASE
        + '\n[[nodes]]\nid = "new"\ntype = "node"\nnode = "task"\n'
        + 'input = [{ target = "x", path = "context.foreach.$0" }]\n'
    )
    snapshot, offset = cursor(fixture)
    [candidate] = complete(snapshot, offset)
    assert candidate.label == "rows"
    assert candidate.detail is not None and candidate.detail.startswith("not active here yet")
    assert "active only in the body of foreach `rows`" in (candidate.documentation or "")


def test_json_keys_and_values() -> None:
    text = (
        '{"name": "j", "start": "a", "edges": [{"from": "a", "outcome": "$0"}],\n'
        ' "node_defs": [{"name": "t", "outcomes": ["ok", "retry"],'
        ' "input_schema": {"type": "object"}, "output_schema": {"type": "object"}}],\n'
        ' "nodes": [{"id": "a", "type": "node", "node": "t"}]}\n'
    )
    check_completion(text, snapshot(["ok", "retry"]))
    keys = text.replace('"outcome": "$0"', '"outcome": "ok", "$0"')
    check_completion(keys, snapshot(["to"]))


# -- a dotted loop id --------------------------------------------------------------------

DOTTED = BASE.replace('"rows"', '"orders.v2"')
DOTTED_JSON = json.dumps(tomllib.loads(DOTTED.replace("PATH", "")), indent=2).replace(
    '"path": ""', '"path": "PATH"'
)
STYLES = {
    "basic": (DOTTED, '"PATH"', '"{}"', '\\"'),
    "literal": (DOTTED, '"PATH"', "'{}'", '"'),
    "json": (DOTTED_JSON, '"PATH"', '"{}"', '\\"'),
}
"""Per string style: the document, the path value in it, how a path is written there
and how a double quote inside the path is written."""


def in_style(style: str, path: str) -> str:
    """The dotted document with its binding reading ``path`` (``"`` written as the style
    writes it) in a string of ``style``."""
    base, value, written, quote = STYLES[style]
    return base.replace(value, written.format(path.replace('"', quote)))


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(
    ("typed", "after"),
    [
        ("o$0rders.v2.item.sku", '"orders.v2".item.sku'),
        ("orders$0.v2.item.sku", '"orders.v2".item.sku'),
        ("$0orders.v2.item.sku", '"orders.v2".item.sku'),
        ("ord$0ers.v.item", '"orders.v2".item'),  # the id is still being typed
        ("ord$0ers . v2 . item", '"orders.v2" . item'),
        ("o$0rders", '"orders.v2"'),
        # the cursor behind the dot: the bare segments before it start the name
        ("orders.v$0", '"orders.v2"'),
        ("orders.$0", '"orders.v2"'),
        ("orders.v2$0", '"orders.v2"'),
        ("orders.v$0.item.sku", '"orders.v2".item.sku'),
        ("orders.v$02.item", '"orders.v2".item'),
        ("orders . v$0 . item", '"orders.v2" . item'),
    ],
)
def test_a_dotted_id_typed_unquoted_is_replaced_whole(style: str, typed: str, after: str) -> None:
    fixture = in_style(style, f"context.foreach.{typed}")
    check_completion(fixture, snapshot(['"orders.v2"']))
    check_accept(fixture, '"orders.v2"', in_style(style, f"context.foreach.{after}"))


def test_a_quoted_segment_behind_the_typed_one_is_its_own() -> None:
    snapshot, offset = cursor(in_style("literal", 'context.foreach.o$0rders."v2".item'))
    [candidate] = complete(snapshot, offset)
    text = apply(snapshot.text, [(candidate.replace, candidate.insert_text)])
    assert text == expected(in_style("literal", 'context.foreach."orders.v2"."v2".item'))


@pytest.mark.parametrize(
    ("style", "typed", "filter_text"),
    [
        ("basic", "o$0", "orders.v2"),
        ("basic", "$0", "orders.v2"),
        ("basic", '"o$0', '\\"orders.v2\\"'),
        ("basic", "'o$0", "'orders.v2'"),
        ("literal", "o$0", "orders.v2"),
        ("literal", '"o$0', '"orders.v2"'),
        ("json", "o$0", "orders.v2"),
        ("json", '"o$0', '\\"orders.v2\\"'),
    ],
)
def test_the_filter_text_starts_the_way_the_typed_text_does(
    style: str, typed: str, filter_text: str
) -> None:
    snapshot, offset = cursor(in_style(style, f"context.foreach.{typed}"))
    [candidate] = complete(snapshot, offset)
    assert candidate.filter_text == filter_text


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("written", ["orders.v2", '"orders.v2"', "'orders.v2'"])
def test_each_keystroke_of_a_loop_id_keeps_it_offered(style: str, written: str) -> None:
    """What clients filter by, the document text from the start of the replaced range
    to the cursor, is a prefix of the filter text after every keystroke."""
    if style == "literal" and "'" in written:
        return  # a literal string cannot hold a single quote
    for typed in range(len(written) + 1):
        path = f"context.foreach.{written[:typed]}$0"
        snapshot, offset = cursor(in_style(style, path))
        [candidate] = complete(snapshot, offset)
        assert candidate.label == '"orders.v2"'
        assert candidate.filter_text is not None
        assert candidate.filter_text.startswith(snapshot.text[candidate.replace.start : offset])


NODE_ENTRY = BASE.replace('input = [{ target = "x", path = "PATH" }]', "LIST = [{ $0 }]")
SUBGRAPH_ENTRY = NODE_ENTRY.replace('node = "task"', 'workflow = "child"').replace(
    'type = "node"', 'type = "subgraph"'
)
INTERRUPT_ENTRY = NODE_ENTRY.replace(
    'type = "node"\nnode = "task"', 'type = "interrupt"\nkind = "k"'
)
READS = ["target", "path", "value", "expression"]
WRITES = ["source", "target"]
BINDING_ENTRIES = {
    "node input": (NODE_ENTRY.replace("LIST", "input"), READS),
    "node output": (NODE_ENTRY.replace("LIST", "output"), WRITES),
    "subgraph input": (SUBGRAPH_ENTRY.replace("LIST", "input"), READS),
    "subgraph output": (SUBGRAPH_ENTRY.replace("LIST", "output"), WRITES),
    "interrupt request": (INTERRUPT_ENTRY.replace("LIST", "request"), READS),
    "interrupt resume": (INTERRUPT_ENTRY.replace("LIST", "resume"), WRITES),
    # the workflow's output is read from state by path or given a value: no expression
    "workflow output": (
        BASE.replace('start = "rows"\n', 'start = "rows"\noutput = [{ $0 }]\n'),
        ["target", "path", "value"],
    ),
}


@pytest.mark.parametrize("case", BINDING_ENTRIES)
def test_the_keys_of_a_binding_entry_are_the_models(case: str) -> None:
    check_completion(*BINDING_ENTRIES[case])


def test_the_workflow_output_has_no_expression_binding() -> None:
    """Why ``expression`` is not offered in the workflow's ``output``: its model rejects it."""
    fixture, _ = BINDING_ENTRIES["workflow output"]
    entry = 'target = "t", expression = { kind = "literal", value = 1 }'
    assert "invalid_model: binding needs one of path or value" in errors(
        analyze(fixture.replace("$0", entry))
    )
    node = BINDING_ENTRIES["node input"][0].replace("$0", entry.replace('"t"', '"x"'))
    assert not [e for e in errors(analyze(node)) if "binding" in e]


def test_binding_keys_only_in_the_binding_lists_of_the_node_type() -> None:
    """A node's input bindings are ``input``, an interrupt's are ``request`` (the node-type
    table): a ``request`` list written on a node is no binding list, and offers none."""
    node = BASE.replace('input = [{ target = "x", path = "PATH" }]', "input = [{ $0 }]")
    check_completion(node, snapshot(["target", "path", "value", "expression"]))
    check_completion(
        node.replace("input = [{ $0 }]", "output = [{ $0 }]"), snapshot(["source", "target"])
    )
    check_completion(node.replace("input = [{ $0 }]", "request = [{ $0 }]"), snapshot([]))
    interrupt = node.replace(
        'type = "node"\nnode = "task"\ninput', 'type = "interrupt"\nkind = "k"\nrequest'
    )
    check_completion(interrupt, snapshot(["target", "path", "value", "expression"]))
    check_completion(
        interrupt.replace("request = [{ $0 }]", "resume = [{ $0 }]"), snapshot(["source", "target"])
    )
