"""Every node type's run-time behaviour, results, failures and contracts."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from rt_support import PROBE_DEF, ROWS, Recorder, loop, probe, records_of, workflow

from wf_core.runtime import (
    NodeResult,
    StepLimit,
    WorkflowExecutionError,
    WorkflowRefused,
    dump,
    execute_workflow,
    load,
    normalise_result,
    outcome_choice_problems,
    resume_workflow,
)

LINEAR = workflow([probe("only", a="input.rows")], ["only:ok->__end__"])
LOOP = workflow(
    [loop("rows", "input.rows", "row"), probe("body", a="context.foreach.rows.item.name")],
    ["rows:loop->body", "body:ok->rows", "rows:done->__end__"],
)


# -- results ---------------------------------------------------------------------------


def test_results_are_normalised_as_lda_wf_does() -> None:
    kept = NodeResult(outcome="ok", output={"x": 1}, extra_field=True)
    assert normalise_result(kept) is kept
    full = normalise_result({"outcome": "ok", "output": {"out": 2}, "meta": {"m": 1}})
    assert (full.outcome, full.output, full.meta) == ("ok", {"out": 2}, {"m": 1})
    plain = normalise_result({"out": 3})
    assert (plain.outcome, plain.output) == ("ok", {"out": 3})
    only_outcome = normalise_result({"outcome": "ok"})  # not both keys: the dict is the output
    assert only_outcome.output == {"outcome": "ok"}
    with pytest.raises(ValueError, match="handler returned list; expected a NodeResult or a dict"):
        normalise_result([1])
    with pytest.raises(ValueError, match="invalid NodeResult"):
        normalise_result({"outcome": 3, "output": {}})


@pytest.mark.parametrize(
    ("returned", "reason"),
    [
        ("nope", "ValueError: handler returned str; expected a NodeResult or a dict"),
        ({"outcome": "maybe", "output": {}}, "outcome 'maybe' is not declared by node def 'probe'"),
        ({"out": {1, 2}}, "output holds a set, which is not JSON"),
    ],
)
def test_a_bad_result_fails_the_node(returned: object, reason: str) -> None:
    result = execute_workflow(LINEAR, {"rows": []}, {"probe": lambda p, c: returned})
    assert result.status == "failed"
    assert result.error is not None and result.error.startswith("node 'only' failed: ")
    assert reason in result.error
    assert result.trace[-1].error == result.error and result.trace[-1].outcome is None


def test_output_must_match_the_output_schema() -> None:
    definition = {**PROBE_DEF, "output_schema": {"type": "object", "required": ["out"]}}
    wf = workflow([probe("only")], ["only:ok->__end__"], node_defs=[definition])
    result = execute_workflow(wf, {"rows": []}, {"probe": lambda p, c: {"other": 1}})
    assert result.status == "failed"
    assert "output does not match the output_schema of 'probe': 'out' is a required property" in (
        result.error or ""
    )


def test_retry_calls_the_handler_again() -> None:
    attempts: list[int] = []

    def flaky(payload: dict[str, Any], ctx: Any) -> dict[str, Any]:
        attempts.append(ctx.attempt)
        if ctx.attempt < 3:
            raise RuntimeError(f"try {ctx.attempt}")
        return {"out": "fine"}

    node = {**probe("only"), "retry": 2}
    result = execute_workflow(
        workflow([node], ["only:ok->__end__"]), {"rows": []}, {"probe": flaky}
    )
    assert result.status == "completed" and attempts == [1, 2, 3]
    assert result.trace[-1].attempts == 3

    attempts.clear()
    node = {**probe("only"), "retry": 1}
    result = execute_workflow(
        workflow([node], ["only:ok->__end__"]), {"rows": []}, {"probe": flaky}
    )
    assert result.status == "failed" and attempts == [1, 2]
    assert result.error == "node 'only' failed after 2 attempts: RuntimeError: try 2"


def test_a_node_def_retry_applies_unless_the_node_sets_its_own() -> None:
    calls: list[int] = []

    def failing(payload: dict[str, Any], ctx: Any) -> dict[str, Any]:
        calls.append(ctx.attempt)
        raise RuntimeError("no")

    wf = workflow([probe("only")], ["only:ok->__end__"], node_defs=[{**PROBE_DEF, "retry": 2}])
    assert execute_workflow(wf, {"rows": []}, {"probe": failing}).status == "failed"
    assert calls == [1, 2, 3]


def test_timeout_fails_a_slow_handler() -> None:
    """The handler is still running when the run ends: the timeout, not the handler's
    return, ended the node (it returns only once the test lets it)."""
    release, returned = threading.Event(), threading.Event()

    def slow(payload: dict[str, Any], ctx: Any) -> dict[str, Any]:
        release.wait(60)
        returned.set()
        return {}

    node = {**probe("only"), "timeout_seconds": 1}
    try:
        result = execute_workflow(
            workflow([node], ["only:ok->__end__"]), {"rows": []}, {"probe": slow}
        )
        assert not returned.is_set()
    finally:
        release.set()
    assert result.status == "failed"
    assert result.error == "node 'only' failed: TimeoutError: no result within 1 s"
    assert returned.wait(60)  # abandoned, not stopped: its late result is ignored


def test_handlers_cannot_alias_what_the_runtime_owns() -> None:
    def vandal(payload: dict[str, Any], ctx: Any) -> dict[str, Any]:
        payload["a"] = "changed"
        ctx.graph["foreach"]["rows"]["item"]["name"] = "changed"
        return {"out": payload}

    recorder = Recorder()
    wf = workflow(
        [
            loop("rows", "input.rows", "row"),
            probe("first", a="context.row.name"),
            {**probe("second", a="context.row.name"), "node": "watch"},
        ],
        ["rows:loop->first", "first:ok->second", "second:ok->rows", "rows:done->__end__"],
        node_defs=[PROBE_DEF, {**PROBE_DEF, "name": "watch"}],
    )
    result = execute_workflow(wf, {"rows": ROWS}, {"probe": vandal, "watch": recorder})
    assert result.status == "completed"
    assert [p["a"] for p, _ in recorder.calls] == ["r0", "r1"]
    assert [r.input for r in records_of(result, "first")] == [{"a": "r0"}, {"a": "r1"}]
    assert result.state.scopes["root"].input == {"rows": ROWS}


# -- conditions ----------------------------------------------------------------------


def branching(check: dict[str, Any]) -> Any:
    return workflow(
        [
            loop("rows", "input.rows", "row"),
            {"id": "test", "type": "condition", "check": check},
            probe("yes", a="context.row.name"),
            probe("no", a="context.row.name"),
            {"id": "merge", "type": "join"},
        ],
        [
            "rows:loop->test",
            "test:true->yes",
            "test:false->no",
            "yes:ok->merge",
            "no:ok->merge",
            "merge:done->rows",
            "rows:done->__end__",
        ],
    )


def test_conditions_see_the_same_context_as_node_inputs() -> None:
    wf = branching(
        {"op": "eq", "left": {"path": "context.foreach.rows.item.name"}, "right": {"value": "r1"}}
    )
    recorder = Recorder()
    result = execute_workflow(wf, {"rows": ROWS}, {"probe": recorder})
    assert result.status == "completed", result.error
    assert [(ctx.node_id, p["a"]) for p, ctx in recorder.calls] == [("no", "r0"), ("yes", "r1")]
    tests = records_of(result, "test")
    assert [(r.outcome, r.output) for r in tests] == [
        ("false", {"predicate": False}),
        ("true", {"predicate": True}),
    ]
    assert [r.context["loop_index"] for r in tests] == [0, 1]
    assert [r.outcome for r in records_of(result, "merge")] == ["done", "done"]


@pytest.mark.parametrize(
    ("check", "names"),
    [
        ({"op": "exists", "path": "context.loop_item"}, ["yes", "yes"]),
        ({"op": "exists", "path": "state.log"}, ["no", "no"]),
        ({"op": "not", "arg": {"op": "exists", "path": "state.log"}}, ["yes", "yes"]),
        (
            {"op": "gt", "left": {"path": "context.loop_index"}, "right": {"value": 0}},
            ["no", "yes"],
        ),
        (
            {
                "op": "and",
                "args": [
                    {"op": "exists", "path": "context.row"},
                    {
                        "op": "le",
                        "left": {"path": "context.foreach.rows.index"},
                        "right": {"value": 0},
                    },
                ],
            },
            ["yes", "no"],
        ),
    ],
)
def test_condition_operators(check: dict[str, Any], names: list[str]) -> None:
    recorder = Recorder()
    result = execute_workflow(branching(check), {"rows": ROWS}, {"probe": recorder})
    assert result.status == "completed", result.error
    assert [ctx.node_id for _, ctx in recorder.calls] == names


def test_and_or_evaluate_every_argument_so_an_unresolvable_operand_always_raises() -> None:
    missing = {"op": "eq", "left": {"path": "input.nowhere"}, "right": {"value": 1}}
    for op, first in (("or", True), ("and", False)):
        decided = {"op": "eq", "left": {"value": 1}, "right": {"value": 1 if first else 2}}
        wf = workflow(
            [
                {
                    "id": "test",
                    "type": "condition",
                    "check": {"op": op, "args": [decided, missing]},
                },
                probe("x"),
            ],
            ["test:true->x", "test:false->x", "x:ok->__end__"],
            input_schema={"type": "object", "properties": {"nowhere": {}}},
        )
        result = execute_workflow(wf, {}, {"probe": Recorder()})
        assert result.status == "failed"
        assert result.error == "node 'test': path 'input.nowhere' could not be resolved"


def test_comparing_incomparable_values_fails_the_condition() -> None:
    wf = branching({"op": "lt", "left": {"path": "context.row"}, "right": {"value": 1}})
    result = execute_workflow(wf, {"rows": ROWS}, {"probe": Recorder()})
    assert result.status == "failed"
    assert result.error == (
        "foreach 'rows' item 0: node 'test': cannot compare dict with int using 'lt'"
    )


# -- foreach --------------------------------------------------------------------------


def test_over_must_resolve_to_a_list() -> None:
    wf = workflow(
        [loop("rows", "input.rows", "row"), probe("body")],
        ["rows:loop->body", "body:ok->rows", "rows:done->__end__"],
        input_schema={"type": "object", "properties": {"rows": {}}},
    )
    result = execute_workflow(wf, {"rows": {"not": "a list"}}, {"probe": Recorder()})
    assert result.status == "failed"
    assert result.error == "node 'rows': foreach source 'input.rows' must resolve to a list"
    result = execute_workflow(wf, {}, {"probe": Recorder()})
    assert result.error == "node 'rows': path 'input.rows' could not be resolved"


def test_an_empty_collection_is_done_at_once() -> None:
    result = execute_workflow(LOOP, {"rows": []}, {"probe": Recorder()})
    assert result.status == "completed"
    assert [(r.node_id, r.outcome, r.input) for r in result.trace] == [
        ("rows", "done", {"items": 0, "failed": 0})
    ]


def failing_on(name: str) -> Recorder:
    def result(payload: dict[str, Any], ctx: Any) -> dict[str, Any]:
        if payload.get("a") == name:
            raise ValueError(f"bad {name}")
        return {"out": payload.get("a")}

    return Recorder(result)


def policy_workflow(action: str) -> Any:
    item_error: dict[str, Any] = {"action": action}
    edges = ["rows:loop->body", "body:ok->rows", "rows:done->after"]
    if action != "fail":
        edges.append("rows:completed_with_errors->after")
    if action == "collect":
        item_error["collect_to"] = "state.errors"
    return workflow(
        [
            loop("rows", "input.rows", "row", item_error=item_error),
            probe("body", a="context.foreach.rows.item.name"),
            probe("after", a="context.prior_outcome"),
        ],
        [*edges, "after:ok->__end__"],
        state_schema={"type": "object", "properties": {"errors": {"type": "array"}}},
    )


def test_item_error_fail_fails_the_run() -> None:
    recorder = failing_on("r0")
    result = execute_workflow(policy_workflow("fail"), {"rows": ROWS}, {"probe": recorder})
    assert result.status == "failed"
    assert result.error == "foreach 'rows' item 0: node 'body' failed: ValueError: bad r0"
    assert [ctx.node_id for _, ctx in recorder.calls] == ["body"]  # nothing after the failure


def test_item_error_skip_goes_on_and_reports_completed_with_errors() -> None:
    recorder = failing_on("r0")
    result = execute_workflow(policy_workflow("skip"), {"rows": ROWS}, {"probe": recorder})
    assert result.status == "completed", result.error
    assert [p["a"] for p, c in recorder.calls] == ["r0", "r1", "completed_with_errors"]
    assert records_of(result, "rows")[-1].input == {"items": 2, "failed": 1}


def test_item_error_collect_writes_each_failure_to_collect_to() -> None:
    recorder = failing_on("r1")
    result = execute_workflow(policy_workflow("collect"), {"rows": ROWS}, {"probe": recorder})
    assert result.status == "completed", result.error
    assert result.state.scopes["root"].state["errors"] == [
        {
            "foreach": "rows",
            "index": 1,
            "item": ROWS[1],
            "error": "node 'body' failed: ValueError: bad r1",
        }
    ]
    assert recorder.calls[-1][0] == {"a": "completed_with_errors"}


def test_no_failure_under_skip_is_plain_done() -> None:
    recorder = Recorder()
    result = execute_workflow(policy_workflow("skip"), {"rows": ROWS}, {"probe": recorder})
    assert recorder.calls[-1][0] == {"a": "done"} and result.status == "completed"


def test_an_inner_failure_under_fail_becomes_the_outer_items_failure() -> None:
    wf = workflow(
        [
            loop("rows", "input.rows", "row", item_error="skip"),
            loop("kids", "context.row.kids", "kid"),
            probe("body", a="context.kid.name"),
        ],
        [
            "rows:loop->kids",
            "kids:loop->body",
            "body:ok->kids",
            "kids:done->rows",
            "rows:done->__end__",
            "rows:completed_with_errors->__end__",
        ],
    )
    recorder = failing_on("k00")
    result = execute_workflow(wf, {"rows": ROWS}, {"probe": recorder})
    assert result.status == "completed", result.error
    # k01 never ran: the inner loop failed at k00 and took the rest of row 0 with it.
    assert [p["a"] for p, _ in recorder.calls] == ["k00", "k10"]
    kids_failure = [r for r in records_of(result, "kids") if r.error]
    assert kids_failure[0].error == "foreach 'kids' item 0: node 'body' failed: ValueError: bad k00"
    assert records_of(result, "rows")[-1].outcome == "completed_with_errors"


def in_flight_peak(result: Any, loop_id: str, body: str) -> int:
    """The most items of ``loop_id`` started and not yet past ``body`` at any time."""
    flying: set[int] = set()
    peak = 0
    for record in result.trace:
        if record.node_id == loop_id and record.outcome == "loop":
            flying.add(record.input["index"])
            peak = max(peak, len(flying))
        elif record.node_id == body and record.outcome is not None:
            flying.discard(record.context["foreach"][loop_id]["index"])
    return peak


def concurrent_loop(max_active: int, max_outstanding: int, body: dict[str, Any]) -> Any:
    return workflow(
        [
            loop(
                "rows",
                "input.rows",
                "row",
                mode="concurrent",
                concurrent={"max_active": max_active, "max_outstanding": max_outstanding},
            ),
            probe("work", a="context.row.name"),
            body,
        ],
        [
            "rows:loop->work",
            f"work:ok->{body['id']}",
            f"{body['id']}:done->rows",
            "rows:done->__end__",
        ],
    )


def test_concurrent_items_respect_max_active_and_interleave_by_seed() -> None:
    rows = [{"name": f"r{i}", "kids": []} for i in range(12)]
    wf = concurrent_loop(3, 5, {"id": "gap", "type": "join"})
    orders = set()
    for seed in range(8):
        result = execute_workflow(wf, {"rows": rows}, {"probe": Recorder()}, seed=seed)
        assert result.status == "completed"
        assert in_flight_peak(result, "rows", "gap") == 3
        order = tuple(r.input["a"] for r in records_of(result, "work"))
        assert sorted(order) == sorted(r["name"] for r in rows)
        orders.add(order)
        again = execute_workflow(wf, {"rows": rows}, {"probe": Recorder()}, seed=seed)
        assert [r.as_json() for r in again.trace] == [r.as_json() for r in result.trace]
    assert len(orders) > 1  # the seed decides the interleaving


def test_items_waiting_on_interrupts_count_against_max_outstanding_not_max_active() -> None:
    rows = [{"name": f"r{i}", "kids": []} for i in range(5)]
    wf = concurrent_loop(
        2, 3, {"id": "ask", "type": "interrupt", "kind": "ok?", "outcomes": ["done"]}
    )
    result = execute_workflow(wf, {"rows": rows}, {"probe": Recorder()})
    assert result.status == "paused"
    # Two run, both park; a third starts (2 running max, 3 outstanding max), then nothing.
    assert len(result.state.interrupts) == 3
    (activation,) = result.state.activations.values()
    assert (activation.next_index, len(activation.running)) == (3, 3)
    answered = 0
    while result.status == "paused":
        result = resume_workflow(result, {}, wf, {"probe": Recorder()})
        answered += 1
    assert result.status == "completed" and answered == 5


# -- join, end, subgraph, interrupt --------------------------------------------------------


def test_end_nodes_set_the_workflow_outcome_and_end_edges_mean_ok() -> None:
    wf = workflow(
        [probe("only"), {"id": "stop", "type": "end", "outcome": "rejected"}],
        ["only:ok->stop"],
        outcomes=["ok", "rejected"],
    )
    result = execute_workflow(wf, {"rows": []}, {"probe": Recorder()})
    assert (result.status, result.outcome) == ("completed", "rejected")
    assert [(r.node_id, r.outcome) for r in result.trace] == [("only", "ok"), ("stop", "rejected")]
    assert execute_workflow(LINEAR, {"rows": []}, {"probe": Recorder()}).outcome == "ok"


def child(outcome: str = "ok", value: dict[str, Any] | None = None) -> Any:
    return workflow(
        [probe("inside", a="input.value"), {"id": "finish", "type": "end", "outcome": outcome}],
        ["inside:ok->finish"],
        name="child",
        outcomes=["ok", "partial"],
        input_schema={
            "type": "object",
            "required": ["value"],
            "properties": {"value": value or {}},
        },
        output=[{"target": "echo", "path": "input.value"}, {"target": "fixed", "value": 7}],
        output_schema={"type": "object", "properties": {"echo": {}, "fixed": {}}},
    )


def caller(outcomes: list[str], *, schemas: bool = True) -> Any:
    """A workflow whose subgraph node ``call`` runs ``child``; without ``schemas`` the
    node declares none and binds to the child's."""
    call: dict[str, Any] = {
        "id": "call",
        "type": "subgraph",
        "workflow": "child",
        "input": [{"target": "value", "path": "input.rows"}],
        "output": [{"source": "fixed", "target": "state.log"}],
        "outcomes": outcomes,
    }
    if schemas:
        call["input_schema"] = {"type": "object", "properties": {"value": {}}}
        call["output_schema"] = {"type": "object", "properties": {"echo": {}, "fixed": {}}}
    return workflow(
        [
            call,
            probe("after", a="state.log"),
        ],
        [f"call:{o}->after" for o in outcomes] + ["after:ok->__end__"],
        input_schema={"type": "object", "properties": {"rows": {}}},
    )


