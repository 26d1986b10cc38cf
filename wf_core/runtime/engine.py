"""The engine: runs the ready queue of one run state until it completes, pauses or fails.

Control moves as *tokens*: a token is a ``node`` frame in the ready queue.
Running it executes the node and routes its outcome along the one edge for
``(node, outcome)``, which puts the successor's frame in the queue. Only a
foreach creates several tokens (one per dispatched item); every other node
passes its token on, so outside loops a scope has exactly one token.

Foreach semantics (lda-wf-model §2.4, the back-edge design):

- entering a foreach creates a fresh activation with a copy of ``over``;
- each item runs in its own ``foreach_iteration`` frame and lineage; serial
  loops run one item at a time, concurrent ones up to ``max_active`` running
  and ``max_outstanding`` started-but-unreturned (an item waiting only on an
  interrupt is outstanding but not running);
- an edge from the body back to the foreach returns the item; when every
  item is back the foreach emits ``done`` (``completed_with_errors`` when
  items failed under ``skip``/``collect``) in the region that entered it.

A node's failure (its handler raising after every retry, a path that does
not resolve, a value that breaks a contract) fails the innermost item under
the loop's ``item_error`` policy, or the whole run at a scope's top level; in
a child run it becomes the failure of the calling subgraph node.

Concurrent tokens are interleaved by a seeded generator kept in the run
state, so a run is reproducible from its seed, across pauses too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from wf_core.language.paths import (
    LocalPath,
    PathResolutionError,
    StatePath,
    get_nested_value,
    set_nested_value,
)
from wf_core.language.tokens import END
from wf_core.models import (
    ConditionNode,
    EndNode,
    ForeachNode,
    InterruptNode,
    JoinNode,
    NodeUse,
    SubgraphNode,
)
from wf_core.models.steps import AnyStep
from wf_core.runtime.bindings import Sources, build_payload, evaluate_condition
from wf_core.runtime.contracts import compile_schema
from wf_core.runtime.errors import WorkflowExecutionError
from wf_core.runtime.frames import (
    ACTIVATED_INCOMING_EDGE,
    ACTIVATION_ID,
    FOREACH_NODE_ID,
    LOOP_ALIAS,
    LOOP_INDEX,
    LOOP_ITEM,
    PRIOR_OUTCOME,
    ROOT_SCOPE_ID,
    Frame,
    FrameContextView,
    frame_context_view,
)
from wf_core.runtime.handlers import Handler, NodeResult, RuntimeContext, normalise_result
from wf_core.runtime.json_values import JsonObject, JsonValue, NotJsonError, copy_json
from wf_core.runtime.program import MAX_SUBGRAPH_DEPTH, Program, Programs
from wf_core.runtime.reducers import Reducer
from wf_core.runtime.state import ForeachActivation, Lineage, PendingInterrupt, RunState, ScopeState
from wf_core.runtime.trace import ActivationRecord
from wf_core.validation.subgraphs import declares_schema

__all__ = ["Engine", "StepLimit"]

_MASK64 = 0xFFFFFFFFFFFFFFFF


@dataclass(frozen=True, slots=True)
class StepLimit:
    """Where a run stood when it reached its step limit: the limit, and the node that ran
    last (``call_path``: the subgraph node ids leading to its scope)."""

    limit: int
    node_id: str
    call_path: tuple[str, ...]

    @property
    def where(self) -> str:
        """``node 'x'``, or ``node 'x' (in subgraph 'a / b')`` in a child run."""
        inside = f" (in subgraph '{' / '.join(self.call_path)}')" if self.call_path else ""
        return f"node '{self.node_id}'{inside}"


def _splitmix64(state: int) -> tuple[int, int]:
    """One step of SplitMix64: (next state, output). Small, seedable, and its whole
    state is one integer, which the run state can carry."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return state, z ^ (z >> 31)


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _lookup(value: JsonValue, path: LocalPath) -> tuple[bool, JsonValue]:
    """``(found, value)`` at a local path inside an output or answer payload."""
    current = value
    for part in path.parts:
        if not isinstance(current, dict) or part not in current:
            return False, None
        current = current[part]
    return True, current


class _Box:
    """The result of a handler call made on another thread."""

    __slots__ = ("error", "value")

    def __init__(self) -> None:
        self.value: object = None
        self.error: BaseException | None = None


