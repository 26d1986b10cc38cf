"""Inlay hints, data-driven: the document with each hint inserted as ``«label»``.

A hint with padding on its left is shown with a space (``« customers»``). With a
``$0`` cursor only the cursor's line is requested, as an editor asks for the
visible lines.
"""

from __future__ import annotations

from tests.features.fixture import analyze, apply, expected, parse
from wf_core.base.spans import Span
from wfls.features.inlay_hints import HintOptions, inlay_hints
from wfls.settings import parse_settings


def check_inlay_hints(fixture: str, after: str, options: HintOptions | None = None) -> None:
    text, cursor = parse(fixture)
    snapshot = analyze(text)
    span = None
    if cursor is not None:
        line, _ = snapshot.lines.position(cursor)
        span = Span(snapshot.lines.line_start(line), snapshot.lines.line_end(line))
    hints = inlay_hints(snapshot, span, options)
    assert hints, "a hint test needs hints"
    shown = [
        (Span(h.offset, h.offset), f"«{' ' if h.padding_left else ''}{h.label}»") for h in hints
    ]
    assert apply(text, shown) == expected(after)


WORKFLOW = """
name = "h"
start = "customers"
edges = [
  { from = "customers", outcome = "loop", to = "orders.v2" },
  { from = "orders.v2", outcome = "loop", to = "charge" },
  { from = "charge", outcome = "ok", to = "orders.v2" },
  { from = "orders.v2", outcome = "done", to = "customers" },
  { from = "customers", outcome = "done", to = "__end__" },
]
output = [{ target = "n", path = "state.count" }]

[input_schema]
type = "object"
properties.customers = { type = "array", items = { "$ref" = "#/$defs/customer" } }

[input_schema."$defs".customer]
type = "object"
properties.name = { type = "string" }
properties.orders = { type = "array", items = { "$ref" = "#/$defs/order" } }
properties.tags = { type = "array" }

[input_schema."$defs".order]
type = "object"
properties.qty = { type = "integer" }

[state_schema]
type = "object"
properties.count = { type = ["integer", "null"] }

[output_schema]
type = "object"
properties.n = {}

[[node_defs]]
name = "task"
outcomes = ["ok"]
input_schema = { type = "object", properties = { a = {}, b = {}, c = {}, d = {} } }
output_schema = { type = "object" }

[[nodes]]
id = "customers"
type = "foreach"
over = "input.customers"
as = "customer"

[[nodes]]
id = "orders.v2"
type = "foreach"
over = "context.foreach.customers.item.orders"
as = "order"

[[nodes]]
id = "charge"
type = "node"
node = "task"
input = [
  { target = "a", path = 'context.foreach."orders.v2".item' },
  { target = "b", path = "context.customer.name" },
  { target = "c", path = "context.foreach.customers.item.nickname" },
  { target = "d", path = "context.foreach.customers.item.tags" },
]
"""


def test_item_types_and_read_types() -> None:
    check_inlay_hints(
        WORKFLOW,
        WORKFLOW.replace('path = "state.count"', 'path = "state.count"«: integer | null»')
        .replace('over = "input.customers"', 'over = "input.customers"«: object»')
        .replace('item.orders"', 'item.orders"«: object»')
        .replace("item' }", "item'«: object» }")
        .replace('customer.name"', 'customer.name"«: string»')
        .replace('item.tags"', 'item.tags"«: array<any>»'),
    )


def test_owner_stacks_on_body_nodes_when_asked() -> None:
    check_inlay_hints(
        WORKFLOW,
        WORKFLOW.replace('id = "orders.v2"', 'id = "orders.v2"« customers»').replace(
            'id = "charge"', 'id = "charge"« customers > orders.v2»'
        ),
        HintOptions(item_types=False, path_types=False, owner_stacks=True),
    )


def test_only_the_requested_lines() -> None:
    check_inlay_hints(
        WORKFLOW.replace('{ target = "b"', '$0{ target = "b"'),
        WORKFLOW.replace('customer.name"', 'customer.name"«: string»'),
    )


