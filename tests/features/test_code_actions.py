"""Code actions, data-driven: a fixture with ``$0`` on a diagnostic, the action's title,
the document after applying it; in TOML and in JSON."""

from __future__ import annotations

import json
import tomllib
from typing import Any

import pytest
from inline_snapshot import snapshot

from tests.features.fixture import analyze, apply, check_edited, cursor, errors, expected
from wf_core.base.spans import Span
from wfls.features.code_actions import code_actions, resolve_code_action
from wfls.features.types import MIGRATE_CONVENIENCE_KEYS, QUICK_FIX, CodeAction

TOML = """
name = "q"
start = "customers"
edges = [
  { from = "customers", outcome = "loop", to = "orders" },
  { from = "orders", outcome = "loop", to = "charge" },
  { from = "charge", outcome = "ok", to = "orders" },
  { from = "orders", outcome = "done", to = "customers" },
  { from = "customers", outcome = "done", to = "__end__" },
]

[input_schema]
type = "object"
properties.customers = { type = "array", items = { "$ref" = "#/$defs/customer" } }

[input_schema."$defs".customer]
type = "object"
properties.name = { type = "string" }
properties.orders = { type = "array", items = { "$ref" = "#/$defs/order" } }

[input_schema."$defs".order]
type = "object"
properties.sku = { type = "string" }

[[node_defs]]
name = "charge_order"
outcomes = ["ok"]
input_schema = { type = "object", properties = { sku = {}, name = {} } }
output_schema = { type = "object" }

[[nodes]]
id = "customers"
type = "foreach"
over = "input.customers"
as = "customer"

[[nodes]]
id = "orders"
type = "foreach"
over = "context.foreach.customers.item.orders"
as = "order"

[[nodes]]
id = "charge"
type = "node"
node = "charge_order"
input = [
  { target = "sku", path = "context.foreach.orders.item.sku" },
  { target = "name", path = "context.foreach.customers.item.name" },
]
"""

JSON = json.dumps(tomllib.loads(expected(TOML)), indent=2) + "\n"


def variant(base: str, old: str, new: str) -> str:
    """``base`` with ``old`` (which must be there) replaced by ``new``: its first
    occurrence when ``new`` holds the cursor, otherwise every one."""
    text = expected(base)
    assert old in text, old
    return text.replace(old, new, 1 if "$0" in new else -1)


def actions_at(fixture: str, *, lazy: bool = False) -> tuple[object, list[CodeAction]]:
    snapshot, offset = cursor(fixture)
    return snapshot, code_actions(snapshot, Span(offset, offset), lazy=lazy)


def check_code_action(
    fixture: str,
    title: str,
    after: Any,
    *,
    preferred: bool | None = None,
    new_errors: bool = False,
) -> None:
    """The action titled ``title`` at ``$0`` turns the document into ``after``, fixes
    the diagnostics it is attached to and brings no new error (``new_errors``: the fix
    wires a node in, whose own missing edges then count)."""
    snapshot, actions = actions_at(fixture)
    titles = [a.title for a in actions]
    assert title in titles, titles
    action = next(a for a in actions if a.title == title)
    assert action.edits
    if preferred is not None:
        assert action.preferred is preferred
    text = apply(snapshot.text, [(e.span, e.new_text) for e in action.edits])
    check_edited(snapshot.text, text, after)
    fixed = analyze(text)
    assert all(i.code != "syntax_error" for i in fixed.issues)
    still = {(i.code, i.message) for i in fixed.issues}
    assert action.kind == MIGRATE_CONVENIENCE_KEYS or action.issues
    assert not [i for i in action.issues if (i.code, i.message) in still]
    if not new_errors:
        assert set(errors(fixed)) <= set(errors(snapshot))
    # Lazily: the same action, its edits computed on resolve.
    _, lazy_actions = actions_at(fixture, lazy=True)
    lazy = next(a for a in lazy_actions if a.title == title)
    if lazy.edits is None:
        assert lazy.data is not None
        assert resolve_code_action(snapshot, lazy.data) == action.edits
    else:
        assert lazy.edits == action.edits


