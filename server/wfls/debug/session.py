"""One debug session: the Debug Adapter Protocol's requests answered over a
:class:`~wfls.debug.stepper.Stepper`.

The session is plain logic: :meth:`Session.handle` takes one request and sends its
response and events through the function it was given, so the tests drive it without
a socket, and ``wfls debug`` puts it behind stdio or a TCP port.

A stop is always between two activations: *before* a node runs (a breakpoint, a step,
the entry), or, for an exception breakpoint, just *after* the activation that failed
or paused (its frame is shown on top, the state is the state after it). Stepping is by
the call stack's depth (the activation, the loop iterations that own it, the subgraph
calls): ``next`` stops at the next activation no deeper than this one, ``stepIn`` at
the very next one, ``stepOut`` at the first one shallower (after the loop's ``done``,
or back in the caller). ``stepBack`` and ``reverseContinue`` replay the run from its
start (the runtime is deterministic with stand-ins and a seed) to the activation
before, or to the last breakpoint before.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wf_core.language.paths import GraphSourcePath
from wf_core.models import ConditionNode, ForeachNode, InterruptNode, NodeUse, SubgraphNode
from wf_core.runtime import WorkflowExecutionError, WorkflowRefused
from wf_core.runtime.bindings import Sources, build_payload, evaluate_condition
from wf_core.runtime.json_values import JsonValue
from wfls.debug.breakpoints import Binding, Breakpoint, NodeSpot, bind_line
from wfls.debug.conditions import ConditionError, parse_condition
from wfls.debug.protocol import Event, Response
from wfls.debug.stepper import Departure, Place, Stepper
from wfls.debug.target import Target, TargetError, read_target
from wfls.debug.variables import Variables, context_entries, render

__all__ = ["EXCEPTION_FILTERS", "Session"]

THREAD_ID = 1

EXCEPTION_FILTERS: list[dict[str, object]] = [
    {"filter": "error", "label": "Node errors", "default": True,
     "description": "Stop after an activation fails (its handler, a path, a contract) or the "
     "run reaches its step limit"},
    {"filter": "refused", "label": "Refused runs", "default": True,
     "description": "Stop when the runtime refuses to start the run (input, handlers)"},
    {"filter": "interrupt", "label": "Interrupts", "default": False,
     "description": "Stop when the run pauses at an interrupt with no answer left"},
]  # fmt: skip

Send = Callable[[Response | Event], None]
Spots = Callable[[Path], tuple[NodeSpot, ...]]


@dataclass(slots=True)
class _Stop:
    """Why and where the run is stopped. ``place`` is None only for a refused run."""

    reason: str
    place: Place | None
    after: bool = False  # the place's activation has run (an exception stop)
    exception_id: str | None = None
    text: str | None = None
    ended: bool = False  # nothing comes after: continuing ends the session


class _Requested(Exception):
    """A request that cannot be answered; the message goes back in the response."""


def analyse_spots(path: Path) -> tuple[NodeSpot, ...]:
    """The node spots of the document at ``path``, read as ``wfls graph`` reads it."""
    from wf_core.graph import build_graph
    from wfls.cli.check import workspace_for
    from wfls.debug.breakpoints import node_spots

    if not path.is_file():
        return ()
    workspace, uri, problem = workspace_for(path, None)
    document = workspace.document(uri)
    if problem is not None or document is None:
        return ()
    return node_spots(document.snapshot, build_graph(document.snapshot, workspace))


class Session:
    """Answers one client's requests (see the module's docstring)."""

    def __init__(self, send: Send, spots: Spots = analyse_spots) -> None:
        self._send = send
        self._spots_of = spots
        self._spot_cache: dict[Path, tuple[NodeSpot, ...]] = {}
        self._line_base = 1
        self._next_breakpoint = 0
        self._line_breakpoints: dict[Path, list[Breakpoint]] = {}
        self._function_breakpoints: list[Breakpoint] = []
        self._filters: set[str] = {str(f["filter"]) for f in EXCEPTION_FILTERS if f["default"]}
        self._target: Target | None = None
        self._stop_on_entry = False
        self._configured = False
        self._started = False
        self._stepper: Stepper | None = None
        self._stop: _Stop | None = None
        self._pending_arrival = False
        self._variables = Variables()
        self._frame_base = 0  # the stack frames of a stop are numbered from base + 1
        self._frame_top = 0
        self._reported: set[tuple[int, str]] = set()
        self.finished = False

    # -- plumbing -------------------------------------------------------------------------

    def _respond(self, request: dict[str, Any], body: dict[str, Any] | None = None) -> None:
        response: Response = {
            "seq": 0,
            "type": "response",
            "request_seq": int(request.get("seq", 0)),
            "success": True,
            "command": str(request.get("command")),
        }
        if body is not None:
            response["body"] = body
        self._send(response)

    def _refuse(self, request: dict[str, Any], message: str) -> None:
        self._send(
            {
                "seq": 0,
                "type": "response",
                "request_seq": int(request.get("seq", 0)),
                "success": False,
                "command": str(request.get("command")),
                "message": message,
                "body": {"error": {"id": 1, "format": message, "showUser": True}},
            }
        )

    def _event(self, event: str, body: dict[str, Any] | None = None) -> None:
        message: Event = {"seq": 0, "type": "event", "event": event}
        if body is not None:
            message["body"] = body
        self._send(message)

    def _output(self, text: str, category: str = "console") -> None:
        self._event("output", {"category": category, "output": text + "\n"})

    def handle(self, request: dict[str, Any]) -> None:
        """Answer one request (an unknown command gets an error response)."""
        command = request.get("command")
        method = getattr(self, f"_on_{command}", None) if isinstance(command, str) else None
        if method is None:
            self._refuse(request, f"wfls debug does not support '{command}'")
            return
        arguments = request.get("arguments")
        try:
            method(request, arguments if isinstance(arguments, dict) else {})
        except _Requested as problem:
            self._refuse(request, str(problem))

    # -- setup --------------------------------------------------------------------------

    def _on_initialize(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        self._line_base = 1 if arguments.get("linesStartAt1", True) else 0
        self._respond(
            request,
            {
                "supportsConfigurationDoneRequest": True,
                "supportsFunctionBreakpoints": True,
                "supportsConditionalBreakpoints": True,
                "supportsHitConditionalBreakpoints": True,
                "supportsEvaluateForHovers": True,
                "supportsStepBack": True,
                "supportsExceptionInfoRequest": True,
                "supportsTerminateRequest": True,
                "exceptionBreakpointFilters": EXCEPTION_FILTERS,
            },
        )
        self._event("initialized")

    def _start_target(
        self, request: dict[str, Any], arguments: dict[str, Any], *, attach: bool
    ) -> None:
        try:
            self._target = read_target(arguments, attach=attach)
        except TargetError as error:
            raise _Requested(str(error)) from None
        self._stop_on_entry = bool(arguments.get("stopOnEntry", False))
        self._respond(request)
        if self._configured:
            self._begin()

    def _on_launch(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        self._start_target(request, arguments, attach=False)

    def _on_attach(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        self._start_target(request, arguments, attach=True)

    def _on_configurationDone(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        self._configured = True
        self._respond(request)
        if self._target is not None:
            self._begin()

    def _on_setExceptionBreakpoints(
        self, request: dict[str, Any], arguments: dict[str, Any]
    ) -> None:
        filters = arguments.get("filters", [])
        known = {str(f["filter"]) for f in EXCEPTION_FILTERS}
        self._filters = {f for f in filters if isinstance(f, str) and f in known}
        self._respond(request, {"breakpoints": [{"verified": True} for _ in self._filters]})

    def _spots(self, path: Path) -> tuple[NodeSpot, ...]:
        if path not in self._spot_cache:
            self._spot_cache[path] = self._spots_of(path)
        return self._spot_cache[path]

    def _breakpoint_body(self, breakpoint: Breakpoint) -> dict[str, Any]:
        body: dict[str, Any] = {"id": breakpoint.id, "verified": breakpoint.verified}
        if breakpoint.source is not None:
            body["line"] = breakpoint.line - 1 + self._line_base
            body["source"] = {"name": Path(breakpoint.source).name, "path": breakpoint.source}
        if breakpoint.message is not None:
            body["message"] = breakpoint.message
        return body

    def _on_setBreakpoints(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        source = arguments.get("source") or {}
        path_text = source.get("path") if isinstance(source, dict) else None
        if not isinstance(path_text, str):
            raise _Requested("setBreakpoints needs a source with a path")
        path = Path(path_text).resolve()
        self._spot_cache.pop(path, None)  # the document may have changed since
        spots = self._spots(path)
        made: list[Breakpoint] = []
        for wanted in arguments.get("breakpoints", []):
            if not isinstance(wanted, dict) or not isinstance(wanted.get("line"), int):
                continue
            self._next_breakpoint += 1
            line = wanted["line"] + 1 - self._line_base
            made.append(
                Breakpoint.make(
                    self._next_breakpoint,
                    bind_line(spots, line),
                    str(path),
                    wanted.get("condition"),
                    wanted.get("hitCondition"),
                )
            )
        self._line_breakpoints[path] = made
        self._respond(request, {"breakpoints": [self._breakpoint_body(b) for b in made]})

    def _on_setFunctionBreakpoints(
        self, request: dict[str, Any], arguments: dict[str, Any]
    ) -> None:
        made: list[Breakpoint] = []
        for wanted in arguments.get("breakpoints", []):
            name = wanted.get("name") if isinstance(wanted, dict) else None
            if not isinstance(name, str) or not name:
                continue
            self._next_breakpoint += 1
            made.append(
                Breakpoint.make(
                    self._next_breakpoint,
                    Binding(name, 0),
                    None,
                    wanted.get("condition"),
                    wanted.get("hitCondition"),
                )
            )
        self._function_breakpoints = made
        self._respond(request, {"breakpoints": [self._breakpoint_body(b) for b in made]})

    # -- running ------------------------------------------------------------------------

    def _begin(self) -> None:
        if self._started or self._target is None:
            return
        self._started = True
        self._event("process", {"name": str(self._target.program), "startMethod": "launch"})
        try:
            self._stepper = Stepper(self._target)
        except WorkflowRefused as refused:
            message = str(refused)
            if "refused" in self._filters:
                self._stopped(_Stop("exception", None, True, "refused", message, ended=True))
            else:
                self._output(f"wfls: {message}", "stderr")
                self._finish(1)
            return
        self._go("stepIn" if self._stop_on_entry else "continue", entry=True)

    def _document(self, workflow: str) -> Path | None:
        assert self._target is not None
        found = self._target.documents.get(workflow)
        return found.resolve() if found is not None else None

    def _sources(self, place: Place) -> Sources:
        return Sources(place.scope.input, place.scope.state, place.view.graph)

    def _matching(self, place: Place) -> list[Breakpoint]:
        """The breakpoints on the place's node, from its document's lines and by name."""
        found = [b for b in self._function_breakpoints if b.node_id == place.node_id]
        document = self._document(place.workflow)
        if document is not None:
            found += [
                b
                for b in self._line_breakpoints.get(document, [])
                if b.node_id == place.node_id and b.message is None
            ]
        return found

    def _arrive(self, place: Place, *, report: bool = True) -> list[int]:
        """Count the hits of the breakpoints at ``place``; the ids of those that stop."""
        stopping: list[int] = []
        for breakpoint in self._matching(place):
            if breakpoint.condition is not None:
                try:
                    if not breakpoint.condition.holds(self._sources(place).read):
                        continue
                except ConditionError as error:
                    key = (breakpoint.id, str(error))
                    if report and key not in self._reported:
                        self._reported.add(key)
                        self._output(
                            f"breakpoint condition '{breakpoint.condition.text}' at node "
                            f"'{place.node_id}': {error}",
                            "stderr",
                        )
                    continue
            breakpoint.hits += 1
            if breakpoint.hit_condition is None or breakpoint.hit_condition.stops(breakpoint.hits):
                stopping.append(breakpoint.id)
        return stopping

    def _reset_hits(self) -> None:
        for breakpoint in self._all_breakpoints():
            breakpoint.hits = 0

    def _all_breakpoints(self) -> list[Breakpoint]:
        every = list(self._function_breakpoints)
        for group in self._line_breakpoints.values():
            every += group
        return every

    def _departure_stop(self, before: Place | None, departure: Departure) -> _Stop | None:
        """An exception stop for what the last activation did, when its filter is on."""
        assert self._stepper is not None
        engine = self._stepper.engine
        ended = self._stepper.place is None
        if departure.errors and "error" in self._filters:
            return _Stop("exception", before, True, "error", departure.errors[0].error, ended)
        limit = engine.step_limit
        if limit is not None and "error" in self._filters:
            text = engine.state.error or f"the run stopped at its step limit of {limit.limit}"
            return _Stop("exception", before, True, "step limit", text, ended)
        if departure.paused and "interrupt" in self._filters:
            pending = engine.state.interrupts[0]
            text = f"paused at interrupt '{pending.node_id}' (kind '{pending.kind}')"
            return _Stop("exception", before, True, "interrupt", text, ended)
        return None

    def _go(self, mode: str, *, entry: bool = False) -> None:
        """Run until a stop ``mode`` asks for (continue, next, stepIn, stepOut), a
        breakpoint, an exception stop or the end."""
        stepper = self._stepper
        assert stepper is not None
        stop = self._stop
        if stop is not None and stop.ended:
            self._end_of_run()
            return
        depth = len(stop.place.stack) if stop is not None and stop.place is not None else 0
        self._stop = None
        self._variables.clear()
        if not entry:
            self._event("continued", {"threadId": THREAD_ID, "allThreadsContinued": True})
        while True:
            if self._pending_arrival and stepper.place is not None:
                self._pending_arrival = False
                place = stepper.place
            else:
                before = stepper.place
                departure = stepper.tick()
                exception = self._departure_stop(before, departure)
                if exception is not None:
                    self._pending_arrival = stepper.place is not None
                    self._stopped(exception)
                    return
                if stepper.place is None:
                    self._end_of_run()
                    return
                place = stepper.place
            hit = self._arrive(place)
            if hit:
                by_name = {b.id for b in self._function_breakpoints}
                reason = "function breakpoint" if by_name.issuperset(hit) else "breakpoint"
                self._stopped(_Stop(reason, place), hit)
                return
            size = len(place.stack)
            if entry:
                if mode == "stepIn":
                    self._stopped(_Stop("entry", place))
                    return
            elif (
                mode == "stepIn"
                or (mode == "next" and size <= depth)
                or (mode == "stepOut" and size < depth)
            ):
                self._stopped(_Stop("step", place))
                return

    def _stopped(self, stop: _Stop, hit: list[int] | None = None) -> None:
        self._stop = stop
        self._variables.clear()
        # Frame ids of this stop: new numbers, as for variable references.
        self._frame_base = self._frame_top
        self._frame_top += len(stop.place.stack) if stop.place is not None else 0
        body: dict[str, Any] = {
            "reason": stop.reason,
            "threadId": THREAD_ID,
            "allThreadsStopped": True,
        }
        if stop.place is not None:
            body["description"] = f"{stop.reason} at node '{stop.place.node_id}'"
        if stop.text is not None:
            body["text"] = stop.text
            body["description"] = stop.text
        if hit:
            body["hitBreakpointIds"] = hit
        self._event("stopped", body)

    def _end_of_run(self) -> None:
        stepper = self._stepper
        assert stepper is not None and self._target is not None
        state = stepper.engine.state
        if state.status == "completed":
            output = json.dumps(state.output, ensure_ascii=False)
            self._output(f"completed with outcome '{state.outcome}'; output: {output}")
        elif state.status == "paused" and state.interrupts:
            pending = state.interrupts[0]
            self._output(
                f"paused at interrupt '{pending.node_id}' (kind '{pending.kind}'), request: "
                f"{json.dumps(pending.request, ensure_ascii=False)}; give the launch "
                "configuration an 'answers' entry to go on"
            )
        else:
            self._output(f"failed: {state.error}", "stderr")
        saved = self._target.saved_steps
        if saved is not None and saved != state.steps:
            self._output(
                f"the replay took {state.steps} steps where the saved run had taken {saved}: "
                "it was saved after a resume, or the workflow or handlers have changed",
                "stderr",
            )
        self._finish(1 if state.status == "failed" else 0)

    def _finish(self, code: int) -> None:
        if self.finished:
            return
        self.finished = True
        self._stop = None
        self._event("exited", {"exitCode": code})
        self._event("terminated")

    def _require_stop(self) -> _Stop:
        if self._stop is None:
            raise _Requested("the run is not stopped")
        return self._stop

    def _on_continue(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        self._require_stop()
        self._respond(request, {"allThreadsContinued": True})
        self._resume("continue")

    def _on_next(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        self._require_stop()
        self._respond(request)
        self._resume("next")

    def _on_stepIn(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        self._require_stop()
        self._respond(request)
        self._resume("stepIn")

    def _on_stepOut(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        self._require_stop()
        self._respond(request)
        self._resume("stepOut")

    def _resume(self, mode: str) -> None:
        if self._stepper is None:  # a refused run: nothing to go on with
            self._finish(1)
            return
        self._go(mode)

    def _replay_to(self, tick: int) -> Place | None:
        """Replay to ``tick`` with the hit counts counted again on the way."""
        assert self._stepper is not None
        self._reset_hits()
        self._stepper.replay_to(tick, lambda place: self._arrive(place, report=False))
        self._pending_arrival = False
        return self._stepper.place

    def _on_stepBack(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        stop = self._require_stop()
        if self._stepper is None or stop.place is None:
            raise _Requested("there is no activation to go back to")
        self._respond(request)
        tick = max(1, stop.place.tick - (0 if stop.after else 1))
        place = self._replay_to(tick)
        assert place is not None
        self._stopped(_Stop("step", place))

    def _on_reverseContinue(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        stop = self._require_stop()
        if self._stepper is None or stop.place is None:
            raise _Requested("there is no activation to go back to")
        self._respond(request)
        current = stop.place.tick + (1 if stop.after else 0)
        stepper = self._stepper
        self._reset_hits()
        stepper.replay_to(0)
        last_hit = 0
        while stepper.ticks < current - 1:
            stepper.tick()
            if stepper.place is None:
                break
            if self._arrive(stepper.place, report=False):
                last_hit = stepper.ticks
        place = self._replay_to(max(1, last_hit))
        assert place is not None
        if last_hit:
            self._stopped(_Stop("breakpoint", place))
        else:
            self._stopped(_Stop("entry", place))

    def _on_pause(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        # Requests are answered one at a time and a run goes on only inside one: by
        # the time a pause is read the run is already stopped or over.
        self._respond(request)

    def _on_disconnect(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        self._respond(request)
        self.finished = True

    def _on_terminate(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        self._respond(request)
        self._finish(0)

    # -- inspecting ---------------------------------------------------------------------

    def _on_threads(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        name = self._target.workflow.name if self._target is not None else "workflow"
        self._respond(request, {"threads": [{"id": THREAD_ID, "name": name}]})

    def _on_stackTrace(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        stop = self._require_stop()
        frames: list[dict[str, Any]] = []
        if stop.place is not None:
            for index, entry in enumerate(stop.place.stack):
                frame: dict[str, Any] = {
                    "id": self._frame_base + index + 1,
                    "name": entry.name,
                    "line": 0,
                    "column": 0,
                }
                document = self._document(entry.workflow)
                if document is not None:
                    spot = next(
                        (s for s in self._spots(document) if s.node_id == entry.node_id), None
                    )
                    frame["source"] = {"name": document.name, "path": str(document)}
                    if spot is not None:
                        frame["line"] = spot.id_line - 1 + self._line_base
                        frame["column"] = self._line_base
                frames.append(frame)
        self._respond(request, {"stackFrames": frames, "totalFrames": len(frames)})

    def _payload(self, place: Place) -> JsonValue:
        """What the node's bindings produce, read now (before it runs) as it will read."""
        assert self._stepper is not None
        program = self._stepper.engine.programs.get(place.workflow)
        node = program.nodes.get(place.node_id)
        sources = self._sources(place)
        try:
            if isinstance(node, NodeUse | SubgraphNode):
                return build_payload(node.input, sources)
            if isinstance(node, InterruptNode):
                return build_payload(node.request, sources)
            if isinstance(node, ForeachNode):
                return {"over": sources.read(node.over)}
            if isinstance(node, ConditionNode):
                return {"predicate": evaluate_condition(node.check, sources)}
        except (WorkflowExecutionError, ValueError) as error:
            return {"error": str(error)}
        return {}

    def _on_scopes(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        stop = self._require_stop()
        place = stop.place
        requested = arguments.get("frameId")
        frame_id = requested - self._frame_base if isinstance(requested, int) else 1
        scopes: list[dict[str, Any]] = []
        if place is not None and frame_id == 1:
            table = self._variables
            context: list[tuple[str, JsonValue, str | None]] = list(
                context_entries(place.view.graph)
            )
            scopes.append(self._scope("Context", table.scope(context)))
            if stop.after:  # what the activation was given, as its record keeps it
                assert self._stepper is not None
                records = self._stepper.engine.records
                record = next((r for r in reversed(records) if r.frame_id == place.frame.id), None)
                payload: JsonValue = record.input if record is not None else None
            else:
                payload = self._payload(place)
            scopes.append(self._scope("Input", table.expandable(payload, None)))
            scopes.append(self._scope("Output", table.scope(self._last_output())))
            state: JsonValue = place.scope.state
            scopes.append(self._scope("State", table.expandable(state, "state")))
            given = place.scope.input
            scopes.append(self._scope("Workflow input", table.expandable(given, "input")))
        elif place is not None and 1 < frame_id <= len(place.stack):
            entry = place.stack[frame_id - 1]
            scopes.append(
                self._scope(
                    entry.name,
                    self._variables.scope([(name, value, None) for name, value in entry.values]),
                )
            )
        self._respond(request, {"scopes": scopes})

    def _scope(self, name: str, reference: int) -> dict[str, Any]:
        return {"name": name, "variablesReference": reference, "expensive": False}

    def _last_output(self) -> list[tuple[str, JsonValue, str | None]]:
        """The activation that ran last (the stopped one, at an exception stop): its
        node, outcome and output (or error), as its record keeps them."""
        assert self._stepper is not None
        ran = self._stepper.ran
        records = self._stepper.engine.records
        record = next(
            (r for r in reversed(records) if ran is not None and r.frame_id == ran.id), None
        )
        if record is None:
            return []
        entries: list[tuple[str, JsonValue, str | None]] = [
            ("node", record.node_id, None),
            ("outcome", record.outcome, None),
            ("output", record.output, None),
        ]
        if record.error is not None:
            entries.append(("error", record.error, None))
        return entries

    def _on_variables(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        reference = arguments.get("variablesReference")
        found = self._variables.variables(reference) if isinstance(reference, int) else []
        self._respond(request, {"variables": found})

    def _on_evaluate(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        stop = self._require_stop()
        expression = arguments.get("expression")
        if not isinstance(expression, str) or stop.place is None:
            raise _Requested("nothing to evaluate in")
        try:
            condition = parse_condition(expression)
            value = condition.value(self._sources(stop.place).read)
        except ConditionError as error:
            raise _Requested(str(error)) from None
        path: str | None = None
        try:
            path = str(GraphSourcePath.parse(expression.strip()))
        except ValueError:
            path = None
        self._respond(
            request,
            {
                "result": render(value),
                "variablesReference": self._variables.expandable(value, path),
            },
        )

    def _on_exceptionInfo(self, request: dict[str, Any], arguments: dict[str, Any]) -> None:
        stop = self._require_stop()
        if stop.exception_id is None:
            raise _Requested("the run is not stopped at an exception")
        self._respond(
            request,
            {
                "exceptionId": stop.exception_id,
                "description": stop.text,
                "breakMode": "always",
            },
        )
