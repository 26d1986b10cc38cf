"""Writing workflows in Python.

A :class:`WorkflowBuilder` collects node defs, nodes, edges and output
bindings and builds the same :class:`Workflow` model a document does; its
``to_toml()`` goes through the canonical exporter, so a workflow written in
Python opens in the editor like any other document.

Loop items are read structurally: ``orders.item`` is
``context.foreach."orders.v2".item`` whatever the foreach id looks like,
and ``customers.item.child("name")`` goes one level further.

    wf = WorkflowBuilder("billing", input_schema=..., state_schema=..., output_schema=...)
    charge_order = wf.node_def("charge_order", input_schema=..., output_schema=...)
    customers = wf.foreach("customers", "input.customers", as_="customer")
    orders = wf.foreach("orders.v2", customers.item.child("orders"), as_="order")
    charge = wf.use("charge", charge_order,
                    input={"order": orders.item, "customer": customers.item.child("name")},
                    output={"amount": "state.total"})
    wf.route(customers, "loop", orders).route(orders, "loop", charge)
    wf.route(charge, "ok", orders).route(orders, "done", customers)
    wf.route(customers, "done", END)
    wf.output(total="state.total")
    text = wf.to_toml()

In input bindings a string or :class:`GraphSourcePath` is a path and
:func:`value` marks a literal; in conditions a :class:`GraphSourcePath`
(or :func:`path`) is a path and anything else a literal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypeAlias

from wf_core.authoring.export import to_json, to_toml
from wf_core.language.paths import GraphSourcePath, LocalPath, StatePath
from wf_core.language.tokens import END
from wf_core.models import (
    ConditionNode,
    EndNode,
    ForeachNode,
    InterruptNode,
    JoinNode,
    NodeDef,
    NodeUse,
    SubgraphNode,
    Workflow,
)
from wf_core.models.steps import AnyStep
from wf_core.runtime.contracts import schema_dict

__all__ = [
    "END",
    "Value",
    "WorkflowBuilder",
    "all_of",
    "any_of",
    "eq",
    "exists",
    "ge",
    "gt",
    "le",
    "lt",
    "ne",
    "not_",
    "path",
    "value",
]


@dataclass(frozen=True, slots=True)
class Value:
    """A literal in an input binding (a bare string there means a path)."""

    value: object


def value(literal: object) -> Value:
    return Value(literal)


def path(text: str) -> GraphSourcePath:
    """Parse a path string (TOML key syntax): ``path('context.foreach."orders.v2".item')``."""
    return GraphSourcePath.parse(text)


PathLike: TypeAlias = GraphSourcePath | str
Binding: TypeAlias = GraphSourcePath | str | Value
NodeRef: TypeAlias = AnyStep | str
ConditionDict: TypeAlias = dict[str, object]


def _source(source: PathLike) -> GraphSourcePath:
    return source if isinstance(source, GraphSourcePath) else GraphSourcePath.parse(source)


def _input_bindings(bindings: Mapping[str, Binding]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for target, source in bindings.items():
        local = LocalPath.parse(target)
        if isinstance(source, Value):
            out.append({"target": local, "value": source.value})
        else:
            out.append({"target": local, "path": _source(source)})
    return out


def _output_bindings(bindings: Mapping[str, StatePath | str]) -> list[dict[str, object]]:
    return [
        {
            "source": LocalPath.parse(source),
            "target": target if isinstance(target, StatePath) else StatePath.parse(target),
        }
        for source, target in bindings.items()
    ]


# -- conditions --------------------------------------------------------------------


def _operand(operand: object) -> dict[str, object]:
    if isinstance(operand, GraphSourcePath):
        return {"path": operand}
    return {"value": operand}


def exists(source: PathLike) -> ConditionDict:
    return {"op": "exists", "path": _source(source)}


def not_(condition: ConditionDict) -> ConditionDict:
    return {"op": "not", "arg": condition}


def all_of(*conditions: ConditionDict) -> ConditionDict:
    return {"op": "and", "args": list(conditions)}


def any_of(*conditions: ConditionDict) -> ConditionDict:
    return {"op": "or", "args": list(conditions)}


def _binary(op: str, left: object, right: object) -> ConditionDict:
    return {"op": op, "left": _operand(left), "right": _operand(right)}


def eq(left: object, right: object) -> ConditionDict:
    return _binary("eq", left, right)


def ne(left: object, right: object) -> ConditionDict:
    return _binary("ne", left, right)


def gt(left: object, right: object) -> ConditionDict:
    return _binary("gt", left, right)


def ge(left: object, right: object) -> ConditionDict:
    return _binary("ge", left, right)


def lt(left: object, right: object) -> ConditionDict:
    return _binary("lt", left, right)


def le(left: object, right: object) -> ConditionDict:
    return _binary("le", left, right)


# -- the builder ------------------------------------------------------------------


def _open_object() -> dict[str, object]:
    return {"type": "object"}


class WorkflowBuilder:
    """Collects a workflow piece by piece; :meth:`build` validates the model.

    Node methods return the node model, so a foreach's ``.item``/``.index``
    paths and every node's ``id`` can be used in later calls. The first node
    added is the start unless ``start`` is given.
    """

    def __init__(
        self,
        name: str,
        *,
        input_schema: Mapping[str, object] | None = None,
        state_schema: Mapping[str, object] | None = None,
        output_schema: Mapping[str, object] | None = None,
        outcomes: tuple[str, ...] | list[str] = ("ok",),
        start: str | None = None,
    ) -> None:
        self.name = name
        self.input_schema = dict(input_schema or _open_object())
        self.state_schema = dict(state_schema or _open_object())
        self.output_schema = dict(output_schema or _open_object())
        self.outcomes = list(outcomes)
        self.start = start
        self.node_defs: list[NodeDef] = []
        self.nodes: list[AnyStep] = []
        self.edges: list[dict[str, str]] = []
        self.output_bindings: list[dict[str, object]] = []

    def _add(self, node: AnyStep) -> None:
        self.nodes.append(node)
        if self.start is None:
            self.start = node.id

    def node_def(
        self,
        name: str,
        *,
        input_schema: Mapping[str, object] | None = None,
        output_schema: Mapping[str, object] | None = None,
        outcomes: tuple[str, ...] | list[str] = ("ok",),
        retry: int | None = None,
        timeout_seconds: int | None = None,
    ) -> NodeDef:
        definition = NodeDef.model_validate(
            {
                "name": name,
                "input_schema": dict(input_schema or _open_object()),
                "output_schema": dict(output_schema or _open_object()),
                "outcomes": list(outcomes),
                "retry": retry,
                "timeout_seconds": timeout_seconds,
            }
        )
        self.node_defs.append(definition)
        return definition

    def use(
        self,
        node_id: str,
        node: NodeDef | str,
        *,
        input: Mapping[str, Binding] | None = None,
        output: Mapping[str, StatePath | str] | None = None,
        retry: int | None = None,
        timeout_seconds: int | None = None,
        desc: str | None = None,
    ) -> NodeUse:
        step = NodeUse.model_validate(
            {
                "id": node_id,
                "type": "node",
                "node": node.name if isinstance(node, NodeDef) else node,
                "desc": desc,
                "input": _input_bindings(input or {}),
                "output": _output_bindings(output or {}),
                "retry": retry,
                "timeout_seconds": timeout_seconds,
            }
        )
        self._add(step)
        return step

    def foreach(
        self,
        node_id: str,
        over: PathLike,
        *,
        as_: str,
        mode: Literal["serial", "concurrent"] = "serial",
        max_active: int = 4,
        max_outstanding: int = 20,
        item_error: Literal["fail", "skip", "collect"] = "fail",
        collect_to: StatePath | str | None = None,
    ) -> ForeachNode:
        data: dict[str, object] = {
            "id": node_id,
            "type": "foreach",
            "over": _source(over),
            "as": as_,
            "mode": mode,
            "item_error": {"action": item_error, "collect_to": collect_to},
        }
        if mode == "concurrent":
            data["concurrent"] = {"max_active": max_active, "max_outstanding": max_outstanding}
        step = ForeachNode.model_validate(data)
        self._add(step)
        return step

    def condition(self, node_id: str, check: ConditionDict) -> ConditionNode:
        step = ConditionNode.model_validate({"id": node_id, "type": "condition", "check": check})
        self._add(step)
        return step

    def join(self, node_id: str) -> JoinNode:
        step = JoinNode(id=node_id, type="join")
        self._add(step)
        return step

    def end(self, node_id: str, outcome: str = "ok") -> EndNode:
        step = EndNode(id=node_id, type="end", outcome=outcome)
        self._add(step)
        return step

    def subgraph(
        self,
        node_id: str,
        workflow: str | Workflow | WorkflowBuilder,
        *,
        input: Mapping[str, Binding] | None = None,
        output: Mapping[str, StatePath | str] | None = None,
        outcomes: tuple[str, ...] | list[str] = ("ok",),
        input_schema: Mapping[str, object] | None = None,
        output_schema: Mapping[str, object] | None = None,
    ) -> SubgraphNode:
        name = workflow if isinstance(workflow, str) else workflow.name
        # Given the child itself, its own contracts are the natural boundary schemas.
        if isinstance(workflow, WorkflowBuilder):
            input_schema = input_schema or workflow.input_schema
            output_schema = output_schema or workflow.output_schema
        elif isinstance(workflow, Workflow):
            input_schema = input_schema or schema_dict(workflow.input_schema)
            output_schema = output_schema or schema_dict(workflow.output_schema)
        step = SubgraphNode.model_validate(
            {
                "id": node_id,
                "type": "subgraph",
                "workflow": name,
                "input": _input_bindings(input or {}),
                "output": _output_bindings(output or {}),
                "outcomes": list(outcomes),
                "input_schema": dict(input_schema or _open_object()),
                "output_schema": dict(output_schema or _open_object()),
            }
        )
        self._add(step)
        return step

    def interrupt(
        self,
        node_id: str,
        kind: str,
        *,
        request: Mapping[str, Binding] | None = None,
        resume: Mapping[str, StatePath | str] | None = None,
        outcomes: tuple[str, ...] | list[str] = ("submitted",),
        request_schema: Mapping[str, object] | None = None,
        resume_schema: Mapping[str, object] | None = None,
    ) -> InterruptNode:
        data: dict[str, object] = {
            "id": node_id,
            "type": "interrupt",
            "kind": kind,
            "request": _input_bindings(request or {}),
            "resume": _output_bindings(resume or {}),
            "outcomes": list(outcomes),
        }
        if request_schema is not None:
            data["request_schema"] = dict(request_schema)
        if resume_schema is not None:
            data["resume_schema"] = dict(resume_schema)
        step = InterruptNode.model_validate(data)
        self._add(step)
        return step

    def route(self, source: NodeRef, outcome: str, target: NodeRef) -> WorkflowBuilder:
        """Add the edge ``source --outcome--> target`` (``END`` ends the workflow)."""
        self.edges.append(
            {
                "from": source if isinstance(source, str) else source.id,
                "outcome": outcome,
                "to": target if isinstance(target, str) else target.id,
            }
        )
        return self

    def output(
        self, bindings: Mapping[str, Binding] | None = None, **named: Binding
    ) -> WorkflowBuilder:
        """Workflow output bindings, target → source (``output(total="state.total")``)."""
        self.output_bindings.extend(_input_bindings({**(bindings or {}), **named}))
        return self

    def build(self) -> Workflow:
        """The validated model (pydantic errors propagate as ``ValidationError``)."""
        return Workflow.model_validate(
            {
                "name": self.name,
                "start": self.start or "",
                "outcomes": self.outcomes,
                "input_schema": self.input_schema,
                "state_schema": self.state_schema,
                "output_schema": self.output_schema,
                "output": self.output_bindings,
                "node_defs": self.node_defs,
                "nodes": self.nodes,
                "edges": self.edges,
            }
        )

    def to_toml(self) -> str:
        return to_toml(self.build())

    def to_json(self) -> str:
        return to_json(self.build())
