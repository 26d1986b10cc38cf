"""Starting and resuming runs: the runtime's entry points.

``execute_workflow`` refuses to start (raising :class:`WorkflowRefused`)
when the workflow has validation errors, a handler, subgraph or reducer is
missing, or the input does not match ``input_schema``. Once started, a run
ends in a :class:`RunResult`: ``completed``, ``paused`` at an interrupt, or
``failed`` with the reason. ``resume_workflow`` continues a paused run from
its dumped state with an answer for the waiting interrupt.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from wf_core.models import ForeachNode, InterruptNode, SubgraphNode, Workflow
from wf_core.runtime.engine import Engine, StepLimit
from wf_core.runtime.errors import InvalidRunState, WorkflowExecutionError, WorkflowRefused
from wf_core.runtime.frames import (
    ACTIVATED_INCOMING_EDGE,
    FOREACH_NODE_ID,
    PRIOR_OUTCOME,
    ROOT_FRAME_ID,
    ROOT_LINEAGE_ID,
    ROOT_SCOPE_ID,
    Frame,
)
from wf_core.runtime.handlers import Handler
from wf_core.runtime.json_values import JsonValue, NotJsonError, copy_json
from wf_core.runtime.program import ROOT_PROGRAM_KEY, Programs, check_runnable
from wf_core.runtime.reducers import BUILTIN_REDUCERS, Reducer
from wf_core.runtime.state import PendingInterrupt, RunState, RunStatus, dump, load, new_run_state
from wf_core.runtime.trace import ActivationRecord

__all__ = [
    "RunResult",
    "execute_workflow",
    "prepare_resume",
    "prepare_run",
    "resume_workflow",
    "run_result",
]


@dataclass(frozen=True, slots=True)
class RunResult:
    """How a run (or one resumed stretch of it) ended.

    ``trace`` holds the activations of this call only (none when it ran with
    ``trace=False``); ``state`` is the whole run state, to dump for a later
    ``resume_workflow`` when ``paused``. ``step_limit`` says where a run that
    reached ``max_steps`` stopped (it is then ``failed``).
    """

    status: RunStatus
    outcome: str | None
    output: JsonValue
    state: RunState
    trace: tuple[ActivationRecord, ...]
    error: str | None = None
    step_limit: StepLimit | None = None

    @property
    def interrupt(self) -> PendingInterrupt | None:
        """The interrupt waiting for an answer, when the run is paused."""
        if self.status == "paused" and self.state.interrupts:
            return self.state.interrupts[0]
        return None

    def interrupt_node(
        self, workflow: Workflow, subgraphs: Mapping[str, Workflow] | None = None
    ) -> InterruptNode | None:
        """The node of the waiting interrupt, looked up in the workflow of its scope
        (``workflow`` or one of the ``subgraphs`` the run was given)."""
        pending = self.interrupt
        if pending is None:
            return None
        scope = self.state.scopes.get(pending.scope_id)
        if scope is None:
            return None
        source = workflow if scope.id == ROOT_SCOPE_ID else (subgraphs or {}).get(scope.workflow)
        if source is None:
            return None
        for node in source.nodes:
            if node.id == pending.node_id and isinstance(node, InterruptNode):
                return node
        return None

    def dump_state(self) -> str:
        return dump(self.state)


def _reducers(extra: Mapping[str, Reducer] | None) -> dict[str, Reducer]:
    return {**BUILTIN_REDUCERS, **(extra or {})}


def run_result(engine: Engine) -> RunResult:
    """How the engine's run stands now, as the entry points return it."""
    state = engine.state
    return RunResult(
        status=state.status,
        outcome=state.outcome,
        output=state.output,
        state=state,
        trace=tuple(engine.records),
        error=state.error,
        step_limit=engine.step_limit,
    )


