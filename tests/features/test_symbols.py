"""Document and workspace symbols, data-driven: the outline as indented text.

Each line is ``name [Kind] detail``; children are indented under their parent.
Every symbol's name range must lie inside its range, and the selected text must
be the name.
"""

from __future__ import annotations

from tests.features.fixture import analyze, expected, parse
from wfls.features.symbols import document_symbols, matches, workspace_symbols
from wfls.features.types import OutlineSymbol


def outline(text: str, symbols: tuple[OutlineSymbol, ...] | list[OutlineSymbol], depth=0) -> str:
    out = ""
    for symbol in symbols:
        assert symbol.span.start <= symbol.selection.start <= symbol.selection.end
        assert symbol.selection.end <= symbol.span.end
        assert text[symbol.selection.start : symbol.selection.end] in (symbol.name, "")
        detail = f" {symbol.detail}" if symbol.detail else ""
        out += f"{'  ' * depth}{symbol.name} [{symbol.kind}]{detail}\n"
        out += outline(text, symbol.children, depth + 1)
    return out


def check_document_symbols(fixture: str, tree: str) -> None:
    text, _ = parse(fixture)
    symbols = document_symbols(analyze(text))
    assert symbols, "a symbol test needs symbols"
    starts = [s.span.start for s in symbols]
    assert starts == sorted(starts), "top-level symbols are in document order"
    assert outline(text, symbols) == expected(tree)


def check_workspace_symbols(fixture: str, query: str, found: str) -> None:
    text, _ = parse(fixture)
    result = workspace_symbols(analyze(text).parsed, query)
    assert result, "a symbol test needs symbols"
    lines = "".join(f"{s.name} [{s.kind}] in {container}\n" for s, container in result)
    assert lines == expected(found)


BILLING = """
name = "billing"
start = "customers"
edges = [
  { from = "customers", outcome = "loop", to = "orders.v2" },
  { from = "orders.v2", outcome = "loop", to = "charge" },
  { from = "charge", outcome = "ok", to = "orders.v2" },
  { from = "orders.v2", outcome = "done", to = "customers" },
  { from = "customers", outcome = "done", to = "check" },
  { from = "check", outcome = "true", to = "__end__" },
  { from = "check", outcome = "false", to = "stop" },
]

[input_schema]
type = "object"
properties.customers = { type = "array", items = { type = "object", properties.name = {} } }

[state_schema]
type = "object"
properties.total = { type = "number" }

[[node_defs]]
name = "charge_order"
outcomes = ["ok", "declined"]
input_schema = { type = "object", properties = { order = { type = "object" } } }
output_schema = { type = "object" }

[[nodes]]
id = "customers"
type = "foreach"
over = "input.customers"
as = "customer"

[[nodes]]
id = "charge"
type = "node"
node = "charge_order"
input = [{ target = "order", path = 'context.foreach."orders.v2".item' }]

[[nodes]]
id = "orders.v2"
type = "foreach"
over = "context.foreach.customers.item.name"
as = "order"

[[nodes]]
id = "check"
type = "condition"
check = { op = "exists", path = "state.total" }

[[nodes]]
id = "stop"
type = "end"
outcome = "ok"

[[nodes]]
id = "orphan"
type = "join"
"""


def test_nodes_nest_under_the_loops_that_own_them() -> None:
    check_document_symbols(
        BILLING,
        """
        input_schema [Struct] object
          customers [Property] array<object>
            name [Property] any
        state_schema [Struct] object
          total [Property] number
        charge_order [Class] node def · outcomes ok, declined
          ok [EnumMember] outcome
          declined [EnumMember] outcome
          input_schema [Struct] object
            order [Property] object
          output_schema [Struct] object
        customers [Namespace] foreach over input.customers
          orders.v2 [Namespace] foreach over context.foreach.customers.item.name
            charge [Function] node charge_order
        check [Boolean] condition
        stop [Event] end ok
        orphan [Operator] join · unreachable
        """,
    )


def test_nested_properties_are_children() -> None:
    check_document_symbols(
        """
        name = "p"
        start = "x"

        [input_schema]
        type = "object"

        [input_schema.properties.customer]
        type = "object"
        properties.address = { type = "object", properties.city = { type = "string" } }

        [[nodes]]
        id = "x"
        type = "end"
        outcome = "ok"
        """,
        """
        input_schema [Struct] object
          customer [Property] object
            address [Property] object
              city [Property] string
        x [Event] end ok
        """,
    )


