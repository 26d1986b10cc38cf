"""A workflow prepared for running, and the set of workflows one run may call.

Lookups the engine does on every activation (nodes by id, the successor of
an outcome, compiled schema checks, the reducer of a state field) are
computed once here. :func:`check_runnable` gathers every reason a run cannot
start (validation errors, missing handlers, subgraphs or reducers) before
any node runs.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Mapping

from wf_core.base.issues import Severity
from wf_core.language.paths import format_segments, set_nested_value
from wf_core.models import NodeDef, NodeUse, ReducerRef, SubgraphNode, Workflow
from wf_core.models.schema_nav import canonical_json
from wf_core.models.steps import AnyStep
from wf_core.models.workflow import node_defs_by_name, nodes_by_id
from wf_core.runtime.contracts import SchemaCheck, compile_schema
from wf_core.runtime.errors import WorkflowRefused
from wf_core.runtime.json_values import JsonObject, copy_json
from wf_core.validation.core import validate_workflow
from wf_core.validation.subgraphs import contract_issues, declares_schema

__all__ = ["ROOT_PROGRAM_KEY", "Program", "Programs", "check_runnable"]

ROOT_PROGRAM_KEY = ""
"""The root workflow's key among the programs (subgraph names are never blank)."""

MAX_SUBGRAPH_DEPTH = 64


def fingerprint(workflow: Workflow) -> str:
    """A digest of the canonical JSON: a checkpoint only resumes the workflow it came from."""
    text = canonical_json(workflow.model_dump(mode="json", by_alias=True))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Program:
    """One workflow, indexed for the engine. Read-only once built."""

    def __init__(self, key: str, workflow: Workflow) -> None:
        self.key = key
        self.workflow = workflow
        self.nodes: dict[str, AnyStep] = nodes_by_id(workflow.nodes)
        self.edges: dict[tuple[str, str], str] = {
            (edge.from_, edge.outcome): edge.to for edge in workflow.edges
        }
        self.node_defs: dict[str, NodeDef] = node_defs_by_name(workflow.node_defs)
        self.input_check = compile_schema(workflow.input_schema)
        self.output_check = compile_schema(workflow.output_schema)
        self.output_names = tuple(workflow.output_schema.properties)
        self._def_checks: dict[str, tuple[SchemaCheck, SchemaCheck]] = {}
        self.reducers: dict[tuple[str, ...], ReducerRef] = {}
        self._defaults: list[tuple[tuple[str, ...], object]] = []
        for path, decl in workflow.state_schema.field_index().items():
            self.reducers[path.parts] = decl.reducer
            if decl.default is not None:
                self._defaults.append((path.parts, decl.default))
        self.fingerprint = fingerprint(workflow)

    def def_checks(self, name: str) -> tuple[SchemaCheck, SchemaCheck]:
        """The input and output checks of node def ``name``."""
        checks = self._def_checks.get(name)
        if checks is None:
            definition = self.node_defs[name]
            checks = (
                compile_schema(definition.input_schema),
                compile_schema(definition.output_schema),
            )
            self._def_checks[name] = checks
        return checks

    def initial_state(self) -> JsonObject:
        """State with every declared ``default`` in place (parents before children)."""
        state: JsonObject = {}
        for parts, default in self._defaults:
            set_nested_value(state, parts, copy_json(default, "a state default"))
        return state


class Programs:
    """The root workflow and the subgraph workflows it may call, by reference name."""

    def __init__(self, root: Workflow, subgraphs: Mapping[str, Workflow]) -> None:
        self.root = Program(ROOT_PROGRAM_KEY, root)
        self._subgraphs = subgraphs
        self._children: dict[str, Program] = {}

    def child(self, name: str) -> Program:
        program = self._children.get(name)
        if program is None:
            workflow = self._subgraphs.get(name)
            if workflow is None:
                raise KeyError(name)
            program = Program(name, workflow)
            self._children[name] = program
        return program

    def get(self, key: str) -> Program:
        return self.root if key == ROOT_PROGRAM_KEY else self.child(key)

    def reachable(self) -> list[Program]:
        """The root and every workflow its subgraph nodes can reach, each once.

        Missing subgraphs are skipped here; :func:`check_runnable` reports them.
        """
        out = [self.root]
        queue = deque(out)
        seen = {ROOT_PROGRAM_KEY}
        while queue:
            program = queue.popleft()
            for node in program.workflow.nodes:
                if isinstance(node, SubgraphNode):
                    name = node.workflow.display
                    if name in seen or name not in self._subgraphs:
                        continue
                    seen.add(name)
                    child = self.child(name)
                    out.append(child)
                    queue.append(child)
        return out

    def fingerprints(self) -> dict[str, str]:
        return {program.key: program.fingerprint for program in self.reachable()}


def _label(program: Program) -> str:
    return f"workflow '{program.workflow.name}'"


# Validation errors by workflow fingerprint and which subgraph schemas the document
# wrote: a resumed run checks the same workflows again, and equal canonical JSON
# validates the same unless a subgraph node leaves a schema to its child (the default
# the model fills in dumps like a written one).
_VALIDATED: dict[tuple[str, tuple[tuple[bool, bool], ...]], tuple[str, ...]] = {}
_VALIDATED_LIMIT = 256


def _validation_errors(program: Program) -> tuple[str, ...]:
    key = (
        program.fingerprint,
        tuple(
            (declares_schema(node, "input"), declares_schema(node, "output"))
            for node in program.workflow.nodes
            if isinstance(node, SubgraphNode)
        ),
    )
    known = _VALIDATED.get(key)
    if known is None:
        report = validate_workflow(program.workflow)
        known = tuple(
            f"{_label(program)}: [{issue.code}] {issue.model_path}: {issue.message}"
            for issue in report.issues
            if issue.severity == "error"
        )
        if len(_VALIDATED) >= _VALIDATED_LIMIT:
            _VALIDATED.clear()
        _VALIDATED[key] = known
    return known


def check_runnable(
    programs: Programs, handlers: Mapping[str, object], reducers: Mapping[str, object]
) -> None:
    """Raise :class:`WorkflowRefused` listing every reason the run cannot start."""
    problems: list[str] = []
    for program in programs.reachable():
        problems.extend(_validation_errors(program))
        for i, node in enumerate(program.workflow.nodes):
            if isinstance(node, SubgraphNode):
                name = node.workflow.display
                try:
                    child = programs.child(name)
                except KeyError:
                    problems.append(
                        f"{_label(program)}: subgraph node '{node.id}' calls workflow '{name}', "
                        "which was not given"
                    )
                    continue
                problems.extend(
                    f"{_label(program)}: [{issue.code}] {issue.model_path}: {issue.message}"
                    for issue in contract_issues(node, ("nodes", i), child.workflow, name)
                    if issue.severity == Severity.ERROR
                )
            elif isinstance(node, NodeUse):
                definition = program.node_defs.get(node.node)
                if definition is not None and definition.name not in handlers:
                    problems.append(f"{_label(program)}: no handler for node def '{node.node}'")
        for parts, ref in program.reducers.items():
            if ref.name not in reducers:
                problems.append(
                    f"{_label(program)}: unknown reducer '{ref.name}' for state field "
                    f"'{format_segments(parts)}'"
                )
    if problems:
        unique = list(dict.fromkeys(problems))
        more = f" (and {len(unique) - 1} more)" if len(unique) > 1 else ""
        raise WorkflowRefused(f"cannot run: {unique[0]}{more}", unique)
