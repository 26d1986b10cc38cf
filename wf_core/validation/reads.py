"""Every place a workflow reads a graph path, with its model locations.

One walker serves the coarse source checks and the context-path pass, so they
can never disagree about which strings are paths. It walks the loaded model
(paths parsed, deprecated forms canonical); the semantic index, which the
editor features read, finds the same places in the document's values, and
``tests/test_reads_agreement.py`` holds the two to the same set of locations.
lda-wf names the same read two ways: the coarse condition check reports at the
condition (``nodes[0].check.arg``), the context pass at its ``path`` key
(``nodes[0].check.arg.path``). Both are recorded.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Literal

from wf_core.base.locations import Location
from wf_core.base.records import record
from wf_core.language.paths import GraphSourcePath
from wf_core.models.conditions import (
    BinaryCondition,
    Condition,
    ExistsCondition,
    NotCondition,
    PathOperand,
    VariadicCondition,
)
from wf_core.models.input_bindings import (
    InputExpression,
    InputExpressionBinding,
    InputPathBinding,
    InputValueBinding,
)
from wf_core.models.steps import AnyStep

ReadKind = Literal["input", "request", "condition", "operand", "over", "output"]


@record
class PathRead:
    kind: ReadKind
    path: GraphSourcePath
    location: Location  # the location of the path value itself
    coarse_location: Location  # where lda-wf's coarse check reports
    node_id: str | None  # None for the workflow output


def expression_reads(
    expression: InputExpression, location: Location
) -> Iterator[tuple[GraphSourcePath, Location]]:
    """Path leaves of an input expression, depth first, with ``...expression...path`` locations."""
    stack: list[tuple[InputExpression, Location]] = [(expression, location)]
    while stack:
        expr, loc = stack.pop()
        if expr.kind == "path":
            yield expr.path, (*loc, "path")
        elif expr.kind == "array":
            items = list(enumerate(expr.items))
            stack.extend((item, (*loc, "items", k)) for k, item in reversed(items))
        elif expr.kind == "object":
            fields = list(expr.fields.items())
            stack.extend((item, (*loc, "fields", name)) for name, item in reversed(fields))


def binding_reads(
    bindings: Iterable[InputPathBinding | InputValueBinding | InputExpressionBinding] | None,
    base: Location,
) -> Iterator[tuple[GraphSourcePath, Location]]:
    for j, binding in enumerate(bindings or ()):
        if isinstance(binding, InputPathBinding):
            yield binding.path, (*base, j, "path")
        elif isinstance(binding, InputExpressionBinding):
            yield from expression_reads(binding.expression, (*base, j, "expression"))


def condition_reads(
    condition: Condition, location: Location
) -> Iterator[tuple[ReadKind, GraphSourcePath, Location, Location]]:
    """``(kind, path, location of the path, coarse location)`` for a condition tree."""
    stack: list[tuple[Condition, Location]] = [(condition, location)]
    while stack:
        cond, loc = stack.pop()
        if isinstance(cond, ExistsCondition):
            yield "condition", cond.path, (*loc, "path"), loc
        elif isinstance(cond, NotCondition):
            stack.append((cond.arg, (*loc, "arg")))
        elif isinstance(cond, VariadicCondition):
            args = list(enumerate(cond.args))
            stack.extend((arg, (*loc, "args", k)) for k, arg in reversed(args))
        elif isinstance(cond, BinaryCondition):
            for side, operand in (("left", cond.left), ("right", cond.right)):
                if isinstance(operand, PathOperand):
                    yield "operand", operand.path, (*loc, side, "path"), (*loc, side)


def node_reads(node: AnyStep, index: int) -> Iterator[PathRead]:
    base: Location = ("nodes", index)
    if node.type == "node" or node.type == "subgraph":
        for path, loc in binding_reads(node.input, (*base, "input")):
            yield PathRead("input", path, loc, loc, node.id)
    elif node.type == "interrupt":
        for path, loc in binding_reads(node.request, (*base, "request")):
            yield PathRead("request", path, loc, loc, node.id)
    elif node.type == "condition":
        for kind, path, loc, coarse in condition_reads(node.check, (*base, "check")):
            yield PathRead(kind, path, loc, coarse, node.id)
    elif node.type == "foreach":
        yield PathRead("over", node.over, (*base, "over"), (*base, "over"), node.id)
