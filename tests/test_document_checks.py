"""The document's own checks (deprecated forms, unknown keys, schema keywords), element by
element: the same findings in the same order as the three checks of the whole document,
and an edit checks again only the elements it touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from wf_core.base.derived import Derivations
from wf_core.documents import parse_document
from wf_core.models.deprecations import find_deprecated_forms
from wf_core.models.keys import unknown_keys
from wf_core.validation.document_checks import document_checks
from wf_core.validation.schema_checks import schema_issues
from wf_core.version.snapshot import analyze_text

BILLING = (Path(__file__).parent.parent / "examples" / "billing.wf.toml").read_text()
# One finding of each check in each place it looks: the top level, an edge, a node def,
# a node and a condition's operand.
MISTAKES = (
    BILLING.replace('name = "billing"', 'name = "billing"\ncolour = "red"')
    .replace(
        '{ from = "charge", outcome = "ok", to = "orders.v2" }',
        '{ from = "charge", outcome = "ok", to = "orders.v2", weight = 2 }',
    )
    .replace('outcomes = ["ok"]\n\n[node_defs', 'outcomes = ["ok"]\nretries = 1\n\n[node_defs')
    .replace(
        'over = "context.foreach.customers.item.orders"',
        'over = "context.foreach.customers.item.orders"\nmode = "parallel"\nlabel = "x"',
    )
    .replace("[state_schema]\n", '[state_schema]\n"$ref" = "other.json#/x"\n')
    .replace(
        'properties.qty = { type = "integer" }',
        'properties.qty = { type = "integer" }\nproperties.sku.pattern = "(a)\\\\1"',
    )
    + """
[[nodes]]
id = "check"
type = "condition"
check = { op = "eq", left = { path = "input.x", note = "?" }, right = { value = 1 } }
input_schema = { type = "object", properties = { a = { "$ref" = "#/nowhere" } } }
"""
)


def _whole(values: dict[str, object]) -> list[tuple[object, ...]]:
    found = [*find_deprecated_forms(values), *unknown_keys(values), *schema_issues(values)]
    return [(i.code, i.location, i.message) for i in found]


def _values(text: str) -> dict[str, object]:
    values = parse_document(text, "toml").values
    assert isinstance(values, dict)
    return values


def test_element_by_element_the_findings_are_the_whole_documents_in_its_order() -> None:
    values = _values(MISTAKES)
    expected = _whole(values)
    codes = {code for code, _location, _message in expected}
    assert codes == {"deprecated_input_form", "unknown_key", "invalid_model"}
    locations = {location[:2] for _code, location, _message in expected}
    # The top level, an edge, a node def, nodes, a condition and schemas all found.
    assert {("colour",), ("edges", 2), ("node_defs", 0), ("nodes", 1)} <= locations
    assert any(location[:3] == ("nodes", 3, "check") for _c, location, _m in expected)
    assert any(location[0] == "state_schema" for _c, location, _m in expected)
    checked = [(i.code, i.location, i.message) for i in document_checks(values)]
    assert checked == expected
    keys = parse_document(MISTAKES, "toml").source_map.element_keys
    derived = [
        (i.code, i.location, i.message) for i in document_checks(values, Derivations(), keys)
    ]
    assert derived == expected


@pytest.mark.parametrize(
    ("written", "kind"), [('type.x = "node"', "object"), ("type = [1]", "array")]
)
def test_a_node_type_written_as_a_table_or_an_array_is_one_finding(written: str, kind: str) -> None:
    """Such a type is no node type: its keys are not checked against one (looking it up
    among the types once failed the whole analysis), and the type is the one mistake."""
    text = BILLING.replace('type = "node"', written, 1)
    assert [(i.code, i.location) for i in document_checks(_values(text))] == []
    [issue] = analyze_text(text, "toml").issues
    assert (issue.code, issue.location) == ("invalid_model", ("nodes", 2, "type"))
    assert issue.message.startswith(f"unknown node type {kind}; expected one of node,")


def test_an_edit_checks_again_only_the_elements_it_touched() -> None:
    from wf_core.documents.parser import DocumentParser

    parser = DocumentParser("toml")
    derived = Derivations()
    parsed = parser.parse(MISTAKES)
    first, first_keys = parsed.values, parsed.source_map.element_keys
    before = {i.location: i for i in document_checks(first, derived, first_keys)}
    # An edit inside the last node: an element whose statements are the same text at the
    # same index has the very same findings; the edited node's are made again (and so
    # are the top level's: a handful of keys).
    edited = MISTAKES.replace('note = "?"', 'note = "?!"')
    parsed = parser.parse(edited)
    values, keys = parsed.values, parsed.source_map.element_keys
    after = document_checks(values, derived, keys)
    assert [(i.code, i.location, i.message) for i in after] == _whole(values)
    kept = remade = 0
    for issue in after:
        if issue.location[0] not in ("edges", "node_defs", "nodes"):
            continue
        kind, index = issue.location[0], issue.location[1]
        same = keys(kind)[index] == first_keys(kind)[index]
        assert (before[issue.location] is issue) is same
        kept, remade = kept + same, remade + (not same)
    assert kept >= 3 and remade >= 1  # node_defs[0], nodes[1], ...; the edited node
    # A node removed before the others moves them: each is checked at its new index.
    shifted = edited.replace(
        edited[
            edited.index("[[nodes]]") : edited.index("[[nodes]]", edited.index("[[nodes]]") + 1)
        ],
        "",
    )
    parsed = parser.parse(shifted)
    values = parsed.values
    moved = document_checks(values, derived, parsed.source_map.element_keys)
    assert [(i.code, i.location, i.message) for i in moved] == _whole(values)