def test_a_subgraph_runs_its_child_and_maps_the_output_back() -> None:
    recorder = Recorder()
    result = execute_workflow(
        caller(["ok"]), {"rows": [1]}, {"probe": recorder}, subgraphs={"child": child()}
    )
    assert result.status == "completed", result.error
    assert [(ctx.node_id, p) for p, ctx in recorder.calls] == [
        ("inside", {"a": [1]}),
        ("after", {"a": 7}),
    ]
    call = records_of(result, "call")[0]
    assert (call.input, call.outcome, call.output) == (
        {"value": [1]},
        "ok",
        {"echo": [1], "fixed": 7},
    )
    inside = records_of(result, "inside")[0]
    assert inside.call_path == ("call",) and inside.scope_id != "root"
    assert result.state.scopes.keys() == {"root"}  # the child scope is gone


def test_a_child_outcome_the_subgraph_does_not_declare_fails_it() -> None:
    result = execute_workflow(
        caller(["ok"]), {"rows": [1]}, {"probe": Recorder()}, subgraphs={"child": child("partial")}
    )
    assert result.status == "failed"
    assert result.error == (
        "subgraph 'call': the child run ended with outcome 'partial', which the subgraph does "
        "not declare (declared: ok)"
    )
    ok = execute_workflow(
        caller(["ok", "partial"]),
        {"rows": [1]},
        {"probe": Recorder()},
        subgraphs={"child": child("partial")},
    )
    assert ok.status == "completed" and records_of(ok, "call")[0].outcome == "partial"


