"""The run state: the one source of truth of a run, and its JSON form.

Everything needed to continue a run lives here (frames, scopes, lineages,
the ready queue, foreach activations, the interrupts waiting for an answer,
the random-number state that orders concurrent items); nothing lives in the
trace. Only live records are kept: a frame, lineage or activation is removed
as soon as nothing can reach it any more, so a checkpoint stays small however
long the run has been going.

:func:`dump` and :func:`load` are inverse; ``load`` fails closed with a
:class:`WorkflowExecutionError` on anything it cannot trust (wrong version,
wrong shapes, dangling references, malformed frame metadata).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Literal

from pydantic import TypeAdapter, ValidationError

from wf_core.runtime.errors import WorkflowExecutionError
from wf_core.runtime.frames import (
    ROOT_FRAME_ID,
    ROOT_LINEAGE_ID,
    ROOT_SCOPE_ID,
    Frame,
    frame_context_view,
)
from wf_core.runtime.json_values import JsonObject, JsonValue

__all__ = [
    "STATE_SCHEMA_VERSION",
    "ForeachActivation",
    "Lineage",
    "PendingInterrupt",
    "RunState",
    "RunStatus",
    "ScopeState",
    "dump",
    "load",
    "new_run_state",
]

STATE_SCHEMA_VERSION = 1

RunStatus = Literal["running", "paused", "completed", "failed"]


@dataclass(frozen=True, slots=True)
class Lineage:
    """A line of control: the root one, one per foreach item, one per child run."""

    id: str
    parent_lineage_id: str | None
    scope_id: str


@dataclass(slots=True)
class ScopeState:
    """One workflow invocation: the root run or one subgraph call.

    ``workflow`` names the workflow the scope runs (the root workflow's name,
    or the subgraph reference as written). ``call_path`` is the chain of
    subgraph node ids from the root scope down to this one, for people
    reading a trace. ``call_input`` is the payload the caller passed.
    """

    id: str
    workflow: str
    parent_scope_id: str | None
    caller_frame_id: str | None
    root_frame_id: str
    call_path: list[str]
    input: JsonValue
    state: JsonObject
    call_input: JsonValue = None


@dataclass(slots=True)
class ForeachActivation:
    """One entry into a foreach node, alive until it emits ``done``.

    ``items`` is a copy of ``over`` taken on entry, so later state writes
    cannot change what the loop iterates. ``running`` lists the iteration
    frames dispatched and not yet returned, in dispatch order.
    """

    id: str
    node_id: str
    scope_id: str
    frame_id: str
    items: list[JsonValue]
    next_index: int
    running: list[str]
    failed: int
    max_active: int
    max_outstanding: int


@dataclass(frozen=True, slots=True)
class PendingInterrupt:
    """An interrupt waiting for an answer; the first in the run's list is the one asked.

    ``route`` is the chain of scope ids from the root scope to the
    interrupt's scope: the way the answer travels back in.
    """

    frame_id: str
    node_id: str
    scope_id: str
    kind: str
    request: JsonObject
    route: list[str]


@dataclass(slots=True)
class RunState:
    """Everything a run needs to continue. Mutated only by the engine."""

    version: int
    workflow: str
    fingerprints: dict[str, str]
    seed: int
    rng: int
    counter: int
    steps: int
    recorded: int
    status: RunStatus
    scopes: dict[str, ScopeState]
    frames: dict[str, Frame]
    lineages: dict[str, Lineage]
    ready: list[str]
    activations: dict[str, ForeachActivation]
    interrupts: list[PendingInterrupt]
    outcome: str | None = None
    output: JsonValue = None
    error: str | None = None

    def next_id(self, prefix: str) -> str:
        """A fresh id; ids are never reused within a run, so caches keyed by them stay sound."""
        self.counter += 1
        return f"{prefix}_{self.counter}"

    def dump(self) -> str:
        return dump(self)

    @staticmethod
    def load(text: str | bytes) -> RunState:
        return load(text)


def new_run_state(
    workflow_name: str,
    fingerprints: dict[str, str],
    workflow_input: JsonValue,
    initial_state: JsonObject,
    *,
    seed: int,
) -> RunState:
    """A run with the root scope, its root frame and lineage, and nothing scheduled."""
    root = Frame(
        id=ROOT_FRAME_ID,
        parent_frame_id=None,
        scope_id=ROOT_SCOPE_ID,
        lineage_id=ROOT_LINEAGE_ID,
        parent_lineage_id=None,
        kind="root",
    )
    scope = ScopeState(
        id=ROOT_SCOPE_ID,
        workflow=workflow_name,
        parent_scope_id=None,
        caller_frame_id=None,
        root_frame_id=ROOT_FRAME_ID,
        call_path=[],
        input=workflow_input,
        state=initial_state,
    )
    return RunState(
        version=STATE_SCHEMA_VERSION,
        workflow=workflow_name,
        fingerprints=dict(fingerprints),
        seed=seed,
        rng=seed & 0xFFFFFFFFFFFFFFFF,
        counter=0,
        steps=0,
        recorded=0,
        status="running",
        scopes={ROOT_SCOPE_ID: scope},
        frames={ROOT_FRAME_ID: root},
        lineages={ROOT_LINEAGE_ID: Lineage(ROOT_LINEAGE_ID, None, ROOT_SCOPE_ID)},
        ready=[],
        activations={},
        interrupts=[],
    )


_ADAPTER: TypeAdapter[RunState] = TypeAdapter(RunState)


def dump(state: RunState) -> str:
    """The run state as JSON text (stable key order, so equal states dump equal)."""
    return _ADAPTER.dump_json(state).decode("utf-8")


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    return f"{where}: {error['msg']}" if where else str(error["msg"])


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text} is out of range")
    return value


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def load(text: str | bytes) -> RunState:
    """Read a dumped run state, checking its shape and its internal references.

    Parsed twice: once by ``json`` (refusing NaN and infinities, which JSON
    does not have) to read the version before trusting anything else, then
    strictly by pydantic into the records.
    """
    try:
        raw = json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError) as exc:
        raise WorkflowExecutionError(f"invalid run state: not JSON ({exc})") from None
    except RecursionError:  # the decoder recurses once per level
        raise WorkflowExecutionError("invalid run state: it nests too deeply") from None
    if not isinstance(raw, dict):
        raise WorkflowExecutionError("invalid run state: expected a JSON object")
    version = raw.get("version")
    if version != STATE_SCHEMA_VERSION:
        raise WorkflowExecutionError(
            f"invalid run state: unsupported version {version!r} (this wfls reads version "
            f"{STATE_SCHEMA_VERSION})"
        )
    try:
        state = _ADAPTER.validate_json(text, strict=True)
    except ValidationError as exc:
        raise WorkflowExecutionError(f"invalid run state: {_first_error(exc)}") from None
    try:
        check_integrity(state)
    except WorkflowExecutionError as exc:
        raise WorkflowExecutionError(f"invalid run state: {exc}") from None
    return state


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise WorkflowExecutionError(message)


def check_integrity(state: RunState) -> None:
    """Every reference inside ``state`` points at a record of the right kind.

    Also rebuilds the context of every frame, so corrupt ancestry or item
    metadata is reported on load with :func:`frame_context_view`'s own message
    rather than later, half-way through a resumed run.
    """
    frames = state.frames
    for key, frame in frames.items():
        _require(key == frame.id, f"frame stored under '{key}' has id '{frame.id}'")
        _require(frame.scope_id in state.scopes, f"frame '{key}' names unknown scope")
        _require(frame.lineage_id in state.lineages, f"frame '{key}' names unknown lineage")
        if frame.kind == "node":
            _require(frame.node_id is not None, f"node frame '{key}' has no node id")
    for frame in frames.values():
        frame_context_view(state, frame)
    for key, scope in state.scopes.items():
        _require(key == scope.id, f"scope stored under '{key}' has id '{scope.id}'")
        root = frames.get(scope.root_frame_id)
        _require(
            root is not None and root.kind in ("root", "subgraph_root"),
            f"scope '{key}' has no root frame",
        )
        if scope.parent_scope_id is not None:
            _require(scope.parent_scope_id in state.scopes, f"scope '{key}' has no parent scope")
            _require(scope.caller_frame_id in frames, f"scope '{key}' has no caller frame")
    _require(ROOT_SCOPE_ID in state.scopes, "the root scope is missing")
    for key, lineage in state.lineages.items():
        _require(key == lineage.id, f"lineage stored under '{key}' has id '{lineage.id}'")
    for frame_id in state.ready:
        queued = frames.get(frame_id)
        _require(
            queued is not None and queued.kind == "node",
            f"ready queue names '{frame_id}', which is not a node frame",
        )
    for key, activation in state.activations.items():
        _require(key == activation.id, f"activation stored under '{key}' has id '{activation.id}'")
        _require(activation.frame_id in frames, f"activation '{key}' has no controller frame")
        for frame_id in activation.running:
            _require(
                frame_id in frames and frames[frame_id].kind == "foreach_iteration",
                f"activation '{key}' names missing iteration frame '{frame_id}'",
            )
        _require(
            0 <= activation.next_index <= len(activation.items),
            f"activation '{key}' has an index outside its items",
        )
    for pending in state.interrupts:
        _require(
            pending.frame_id in frames and frames[pending.frame_id].kind == "node",
            f"interrupt at '{pending.node_id}' has no frame",
        )
