"""The seven node types, their legacy forms and declared outcomes (lda-wf-model §2)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from wf_core.language.paths import GraphSourcePath, LocalPath, StatePath
from wf_core.models import (
    BinaryCondition,
    ConditionNode,
    EndNode,
    ExistsCondition,
    ForeachConcurrentPolicy,
    ForeachItemErrorPolicy,
    ForeachNode,
    InputPathBinding,
    InputValueBinding,
    InterruptNode,
    JoinNode,
    LiteralOperand,
    NodeDef,
    NodeUse,
    NotCondition,
    OutputBinding,
    PathOperand,
    Step,
    SubgraphNode,
    VariadicCondition,
    WorkflowRef,
    declared_outcomes,
)

STEP = TypeAdapter(Step)


def _errors(raw: Any) -> list[str]:
    with pytest.raises(ValidationError) as info:
        STEP.validate_python(raw)
    return [str(error["msg"]) for error in info.value.errors()]


# --- the union -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "model"),
    [
        ({"id": "a", "type": "node", "node": "d"}, NodeUse),
        ({"id": "a", "type": "subgraph", "workflow": "child"}, SubgraphNode),
        (
            {"id": "a", "type": "condition", "check": {"op": "exists", "path": "input"}},
            ConditionNode,
        ),
        ({"id": "a", "type": "foreach", "over": "input.xs", "as": "x"}, ForeachNode),
        ({"id": "a", "type": "join"}, JoinNode),
        ({"id": "a", "type": "end"}, EndNode),
        ({"id": "a", "type": "interrupt", "kind": "approval"}, InterruptNode),
    ],
)
def test_step_union_dispatches_on_type(raw: dict[str, Any], model: type) -> None:
    assert isinstance(STEP.validate_python(raw), model)


def test_unknown_node_type_is_one_error() -> None:
    assert _errors({"id": "a", "type": "loop"}) == [
        "unknown node type 'loop'; expected one of node, subgraph, condition, foreach, join, "
        "end, interrupt"
    ]


def test_missing_node_type_is_one_error() -> None:
    assert _errors({"id": "a"}) == [
        "missing required key 'type'; expected one of node, subgraph, condition, foreach, join, "
        "end, interrupt"
    ]


def test_node_must_be_an_object() -> None:
    assert _errors("node") == ["expected an object, got string"]


def test_unknown_keys_are_ignored_on_nodes() -> None:
    node = STEP.validate_python({"id": "a", "type": "join", "note": "x"})
    assert node.model_dump() == {"id": "a", "type": "join"}


# --- node ------------------------------------------------------------------------


def test_node_use_defaults_and_constraints() -> None:
    node = NodeUse.model_validate({"id": "a", "type": "node", "node": "demo.echo"})
    assert (node.desc, node.input, node.output, node.retry, node.timeout_seconds) == (
        None,
        [],
        [],
        None,
        None,
    )
    with pytest.raises(ValidationError):
        NodeUse.model_validate({"id": "a", "type": "node", "node": "d", "retry": -1})
    with pytest.raises(ValidationError):
        NodeUse.model_validate({"id": "a", "type": "node", "node": "d", "timeout_seconds": 0})


def test_node_use_legacy_maps_are_folded_in_order() -> None:
    node = NodeUse.model_validate(
        {
            "id": "a",
            "type": "node",
            "node": "d",
            "in_map": {"input.customer": "customer"},
            "input_values": {"mode": "fast"},
            "out_map": {"amount": "state.total"},
        }
    )
    assert node.input == [
        InputValueBinding(target=LocalPath(("mode",)), value="fast"),
        InputPathBinding(target=LocalPath(("customer",)), path=GraphSourcePath.input("customer")),
    ]
    assert node.output == [
        OutputBinding(source=LocalPath(("amount",)), target=StatePath(("total",)))
    ]
    dumped = node.model_dump(mode="json")
    assert not {"in_map", "input_values", "out_map"} & set(dumped)


def test_node_use_cannot_mix_legacy_and_canonical() -> None:
    with pytest.raises(
        ValidationError,
        match="cannot mix canonical input/output with deprecated fields: in_map, out_map",
    ):
        NodeUse.model_validate(
            {"id": "a", "type": "node", "node": "d", "in_map": {}, "out_map": {}, "input": []}
        )


def test_node_use_legacy_value_must_be_a_mapping() -> None:
    with pytest.raises(ValidationError, match="in_map must be a mapping"):
        NodeUse.model_validate({"id": "a", "type": "node", "node": "d", "in_map": ["x"]})


# --- subgraph ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "dumped", "display"),
    [
        ("child", {"name": "child"}, "child"),
        ({"name": "child"}, {"name": "child"}, "child"),
        ("workflow.billing.v3", {"artifact_id": "billing", "version": 3}, "workflow.billing.v3"),
        (
            "workflow.acme.billing.v12",
            {"artifact_id": "acme.billing", "version": 12},
            "workflow.acme.billing.v12",
        ),
        ({"artifact_id": "x", "version": 1}, {"artifact_id": "x", "version": 1}, "workflow.x.v1"),
        ("workflow.x", {"name": "workflow.x"}, "workflow.x"),
    ],
)
def test_workflow_ref_forms(raw: Any, dumped: dict[str, Any], display: str) -> None:
    ref = WorkflowRef.model_validate(raw)
    assert ref.model_dump(mode="json") == dumped
    assert ref.display == display


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({}, "workflow ref requires exactly one of name or artifact_id/version"),
        (
            {"name": "a", "artifact_id": "b", "version": 1},
            "workflow ref requires exactly one of name or artifact_id/version",
        ),
        ({"artifact_id": "b"}, "workflow artifact ref requires both artifact_id and version"),
        ({"version": 2}, "workflow artifact ref requires both artifact_id and version"),
        ({"name": "  "}, "workflow ref name must not be empty"),
        ("", "workflow ref name must not be empty"),
        ({"artifact_id": " ", "version": 1}, "workflow artifact id must not be empty"),
        ({"name": "a", "extra": 1}, "Extra inputs are not permitted"),
    ],
)
def test_workflow_ref_errors(raw: Any, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        WorkflowRef.model_validate(raw)


def test_workflow_ref_version_at_least_one() -> None:
    with pytest.raises(ValidationError) as info:
        WorkflowRef.model_validate("workflow.billing.v0")
    assert info.value.errors()[0]["loc"] == ("version",)


def test_subgraph_defaults() -> None:
    node = SubgraphNode.model_validate({"id": "s", "type": "subgraph", "workflow": "child"})
    dumped = node.model_dump(mode="json")
    assert dumped["input_schema"] == {"type": "object", "properties": {}, "required": []}
    assert dumped["output_schema"] == {"type": "object", "properties": {}, "required": []}
    assert node.outcomes == ["ok"]
    with pytest.raises(ValidationError):
        SubgraphNode.model_validate(
            {"id": "s", "type": "subgraph", "workflow": "child", "outcomes": []}
        )


# --- condition -------------------------------------------------------------------


def test_condition_tree() -> None:
    node = ConditionNode.model_validate(
        {
            "id": "c",
            "type": "condition",
            "check": {
                "op": "and",
                "args": [
                    {"op": "exists", "path": "state.a"},
                    {
                        "op": "not",
                        "arg": {"op": "eq", "left": {"path": "input.n"}, "right": {"value": 3}},
                    },
                ],
            },
        }
    )
    check = node.check
    assert isinstance(check, VariadicCondition) and check.op == "and"
    assert isinstance(check.args[0], ExistsCondition)
    negated = check.args[1]
    assert isinstance(negated, NotCondition)
    assert isinstance(negated.arg, BinaryCondition)
    assert isinstance(negated.arg.left, PathOperand)
    assert isinstance(negated.arg.right, LiteralOperand)
    assert negated.arg.right.value == 3
    assert ConditionNode.model_validate(node.model_dump(mode="json")) == node


def test_condition_errors() -> None:
    base = {"id": "c", "type": "condition"}
    assert _errors({**base, "check": {"op": "xor"}}) == [
        "unknown condition op 'xor'; expected one of exists, not, and, or, eq, ne, gt, ge, lt, le"
    ]
    assert _errors({**base, "check": {"op": "or", "args": []}}) == [
        "List should have at least 1 item after validation, not 0"
    ]
    assert _errors({**base, "check": {"op": "eq", "left": {"x": 1}, "right": {"value": 1}}}) == [
        "operand needs one of path or value"
    ]


# --- foreach ---------------------------------------------------------------------


def _foreach(**extra: Any) -> dict[str, Any]:
    return {"id": "orders.v2", "type": "foreach", "over": "input.orders", "as": "order", **extra}


def test_foreach_defaults_and_computed_paths() -> None:
    node = ForeachNode.model_validate(_foreach())
    assert node.as_ == "order"
    assert node.mode == "serial"
    assert node.item_error == ForeachItemErrorPolicy(action="fail")
    assert node.concurrent is None
    assert str(node.item) == 'context.foreach."orders.v2".item'
    assert str(node.index) == 'context.foreach."orders.v2".index'
    dumped = node.model_dump(mode="json", by_alias=True)
    assert dumped == {
        "id": "orders.v2",
        "type": "foreach",
        "over": "input.orders",
        "as": "order",
        "mode": "serial",
        "item_error": {"action": "fail", "collect_to": None},
        "concurrent": None,
    }
    assert "as_" in node.model_dump()


def test_foreach_populates_by_name() -> None:
    node = ForeachNode(id="f", type="foreach", over=GraphSourcePath.input("xs"), as_="x")
    assert node.as_ == "x"


def test_foreach_item_error_policies() -> None:
    assert ForeachNode.model_validate(_foreach(item_error="skip")).item_error.action == "skip"
    collect = ForeachNode.model_validate(
        _foreach(item_error={"action": "collect", "collect_to": "state.errors"})
    )
    assert collect.item_error.collect_to == StatePath(("errors",))
    with pytest.raises(ValidationError, match="collect item error policy requires collect_to"):
        ForeachItemErrorPolicy.model_validate({"action": "collect"})
    with pytest.raises(ValidationError, match="collect_to is only valid when action='collect'"):
        ForeachItemErrorPolicy.model_validate({"action": "skip", "collect_to": "state.e"})
    with pytest.raises(ValidationError, match="Extra inputs"):
        ForeachItemErrorPolicy.model_validate({"action": "skip", "retry": 1})


def test_foreach_concurrent_policy() -> None:
    policy = ForeachConcurrentPolicy()
    assert (policy.max_active, policy.max_outstanding, policy.interrupt) == (4, 20, "quiesce")
    with pytest.raises(ValidationError, match="max_outstanding must be >= max_active"):
        ForeachConcurrentPolicy(max_active=5, max_outstanding=4)
    with pytest.raises(ValidationError):
        ForeachConcurrentPolicy(max_active=0)
    node = ForeachNode.model_validate(_foreach(mode="concurrent", concurrent={"max_active": 2}))
    assert node.concurrent == ForeachConcurrentPolicy(max_active=2)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"mode": "concurrent"}, "concurrent foreach requires concurrent policy"),
        ({"concurrent": {}}, "concurrent policy is only valid when mode='concurrent'"),
        (
            {"parallel": {}, "concurrent": {}, "mode": "concurrent"},
            "cannot mix deprecated parallel with concurrent",
        ),
        (
            {"on_item_error": "skip", "item_error": {"action": "skip"}},
            "cannot mix deprecated on_item_error with item_error",
        ),
    ],
)
def test_foreach_errors(extra: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        ForeachNode.model_validate(_foreach(**extra))


def test_foreach_legacy_forms() -> None:
    node = ForeachNode.model_validate(
        _foreach(mode="parallel", parallel={"max_active": 2}, on_item_error="skip")
    )
    assert node.mode == "concurrent"
    assert node.concurrent == ForeachConcurrentPolicy(max_active=2)
    assert node.item_error.action == "skip"
    assert node.on_item_error == "skip"
    dumped = node.model_dump(mode="json", by_alias=True)
    assert "on_item_error" not in dumped and "parallel" not in dumped
    assert dumped["item_error"] == {"action": "skip", "collect_to": None}


def test_foreach_invalid_on_item_error_is_reported_once() -> None:
    assert _errors(_foreach(on_item_error="explode")) == [
        "Input should be 'fail', 'collect' or 'skip'"
    ]


# --- join, end, interrupt ----------------------------------------------------------


def test_end_node_outcome() -> None:
    assert EndNode.model_validate({"id": "e", "type": "end"}).outcome == "ok"
    with pytest.raises(ValidationError):
        EndNode.model_validate({"id": "e", "type": "end", "outcome": ""})


def test_interrupt_defaults_and_contract_flag() -> None:
    node = InterruptNode.model_validate({"id": "i", "type": "interrupt", "kind": "approval"})
    assert node.outcomes == ["submitted"]
    assert node.request_schema == {"type": "object", "additionalProperties": True}
    assert node.resume_schema == {"type": "object", "additionalProperties": True}
    assert node.has_explicit_contract is False
    assert "has_explicit_contract" not in node.model_dump()
    explicit = InterruptNode.model_validate(
        {"id": "i", "type": "interrupt", "kind": "k", "resume_schema": {"type": "object"}}
    )
    assert explicit.has_explicit_contract is True
    assert (
        InterruptNode.model_validate(
            {"id": "i", "type": "interrupt", "kind": "k", "outcomes": []}
        ).outcomes
        == []
    )


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ("object", "request_schema must be a JSON Schema object"),
        ({"type": "objekt"}, "invalid JSON Schema: "),
        ({"type": "array"}, "request_schema must describe a JSON object"),
        ({"properties": {}}, "request_schema must describe a JSON object"),
    ],
)
def test_interrupt_schema_checks(schema: Any, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        InterruptNode.model_validate(
            {"id": "i", "type": "interrupt", "kind": "k", "request_schema": schema}
        )


def test_interrupt_legacy_maps() -> None:
    node = InterruptNode.model_validate(
        {
            "id": "i",
            "type": "interrupt",
            "kind": "k",
            "request_map": {"state.q": "question"},
            "out_map": {"answer": "state.answer"},
        }
    )
    assert node.request == [
        InputPathBinding(target=LocalPath(("question",)), path=GraphSourcePath.state("q"))
    ]
    assert node.resume == [
        OutputBinding(source=LocalPath(("answer",)), target=StatePath(("answer",)))
    ]
    with pytest.raises(
        ValidationError,
        match="cannot mix canonical request/resume with deprecated fields: request_map",
    ):
        InterruptNode.model_validate(
            {"id": "i", "type": "interrupt", "kind": "k", "request_map": {}, "resume": []}
        )


# --- declared outcomes -------------------------------------------------------------


def test_declared_outcomes() -> None:
    defs = {
        "charge": NodeDef.model_validate(
            {
                "name": "charge",
                "input_schema": {},
                "output_schema": {},
                "outcomes": ["ok", "declined"],
            }
        )
    }

    def outcomes(raw: dict[str, Any]) -> frozenset[str]:
        return declared_outcomes(STEP.validate_python(raw), defs)

    assert outcomes({"id": "a", "type": "node", "node": "charge"}) == {"ok", "declined"}
    assert outcomes({"id": "a", "type": "node", "node": "missing"}) == frozenset()
    assert outcomes({"id": "a", "type": "subgraph", "workflow": "c", "outcomes": ["x"]}) == {"x"}
    assert outcomes(
        {"id": "a", "type": "condition", "check": {"op": "exists", "path": "input"}}
    ) == {"true", "false"}
    assert outcomes(_foreach()) == {"loop", "done"}
    assert outcomes(_foreach(item_error="skip")) == {"loop", "done", "completed_with_errors"}
    collect = _foreach(item_error={"action": "collect", "collect_to": "state.e"})
    assert outcomes(collect) == {"loop", "done", "completed_with_errors"}
    assert outcomes({"id": "a", "type": "join"}) == {"done"}
    assert outcomes({"id": "a", "type": "end", "outcome": "failed"}) == frozenset()
    assert outcomes({"id": "a", "type": "interrupt", "kind": "k"}) == {"submitted"}