def test_a_failure_in_the_child_fails_the_subgraph_node() -> None:
    result = execute_workflow(
        caller(["ok"]), {"rows": [1]}, {"probe": failing_on_value()}, subgraphs={"child": child()}
    )
    assert result.status == "failed"
    assert result.error == "subgraph 'call': node 'inside' failed: ValueError: boom"
    assert [r.node_id for r in result.trace if r.error] == ["inside", "call"]


def failing_on_value() -> Recorder:
    def result(payload: dict[str, Any], ctx: Any) -> dict[str, Any]:
        raise ValueError("boom")

    return Recorder(result)


def test_a_subgraph_node_without_schemas_binds_to_the_child_s() -> None:
    recorder = Recorder()
    result = execute_workflow(
        caller(["ok"], schemas=False),
        {"rows": [1]},
        {"probe": recorder},
        subgraphs={"child": child()},
    )
    assert result.status == "completed", result.error
    assert [(ctx.node_id, p) for p, ctx in recorder.calls][-1] == ("after", {"a": 7})


def test_an_output_source_the_child_does_not_declare_is_refused_before_the_run() -> None:
    wf = caller(["ok"], schemas=False)
    wf.nodes[0].output[0] = type(wf.nodes[0].output[0]).model_validate(
        {"source": "fixd", "target": "state.log"}
    )
    with pytest.raises(WorkflowRefused) as refused:
        execute_workflow(wf, {"rows": [1]}, {"probe": Recorder()}, subgraphs={"child": child()})
    assert str(refused.value) == (
        "cannot run: workflow 'test': [subgraph_binding] nodes[0].output[0].source: child "
        "workflow 'child' does not produce output field 'fixd'"
    )