def check_no_action(fixture: str, title_part: str) -> None:
    """No action titled with ``title_part`` at ``$0``, nor anywhere in the document."""
    snapshot, actions = actions_at(fixture)
    everywhere = code_actions(snapshot, Span(0, len(snapshot.text)))
    assert everywhere, "a test of a missing action still needs other actions there"
    assert not [a.title for a in [*actions, *everywhere] if title_part in a.title]


# -- convenience keys ------------------------------------------------------------------


@pytest.mark.parametrize("base", [TOML, JSON], ids=["toml", "json"])
def test_loop_item_becomes_its_structured_path(base: str) -> None:
    fixture = variant(base, "context.foreach.orders.item.sku", "context.loop_$0item.sku")
    check_code_action(
        fixture, "Read 'context.foreach.orders.item.sku'", expected(base), preferred=True
    )


@pytest.mark.parametrize("base", [TOML, JSON], ids=["toml", "json"])
def test_an_alias_read_becomes_its_structured_path(base: str) -> None:
    fixture = variant(base, "context.foreach.customers.item.name", "context.custo$0mer.name")
    check_code_action(fixture, "Read 'context.foreach.customers.item.name'", expected(base))


def test_loop_index_of_a_dotted_id_is_written_as_a_literal_string() -> None:
    text = variant(TOML, '"orders"', '"orders.v2"').replace(
        "context.foreach.orders.item.sku", 'context.foreach.\\"orders.v2\\".item.sku'
    )
    text = variant(
        text, '  { target = "name", path = "context.foreach.customers.item.name" },\n', ""
    )
    fixture = variant(text, 'context.foreach.\\"orders.v2\\".item.sku', "context.loop_$0index")
    check_code_action(
        fixture,
        "Read 'context.foreach.\"orders.v2\".index'",
        snapshot(
            [
                '-   { target = "sku", path = "context.loop_index" },',
                '+   { target = "sku", path = \'context.foreach."orders.v2".index\' },',
            ]
        ),
    )


@pytest.mark.parametrize("base", [TOML, JSON], ids=["toml", "json"])
def test_migrate_convenience_keys_rewrites_every_one(base: str) -> None:
    text = variant(base, "context.foreach.orders.item.sku", "context.loop_item.sku")
    text = variant(text, "context.foreach.customers.item.name", "context.customer.name")
    fixture = "$0" + text
    check_code_action(fixture, "Migrate convenience keys", expected(base))
    _, actions = actions_at(fixture)
    migration = next(a for a in actions if a.title == "Migrate convenience keys")
    assert migration.kind == MIGRATE_CONVENIENCE_KEYS
    assert len(migration.edits or ()) == 2


def test_no_migration_without_convenience_keys() -> None:
    fixture = variant(
        TOML, '"context.foreach.orders.item.sku"', '"context.foreach.orders.item.s$0kuu"'
    )
    check_no_action(fixture, "Migrate")


# -- closest names ---------------------------------------------------------------------


NAME_TYPOS = [
    # (old text, the same with a typo and the cursor, the title's change)
    ("context.foreach.orders.item.sku", "context.foreach.orders.item.s$0kuu", "'skuu' to 'sku'"),
    (
        "context.foreach.customers.item",
        "context.foreach.custo$0mer.item",
        "'customer' to 'customers'",
    ),
    ('"customers"', '"cust$0omerz"', "'customerz' to 'customers'"),
]
TOML_NAME_TYPOS = [
    ('node = "charge_order"', 'node = "charge_$0ordr"', "'charge_ordr' to 'charge_order'"),
    ('to = "charge"', 'to = "char$0ge2"', "'charge2' to 'charge'"),
    ('outcome = "loop", to = "charge"', 'outcome = "lo$0p", to = "charge"', "'lop' to 'loop'"),
]
JSON_NAME_TYPOS = [
    ('"node": "charge_order"', '"node": "charge_$0ordr"', "'charge_ordr' to 'charge_order'"),
    ('"to": "charge"', '"to": "char$0ge2"', "'charge2' to 'charge'"),
    (
        '"outcome": "loop",\n      "to": "charge"',
        '"outcome": "lo$0p",\n      "to": "charge"',
        "'lop' to 'loop'",
    ),
]


