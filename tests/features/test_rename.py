"""Rename and references, data-driven: a fixture with ``$0``, the document afterwards."""

from __future__ import annotations

from typing import Any

import pytest
from inline_snapshot import snapshot

from tests.features.fixture import (
    analyze,
    apply,
    check_edited,
    cursor,
    errors,
    expected,
    mark,
    parse,
)
from wfls.features.references import highlights, references
from wfls.features.rename import prepare_rename, rename
from wfls.features.types import Refusal

WORKFLOW = """
name = "r"
start = "orders"
edges = [
  { from = "orders", outcome = "loop", to = "use" },
  { from = "use", outcome = "ok", to = "orders" },
  { from = "orders", outcome = "done", to = "__end__" },
]

[input_schema]
type = "object"
properties.orders = { type = "array", items = { "$ref" = "#/$defs/order" } }

[input_schema."$defs".order]
type = "object"
required = ["sku"]
properties.sku = { type = "string" }

[[node_defs]]
name = "task"
outcomes = ["ok"]
input_schema = { type = "object", properties = { x = {}, y = {} } }
output_schema = { type = "object" }

[[nodes]]
id = "orders"
type = "foreach"
over = "input.orders"
as = "order"

[[nodes]]
id = "use"
type = "node"
node = "task"
input = [
  { target = "x", path = "context.foreach.orders.item.sku" },
  { target = "y", path = 'context.order.sku' },
]
"""


def check_rename(fixture: str, new_name: str, after: Any, *, round_trip: bool = True) -> None:
    snapshot, offset = cursor(fixture)
    before_errors = errors(snapshot)
    edits = rename(snapshot, offset, new_name)
    text = apply(snapshot.text, [(e.span, e.new_text) for e in edits])
    check_edited(snapshot.text, text, after)
    # A rename introduces no error, and renaming back gives the original text (unless a
    # string had to change style to hold the new name).
    renamed = analyze(text)
    assert errors(renamed) == before_errors
    if not round_trip:
        return
    old_name = prepare_rename(snapshot, offset)[1]
    back = None
    delta = 0
    for edit in sorted(edits, key=lambda e: e.span.start):
        quoted = 1 if edit.new_text.startswith(('"', "'")) else 0
        start = edit.span.start + delta  # where the edit's text starts in the new document
        delta += len(edit.new_text) - (edit.span.end - edit.span.start)
        try:
            back = rename(renamed, start + quoted, old_name)
            break
        except Refusal:
            continue  # not a name (a ``required`` entry): try the next edit
    assert back is not None
    assert apply(text, [(e.span, e.new_text) for e in back]) == snapshot.text


def check_rename_refused(fixture: str, new_name: str, reason: str) -> None:
    snapshot, offset = cursor(fixture)
    with pytest.raises(Refusal, match=reason):
        rename(snapshot, offset, new_name)


def check_references(fixture: str, marked: str, *, include_declaration: bool = True) -> None:
    snapshot, offset = cursor(fixture)
    found = references(snapshot, offset, include_declaration=include_declaration)
    assert found, "a reference test needs references"
    assert mark(snapshot.text, [t.span for t in found]) == expected(marked)


def at(text: str, needle: str, shift: int = 0) -> str:
    """The fixture with the cursor put at ``needle`` (plus ``shift``)."""
    index = text.index(needle) + shift
    return text[:index] + "$0" + text[index:]


def renamed(text: str, old: str, new: str) -> str:
    return text.replace(old, new)


def test_rename_a_foreach_id_requotes_its_path_segments() -> None:
    fixture = at(WORKFLOW, 'id = "orders"', 6)
    check_rename(
        fixture,
        "orders.v2",
        snapshot(
            [
                '- start = "orders"',
                '+ start = "orders.v2"',
                '-   { from = "orders", outcome = "loop", to = "use" },',
                '+   { from = "orders.v2", outcome = "loop", to = "use" },',
                '-   { from = "use", outcome = "ok", to = "orders" },',
                '+   { from = "use", outcome = "ok", to = "orders.v2" },',
                '-   { from = "orders", outcome = "done", to = "__end__" },',
                '+   { from = "orders.v2", outcome = "done", to = "__end__" },',
                '- id = "orders"',
                '+ id = "orders.v2"',
                '-   { target = "x", path = "context.foreach.orders.item.sku" },',
                '+   { target = "x", path = "context.foreach.\\"orders.v2\\".item.sku" },',
            ]
        ),
    )