def test_a_child_input_must_match_the_child_workflow_input_schema() -> None:
    strict = child(value={"type": "string"})
    result = execute_workflow(
        caller(["ok"]), {"rows": [1]}, {"probe": Recorder()}, subgraphs={"child": strict}
    )
    assert result.status == "failed"
    assert result.error == (
        "subgraph 'call': input does not match the input_schema of workflow 'child': value: [1] "
        "is not of type 'string'"
    )


def test_a_required_child_input_no_binding_provides_is_refused_before_the_run() -> None:
    """The same finding wfls check reports on the subgraph node (subgraph_binding)."""
    wf = caller(["ok"])
    wf.nodes[0].input.clear()
    with pytest.raises(WorkflowRefused) as refused:
        execute_workflow(wf, {"rows": [1]}, {"probe": Recorder()}, subgraphs={"child": child()})
    assert str(refused.value) == (
        "cannot run: workflow 'test': [subgraph_binding] nodes[0].workflow: child workflow "
        "'child' requires input 'value', which no binding provides"
    )


APPROVAL = workflow(
    [
        loop("rows", "input.rows", "row"),
        {
            "id": "ask",
            "type": "interrupt",
            "kind": "approval",
            "request": [
                {"target": "who", "path": "context.row.name"},
                {
                    "target": "where",
                    "expression": {
                        "kind": "object",
                        "fields": {
                            "index": {"kind": "path", "path": "context.loop_index"},
                            "tag": {"kind": "literal", "value": "x"},
                        },
                    },
                },
            ],
            "resume": [{"source": "note", "target": "state.notes"}],
            "outcomes": ["yes", "no"],
            "resume_schema": {
                "type": "object",
                "required": ["note"],
                "properties": {"note": {"type": "string"}},
            },
        },
        probe("after", a="context.prior_outcome"),
    ],
    ["rows:loop->ask", "ask:yes->after", "ask:no->after", "after:ok->rows", "rows:done->__end__"],
    state_schema={
        "type": "object",
        "properties": {"notes": {"type": "array", "reducer": "wf.std.append"}},
    },
    output=[{"target": "notes", "path": "state.notes"}],
    output_schema={"type": "object", "properties": {"notes": {}}},
)