@pytest.mark.parametrize(
    ("base", "old", "typo", "title"),
    [
        *[(TOML, *case) for case in NAME_TYPOS + TOML_NAME_TYPOS],
        *[(JSON, *case) for case in NAME_TYPOS + JSON_NAME_TYPOS],
    ],
    ids=[f"toml-{c[2]}" for c in NAME_TYPOS + TOML_NAME_TYPOS]
    + [f"json-{c[2]}" for c in NAME_TYPOS + JSON_NAME_TYPOS],
)
def test_an_unknown_name_becomes_the_closest_declared_one(
    base: str, old: str, typo: str, title: str
) -> None:
    fixture = variant(base, old, typo)
    check_code_action(fixture, f"Change {title}", expected(base), preferred=True)


def test_a_closest_member_is_formatted_for_the_path() -> None:
    text = variant(TOML, 'sku = { type = "string" }', '"sku.v2" = { type = "string" }')
    text = variant(
        text, '"context.foreach.orders.item.sku"', "'context.foreach.orders.item.\"sku.v2\"'"
    )
    fixture = variant(
        text, "'context.foreach.orders.item.\"sku.v2\"'", "'context.foreach.orders.item.sku_$0v2'"
    )
    check_code_action(
        fixture,
        "Change 'sku_v2' to 'sku.v2'",
        snapshot(
            [
                "-   { target = \"sku\", path = 'context.foreach.orders.item.sku_v2' },",
                '+   { target = "sku", path = \'context.foreach.orders.item."sku.v2"\' },',
            ]
        ),
    )


@pytest.mark.parametrize("base", [TOML, JSON], ids=["toml", "json"])
def test_an_unknown_context_segment_is_renamed_only_to_a_name_the_rest_fits(base: str) -> None:
    # "ordr.sku": the alias 'order' is close and its item has a 'sku'
    fixture = variant(base, "context.foreach.orders.item.sku", "context.or$0dr.sku")
    after = variant(base, "context.foreach.orders.item.sku", "context.order.sku")
    check_code_action(fixture, "Change 'ordr' to 'order'", after)
    # (a convenience key elsewhere, so that the document has some action to offer)
    other = variant(base, "context.foreach.customers.item.name", "context.customer.name")
    # "custmer.sku": the alias 'customer' is closest, but a customer has no 'sku'
    fixture = variant(other, "context.foreach.orders.item.sku", "context.cust$0mer.sku")
    check_no_action(fixture, "Change 'custmer'")
    # "line.sku": the standard field 'lineage_id' starts alike, but it is a string
    fixture = variant(other, "context.foreach.orders.item.sku", "context.li$0ne.sku")
    check_no_action(fixture, "Change 'line'")


@pytest.mark.parametrize("base", [TOML, JSON], ids=["toml", "json"])
def test_an_unknown_key_is_renamed_to_the_closest_one(base: str) -> None:
    key = '"as"' if base is JSON else "as ="
    fixture = variant(base, key, key.replace("as", "a$0ss"))
    check_code_action(fixture, "Rename key 'ass' to 'as'", expected(base), preferred=True)


# -- unknown keys ----------------------------------------------------------------------


def test_an_unknown_key_on_its_own_line_is_removed() -> None:
    fixture = variant(TOML, 'node = "charge_order"\n', 'node = "charge_order"\ncol$0our = "red"\n')
    check_code_action(
        fixture, "Remove the key 'colour'", snapshot(['- colour = "red"']), preferred=False
    )


def test_an_unknown_key_in_an_inline_table_is_removed_with_its_comma() -> None:
    fixture = variant(TOML, '{ from = "charge", outcome', '{ from = "charge", no$0te = 1, outcome')
    check_code_action(
        fixture,
        "Remove the key 'note'",
        snapshot(
            [
                '-   { from = "charge", note = 1, outcome = "ok", to = "orders" },',
                '+   { from = "charge", outcome = "ok", to = "orders" },',
            ]
        ),
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"node": "charge_order",', '"node": "charge_order",\n      "col$0our": "red",'),
        ('"as": "order"', '"as": "order",\n      "col$0our": "red"'),
        ('"outcome": "loop",', '"outcome": "loop", "no$0te": 1,'),
    ],
    ids=["middle", "last", "inline"],
)
def test_an_unknown_json_key_is_removed_with_the_right_comma(old: str, new: str) -> None:
    fixture = variant(JSON, old, new)
    title = "Remove the key 'colour'" if "col$0our" in new else "Remove the key 'note'"
    check_code_action(fixture, title, JSON)


