"""``check_test_document``: every finding about a test document, from one function.

The command line (``wfls test`` exits 2 on any) and the language server (its
diagnostics) both call it, so the editor flags exactly what stops a test from running.
Beside the syntax and shape findings of the reader it checks what the cases name
against the workflow: nodes, outcomes, the ``when`` paths of pins (walked in the static
context schema of the pinned node, as a binding's path is), pinned outputs against
the node def's ``output_schema``, inputs and answers against their schemas.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from wf_core.analysis.context_scopes import ContextModel
from wf_core.base.locations import Location
from wf_core.base.suggest import closest_name
from wf_core.language.paths import GraphSourcePath, PathResolutionError, format_segments
from wf_core.models import InterruptNode, NodeUse, Workflow
from wf_core.models.steps import AnyStep
from wf_core.models.workflow import node_defs_by_name
from wf_core.runtime.contracts import compile_schema
from wf_core.workflow_tests.cases import FAILED_ATTEMPT, Attempt, Case, Pin
from wf_core.workflow_tests.findings import TestCode, TestFinding
from wf_core.workflow_tests.loader import LoadedTests
from wf_core.workflow_tests.subject import Subject, SubjectProblem, find_subject
from wf_core.workspace.catalog import Workspace

__all__ = ["check_test_document", "checked_subject"]


def check_test_document(
    loaded: LoadedTests, workspace: Workspace, *, base: Path | None
) -> list[TestFinding]:
    """Every finding about ``loaded``, its workflow looked up in ``workspace`` (by name,
    or by a path relative to ``base``, the document's folder), in document order."""
    return checked_subject(loaded, workspace, base=base)[1]


def checked_subject(
    loaded: LoadedTests, workspace: Workspace, *, base: Path | None
) -> tuple[Subject | None, list[TestFinding]]:
    """The workflow the document runs (None when it cannot be) and every finding."""
    findings = list(loaded.findings)
    subject: Subject | None = None
    if loaded.workflow is not None:
        found = find_subject(workspace, loaded.workflow, base)
        if isinstance(found, SubjectProblem):
            span = loaded.span(("workflow",))
            findings.append(TestFinding(found.code, found.message, span))
        else:
            subject = found
            findings += _Checker(loaded, found.workflow).findings()
    findings.sort(key=lambda f: (f.span.start, f.span.end))
    return subject, findings


def _unknown(kind: str, name: str, known: list[str]) -> str:
    suggestion = closest_name(name, known)
    hint = f"; did you mean '{suggestion}'?" if suggestion else ""
    return f"{kind} '{name}' is not in the workflow{hint}"


class _Checker:
    def __init__(self, loaded: LoadedTests, workflow: Workflow) -> None:
        self.loaded = loaded
        self.workflow = workflow
        self.nodes: dict[str, AnyStep] = {node.id: node for node in workflow.nodes}
        self.defs = node_defs_by_name(workflow.node_defs)
        self._model: ContextModel | None = None

    @property
    def model(self) -> ContextModel:
        if self._model is None:
            self._model = ContextModel(self.workflow)
        return self._model

    def finding(self, code: TestCode, message: str, location: Location) -> TestFinding:
        return TestFinding(code, message, self.loaded.span(location))

    def findings(self) -> list[TestFinding]:
        found: list[TestFinding] = []
        for loaded in self.loaded.cases:
            if loaded.case is not None:
                found += self._case(loaded.case, ("case", loaded.index), loaded.index)
        return found

    def _node(self, name: str, location: Location) -> Iterator[TestFinding]:
        if name not in self.nodes:
            yield self.finding(
                TestCode.UNKNOWN_NODE, _unknown("node", name, list(self.nodes)), location
            )

    def _case(self, case: Case, at: Location, index: int) -> Iterator[TestFinding]:
        problem = compile_schema(self.workflow.input_schema).problem(case.input)
        if problem is not None:
            yield self.finding(
                TestCode.INPUT_SCHEMA,
                f"the input does not match the input_schema of workflow "
                f"'{self.workflow.name}': {problem}",
                (*at, "input"),
            )
        for number, pin in enumerate(case.pin):
            where = (*at, "pin", number)
            node = self.nodes.get(pin.node)
            if node is None:
                yield from self._node(pin.node, (*where, "node"))
                continue
            if not isinstance(node, NodeUse):
                yield self.finding(
                    TestCode.NOT_PINNABLE,
                    f"node '{pin.node}' is a {node.type} node: only nodes of type 'node' can "
                    "be pinned (an interrupt is answered with [[case.interrupt]])",
                    (*where, "node"),
                )
                continue
            yield from self._pin_results(pin.node, node, where, pin)
            for key in pin.when or {}:
                yield from self._when(pin.node, key, (*where, "when", key))
        for number, answer in enumerate(case.interrupt):
            where = (*at, "interrupt", number)
            node = self.nodes.get(answer.node)
            if node is None:
                yield from self._node(answer.node, (*where, "node"))
                continue
            if not isinstance(node, InterruptNode):
                yield self.finding(
                    TestCode.NOT_PINNABLE,
                    f"node '{answer.node}' is a {node.type} node, not an interrupt",
                    (*where, "node"),
                )
                continue
            if answer.outcome is not None and answer.outcome not in node.outcomes:
                yield self._outcome(answer.outcome, answer.node, list(node.outcomes), where)
            problem = compile_schema(node.resume_schema).problem(answer.answer)
            if problem is not None:
                yield self.finding(
                    TestCode.ANSWER_SCHEMA,
                    f"the answer does not match the resume_schema of interrupt "
                    f"'{answer.node}': {problem}",
                    (*where, "answer"),
                )
        for number, expect in enumerate(case.expectations):
            where = self.loaded.expect_location(index, number)
            if expect.outcome is not None and expect.outcome not in self._workflow_outcomes():
                yield self.finding(
                    TestCode.UNKNOWN_OUTCOME,
                    f"workflow '{self.workflow.name}' does not end with outcome "
                    f"'{expect.outcome}' (declared: {', '.join(self._workflow_outcomes())})",
                    (*where, "outcome"),
                )
            for position, name in enumerate(expect.visited or []):
                yield from self._node(name, (*where, "visited", position))
            for position, saw in enumerate(expect.saw):
                yield from self._node(saw.node, (*where, "saw", position, "node"))

    def _workflow_outcomes(self) -> list[str]:
        """The outcomes a run can end with: the workflow's and its end nodes'."""
        outcomes = list(self.workflow.outcomes)
        for node in self.workflow.nodes:
            outcome = getattr(node, "outcome", None)
            if node.type == "end" and isinstance(outcome, str) and outcome not in outcomes:
                outcomes.append(outcome)
        return outcomes

    def _outcome(
        self, outcome: str, node: str, declared: list[str], where: Location
    ) -> TestFinding:
        return self.finding(
            TestCode.UNKNOWN_OUTCOME,
            f"node '{node}' does not declare outcome '{outcome}' (declared: {', '.join(declared)})",
            (*where, "outcome"),
        )

    def _pin_results(
        self, name: str, node: NodeUse, where: Location, pin: Pin
    ) -> Iterator[TestFinding]:
        definition = self.defs.get(node.node)
        if definition is None:
            return
        declared = list(definition.outcomes)
        check = compile_schema(definition.output_schema)
        results: list[tuple[Location, str | None, dict[str, object] | None]] = [
            (where, pin.outcome, pin.output)
        ]
        for number, attempt in enumerate(pin.attempts or []):
            at = (*where, "attempts", number)
            if isinstance(attempt, Attempt):
                results.append((at, attempt.outcome, attempt.output))
            elif attempt != FAILED_ATTEMPT and attempt not in declared:
                yield self.finding(
                    TestCode.UNKNOWN_OUTCOME,
                    f"node '{name}' does not declare outcome '{attempt}' (declared: "
                    f"{', '.join(declared)}; 'error' is a failed attempt)",
                    at,
                )
        for at, outcome, output in results:
            if outcome is not None and outcome not in declared:
                yield self._outcome(outcome, name, declared, at)
            if output is not None:
                problem = check.problem(output)
                if problem is not None:
                    yield self.finding(
                        TestCode.OUTPUT_SCHEMA,
                        f"the output does not match the output_schema of "
                        f"'{definition.name}': {problem}",
                        (*at, "output"),
                    )

    def _when(self, node: str, key: str, location: Location) -> Iterator[TestFinding]:
        try:
            path = GraphSourcePath.parse(key)
        except PathResolutionError as error:
            yield self.finding(TestCode.INVALID_WHEN_PATH, f"'{key}': {error}", location)
            return
        if path.root != "context":
            yield self.finding(
                TestCode.INVALID_WHEN_PATH,
                f"'{key}': a pin's condition reads the node's context: start it with 'context.'",
                location,
            )
            return
        stack = self.model.stack_of(node)
        unknown = self.model.first_unknown(stack, path.parts) if stack is not None else None
        if unknown is not None:
            segment = path.parts[unknown.index]
            available = f" (available: {', '.join(unknown.available)})" if unknown.available else ""
            yield self.finding(
                TestCode.INVALID_WHEN_PATH,
                f"'{format_segments(('context', *path.parts))}' is not valid at node '{node}': "
                f"unknown segment '{segment}'{available}",
                location,
            )
