"""Shared helpers for the runtime tests: small workflows and recording handlers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from builders import edge

from wf_core.models import Workflow
from wf_core.runtime import ActivationRecord, RunResult, RuntimeContext

ITEM_SCHEMA = {
    "type": "object",
    "required": ["name", "kids"],
    "properties": {
        "name": {"type": "string"},
        "kids": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name"],
                "properties": {"name": {"type": "string"}},
            },
        },
    },
}
INPUT_SCHEMA = {
    "type": "object",
    "required": ["rows"],
    "properties": {"rows": {"type": "array", "items": ITEM_SCHEMA}},
}
PROBE_DEF = {
    "name": "probe",
    "outcomes": ["ok"],
    "input_schema": {"type": "object", "properties": {"a": {}, "b": {}, "c": {}}},
    "output_schema": {"type": "object", "properties": {"out": {}}},
}

ROWS = [
    {"name": "r0", "kids": [{"name": "k00"}, {"name": "k01"}]},
    {"name": "r1", "kids": [{"name": "k10"}]},
]


def probe(node_id: str, **paths: str) -> dict[str, Any]:
    return {
        "id": node_id,
        "type": "node",
        "node": "probe",
        "input": [{"target": target, "path": p} for target, p in paths.items()],
    }


def loop(node_id: str, over: str, alias: str, **extra: Any) -> dict[str, Any]:
    return {"id": node_id, "type": "foreach", "over": over, "as": alias, **extra}


def workflow(
    nodes: list[dict[str, Any]],
    edges: list[str],
    *,
    name: str = "test",
    input_schema: dict[str, Any] | None = None,
    state_schema: dict[str, Any] | None = None,
    output_schema: dict[str, Any] | None = None,
    output: list[dict[str, Any]] | None = None,
    node_defs: list[dict[str, Any]] | None = None,
    outcomes: list[str] | None = None,
) -> Workflow:
    return Workflow.model_validate(
        {
            "name": name,
            "start": nodes[0]["id"],
            "outcomes": outcomes or ["ok"],
            "input_schema": input_schema or INPUT_SCHEMA,
            "state_schema": state_schema or {"type": "object", "properties": {"log": {}}},
            "output_schema": output_schema or {"type": "object"},
            "node_defs": node_defs if node_defs is not None else [PROBE_DEF],
            "nodes": nodes,
            "edges": [edge(e) for e in edges],
            "output": output or [],
        }
    )


class Recorder:
    """A handler that keeps every (payload, ctx) it was called with."""

    def __init__(self, result: Callable[[dict[str, Any], RuntimeContext], Any] | None = None):
        self.calls: list[tuple[dict[str, Any], RuntimeContext]] = []
        self._result = result

    def __call__(self, payload: dict[str, Any], ctx: RuntimeContext) -> Any:
        self.calls.append((payload, ctx))
        if self._result is not None:
            return self._result(payload, ctx)
        return {"out": payload}

    def by_node(self, node_id: str) -> list[tuple[dict[str, Any], RuntimeContext]]:
        return [call for call in self.calls if call[1].node_id == node_id]


def records_of(result: RunResult, node_id: str) -> list[ActivationRecord]:
    return [r for r in result.trace if r.node_id == node_id]