# -- quoting ---------------------------------------------------------------------------


@pytest.mark.parametrize("base", [TOML, JSON], ids=["toml", "json"])
def test_a_segment_that_needs_quotes_is_quoted(base: str) -> None:
    schema = 'properties.sku = { type = "string" }' if base is TOML else '"sku": {\n'
    quoted = (
        'properties.sku = { type = "string" }\nproperties."skü" = { type = "string" }'
        if base is TOML
        else '"skü": {"type": "string"},\n                        "sku": {\n'
    )
    text = variant(base, schema, quoted)
    fixture = variant(text, "context.foreach.orders.item.sku", "context.foreach.orders.item.sk$0ü")
    if base is TOML:
        after = variant(
            text, '"context.foreach.orders.item.sku"', "'context.foreach.orders.item.\"skü\"'"
        )
        title = "Quote the path: 'context.foreach.orders.item.\"skü\"'"
    else:
        after = variant(
            text, "context.foreach.orders.item.sku", 'context.foreach.orders.item.\\"skü\\"'
        )
        title = "Quote the path: 'context.foreach.orders.item.\"skü\"'"
    check_code_action(fixture, title, after, preferred=True)


DOTTED = expected(TOML).replace('"orders"', '"orders.v2"')
DOTTED_JSON = json.dumps(tomllib.loads(DOTTED), indent=2) + "\n"
QUOTED = 'context.foreach."orders.v2".item.sku'


def help_at(fixture: str) -> str | None:
    snapshot, offset = cursor(fixture)
    [issue] = [i for i in snapshot.issues if i.span.start <= offset <= i.span.end]
    assert issue.code == "invalid_context_path"
    assert "unknown segment 'orders' (available: customers,orders.v2)" in issue.message
    return issue.help


@pytest.mark.parametrize("base", [DOTTED, DOTTED_JSON], ids=["toml", "json"])
def test_a_dotted_loop_id_read_unquoted_is_quoted(base: str) -> None:
    path = "context.foreach.orders.item.sku"
    fixture = variant(base, path, "context.foreach.ord$0ers.v2.item.sku")
    assert help_at(fixture) == (
        f"the loop id 'orders.v2' contains a dot and must be quoted: write {QUOTED}"
    )
    if base is DOTTED:  # into a literal string: no escaping
        after = variant(base, f'"{path}"', f"'{QUOTED}'")
    else:
        after = variant(base, path, QUOTED.replace('"', '\\"'))
    check_code_action(fixture, f"Quote 'orders.v2': {QUOTED!r}", after, preferred=True)


def test_a_dotted_alias_read_unquoted_is_quoted() -> None:
    text = variant(DOTTED, 'as = "order"', 'as = "order.v2"')
    fixture = variant(text, "context.foreach.orders.item.sku", "context.ord$0er.v2.sku")
    analysed, offset = cursor(fixture)
    [issue] = [i for i in analysed.issues if i.span.start <= offset <= i.span.end]
    assert issue.help == (
        "the alias 'order.v2' contains a dot and must be quoted: write context.\"order.v2\".sku"
    )
    check_code_action(
        fixture,
        "Quote 'order.v2': 'context.\"order.v2\".sku'",
        snapshot(
            [
                '-   { target = "sku", path = "context.order.v2.sku" },',
                '+   { target = "sku", path = \'context."order.v2".sku\' },',
            ]
        ),
    )


def test_a_dotted_loop_id_is_only_explained_when_the_rest_of_the_path_is_wrong_too() -> None:
    fixture = variant(
        DOTTED, "context.foreach.orders.item.sku", "context.foreach.ord$0ers.v2.item.skuu"
    )
    written = 'context.foreach."orders.v2".item.skuu'
    assert help_at(fixture) == (
        f"the loop id 'orders.v2' contains a dot and must be quoted: write {written}"
    )
    check_no_action(variant(fixture, 'as = "order"', 'as = "order"\ncolour = "red"'), "Quote")


