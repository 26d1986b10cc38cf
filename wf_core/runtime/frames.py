"""Execution frames and the structured context derived from them.

The context a node reads is never stored: :func:`frame_context_view` rebuilds
it from the frames whenever a node needs it, so a run loaded from a
checkpoint sees exactly what it would have seen without the pause.

Frame tree (one scope):

- the scope's root frame (``root`` for the workflow, ``subgraph_root`` for a
  child run);
- a ``node`` frame per pending or running node activation; its parent is the
  innermost active ``foreach_iteration`` frame, or the scope root;
- a ``foreach_iteration`` frame per dispatched item; its parent is the frame
  of the foreach activation (controller) that dispatched it.

Invariants enforced by :func:`frame_context_view` (failing closed with the
messages below, never returning a partial context):

- the ancestry of a frame is finite and every parent exists;
- in one scope, a foreach id and an alias are active at most once, and no
  alias is a reserved context key;
- every ``foreach_iteration`` frame carries well-formed item metadata.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, Protocol

from pydantic import ConfigDict

from wf_core.language.context_contracts import (
    ACTIVATED_INCOMING_EDGE_KEY,
    FOREACH_CONTEXT_KEY,
    LINEAGE_ID_KEY,
    LOOP_INDEX_KEY,
    LOOP_ITEM_KEY,
    PARENT_LINEAGE_ID_KEY,
    PRIOR_OUTCOME_KEY,
    RESERVED_CONTEXT_KEYS,
    SCOPE_ID_KEY,
)
from wf_core.runtime.errors import WorkflowExecutionError
from wf_core.runtime.json_values import JsonObject, JsonValue

__all__ = [
    "ACTIVATION_ID",
    "FOREACH_NODE_ID",
    "LOOP_ALIAS",
    "LOOP_INDEX",
    "LOOP_ITEM",
    "ROOT_FRAME_ID",
    "ROOT_LINEAGE_ID",
    "ROOT_SCOPE_ID",
    "ForeachContext",
    "Frame",
    "FrameContextView",
    "FrameKind",
    "FrameStore",
    "frame_context_view",
]

FrameKind = Literal["root", "node", "foreach_iteration", "subgraph_root"]

ROOT_FRAME_ID = "root"
ROOT_SCOPE_ID = "root"
ROOT_LINEAGE_ID = "root"

# Metadata keys of a ``foreach_iteration`` frame.
FOREACH_NODE_ID = "foreach_node_id"
ACTIVATION_ID = "activation_id"
LOOP_INDEX = "loop_index"
LOOP_ITEM = "loop_item"
LOOP_ALIAS = "loop_alias"
# Metadata keys of a ``node`` frame (how the activation was reached).
PRIOR_OUTCOME = PRIOR_OUTCOME_KEY
ACTIVATED_INCOMING_EDGE = ACTIVATED_INCOMING_EDGE_KEY

_SCOPE_ROOT_KINDS = frozenset(("root", "subgraph_root"))


@dataclass(frozen=True, slots=True)
class Frame:
    """One execution frame. Frames never change; a run adds and removes them.

    ``metadata`` holds the item keys for a ``foreach_iteration`` frame and
    ``prior_outcome``/``activated_incoming_edge`` for a ``node`` frame. It is
    typed loosely (any JSON) on purpose: a loaded checkpoint may hold anything
    there, and :func:`frame_context_view` is where it is checked.
    """

    id: str
    parent_frame_id: str | None
    scope_id: str
    lineage_id: str
    parent_lineage_id: str | None
    kind: FrameKind
    node_id: str | None = None
    metadata: JsonObject = field(default_factory=dict)

    __pydantic_config__ = ConfigDict(extra="forbid")  # a checkpoint's unknown key is refused


class FrameStore(Protocol):
    """Whatever holds the frames of a run (the run state, or a test's table)."""

    @property
    def frames(self) -> Mapping[str, Frame]: ...


@dataclass(frozen=True, slots=True)
class ForeachContext:
    """One active loop as a node sees it: ``context.foreach.<node_id>``."""

    node_id: str
    activation_id: str
    frame_id: str
    scope_id: str
    lineage_id: str
    index: int
    item: JsonValue

    def as_json(self) -> JsonObject:
        return {
            "node_id": self.node_id,
            "activation_id": self.activation_id,
            "frame_id": self.frame_id,
            "scope_id": self.scope_id,
            "lineage_id": self.lineage_id,
            "index": self.index,
            "item": self.item,
        }


@dataclass(frozen=True, slots=True)
class FrameContextView:
    """What a frame sees: typed entries for handlers and the graph mapping for paths.

    ``foreach`` is keyed by static foreach id, outermost first; ``graph`` is
    the JSON mapping every ``context.*`` read resolves against. Both are built
    from the same entries, so they cannot disagree.
    """

    foreach: Mapping[str, ForeachContext]
    graph: JsonObject

    @property
    def owner_stack(self) -> tuple[str, ...]:
        return tuple(self.foreach)


def _fail(message: str) -> WorkflowExecutionError:
    return WorkflowExecutionError(message)


def _text_metadata(frame: Frame, key: str) -> str:
    if key not in frame.metadata:
        raise _fail(f"missing foreach metadata '{key}' for frame '{frame.id}'")
    value = frame.metadata[key]
    if not isinstance(value, str) or not value:
        raise _fail(
            f"malformed foreach metadata '{key}' for frame '{frame.id}': expected a non-empty "
            "string"
        )
    return value


def _decode_entry(frame: Frame) -> tuple[ForeachContext, str]:
    """The entry a ``foreach_iteration`` frame contributes, and its alias."""
    node_id = _text_metadata(frame, FOREACH_NODE_ID)
    activation_id = _text_metadata(frame, ACTIVATION_ID)
    if LOOP_INDEX not in frame.metadata:
        raise _fail(f"missing foreach metadata '{LOOP_INDEX}' for frame '{frame.id}'")
    index = frame.metadata[LOOP_INDEX]
    if isinstance(index, bool):
        raise _fail(
            f"malformed foreach metadata '{LOOP_INDEX}' for frame '{frame.id}': a boolean is "
            "not an index"
        )
    if not isinstance(index, int) or index < 0:
        raise _fail(
            f"malformed foreach metadata '{LOOP_INDEX}' for frame '{frame.id}': expected a "
            "non-negative integer"
        )
    if LOOP_ITEM not in frame.metadata:
        raise _fail(f"missing foreach metadata '{LOOP_ITEM}' for frame '{frame.id}'")
    if LOOP_ALIAS not in frame.metadata:
        raise _fail(f"missing foreach metadata '{LOOP_ALIAS}' for frame '{frame.id}'")
    alias = frame.metadata[LOOP_ALIAS]
    if not isinstance(alias, str):
        raise _fail(
            f"malformed foreach metadata '{LOOP_ALIAS}' for frame '{frame.id}': expected a string"
        )
    entry = ForeachContext(
        node_id=node_id,
        activation_id=activation_id,
        frame_id=frame.id,
        scope_id=frame.scope_id,
        lineage_id=frame.lineage_id,
        index=index,
        item=frame.metadata[LOOP_ITEM],
    )
    return entry, alias


def _standard_value(frame: Frame, key: str) -> str | None:
    value = frame.metadata.get(key)
    if value is not None and not isinstance(value, str):
        raise _fail(
            f"malformed frame metadata '{key}' for frame '{frame.id}': expected a string or null"
        )
    return value


def frame_context_view(run: FrameStore, frame: Frame) -> FrameContextView:
    """The structured context of ``frame``, rebuilt from the frames of ``run``.

    Walks ``parent_frame_id`` while the ancestor is in the frame's scope; a
    scope's root frame ends the walk, so a child run never sees its caller's
    loops. Each ``foreach_iteration`` frame on the way is one entry.
    """
    frames = run.frames
    found: list[tuple[ForeachContext, str]] = []
    seen: set[str] = set()
    current = frame
    while True:
        if current.id in seen:
            raise _fail(f"cyclic execution frame ancestry at frame '{current.id}'")
        seen.add(current.id)
        if current.kind == "foreach_iteration":
            found.append(_decode_entry(current))
        if current.kind in _SCOPE_ROOT_KINDS:
            break
        parent_id = current.parent_frame_id
        if parent_id is None:
            break
        parent = frames.get(parent_id)
        if parent is None:
            raise _fail(f"missing parent frame '{parent_id}' for frame '{current.id}'")
        if parent.scope_id != frame.scope_id:
            break
        current = parent
    found.reverse()

    entries: dict[str, ForeachContext] = {}
    foreach_graph: JsonObject = {}
    aliases: JsonObject = {}
    for entry, alias in found:
        if entry.node_id in entries:
            raise _fail(f"duplicate active foreach id '{entry.node_id}' for frame '{frame.id}'")
        if not alias or alias in RESERVED_CONTEXT_KEYS:
            raise _fail(
                f"foreach alias '{alias}' for node '{entry.node_id}' collides with reserved "
                f"context keys for frame '{frame.id}'"
            )
        if alias in aliases:
            raise _fail(f"duplicate active foreach alias '{alias}' for frame '{frame.id}'")
        entries[entry.node_id] = entry
        foreach_graph[entry.node_id] = entry.as_json()
        aliases[alias] = entry.item

    graph: JsonObject = {
        PRIOR_OUTCOME_KEY: _standard_value(frame, PRIOR_OUTCOME),
        ACTIVATED_INCOMING_EDGE_KEY: _standard_value(frame, ACTIVATED_INCOMING_EDGE),
        SCOPE_ID_KEY: frame.scope_id,
        LINEAGE_ID_KEY: frame.lineage_id,
        PARENT_LINEAGE_ID_KEY: frame.parent_lineage_id,
        FOREACH_CONTEXT_KEY: foreach_graph,
    }
    if found:
        innermost = found[-1][0]
        graph[LOOP_ITEM_KEY] = innermost.item
        graph[LOOP_INDEX_KEY] = innermost.index
    graph.update(aliases)
    return FrameContextView(MappingProxyType(entries), graph)
