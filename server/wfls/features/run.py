"""Run with sample input: the workflow of an open document, run in the server.

Only stand-in handlers run (built from the node defs' output schemas): the
server never imports user code, and it writes no file; the trace travels in
the command's answer. A run is bounded (a step limit, interrupts answered with
samples of their ``resume_schema`` a bounded number of times), so a workflow
that loops forever cannot hang the editor.

The run is remembered per document (:class:`LastRun`) so that hover can show,
on a node, the loop items its activations saw.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from wf_core.base.issues import Severity
from wf_core.base.records import record
from wf_core.version.view import DiagnosedView, WorkspaceView

if TYPE_CHECKING:  # the runtime is imported on the first run, not at server start
    from wf_core.models.workflow import Workflow
    from wf_core.runtime.json_values import JsonObject
    from wf_core.runtime.preview import Preview
    from wf_core.version.snapshot import PlacedIssue


class RunRefused(Exception):
    """The workflow cannot run as it is; the message says why, in one line."""


@record
class LastRun:
    """What the last run of a document saw: per node id, its activations' contexts.

    ``text`` is the document text that ran, so that hover can say when the
    document has changed since.
    """

    text: str
    status: str
    observations: Mapping[str, tuple[JsonObject, ...]]


def _children(view: DiagnosedView, workspace: WorkspaceView | None) -> dict[str, Workflow]:
    """Every workflow the document's subgraph nodes reach, by name, from the workspace
    (the walk ``wfls run`` makes too)."""
    from wf_core.validation.subgraphs import ChildMissing, called_workflows

    def child(name: str) -> Workflow | None:
        document = workspace.resolve(name) if workspace is not None else None
        if document is None:
            return None
        snapshot = document.snapshot
        errors = _errors(document.uri, snapshot, (), workspace)
        if errors:
            raise RunRefused(
                f"the child workflow '{name}' has {len(errors)} error(s); fix them before "
                f"running it (first: {errors[0]})"
            )
        if snapshot.workflow is None:
            raise RunRefused(f"the child workflow '{name}' could not be built; fix it first")
        return snapshot.workflow

    assert view.workflow is not None
    try:
        return called_workflows(view.workflow, child)
    except ChildMissing as missing:
        if missing.published:
            raise RunRefused(
                f"a subgraph node calls the published workflow '{missing.display}', "
                "which the editor cannot see"
            ) from None
        raise RunRefused(
            f"a subgraph node calls '{missing.display}': no document of the workspace declares it"
        ) from None


def _errors(
    uri: str | None, view: object, own: Sequence[PlacedIssue], workspace: WorkspaceView | None
) -> list[str]:
    """Every error of the document ``uri`` analysed as ``view``, its own and across files,
    as ``code: message``.

    The workspace's findings of a document already contain its own (``own``, adjusted
    for what the other files say), so they replace them rather than add to them."""
    issues = own
    if workspace is not None and uri is not None:
        in_workspace = workspace.issues_of(uri, view)
        if in_workspace is not None:
            issues = in_workspace
    return [f"{i.code}: {i.message}" for i in issues if i.severity == Severity.ERROR]


def run_document(
    view: DiagnosedView,
    input: object,
    *,
    workspace: WorkspaceView | None = None,
    outcomes: Mapping[str, str] | None = None,
) -> tuple[dict[str, object], LastRun]:
    """Run the document's workflow on ``input`` with stand-ins.

    Answers ``{"status", "outcome", "output", "error", "activations", "text",
    "trace"}``: ``status`` is ``completed``, ``paused``, ``failed`` or ``refused``
    (the input or a handler result did not fit the declared schemas), ``text`` the
    readable trace under a summary, ``trace`` one object per activation (``node``,
    ``owner_stack``, ``context``, ``input``, ``outcome``). Raises
    :class:`RunRefused` when the document has errors or a child cannot be found.
    """
    from wf_core.runtime import DEFAULT_MAX_STEPS
    from wf_core.runtime.preview import observed_contexts, preview_run

    errors = _errors(view.uri, view, view.issues, workspace)
    if errors:
        raise RunRefused(
            f"the workflow has {len(errors)} error(s); fix them before running it "
            f"(first: {errors[0]})"
        )
    if view.workflow is None:
        raise RunRefused("the workflow could not be built; fix its errors before running it")
    children = _children(view, workspace)
    if outcomes:
        from wf_core.runtime import outcome_choice_problems

        problems = outcome_choice_problems(
            view.workflow, outcomes, subgraphs=children, stand_ins=True
        )
        if problems:
            node, problem = next(iter(problems.items()))
            raise RunRefused(f"outcome {node}={outcomes[node]}: {problem}")
    preview = preview_run(
        view.workflow, input, subgraphs=children, outcomes=outcomes, max_steps=DEFAULT_MAX_STEPS
    )
    last = LastRun(view.text, preview.status, observed_contexts(preview.records, limit=50))
    name = view.workflow.name
    answer = {
        "status": preview.status,
        "outcome": preview.outcome,
        "output": preview.output,
        "error": preview.error,
        "activations": len(preview.records),
        "text": _text(name, preview),
        "trace": [record.as_json() for record in preview.records],
    }
    return answer, last


def _text(name: str, preview: Preview) -> str:
    head = [f"workflow '{name}', run with stand-in handlers ({len(preview.records)} activations)"]
    if preview.status == "completed":
        output = json.dumps(preview.output, indent=2, ensure_ascii=False)
        head.append(f"completed with outcome '{preview.outcome}'\noutput: {output}")
    elif preview.status == "paused":
        head.append("paused at an interrupt that sample answers could not get past")
    else:
        head.append(f"{preview.status}: {preview.error}")
    trace = preview.text.rstrip("\n")
    return "\n".join(head) + ("\n\n" + trace if trace else "") + "\n"


def observations_markdown(last: LastRun, node_id: str, current_text: str) -> str:
    """What hover adds on a node: the loop items its activations saw in the last run."""
    from wf_core.runtime.preview import describe_observations

    stale = "" if last.text == current_text else " (on an earlier version of this document)"
    contexts = last.observations.get(node_id)
    if not contexts:
        return f"**Last run**{stale}: this node did not run."
    count = len(contexts)
    runs = f"{count} activation{'s' if count != 1 else ''}" + ("+" if count >= 50 else "")
    if not any(isinstance(c.get("foreach"), dict) and c["foreach"] for c in contexts):
        return f"**Last run**{stale}: {runs}, outside every loop"
    lines = describe_observations(contexts).splitlines()
    body = "\n".join(f"- `{line}`" if not line.startswith("…") else f"- {line}" for line in lines)
    return f"**Last run**{stale}: {runs}\n\n{body}"
