"""Running a test document's cases: pins as handler answers, then the expectations.

A pin is the answer of a handler: every node def's handler (a stand-in, or the user's)
is wrapped, and an activation of a pinned node of the workflow under test returns the
pin's result instead of calling it. Nothing else of the engine changes, so a case runs
exactly as ``wfls run`` would with handlers that return those results.

- An activation is counted per node, from 0, in the order the node's activations run
  (retries are attempts of one activation). ``activation`` in a pin and in ``saw``
  count the same way: for a node of type ``node``, its n-th record in the trace. Pins
  count activations as the engine starts them (``Engine.steps``), not as handlers are
  called, so one that failed before its handler was (its input refused by the node def's
  schema, a binding's path unresolved, in a loop whose ``item_error`` goes on) counts.
- ``when`` reads the node's context through the runtime's own path walk
  (``Sources.read``) on the context the activation was given.
- The first pin (in document order) whose node, ``activation`` and ``when`` match
  answers; a pin that never answers is a failure of the case (what it pins did not run).
- Interrupts are answered in the order the run pauses, each by the next
  ``[[case.interrupt]]``; one left over is a failure, a pause with none left ends the
  run ``paused``.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping
from pathlib import Path

from wf_core.base.locations import Location
from wf_core.base.step_limit import DEFAULT_MAX_STEPS
from wf_core.language.paths import GraphSourcePath
from wf_core.runtime import (
    ActivationRecord,
    Engine,
    Handler,
    NodeResult,
    RunResult,
    RuntimeContext,
    WorkflowExecutionError,
    prepare_resume,
    prepare_run,
    run_result,
    stand_in_handlers,
)
from wf_core.runtime.bindings import Sources
from wf_core.runtime.frames import ROOT_SCOPE_ID, Frame
from wf_core.runtime.json_values import JsonObject, JsonValue, copy_json
from wf_core.workflow_tests.cases import FAILED_ATTEMPT, Attempt, Case, Expect, Pin
from wf_core.workflow_tests.checker import checked_subject
from wf_core.workflow_tests.findings import TestFinding
from wf_core.workflow_tests.loader import LoadedTests
from wf_core.workflow_tests.matching import first_missing, is_subset
from wf_core.workflow_tests.results import CaseResult, CaseStatus, Failure, FileResult
from wf_core.workflow_tests.subject import Subject
from wf_core.workspace.catalog import Workspace

__all__ = [
    "PinnedFailure",
    "PinnedHandlers",
    "activation_label",
    "case_handlers",
    "run_case",
    "run_test_document",
]


SHOWN_ACTIVATIONS = 50
"""How many of the last activations a failure about the path shows (a long run has
thousands; the last ones are those that led where it went wrong)."""


class PinnedFailure(Exception):
    """A pinned attempt that fails (``error``, or ``"error"`` among ``attempts``)."""


def activation_label(record: ActivationRecord) -> str:
    """``customers [0] > orders.v2 [1] > charge``: the loops a record ran in, with their
    item indexes, then its node (after the subgraph calls leading to it)."""
    parts: list[str] = []
    entries = record.context.get("foreach")
    for owner in record.owner_stack:
        entry = entries.get(owner) if isinstance(entries, dict) else None
        index = entry.get("index") if isinstance(entry, dict) else None
        parts.append(f"{owner} [{index}]")
    parts.append(record.node_id)
    calls = " / ".join(record.call_path)
    return (f"{calls}: " if calls else "") + " > ".join(parts)


class _Pins:
    """The pins of one case, answering for the handlers they wrap."""

    def __init__(self, pins: list[Pin], samples: Mapping[str, Handler]) -> None:
        self.pins = pins
        self.samples = samples
        self.used = [False] * len(pins)
        # Per node of the workflow under test: its activations' frames, numbered in the
        # order they run. A replay of the same run (the debugger's step back) makes the
        # same frames, which keep their numbers.
        self._frames: dict[str, dict[str, int]] = {}

    def activating(self, frame: Frame) -> None:
        """Counts the activation ``frame`` is about to run (``Engine.steps``): every one,
        also one that fails before its handler is called, as its record counts for
        ``saw``."""
        if frame.kind == "node" and frame.scope_id == ROOT_SCOPE_ID and frame.node_id:
            frames = self._frames.setdefault(frame.node_id, {})
            frames.setdefault(frame.id, len(frames))

    def wrap(self, name: str, handler: Handler) -> Handler:
        def pinned(payload: JsonObject, ctx: RuntimeContext) -> object:
            if ctx.scope_id == ROOT_SCOPE_ID:
                index = self._frames[ctx.node_id][ctx.frame_id]  # counted by ``activating``
                for number, pin in enumerate(self.pins):
                    if pin.node == ctx.node_id and self._applies(pin, index, ctx):
                        self.used[number] = True
                        return self._answer(pin, name, payload, ctx)
            return handler(payload, ctx)

        return pinned

    @staticmethod
    def _applies(pin: Pin, index: int, ctx: RuntimeContext) -> bool:
        if pin.activation is not None and pin.activation != index:
            return False
        sources = Sources(None, {}, ctx.view.graph)
        for key, expected in (pin.when or {}).items():
            try:
                value = sources.read(GraphSourcePath.parse(key))
            except (WorkflowExecutionError, ValueError):
                return False
            if not is_subset(expected, value):
                return False
        return True

    def _answer(self, pin: Pin, name: str, payload: JsonObject, ctx: RuntimeContext) -> NodeResult:
        outcome, output, error = pin.outcome, pin.output, pin.error
        if pin.attempts:
            attempt = pin.attempts[min(ctx.attempt, len(pin.attempts)) - 1]
            if attempt == FAILED_ATTEMPT:
                error = f"pinned attempt {ctx.attempt} fails"
            elif isinstance(attempt, Attempt):
                outcome = attempt.outcome or outcome
                output = attempt.output if attempt.output is not None else output
                error = attempt.error
            else:
                outcome, error = attempt, None
        if error is not None:
            raise PinnedFailure(error)
        if outcome is None or output is None:
            sample = self.samples[name](payload, ctx)
            assert isinstance(sample, NodeResult)
            outcome = outcome or sample.outcome
            output = output if output is not None else sample.output
        copied = copy_json(output)
        assert isinstance(copied, dict)
        return NodeResult(outcome=outcome, output=copied)


class _Run:
    """One case's run: its result, every activation across its resumes, and the
    failures found on the way (answers that did not fit)."""

    def __init__(self, loaded: LoadedTests, index: int, case: Case) -> None:
        self.loaded = loaded
        self.index = index
        self.case = case
        self.at: Location = ("case", index)
        self.failures: list[Failure] = []
        self.records: list[ActivationRecord] = []

    def fail(
        self,
        message: str,
        location: Location,
        *,
        expected: JsonValue = None,
        actual: JsonValue = None,
        activations: tuple[str, ...] = (),
    ) -> None:
        span = self.loaded.span(location)
        self.failures.append(Failure(message, span, expected, actual, activations))

    def labels(self) -> tuple[str, ...]:
        """The activations that led to where the run ended: the last ``SHOWN_ACTIVATIONS``
        of them, after a line counting the ones left out."""
        records = self.records[-SHOWN_ACTIVATIONS:]
        left_out = len(self.records) - len(records)
        earlier = (f"… {left_out} earlier activation(s)",) if left_out else ()
        return earlier + tuple(activation_label(record) for record in records)

    def root_ids(self) -> list[str]:
        return [record.node_id for record in self.records if not record.call_path]

    def run(self, subject: Subject, handlers: PinnedHandlers, max_steps: int) -> RunResult | None:
        """The run to the end, or None when it was refused (a failure says why)."""
        case = self.case
        try:
            result = _driven(
                prepare_run(
                    subject.workflow,
                    case.input,
                    handlers.handlers,
                    subgraphs=subject.subgraphs,
                    seed=case.seed,
                    max_steps=max_steps,
                ),
                handlers,
            )
        except WorkflowExecutionError as refused:
            self.fail(str(refused), (*self.at, "input"))
            return None
        self.records += result.trace
        for number, answer in enumerate(case.interrupt):
            where = (*self.at, "interrupt", number)
            pending = result.interrupt
            if pending is None:
                self.fail(
                    f"the run never waited at interrupt '{answer.node}' (it {result.status})",
                    (*where, "node"),
                    expected=answer.node,
                    activations=self.labels(),
                )
                break
            if pending.node_id != answer.node or pending.scope_id != ROOT_SCOPE_ID:
                self.fail(
                    f"the run waited at interrupt '{pending.node_id}', not '{answer.node}'",
                    (*where, "node"),
                    expected=answer.node,
                    actual=pending.node_id,
                    activations=self.labels(),
                )
                break
            if answer.request is not None and not is_subset(answer.request, pending.request):
                self.fail(
                    f"interrupt '{answer.node}' was asked something else",
                    (*where, "request"),
                    expected=answer.request,
                    actual=pending.request,
                )
            try:
                result = _driven(
                    prepare_resume(
                        result,
                        answer.answer,
                        subject.workflow,
                        handlers.handlers,
                        outcome=answer.outcome,
                        subgraphs=subject.subgraphs,
                        max_steps=max_steps,
                    ),
                    handlers,
                )
            except WorkflowExecutionError as refused:
                self.fail(str(refused), (*where, "answer"))
                return None
            self.records += result.trace
        return result

    def expect(self, result: RunResult, number: int, expect: Expect) -> None:
        where = self.loaded.expect_location(self.index, number)
        path = self.labels()
        if expect.status is not None and expect.status != result.status:
            why = f": {result.error}" if result.error else ""
            self.fail(
                f"expected status '{expect.status}', the run {result.status}{why}",
                (*where, "status"),
                expected=expect.status,
                actual=result.status,
                activations=path,
            )
        if expect.outcome is not None and expect.outcome != result.outcome:
            self.fail(
                f"expected outcome '{expect.outcome}', the run ended with "
                f"{_quoted(result.outcome)}",
                (*where, "outcome"),
                expected=expect.outcome,
                actual=result.outcome,
                activations=path,
            )
        if expect.output is not None and not is_subset(expect.output, result.output):
            self.fail(
                "the workflow output does not hold the expected values",
                (*where, "output"),
                expected=expect.output,
                actual=result.output,
            )
        if expect.error is not None and expect.error not in (result.error or ""):
            self.fail(
                f"expected a failure saying '{expect.error}'",
                (*where, "error"),
                expected=expect.error,
                actual=result.error,
            )
        if expect.visited is not None:
            ran = self.root_ids()
            missing = first_missing(expect.visited, ran)
            if missing is not None:
                name = expect.visited[missing]
                after = f" after '{expect.visited[missing - 1]}'" if missing else ""
                self.fail(
                    f"'{name}' did not run{after}",
                    (*where, "visited", missing),
                    expected=list(expect.visited),
                    actual=list(ran),
                    activations=path,
                )
        for position, saw in enumerate(expect.saw):
            at = (*where, "saw", position)
            records = [r for r in self.records if r.node_id == saw.node and not r.call_path]
            if saw.activation >= len(records):
                self.fail(
                    f"node '{saw.node}' ran {len(records)} time(s): activation "
                    f"{saw.activation} never happened",
                    (*at, "activation"),
                    expected=saw.activation,
                    actual=len(records),
                    activations=path,
                )
                continue
            record = records[saw.activation]
            label = (activation_label(record),)
            if saw.context is not None and not is_subset(saw.context, record.context):
                self.fail(
                    f"activation {saw.activation} of '{saw.node}' saw another context",
                    (*at, "context"),
                    expected=saw.context,
                    actual=record.context,
                    activations=label,
                )
            if saw.input is not None and not is_subset(saw.input, record.input):
                self.fail(
                    f"activation {saw.activation} of '{saw.node}' was given another input",
                    (*at, "input"),
                    expected=saw.input,
                    actual=record.input,
                    activations=label,
                )


def _quoted(value: str | None) -> str:
    return "no outcome" if value is None else f"'{value}'"


class PinnedHandlers:
    """The handlers a case runs with, and what counts the activations its pins name.

    ``activating`` must see every frame the engine's ``steps()`` yields, before the
    handlers run for it: a pin by ``activation`` reads the count it keeps.
    """

    def __init__(self, pins: _Pins, handlers: dict[str, Handler]) -> None:
        self.pins = pins
        self.handlers = handlers

    def activating(self, frame: Frame) -> None:
        self.pins.activating(frame)


def case_handlers(
    case: Case, subject: Subject, handlers: Mapping[str, Handler] | None = None
) -> PinnedHandlers:
    """The handlers a case runs with: its pins answer first, then ``handlers`` (default:
    the stand-ins). ``wfls debug`` runs a case with these, as ``wfls test`` does."""
    stand_ins = stand_in_handlers(subject.workflow, subgraphs=subject.subgraphs)
    base = dict(handlers) if handlers is not None else stand_ins
    pins = _Pins(case.pin, stand_ins)
    return PinnedHandlers(pins, {name: pins.wrap(name, handler) for name, handler in base.items()})


def _driven(engine: Engine, handlers: PinnedHandlers) -> RunResult:
    """The engine's run to its end (or pause), each activation counted as it starts."""
    for frame in engine.steps():
        handlers.activating(frame)
    return run_result(engine)


