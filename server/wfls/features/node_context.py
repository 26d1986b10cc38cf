"""The node the cursor is in: its owner stack and its whole context.

Editors show the owner stack at the cursor (a status item) and open a node's
context on demand; both answer for the ``[[nodes]]`` entry (the JSON element of
``nodes``) whose text contains the offset, or None outside every node.
"""

from __future__ import annotations

import bisect
from typing import Any

from wf_core.snapshot import DocumentSnapshot
from wfls.context_cmd import node_context
from wfls.features.cursor import node_id_at_index


def node_index_at(snapshot: DocumentSnapshot, offset: int) -> int | None:
    """The document index of the node whose entry holds ``offset``.

    A TOML ``[[nodes]]`` entry runs from its header through its last pair, a
    JSON node from its opening to its closing brace.
    """
    source_map = snapshot.parsed.source_map
    located = source_map.locate(offset)
    if located is None:
        return None
    location = located.location
    if len(location) >= 2 and location[0] == "nodes" and isinstance(location[1], int):
        return location[1]
    if location != ("nodes",):
        return None
    # The key of a ``[[nodes]]`` header is the array's own key, and the space
    # between two JSON elements belongs to the array: look for the element.
    values = snapshot.parsed.values
    nodes = values.get("nodes") if isinstance(values, dict) else None
    if not isinstance(nodes, list):
        return None
    spans = [source_map.get(("nodes", index)) for index in range(len(nodes))]
    starts = [entry.value.start if entry else -1 for entry in spans]
    index = bisect.bisect_right(starts, offset) - 1
    entry = spans[index] if index >= 0 else None
    if entry is not None and entry.value.start <= offset <= entry.value.end:
        return index
    return None


def node_id_at(snapshot: DocumentSnapshot, offset: int) -> str | None:
    index = node_index_at(snapshot, offset)
    return None if index is None else node_id_at_index(snapshot, index)


def owner_stack_at(snapshot: DocumentSnapshot, offset: int) -> dict[str, Any] | None:
    """``{"node", "owner_stack"}`` for the node at ``offset``.

    ``owner_stack`` lists the active foreach loops outermost first (empty
    outside every loop), or is None when the node has no context: unreachable,
    reachable under two loops, or the workflow did not validate far enough.
    """
    node_id = node_id_at(snapshot, offset)
    if node_id is None:
        return None
    model = snapshot.context
    stack = model.stack_of(node_id) if model is not None else None
    return {"node": node_id, "owner_stack": None if stack is None else list(stack)}


def node_context_at(snapshot: DocumentSnapshot, offset: int) -> dict[str, Any] | None:
    """What ``wfls context FILE NODE --json`` prints for the node at ``offset``."""
    node_id = node_id_at(snapshot, offset)
    return None if node_id is None else node_context(snapshot, node_id)