def test_an_interrupt_pauses_with_its_request_and_resumes_into_state() -> None:
    recorder = Recorder()
    result = execute_workflow(APPROVAL, {"rows": ROWS}, {"probe": recorder})
    assert result.status == "paused" and result.interrupt is not None
    assert (result.interrupt.node_id, result.interrupt.kind) == ("ask", "approval")
    assert result.interrupt.request == {"who": "r0", "where": {"index": 0, "tag": "x"}}
    assert result.interrupt.route == ["root"]
    saved = dump(result.state)
    for answer, outcome, problem in (
        (
            {"note": 1},
            "yes",
            "the answer does not match the resume_schema of interrupt 'ask': "
            "note: 1 is not of type 'string'",
        ),
        (
            {"note": "n"},
            None,
            "interrupt 'ask' declares outcomes yes, no; choose the one to resume with",
        ),
        (
            {"note": "n"},
            "maybe",
            "outcome 'maybe' is not declared by interrupt 'ask' (declared: yes, no)",
        ),
        ([1], "yes", "the answer must be a JSON object"),
    ):
        with pytest.raises(WorkflowExecutionError) as caught:
            resume_workflow(saved, answer, APPROVAL, {"probe": recorder}, outcome=outcome)
        assert str(caught.value) == problem
    assert dump(result.state) == saved  # a refused answer changes nothing
    first = resume_workflow(saved, {"note": "first"}, APPROVAL, {"probe": recorder}, outcome="yes")
    assert first.status == "paused" and first.interrupt is not None
    assert first.interrupt.request["who"] == "r1"
    done = resume_workflow(first, {"note": "second"}, APPROVAL, {"probe": recorder}, outcome="no")
    assert done.status == "completed"
    assert done.output == {"notes": ["first", "second"]}
    assert [p["a"] for p, _ in recorder.calls] == ["yes", "no"]
    with pytest.raises(WorkflowExecutionError, match="not waiting for an answer"):
        resume_workflow(done, {"note": "late"}, APPROVAL, {"probe": recorder}, outcome="no")


