"""Plain functions for the editor: run with stand-ins, and what each node saw.

The language server must never import user code, so these run only the
stand-in handlers built from the workflow's own contracts. Interrupts are
answered with samples of their ``resume_schema`` so a preview runs to the
end; a step limit keeps a workflow that loops forever from hanging the
editor.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from wf_core.base.step_limit import DEFAULT_MAX_STEPS
from wf_core.language.paths import format_segment
from wf_core.models import Workflow
from wf_core.runtime.errors import WorkflowExecutionError
from wf_core.runtime.execute import execute_workflow, resume_workflow
from wf_core.runtime.json_values import JsonObject, JsonValue
from wf_core.runtime.standins import sample_value, stand_in_handlers
from wf_core.runtime.trace import ActivationRecord, render_text

__all__ = ["Preview", "describe_observations", "observed_contexts", "preview_run"]

PreviewStatus = Literal["completed", "paused", "failed", "refused"]


@dataclass(frozen=True, slots=True)
class Preview:
    """A stand-in run: its status, every activation, and the trace as text."""

    status: PreviewStatus
    outcome: str | None
    output: JsonValue
    records: tuple[ActivationRecord, ...]
    text: str
    error: str | None = None


def preview_run(
    workflow: Workflow,
    input: object,
    *,
    subgraphs: Mapping[str, Workflow] | None = None,
    outcomes: Mapping[str, str] | None = None,
    seed: int = 0,
    max_steps: int = DEFAULT_MAX_STEPS,
    answer_interrupts: bool = True,
    max_answers: int = 100,
) -> Preview:
    """Run ``workflow`` on ``input`` with stand-ins only; never raises for a bad run.

    ``outcomes`` chooses outcomes by node id or node def name, for stand-ins
    and for interrupts (whose default is their first declared outcome).
    """
    children = dict(subgraphs or {})
    chosen = dict(outcomes or {})
    handlers = stand_in_handlers(workflow, outcomes=chosen, subgraphs=children)
    records: list[ActivationRecord] = []
    try:
        result = execute_workflow(
            workflow, input, handlers, subgraphs=children, seed=seed, max_steps=max_steps
        )
        records.extend(result.trace)
        answered = 0
        while result.status == "paused" and answer_interrupts and answered < max_answers:
            node = result.interrupt_node(workflow, children)
            if node is None:
                break
            outcome = chosen.get(node.id) or (node.outcomes[0] if node.outcomes else None)
            result = resume_workflow(
                result,
                sample_value(node.resume_schema),
                workflow,
                handlers,
                outcome=outcome,
                subgraphs=children,
                max_steps=max_steps,
            )
            records.extend(result.trace)
            answered += 1
    except WorkflowExecutionError as exc:
        return Preview("refused", None, None, tuple(records), render_text(records), str(exc))
    return Preview(
        result.status if result.status != "running" else "failed",
        result.outcome,
        result.output,
        tuple(records),
        render_text(records),
        result.error,
    )


def observed_contexts(
    records: Iterable[ActivationRecord], *, call_path: tuple[str, ...] = (), limit: int = 20
) -> dict[str, tuple[JsonObject, ...]]:
    """Per node id, the graph contexts its activations saw (at most ``limit`` each).

    Only activations of one scope path count (the root workflow by default:
    a child run's node ids are another document's).
    """
    seen: dict[str, list[JsonObject]] = {}
    for record in records:
        if record.call_path != call_path:
            continue
        contexts = seen.setdefault(record.node_id, [])
        if len(contexts) < limit:
            contexts.append(record.context)
    return {node_id: tuple(contexts) for node_id, contexts in seen.items()}


def describe_observations(contexts: Iterable[JsonObject], *, limit: int = 3) -> str:
    """Short lines naming the loop items a node saw: ``customers[0] = {...}``."""
    lines: list[str] = []
    contexts = list(contexts)
    for context in contexts[:limit]:
        entries = context.get("foreach")
        parts: list[str] = []
        if isinstance(entries, dict):
            for owner, entry in entries.items():
                if isinstance(entry, dict):
                    item = json.dumps(entry.get("item"), ensure_ascii=False)
                    if len(item) > 60:
                        item = item[:59] + "…"
                    parts.append(f"{format_segment(owner)}[{entry.get('index')}] = {item}")
        lines.append("; ".join(parts) if parts else "no active loop")
    if len(contexts) > limit:
        lines.append(f"… and {len(contexts) - limit} more")
    return "\n".join(lines)
