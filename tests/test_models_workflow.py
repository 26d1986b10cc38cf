"""Workflow, Edge, tokens and the canonical JSON round trip (lda-wf-model §1)."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from wf_core.language.paths import GraphSourcePath
from wf_core.language.tokens import END, START
from wf_core.models import Edge, ForeachNode, InterruptNode, NodeUse, Workflow

BILLING_TOML = """\
name = "billing"
start = "customers"
outcomes = ["ok"]

edges = [
  { from = "customers", outcome = "loop", to = "orders.v2" },
  { from = "orders.v2", outcome = "loop", to = "charge" },
  { from = "charge", outcome = "ok", to = "orders.v2" },
  { from = "orders.v2", outcome = "done", to = "customers" },
  { from = "customers", outcome = "done", to = "__end__" },
]

output = [{ target = "total", path = "state.total" }]

[input_schema]
type = "object"
required = ["customers"]
properties.customers = { type = "array", items = { "$ref" = "#/$defs/customer" } }

[input_schema."$defs".customer]
type = "object"
properties.name = { type = "string" }
properties.orders = { type = "array", items = { "$ref" = "#/$defs/order" } }

[input_schema."$defs".order]
type = "object"
additionalProperties = false
properties.sku = { type = "string" }
properties.qty = { type = "integer" }

[state_schema]
type = "object"
properties.total = { type = "number" }

[output_schema]
type = "object"
properties.total = { type = "number" }