def test_rename_from_a_path_segment_in_a_literal_string() -> None:
    text = WORKFLOW.replace(
        '"context.foreach.orders.item.sku"', "'context.foreach.orders.item.sku'"
    )
    fixture = at(text, "foreach.orders.item", 9)
    check_rename(
        fixture,
        "orders.v2",
        snapshot(
            [
                '- start = "orders"',
                '+ start = "orders.v2"',
                '-   { from = "orders", outcome = "loop", to = "use" },',
                '+   { from = "orders.v2", outcome = "loop", to = "use" },',
                '-   { from = "use", outcome = "ok", to = "orders" },',
                '+   { from = "use", outcome = "ok", to = "orders.v2" },',
                '-   { from = "orders", outcome = "done", to = "__end__" },',
                '+   { from = "orders.v2", outcome = "done", to = "__end__" },',
                '- id = "orders"',
                '+ id = "orders.v2"',
                "-   { target = \"x\", path = 'context.foreach.orders.item.sku' },",
                '+   { target = "x", path = \'context.foreach."orders.v2".item.sku\' },',
            ]
        ),
    )


def test_rename_to_an_id_a_literal_string_cannot_hold_rewrites_the_string() -> None:
    text = WORKFLOW.replace(
        '"context.foreach.orders.item.sku"', "'context.foreach.orders.item.sku'"
    )
    fixture = at(text, 'start = "orders"', 9)
    check_rename(
        fixture,
        "it's",
        snapshot(
            [
                '- start = "orders"',
                '+ start = "it\'s"',
                '-   { from = "orders", outcome = "loop", to = "use" },',
                '+   { from = "it\'s", outcome = "loop", to = "use" },',
                '-   { from = "use", outcome = "ok", to = "orders" },',
                '+   { from = "use", outcome = "ok", to = "it\'s" },',
                '-   { from = "orders", outcome = "done", to = "__end__" },',
                '+   { from = "it\'s", outcome = "done", to = "__end__" },',
                '- id = "orders"',
                '+ id = "it\'s"',
                "-   { target = \"x\", path = 'context.foreach.orders.item.sku' },",
                '+   { target = "x", path = "context.foreach.\\"it\'s\\".item.sku" },',
            ]
        ),
        round_trip=False,
    )


def test_rename_in_json_escapes_for_json() -> None:
    text = (
        '{"name": "j", "start": "orders", "outcomes": ["ok"],\n'
        ' "input_schema": {"type": "object", "properties": {"orders": {"type": "array"}}},\n'
        ' "node_defs": [{"name": "task", "outcomes": ["ok"], "input_schema": {"type": "object",'
        ' "properties": {"x": {}}}, "output_schema": {"type": "object"}}],\n'
        ' "nodes": [{"id": "orders", "type": "foreach", "over": "input.orders", "as": "o"},\n'
        '  {"id": "use", "type": "node", "node": "task",'
        ' "input": [{"target": "x", "path": "context.foreach.orders.index"}]}],\n'
        ' "edges": [{"from": "orders", "outcome": "loop", "to": "use"},'
        ' {"from": "use", "outcome": "ok", "to": "orders"},'
        ' {"from": "orders", "outcome": "done", "to": "__end__"}]}\n'
    )
    fixture = at(text, '"start": "orders"', 11)
    after = text.replace('"orders"', '"orders.v2"', 1)
    after = after.replace('"start": "orders"', '"start": "orders.v2"')
    after = (
        text.replace('"orders",', '"orders.v2",')
        .replace('"id": "orders"', '"id": "orders.v2"')
        .replace('"from": "orders"', '"from": "orders.v2"')
        .replace('"to": "orders"', '"to": "orders.v2"')
        .replace("context.foreach.orders.index", 'context.foreach.\\"orders.v2\\".index')
    )
    check_rename(
        fixture,
        "orders.v2",
        snapshot(
            [
                '- {"name": "j", "start": "orders", "outcomes": ["ok"],',
                '+ {"name": "j", "start": "orders.v2", "outcomes": ["ok"],',
                '-  "nodes": [{"id": "orders", "type": "foreach", "over": "input.orders", "as": "o"},',
                '+  "nodes": [{"id": "orders.v2", "type": "foreach", "over": "input.orders", "as": "o"},',
                '-   {"id": "use", "type": "node", "node": "task", "input": [{"target": "x", "path": "context.foreach.orders.index"}]}],',
                '+   {"id": "use", "type": "node", "node": "task", "input": [{"target": "x", "path": "context.foreach.\\"orders.v2\\".index"}]}],',
                '-  "edges": [{"from": "orders", "outcome": "loop", "to": "use"}, {"from": "use", "outcome": "ok", "to": "orders"}, {"from": "orders", "outcome": "done", "to": "__end__"}]}',
                '+  "edges": [{"from": "orders.v2", "outcome": "loop", "to": "use"}, {"from": "use", "outcome": "ok", "to": "orders.v2"}, {"from": "orders.v2", "outcome": "done", "to": "__end__"}]}',
            ]
        ),
    )


def test_rename_an_alias_renames_its_reads() -> None:
    fixture = at(WORKFLOW, 'as = "order"', 6)
    check_rename(
        fixture,
        "line",
        snapshot(
            [
                '- as = "order"',
                '+ as = "line"',
                "-   { target = \"y\", path = 'context.order.sku' },",
                "+   { target = \"y\", path = 'context.line.sku' },",
            ]
        ),
    )