def execute_workflow(
    workflow: Workflow,
    input: object,
    handlers: Mapping[str, Handler],
    *,
    reducers: Mapping[str, Reducer] | None = None,
    subgraphs: Mapping[str, Workflow] | None = None,
    seed: int = 0,
    max_steps: int | None = None,
    trace: bool = True,
    on_record: Callable[[ActivationRecord], None] | None = None,
) -> RunResult:
    """Run ``workflow`` on ``input`` until it completes, pauses or fails
    (:func:`prepare_run`, then the engine's whole run)."""
    engine = prepare_run(
        workflow,
        input,
        handlers,
        reducers=reducers,
        subgraphs=subgraphs,
        seed=seed,
        max_steps=max_steps,
        trace=trace,
        on_record=on_record,
    )
    engine.run()
    return run_result(engine)


def prepare_run(
    workflow: Workflow,
    input: object,
    handlers: Mapping[str, Handler],
    *,
    reducers: Mapping[str, Reducer] | None = None,
    subgraphs: Mapping[str, Workflow] | None = None,
    seed: int = 0,
    max_steps: int | None = None,
    trace: bool = True,
    on_record: Callable[[ActivationRecord], None] | None = None,
) -> Engine:
    """The engine of a run of ``workflow`` on ``input``, its start node ready and
    nothing activated yet: ``run()`` runs it, ``steps()`` one activation at a time.

    ``handlers`` maps node def names to ``(payload, ctx) -> result``;
    ``subgraphs`` maps the workflow names subgraph nodes refer to (``name``,
    or ``workflow.<artifact>.v<N>``) to workflows; ``reducers`` adds to
    ``wf.std.replace`` and ``wf.std.append``. ``seed`` orders concurrent
    items; ``max_steps`` bounds the activations of this call (a run that
    reaches it fails, which is how an endless loop is stopped). With
    ``trace=False`` activations are counted (``state.recorded``) but not
    kept: a long run's trace would otherwise hold every context it built.
    ``on_record`` is given each activation's record as it happens, kept or not:
    a trace printed while the run goes on, in memory bounded by the workflow and
    its state rather than by the number of activations.
    """
    programs = Programs(workflow, subgraphs or {})
    all_reducers = _reducers(reducers)
    check_runnable(programs, handlers, all_reducers)
    try:
        data = copy_json(input, "the input")
    except NotJsonError as exc:
        raise WorkflowRefused(f"cannot run: {exc}", [str(exc)]) from None
    problem = programs.root.input_check.problem(data)
    if problem is not None:
        message = (
            f"the input does not match the input_schema of workflow '{workflow.name}': {problem}"
        )
        raise WorkflowRefused(f"cannot run: {message}", [message])
    state = new_run_state(
        workflow.name,
        programs.fingerprints(),
        data,
        programs.root.initial_state(),
        seed=seed,
    )
    start = Frame(
        id=state.next_id("frame"),
        parent_frame_id=ROOT_FRAME_ID,
        scope_id=ROOT_SCOPE_ID,
        lineage_id=ROOT_LINEAGE_ID,
        parent_lineage_id=None,
        kind="node",
        node_id=workflow.start,
        metadata={PRIOR_OUTCOME: None, ACTIVATED_INCOMING_EDGE: None},
    )
    state.frames[start.id] = start
    state.ready.append(start.id)
    return Engine(
        state,
        programs,
        handlers,
        all_reducers,
        max_steps=max_steps,
        keep_trace=trace,
        on_record=on_record,
    )


def resume_workflow(
    saved: str | bytes | RunState | RunResult,
    answer: object,
    workflow: Workflow,
    handlers: Mapping[str, Handler],
    *,
    outcome: str | None = None,
    reducers: Mapping[str, Reducer] | None = None,
    subgraphs: Mapping[str, Workflow] | None = None,
    max_steps: int | None = None,
    trace: bool = True,
    on_record: Callable[[ActivationRecord], None] | None = None,
) -> RunResult:
    """Answer the waiting interrupt of a paused run and go on.

    ``saved`` is dumped state (text) or a state/result in memory; either way
    it goes through :func:`load`, so a resumed run always starts from exactly
    what a checkpoint holds, and the caller's object is never changed.
    ``outcome`` picks the interrupt's outcome when it declares several.
    The workflows must be the ones the run started with.
    """
    engine = prepare_resume(
        saved,
        answer,
        workflow,
        handlers,
        outcome=outcome,
        reducers=reducers,
        subgraphs=subgraphs,
        max_steps=max_steps,
        trace=trace,
        on_record=on_record,
    )
    engine.run()
    return run_result(engine)


