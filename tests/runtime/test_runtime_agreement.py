"""Proof of agreement: what the runtime hands a node always fits what static analysis promised.

Hypothesis generates workflows (nested loops 0-4 deep, dotted and spaced
ids, aliases, conditions with joins, concurrent loops, item-error policies,
interrupts, subgraph calls whose children reuse foreach ids) and inputs from
their ``input_schema`` (hypothesis-jsonschema). Each runs to completion,
answering every interrupt from a dumped checkpoint. At every activation:

- the graph context validates (Draft 2020-12) against
  ``ContextModel(workflow).schema_for_node(node)``;
- the loops active there are the node's static owner stack;
- every ``context.*`` (and root ``input.*``) path that static validation
  accepted at that node resolves against that context.

``WFLS_RUNTIME_EXAMPLES`` sets the number of examples (200 by default;
``make soak-runtime`` runs 5,000 and prints the count).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from wf_core.analysis.context_scopes import ContextModel
from wf_core.base.issues import Severity
from wf_core.language.paths import GraphSourcePath, resolve_graph_path
from wf_core.models import Workflow
from wf_core.runtime import (
    ActivationRecord,
    RuntimeContext,
    dump,
    execute_workflow,
    resume_workflow,
)
from wf_core.validation.core import validate_workflow
from wf_core.validation.reads import node_reads

EXAMPLES = int(os.environ.get("WFLS_RUNTIME_EXAMPLES", "200"))
DEEPEST = 4


def level_schema(level: int) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "name": {"type": "string", "maxLength": 3},
        "n": {"type": "integer", "minimum": 0, "maximum": 9},
    }
    required = ["name", "n"]
    if level < DEEPEST:
        properties["kids"] = {
            "type": "array",
            "minItems": 1,
            "maxItems": 2,
            "items": {"$ref": f"#/$defs/l{level + 1}"},
        }
        required.append("kids")
    return {
        "type": "object",
        "required": required,
        "additionalProperties": False,
        "properties": properties,
    }


DEFS = {f"l{level}": level_schema(level) for level in range(1, DEEPEST + 1)}
# Collections are never empty here, so nested bodies really run (empty ones are covered
# by the engine tests).
ROWS_SCHEMA = {"type": "array", "minItems": 1, "maxItems": 2, "items": {"$ref": "#/$defs/l1"}}
INPUT_SCHEMA = {
    "type": "object",
    "required": ["rows", "flag"],
    "additionalProperties": False,
    "properties": {"rows": ROWS_SCHEMA, "flag": {"type": "boolean"}},
    "$defs": DEFS,
}
STATE_SCHEMA = {
    "type": "object",
    "properties": {
        "log": {"type": "array", "reducer": "wf.std.append", "default": []},
        "answers": {"type": "array", "reducer": "wf.std.append"},
        "errors": {"type": "array"},
    },
}
NODE_DEFS = [
    {
        "name": name,
        "outcomes": ["ok"],
        "input_schema": {"type": "object", "properties": {"a": {}, "b": {}, "c": {}}},
        "output_schema": {"type": "object", "properties": {"out": {"type": "integer"}}},
    }
    for name in ("probe", "flaky")
]
ALIASES = ("row", "kid", "it", "cur", "elem", "leaf")
STANDARD_READS = (
    "context",
    "context.scope_id",
    "context.lineage_id",
    "context.parent_lineage_id",
    "context.prior_outcome",
    "context.activated_incoming_edge",
    "context.foreach",
)
ENTRY_FIELDS = ("node_id", "activation_id", "frame_id", "scope_id", "lineage_id", "index", "item")


@dataclass(frozen=True)
class Loop:
    id: str
    alias: str
    level: int
    policy: str


@dataclass
class Scenario:
    workflow: Workflow
    children: dict[str, Workflow] = field(default_factory=dict)
    calls: dict[str, str] = field(default_factory=dict)  # subgraph node id -> child name


class Builder:
    """Draws one workflow as structured regions: every body returns to its loop."""

    def __init__(self, draw: Any, *, child_level: int | None, budget: int, depth: int) -> None:
        self.draw = draw
        self.depth = depth  # loops nest at least this deep (the first step of each region)
        self.child_level = child_level  # None for the root workflow
        self.budget = budget
        self.nodes: list[dict[str, Any]] = []
        self.edges: list[dict[str, str]] = []
        self.counter = 0
        self.children: dict[str, Workflow] = {}
        self.calls: dict[str, str] = {}

    # -- ids and wiring ------------------------------------------------------------

    def new_id(self, kind: str) -> str:
        self.counter += 1
        style = self.draw(
            st.sampled_from(("plain", "dotted", "dashed", "spaced", "quoted", "accented"))
        )
        return {
            "plain": f"{kind}{self.counter}",
            "dotted": f"{kind}.v{self.counter}",
            "dashed": f"{kind}-{self.counter}",
            "spaced": f"{kind} {self.counter}",
            "quoted": f'{kind}"{self.counter}"',
            "accented": f"{kind}é{self.counter}",
        }[style]

    def add(self, node: dict[str, Any]) -> str:
        self.nodes.append(node)
        self.budget -= 1
        return str(node["id"])

    def wire(self, exits: list[tuple[str, str]], target: str) -> None:
        for source, outcome in exits:
            self.edges.append({"from": source, "outcome": outcome, "to": target})

    # -- what a node may read --------------------------------------------------------

    def reads(self, stack: list[Loop]) -> list[str]:
        paths = list(STANDARD_READS)
        if self.child_level is None:
            paths += ["input.flag", "input.rows"]
        else:
            paths += ["input.rows", "input.item", "input.item.name"]
        for loop in stack:
            entry = GraphSourcePath("context", ("foreach", loop.id))
            paths += [str(entry.child(name)) for name in ENTRY_FIELDS]
            paths += [str(entry.child("item", "name")), str(entry.child("item", "n"))]
            if loop.level < DEEPEST:
                paths.append(str(entry.child("item", "kids")))
            paths.append(str(GraphSourcePath("context", (loop.alias, "n"))))
        if stack:
            paths += ["context.loop_item", "context.loop_index", "context.loop_item.name"]
        return paths

    def numbers(self, stack: list[Loop]) -> list[str]:
        paths = []
        for loop in stack:
            paths.append(str(GraphSourcePath("context", ("foreach", loop.id, "index"))))
            paths.append(str(GraphSourcePath("context", ("foreach", loop.id, "item", "n"))))
        if stack:
            paths.append("context.loop_index")
        return paths

    def sources(self, stack: list[Loop]) -> list[tuple[str, int]]:
        """Where a new loop may iterate from here, with the level of its items."""
        options = [("input.rows", 1)]
        if self.child_level is not None and self.child_level < DEEPEST:
            options.append(("input.item.kids", self.child_level + 1))
        for loop in stack:
            if loop.level < DEEPEST:
                options.append(
                    (
                        str(GraphSourcePath("context", ("foreach", loop.id, "item", "kids"))),
                        loop.level + 1,
                    )
                )
                options.append(
                    (str(GraphSourcePath("context", (loop.alias, "kids"))), loop.level + 1)
                )
        if stack and stack[-1].level < DEEPEST:
            options.append(("context.loop_item.kids", stack[-1].level + 1))
        return options

    # -- regions -----------------------------------------------------------------------

    def region(self, stack: list[Loop]) -> tuple[str, list[tuple[str, str]]]:
        length = self.draw(st.integers(1, 3))
        entry, exits = self._loop(stack) if len(stack) < self.depth else self.step(stack)
        for _ in range(length - 1):
            next_entry, next_exits = self.step(stack)
            self.wire(exits, next_entry)
            exits = next_exits
        return entry, exits

    def step(self, stack: list[Loop]) -> tuple[str, list[tuple[str, str]]]:
        kinds = ["task", "cond", "interrupt"]
        if self.budget > 0:
            if len(stack) < (DEEPEST if self.child_level is None else 2):
                kinds += ["loop", "loop"]
            if self.child_level is None:
                kinds.append("sub")
            if any(loop.policy != "fail" for loop in stack):
                kinds.append("flaky")
        else:
            kinds = ["task"]
        kind = self.draw(st.sampled_from(kinds))
        return getattr(self, f"_{kind}")(stack)

    def _bindings(self, stack: list[Loop], targets: tuple[str, ...]) -> list[dict[str, Any]]:
        count = self.draw(st.integers(1, len(targets)))
        reads = self.reads(stack)
        return [
            {"target": target, "path": self.draw(st.sampled_from(reads))}
            for target in targets[:count]
        ]

    def _task(
        self, stack: list[Loop], node_def: str = "probe"
    ) -> tuple[str, list[tuple[str, str]]]:
        node: dict[str, Any] = {
            "id": self.new_id("task"),
            "type": "node",
            "node": node_def,
            "input": self._bindings(stack, ("a", "b", "c")),
        }
        if self.draw(st.booleans()):
            node["output"] = [{"source": "out", "target": "state.log"}]
        node_id = self.add(node)
        return node_id, [(node_id, "ok")]

    def _flaky(self, stack: list[Loop]) -> tuple[str, list[tuple[str, str]]]:
        return self._task(stack, "flaky")

    def _check(self, stack: list[Loop], depth: int = 0) -> dict[str, Any]:
        shapes = ["exists", "eq", "ne"]
        if self.numbers(stack):
            shapes += ["gt", "le"]
        if depth < 2:
            shapes += ["not", "and", "or"]
        shape = self.draw(st.sampled_from(shapes))
        if shape == "exists":
            return {"op": "exists", "path": self.draw(st.sampled_from(self.reads(stack)))}
        if shape in ("eq", "ne"):
            left = {"path": self.draw(st.sampled_from(self.reads(stack)))}
            right = self.draw(
                st.sampled_from(
                    [
                        {"value": 0},
                        {"value": "a"},
                        {"value": None},
                        {"path": self.draw(st.sampled_from(self.reads(stack)))},
                    ]
                )
            )
            return {"op": shape, "left": left, "right": right}
        if shape in ("gt", "le"):
            left = {"path": self.draw(st.sampled_from(self.numbers(stack)))}
            return {"op": shape, "left": left, "right": {"value": self.draw(st.integers(0, 2))}}
        if shape == "not":
            return {"op": "not", "arg": self._check(stack, depth + 1)}
        args = [self._check(stack, depth + 1) for _ in range(self.draw(st.integers(1, 3)))]
        return {"op": shape, "args": args}

    def _cond(self, stack: list[Loop]) -> tuple[str, list[tuple[str, str]]]:
        test = self.add(
            {"id": self.new_id("test"), "type": "condition", "check": self._check(stack)}
        )
        yes, yes_exits = self._task(stack)
        no, no_exits = self._task(stack)
        join = self.add({"id": self.new_id("join"), "type": "join"})
        self.wire([(test, "true")], yes)
        self.wire([(test, "false")], no)
        self.wire(yes_exits + no_exits, join)
        return test, [(join, "done")]

    def _interrupt(self, stack: list[Loop]) -> tuple[str, list[tuple[str, str]]]:
        node_id = self.add(
            {
                "id": self.new_id("ask"),
                "type": "interrupt",
                "kind": "review",
                "request": self._bindings(stack, ("where", "what")),
                "resume": [{"source": "answer", "target": "state.answers"}],
            }
        )
        return node_id, [(node_id, "submitted")]

    def _loop(self, stack: list[Loop]) -> tuple[str, list[tuple[str, str]]]:
        over, level = self.draw(st.sampled_from(self.sources(stack)))
        taken = {loop.alias for loop in stack}
        alias = self.draw(st.sampled_from([a for a in ALIASES if a not in taken]))
        policy = self.draw(st.sampled_from(("fail", "skip", "collect")))
        loop = Loop(self.new_id("loop"), alias, level, policy)
        node: dict[str, Any] = {
            "id": loop.id,
            "type": "foreach",
            "over": over,
            "as": alias,
            "item_error": {"action": policy},
        }
        if policy == "collect":
            node["item_error"]["collect_to"] = "state.errors"
        if self.draw(st.booleans()):
            active = self.draw(st.integers(1, 3))
            node["mode"] = "concurrent"
            node["concurrent"] = {
                "max_active": active,
                "max_outstanding": self.draw(st.integers(active, 4)),
            }
        self.add(node)
        body, body_exits = self.region([*stack, loop])
        self.wire([(loop.id, "loop")], body)
        self.wire(body_exits, loop.id)
        exits = [(loop.id, "done")]
        if policy != "fail":
            exits.append((loop.id, "completed_with_errors"))
        return loop.id, exits

    def _sub(self, stack: list[Loop]) -> tuple[str, list[tuple[str, str]]]:
        level = stack[-1].level if stack else DEEPEST
        name = f"child_{len(self.children) + 1}"
        child = Builder(self.draw, child_level=level, budget=6, depth=self.draw(st.integers(0, 2)))
        self.children[name] = child.finish(name)
        item: dict[str, Any] = (
            {
                "target": "item",
                "path": str(GraphSourcePath("context", ("foreach", stack[-1].id, "item"))),
            }
            if stack
            else {"target": "item", "value": {"name": "lit", "n": 1}}
        )
        node_id = self.add(
            {
                "id": self.new_id("call"),
                "type": "subgraph",
                "workflow": name,
                "input_schema": {"type": "object", "properties": {"rows": {}, "item": {}}},
                "input": [{"target": "rows", "path": "input.rows"}, item],
            }
        )
        self.calls[node_id] = name
        return node_id, [(node_id, "ok")]

    def finish(self, name: str) -> Workflow:
        entry, exits = self.region([])
        if self.draw(st.booleans()):
            self.wire(exits, "__end__")
        else:
            self.wire(exits, self.add({"id": self.new_id("end"), "type": "end"}))
        if self.child_level is None:
            input_schema: dict[str, Any] = INPUT_SCHEMA
            output = [
                {"target": "log", "path": "state.log"},
                {"target": "scope", "path": "context.scope_id"},
            ]
        else:
            input_schema = {
                "type": "object",
                "required": ["rows", "item"],
                "properties": {
                    "rows": ROWS_SCHEMA,
                    "item": {"$ref": f"#/$defs/l{self.child_level}"},
                },
                "$defs": DEFS,
            }
            output = []
        return Workflow.model_validate(
            {
                "name": name,
                "start": entry,
                "input_schema": input_schema,
                "state_schema": STATE_SCHEMA,
                "output_schema": {"type": "object", "properties": {"log": {}, "scope": {}}},
                "output": output,
                "node_defs": NODE_DEFS,
                "nodes": self.nodes,
                "edges": self.edges,
            }
        )


@st.composite
def scenarios(draw: Any) -> Scenario:
    builder = Builder(
        draw, child_level=None, budget=draw(st.integers(3, 14)), depth=draw(st.integers(0, DEEPEST))
    )
    workflow = builder.finish("generated")
    return Scenario(workflow, builder.children, builder.calls)


def probe(payload: dict[str, Any], ctx: RuntimeContext) -> dict[str, Any]:
    return {"out": 1}


def flaky(payload: dict[str, Any], ctx: RuntimeContext) -> dict[str, Any]:
    """Fails the odd items of the innermost loop, to exercise skip and collect."""
    if ctx.foreach and list(ctx.foreach.values())[-1].index % 2 == 1:
        raise RuntimeError("odd item")
    return {"out": 0}


HANDLERS = {"probe": probe, "flaky": flaky}


class Agreement:
    """Checks records against the static analysis of the workflow that produced them."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self._models: dict[str, ContextModel] = {}
        self._validators: dict[int, Any] = {}

    def workflow_for(self, record: ActivationRecord) -> Workflow:
        if not record.call_path:
            return self.scenario.workflow
        return self.scenario.children[self.scenario.calls[record.call_path[-1]]]

    def model(self, workflow: Workflow) -> ContextModel:
        model = self._models.get(workflow.name)
        if model is None:
            model = self._models[workflow.name] = ContextModel(workflow)
        return model

    def check(self, record: ActivationRecord, workflow_input: Any) -> None:
        workflow = self.workflow_for(record)
        model = self.model(workflow)
        where = f"{workflow.name}:{record.node_id} (activation #{record.seq})"
        schema = model.schema_for_node(record.node_id)
        assert schema is not None, f"{where} ran but has no static context schema"
        assert model.stack_of(record.node_id) == record.owner_stack, where
        validator = self._validators.get(id(schema))
        if validator is None:
            validator = self._validators[id(schema)] = jsonschema.Draft202012Validator(schema)
        if not validator.is_valid(record.context):
            errors = [e.message for e in validator.iter_errors(record.context)]
            raise AssertionError(f"{where}: context does not fit the static schema: {errors}")
        index = next(i for i, n in enumerate(workflow.nodes) if n.id == record.node_id)
        for read in node_reads(workflow.nodes[index], index):
            if read.path.root == "context" or (read.path.root == "input" and not record.call_path):
                resolve_graph_path(
                    read.path, state={}, workflow_input=workflow_input, context=record.context
                )