# -- aliases ---------------------------------------------------------------------------


@pytest.mark.parametrize("base", [TOML, JSON], ids=["toml", "json"])
def test_a_conflicting_alias_is_renamed_with_its_reads(base: str) -> None:
    alias = '"as": "order"' if base is JSON else 'as = "order"'
    text = variant(base, "context.foreach.orders.item.sku", "context.customer.sku")
    fixture = variant(text, alias, alias.replace('"order"', '"cust$0omer"'))
    after = variant(text, "context.customer.sku", "context.order.sku")
    check_code_action(fixture, "Rename alias 'customer' to 'order'", after, preferred=True)
    _, lazy = actions_at(fixture, lazy=True)
    action = next(a for a in lazy if a.title.startswith("Rename alias"))
    assert action.edits is None
    assert action.data == {"fix": "alias", "owner": "orders", "alias": "order"}


def test_a_free_alias_avoids_every_co_active_alias() -> None:
    # ``order`` (derived from the id) is taken by the outer loop: ``customer_2`` it is.
    text = variant(TOML, 'as = "customer"', 'as = "order"')
    fixture = variant(
        text,
        'as = "order"\n\n[[nodes]]\nid = "charge"',
        'as = "ord$0er"\n\n[[nodes]]\nid = "charge"',
    )
    check_code_action(
        fixture,
        "Rename alias 'order' to 'order_2'",
        snapshot(['- as = "order"', '+ as = "order_2"']),
    )


def test_a_reserved_alias_is_replaced() -> None:
    fixture = variant(TOML, 'as = "order"', 'as = "loop_$0item"')
    check_code_action(
        fixture,
        "Rename alias 'loop_item' to 'order'",
        snapshot(['- as = "loop_item"', '+ as = "order"']),
    )


# -- edges -----------------------------------------------------------------------------


TWO_OUTCOMES = variant(TOML, 'outcomes = ["ok"]', 'outcomes = ["ok", "retry"]')


@pytest.mark.parametrize("syntax", ["toml", "json"])
def test_missing_outcome_edges_get_stubs_back_to_the_loop(syntax: str) -> None:
    text = TWO_OUTCOMES
    if syntax == "json":
        text = json.dumps(tomllib.loads(text), indent=2) + "\n"
    fixture = (
        variant(text, '"id": "charge"', '"id": "cha$0rge"')
        if syntax == "json"
        else variant(text, 'id = "charge"', 'id = "cha$0rge"')
    )
    if syntax == "toml":
        after = variant(
            text,
            '  { from = "customers", outcome = "done", to = "__end__" },\n',
            '  { from = "customers", outcome = "done", to = "__end__" },\n'
            '  { from = "charge", outcome = "retry", to = "orders" },\n',
        )
    else:
        after = variant(
            text,
            '      "to": "__end__"\n    }\n  ],',
            '      "to": "__end__"\n    },\n'
            '    {"from": "charge", "outcome": "retry", "to": "orders"}\n  ],',
        )
    check_code_action(
        fixture, "Add edge for outcome 'retry' to 'orders' (set the target)", after, preferred=False
    )


SUMMARY = """
[[nodes]]
id = "summary"
type = "node"
node = "charge_order"
input = [{ target = "name", path = "input.customers" }]
"""


def test_missing_outcome_edges_of_a_top_level_node_lead_to_the_end() -> None:
    text = variant(
        TWO_OUTCOMES, 'outcome = "done", to = "__end__"', 'outcome = "done", to = "summary"'
    )
    text = variant(
        text,
        "]\n\n[input_schema]",
        '  { from = "summary", outcome = "ok", to = "__end__" },\n]\n\n[input_schema]',
    )
    text = variant(
        text,
        '{ from = "charge", outcome = "ok", to = "orders" },',
        '{ from = "charge", outcome = "ok", to = "orders" },\n'
        '  { from = "charge", outcome = "retry", to = "orders" },',
    )
    text += expected(SUMMARY)
    fixture = variant(text, 'id = "summary"', 'id = "sum$0mary"')
    check_code_action(
        fixture,
        "Add edge for outcome 'retry' to '__end__' (set the target)",
        snapshot(['+   { from = "summary", outcome = "retry", to = "__end__" },']),
    )