def run_case(
    loaded: LoadedTests,
    index: int,
    subject: Subject,
    *,
    handlers: Mapping[str, Handler] | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> CaseResult:
    """Run case ``index`` of ``loaded`` (its model must have been read) on ``subject``,
    with stand-ins or ``handlers`` for the nodes it does not pin."""
    started = time.perf_counter()
    written = loaded.cases[index]
    case = written.case
    assert case is not None
    pinned = case_handlers(case, subject, handlers)
    pins = pinned.pins
    run = _Run(loaded, index, case)
    result = run.run(subject, pinned, max_steps)
    status: CaseStatus = "error"
    if result is not None:
        for number, expect in enumerate(case.expectations):
            run.expect(result, number, expect)
        for number, pin in enumerate(case.pin):
            if not pins.used[number]:
                ran = sum(1 for r in run.records if r.node_id == pin.node and not r.call_path)
                run.fail(
                    f"the pin of '{pin.node}' never answered: the node ran {ran} time(s) "
                    "and no activation matched it",
                    (*run.at, "pin", number),
                    activations=run.labels(),
                )
        status = "failed" if run.failures else "passed"
    elapsed = (time.perf_counter() - started) * 1000
    name = written.name or f"case [{index}]"
    return CaseResult(name, loaded.case_span(index), status, elapsed, tuple(run.failures))


def _finding_failure(finding: TestFinding) -> Failure:
    return Failure(f"{finding.message} [{finding.code.value}]", finding.span)


def run_test_document(
    path: str,
    loaded: LoadedTests,
    workspace: Workspace,
    *,
    base: Path | None,
    cases: Collection[str] | None = None,
    handlers: Mapping[str, Handler] | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> FileResult:
    """Check ``loaded`` and run its cases (those named in ``cases``, or all).

    A case with a finding inside it is not run (``error``, the findings as its
    failures); a finding outside every case (the workflow, the syntax) stops them all.
    The document's ``error`` is its first finding."""
    subject, findings = checked_subject(loaded, workspace, base=base)
    inside: dict[int, list[TestFinding]] = {}
    outside: list[TestFinding] = []
    for finding in findings:
        index = loaded.case_at(finding.span.start)
        (inside.setdefault(index, []) if index is not None else outside).append(finding)
    results: list[CaseResult] = []
    for written in loaded.cases:
        name = written.name or f"case [{written.index}]"
        if cases is not None and name not in cases:
            continue
        stopped = outside + inside.get(written.index, [])
        if stopped or subject is None or written.case is None:
            failures = tuple(_finding_failure(f) for f in stopped)
            results.append(
                CaseResult(name, loaded.case_span(written.index), "error", 0.0, failures)
            )
            continue
        try:
            result = run_case(
                loaded, written.index, subject, handlers=handlers, max_steps=max_steps
            )
        except (RecursionError, MemoryError, ValueError, TypeError) as exc:
            # A value the run cannot take (an input nested deeper than Python's stack, a
            # pinned value that is not JSON): this case errs, the others still run.
            span = loaded.case_span(written.index)
            failure = Failure(f"the case could not run: {type(exc).__name__}: {exc}", span)
            result = CaseResult(name, span, "error", 0.0, (failure,))
        results.append(result)
    error = _finding_failure(findings[0]) if findings else None
    workflow = subject.workflow.name if subject is not None else None
    return FileResult(path, workflow, error, tuple(results), loaded.lines)
