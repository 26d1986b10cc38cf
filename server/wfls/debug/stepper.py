"""A run the debugger moves through one activation at a time, and replays to go back.

The engine's ``steps()`` yields each frame before activating it; :class:`Stepper`
takes those frames one *tick* at a time. Tick ``n`` activates the frame of tick
``n - 1`` and takes the next one, so after ``n`` ticks the run stands before its
``n``-th activation. Interrupts take the target's answers in order.

Going back is replaying: a run with the same workflows, handlers (the stand-ins are
pure functions of the node and its input), input and seed makes the same activations,
so :meth:`Stepper.replay_to` starts again and ticks up to the wanted tick. Nothing is
kept of the way forward but the tick count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from wf_core.language.paths import format_segment
from wf_core.runtime import (
    Engine,
    Frame,
    FrameContextView,
    ScopeState,
    WorkflowExecutionError,
    prepare_run,
)
from wf_core.runtime.frames import ROOT_SCOPE_ID, frame_context_view
from wf_core.runtime.json_values import JsonValue
from wf_core.runtime.trace import ActivationRecord
from wfls.debug.target import Target

__all__ = ["Departure", "Place", "StackEntry", "Stepper"]


@dataclass(frozen=True, slots=True)
class StackEntry:
    """One line of the call stack: the node it points at, in the document of
    ``workflow`` (``""`` for the program), its name as shown, and what it holds (a
    loop's ``index`` and ``item``, a subgraph call's ``input``)."""

    name: str
    node_id: str
    workflow: str
    values: tuple[tuple[str, JsonValue], ...] = ()


@dataclass(frozen=True, slots=True)
class Place:
    """Where the run stands at a tick: the frame about to be activated, what it sees,
    its scope and the stack (the activation first, then each loop iteration that owns
    it, then the subgraph call that started its scope and that call's own loops)."""

    tick: int
    frame: Frame
    view: FrameContextView
    scope: ScopeState
    stack: tuple[StackEntry, ...]

    @property
    def node_id(self) -> str:
        return self.frame.node_id or ""

    @property
    def workflow(self) -> str:
        """The scope's workflow as the target's ``documents`` key it."""
        return "" if self.scope.id == ROOT_SCOPE_ID else self.scope.workflow


@dataclass(frozen=True, slots=True)
class Departure:
    """What activating the previous place did that a debugger may stop for: the
    records with an error, a pause at an interrupt no answer was left for, the run's
    end (``status`` as the run state says it)."""

    errors: tuple[ActivationRecord, ...]
    paused: bool
    status: str


def _stack(engine: Engine, frame: Frame, view: FrameContextView) -> tuple[StackEntry, ...]:
    state = engine.state
    entries: list[StackEntry] = []
    current_frame, current_view = frame, view
    scope = state.scopes[frame.scope_id]
    entries.append(StackEntry(frame.node_id or "", frame.node_id or "", _key(scope)))
    while True:
        for owner in reversed(current_view.owner_stack):
            loop = current_view.foreach[owner]
            entries.append(
                StackEntry(
                    f"{format_segment(owner)} [{loop.index}]",
                    owner,
                    _key(scope),
                    (("index", loop.index), ("item", loop.item)),
                )
            )
        if scope.caller_frame_id is None or scope.parent_scope_id is None:
            break
        caller = state.frames.get(scope.caller_frame_id)
        parent = state.scopes.get(scope.parent_scope_id)
        if caller is None or parent is None:
            break
        child_input = scope.input
        current_frame, scope = caller, parent
        current_view = frame_context_view(state, current_frame)
        node_id = current_frame.node_id or ""
        entries.append(
            StackEntry(
                f"{node_id} (subgraph call)", node_id, _key(scope), (("input", child_input),)
            )
        )
    return tuple(entries)


def _key(scope: ScopeState) -> str:
    return "" if scope.id == ROOT_SCOPE_ID else scope.workflow


class Stepper:
    """The run of one target, moved forward by :meth:`tick` and back by replaying."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.engine: Engine
        self.ticks = 0
        self.place: Place | None = None
        self.ran: Frame | None = None
        self._steps: Iterator[Frame]
        self._answers = 0
        self._start()

    def _start(self) -> None:
        """A fresh run; raises ``WorkflowRefused`` when the runtime refuses it."""
        target = self.target
        self.engine = prepare_run(
            target.workflow,
            target.input,
            target.handlers,
            subgraphs=target.subgraphs,
            seed=target.seed,
            max_steps=target.max_steps,
        )
        self._steps = self.engine.steps()
        self.ticks = 0
        self.place = None
        self.ran = None  # the frame the last tick activated
        self._answers = 0

    def tick(self) -> Departure:
        """Activate the current place's frame and move to the next one (``place`` is
        None once the run has ended or paused with no answer left)."""
        engine = self.engine
        seen = len(engine.records)
        self.ran = self.place.frame if self.place is not None else None
        paused = False
        frame: Frame | None = None
        while frame is None:
            try:
                frame = next(self._steps)
            except StopIteration:
                state = engine.state
                if state.status == "paused" and self._answers < len(self.target.answers):
                    answer = self.target.answers[self._answers]
                    self._answers += 1
                    try:
                        engine.answer(answer.value, answer.outcome)
                    except WorkflowExecutionError as error:
                        state.status = "failed"
                        state.error = f"answer {self._answers}: {error}"
                        break
                    self._steps = engine.steps()
                    continue
                paused = state.status == "paused"
                break
        self.ticks += 1
        if frame is None:
            self.place = None
        else:
            if self.target.observe is not None:
                self.target.observe(frame)
            view = engine.view(frame)
            self.place = Place(
                self.ticks,
                frame,
                view,
                engine.state.scopes[frame.scope_id],
                _stack(engine, frame, view),
            )
        errors = tuple(record for record in engine.records[seen:] if record.error is not None)
        return Departure(errors, paused, engine.state.status)

    def replay_to(self, tick: int, arrive: Callable[[Place], object] | None = None) -> None:
        """Run again from the start up to ``tick``, calling ``arrive`` at each place
        on the way (so that hit counts are counted again)."""
        self._start()
        while self.ticks < tick:
            self.tick()
            if self.place is None:
                return
            if arrive is not None:
                arrive(self.place)
