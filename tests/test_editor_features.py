"""Editor features without a client: a document with a cursor marker, the expected answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from wf_core.version.snapshot import analyze_text
from wfls.features.completion import complete
from wfls.features.definition import definition
from wfls.features.hover import hover

BILLING = (Path(__file__).parent.parent / "examples" / "billing.wf.toml").read_text()
CHARGE_PATH = "path = 'context.foreach.\"orders.v2\".item' },"
MARK = "‸"


def with_cursor(text: str, old: str, new: str) -> tuple[str, int]:
    """Replace ``old`` by ``new`` (which holds the cursor mark); return text and offset."""
    assert old in text, old
    edited = text.replace(old, new, 1)
    offset = edited.index(MARK)
    return edited.replace(MARK, "", 1), offset


def labels(text: str, offset: int, syntax: str = "toml") -> list[str]:
    return [c.label for c in complete(analyze_text(text, syntax), offset)]


COMPLETION_CASES = [
    # (name, replacement of the charge node's first path, expected labels (subset or exact))
    (
        "foreach entries in the nested body",
        "path = 'context.foreach.‸' },",
        ["customers", '"orders.v2"'],
    ),
    (
        "item members through $ref",
        "path = 'context.foreach.\"orders.v2\".item.‸' },",
        ["sku", "qty"],
    ),
    (
        "roots",
        "path = '‸' },",
        ["input", "state", "context"],
    ),
    (
        "unterminated basic string",
        'path = "context.foreach.customers.item.‸\n  },',
        ["name", "orders"],
    ),
    (
        "partial segment",
        "path = 'context.foreach.cus‸' },",
        ["customers", '"orders.v2"'],
    ),
    (
        "entry fields",
        "path = 'context.foreach.customers.‸' },",
        ["node_id", "activation_id", "frame_id", "scope_id", "lineage_id", "index", "item"],
    ),
    (
        "input members",
        "path = 'input.‸' },",
        ["customers"],
    ),
]


@pytest.mark.parametrize(("name", "new", "expected"), COMPLETION_CASES)
def test_path_completion(name: str, new: str, expected: list[str]) -> None:
    text, offset = with_cursor(BILLING, CHARGE_PATH, new)
    assert labels(text, offset) == expected


def test_context_top_level_sorts_structured_first_and_tags_convenience_keys() -> None:
    text, offset = with_cursor(BILLING, CHARGE_PATH, "path = 'context.‸' },")
    items = sorted(complete(analyze_text(text, "toml"), offset), key=lambda c: c.sort_text)
    names = [c.label for c in items]
    assert names[:6] == [
        "activated_incoming_edge",
        "foreach",
        "lineage_id",
        "parent_lineage_id",
        "prior_outcome",
        "scope_id",
    ]
    assert set(names[6:]) == {"customer", "loop_index", "loop_item", "order"}
    assert all(c.deprecated for c in items[6:]) and not any(c.deprecated for c in items[:6])


def test_inactive_loops_are_never_offered() -> None:
    text = BILLING.replace(
        'output = [{ target = "total", path = "state.total" }]',
        "output = [{ target = \"total\", path = 'context.foreach.' }]",
    )
    offset = text.index("context.foreach.") + len("context.foreach.")
    assert labels(text, offset) == []


def test_quoted_insertion_of_a_dotted_id_in_each_string_style() -> None:
    for new, insert in [
        ("path = 'context.foreach.or‸' },", '"orders.v2"'),
        ('path = "context.foreach.or‸" },', '\\"orders.v2\\"'),
    ]:
        text, offset = with_cursor(BILLING, CHARGE_PATH, new)
        candidates = complete(analyze_text(text, "toml"), offset)
        dotted = next(c for c in candidates if c.label == '"orders.v2"')
        assert dotted.insert_text == insert
        assert text[dotted.replace.start : dotted.replace.end] == "or"


def test_replace_covers_only_the_segment_being_typed() -> None:
    text, offset = with_cursor(BILLING, CHARGE_PATH, "path = 'context.fo‸reach.customers' },")
    candidate = next(
        c for c in complete(analyze_text(text, "toml"), offset) if c.label == "foreach"
    )
    assert text[candidate.replace.start : candidate.replace.end] == "foreach"
    assert candidate.detail == "object"
    assert "```json" in (candidate.documentation or "")


def test_completion_in_json_documents() -> None:
    text = (
        '{"name": "j", "start": "loop", "input_schema": {"type": "object", "properties": '
        '{"rows": {"type": "array", "items": {"type": "object", "properties": {"a b": {}}}}}},'
        ' "nodes": [{"id": "loop", "type": "foreach", "over": "input.rows", "as": "row"},'
        ' {"id": "t", "type": "join"}, {"id": "u", "type": "condition", "check": '
        '{"op": "exists", "path": "context.foreach.loop.item.'
    )
    offset = len(text)
    text += (
        '"}}], "edges": [{"from": "loop", "outcome": "loop", "to": "u"}, {"from": "u", '
        '"outcome": "true", "to": "loop"}, {"from": "u", "outcome": "false", "to": "loop"}]}'
    )
    candidates = complete(analyze_text(text, "json"), offset)
    assert [c.label for c in candidates] == ['"a b"']
    assert candidates[0].insert_text == '\\"a b\\"'


def test_values_elsewhere() -> None:
    text, offset = with_cursor(
        BILLING,
        '{ from = "charge", outcome = "ok", to = "orders.v2" },',
        '{ from = "charge", outcome = "ok", to = "‸" },',
    )
    assert labels(text, offset) == ["customers", "orders.v2", "charge", "__end__"]
    text, offset = with_cursor(
        BILLING,
        '{ from = "orders.v2", outcome = "done", to = "customers" },',
        '{ from = "orders.v2", outcome = "‸", to = "customers" },',
    )
    assert labels(text, offset) == ["done", "loop"]
    text, offset = with_cursor(BILLING, 'node = "charge_order"', 'node = "‸"')
    assert labels(text, offset) == ["charge_order"]


def test_hover_on_an_item_segment_shows_the_resolved_schema() -> None:
    text = BILLING
    offset = text.index('context.foreach."orders.v2".item\'') + len(
        'context.foreach."orders.v2".it'
    )
    result = hover(analyze_text(text, "toml"), offset)
    assert result is not None
    assert text[result.span.start : result.span.end] == "item"
    assert '"sku"' in result.markdown and '"additionalProperties": false' in result.markdown


def test_hover_on_a_foreach_entry() -> None:
    text = BILLING
    offset = text.index('"orders.v2".item\'') + 2
    result = hover(analyze_text(text, "toml"), offset)
    assert result is not None
    assert text[result.span.start : result.span.end] == '"orders.v2"'
    assert "over: `context.foreach.customers.item.orders`" in result.markdown
    assert "alias: `order`" in result.markdown
    assert "owner stack here: `customers` > `orders.v2`" in result.markdown


def test_hover_on_node_ids_and_convenience_keys() -> None:
    text = BILLING
    result = hover(analyze_text(text, "toml"), text.index('id = "charge"') + 6)
    assert result is not None and "owner stack: `customers` > `orders.v2`" in result.markdown
    edited, offset = with_cursor(text, CHARGE_PATH, "path = 'context.ord‸er.sku' },")
    result = hover(analyze_text(edited, "toml"), offset)
    assert result is not None
    assert 'read `context.foreach."orders.v2".item` instead' in result.markdown


def test_definition_from_a_dotted_id_to_its_node() -> None:
    text = BILLING
    offset = text.index('"orders.v2".item\'') + 3
    targets = definition(analyze_text(text, "toml"), offset)
    assert [text[t.span.start : t.span.end] for t in targets] == ["orders.v2"]
    assert text[: targets[0].span.start].endswith('id = "')


def test_definition_of_alias_input_member_edge_target_and_node_def() -> None:
    text, offset = with_cursor(BILLING, CHARGE_PATH, "path = 'context.cust‸omer.name' },")
    snapshot = analyze_text(text, "toml")
    assert [text[t.span.start : t.span.end] for t in definition(snapshot, offset)] == ["customer"]
    offset = text.index("input.customers") + len("input.cu")
    targets = definition(snapshot, offset)
    assert [text[t.span.start : t.span.end] for t in targets] == ["customers"]
    assert text[: targets[0].span.start].endswith("properties.")
    offset = text.index('to = "charge"') + 7
    assert [text[t.span.start : t.span.end] for t in definition(snapshot, offset)] == ["charge"]
    offset = text.index('node = "charge_order"') + 9
    targets = definition(snapshot, offset)
    assert [text[t.span.start : t.span.end] for t in targets] == ["charge_order"]


def test_nested_schema_definition_follows_refs() -> None:
    text = BILLING.replace(CHARGE_PATH, "path = 'context.foreach.customers.item.orders' },")
    snapshot = analyze_text(text, "toml")
    offset = text.index("input.customers") + 8
    assert definition(snapshot, offset)
    # Past the end: the blank last line belongs to the last node, whose missing keys are offered.
    assert {"desc", "retry", "timeout_seconds"} <= {
        c.label for c in complete(snapshot, len(text) + 10)
    }
    assert hover(snapshot, len(text) + 10) is None


def test_a_node_that_failed_to_load_does_not_cascade_into_edge_errors() -> None:
    text = BILLING.replace('node = "charge_order"', "node = 42")
    codes = [issue.code for issue in analyze_text(text, "toml").issues]
    assert "invalid_model" in codes
    assert "unknown_edge_source" not in codes and "unknown_edge_destination" not in codes


def test_an_unterminated_path_is_reported_once() -> None:
    text = BILLING.replace(CHARGE_PATH, 'path = "context.foreach.\n  },')
    issues = analyze_text(text, "toml").issues
    line = text[: text.index('path = "context.foreach.\n')].count("\n")
    on_line = [i.code for i in issues if text[: i.span.start].count("\n") == line]
    assert on_line == ["syntax_error"]


def test_nodes_after_a_node_that_failed_to_load_are_not_unreachable() -> None:
    text = BILLING.replace('id = "orders.v2"\ntype = "foreach"', 'id = "orders.v2"\ntype = 7')
    codes = [issue.code for issue in analyze_text(text, "toml").issues]
    assert codes == ["invalid_model"]