def _call(
    handler: Handler, payload: JsonObject, ctx: RuntimeContext, timeout: int | None
) -> object:
    """Call a handler, bounded by ``timeout`` seconds when the node sets one.

    A Python call cannot be stopped from outside, so a call that runs over is
    abandoned on a daemon thread: the node fails with a timeout and the run
    goes on; the call's eventual result is ignored.
    """
    if timeout is None:
        return handler(payload, ctx)
    box = _Box()

    def target() -> None:
        try:
            box.value = handler(payload, ctx)
        except BaseException as exc:  # handed back to the calling thread
            box.error = exc

    thread = threading.Thread(target=target, name=f"wf-handler-{ctx.node_id}", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise TimeoutError(f"no result within {timeout} s")
    if box.error is not None:
        raise box.error
    return box.value


class Engine:
    """Drives one run state. The state is the truth; the engine only caches views."""

    def __init__(
        self,
        state: RunState,
        programs: Programs,
        handlers: Mapping[str, Handler],
        reducers: Mapping[str, Reducer],
        *,
        max_steps: int | None = None,
        keep_trace: bool = True,
        on_record: Callable[[ActivationRecord], None] | None = None,
    ) -> None:
        if max_steps is not None and max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, got {max_steps}")
        self.state = state
        self.keep_trace = keep_trace
        self.on_record = on_record  # given each record as it happens, kept or not
        self.programs = programs
        self.handlers = handlers
        self.reducers = reducers
        self.max_steps = max_steps
        self.records: list[ActivationRecord] = []
        self.step_limit: StepLimit | None = None  # set when the run stops at max_steps
        self._last_step: tuple[Frame, ScopeState] | None = None  # for StepLimit
        # Views by frame id. Sound because a frame and its ancestors never change
        # and ids are never reused; an entry goes when its frame does.
        self._views: dict[str, FrameContextView] = {}

    # -- the loop -----------------------------------------------------------------

    def run(self) -> None:
        for _ in self.steps():
            pass

    def steps(self) -> Iterator[Frame]:
        """The run one activation at a time: yields the frame about to be activated,
        then activates it when asked for the next one.

        A debugger drives a run through this without threads: between two ``next``
        calls nothing runs, and it sees exactly the frame (and the state) the
        activation will see. The frame is already taken from the ready queue (the seeded
        choice among concurrent tokens is made), so stopping here changes nothing about
        the run. The generator ends when the run completes, pauses, fails or reaches the
        step limit, as :meth:`run` does.
        """
        state = self.state
        limit = None if self.max_steps is None else state.steps + self.max_steps
        while state.ready and state.status == "running":
            if limit is not None and state.steps >= limit:
                self._stop_at_limit()
                break
            frame_id = self._pick()
            frame = state.frames.get(frame_id)
            if frame is not None:  # else _step says the queue names a missing frame
                yield frame
            self._step(frame_id)
        if state.status == "running":
            if state.interrupts:
                state.status = "paused"
            else:
                self._fail_run("run stalled: nothing is ready and no interrupt is waiting")

    def _stop_at_limit(self) -> None:
        """Fail the run at its step limit, saying which node ran last."""
        # At least one step ran: the limit is at least 1 and is checked before each step.
        assert self.max_steps is not None and self._last_step is not None
        frame, scope = self._last_step
        self.step_limit = StepLimit(self.max_steps, frame.node_id or "", tuple(scope.call_path))
        self._fail_run(
            f"run stopped at its step limit of {self.max_steps} steps, at "
            f"{self.step_limit.where}; the workflow may loop forever"
        )

    def _pick(self) -> str:
        ready = self.state.ready
        if len(ready) == 1:
            return ready.pop()
        self.state.rng, draw = _splitmix64(self.state.rng)
        return ready.pop(draw % len(ready))

    # -- frames, views, records -----------------------------------------------------

    def _scope(self, frame: Frame) -> ScopeState:
        return self.state.scopes[frame.scope_id]

    def _program(self, scope: ScopeState) -> Program:
        return self.programs.get("" if scope.id == ROOT_SCOPE_ID else scope.workflow)

    def _node(self, program: Program, frame: Frame) -> AnyStep:
        node = program.nodes.get(frame.node_id or "")
        if node is None:
            raise WorkflowExecutionError(
                f"frame '{frame.id}' names node '{frame.node_id}', which workflow "
                f"'{program.workflow.name}' does not have"
            )
        return node

    def view(self, frame: Frame) -> FrameContextView:
        view = self._views.get(frame.id)
        if view is None:
            view = frame_context_view(self.state, frame)
            if frame.id in self.state.frames:
                self._views[frame.id] = view
        return view

    def _add_frame(self, frame: Frame) -> Frame:
        self.state.frames[frame.id] = frame
        return frame

    def _drop_frame(self, frame_id: str) -> None:
        self.state.frames.pop(frame_id, None)
        self._views.pop(frame_id, None)

    def _token(
        self,
        container: Frame,
        source: Frame | None,
        node_id: str,
        outcome: str | None,
        edge: str | None,
    ) -> None:
        """Schedule ``node_id`` in ``container``, carrying ``source``'s lineage."""
        lineage_id = source.lineage_id if source is not None else container.lineage_id
        parent_lineage = (
            source.parent_lineage_id if source is not None else container.parent_lineage_id
        )
        frame = self._add_frame(
            Frame(
                id=self.state.next_id("frame"),
                parent_frame_id=container.id,
                scope_id=container.scope_id,
                lineage_id=lineage_id,
                parent_lineage_id=parent_lineage,
                kind="node",
                node_id=node_id,
                metadata={PRIOR_OUTCOME: outcome, ACTIVATED_INCOMING_EDGE: edge},
            )
        )
        self.state.ready.append(frame.id)

    def _record(
        self,
        frame: Frame,
        node: AnyStep,
        view: FrameContextView,
        payload: JsonValue,
        outcome: str | None,
        *,
        output: JsonValue = None,
        error: str | None = None,
        attempts: int = 1,
    ) -> None:
        state = self.state
        state.recorded += 1
        if not self.keep_trace and self.on_record is None:
            return
        record = ActivationRecord(
            seq=state.recorded,
            node_id=node.id,
            node_type=node.type,
            scope_id=frame.scope_id,
            call_path=tuple(state.scopes[frame.scope_id].call_path),
            frame_id=frame.id,
            lineage_id=frame.lineage_id,
            owner_stack=view.owner_stack,
            context=view.graph,
            input=payload,
            outcome=outcome,
            output=output,
            error=error,
            attempts=attempts,
        )
        if self.keep_trace:
            self.records.append(record)
        if self.on_record is not None:
            self.on_record(record)

    # -- one activation ---------------------------------------------------------------

    def _step(self, frame_id: str) -> None:
        state = self.state
        frame = state.frames.get(frame_id)
        if frame is None:
            raise WorkflowExecutionError(f"ready queue names missing frame '{frame_id}'")
        state.steps += 1
        scope = self._scope(frame)
        self._last_step = (frame, scope)
        program = self._program(scope)
        node = self._node(program, frame)
        view = self.view(frame)
        sources = Sources(scope.input, scope.state, view.graph)
        payload: JsonValue = None
        try:
            if isinstance(node, NodeUse):
                self._run_node(frame, node, program, scope, view, sources)
            elif isinstance(node, ForeachNode):
                self._enter_foreach(frame, node, sources)
            elif isinstance(node, ConditionNode):
                predicate = evaluate_condition(node.check, sources)
                outcome = "true" if predicate else "false"
                self._record(frame, node, view, {}, outcome, output={"predicate": predicate})
                self._route(frame, node.id, outcome)
            elif isinstance(node, JoinNode):
                self._record(frame, node, view, {}, "done")
                self._route(frame, node.id, "done")
            elif isinstance(node, EndNode):
                self._record(frame, node, view, {}, node.outcome)
                self._finish_scope(frame, node.outcome)
            elif isinstance(node, SubgraphNode):
                payload = build_payload(node.input, sources)
                self._start_subgraph(frame, node, scope, payload)
            elif isinstance(node, InterruptNode):
                payload = build_payload(node.request, sources)
                self._pause(frame, node, scope, view, payload)
        except _NodeFailed as failure:
            self._record(
                frame,
                node,
                view,
                failure.payload,
                None,
                error=failure.message,
                attempts=failure.attempts,
            )
            self._fail(frame, failure.message)
        except (WorkflowExecutionError, PathResolutionError, NotJsonError) as exc:
            message = f"node '{node.id}': {exc}"
            self._record(frame, node, view, payload, None, error=message)
            self._fail(frame, message)

    # -- node ------------------------------------------------------------------------------

    def _run_node(
        self,
        frame: Frame,
        node: NodeUse,
        program: Program,
        scope: ScopeState,
        view: FrameContextView,
        sources: Sources,
    ) -> None:
        definition = program.node_defs[node.node]
        payload = build_payload(node.input, sources)
        input_check, output_check = program.def_checks(definition.name)
        problem = input_check.problem(payload)
        if problem is not None:
            raise _NodeFailed(
                f"node '{node.id}': input does not match the input_schema of "
                f"'{definition.name}': {problem}",
                payload,
            )
        handler = self.handlers[definition.name]
        retries = node.retry if node.retry is not None else (definition.retry or 0)
        timeout = node.timeout_seconds or definition.timeout_seconds
        attempts = retries + 1
        reason = ""
        result: NodeResult | None = None
        output: JsonObject = {}
        attempt = 0
        for attempt in range(1, attempts + 1):
            ctx = RuntimeContext(
                node_id=node.id,
                node_def=definition.name,
                attempt=attempt,
                frame_id=frame.id,
                scope_id=frame.scope_id,
                lineage_id=frame.lineage_id,
                view=view,
            )
            try:
                result = normalise_result(_call(handler, _copy_object(payload), ctx, timeout))
                if result.outcome not in definition.outcomes:
                    raise ValueError(
                        f"outcome '{result.outcome}' is not declared by node def "
                        f"'{definition.name}' (declared: {', '.join(definition.outcomes)})"
                    )
                output = _copy_object(result.output, "output")
                problem = output_check.problem(output)
                if problem is not None:
                    raise ValueError(
                        f"output does not match the output_schema of '{definition.name}': {problem}"
                    )
                break
            except Exception as exc:
                reason = _describe(exc)
                result = None
        if result is None:
            tries = f" after {attempts} attempts" if attempts > 1 else ""
            raise _NodeFailed(f"node '{node.id}' failed{tries}: {reason}", payload, attempts)
        for binding in node.output:
            found, value = _lookup(output, binding.source)
            if found:
                self._write(scope, program, binding.target, value)
        self._record(frame, node, view, payload, result.outcome, output=output, attempts=attempt)
        self._route(frame, node.id, result.outcome)

    def _write(
        self, scope: ScopeState, program: Program, target: StatePath, value: JsonValue
    ) -> None:
        ref = program.reducers.get(target.parts)
        name = ref.name if ref is not None else "wf.std.replace"
        reducer = self.reducers[name]
        current = get_nested_value(scope.state, target.parts)
        try:
            merged = reducer(current, copy_json(value), ref.config if ref is not None else {})
        except Exception as exc:
            raise WorkflowExecutionError(
                f"reducer '{name}' failed writing '{target}': {_describe(exc)}"
            ) from None
        try:
            set_nested_value(scope.state, target.parts, merged)
        except PathResolutionError as exc:
            raise WorkflowExecutionError(f"cannot write '{target}': {exc}") from None

    # -- routing -----------------------------------------------------------------------------

    def _route(self, frame: Frame, node_id: str, outcome: str) -> None:
        """Pass ``frame``'s token along the edge for ``outcome``; ``frame`` ends here."""
        scope = self._scope(frame)
        program = self._program(scope)
        target = program.edges.get((node_id, outcome))
        if target is None:
            raise WorkflowExecutionError(f"node '{node_id}' has no edge for outcome '{outcome}'")
        edge = f"{node_id}:{outcome}->{target}"
        source_view = self._views.get(frame.id)
        if frame.parent_frame_id is None:
            raise WorkflowExecutionError(f"frame '{frame.id}' has no parent")
        container = self.state.frames.get(frame.parent_frame_id)
        if container is None:
            raise WorkflowExecutionError(
                f"missing parent frame '{frame.parent_frame_id}' for frame '{frame.id}'"
            )
        if target == END:
            terminal = Frame(
                id=frame.id,
                parent_frame_id=frame.parent_frame_id,
                scope_id=frame.scope_id,
                lineage_id=frame.lineage_id,
                parent_lineage_id=frame.parent_lineage_id,
                kind="node",
                node_id=END,
                metadata={PRIOR_OUTCOME: outcome, ACTIVATED_INCOMING_EDGE: edge},
            )
            self._drop_frame(frame.id)
            self._finish_scope(terminal, "ok")
            return
        self._drop_frame(frame.id)
        if (
            container.kind == "foreach_iteration"
            and container.metadata.get(FOREACH_NODE_ID) == target
        ):
            self._item_returned(container)
            return
        if source_view is not None and target in source_view.foreach:
            raise WorkflowExecutionError(f"edge '{edge}' skips the immediate foreach owner")
        self._token(container, frame, target, outcome, edge)

    # -- foreach ---------------------------------------------------------------------------------

    def _enter_foreach(self, frame: Frame, node: ForeachNode, sources: Sources) -> None:
        over = sources.read(node.over)
        if not isinstance(over, list):
            raise WorkflowExecutionError(f"foreach source '{node.over}' must resolve to a list")
        items = copy_json(over)
        assert isinstance(items, list)
        if node.mode == "concurrent" and node.concurrent is not None:
            max_active, max_outstanding = (
                node.concurrent.max_active,
                node.concurrent.max_outstanding,
            )
        else:
            max_active = max_outstanding = 1
        activation = ForeachActivation(
            id=self.state.next_id("act"),
            node_id=node.id,
            scope_id=frame.scope_id,
            frame_id=frame.id,
            items=items,
            next_index=0,
            running=[],
            failed=0,
            max_active=max_active,
            max_outstanding=max_outstanding,
        )
        self.state.activations[activation.id] = activation
        self._advance(activation)

    def _advance(self, activation: ForeachActivation) -> None:
        """Start what the bounds allow; emit the final outcome once every item is back."""
        parked = self._parked(activation) if self.state.interrupts else 0
        while (
            activation.next_index < len(activation.items)
            and len(activation.running) < activation.max_outstanding
            and len(activation.running) - parked < activation.max_active
        ):
            self._dispatch(activation)
        if activation.next_index >= len(activation.items) and not activation.running:
            self._complete(activation)

    def _parked(self, activation: ForeachActivation) -> int:
        """How many of the activation's items wait only on interrupts (none of theirs is ready)."""
        frames = self.state.frames
        live: set[str] = set()
        for frame_id in self.state.ready:
            current: str | None = frame_id
            while current is not None and current not in live:
                live.add(current)
                parent = frames.get(current)
                current = parent.parent_frame_id if parent is not None else None
        return sum(1 for frame_id in activation.running if frame_id not in live)

    def _controller(self, activation: ForeachActivation) -> tuple[Frame, ForeachNode]:
        controller = self.state.frames[activation.frame_id]
        node = self._node(self._program(self._scope(controller)), controller)
        if not isinstance(node, ForeachNode):
            raise WorkflowExecutionError(
                f"activation '{activation.id}' belongs to '{node.id}', which is not a foreach"
            )
        return controller, node

    def _dispatch(self, activation: ForeachActivation) -> None:
        state = self.state
        controller, node = self._controller(activation)
        index = activation.next_index
        activation.next_index += 1
        item = activation.items[index]
        lineage = Lineage(state.next_id("lin"), controller.lineage_id, controller.scope_id)
        state.lineages[lineage.id] = lineage
        iteration = self._add_frame(
            Frame(
                id=state.next_id("frame"),
                parent_frame_id=controller.id,
                scope_id=controller.scope_id,
                lineage_id=lineage.id,
                parent_lineage_id=controller.lineage_id,
                kind="foreach_iteration",
                node_id=node.id,
                metadata={
                    FOREACH_NODE_ID: node.id,
                    ACTIVATION_ID: activation.id,
                    LOOP_INDEX: index,
                    LOOP_ITEM: item,
                    LOOP_ALIAS: node.as_,
                },
            )
        )
        activation.running.append(iteration.id)
        self._record(
            controller, node, self.view(controller), {"index": index, "item": item}, "loop"
        )
        target = self._program(self._scope(controller)).edges.get((node.id, "loop"))
        if target is None:
            raise WorkflowExecutionError(f"foreach '{node.id}' has no edge for outcome 'loop'")
        self._token(iteration, None, target, "loop", f"{node.id}:loop->{target}")

    def _end_item(self, activation: ForeachActivation, iteration: Frame) -> None:
        activation.running.remove(iteration.id)
        self._drop_frame(iteration.id)
        self.state.lineages.pop(iteration.lineage_id, None)

    def _item_returned(self, iteration: Frame) -> None:
        activation = self.state.activations[str(iteration.metadata[ACTIVATION_ID])]
        self._end_item(activation, iteration)
        self._advance(activation)

    def _complete(self, activation: ForeachActivation) -> None:
        controller, node = self._controller(activation)
        with_errors = activation.failed and node.item_error.action in ("skip", "collect")
        outcome = "completed_with_errors" if with_errors else "done"
        del self.state.activations[activation.id]
        self._record(
            controller,
            node,
            self.view(controller),
            {"items": len(activation.items), "failed": activation.failed},
            outcome,
        )
        self._route(controller, node.id, outcome)

    # -- interrupts --------------------------------------------------------------------------------

    def _pause(
        self,
        frame: Frame,
        node: InterruptNode,
        scope: ScopeState,
        view: FrameContextView,
        request: JsonObject,
    ) -> None:
        problem = compile_schema(node.request_schema).problem(request)
        if problem is not None:
            raise _NodeFailed(
                f"interrupt '{node.id}': request does not match its request_schema: {problem}",
                request,
            )
        route: list[str] = []
        current: ScopeState | None = scope
        while current is not None:
            route.append(current.id)
            current = (
                self.state.scopes.get(current.parent_scope_id)
                if current.parent_scope_id is not None
                else None
            )
        route.reverse()
        self.state.interrupts.append(
            PendingInterrupt(frame.id, node.id, scope.id, node.kind, request, route)
        )
        self._record(frame, node, view, request, None)
        # The item holding this interrupt no longer runs: its loops may start others.
        for activation in list(self.state.activations.values()):
            if activation.running:
                self._advance(activation)

    def answer(self, answer: object, outcome: str | None) -> None:
        """Answer the first waiting interrupt and make the run ready to go on.

        Everything that can be refused (answer shape, outcome) is checked
        before the state changes.
        """
        state = self.state
        if state.status != "paused" or not state.interrupts:
            raise WorkflowExecutionError(
                f"the run is not waiting for an answer (status: {state.status})"
            )
        pending = state.interrupts[0]
        frame = state.frames[pending.frame_id]
        scope = self._scope(frame)
        program = self._program(scope)
        node = self._node(program, frame)
        if not isinstance(node, InterruptNode):
            raise WorkflowExecutionError(f"waiting node '{node.id}' is not an interrupt")
        try:
            data = copy_json(answer, "the answer")
        except NotJsonError as exc:
            raise WorkflowExecutionError(str(exc)) from None
        if not isinstance(data, dict):
            raise WorkflowExecutionError("the answer must be a JSON object")
        problem = compile_schema(node.resume_schema).problem(data)
        if problem is not None:
            raise WorkflowExecutionError(
                f"the answer does not match the resume_schema of interrupt '{node.id}': {problem}"
            )
        declared = list(node.outcomes)
        if outcome is None:
            if len(declared) != 1:
                choices = ", ".join(declared) if declared else "none"
                raise WorkflowExecutionError(
                    f"interrupt '{node.id}' declares outcomes {choices}; choose the one to resume "
                    "with"
                )
            outcome = declared[0]
        elif outcome not in declared:
            raise WorkflowExecutionError(
                f"outcome '{outcome}' is not declared by interrupt '{node.id}' (declared: "
                f"{', '.join(declared) or 'none'})"
            )
        state.interrupts.pop(0)
        state.status = "running"
        view = self.view(frame)
        try:
            for binding in node.resume:
                found, value = _lookup(data, binding.source)
                if found:
                    self._write(scope, program, binding.target, value)
            self._record(frame, node, view, pending.request, outcome, output=data)
            self._route(frame, node.id, outcome)
        except (WorkflowExecutionError, PathResolutionError) as exc:
            message = f"node '{node.id}': {exc}"
            self._record(frame, node, view, pending.request, None, error=message)
            self._fail(frame, message)

    # -- subgraphs --------------------------------------------------------------------

    def _start_subgraph(
        self, frame: Frame, node: SubgraphNode, scope: ScopeState, payload: JsonObject
    ) -> None:
        state = self.state
        if declares_schema(node, "input"):  # else the child's own schema is the contract
            problem = compile_schema(node.input_schema).problem(payload)
            if problem is not None:
                raise _NodeFailed(
                    f"subgraph '{node.id}': input does not match its input_schema: {problem}",
                    payload,
                )
        name = node.workflow.display
        child = self.programs.child(name)
        problem = child.input_check.problem(payload)
        if problem is not None:
            raise _NodeFailed(
                f"subgraph '{node.id}': input does not match the input_schema of workflow "
                f"'{child.workflow.name}': {problem}",
                payload,
            )
        if len(scope.call_path) >= MAX_SUBGRAPH_DEPTH:
            raise _NodeFailed(
                f"subgraph '{node.id}': calls nest deeper than {MAX_SUBGRAPH_DEPTH}", payload
            )
        scope_id = state.next_id("scope")
        lineage = Lineage(state.next_id("lin"), frame.lineage_id, scope_id)
        state.lineages[lineage.id] = lineage
        root = self._add_frame(
            Frame(
                id=state.next_id("frame"),
                parent_frame_id=frame.id,
                scope_id=scope_id,
                lineage_id=lineage.id,
                parent_lineage_id=frame.lineage_id,
                kind="subgraph_root",
            )
        )
        state.scopes[scope_id] = ScopeState(
            id=scope_id,
            workflow=name,
            parent_scope_id=scope.id,
            caller_frame_id=frame.id,
            root_frame_id=root.id,
            call_path=[*scope.call_path, node.id],
            input=payload,
            state=child.initial_state(),
            call_input=copy_json(payload),
        )
        self._token(root, None, child.workflow.start, None, None)

    def _drop_scope(self, scope: ScopeState) -> None:
        state = self.state
        for frame_id in [f.id for f in state.frames.values() if f.scope_id == scope.id]:
            self._drop_frame(frame_id)
        for lineage_id in [ln.id for ln in state.lineages.values() if ln.scope_id == scope.id]:
            del state.lineages[lineage_id]
        for activation_id in [a.id for a in state.activations.values() if a.scope_id == scope.id]:
            del state.activations[activation_id]
        state.ready = [f for f in state.ready if f in state.frames]
        state.interrupts = [p for p in state.interrupts if p.scope_id != scope.id]
        del state.scopes[scope.id]

    def _finish_scope(self, terminal: Frame, outcome: str) -> None:
        """A scope reached a terminal: compute its output and hand it to whoever called."""
        state = self.state
        scope = self._scope(terminal)
        program = self._program(scope)
        view = frame_context_view(state, terminal)
        self._drop_frame(terminal.id)
        sources = Sources(scope.input, scope.state, view.graph)
        try:
            output = self._workflow_output(program, sources)
            problem = program.output_check.problem(output)
            if problem is not None:
                raise WorkflowExecutionError(
                    f"the output of workflow '{program.workflow.name}' does not match its "
                    f"output_schema: {problem}"
                )
        except (WorkflowExecutionError, PathResolutionError, NotJsonError) as exc:
            self._fail_in_scope(scope, f"workflow output: {exc}")
            return
        if scope.id == ROOT_SCOPE_ID:
            state.status = "completed"
            state.outcome = outcome
            state.output = output
            state.ready.clear()
            return
        self._return_from_subgraph(scope, outcome, output)

    def _workflow_output(self, program: Program, sources: Sources) -> JsonObject:
        workflow = program.workflow
        if workflow.output:
            return build_payload(workflow.output, sources)
        # The legacy fallback: output properties copied from same-named state fields.
        output: JsonObject = {}
        for name in program.output_names:
            if name in sources.state:
                output[name] = copy_json(sources.state[name])
        return output

    def _return_from_subgraph(self, scope: ScopeState, outcome: str, output: JsonObject) -> None:
        state = self.state
        if scope.caller_frame_id is None or scope.parent_scope_id is None:
            raise WorkflowExecutionError(f"scope '{scope.id}' has no caller")
        caller = state.frames[scope.caller_frame_id]
        parent = state.scopes[scope.parent_scope_id]
        program = self._program(parent)
        node = self._node(program, caller)
        if not isinstance(node, SubgraphNode):
            raise WorkflowExecutionError(f"scope '{scope.id}' was called by a non-subgraph node")
        call_input = scope.call_input
        self._drop_scope(scope)
        view = self.view(caller)
        try:
            if outcome not in node.outcomes:
                raise WorkflowExecutionError(
                    f"the child run ended with outcome '{outcome}', which the subgraph does not "
                    f"declare (declared: {', '.join(node.outcomes)})"
                )
            problem = (
                compile_schema(node.output_schema).problem(output)
                if declares_schema(node, "output")  # else the child checked its own output
                else None
            )
            if problem is not None:
                raise WorkflowExecutionError(
                    f"the child output does not match the subgraph's output_schema: {problem}"
                )
            for binding in node.output:
                found, value = _lookup(output, binding.source)
                if found:
                    self._write(parent, program, binding.target, value)
        except (WorkflowExecutionError, PathResolutionError) as exc:
            message = f"subgraph '{node.id}': {exc}"
            self._record(caller, node, view, call_input, None, error=message)
            self._fail(caller, message)
            return
        self._record(caller, node, view, call_input, outcome, output=output)
        self._route(caller, node.id, outcome)

    # -- failures ---------------------------------------------------------------------

    def _under(self, frame_id: str) -> set[str]:
        """Every frame whose ancestry (across scopes) passes through ``frame_id``."""
        frames = self.state.frames
        known: dict[str, bool] = {frame_id: True}
        out: set[str] = set()
        for start in frames:
            path: list[str] = []
            current: str | None = start
            verdict = False
            while current is not None:
                if current in known:
                    verdict = known[current]
                    break
                path.append(current)
                parent = frames.get(current)
                current = parent.parent_frame_id if parent is not None else None
            for visited in path:
                known[visited] = verdict
            if verdict and start != frame_id:
                out.add(start)
        return out

    def _cancel_under(self, frame_id: str) -> None:
        """Abandon everything a failing activation started: loop items, child runs."""
        state = self.state
        under = self._under(frame_id)
        doomed_scopes = [s for s in state.scopes.values() if s.root_frame_id in under]
        for scope in doomed_scopes:
            if scope.id in state.scopes:
                self._drop_scope(scope)
        for activation in list(state.activations.values()):
            if activation.frame_id in under or activation.frame_id == frame_id:
                del state.activations[activation.id]
        for dead in under:
            frame = state.frames.get(dead)
            if frame is not None and frame.kind == "foreach_iteration":
                state.lineages.pop(frame.lineage_id, None)
            self._drop_frame(dead)
        state.ready = [f for f in state.ready if f in state.frames]
        state.interrupts = [p for p in state.interrupts if p.frame_id in state.frames]

    def _innermost_iteration(self, frame: Frame) -> Frame | None:
        current = frame
        frames = self.state.frames
        while current.parent_frame_id is not None:
            parent = frames.get(current.parent_frame_id)
            if parent is None or parent.scope_id != frame.scope_id:
                return None
            if parent.kind == "foreach_iteration":
                return parent
            current = parent
        return None

    def _fail(self, frame: Frame, message: str) -> None:
        """``frame``'s activation failed: apply the innermost loop's policy, or fail upward."""
        state = self.state
        self._cancel_under(frame.id)
        iteration = self._innermost_iteration(frame)
        self._drop_frame(frame.id)
        if iteration is None:
            self._fail_in_scope(state.scopes[frame.scope_id], message)
            return
        activation = state.activations[str(iteration.metadata[ACTIVATION_ID])]
        controller, node = self._controller(activation)
        index = iteration.metadata[LOOP_INDEX]
        if node.item_error.action == "fail":
            message = f"foreach '{node.id}' item {index}: {message}"
            self._record(controller, node, self.view(controller), None, None, error=message)
            self._fail(controller, message)
            return
        activation.failed += 1
        if node.item_error.action == "collect" and node.item_error.collect_to is not None:
            scope = self._scope(controller)
            entry: JsonObject = {
                "foreach": node.id,
                "index": index,
                "item": iteration.metadata[LOOP_ITEM],
                "error": message,
            }
            self._collect(scope, node.item_error.collect_to, entry)
        self._end_item(activation, iteration)
        self._advance(activation)

    def _collect(self, scope: ScopeState, target: StatePath, entry: JsonObject) -> None:
        """Item errors are appended to ``collect_to`` whatever the field's reducer."""
        current = get_nested_value(scope.state, target.parts)
        if current is None:
            current = []
        if not isinstance(current, list):
            self._fail_in_scope(scope, f"collect_to '{target}' does not hold a list")
            return
        current.append(entry)
        try:
            set_nested_value(scope.state, target.parts, current)
        except PathResolutionError as exc:
            self._fail_in_scope(scope, f"cannot write '{target}': {exc}")

    def _fail_in_scope(self, scope: ScopeState, message: str) -> None:
        """A failure at a scope's top level: the run fails, or the calling subgraph node does."""
        state = self.state
        if scope.id == ROOT_SCOPE_ID:
            self._fail_run(message)
            return
        if scope.caller_frame_id is None or scope.caller_frame_id not in state.frames:
            self._fail_run(message)
            return
        caller = state.frames[scope.caller_frame_id]
        call_input = scope.call_input
        self._drop_scope(scope)
        parent = state.scopes[caller.scope_id]
        node = self._node(self._program(parent), caller)
        message = f"subgraph '{node.id}': {message}"
        self._record(caller, node, self.view(caller), call_input, None, error=message)
        self._fail(caller, message)

    def _fail_run(self, message: str) -> None:
        state = self.state
        state.status = "failed"
        state.error = message
        state.ready.clear()
        state.interrupts.clear()


class _NodeFailed(Exception):
    """A node failed; carries the payload it was given, for the trace."""

    def __init__(self, message: str, payload: JsonValue, attempts: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.payload = payload
        self.attempts = attempts


def _copy_object(value: object, where: str = "payload") -> JsonObject:
    copied = copy_json(value, where)
    if not isinstance(copied, dict):
        raise NotJsonError(f"{where} must be a JSON object")
    return copied
