"""Workflows written in Python: the builder, its TOML, stand-ins and the editor preview."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from rt_support import ROWS, Recorder, loop, probe, workflow

from wf_core.authoring.builder import (
    END,
    WorkflowBuilder,
    all_of,
    any_of,
    eq,
    exists,
    ge,
    gt,
    le,
    lt,
    ne,
    not_,
    path,
    value,
)
from wf_core.base.issues import Severity
from wf_core.models import Workflow
from wf_core.runtime import execute_workflow, sample_value, stand_in_handlers
from wf_core.runtime.preview import describe_observations, observed_contexts, preview_run
from wf_core.version.snapshot import analyze_text

ROOT = Path(__file__).parent.parent.parent
BILLING_INPUT = json.loads((ROOT / "examples" / "billing.input.json").read_text())

ORDER = {
    "type": "object",
    "additionalProperties": False,
    "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
}
CUSTOMER = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "tier": {"enum": ["gold", "basic"]},
        "orders": {"type": "array", "items": {"$ref": "#/$defs/order"}},
    },
}


def billing_builder() -> WorkflowBuilder:
    wf = WorkflowBuilder(
        "billing",
        input_schema={
            "type": "object",
            "required": ["customers"],
            "properties": {"customers": {"type": "array", "items": {"$ref": "#/$defs/customer"}}},
            "$defs": {"customer": CUSTOMER, "order": ORDER},
        },
        state_schema={
            "type": "object",
            "properties": {
                "total": {"type": "number"},
                "charged": {"type": "array", "reducer": "wf.std.append"},
            },
        },
        output_schema={"type": "object", "properties": {"total": {"type": "number"}}},
    )
    charge_order = wf.node_def(
        "charge_order",
        input_schema={
            "type": "object",
            "properties": {
                "order": {"type": "object"},
                "customer": {"type": "string"},
                "position": {"type": "integer"},
                "currency": {"type": "string"},
            },
        },
        output_schema={"type": "object", "properties": {"amount": {"type": "number"}}},
    )
    customers = wf.foreach("customers", "input.customers", as_="customer")
    orders = wf.foreach("orders.v2", customers.item.child("orders"), as_="order")
    gold = wf.condition(
        "gold?", all_of(eq(customers.item.child("tier"), "gold"), exists(orders.item))
    )
    charge = wf.use(
        "charge",
        charge_order,
        input={
            "order": orders.item,
            "customer": customers.item.child("name"),
            "position": orders.index,
            "currency": value("EUR"),
        },
        output={"amount": "state.total"},
    )
    joined = wf.join("joined")
    wf.route(customers, "loop", orders).route(orders, "loop", gold)
    wf.route(gold, "true", charge).route(gold, "false", joined)
    wf.route(charge, "ok", joined).route(joined, "done", orders)
    wf.route(orders, "done", customers).route(customers, "done", END)
    wf.output(total="state.total")
    return wf


def test_a_built_workflow_exports_toml_that_the_editor_reads_without_errors() -> None:
    builder = billing_builder()
    text = builder.to_toml()
    assert "path = 'context.foreach.\"orders.v2\".item'" in text
    assert 'path = "context.foreach.customers.item.name"' in text
    snapshot = analyze_text(text, "toml")
    errors = [i for i in snapshot.issues if i.severity == Severity.ERROR]
    assert errors == []
    assert snapshot.workflow == builder.build()
    assert snapshot.context is not None
    assert snapshot.context.stack_of("charge") == ("customers", "orders.v2")
    assert json.loads(builder.to_json())["nodes"][2]["id"] == "gold?"


def test_a_built_workflow_runs() -> None:
    built = billing_builder().build()
    data = {
        "customers": [
            {**c, "tier": "gold" if i == 0 else "basic"}
            for i, c in enumerate(BILLING_INPUT["customers"])
        ]
    }
    recorder = Recorder(lambda p, c: {"amount": p["order"]["qty"] * 2})
    result = execute_workflow(built, data, {"charge_order": recorder})
    assert result.status == "completed", result.error
    assert [p for p, _ in recorder.calls] == [
        {"order": {"sku": "A-17", "qty": 2}, "customer": "Ada", "position": 0, "currency": "EUR"},
        {"order": {"sku": "B-4", "qty": 1}, "customer": "Ada", "position": 1, "currency": "EUR"},
    ]
    assert result.output == {"total": 2}


def test_condition_helpers_build_every_operator() -> None:
    p = path('context.foreach."orders.v2".index')
    assert p.parts == ("foreach", "orders.v2", "index")
    checks = [eq(p, 1), ne(p, 1), gt(p, 1), ge(p, 1), lt(p, 1), le(p, 1)]
    assert [c["op"] for c in checks] == ["eq", "ne", "gt", "ge", "lt", "le"]
    assert checks[0] == {"op": "eq", "left": {"path": p}, "right": {"value": 1}}
    assert not_(exists("input.x")) == {
        "op": "not",
        "arg": {"op": "exists", "path": path("input.x")},
    }
    assert any_of(checks[0])["op"] == "or" and all_of(checks[0])["op"] == "and"


def test_builder_interrupts_and_subgraphs_round_trip() -> None:
    child = WorkflowBuilder("child", input_schema={"type": "object", "properties": {"row": {}}})
    child.join("noop")
    child.route("noop", "done", END)
    parent = WorkflowBuilder(
        "parent",
        input_schema={"type": "object", "properties": {"rows": {"type": "array"}}},
        state_schema={"type": "object", "properties": {"answer": {}}},
    )
    rows = parent.foreach(
        "rows",
        "input.rows",
        as_="row",
        mode="concurrent",
        max_active=2,
        item_error="collect",
        collect_to="state.answer",
    )
    call = parent.subgraph("call", child, input={"row": rows.item})
    ask = parent.interrupt(
        "ask", "confirm", request={"row": rows.index}, resume={"yes": "state.answer"}
    )
    parent.route(rows, "loop", call).route(call, "ok", ask).route(ask, "submitted", rows)
    parent.route(rows, "done", END).route(rows, "completed_with_errors", END)
    built = parent.build()
    assert built.nodes[0].concurrent is not None and built.nodes[0].concurrent.max_active == 2
    assert str(built.nodes[1].input[0].path) == "context.foreach.rows.item"
    again = analyze_text(parent.to_toml(), "toml")
    assert again.workflow is not None
    assert again.workflow.model_dump(mode="json") == built.model_dump(mode="json")
    codes = {i.code for i in again.issues if i.severity == Severity.ERROR}
    assert codes == {"invalid_foreach_collect_destination"}  # answer is not an array field


# -- stand-ins -----------------------------------------------------------------------

SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "object",
        "required": ["a", "b"],
        "properties": {
            "a": {"type": "string", "minLength": 8},
            "b": {"type": "integer", "minimum": 10, "multipleOf": 7},
        },
    },
    {
        "type": "array",
        "minItems": 3,
        "maxItems": 3,
        "items": {"type": "number", "exclusiveMaximum": 0},
    },
    {"enum": ["x", "y"]},
    {"const": {"k": [1]}},
    {
        "$ref": "#/$defs/thing",
        "$defs": {
            "thing": {"type": "object", "required": ["t"], "properties": {"t": {"type": "boolean"}}}
        },
    },
    {"anyOf": [{"type": "null"}, {"type": "string"}]},
    {"oneOf": [{"type": "integer", "maximum": -5}, {"type": "string"}]},
    {
        "allOf": [
            {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}},
            {"required": ["b"], "properties": {"b": {"type": "string", "maxLength": 2}}},
        ]
    },
    {"type": ["null", "integer"], "minimum": 3},
    {"type": "object", "required": ["free"], "additionalProperties": {"type": "integer"}},
    {"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}], "items": False},
    {"type": "number", "minimum": 2.5, "maximum": 2.75},
    {"type": "string", "default": "given"},
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_samples_satisfy_their_schema(schema: dict[str, Any]) -> None:
    sample = sample_value(schema)
    jsonschema.Draft202012Validator(schema).validate(sample)
    assert sample_value(schema) == sample  # deterministic


def test_stand_ins_return_samples_and_chosen_outcomes() -> None:
    wf = workflow(
        [probe("one"), {**probe("two"), "node": "pick"}],
        ["one:ok->two", "two:left->__end__", "two:right->__end__"],
        node_defs=[
            {
                "name": "probe",
                "outcomes": ["ok"],
                "input_schema": {"type": "object"},
                "output_schema": {
                    "type": "object",
                    "required": ["n"],
                    "properties": {"n": {"type": "integer", "minimum": 4}},
                },
            },
            {
                "name": "pick",
                "outcomes": ["left", "right"],
                "input_schema": {"type": "object"},
                "output_schema": {"type": "object"},
            },
        ],
    )
    plain = execute_workflow(wf, {"rows": []}, stand_in_handlers(wf))
    assert [(r.node_id, r.outcome, r.output) for r in plain.trace] == [
        ("one", "ok", {"n": 4}),
        ("two", "left", {}),
    ]
    by_id = execute_workflow(wf, {"rows": []}, stand_in_handlers(wf, outcomes={"two": "right"}))
    by_def = execute_workflow(wf, {"rows": []}, stand_in_handlers(wf, outcomes={"pick": "right"}))
    assert by_id.trace[-1].outcome == by_def.trace[-1].outcome == "right"


# -- the editor preview -----------------------------------------------------------------


def billing() -> Workflow:
    workflow_ = analyze_text((ROOT / "examples" / "billing.wf.toml").read_text(), "toml").workflow
    assert workflow_ is not None
    return workflow_


def test_preview_runs_stand_ins_and_reports_what_each_node_saw() -> None:
    preview = preview_run(billing(), BILLING_INPUT)
    assert (preview.status, preview.outcome, preview.error) == ("completed", "ok", None)
    assert len(preview.records) == 11
    assert '"orders.v2"[0] = {"sku": "A-17", "qty": 2}' in preview.text
    seen = observed_contexts(preview.records)
    assert set(seen) == {"customers", "orders.v2", "charge"}
    assert [c["foreach"]["orders.v2"]["item"]["sku"] for c in seen["charge"]] == [
        "A-17",
        "B-4",
        "C-9",
    ]
    assert [list(c["foreach"]) for c in seen["customers"]] == [[], [], []]
    lines = describe_observations(seen["charge"], limit=2).splitlines()
    assert len(lines) == 3 and lines[2] == "… and 1 more"
    customer = 'customers[0] = {"name": "Ada", "orders": [{"sku": "A-17", "qty": 2}, {"sku…; '
    assert lines[0] == customer + '"orders.v2"[0] = {"sku": "A-17", "qty": 2}'
    assert lines[1] == customer + '"orders.v2"[1] = {"sku": "B-4", "qty": 1}'
    assert describe_observations(seen["customers"], limit=1).splitlines()[0] == "no active loop"


def test_preview_answers_interrupts_and_never_raises() -> None:
    approvals = Workflow.model_validate(
        json.loads((ROOT / "examples" / "approvals.wf.json").read_text())
    )
    data = {"requests": [{"id": "r1", "amount": 500, "requester": "ann"}], "limit": 100}
    preview = preview_run(approvals, data)
    assert preview.status == "completed", preview.error
    assert [r.outcome for r in preview.records if r.node_id == "ask_manager"] == [None, "approved"]
    refused = preview_run(approvals, {"requests": "nope"})
    assert refused.status == "refused" and refused.records == ()
    assert refused.error is not None and "does not match the input_schema" in refused.error


def test_preview_stops_a_workflow_that_loops_forever() -> None:
    wf = workflow(
        [loop("rows", "input.rows", "row"), {**probe("spin"), "node": "spin"}],
        ["rows:loop->spin", "spin:again->spin", "spin:ok->rows", "rows:done->__end__"],
        node_defs=[
            {
                "name": "spin",
                "outcomes": ["again", "ok"],
                "input_schema": {"type": "object"},
                "output_schema": {"type": "object"},
            }
        ],
    )
    preview = preview_run(wf, {"rows": ROWS}, max_steps=200)
    assert preview.status == "failed"
    assert preview.error is not None and "step limit" in preview.error