def test_properties_of_array_items_and_ref_targets_are_children_too() -> None:
    """Through ``items`` and ``$ref`` (into ``$defs``), as completion walks them; a schema
    that refers to itself is listed once more but not expanded again."""
    check_document_symbols(
        """
        name = "p"
        start = "x"

        [input_schema]
        type = "object"
        properties.customers = { type = "array", items = { "$ref" = "#/$defs/customer" } }
        properties.tree = { "$ref" = "#/$defs/node" }

        [input_schema."$defs".customer]
        type = "object"
        properties.name = { type = "string" }
        properties.orders = { type = "array", items = { "$ref" = "#/$defs/order" } }

        [input_schema."$defs".order]
        type = "object"
        allOf = [{ properties.sku = { type = "string" } }]
        properties.qty = { type = "integer" }

        [input_schema."$defs".node]
        type = "object"
        properties.children = { type = "array", items = { "$ref" = "#/$defs/node" } }

        [state_schema]
        type = "object"
        properties.totals = { type = "array", items = { properties.cents = { type = "integer" } } }

        [output_schema]
        type = "object"
        properties.report = { type = "object", properties.lines = { type = "array" } }

        [[node_defs]]
        name = "d"
        outcomes = ["ok"]
        output_schema = { type = "object" }

        [node_defs.input_schema]
        "$defs" = { a = { properties.b = {} } }
        properties.a = { "$ref" = "#/$defs/a" }

        [[nodes]]
        id = "x"
        type = "end"
        outcome = "ok"
        """,
        """
        input_schema [Struct] object
          customers [Property] array<object>
            name [Property] string
            orders [Property] array<object>
              qty [Property] integer
              sku [Property] string
          tree [Property] object
            children [Property] array<object>
        state_schema [Struct] object
          totals [Property] array<object>
            cents [Property] integer
        output_schema [Struct] object
          report [Property] object
            lines [Property] array<any>
        d [Class] node def · outcomes ok
          ok [EnumMember] outcome
          input_schema [Struct] object
            a [Property] object
              b [Property] any
          output_schema [Struct] object
        x [Event] end ok
        """,
    )


def test_a_node_reached_under_two_loops_stays_at_the_top_level() -> None:
    check_document_symbols(
        """
        {"name": "c", "start": "a",
         "input_schema": {"type": "object", "properties": {"xs": {"type": "array"}}},
         "nodes": [
          {"id": "a", "type": "foreach", "over": "input.xs", "as": "x"},
          {"id": "b", "type": "foreach", "over": "input.xs", "as": "y"},
          {"id": "shared", "type": "join"}],
         "edges": [
          {"from": "a", "outcome": "loop", "to": "shared"},
          {"from": "a", "outcome": "done", "to": "b"},
          {"from": "b", "outcome": "loop", "to": "shared"},
          {"from": "b", "outcome": "done", "to": "__end__"},
          {"from": "shared", "outcome": "done", "to": "__end__"}]}
        """,
        """
        input_schema [Struct] object
          xs [Property] array<any>
        a [Namespace] foreach over input.xs
        b [Namespace] foreach over input.xs
        shared [Operator] join · reached under two foreach regions
        """,
    )


def test_a_broken_document_still_has_an_outline() -> None:
    check_document_symbols(
        """
        name = "b"
        start = "a"

        [[nodes]]
        id = "a"
        type = "foreach"
        over = "input.

        [[nodes]]
        type = "node"
        """,
        """
        a [Namespace] foreach over input. · not analysed: it has errors
        nodes[1] [Function] node · not analysed: it has errors
        """,
    )


def test_workspace_symbols_match_a_subsequence_ignoring_case() -> None:
    check_workspace_symbols(
        BILLING,
        "CRG",
        """
        charge [Function] in billing
        charge_order [Class] in billing
        """,
    )
    check_workspace_symbols(
        BILLING,
        "",
        """
        billing [Package] in None
        customers [Namespace] in billing
        charge [Function] in billing
        orders.v2 [Namespace] in billing
        check [Boolean] in billing
        stop [Event] in billing
        orphan [Operator] in billing
        charge_order [Class] in billing
        """,
    )


def test_matching() -> None:
    assert matches("cso", "charge_order") is False
    assert matches("cho", "charge_order")
    assert matches("", "anything")
    assert not matches("xyz", "xy")
