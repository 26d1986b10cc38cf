"""The node the cursor is in: its owner stack and its whole context.

Editors show the owner stack at the cursor (a status item) and open a node's
context on demand; both answer for the ``[[nodes]]`` entry (the JSON element of
``nodes``) whose text contains the offset, or None outside every node.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from wf_core.analysis.inventory import (
    AuthoringPathOption,
    missing_context_reason,
    readable_sources_for_node,
)
from wf_core.semantic.cursor import classify
from wf_core.version.view import AnalysisView
from wfls.features.common import node_values


class OwnerStack(TypedDict):
    """A node and its owner stack (None: the node has no context)."""

    node: str
    owner_stack: list[str] | None


class NodeContext(OwnerStack):
    """A node's whole context: its schema and the paths it may read, or why it has none."""

    schema: dict[str, object] | None
    paths: list[AuthoringPathOption]
    reason: NotRequired[str]


def node_context(snapshot: AnalysisView, node_id: str) -> NodeContext | None:
    """``{"node", "owner_stack", "schema", "paths"}``; None when the node does not exist."""
    workflow, model = snapshot.workflow, snapshot.context
    if workflow is None or model is None or node_id not in model.nodes_by_id:
        return None
    stack = model.stack_of(node_id)
    if stack is None:
        reason = missing_context_reason(model, node_id, left_out=snapshot.load.invalid_node_ids)
        return {
            "node": node_id,
            "owner_stack": None,
            "schema": None,
            "paths": [],
            "reason": f"no context schema for this program location: {reason}",
        }
    return {
        "node": node_id,
        "owner_stack": list(stack),
        "schema": model.schema_for_stack(stack),
        "paths": readable_sources_for_node(workflow, node_id, model=model),
    }


def node_id_at(view: AnalysisView, offset: int) -> str | None:
    index = classify(view, offset).node_index
    node_id = node_values(view, index).get("id") if index is not None else None
    return node_id if isinstance(node_id, str) else None


def owner_stack_at(view: AnalysisView, offset: int) -> OwnerStack | None:
    """``{"node", "owner_stack"}`` for the node at ``offset``.

    ``owner_stack`` lists the active foreach loops outermost first (empty
    outside every loop), or is None when the node has no context: unreachable,
    reachable under two loops, or the workflow did not validate far enough.
    """
    node_id = node_id_at(view, offset)
    if node_id is None:
        return None
    model = view.context
    stack = model.stack_of(node_id) if model is not None else None
    return {"node": node_id, "owner_stack": None if stack is None else list(stack)}


def node_context_at(view: AnalysisView, offset: int) -> NodeContext | None:
    """What ``wfls context FILE NODE --json`` prints for the node at ``offset``."""
    node_id = node_id_at(view, offset)
    return None if node_id is None else node_context(view, node_id)