def prepare_resume(
    saved: str | bytes | RunState | RunResult,
    answer: object,
    workflow: Workflow,
    handlers: Mapping[str, Handler],
    *,
    outcome: str | None = None,
    reducers: Mapping[str, Reducer] | None = None,
    subgraphs: Mapping[str, Workflow] | None = None,
    max_steps: int | None = None,
    trace: bool = True,
    on_record: Callable[[ActivationRecord], None] | None = None,
) -> Engine:
    """The engine of a paused run with its interrupt answered (the answer's activation
    done), before anything else runs: what :func:`resume_workflow` runs to the end."""
    if isinstance(saved, RunResult):
        saved = saved.state
    state = load(dump(saved) if isinstance(saved, RunState) else saved)
    programs = Programs(workflow, subgraphs or {})
    all_reducers = _reducers(reducers)
    check_runnable(programs, handlers, all_reducers)
    if workflow.name != state.workflow:
        raise WorkflowExecutionError(
            f"the run state belongs to workflow '{state.workflow}', not '{workflow.name}'"
        )
    expected = programs.fingerprints()
    for key, digest in state.fingerprints.items():
        if expected.get(key) != digest:
            name = workflow.name if key == ROOT_PROGRAM_KEY else key
            raise WorkflowExecutionError(
                f"the run state was saved for another version of workflow '{name}'"
            )
    check_nodes(state, programs)
    engine = Engine(
        state,
        programs,
        handlers,
        all_reducers,
        max_steps=max_steps,
        keep_trace=trace,
        on_record=on_record,
    )
    engine.answer(answer, outcome)
    return engine


def check_nodes(state: RunState, programs: Programs) -> None:
    """Every record of a loaded run state names a node of the right type in the workflow
    of its scope: a node frame a node, an item frame and a foreach activation a foreach,
    a waiting interrupt an interrupt, a child scope's caller a subgraph node. What
    :func:`load` cannot check without the workflows; refused as it refuses."""

    def require(scope_id: str, node_id: str | None, what: str, kind: type | None) -> None:
        scope = state.scopes[scope_id]
        key = ROOT_PROGRAM_KEY if scope.id == ROOT_SCOPE_ID else scope.workflow
        try:
            program = programs.get(key)
        except KeyError:
            raise InvalidRunState(
                f"invalid run state: scope '{scope.id}' runs workflow '{scope.workflow}', "
                "which the run was not given"
            ) from None
        found = program.nodes.get(node_id or "")
        if found is None:
            why = f"which workflow '{program.workflow.name}' does not have"
        elif kind is not None and not isinstance(found, kind):
            why = f"which is {_a(found.type)}, not {_a(_TYPE_NAMES[kind])}"
        else:
            return
        raise InvalidRunState(f"invalid run state: {what} '{node_id}', {why}")

    for activation in state.activations.values():
        what = f"activation '{activation.id}' belongs to node"
        require(activation.scope_id, activation.node_id, what, ForeachNode)
    for frame in state.frames.values():
        if frame.kind == "node":
            require(frame.scope_id, frame.node_id, f"frame '{frame.id}' runs node", None)
        elif frame.kind == "foreach_iteration":
            owner = str(frame.metadata[FOREACH_NODE_ID])
            what = f"item frame '{frame.id}' is an item of node"
            require(frame.scope_id, owner, what, ForeachNode)
    for pending in state.interrupts:
        require(pending.scope_id, pending.node_id, "the run waits at node", InterruptNode)
    for scope in state.scopes.values():
        if scope.caller_frame_id is not None:
            caller = state.frames[scope.caller_frame_id]
            what = f"scope '{scope.id}' is called by node"
            require(caller.scope_id, caller.node_id, what, SubgraphNode)


def _a(word: str) -> str:
    return f"an {word}" if word[:1] in ("a", "e", "i", "o", "u") else f"a {word}"


_TYPE_NAMES: dict[type, str] = {
    ForeachNode: "foreach",
    InterruptNode: "interrupt",
    SubgraphNode: "subgraph",
}
