"""Reading paths, building payloads and evaluating conditions at run time.

Every read resolves against one :class:`Sources`: the scope's input and
state and the graph context of the frame doing the reading. Node inputs,
``over``, interrupt requests, subgraph boundaries, conditions (decision 1 of
the workflow format: the same context as node inputs) and the workflow
output all go through here, so they cannot see different things.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from wf_core.language.paths import GraphSourcePath
from wf_core.models import (
    BinaryCondition,
    ExistsCondition,
    InputExpressionBinding,
    InputPathBinding,
    InputValueBinding,
    LiteralOperand,
    NotCondition,
    PathOperand,
    VariadicCondition,
)
from wf_core.models.conditions import Condition
from wf_core.models.input_bindings import (
    ArrayExpression,
    InputExpression,
    LiteralExpression,
    ObjectExpression,
    PathExpression,
)
from wf_core.runtime.errors import WorkflowExecutionError
from wf_core.runtime.json_values import JsonObject, JsonValue, copy_json

__all__ = ["Sources", "build_payload", "evaluate_condition"]


@dataclass(frozen=True, slots=True)
class Sources:
    """The three roots a path can read, as one frame sees them."""

    workflow_input: JsonValue
    state: JsonObject
    context: JsonObject

    def read(self, path: GraphSourcePath) -> JsonValue:
        """The value at ``path``; raises ``WorkflowExecutionError`` when it is not there.

        The same walk as ``resolve_graph_path`` (mappings only, same message),
        written out because every activation reads several paths.
        """
        root = path.root
        current: JsonValue = (
            self.context
            if root == "context"
            else self.workflow_input
            if root == "input"
            else self.state
        )
        for part in path.parts:
            if not isinstance(current, Mapping) or part not in current:
                raise WorkflowExecutionError(f"path {str(path)!r} could not be resolved")
            current = current[part]
        return current

    def exists(self, path: GraphSourcePath) -> bool:
        try:
            self.read(path)
        except WorkflowExecutionError:
            return False
        return True


def _expression_value(expression: InputExpression, sources: Sources) -> JsonValue:
    if isinstance(expression, LiteralExpression):
        return copy_json(expression.value)
    if isinstance(expression, PathExpression):
        return sources.read(expression.path)
    if isinstance(expression, ArrayExpression):
        return [_expression_value(item, sources) for item in expression.items]
    if isinstance(expression, ObjectExpression):
        return {name: _expression_value(item, sources) for name, item in expression.fields.items()}
    raise WorkflowExecutionError(f"unsupported input expression {expression!r}")


def build_payload(
    bindings: Sequence[InputPathBinding | InputValueBinding | InputExpressionBinding],
    sources: Sources,
) -> JsonObject:
    """The payload a list of input (or request, or output) bindings describes.

    Target ``.`` writes the whole payload and needs an object. The payload
    is a fresh copy: whoever receives it may change it freely.
    """
    payload: JsonObject = {}
    for binding in bindings:
        if isinstance(binding, InputPathBinding):
            value = sources.read(binding.path)
        elif isinstance(binding, InputValueBinding):
            value = binding.value
        elif isinstance(binding, InputExpressionBinding):
            value = _expression_value(binding.expression, sources)
        else:
            raise WorkflowExecutionError(f"unsupported binding {binding!r}")
        parts = binding.target.parts
        if not parts:
            if not isinstance(value, Mapping):
                raise WorkflowExecutionError(
                    f"binding target '.' needs an object, got {type(value).__name__}"
                )
            payload = dict(value)
            continue
        _set(payload, parts, value)
    copied = copy_json(payload, "payload")
    assert isinstance(copied, dict)
    return copied


def _set(payload: JsonObject, parts: tuple[str, ...], value: JsonValue) -> None:
    current = payload
    for part in parts[:-1]:
        nxt = current.get(part)
        if not isinstance(nxt, dict):
            nxt = {}
            current[part] = nxt
        current = nxt
    current[parts[-1]] = value


_COMPARISONS = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
}


def _operand(operand: PathOperand | LiteralOperand, sources: Sources) -> object:
    if isinstance(operand, PathOperand):
        return sources.read(operand.path)
    return operand.value


def evaluate_condition(condition: Condition, sources: Sources) -> bool:
    """A condition tree's truth. ``and``/``or`` evaluate every argument (no short
    circuit), so an unresolvable operand anywhere is always reported."""
    if isinstance(condition, ExistsCondition):
        return sources.exists(condition.path)
    if isinstance(condition, NotCondition):
        return not evaluate_condition(condition.arg, sources)
    if isinstance(condition, VariadicCondition):
        results = [evaluate_condition(arg, sources) for arg in condition.args]
        return all(results) if condition.op == "and" else any(results)
    if isinstance(condition, BinaryCondition):
        left = _operand(condition.left, sources)
        right = _operand(condition.right, sources)
        try:
            return bool(_COMPARISONS[condition.op](left, right))
        except TypeError:
            raise WorkflowExecutionError(
                f"cannot compare {type(left).__name__} with {type(right).__name__} "
                f"using '{condition.op}'"
            ) from None
    raise WorkflowExecutionError(f"unsupported condition {condition!r}")