[[node_defs]]
name = "charge_order"
outcomes = ["ok"]
input_schema = { type = "object", properties = { order = { type = "object" }, \
customer = { type = "string" } } }
output_schema = { type = "object", properties = { amount = { type = "number" } } }

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
node = "charge_order"
input = [
  { target = "order", path = 'context.foreach."orders.v2".item' },
  { target = "customer", path = "context.foreach.customers.item.name" },
]
output = [{ source = "amount", target = "state.total" }]
"""


def billing_document() -> dict[str, Any]:
    """The billing example of workflow-format.md (copied verbatim) as plain values."""
    return tomllib.loads(BILLING_TOML)


def test_tokens() -> None:
    assert (START, END) == ("__start__", "__end__")


def test_billing_workflow_parses() -> None:
    workflow = Workflow.model_validate(billing_document())
    assert [node.id for node in workflow.nodes] == ["customers", "orders.v2", "charge"]
    orders = workflow.nodes[1]
    assert isinstance(orders, ForeachNode)
    assert orders.over == GraphSourcePath("context", ("foreach", "customers", "item", "orders"))
    charge = workflow.nodes[2]
    assert isinstance(charge, NodeUse)
    assert charge.input[0].path == orders.item
    assert workflow.edges[4].to == END
    assert workflow.outcomes == ["ok"]


def test_canonical_dump_shape() -> None:
    workflow = Workflow.model_validate(billing_document())
    dumped = workflow.model_dump(mode="json", by_alias=True)
    assert list(dumped) == [
        "name",
        "input_schema",
        "state_schema",
        "output_schema",
        "output",
        "node_defs",
        "outcomes",
        "start",
        "nodes",
        "edges",
    ]
    assert dumped["edges"][0] == {"from": "customers", "outcome": "loop", "to": "orders.v2"}
    assert dumped["nodes"][0]["as"] == "customer"
    assert dumped["nodes"][2]["input"][0]["path"] == 'context.foreach."orders.v2".item'
    assert dumped["state_schema"] == {
        "type": "object",
        "properties": {"total": {"type": "number"}},
        "required": [],
    }
    assert "title" not in dumped["input_schema"]
    without_alias = workflow.model_dump(mode="json")
    assert "from_" in without_alias["edges"][0]
    assert "as_" in without_alias["nodes"][0]
    draft = workflow.model_dump(mode="json", by_alias=True, exclude={"node_defs"})
    assert "node_defs" not in draft


def test_canonical_round_trip() -> None:
    workflow = Workflow.model_validate(billing_document())
    assert Workflow.model_validate(workflow.model_dump(mode="json", by_alias=True)) == workflow


def test_round_trip_of_every_node_type() -> None:
    document = billing_document()
    document["outcomes"] = ["ok", "rejected"]
    document["nodes"] += [
        {
            "id": "check",
            "type": "condition",
            "check": {
                "op": "or",
                "args": [
                    {"op": "exists", "path": "state.total"},
                    {"op": "gt", "left": {"path": "state.total"}, "right": {"value": 10}},
                ],
            },
        },
        {"id": "sub", "type": "subgraph", "workflow": "workflow.child.v2", "input": []},
        {"id": "j", "type": "join"},
        {"id": "stop", "type": "end", "outcome": "rejected"},
        {
            "id": "ask",
            "type": "interrupt",
            "kind": "approval",
            "request": [
                {
                    "target": "q",
                    "expression": {
                        "kind": "object",
                        "fields": {"total": {"kind": "path", "path": "state.total"}},
                    },
                }
            ],
            "resume": [{"source": "ok", "target": "state.approved"}],
            "request_schema": {"type": "object"},
        },
    ]
    workflow = Workflow.model_validate(document)
    dumped = workflow.model_dump(mode="json", by_alias=True)
    assert dumped["nodes"][4]["workflow"] == {"artifact_id": "child", "version": 2}
    assert Workflow.model_validate(dumped) == workflow


def test_interrupt_default_contract_becomes_explicit_after_a_dump() -> None:
    # The canonical dump writes the default schemas, so re-reading it sees a contract.
    node = {"id": "ask", "type": "interrupt", "kind": "approval"}
    document = billing_document() | {"nodes": [*billing_document()["nodes"], node]}
    workflow = Workflow.model_validate(document)
    again = Workflow.model_validate(workflow.model_dump(mode="json", by_alias=True))
    first, second = workflow.nodes[-1], again.nodes[-1]
    assert isinstance(first, InterruptNode) and isinstance(second, InterruptNode)
    assert (first.has_explicit_contract, second.has_explicit_contract) == (False, True)
    assert first.model_dump() == second.model_dump()


def test_edge_requires_the_from_alias() -> None:
    assert Edge.model_validate({"from": "a", "outcome": "ok", "to": END}).from_ == "a"
    with pytest.raises(ValidationError):
        Edge.model_validate({"from_": "a", "outcome": "ok", "to": END})


def test_workflow_required_fields_and_defaults() -> None:
    minimal = {
        "name": "w",
        "input_schema": {},
        "state_schema": {},
        "output_schema": {},
        "start": "a",
        "nodes": [],
        "edges": [],
    }
    workflow = Workflow.model_validate(minimal | {"unknown": 1})
    assert (workflow.outcomes, workflow.output, workflow.node_defs) == (["ok"], [], [])
    for key in ("name", "input_schema", "state_schema", "output_schema", "start", "nodes", "edges"):
        with pytest.raises(ValidationError):
            Workflow.model_validate({k: v for k, v in minimal.items() if k != key})
    with pytest.raises(ValidationError):
        Workflow.model_validate(minimal | {"outcomes": []})


def test_workflow_output_rejects_expression_bindings() -> None:
    document = billing_document()
    document["output"] = [{"target": "t", "expression": {"kind": "literal", "value": 1}}]
    with pytest.raises(ValidationError, match="binding needs one of path or value"):
        Workflow.model_validate(document)


def test_validate_structure_runs_the_validator() -> None:
    workflow = Workflow.model_validate(billing_document())
    assert workflow.validate_structure().ok
    document = billing_document()
    document["start"] = "nowhere"
    assert not Workflow.model_validate(document).validate_structure().ok


@given(
    st.lists(
        st.one_of(
            st.sampled_from(["a", "b", "c", "a.b"]),
            st.integers(0, 2),
            st.none(),
            st.booleans(),
            st.just([1]),
        ),
        max_size=8,
    )
)
def test_each_id_names_its_first_position(ids: list[object]) -> None:
    """Whatever the ids (repeated, not strings, not hashable): each string id at the
    position of its first node, in the order of first appearance."""
    from wf_core.models.workflow import first_index_by_id

    expected: dict[str, int] = {}
    for index, node_id in enumerate(ids):
        if isinstance(node_id, str) and node_id not in expected:
            expected[node_id] = index
    found = first_index_by_id(ids)
    assert found == expected and list(found) == list(expected)
    assert first_index_by_id(iter(ids)) == expected