COUNTS = {"examples": 0, "activations": 0, "pauses": 0}


@pytest.fixture(scope="module", autouse=True)
def report_counts() -> Iterator[None]:
    yield
    print(
        f"\nruntime agreement: {COUNTS['examples']} generated workflows run, "
        f"{COUNTS['activations']} activations checked, {COUNTS['pauses']} resumes from "
        "checkpoints"
    )


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)
@given(data=st.data())
def test_every_context_fits_its_static_schema_and_every_accepted_path_resolves(data: Any) -> None:
    scenario = data.draw(scenarios(), label="scenario")
    for workflow in (scenario.workflow, *scenario.children.values()):
        report = validate_workflow(workflow)
        errors = [
            f"{i.model_path}: {i.message}" for i in report.issues if i.severity == Severity.ERROR
        ]
        assert errors == [], f"{workflow.name}: static analysis rejected a well-formed workflow"
    workflow_input = data.draw(from_schema(INPUT_SCHEMA), label="input")
    seed = data.draw(st.integers(0, 2**32), label="seed")
    result = execute_workflow(
        scenario.workflow,
        workflow_input,
        HANDLERS,
        subgraphs=scenario.children,
        seed=seed,
        max_steps=50_000,
    )
    records = list(result.trace)
    resumes = 0
    while result.status == "paused":
        resumes += 1
        assert resumes < 2_000
        result = resume_workflow(
            dump(result.state),
            {"answer": resumes},
            scenario.workflow,
            HANDLERS,
            subgraphs=scenario.children,
            max_steps=50_000,
        )
        records.extend(result.trace)
    assert result.status == "completed", result.error
    agreement = Agreement(scenario)
    for record in records:
        agreement.check(record, workflow_input)
    COUNTS["examples"] += 1
    COUNTS["activations"] += len(records)
    COUNTS["pauses"] += resumes


