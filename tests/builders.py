"""Compact workflow builders for analysis tests.

``edges`` are ``"from:outcome->to"`` strings so a scenario reads like the
graph it describes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wf_core.models import Workflow

EXAMPLES = Path(__file__).parent.parent / "examples"

# The examples with two wrong context reads each, in two nodes, the first above the second.
BILLING_WITH_MISTAKES = (
    (EXAMPLES / "billing.wf.toml")
    .read_text(encoding="utf-8")
    .replace("customers.item.orders", "customers.item.ordrs")
    .replace("customers.item.name", "customers.item.nam")
)
APPROVALS_WITH_MISTAKES = (
    (EXAMPLES / "approvals.wf.json")
    .read_text(encoding="utf-8")
    .replace('"context.foreach.requests.item.amount"', '"context.foreach.requests.item.amont"', 1)
    .replace("requests.item.requester", "requests.item.requestr")
)

TASK_DEF = {
    "name": "task",
    "outcomes": ["ok"],
    "input_schema": {"type": "object", "properties": {"x": {}, "y": {}, "z": {}}},
    "output_schema": {"type": "object", "properties": {"out": {}}},
}
BRANCH_DEF = {
    "name": "branch",
    "outcomes": ["ok", "back"],
    "input_schema": {"type": "object", "properties": {"x": {}}},
    "output_schema": {"type": "object"},
}


def edge(spec: str) -> dict[str, str]:
    source, rest = spec.split(":", 1)
    outcome, target = rest.split("->", 1)
    return {"from": source.strip(), "outcome": outcome.strip(), "to": target.strip()}


def task(node_id: str, *paths: str, node: str = "task") -> dict[str, Any]:
    targets = ["x", "y", "z"]
    return {
        "id": node_id,
        "type": "node",
        "node": node,
        "input": [{"target": targets[i], "path": p} for i, p in enumerate(paths)],
    }


def foreach(node_id: str, over: str, alias: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": node_id,
        "type": "foreach",
        "over": over,
        "as": node_id if alias is None else alias,
        **extra,
    }


def every_read_kind(path: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Nodes and edges that read ``path`` in every place a read may hide: deep inside an
    input expression, in nested condition arguments and operands, in an interrupt
    request, and as a foreach ``over`` (in that order, nodes 1 to 4)."""
    return (
        [
            foreach("loop", "input.items"),
            {
                "id": "use",
                "type": "node",
                "node": "task",
                "input": [
                    {
                        "target": "x",
                        "expression": {
                            "kind": "array",
                            "items": [
                                {"kind": "literal", "value": 1},
                                {
                                    "kind": "object",
                                    "fields": {"deep": {"kind": "path", "path": path}},
                                },
                            ],
                        },
                    }
                ],
            },
            {
                "id": "check",
                "type": "condition",
                "check": {
                    "op": "not",
                    "arg": {
                        "op": "and",
                        "args": [
                            {"op": "exists", "path": path},
                            {"op": "eq", "left": {"path": path}, "right": {"value": 1}},
                        ],
                    },
                },
            },
            {
                "id": "ask",
                "type": "interrupt",
                "kind": "k",
                "request": [{"target": "q", "path": path}],
            },
            foreach("inner", path),
        ],
        [
            "loop:loop->use",
            "use:ok->check",
            "check:true->ask",
            "check:false->inner",
            "ask:submitted->loop",
            "inner:loop->loop",
            "inner:done->loop",
            "loop:done->__end__",
        ],
    )


def workflow_dict(
    nodes: list[dict[str, Any]],
    edges: list[str],
    *,
    start: str | None = None,
    input_schema: dict[str, Any] | None = None,
    state_schema: dict[str, Any] | None = None,
    output_schema: dict[str, Any] | None = None,
    output: list[dict[str, Any]] | None = None,
    outcomes: list[str] | None = None,
) -> dict[str, Any]:
    return {
        "name": "test",
        "start": start or nodes[0]["id"],
        "outcomes": outcomes or ["ok"],
        "input_schema": input_schema
        or {"type": "object", "properties": {"items": {"type": "array", "items": {}}}},
        "state_schema": state_schema or {"type": "object", "properties": {"acc": {}}},
        "output_schema": output_schema or {"type": "object", "properties": {"result": {}}},
        "node_defs": [TASK_DEF, BRANCH_DEF],
        "nodes": nodes,
        "edges": [edge(e) for e in edges],
        "output": output or [],
    }


def build(nodes: list[dict[str, Any]], edges: list[str], **kwargs: Any) -> Workflow:
    return Workflow.model_validate(workflow_dict(nodes, edges, **kwargs))