def test_rename_a_node_def_from_a_use() -> None:
    fixture = at(WORKFLOW, 'node = "task"', 8)
    check_rename(
        fixture,
        "job",
        snapshot(['- name = "task"', '+ name = "job"', '- node = "task"', '+ node = "job"']),
    )


def test_rename_a_schema_property_renames_paths_and_required() -> None:
    fixture = at(WORKFLOW, "item.sku", 5)
    after = WORKFLOW.replace("sku = {", "code = {").replace(
        'required = ["sku"]', 'required = ["code"]'
    )
    after = after.replace("item.sku", "item.code").replace(
        "context.order.sku", "context.order.code"
    )
    check_rename(
        fixture,
        "code",
        snapshot(
            [
                '- required = ["sku"]',
                '+ required = ["code"]',
                '- properties.sku = { type = "string" }',
                '+ properties.code = { type = "string" }',
                '-   { target = "x", path = "context.foreach.orders.item.sku" },',
                '+   { target = "x", path = "context.foreach.orders.item.code" },',
                "-   { target = \"y\", path = 'context.order.sku' },",
                "+   { target = \"y\", path = 'context.order.code' },",
            ]
        ),
    )


def test_rename_a_binding_target_renames_the_node_def_property() -> None:
    fixture = at(WORKFLOW, 'target = "x"', 10)
    check_rename(
        fixture,
        "value",
        snapshot(
            [
                '- input_schema = { type = "object", properties = { x = {}, y = {} } }',
                '+ input_schema = { type = "object", properties = { value = {}, y = {} } }',
                '-   { target = "x", path = "context.foreach.orders.item.sku" },',
                '+   { target = "value", path = "context.foreach.orders.item.sku" },',
            ]
        ),
    )


@pytest.mark.parametrize(
    ("needle", "shift", "new", "reason"),
    [
        ('id = "use"', 6, "orders", "a node 'orders' already exists"),
        ('id = "use"', 6, "__end__", "reserved"),
        ('id = "use"', 6, "", "cannot be empty"),
        ('as = "order"', 6, "loop_item", "reserved context key"),
        ("properties.sku", 11, "sku", None),
    ],
)
def test_rename_refusals(needle: str, shift: int, new: str, reason: str | None) -> None:
    fixture = at(WORKFLOW, needle, shift)
    if reason is None:
        snapshot, offset = cursor(fixture)
        assert rename(snapshot, offset, new) == []
        return
    check_rename_refused(fixture, new, reason)


@pytest.mark.parametrize(
    ("needle", "shift", "reason"),
    [
        ('to = "__end__"', 7, "workflow's end"),
        ('path = "context.foreach', 9, "path syntax"),
        ('outcome = "ok"', 11, "outcomes cannot be renamed"),
        ('name = "r"', 0, "no name to rename"),
    ],
)
def test_prepare_rename_refuses_what_is_not_a_name(needle: str, shift: int, reason: str) -> None:
    snapshot, offset = cursor(at(WORKFLOW, needle, shift))
    with pytest.raises(Refusal, match=reason):
        prepare_rename(snapshot, offset)


def test_prepare_rename_gives_the_name_range() -> None:
    snapshot, offset = cursor(at(WORKFLOW, "foreach.orders.item", 9))
    span, name = prepare_rename(snapshot, offset)
    assert (snapshot.text[span.start : span.end], name) == ("orders", "orders")


def test_references_of_a_foreach_id() -> None:
    check_references(
        at(WORKFLOW, 'id = "orders"', 6),
        WORKFLOW.replace('"orders"', '"«orders»"').replace(
            "context.foreach.orders.item", "context.foreach.«orders».item"
        ),
    )


def test_references_without_the_declaration() -> None:
    fixture = at(WORKFLOW, 'as = "order"', 6)
    check_references(
        fixture,
        WORKFLOW.replace("context.order.sku", "context.«order».sku"),
        include_declaration=False,
    )


def test_references_of_a_property_through_items_and_aliases() -> None:
    check_references(
        at(WORKFLOW, "properties.sku", 11),
        WORKFLOW.replace("properties.sku", "properties.«sku»")
        .replace("item.sku", "item.«sku»")
        .replace("order.sku", "order.«sku»"),
    )


def test_highlights_mark_the_definition_as_write() -> None:
    snapshot, offset = cursor(at(WORKFLOW, 'node = "task"', 8))
    found = highlights(snapshot, offset)
    text = snapshot.text
    assert [(text[h.span.start : h.span.end], h.write) for h in found] == [
        ("task", True),
        ("task", False),
    ]


def test_nothing_to_find_on_plain_text() -> None:
    text, _ = parse(WORKFLOW)
    snapshot = analyze(text)
    assert references(snapshot, text.index('name = "r"')) == []