# -- reads static analysis accepts but a run cannot always resolve ---------------------
#
# The property above keeps every property it reads declared and required. Outside
# that domain the static side accepts reads that a conforming input leaves
# unresolvable, without any finding: these are reported to the static analysis's
# owner, each as its minimal case.

_OPTIONAL = (
    "static analysis accepts a read of a property the item schema declares but does "
    "not require, with no finding; an item without it fails the node at run time"
)
_OPEN = (
    "any segment under an open item schema ({} or an object without properties) is accepted "
    "with no finding, as lda-wf's walk does; an item without it fails the node at run time"
)


@pytest.mark.parametrize(
    ("item_schema", "item"),
    [
        pytest.param(
            {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
            {"name": "x"},
            id="declared-and-required",
        ),
        pytest.param(
            {"type": "object", "properties": {"name": {"type": "string"}}},
            {},
            id="declared-but-optional",
            marks=pytest.mark.xfail(strict=True, reason=_OPTIONAL),
        ),
        pytest.param({}, {}, id="open-item", marks=pytest.mark.xfail(strict=True, reason=_OPEN)),
        pytest.param(
            {"type": "object"},
            {},
            id="open-object-item",
            marks=pytest.mark.xfail(strict=True, reason=_OPEN),
        ),
    ],
)
def test_a_context_read_static_analysis_accepts_resolves_or_is_flagged(
    item_schema: dict[str, Any], item: dict[str, Any]
) -> None:
    workflow = Workflow.model_validate(
        {
            "name": "gap",
            "start": "rows",
            "input_schema": {
                "type": "object",
                "required": ["rows"],
                "properties": {"rows": {"type": "array", "items": item_schema}},
            },
            "state_schema": {"type": "object"},
            "output_schema": {"type": "object"},
            "node_defs": NODE_DEFS,
            "nodes": [
                {"id": "rows", "type": "foreach", "over": "input.rows", "as": "row"},
                {
                    "id": "body",
                    "type": "node",
                    "node": "probe",
                    "input": [{"target": "a", "path": "context.foreach.rows.item.name"}],
                },
            ],
            "edges": [
                {"from": "rows", "outcome": "loop", "to": "body"},
                {"from": "body", "outcome": "ok", "to": "rows"},
                {"from": "rows", "outcome": "done", "to": "__end__"},
            ],
        }
    )
    findings = [
        i for i in validate_workflow(workflow).issues if i.model_path == "nodes[1].input[0].path"
    ]
    result = execute_workflow(workflow, {"rows": [item]}, HANDLERS)
    assert findings or result.status == "completed", result.error
