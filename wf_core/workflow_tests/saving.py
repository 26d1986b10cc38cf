"""A test document from a run (``wfls run --save-test``): what ran becomes a regression test.

Every activation of a node of type ``node`` in the workflow under test becomes a pin
of that activation (``activation = k``) returning what its handler returned (a retried
activation pins its failed attempts as ``"error"``); the expectations are what
happened: the status, the outcome and output when it completed, and every node that
ran, in order. Replayed with the same seed, the pins answer exactly the activations
they were taken from, so the saved test passes as long as the workflow runs the same
way, and fails when a change makes it run otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from wf_core.authoring.export import ExportError, inline
from wf_core.documents.writing import write_key
from wf_core.runtime import ActivationRecord, RunResult
from wf_core.runtime.json_values import JsonObject, JsonValue
from wf_core.workflow_tests.cases import FAILED_ATTEMPT

__all__ = ["ExportError", "document_from_run", "render_test_document"]


def document_from_run(
    workflow: str,
    data: JsonValue,
    result: RunResult,
    records: Iterable[ActivationRecord],
    *,
    seed: int = 0,
    name: str = "saved run",
) -> JsonObject:
    """The test document (plain values) of ``result``, a run of ``workflow`` (a name or a
    path relative to where the document goes) on ``data`` from its start; ``records``
    are all its activations."""
    pins: list[JsonValue] = []
    counts: dict[str, int] = {}
    visited: list[JsonValue] = []
    for record in records:
        if record.call_path:
            continue
        visited.append(record.node_id)
        if record.node_type != "node":
            continue
        index = counts.get(record.node_id, 0)
        counts[record.node_id] = index + 1
        pin: JsonObject = {"node": record.node_id, "activation": index}
        if record.outcome is None:
            pin["error"] = record.error or "failed"
        else:
            if record.attempts > 1:
                failed: list[JsonValue] = [FAILED_ATTEMPT] * (record.attempts - 1)
                pin["attempts"] = [*failed, record.outcome]
            else:
                pin["outcome"] = record.outcome
            pin["output"] = record.output
        pins.append(pin)
    expect: JsonObject = {"status": result.status}
    if result.status == "completed":
        expect["outcome"] = result.outcome
        expect["output"] = result.output
    expect["visited"] = visited
    case: JsonObject = {"name": name, "input": data}
    if seed:
        case["seed"] = seed
    case["pin"] = pins
    case["expect"] = [expect]
    return {"workflow": workflow, "case": [case]}


def render_test_document(document: Mapping[str, object], syntax: str) -> str:
    """``document`` as the text of a ``.wf.test.toml`` or ``.wf.test.json`` file. Raises
    ``ExportError`` for TOML when a value is null (JSON can hold it)."""
    if syntax == "json":
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    lines = [f"workflow = {inline(document['workflow'])}"]
    cases = document.get("case")
    for case in cases if isinstance(cases, list) else []:
        lines += ["", "[[case]]"]
        tables: list[tuple[str, list[Mapping[str, object]]]] = []
        for key, value in case.items():
            if key in ("pin", "interrupt", "expect") and isinstance(value, list):
                tables.append((key, value))
            else:
                lines.append(f"{write_key(key, 'toml')} = {inline(value)}")
        for key, entries in tables:
            for entry in entries:
                lines += ["", f"[[case.{key}]]"]
                lines += [f"{write_key(k, 'toml')} = {inline(v)}" for k, v in entry.items()]
    return "\n".join(lines) + "\n"
