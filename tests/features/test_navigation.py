"""Hover and go to definition, data-driven: a fixture with ``$0`` and the expected answer."""

from __future__ import annotations

from pathlib import Path

from tests.features.fixture import cursor, expected, mark
from wfls.features.definition import definition
from wfls.features.hover import hover

BILLING = (Path(__file__).parents[2] / "examples" / "billing.wf.toml").read_text()


def at(text: str, needle: str, shift: int = 0) -> str:
    index = text.index(needle) + shift
    return text[:index] + "$0" + text[index:]


def check_hover(fixture: str, covered: str, first_line: str) -> None:
    """The hover covers ``covered`` and its markdown starts with ``first_line``."""
    snapshot, offset = cursor(fixture)
    result = hover(snapshot, offset)
    assert result is not None
    assert snapshot.text[result.span.start : result.span.end] == covered
    assert result.markdown.splitlines()[0] == first_line


def check_definition(fixture: str, marked: str) -> None:
    snapshot, offset = cursor(fixture)
    targets = definition(snapshot, offset)
    assert targets, "a definition test needs a target"
    assert mark(snapshot.text, [t.span for t in targets]) == expected(marked)


def test_hover_on_a_dotted_foreach_id_in_a_path() -> None:
    check_hover(
        at(BILLING, '"orders.v2".item\'', 2),
        '"orders.v2"',
        "**foreach `orders.v2`**: the current iteration of this loop",
    )


ORDER_ITEM_SCHEMA = """item schema:
```json
{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "sku": {
      "type": "string"
    },
    "qty": {
      "type": "integer"
    }
  }
}
```"""


def test_a_loop_hovered_at_its_id_and_in_a_path_shows_its_item_schema() -> None:
    """The loop's own ``id`` value and its ``context.foreach."orders.v2"`` segment both
    say what the loop runs over and the schema of its items, from one function."""
    shown = []
    for fixture, covered in (
        (at(BILLING, 'id = "orders.v2"', 7), "orders.v2"),
        (at(BILLING, '"orders.v2".item\'', 2), '"orders.v2"'),
    ):
        snapshot, offset = cursor(fixture)
        result = hover(snapshot, offset)
        assert result is not None
        assert snapshot.text[result.span.start : result.span.end] == covered
        shown.append(result.markdown.split("\n\n"))
    at_id, in_path = shown
    loop = [
        "over: `context.foreach.customers.item.orders`",
        "alias: `order`",
        ORDER_ITEM_SCHEMA,
    ]
    assert at_id == [
        "**node `orders.v2`**: `foreach`",
        *loop,
        "outcomes: `loop`, `done`",
        "owner stack: `customers`",
    ]
    assert in_path == [
        "**foreach `orders.v2`**: the current iteration of this loop",
        *loop,
        "owner stack here: `customers` > `orders.v2`",
    ]


def test_hover_on_a_member_through_a_ref() -> None:
    check_hover(
        at(BILLING, "customers.item.name", 16),
        "name",
        "**context.foreach.customers.item.name**: `string`",
    )


def test_hover_on_an_outcome_names_its_declaration_and_edges() -> None:
    snapshot, offset = cursor(at(BILLING, 'outcome = "ok", to = "orders.v2"', 11))
    result = hover(snapshot, offset)
    assert result is not None
    assert result.markdown == (
        "**outcome `ok`**: declared by node def `charge_order`\n\nedges: `charge` → `orders.v2`"
    )


def test_hover_on_a_node_type() -> None:
    check_hover(
        at(BILLING, 'type = "foreach"', 8),
        '"foreach"',
        "**`foreach`** node: loops over the list `over` reads: `loop` enters one item's body, "
        "a body edge back to the foreach returns the item, `done` leaves once every item is done "
        "(`completed_with_errors` too when `item_error` skips or collects); "
        "the body reads the item as `context.foreach.<id>.item`",
    )


def test_hover_on_a_binding_target_shows_the_node_def_property() -> None:
    check_hover(at(BILLING, 'target = "order"', 10), "order", "**order**: `object`")


def test_definition_of_a_dotted_id_segment() -> None:
    check_definition(
        at(BILLING, '"orders.v2".item\'', 3),
        BILLING.replace('id = "orders.v2"', 'id = "«orders.v2»"'),
    )


def test_definition_of_an_item_member_is_the_schema_property() -> None:
    check_definition(
        at(BILLING, "customers.item.name", 16),
        BILLING.replace("properties.name = {", "properties.«name» = {"),
    )


def test_definition_of_an_outcome_and_a_binding_target() -> None:
    check_definition(
        at(BILLING, 'outcome = "ok", to = "orders.v2"', 11),
        BILLING.replace('outcomes = ["ok"]\n\n[node_defs', 'outcomes = ["«ok»"]\n\n[node_defs'),
    )
    check_definition(
        at(BILLING, 'target = "order"', 10),
        BILLING.replace("properties = { order =", "properties = { «order» ="),
    )


def test_definition_of_loop_item_is_the_innermost_loop() -> None:
    text = BILLING.replace("'context.foreach.\"orders.v2\".item'", "'context.loop_item'")
    check_definition(
        at(text, "loop_item", 2),
        text.replace('[[nodes]]\nid = "orders.v2"', '[[nodes]]\nid = «"orders.v2"»'),
    )