def test_edge_stubs_in_a_one_line_array_and_in_array_tables() -> None:
    text = variant(TWO_OUTCOMES, "edges = [\n", "edges = [")
    text = text.replace(" },\n  {", " }, {").replace(" },\n]", " }]")
    fixture = variant(text, 'id = "charge"', 'id = "cha$0rge"')
    check_code_action(
        fixture,
        "Add edge for outcome 'retry' to 'orders' (set the target)",
        snapshot(
            [
                '- edges = [  { from = "customers", outcome = "loop", to = "orders" }, { from = "orders", outcome = "loop", to = "charge" }, { from = "charge", outcome = "ok", to = "orders" }, { from = "orders", outcome = "done", to = "customers" }, { from = "customers", outcome = "done", to = "__end__" }]',
                '+ edges = [  { from = "customers", outcome = "loop", to = "orders" }, { from = "orders", outcome = "loop", to = "charge" }, { from = "charge", outcome = "ok", to = "orders" }, { from = "orders", outcome = "done", to = "customers" }, { from = "customers", outcome = "done", to = "__end__" }, { from = "charge", outcome = "retry", to = "orders" }]',
            ]
        ),
    )
    data = tomllib.loads(TWO_OUTCOMES)
    tables = "".join(
        f'\n[[edges]]\nfrom = "{e["from"]}"\noutcome = "{e["outcome"]}"\nto = "{e["to"]}"\n'
        for e in data["edges"]
    )
    text = (
        variant(
            TWO_OUTCOMES,
            TWO_OUTCOMES[TWO_OUTCOMES.index("edges = [") : TWO_OUTCOMES.index("[input_schema]")],
            "",
        )
        + tables
    )
    fixture = variant(text, 'id = "charge"', 'id = "cha$0rge"')
    text + '\n[[edges]]\nfrom = "charge"\noutcome = "retry"\nto = "orders"\n'
    check_code_action(
        fixture,
        "Add edge for outcome 'retry' to 'orders' (set the target)",
        snapshot(
            ["+ ", "+ [[edges]]", '+ from = "charge"', '+ outcome = "retry"', '+ to = "orders"']
        ),
    )


@pytest.mark.parametrize("base", [TOML, JSON], ids=["toml", "json"])
def test_an_unreachable_node_is_wired_from_a_node_with_an_unwired_outcome(base: str) -> None:
    if base is TOML:
        text = variant(TOML, '  { from = "customers", outcome = "done", to = "__end__" },\n', "")
        text += expected(SUMMARY)
        fixture = variant(text, 'id = "summary"', 'id = "sum$0mary"')
        after = variant(
            text,
            '  { from = "orders", outcome = "done", to = "customers" },\n',
            '  { from = "orders", outcome = "done", to = "customers" },\n'
            '  { from = "customers", outcome = "done", to = "summary" },\n',
        )
    else:
        data = tomllib.loads(expected(TOML) + expected(SUMMARY))
        data["edges"].pop()
        text = json.dumps(data, indent=2) + "\n"
        fixture = variant(text, '"id": "summary"', '"id": "sum$0mary"')
        after = variant(
            text,
            '      "to": "customers"\n    }\n  ],',
            '      "to": "customers"\n    },\n'
            '    {"from": "customers", "outcome": "done", "to": "summary"}\n  ],',
        )
    check_code_action(
        fixture,
        "Add an edge from 'customers' (outcome 'done') to 'summary'",
        after,
        new_errors=True,
    )


def test_an_unreachable_end_node_is_not_wired_from_inside_a_loop_body() -> None:
    """The nearest node with a free outcome is ``charge``, in the body of ``orders``: an
    edge from it to an ``end`` node would be ``invalid_foreach_terminal``."""
    text = variant(
        TWO_OUTCOMES, 'outcome = "done", to = "__end__"', 'outcome = "done", to = "summary"'
    )
    text = variant(
        text,
        "]\n\n[input_schema]",
        '  { from = "summary", outcome = "ok", to = "__end__" },\n]\n\n[input_schema]',
    )
    text += '\n[[nodes]]\nid = "stop"\ntype = "end"\n' + expected(SUMMARY)
    fixture = variant(text, 'id = "stop"', 'id = "st$0op"')
    check_no_action(fixture, "Add an edge from 'charge'")
    check_code_action(
        fixture,
        "Add an edge from 'summary' (outcome 'retry') to 'stop'",
        snapshot(['+   { from = "summary", outcome = "retry", to = "stop" },']),
    )