def test_resume_refuses_another_workflow_or_version() -> None:
    result = execute_workflow(APPROVAL, {"rows": ROWS}, {"probe": Recorder()})
    changed = APPROVAL.model_copy(update={"outcomes": ["ok", "extra"]})
    with pytest.raises(WorkflowExecutionError) as caught:
        resume_workflow(result, {"note": "n"}, changed, {"probe": Recorder()}, outcome="yes")
    assert str(caught.value) == ("the run state was saved for another version of workflow 'test'")
    other = APPROVAL.model_copy(update={"name": "other"})
    with pytest.raises(WorkflowExecutionError, match="belongs to workflow 'test', not 'other'"):
        resume_workflow(result, {"note": "n"}, other, {"probe": Recorder()}, outcome="yes")


# -- state writes and output ---------------------------------------------------------------


def test_reducers_replace_append_and_custom() -> None:
    wf = workflow(
        [
            loop("rows", "input.rows", "row"),
            {
                **probe("body", a="context.row.name"),
                "output": [
                    {"source": "out", "target": "state.last"},
                    {"source": "out", "target": "state.all"},
                    {"source": "out", "target": "state.count"},
                ],
            },
        ],
        ["rows:loop->body", "body:ok->rows", "rows:done->__end__"],
        state_schema={
            "type": "object",
            "properties": {
                "last": {},
                "all": {"reducer": "wf.std.append"},
                "count": {"reducer": {"ref": "my.count", "config": {"step": 10}}, "default": 0},
            },
        },
        output_schema={"type": "object", "properties": {"last": {}, "all": {}, "count": {}}},
    )

    def count(current: Any, value: Any, config: Any) -> Any:
        return current + config["step"]

    result = execute_workflow(
        wf, {"rows": ROWS}, {"probe": lambda p, c: {"out": p["a"]}}, reducers={"my.count": count}
    )
    assert result.status == "completed", result.error
    # No output bindings: the legacy fallback copies same-named state fields.
    assert result.output == {"last": "r1", "all": ["r0", "r1"], "count": 20}
    with pytest.raises(WorkflowRefused) as caught:
        execute_workflow(wf, {"rows": ROWS}, {"probe": Recorder()})
    assert caught.value.problems == (
        "workflow 'test': unknown reducer 'my.count' for state field 'count'",
    )


