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

from collections.abc import Iterator
from typing import Any, Literal

from wf_core.locations import Location
from wf_core.records import record

ReadKind = Literal["input", "request", "condition", "operand", "over", "output"]


@record
class PathRead:
    kind: ReadKind
    path: Any  # GraphSourcePath
    location: Location  # the location of the path value itself
    coarse_location: Location  # where lda-wf's coarse check reports
    node_id: str | None  # None for the workflow output


def expression_reads(expression: Any, location: Location) -> Iterator[tuple[Any, Location]]:
    """Path leaves of an input expression, depth first, with ``...expression...path`` locations."""
    stack: list[tuple[Any, Location]] = [(expression, location)]
    while stack:
        expr, loc = stack.pop()
        kind = getattr(expr, "kind", None)
        if kind == "path":
            yield expr.path, (*loc, "path")
        elif kind == "array":
            items = list(enumerate(expr.items))
            stack.extend((item, (*loc, "items", k)) for k, item in reversed(items))
        elif kind == "object":
            fields = list(expr.fields.items())
            stack.extend((item, (*loc, "fields", name)) for name, item in reversed(fields))


def binding_reads(bindings: Any, base: Location) -> Iterator[tuple[Any, Location]]:
    for j, binding in enumerate(bindings or ()):
        path = getattr(binding, "path", None)
        if path is not None:
            yield path, (*base, j, "path")
            continue
        expression = getattr(binding, "expression", None)
        if expression is not None:
            yield from expression_reads(expression, (*base, j, "expression"))


def condition_reads(
    condition: Any, location: Location
) -> Iterator[tuple[ReadKind, Any, Location, Location]]:
    """``(kind, path, location of the path, coarse location)`` for a condition tree."""
    stack: list[tuple[Any, Location]] = [(condition, location)]
    while stack:
        cond, loc = stack.pop()
        op = getattr(cond, "op", None)
        if op == "exists":
            yield "condition", cond.path, (*loc, "path"), loc
        elif op == "not":
            stack.append((cond.arg, (*loc, "arg")))
        elif op in ("and", "or"):
            args = list(enumerate(cond.args))
            stack.extend((arg, (*loc, "args", k)) for k, arg in reversed(args))
        else:
            for side in ("left", "right"):
                operand = getattr(cond, side, None)
                path = getattr(operand, "path", None)
                if path is not None:
                    yield "operand", path, (*loc, side, "path"), (*loc, side)


def node_reads(node: Any, index: int) -> Iterator[PathRead]:
    base: Location = ("nodes", index)
    node_type = getattr(node, "type", None)
    if node_type in ("node", "subgraph"):
        for path, loc in binding_reads(node.input, (*base, "input")):
            yield PathRead("input", path, loc, loc, node.id)
    elif node_type == "interrupt":
        for path, loc in binding_reads(node.request, (*base, "request")):
            yield PathRead("request", path, loc, loc, node.id)
    elif node_type == "condition":
        for kind, path, loc, coarse in condition_reads(node.check, (*base, "check")):
            yield PathRead(kind, path, loc, coarse, node.id)
    elif node_type == "foreach":
        yield PathRead("over", node.over, (*base, "over"), (*base, "over"), node.id)