def test_an_unreachable_body_node_is_wired_only_where_its_reads_resolve() -> None:
    """``audit`` reads the item of ``orders`` and returns to it: of the nodes with a free
    outcome, only the one inside the body of ``orders`` can lead into it."""
    text = variant(
        TWO_OUTCOMES, 'outcome = "done", to = "__end__"', 'outcome = "done", to = "summary"'
    )
    text = variant(
        text,
        "]\n\n[input_schema]",
        '  { from = "summary", outcome = "ok", to = "__end__" },\n'
        '  { from = "audit", outcome = "ok", to = "orders" },\n'
        '  { from = "audit", outcome = "retry", to = "orders" },\n]\n\n[input_schema]',
    )
    audit = (
        '\n[[nodes]]\nid = "audit"\ntype = "node"\nnode = "charge_order"\n'
        'input = [{ target = "sku", path = "context.foreach.orders.item.sku" }]\n'
    )
    text += expected(SUMMARY) + audit
    fixture = variant(text, 'id = "audit"', 'id = "au$0dit"')
    check_no_action(fixture, "Add an edge from 'summary'")
    check_code_action(
        fixture,
        "Add an edge from 'charge' (outcome 'retry') to 'audit'",
        snapshot(['+   { from = "charge", outcome = "retry", to = "audit" },']),
    )


# -- deprecated forms ------------------------------------------------------------------


@pytest.mark.parametrize("base", [TOML, JSON], ids=["toml", "json"])
def test_a_deprecated_in_map_becomes_input_bindings(base: str) -> None:
    if base is TOML:
        old = expected(TOML)[expected(TOML).index('input = [\n  { target = "sku"') :]
        fixture = variant(
            TOML,
            old,
            'in_map = { "context.foreach.orders.item.sku" = "sku", '
            '$0"context.foreach.customers.item.name" = "name" }\n',
        )
    else:
        start = JSON.index('"input": [\n        {\n          "target": "sku"')
        end = JSON.index("]", start) + 1
        old = JSON[start:end]
        fixture = variant(
            JSON,
            old,
            '"in_map": {"context.foreach.orders.item.sku": "sku", '
            '$0"context.foreach.customers.item.name": "name"}',
        )
    if base is TOML:
        after = expected(TOML)  # the bindings as they were written before
    else:
        after = variant(
            JSON,
            old,
            '"input": [\n'
            '        {"target": "sku", "path": "context.foreach.orders.item.sku"},\n'
            '        {"target": "name", "path": "context.foreach.customers.item.name"}\n'
            "      ]",
        )
    check_code_action(fixture, "Replace 'in_map' with 'input'", after, preferred=True)


def test_a_deprecated_on_item_error_becomes_item_error() -> None:
    text = variant(TOML, 'as = "order"\n', 'as = "order"\nitem_error = { action = "skip" }\n')
    text = variant(
        text,
        '  { from = "orders", outcome = "done", to = "customers" },\n',
        '  { from = "orders", outcome = "done", to = "customers" },\n'
        '  { from = "orders", outcome = "completed_with_errors", to = "customers" },\n',
    )
    fixture = variant(text, 'item_error = { action = "skip" }', 'on_item_error = "sk$0ip"')
    check_code_action(
        fixture,
        "Replace 'on_item_error' with 'item_error'",
        snapshot(['- on_item_error = "skip"', '+ item_error = { action = "skip" }']),
    )


def test_no_deprecated_form_fix_when_the_canonical_key_is_there() -> None:
    text = variant(TOML, 'as = "order"\n', 'as = "order"\ncolour = "red"\n')
    fixture = variant(
        text,
        'node = "charge_order"\n',
        'node = "charge_order"\nin_map = { $0"input.customers" = "name" }\n',
    )
    check_no_action(fixture, "Replace 'in_map'")