def test_output_not_matching_the_output_schema_fails_the_run() -> None:
    wf = workflow(
        [probe("only")],
        ["only:ok->__end__"],
        output=[{"target": "n", "value": "text"}],
        output_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
    )
    result = execute_workflow(wf, {"rows": []}, {"probe": Recorder()})
    assert result.status == "failed"
    assert result.error == (
        "workflow output: the output of workflow 'test' does not match its output_schema: n: "
        "'text' is not of type 'integer'"
    )


def test_the_workflow_output_reads_the_root_context() -> None:
    wf = workflow(
        [probe("only")],
        ["only:ok->__end__"],
        output=[
            {"target": "how", "path": "context.activated_incoming_edge"},
            {"target": "loops", "path": "context.foreach"},
        ],
        output_schema={"type": "object", "properties": {"how": {}, "loops": {}}},
    )
    result = execute_workflow(wf, {"rows": []}, {"probe": Recorder()})
    assert result.output == {"how": "only:ok->__end__", "loops": {}}


# -- refusals and limits -------------------------------------------------------------------


def test_a_run_is_refused_with_every_reason() -> None:
    broken = workflow(
        [probe("only"), {**probe("other"), "node": "ghost_def_is_known"}],
        ["only:ok->__end__"],
        node_defs=[PROBE_DEF, {**PROBE_DEF, "name": "ghost_def_is_known"}],
    )
    with pytest.raises(WorkflowRefused) as caught:
        execute_workflow(broken, {"rows": []}, {"probe": Recorder()})
    assert caught.value.problems == (
        "workflow 'test': [unreachable_node] nodes[other]: node 'other' is unreachable from start",
        "workflow 'test': no handler for node def 'ghost_def_is_known'",
    )
    assert str(caught.value).startswith("cannot run: workflow 'test': [unreachable_node]")
    assert str(caught.value).endswith("(and 1 more)")
    with pytest.raises(WorkflowRefused) as caught:
        execute_workflow(caller(["ok"]), {"rows": []}, {"probe": Recorder()})
    assert caught.value.problems == (
        "workflow 'test': subgraph node 'call' calls workflow 'child', which was not given",
    )


def test_input_must_match_the_input_schema() -> None:
    with pytest.raises(WorkflowRefused) as caught:
        execute_workflow(LOOP, {"rows": [{"name": 3, "kids": []}]}, {"probe": Recorder()})
    assert str(caught.value) == (
        "cannot run: the input does not match the input_schema of workflow 'test': "
        "rows.0.name: 3 is not of type 'string'"
    )
    with pytest.raises(WorkflowRefused, match="not JSON"):
        execute_workflow(LOOP, {"rows": (1, 2)}, {"probe": Recorder()})


def test_the_step_limit_stops_an_endless_loop() -> None:
    definition = {**PROBE_DEF, "outcomes": ["ok", "again"]}
    wf = workflow([probe("spin")], ["spin:again->spin", "spin:ok->__end__"], node_defs=[definition])
    result = execute_workflow(
        wf, {"rows": []}, {"probe": lambda p, c: NodeResult(outcome="again")}, max_steps=50
    )
    assert result.status == "failed"
    assert result.error == (
        "run stopped at its step limit of 50 steps, at node 'spin'; the workflow may loop forever"
    )
    assert result.step_limit == StepLimit(50, "spin", ())
    assert len(result.trace) == 50


def test_the_step_limit_names_the_node_of_a_child_run_with_its_call() -> None:
    definition = {**PROBE_DEF, "outcomes": ["ok", "again"]}
    spinning = workflow(
        [probe("spin")],
        ["spin:again->spin", "spin:ok->__end__"],
        name="child",
        node_defs=[definition],
        input_schema={"type": "object", "properties": {"value": {}}},
        output_schema={"type": "object", "properties": {"echo": {}, "fixed": {}}},
    )
    result = execute_workflow(
        caller(["ok"]),
        {"rows": [1]},
        {"probe": lambda p, c: NodeResult(outcome="again")},
        subgraphs={"child": spinning},
        max_steps=20,
        trace=False,
    )
    assert result.step_limit == StepLimit(20, "spin", ("call",))
    assert result.error == (
        "run stopped at its step limit of 20 steps, at node 'spin' (in subgraph 'call'); the "
        "workflow may loop forever"
    )


def test_without_trace_no_activation_is_kept_in_any_scope_nor_after_resume() -> None:
    kept = execute_workflow(
        caller(["ok"]), {"rows": [1]}, {"probe": Recorder()}, subgraphs={"child": child()}
    )
    bare = execute_workflow(
        caller(["ok"]),
        {"rows": [1]},
        {"probe": Recorder()},
        subgraphs={"child": child()},
        trace=False,
    )
    assert any(r.call_path == ("call",) for r in kept.trace)
    assert (bare.status, bare.output, bare.trace) == (kept.status, kept.output, ())
    assert bare.state.recorded == len(kept.trace)
    paused = execute_workflow(APPROVAL, {"rows": ROWS}, {"probe": Recorder()}, trace=False)
    assert paused.status == "paused" and paused.trace == () and paused.state.recorded > 0
    resumed = resume_workflow(
        paused, {"note": "n"}, APPROVAL, {"probe": Recorder()}, outcome="yes", trace=False
    )
    assert resumed.status == "paused" and resumed.trace == ()
    assert resumed.state.recorded > paused.state.recorded