def test_an_over_that_reads_no_list_gets_no_item_type() -> None:
    fixture = WORKFLOW.replace(
        'over = "context.foreach.customers.item.orders"',
        'over = "context.foreach.customers.item.name"',
    )
    check_inlay_hints(
        fixture.replace('over = "input.customers"', '$0over = "input.customers"'),
        fixture.replace('over = "input.customers"', 'over = "input.customers"«: object»'),
    )
    text, _ = parse(fixture)
    snapshot = analyze(text)
    line = text.index("item.name")
    assert inlay_hints(snapshot, Span(line, line + 30)) == []


def test_json_documents_get_the_same_hints() -> None:
    check_inlay_hints(
        """
        {"name": "j", "start": "xs",
         "input_schema": {"type": "object", "properties": {"xs": {"type": "array",
           "items": {"type": "integer"}}}},
         "node_defs": [{"name": "t", "outcomes": ["ok"],
           "input_schema": {"type": "object", "properties": {"v": {}}}, "output_schema": {}}],
         "nodes": [{"id": "xs", "type": "foreach", "over": "input.xs", "as": "x"},
           {"id": "use", "type": "node", "node": "t",
            "input": [{"target": "v", "path": "context.foreach.xs.index"}]}],
         "edges": [{"from": "xs", "outcome": "loop", "to": "use"},
           {"from": "use", "outcome": "ok", "to": "xs"},
           {"from": "xs", "outcome": "done", "to": "__end__"}]}
        """,
        """
        {"name": "j", "start": "xs",
         "input_schema": {"type": "object", "properties": {"xs": {"type": "array",
           "items": {"type": "integer"}}}},
         "node_defs": [{"name": "t", "outcomes": ["ok"],
           "input_schema": {"type": "object", "properties": {"v": {}}}, "output_schema": {}}],
         "nodes": [{"id": "xs", "type": "foreach", "over": "input.xs"«: integer», "as": "x"},
           {"id": "use", "type": "node", "node": "t",
            "input": [{"target": "v", "path": "context.foreach.xs.index"«: integer»}]}],
         "edges": [{"from": "xs", "outcome": "loop", "to": "use"},
           {"from": "use", "outcome": "ok", "to": "xs"},
           {"from": "xs", "outcome": "done", "to": "__end__"}]}
        """,
    )


def test_settings_choose_the_hints() -> None:
    settings, problems = parse_settings({"inlayHints": {"ownerStacks": True, "pathTypes": False}})
    assert problems == []
    assert (settings.inlay_item_types, settings.inlay_path_types, settings.inlay_owner_stacks) == (
        True,
        False,
        True,
    )
    flat, _ = parse_settings({"inlayHints.itemTypes": False})
    assert flat.inlay_item_types is False
    bad, problems = parse_settings({"inlayHints": {"itemTypes": "no"}, "inlayHints.pathTypes": 1})
    assert (bad.inlay_item_types, bad.inlay_path_types) == (True, True)
    assert problems == [
        "inlayHints.itemTypes must be true or false, not 'no'",
        "inlayHints.pathTypes must be true or false, not 1",
    ]


def test_while_typing_in_a_path_the_hints_follow_the_edit() -> None:
    """The version after a keystroke, made from the last one's analysis
    (``wf_core.base.derived``), answers as a fresh analysis of its text does."""
    from wf_core.base.derived import Derivations
    from wf_core.documents.parser import DocumentParser
    from wf_core.version.snapshot import DocumentSnapshot

    parser, derived = DocumentParser("toml"), Derivations()

    text, _ = parse(WORKFLOW)
    base = DocumentSnapshot(parser.parse(text), derived=derived)
    base.issues  # noqa: B018 - the analysed version an editor has
    base.index.complete()
    typed = text.replace('"context.customer.name"', '"context.customer.orders"')
    edited = DocumentSnapshot(parser.parse(typed), derived=derived)  # made from the last
    shown = [(h.offset, h.label) for h in inlay_hints(edited)]
    assert shown == [(h.offset, h.label) for h in inlay_hints(analyze(typed))]
    after = typed.index('"context.customer.orders"') + len('"context.customer.orders"')
    assert (after, ": array<object>") in shown