# -- attachment ------------------------------------------------------------------------


def test_actions_are_attached_to_their_diagnostics_and_preferred_where_clear() -> None:
    text = variant(TOML, "context.foreach.orders.item.sku", "context.loop_item.sku")
    text = variant(text, 'as = "order"', 'as = "order"\ncolour = "red"')
    snapshot = analyze(text)
    actions = code_actions(snapshot, Span(0, len(text)))
    summary = [(a.title, a.kind, a.preferred, [i.code for i in a.issues]) for a in actions]
    assert summary == [
        ("Remove the key 'colour'", QUICK_FIX, False, ["unknown_key"]),
        (
            "Read 'context.foreach.orders.item.sku'",
            QUICK_FIX,
            True,
            ["deprecated_context_key"],
        ),
        ("Migrate convenience keys", MIGRATE_CONVENIENCE_KEYS, False, []),
    ]
    # Only the issues the range touches, and only the kinds asked for.
    at_key = text.index("colour")
    assert [a.title for a in code_actions(snapshot, Span(at_key, at_key))] == [
        "Remove the key 'colour'",
        "Migrate convenience keys",
    ]
    assert [a.title for a in code_actions(snapshot, Span(at_key, at_key), only=["source"])] == [
        "Migrate convenience keys"
    ]
    assert [a.title for a in code_actions(snapshot, Span(at_key, at_key), only=["quickfix"])] == [
        "Remove the key 'colour'"
    ]
    # A diagnostic the settings hide gets no fix.
    hidden = code_actions(
        snapshot, Span(0, len(text)), shown=lambda issue: issue.code != "unknown_key"
    )
    assert "Remove the key 'colour'" not in [a.title for a in hidden]


def test_the_code_reference_mentions_every_quick_fix_its_examples_get() -> None:
    from wf_core.validation.codes import CODES

    fixed = set()
    for info in CODES.values():
        if not info.analyzed:
            continue
        snapshot = analyze(info.example or "")
        for action in code_actions(snapshot, Span(0, len(snapshot.text))):
            fixed.update(i.code for i in action.issues if i.code == info.code)
    assert len(fixed) >= 15
    assert [c for c in sorted(fixed) if "quick fix" not in CODES[c].fix] == []


def test_no_edge_stub_for_an_outcome_whose_edge_is_misspelt() -> None:
    text = variant(
        TWO_OUTCOMES,
        '  { from = "charge", outcome = "ok", to = "orders" },\n',
        '  { from = "charge", outcome = "ok", to = "orders" },\n'
        '  { from = "charge", outcome = "retyr", to = "orders" },\n',
    )
    fixture = variant(text, 'id = "charge"', 'id = "cha$0rge"')
    check_no_action(fixture, "Add edge")
    fixture = variant(text, 'outcome = "retyr"', 'outcome = "ret$0yr"')
    check_code_action(
        fixture,
        "Change 'retyr' to 'retry'",
        snapshot(
            [
                '-   { from = "charge", outcome = "retyr", to = "orders" },',
                '+   { from = "charge", outcome = "retry", to = "orders" },',
            ]
        ),
    )


LONE = """
name = "lone"
start = "a"

[[node_defs]]
name = "task"
outcomes = ["ok"]
input_schema = { type = "object" }
output_schema = { type = "object" }

[[nodes]]
id = "a"
type = "node"
node = "task"
"""


def test_the_first_edge_stub_creates_the_edges_array() -> None:
    fixture = variant(LONE, 'id = "a"', 'id = "$0a"')
    check_code_action(
        fixture,
        "Add edge for outcome 'ok' to '__end__' (set the target)",
        snapshot(['+ edges = [{ from = "a", outcome = "ok", to = "__end__" }]']),
    )
    text = json.dumps(tomllib.loads(expected(LONE)), indent=2) + "\n"
    fixture = variant(text, '"id": "a"', '"id": "$0a"')
    check_code_action(
        fixture,
        "Add edge for outcome 'ok' to '__end__' (set the target)",
        snapshot(
            ["+   ],", '+   "edges": [', '+     {"from": "a", "outcome": "ok", "to": "__end__"}']
        ),
    )