# -- run state ----------------------------------------------------------------------------


def test_run_state_round_trips_through_json() -> None:
    result = execute_workflow(APPROVAL, {"rows": ROWS}, {"probe": Recorder()})
    text = dump(result.state)
    assert load(text) == result.state
    assert dump(load(text)) == text
    assert json.loads(text)["version"] == 1


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda s: s.update(version=2),
            "invalid run state: unsupported version 2 (this wfls reads version 1)",
        ),
        (lambda s: s.pop("frames"), "invalid run state: frames: Field required"),
        (
            lambda s: s["ready"].append("frame_999"),
            "invalid run state: ready queue names 'frame_999', which is not a node frame",
        ),
        (lambda s: s.update(seed="0"), "invalid run state: seed: Input should be a valid integer"),
        (
            lambda s: s["scopes"]["root"].update(state={"x": float("inf")}),
            "invalid run state: not JSON (Infinity is not a JSON number)",
        ),
    ],
)
def test_load_fails_closed(mutate: Any, message: str) -> None:
    result = execute_workflow(APPROVAL, {"rows": ROWS}, {"probe": Recorder()})
    data = json.loads(dump(result.state))
    mutate(data)
    with pytest.raises(WorkflowExecutionError) as caught:
        load(json.dumps(data))
    assert str(caught.value) == message


def test_load_refuses_what_is_not_a_state() -> None:
    with pytest.raises(WorkflowExecutionError, match=r"^invalid run state: not JSON"):
        load("{")
    with pytest.raises(WorkflowExecutionError, match="expected a JSON object"):
        load("[]")


def test_trace_false_counts_activations_without_keeping_them() -> None:
    kept = execute_workflow(LOOP, {"rows": ROWS}, {"probe": Recorder()})
    counted = execute_workflow(LOOP, {"rows": ROWS}, {"probe": Recorder()}, trace=False)
    assert counted.trace == () and counted.status == "completed"
    assert counted.state.recorded == len(kept.trace) == 5


# -- chosen outcomes ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("chosen", "stand_ins", "problem"),
    [
        ({"after": "ok", "ask": "no", "probe": "ok"}, True, None),
        ({"ask": "yes"}, False, None),
        (
            {"aftr": "ok"},
            True,
            "workflow 'test' has no node or node def 'aftr' (did you mean 'after'?)",
        ),
        ({"zzz": "ok"}, True, "workflow 'test' has no node or node def 'zzz'"),
        (
            {"after": "okay"},
            True,
            "node 'after' does not declare outcome 'okay' (declared: ok; did you mean 'ok'?)",
        ),
        ({"ask": "maybe"}, True, "node 'ask' does not declare outcome 'maybe' (declared: yes, no)"),
        (
            {"probe": "nope"},
            True,
            "node def 'probe' does not declare outcome 'nope' (declared: ok)",
        ),
        (
            {"rows": "done"},
            True,
            "node 'rows' is of type foreach, whose outcome cannot be chosen (only nodes of type "
            "node, run by their stand-ins, and interrupts can)",
        ),
        (
            {"after": "ok"},
            False,
            "node 'after' runs a handler you gave, which chooses its own outcome",
        ),
    ],
)
def test_chosen_outcomes_are_checked_against_what_each_node_declares(
    chosen: dict[str, str], stand_ins: bool, problem: str | None
) -> None:
    problems = outcome_choice_problems(APPROVAL, chosen, stand_ins=stand_ins)
    assert list(problems.values()) == ([] if problem is None else [problem])


def test_chosen_outcomes_reach_into_the_workflows_subgraph_nodes_call() -> None:
    children = {"child": child()}
    assert outcome_choice_problems(caller(["ok"]), {"inside": "ok"}, subgraphs=children) == {}
    assert outcome_choice_problems(caller(["ok"]), {"finish": "ok"}, subgraphs=children) == {
        "finish": "node 'finish' is of type end, whose outcome cannot be chosen (only nodes of "
        "type node, run by their stand-ins, and interrupts can)"
    }
    assert outcome_choice_problems(caller(["ok"]), {"insid": "ok"}, subgraphs=children) == {
        "insid": "workflow 'test' or the workflows it calls has no node or node def 'insid' "
        "(did you mean 'inside'?)"
    }


def test_a_paused_result_finds_its_interrupt_node() -> None:
    result = execute_workflow(APPROVAL, {"rows": ROWS}, {"probe": Recorder()})
    node = result.interrupt_node(APPROVAL)
    assert node is not None and node.id == "ask"
    done = execute_workflow(LINEAR, {"rows": []}, {"probe": Recorder()})
    assert done.interrupt_node(LINEAR) is None
