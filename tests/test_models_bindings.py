"""Bindings, JSON values and input expressions (lda-wf-model §2.8)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from wf_core.language.paths import GraphSourcePath, LocalPath, StatePath
from wf_core.models import (
    MAX_INPUT_EXPRESSION_DEPTH,
    MAX_INPUT_EXPRESSION_NODES,
    ArrayExpression,
    InputBinding,
    InputExpressionBinding,
    InputPathBinding,
    InputValueBinding,
    LiteralExpression,
    ObjectExpression,
    OutputBinding,
    PathExpression,
    StepInputBinding,
)

STEP_INPUT = TypeAdapter(StepInputBinding)
OUTPUT_INPUT = TypeAdapter(InputBinding)


def test_binding_branch_is_chosen_by_key() -> None:
    assert isinstance(
        STEP_INPUT.validate_python({"target": "a", "path": "input.x"}), InputPathBinding
    )
    assert isinstance(STEP_INPUT.validate_python({"target": "a", "value": 1}), InputValueBinding)
    expression = STEP_INPUT.validate_python(
        {"target": "a", "expression": {"kind": "literal", "value": 1}}
    )
    assert isinstance(expression, InputExpressionBinding)


def test_path_binding_parses_paths() -> None:
    binding = STEP_INPUT.validate_python(
        {"target": "order", "path": 'context.foreach."orders.v2".item'}
    )
    assert binding.target == LocalPath(("order",))
    assert binding.path == GraphSourcePath("context", ("foreach", "orders.v2", "item"))
    assert STEP_INPUT.dump_python(binding, mode="json") == {
        "target": "order",
        "path": 'context.foreach."orders.v2".item',
    }


def test_root_target() -> None:
    binding = STEP_INPUT.validate_python({"target": ".", "path": "input"})
    assert binding.target.is_root
    assert STEP_INPUT.dump_python(binding, mode="json") == {"target": ".", "path": "input"}


def test_binding_without_a_source_key_is_one_clear_error() -> None:
    with pytest.raises(ValidationError) as info:
        STEP_INPUT.validate_python({"target": "a"})
    errors = info.value.errors()
    assert len(errors) == 1
    assert errors[0]["msg"] == "binding needs one of path, value or expression"


def test_workflow_output_bindings_have_no_expressions() -> None:
    with pytest.raises(ValidationError, match="binding needs one of path or value"):
        OUTPUT_INPUT.validate_python({"target": "a", "expression": {"kind": "literal", "value": 1}})


def test_bindings_forbid_extra_keys() -> None:
    with pytest.raises(ValidationError) as info:
        STEP_INPUT.validate_python({"target": "a", "path": "input.x", "value": 1})
    assert [e["type"] for e in info.value.errors()] == ["extra_forbidden"]


def test_bad_path_reports_the_path_error() -> None:
    with pytest.raises(ValidationError) as info:
        STEP_INPUT.validate_python({"target": "a", "path": "input.a b"})
    assert info.value.errors()[0]["msg"] == (
        "Value error, invalid TOML path 'input.a b'; quote path segments containing dots or spaces"
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ((1, 2), "value must be a finite JSON value"),
        ({1, 2}, "value must be a finite JSON value"),
        ([1, [object()]], "value must be a finite JSON value"),
        (math.nan, "JSON numbers must be finite"),
        ({"a": [math.inf]}, "JSON numbers must be finite"),
        ({1: "x"}, "JSON object keys must be strings"),
    ],
)
def test_json_value_rejections(value: object, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        InputValueBinding.model_validate({"target": "a", "value": value})


def test_json_value_accepts_nested_json() -> None:
    value = {"a": [None, True, 1, 2.5, "s", {"b": []}]}
    assert InputValueBinding.model_validate({"target": "a", "value": value}).value == value


def test_output_binding() -> None:
    binding = OutputBinding.model_validate({"source": "amount", "target": "state.total"})
    assert binding.target == StatePath(("total",))
    with pytest.raises(ValidationError, match=r"expected state path such as state\.foo"):
        OutputBinding.model_validate({"source": "amount", "target": "input.total"})
    with pytest.raises(ValidationError, match="Extra inputs"):
        OutputBinding.model_validate({"source": "a", "target": "state.a", "path": "input.a"})


def test_expression_tree_parses_every_kind() -> None:
    binding = InputExpressionBinding.model_validate(
        {
            "target": "payload",
            "expression": {
                "kind": "object",
                "fields": {
                    "ids": {
                        "kind": "array",
                        "items": [
                            {"kind": "path", "path": "state.id"},
                            {"kind": "literal", "value": [1, {"x": None}]},
                        ],
                    }
                },
            },
        }
    )
    expression = binding.expression
    assert isinstance(expression, ObjectExpression)
    ids = expression.fields["ids"]
    assert isinstance(ids, ArrayExpression)
    assert isinstance(ids.items[0], PathExpression)
    assert ids.items[0].path == GraphSourcePath("state", ("id",))
    assert isinstance(ids.items[1], LiteralExpression)
    dumped = binding.model_dump(mode="json")
    assert dumped["expression"]["fields"]["ids"]["items"][0] == {"kind": "path", "path": "state.id"}
    assert InputExpressionBinding.model_validate(dumped) == binding


def test_unknown_expression_kind() -> None:
    with pytest.raises(ValidationError) as info:
        InputExpressionBinding.model_validate({"target": "a", "expression": {"kind": "lit"}})
    (error,) = info.value.errors()
    assert (
        error["msg"]
        == "unknown expression kind 'lit'; expected one of literal, path, array, object"
    )


def test_literal_expression_is_strict_and_closed() -> None:
    with pytest.raises(ValidationError, match="Extra inputs"):
        InputExpressionBinding.model_validate(
            {"target": "a", "expression": {"kind": "literal", "value": 1, "path": "input.a"}}
        )


def _nested_arrays(levels: int) -> dict[str, Any]:
    expression: dict[str, Any] = {"kind": "literal", "value": 1}
    for _ in range(levels - 1):
        expression = {"kind": "array", "items": [expression]}
    return expression


def test_expression_depth_limit_boundary() -> None:
    InputExpressionBinding.model_validate(
        {"target": "a", "expression": _nested_arrays(MAX_INPUT_EXPRESSION_DEPTH)}
    )
    loc = "expression" + ".items[0]" * MAX_INPUT_EXPRESSION_DEPTH
    with pytest.raises(ValidationError) as info:
        InputExpressionBinding.model_validate(
            {"target": "a", "expression": _nested_arrays(MAX_INPUT_EXPRESSION_DEPTH + 1)}
        )
    assert info.value.errors()[0]["msg"] == (
        f"Value error, input expression depth limit exceeded at {loc}"
    )


def test_literal_containers_count_towards_depth() -> None:
    value: Any = 1
    for _ in range(MAX_INPUT_EXPRESSION_DEPTH - 1):
        value = [value]
    # literal node at depth 1, its 63 nested lists at depths 2..64: allowed.
    InputExpressionBinding.model_validate(
        {"target": "a", "expression": {"kind": "literal", "value": value}}
    )
    with pytest.raises(ValidationError) as info:
        InputExpressionBinding.model_validate(
            {"target": "a", "expression": {"kind": "literal", "value": [value]}}
        )
    loc = "expression.value" + "[0]" * (MAX_INPUT_EXPRESSION_DEPTH - 1)
    assert f"input expression depth limit exceeded at {loc}" in str(info.value)


def test_expression_node_limit_location() -> None:
    # The array is node 1; each item is a literal (1) holding a list (1) holding a dict (1).
    items = [{"kind": "literal", "value": [{"k": 1}]} for _ in range(400)]
    with pytest.raises(ValidationError) as info:
        InputExpressionBinding.model_validate(
            {"target": "a", "expression": {"kind": "array", "items": items}}
        )
    index = (MAX_INPUT_EXPRESSION_NODES - 1) // 3  # first item past the limit
    assert "input expression node limit exceeded at " in str(info.value)
    assert f"expression.items[{index}]" in str(info.value)


def test_node_limit_reports_nested_literal_location() -> None:
    fields = {"x": {"kind": "literal", "value": [1, 2, [3, [4]]]}}
    items = [{"kind": "literal", "value": 0}] * (MAX_INPUT_EXPRESSION_NODES - 4)
    expression = {
        "kind": "array",
        "items": [*items, {"kind": "object", "fields": fields}],
    }
    # 1 (array) + 1020 literals + object + literal x + list = 1024; the inner [3, [4]] is 1025th.
    with pytest.raises(ValidationError) as info:
        InputExpressionBinding.model_validate({"target": "a", "expression": expression})
    assert (
        f"input expression node limit exceeded at expression.items[{len(items)}].fields.x.value[2]"
        in str(info.value)
    )
