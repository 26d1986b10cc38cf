"""The run state: the one source of truth of a run, and its JSON form.

Everything needed to continue a run lives here (frames, scopes, lineages,
the ready queue, foreach activations, the interrupts waiting for an answer,
the random-number state that orders concurrent items); nothing lives in the
trace. Only live records are kept: a frame, lineage or activation is removed
as soon as nothing can reach it any more, so a checkpoint stays small however
long the run has been going.

:func:`dump` and :func:`load` are inverse; ``load`` fails closed with a
:class:`InvalidRunState` on anything it cannot trust (wrong version,
wrong shapes, dangling references, malformed frame metadata).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Literal

from pydantic import ConfigDict, TypeAdapter, ValidationError

from wf_core.runtime.errors import InvalidRunState, WorkflowExecutionError
from wf_core.runtime.frames import (
    ACTIVATION_ID,
    FOREACH_NODE_ID,
    LOOP_INDEX,
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

MAX_COUNT = 2**63 - 1
"""The largest ``counter``, ``steps`` or ``recorded`` a run state may hold: no run
reaches it, and a checkpoint that claims more was not written by a run."""

RNG_LIMIT = 2**64
"""The generator's state is a 64-bit unsigned integer (SplitMix64)."""

_STRICT = ConfigDict(extra="forbid")  # a key this wfls does not write is refused

RunStatus = Literal["running", "paused", "completed", "failed"]


@dataclass(frozen=True, slots=True)
class Lineage:
    """A line of control: the root one, one per foreach item, one per child run."""

    id: str
    parent_lineage_id: str | None
    scope_id: str

    __pydantic_config__ = _STRICT


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

    __pydantic_config__ = _STRICT


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

    __pydantic_config__ = _STRICT


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

    __pydantic_config__ = _STRICT


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

    __pydantic_config__ = _STRICT

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
    message = "unknown key" if error["type"] == "unexpected_keyword_argument" else error["msg"]
    return f"{where}: {message}" if where else str(message)


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
        raise InvalidRunState(f"invalid run state: not JSON ({exc})") from None
    except RecursionError:  # the decoder recurses once per level
        raise InvalidRunState("invalid run state: it nests too deeply") from None
    if not isinstance(raw, dict):
        raise InvalidRunState("invalid run state: expected a JSON object")
    version = raw.get("version")
    if version != STATE_SCHEMA_VERSION:
        raise InvalidRunState(
            f"invalid run state: unsupported version {version!r} (this wfls reads version "
            f"{STATE_SCHEMA_VERSION})"
        )
    try:
        state = _ADAPTER.validate_json(text, strict=True)
    except ValidationError as exc:
        raise InvalidRunState(f"invalid run state: {_first_error(exc)}") from None
    try:
        check_integrity(state)
    except WorkflowExecutionError as exc:
        raise InvalidRunState(f"invalid run state: {exc}") from None
    return state


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise WorkflowExecutionError(message)


def _shown(number: int) -> str:
    """A number for a message: whole, unless it has more digits than anyone reads."""
    text = str(number)
    return text if len(text) <= 32 else f"{text[:12]}… ({len(text.lstrip('-'))} digits)"


_GENERATED_ID = re.compile(r"(?:frame|scope|lin|act)_([0-9]+)")


def _check_counts(state: RunState) -> None:
    """The counters and the generator's state are in range, and no id in use is one the
    counter will generate again (ids are never reused: caches are keyed by them)."""
    for name, value in (
        ("counter", state.counter),
        ("steps", state.steps),
        ("recorded", state.recorded),
    ):
        _require(0 <= value <= MAX_COUNT, f"{name} {_shown(value)} is outside 0 to {MAX_COUNT}")
    _require(0 <= state.rng < RNG_LIMIT, f"rng {_shown(state.rng)} is outside 0 to {RNG_LIMIT - 1}")
    for records in (state.frames, state.scopes, state.lineages, state.activations):
        for key in records:
            match = _GENERATED_ID.fullmatch(key)
            _require(
                match is None or int(match.group(1)) <= state.counter,
                f"'{key}' is above counter {state.counter}: a new id would repeat it",
            )


