"""Warnings and quick-fix replacements for deprecated input forms."""

from __future__ import annotations

from test_models_workflow import billing_document

from wf_core.base.issues import ProjectCode, Severity
from wf_core.models import Workflow
from wf_core.models.deprecations import find_deprecated_forms


def test_canonical_document_has_no_deprecations() -> None:
    assert find_deprecated_forms(billing_document()) == []


def test_node_binding_maps() -> None:
    document = billing_document()
    charge = document["nodes"][2]
    del charge["input"], charge["output"]
    charge["input_values"] = {"currency": "EUR"}
    charge["in_map"] = {"context.foreach.customers.item.name": "customer"}
    charge["out_map"] = {"amount": "state . total"}
    issues = find_deprecated_forms(document)
    assert [(i.model_path, i.message) for i in issues] == [
        (
            "nodes[2].input_values",
            "'input_values' is deprecated; use 'input' bindings ({ target, value })",
        ),
        ("nodes[2].in_map", "'in_map' is deprecated; use 'input' bindings ({ target, path })"),
        ("nodes[2].out_map", "'out_map' is deprecated; use 'output' bindings ({ source, target })"),
    ]
    assert all(i.code == ProjectCode.DEPRECATED_INPUT_FORM for i in issues)
    assert all(i.severity == Severity.WARNING for i in issues)
    assert [i.data for i in issues] == [
        {"replacement": [{"target": "currency", "value": "EUR"}], "canonical_key": "input"},
        {
            "replacement": [{"target": "customer", "path": "context.foreach.customers.item.name"}],
            "canonical_key": "input",
        },
        # Paths in replacements are canonical.
        {"replacement": [{"source": "amount", "target": "state.total"}], "canonical_key": "output"},
    ]


def test_replacement_means_the_same_as_the_legacy_form() -> None:
    document = billing_document()
    charge = document["nodes"][2]
    del charge["input"], charge["output"]
    charge["in_map"] = {'context.foreach."orders.v2".item': "order"}
    charge["out_map"] = {"amount": "state.total"}
    legacy = Workflow.model_validate(document)
    fixed = billing_document()
    fixed_charge = fixed["nodes"][2]
    del fixed_charge["input"], fixed_charge["output"]
    for issue in find_deprecated_forms(document):
        fixed_charge[issue.data["canonical_key"]] = issue.data["replacement"]
    assert Workflow.model_validate(fixed) == legacy


def test_foreach_forms() -> None:
    document = billing_document()
    document["nodes"][0] |= {"mode": "parallel", "parallel": {"max_active": 2}}
    document["nodes"][1]["on_item_error"] = "collect"
    issues = find_deprecated_forms(document)
    assert [(i.model_path, i.message, i.data) for i in issues] == [
        (
            "nodes[0].mode",
            "mode 'parallel' is deprecated; use 'concurrent'",
            {"replacement": "concurrent", "canonical_key": "mode"},
        ),
        (
            "nodes[0].parallel",
            "'parallel' is deprecated; use 'concurrent'",
            {"replacement": {"max_active": 2}, "canonical_key": "concurrent"},
        ),
        (
            "nodes[1].on_item_error",
            "'on_item_error' is deprecated; use 'item_error' ({ action })",
            {"replacement": {"action": "collect"}, "canonical_key": "item_error"},
        ),
    ]


def test_interrupt_maps() -> None:
    document = billing_document()
    document["nodes"].append(
        {
            "id": "ask",
            "type": "interrupt",
            "kind": "approval",
            "request_map": {"state.total": "amount"},
            "out_map": {"approved": "state.approved"},
        }
    )
    issues = find_deprecated_forms(document)
    assert [(i.model_path, i.data["canonical_key"], i.data["replacement"]) for i in issues] == [
        ("nodes[3].request_map", "request", [{"target": "amount", "path": "state.total"}]),
        ("nodes[3].out_map", "resume", [{"source": "approved", "target": "state.approved"}]),
    ]


def test_state_fields() -> None:
    document = billing_document()
    document["state_schema"] = {"fields": {"total": {"type": "number"}}}
    (issue,) = find_deprecated_forms(document)
    assert issue.model_path == "state_schema.fields"
    assert issue.message == "'fields' is deprecated; declare state fields as nested 'properties'"
    assert issue.data["replacement"] == {
        "total": {
            "type": "number",
            "properties": {},
            "required": [],
            "reducer": "wf.std.replace",
            "trace": True,
        }
    }


def test_malformed_legacy_values_still_warn_without_replacement() -> None:
    document = billing_document()
    charge = document["nodes"][2]
    del charge["input"]
    charge["in_map"] = ["not", "a", "mapping"]
    document["state_schema"] = {"fields": 3}
    issues = find_deprecated_forms(document)
    assert [(i.model_path, i.data["replacement"]) for i in issues] == [
        ("state_schema.fields", None),
        ("nodes[2].in_map", None),
    ]