def _check_lineages(state: RunState) -> None:
    """Every lineage belongs to a scope, and its ancestry ends at a lineage without a
    parent, through lineages that exist."""
    lineages = state.lineages
    ends: set[str] = set()  # lineages whose ancestry is known to end well
    for key, lineage in lineages.items():
        _require(key == lineage.id, f"lineage stored under '{key}' has id '{lineage.id}'")
        _require(lineage.scope_id in state.scopes, f"lineage '{key}' names unknown scope")
        path: list[str] = []
        current: Lineage | None = lineage
        while current is not None and current.id not in ends:
            _require(current.id not in path, f"cyclic lineage ancestry at lineage '{current.id}'")
            path.append(current.id)
            parent = current.parent_lineage_id
            if parent is None:
                break
            current = lineages.get(parent)
            _require(current is not None, f"lineage '{path[-1]}' names unknown parent '{parent}'")
        ends.update(path)


def _check_activations(state: RunState) -> None:
    """Each foreach activation runs at its controller frame's node, its numbers are in
    range, and each item frame belongs to the activation it names, at an index it
    dispatched."""
    frames = state.frames
    for key, activation in state.activations.items():
        _require(key == activation.id, f"activation stored under '{key}' has id '{activation.id}'")
        controller = frames.get(activation.frame_id)
        _require(controller is not None, f"activation '{key}' has no controller frame")
        assert controller is not None
        _require(
            controller.kind == "node"
            and controller.node_id == activation.node_id
            and controller.scope_id == activation.scope_id,
            f"activation '{key}' of node '{activation.node_id}' is not that of its controller "
            f"frame '{controller.id}'",
        )
        _require(
            0 <= activation.next_index <= len(activation.items),
            f"activation '{key}' has an index outside its items",
        )
        _require(
            0 <= activation.failed <= activation.next_index,
            f"activation '{key}' counts {activation.failed} failed items of "
            f"{activation.next_index} started",
        )
        _require(
            1 <= activation.max_active <= MAX_COUNT
            and 1 <= activation.max_outstanding <= MAX_COUNT,
            f"activation '{key}' has bounds outside 1 to {MAX_COUNT}",
        )
        for frame_id in activation.running:
            item = frames.get(frame_id)
            _require(
                item is not None and item.kind == "foreach_iteration",
                f"activation '{key}' names missing iteration frame '{frame_id}'",
            )
    for frame in frames.values():
        if frame.kind != "foreach_iteration":
            continue
        # frame_context_view has checked the metadata's types already.
        activation_id = str(frame.metadata[ACTIVATION_ID])
        owner = state.activations.get(activation_id)
        _require(
            owner is not None
            and frame.id in owner.running
            and owner.node_id == frame.metadata[FOREACH_NODE_ID],
            f"item frame '{frame.id}' is not running in activation '{activation_id}'",
        )
        assert owner is not None
        index = frame.metadata[LOOP_INDEX]
        if isinstance(index, int) and index >= owner.next_index:  # an int: frame_context_view
            raise WorkflowExecutionError(
                f"item frame '{frame.id}' has loop_index {_shown(index)}, which activation "
                f"'{activation_id}' has not dispatched ({owner.next_index} of "
                f"{len(owner.items)} items)"
            )


def check_integrity(state: RunState) -> None:
    """Every reference inside ``state`` points at a record of the right kind, and every
    number is in the range a run gives it.

    Also rebuilds the context of every frame, so corrupt ancestry or item
    metadata is reported on load with :func:`frame_context_view`'s own message
    rather than later, half-way through a resumed run. What needs the workflow
    (which node each record names) is checked by ``prepare_resume``.
    """
    _check_counts(state)
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
    _check_lineages(state)
    for frame_id in state.ready:
        queued = frames.get(frame_id)
        _require(
            queued is not None and queued.kind == "node",
            f"ready queue names '{frame_id}', which is not a node frame",
        )
    _check_activations(state)
    for pending in state.interrupts:
        waiting = frames.get(pending.frame_id)
        _require(
            waiting is not None and waiting.kind == "node",
            f"interrupt at '{pending.node_id}' has no frame",
        )
        assert waiting is not None
        _require(
            waiting.node_id == pending.node_id and waiting.scope_id == pending.scope_id,
            f"interrupt at '{pending.node_id}' is not that of its frame '{waiting.id}'",
        )
