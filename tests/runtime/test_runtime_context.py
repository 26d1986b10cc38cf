"""What a node sees at run time: the structured foreach context, one test per promise."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from rt_support import ROWS, Recorder, loop, probe, records_of, workflow

from wf_core.language.paths import GraphSourcePath
from wf_core.models import ForeachNode, InputPathBinding, NodeUse, SubgraphNode, Workflow
from wf_core.runtime import (
    Frame,
    WorkflowExecutionError,
    dump,
    execute_workflow,
    frame_context_view,
    load,
    resume_workflow,
)


def nested_workflow(**inner: Any) -> Workflow:
    return workflow(
        [
            loop("rows", "input.rows", "row"),
            loop("kids", "context.foreach.rows.item.kids", "kid", **inner),
            probe("body", a="context.foreach.kids.item.name", b="context.foreach.rows.item.name"),
            probe("after", a="context.foreach.rows.item.name"),
        ],
        [
            "rows:loop->kids",
            "kids:loop->body",
            "body:ok->kids",
            "kids:done->after",
            "after:ok->rows",
            "rows:done->__end__",
        ],
    )


def run_nested() -> tuple[Recorder, Any]:
    recorder = Recorder()
    result = execute_workflow(nested_workflow(), {"rows": ROWS}, {"probe": recorder})
    assert result.status == "completed", result.error
    return recorder, result


def test_one_foreach_gives_one_entry() -> None:
    recorder = Recorder()
    wf = workflow(
        [loop("rows", "input.rows", "row"), probe("body", a="context.foreach.rows.item.name")],
        ["rows:loop->body", "body:ok->rows", "rows:done->__end__"],
    )
    result = execute_workflow(wf, {"rows": ROWS}, {"probe": recorder})
    assert result.status == "completed"
    calls = recorder.by_node("body")
    assert [payload["a"] for payload, _ in calls] == ["r0", "r1"]
    for index, (_, ctx) in enumerate(calls):
        assert list(ctx.foreach) == ["rows"]
        entry = ctx.foreach["rows"]
        assert (entry.node_id, entry.index, entry.item) == ("rows", index, ROWS[index])
        assert list(ctx.graph["foreach"]) == ["rows"]
        assert ctx.graph["foreach"]["rows"]["item"] == ROWS[index]


def test_a_handler_cannot_change_its_context() -> None:
    """The context and its foreach entries are frozen at run time, whatever the handler's
    typing (the analysis's records are immutable to the type checker only)."""
    import dataclasses

    recorder, _ = run_nested()
    _, ctx = recorder.by_node("body")[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.node_id = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.foreach["kids"].index = 5  # type: ignore[misc]


def test_nested_bodies_see_both_entries_outermost_first() -> None:
    recorder, _ = run_nested()
    calls = recorder.by_node("body")
    seen = [
        (ctx.foreach["rows"].item["name"], ctx.foreach["kids"].item["name"]) for _, ctx in calls
    ]
    assert seen == [("r0", "k00"), ("r0", "k01"), ("r1", "k10")]
    for payload, ctx in calls:
        assert list(ctx.foreach) == ["rows", "kids"]
        assert list(ctx.graph["foreach"]) == ["rows", "kids"]
        assert payload == {
            "a": ctx.foreach["kids"].item["name"],
            "b": ctx.foreach["rows"].item["name"],
        }


def test_loop_item_and_loop_index_are_the_innermost_entry() -> None:
    recorder, _ = run_nested()
    indexes = []
    for _, ctx in recorder.by_node("body"):
        assert ctx.graph["loop_item"] == ctx.foreach["kids"].item
        assert ctx.graph["loop_index"] == ctx.foreach["kids"].index
        indexes.append((ctx.foreach["rows"].index, ctx.graph["loop_index"]))
    assert indexes == [(0, 0), (0, 1), (1, 0)]


def test_unique_aliases_coexist() -> None:
    recorder, _ = run_nested()
    for _, ctx in recorder.by_node("body"):
        assert ctx.graph["row"] == ctx.foreach["rows"].item
        assert ctx.graph["kid"] == ctx.foreach["kids"].item
        assert ctx.graph["row"] != ctx.graph["kid"]


def test_sibling_loops_may_share_an_alias() -> None:
    recorder = Recorder()
    wf = workflow(
        [
            loop("first", "input.rows", "row"),
            probe("a", a="context.row.name"),
            loop("second", "input.rows", "row"),
            probe("b", a="context.row.name"),
        ],
        [
            "first:loop->a",
            "a:ok->first",
            "first:done->second",
            "second:loop->b",
            "b:ok->second",
            "second:done->__end__",
        ],
    )
    result = execute_workflow(wf, {"rows": ROWS}, {"probe": recorder})
    assert result.status == "completed", result.error
    assert [(ctx.node_id, list(ctx.foreach), p["a"]) for p, ctx in recorder.calls] == [
        ("a", ["first"], "r0"),
        ("a", ["first"], "r1"),
        ("b", ["second"], "r0"),
        ("b", ["second"], "r1"),
    ]


def test_leaving_the_inner_loop_restores_the_outer_entry_only() -> None:
    recorder, _ = run_nested()
    after = recorder.by_node("after")
    assert [payload["a"] for payload, _ in after] == ["r0", "r1"]
    for index, (_, ctx) in enumerate(after):
        assert list(ctx.foreach) == ["rows"]
        assert ctx.foreach["rows"].item == ROWS[index]
        assert ctx.graph["loop_item"] == ROWS[index]
        assert ctx.graph["loop_index"] == index
        assert "kid" not in ctx.graph
        assert ctx.graph["row"] == ROWS[index]
        assert ctx.graph["prior_outcome"] == "done"
        assert ctx.graph["activated_incoming_edge"] == "kids:done->after"


def test_concurrent_items_get_distinct_ids() -> None:
    rows = [{"name": f"r{i}", "kids": [{"name": f"k{i}a"}, {"name": f"k{i}b"}]} for i in range(5)]
    recorder = Recorder()
    wf = workflow(
        [
            loop("rows", "input.rows", "row", mode="concurrent", concurrent={"max_active": 3}),
            loop(
                "kids", "context.row.kids", "kid", mode="concurrent", concurrent={"max_active": 2}
            ),
            probe("body", a="context.kid.name"),
        ],
        [
            "rows:loop->kids",
            "kids:loop->body",
            "body:ok->kids",
            "kids:done->rows",
            "rows:done->__end__",
        ],
    )
    result = execute_workflow(wf, {"rows": rows}, {"probe": recorder}, seed=7)
    assert result.status == "completed", result.error
    calls = recorder.by_node("body")
    assert sorted(p["a"] for p, _ in calls) == sorted(k["name"] for r in rows for k in r["kids"])
    outer = {ctx.foreach["rows"].index: ctx.foreach["rows"] for _, ctx in calls}
    inner = [ctx.foreach["kids"] for _, ctx in calls]
    # One entry into the outer loop: its items share the activation, each has its own frame
    # and lineage.
    assert len({e.activation_id for e in outer.values()}) == 1
    assert len({e.frame_id for e in outer.values()}) == 5
    assert len({e.lineage_id for e in outer.values()}) == 5
    # Each outer item entered the inner loop afresh: ten inner items, five activations,
    # ten frames and ten lineages, none shared with the outer loop.
    assert len({e.activation_id for e in inner}) == 5
    assert len({e.frame_id for e in inner}) == 10
    assert len({e.lineage_id for e in inner}) == 10
    assert not {e.lineage_id for e in inner} & {e.lineage_id for e in outer.values()}
    for _, ctx in calls:
        assert ctx.lineage_id == ctx.foreach["kids"].lineage_id
        assert ctx.graph["parent_lineage_id"] == ctx.foreach["rows"].lineage_id


def test_each_entry_into_a_foreach_is_a_fresh_activation() -> None:
    recorder, _ = run_nested()
    activations = {ctx.foreach["kids"].activation_id for _, ctx in recorder.by_node("body")}
    assert len(activations) == 2  # the inner loop was entered once per row


INTERRUPTED = workflow(
    [
        loop("rows", "input.rows", "row"),
        loop("kids", "context.row.kids", "kid"),
        {
            "id": "ask",
            "type": "interrupt",
            "kind": "check",
            "request": [{"target": "kid", "path": "context.foreach.kids.item.name"}],
            "resume": [{"source": "ok", "target": "state.log"}],
        },
        probe("body", a="context.foreach.kids.item.name", b="context.foreach.rows.item.name"),
    ],
    [
        "rows:loop->kids",
        "kids:loop->ask",
        "ask:submitted->body",
        "body:ok->kids",
        "kids:done->rows",
        "rows:done->__end__",
    ],
)


def test_resume_from_dumped_state_recreates_the_same_entries() -> None:
    recorder = Recorder()
    handlers = {"probe": recorder}
    result = execute_workflow(INTERRUPTED, {"rows": ROWS}, handlers)
    pauses = []
    while result.status == "paused":
        paused_record = result.trace[-1]
        assert paused_record.node_id == "ask" and paused_record.outcome is None
        text = dump(result.state)
        result = resume_workflow(text, {"ok": True}, INTERRUPTED, handlers)
        answered = records_of(result, "ask")[0]
        assert answered.outcome == "submitted"
        # Rebuilt from the checkpoint alone, the context is the one the node paused with.
        assert answered.context == paused_record.context
        body = recorder.by_node("body")[len(pauses)][1]
        assert body.foreach["rows"] == _entry(paused_record.context, "rows")
        assert _entry(paused_record.context, "kids").item == body.foreach["kids"].item
        assert body.foreach["kids"].frame_id == _entry(paused_record.context, "kids").frame_id
        pauses.append(paused_record.context["foreach"]["kids"]["item"]["name"])
    assert result.status == "completed", result.error
    assert pauses == ["k00", "k01", "k10"]


def _entry(context: dict[str, Any], owner: str) -> Any:
    from wf_core.runtime import ForeachContext

    return ForeachContext(**context["foreach"][owner])


# -- fail closed --------------------------------------------------------------------


@dataclass
class Table:
    frames: dict[str, Frame] = field(default_factory=dict)

    def add(self, frame: Frame) -> Frame:
        self.frames[frame.id] = frame
        return frame


def item_frame(frame_id: str, parent: str, node: str = "rows", **overrides: Any) -> Frame:
    metadata: dict[str, Any] = {
        "foreach_node_id": node,
        "activation_id": f"act_{frame_id}",
        "loop_index": 0,
        "loop_item": {"name": "x"},
        "loop_alias": node + "_alias",
    }
    for key, value in overrides.items():
        if value is _DROP:
            metadata.pop(key)
        else:
            metadata[key] = value
    return Frame(
        frame_id, parent, "root", f"lin_{frame_id}", "root", "foreach_iteration", node, metadata
    )


_DROP = object()


def root_frame() -> Frame:
    return Frame("root", None, "root", "root", None, "root")


def node_frame(frame_id: str, parent: str | None) -> Frame:
    return Frame(frame_id, parent, "root", "root", None, "node", "body", {"prior_outcome": "loop"})


def table(*frames: Frame) -> Table:
    out = Table()
    for frame in frames:
        out.add(frame)
    return out


CORRUPT_CASES = [
    (
        "cyclic ancestry",
        [node_frame("n", "a"), item_frame("a", "b"), item_frame("b", "a", node="other")],
        "cyclic execution frame ancestry at frame 'a'",
    ),
    ("missing parent", [node_frame("n", "gone")], "missing parent frame 'gone' for frame 'n'"),
    (
        "duplicate active id",
        [
            root_frame(),
            item_frame("a", "root"),
            item_frame("b", "a", loop_alias="other"),
            node_frame("n", "b"),
        ],
        "duplicate active foreach id 'rows' for frame 'n'",
    ),
    (
        "reserved alias",
        [root_frame(), item_frame("a", "root", loop_alias="loop_item"), node_frame("n", "a")],
        "foreach alias 'loop_item' for node 'rows' collides with reserved context keys for "
        "frame 'n'",
    ),
    (
        "empty alias",
        [root_frame(), item_frame("a", "root", loop_alias=""), node_frame("n", "a")],
        "foreach alias '' for node 'rows' collides with reserved context keys for frame 'n'",
    ),
    (
        "duplicate alias",
        [
            root_frame(),
            item_frame("a", "root", loop_alias="x"),
            item_frame("b", "a", node="kids", loop_alias="x"),
            node_frame("n", "b"),
        ],
        "duplicate active foreach alias 'x' for frame 'n'",
    ),
    *[
        (
            f"missing {key}",
            [root_frame(), item_frame("a", "root", **{key: _DROP}), node_frame("n", "a")],
            f"missing foreach metadata '{key}' for frame 'a'",
        )
        for key in ("foreach_node_id", "activation_id", "loop_index", "loop_item", "loop_alias")
    ],
    *[
        (
            f"malformed {key}={bad!r}",
            [root_frame(), item_frame("a", "root", **{key: bad}), node_frame("n", "a")],
            f"malformed foreach metadata '{key}' for frame 'a': {reason}",
        )
        for key, bad, reason in (
            ("foreach_node_id", 3, "expected a non-empty string"),
            ("foreach_node_id", "", "expected a non-empty string"),
            ("activation_id", None, "expected a non-empty string"),
            ("loop_index", "0", "expected a non-negative integer"),
            ("loop_index", -1, "expected a non-negative integer"),
            ("loop_index", 1.0, "expected a non-negative integer"),
            ("loop_alias", ["x"], "expected a string"),
        )
    ],
    (
        "boolean index",
        [root_frame(), item_frame("a", "root", loop_index=True), node_frame("n", "a")],
        "malformed foreach metadata 'loop_index' for frame 'a': a boolean is not an index",
    ),
    (
        "malformed standard key",
        [root_frame(), Frame("n", "root", "root", "root", None, "node", "x", {"prior_outcome": 1})],
        "malformed frame metadata 'prior_outcome' for frame 'n': expected a string or null",
    ),
]


@pytest.mark.parametrize(
    ("frames", "message"), [(f, m) for _, f, m in CORRUPT_CASES], ids=[c[0] for c in CORRUPT_CASES]
)
def test_malformed_state_fails_closed_with_the_exact_message(
    frames: list[Frame], message: str
) -> None:
    store = table(*frames)
    with pytest.raises(WorkflowExecutionError) as caught:
        frame_context_view(store, store.frames["n"])
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("frames", "message"), [(f, m) for _, f, m in CORRUPT_CASES], ids=[c[0] for c in CORRUPT_CASES]
)
def test_loading_a_corrupt_checkpoint_fails_closed(frames: list[Frame], message: str) -> None:
    result = execute_workflow(INTERRUPTED, {"rows": ROWS}, {"probe": Recorder()})
    state = json.loads(dump(result.state))
    for frame in frames:
        state["frames"][frame.id] = {
            "id": frame.id,
            "parent_frame_id": frame.parent_frame_id,
            "scope_id": frame.scope_id,
            "lineage_id": "root",
            "parent_lineage_id": frame.parent_lineage_id,
            "kind": frame.kind,
            "node_id": frame.node_id,
            "metadata": frame.metadata,
        }
    with pytest.raises(WorkflowExecutionError) as caught:
        load(json.dumps(state))
    # The loader checks every frame, so it may name another frame of the same corruption
    # (an item frame below a duplicate is itself inside the duplicate).
    pattern = re.escape(message).replace("'n'", "'[a-z]+'").replace("'a'", "'[a-z]+'")
    assert re.fullmatch(f"invalid run state: {pattern}", str(caught.value)), caught.value


def test_a_well_formed_view_is_returned_whole() -> None:
    store = table(
        root_frame(),
        item_frame("a", "root", loop_alias="row", loop_item={"name": "r"}),
        item_frame("b", "a", node="kids.v2", loop_alias="kid", loop_index=3, loop_item=None),
        node_frame("n", "b"),
    )
    view = frame_context_view(store, store.frames["n"])
    assert list(view.foreach) == ["rows", "kids.v2"]
    assert view.foreach["kids.v2"].item is None  # a null item is an item, not a missing one
    assert view.graph == {
        "prior_outcome": "loop",
        "activated_incoming_edge": None,
        "scope_id": "root",
        "lineage_id": "root",
        "parent_lineage_id": None,
        "foreach": {
            "rows": {
                "node_id": "rows",
                "activation_id": "act_a",
                "frame_id": "a",
                "scope_id": "root",
                "lineage_id": "lin_a",
                "index": 0,
                "item": {"name": "r"},
            },
            "kids.v2": {
                "node_id": "kids.v2",
                "activation_id": "act_b",
                "frame_id": "b",
                "scope_id": "root",
                "lineage_id": "lin_b",
                "index": 3,
                "item": None,
            },
        },
        "loop_item": None,
        "loop_index": 3,
        "row": {"name": "r"},
        "kid": None,
    }


# -- scopes -------------------------------------------------------------------------

CHILD_INPUT = {
    "type": "object",
    "required": ["row"],
    "properties": {"row": {"$ref": "#/$defs/row"}},
    "$defs": {
        "row": {
            "type": "object",
            "required": ["name", "kids"],
            "properties": {
                "name": {"type": "string"},
                "kids": {"type": "array", "items": {"type": "object"}},
            },
        }
    },
}


def child_workflow(*, pause: bool = False) -> Workflow:
    """Reads the row it was given, loops over its kids with a foreach also called ``rows``;
    with ``pause``, each kid waits at an interrupt."""
    nodes = [
        probe("top", a="input.row.name", b="context"),
        loop("rows", "input.row.kids", "kid"),
        probe("inner", a="context.foreach.rows.item", b="context.loop_index"),
    ]
    edges = ["top:ok->rows", "rows:loop->inner", "rows:done->__end__"]
    if pause:
        nodes.append({"id": "wait", "type": "interrupt", "kind": "k"})
        edges += ["inner:ok->wait", "wait:submitted->rows"]
    else:
        edges.append("inner:ok->rows")
    return workflow(
        nodes,
        edges,
        name="child",
        input_schema=CHILD_INPUT,
        output=[{"target": "seen", "path": "input.row.name"}],
        output_schema={"type": "object", "properties": {"seen": {"type": "string"}}},
    )


def parent_workflow(binding_path: Any = None) -> Workflow:
    rows = ForeachNode.model_validate(
        {"id": "rows", "type": "foreach", "over": "input.rows", "as": "row"}
    )
    call = SubgraphNode.model_validate(
        {
            "id": "call",
            "type": "subgraph",
            "workflow": "child",
            "input_schema": {"type": "object", "properties": {"row": {}}},
            "output_schema": {"type": "object", "properties": {"seen": {}}},
            "input": [InputPathBinding(target="row", path=binding_path or rows.item)],
            "output": [{"source": "seen", "target": "state.log"}],
        }
    )
    return workflow(
        [rows.model_dump(by_alias=True), call.model_dump(by_alias=True)],
        ["rows:loop->call", "call:ok->rows", "rows:done->__end__"],
        state_schema={
            "type": "object",
            "properties": {"log": {"type": "array", "reducer": "wf.std.append"}},
        },
        output=[{"target": "log", "path": "state.log"}],
        output_schema={"type": "object", "properties": {"log": {}}},
    )


def run_parent_and_child() -> tuple[Recorder, Any]:
    recorder = Recorder()
    result = execute_workflow(
        parent_workflow(),
        {"rows": ROWS},
        {"probe": recorder},
        subgraphs={"child": child_workflow()},
    )
    assert result.status == "completed", result.error
    return recorder, result


def test_a_child_subgraph_sees_none_of_the_callers_entries() -> None:
    recorder, result = run_parent_and_child()
    tops = recorder.by_node("top")
    assert len(tops) == 2
    for payload, ctx in tops:
        assert ctx.foreach == {}
        assert payload["b"]["foreach"] == {}
        assert "row" not in payload["b"] and "loop_item" not in payload["b"]
        assert ctx.scope_id != "root" and payload["b"]["scope_id"] == ctx.scope_id
    calls = records_of(result, "call")
    assert [list(r.owner_stack) for r in calls] == [["rows"], ["rows"]]


def test_a_caller_passes_an_item_into_the_childs_input() -> None:
    recorder, result = run_parent_and_child()
    assert [payload["a"] for payload, _ in recorder.by_node("top")] == ["r0", "r1"]
    assert [r.input for r in records_of(result, "call")] == [{"row": ROWS[0]}, {"row": ROWS[1]}]
    assert result.output == {"log": ["r0", "r1"]}


def test_parent_and_child_may_reuse_a_foreach_id() -> None:
    recorder, _ = run_parent_and_child()
    inner = recorder.by_node("inner")
    assert [payload["a"] for payload, _ in inner] == [
        {"name": "k00"},
        {"name": "k01"},
        {"name": "k10"},
    ]
    for _, ctx in inner:
        assert list(ctx.foreach) == ["rows"]  # the child's own loop only
        assert ctx.foreach["rows"].scope_id == ctx.scope_id != "root"
        assert ctx.foreach["rows"].item in ({"name": "k00"}, {"name": "k01"}, {"name": "k10"})
        assert ctx.graph["kid"] == ctx.foreach["rows"].item and "row" not in ctx.graph


def test_the_ancestry_walk_stops_at_the_childs_scope() -> None:
    paused_child = child_workflow(pause=True)
    result = execute_workflow(
        parent_workflow(), {"rows": ROWS}, {"probe": Recorder()}, subgraphs={"child": paused_child}
    )
    assert result.status == "paused", result.error
    state = result.state
    waiting = state.frames[state.interrupts[0].frame_id]
    view = frame_context_view(state, waiting)
    assert list(view.foreach) == ["rows"] and view.foreach["rows"].scope_id == waiting.scope_id
    # The frame's ancestry does reach the caller's loop item: the scope boundary, not a
    # missing parent, is what hides it.
    chain, current = [], waiting
    while current.parent_frame_id is not None:
        current = state.frames[current.parent_frame_id]
        chain.append((current.kind, current.scope_id))
    assert ("subgraph_root", waiting.scope_id) in chain
    assert ("foreach_iteration", "root") in chain
    assert chain[-1] == ("root", "root")


# -- ForeachNode.item / .index --------------------------------------------------------


def test_foreach_item_and_index_are_structural_and_not_serialised() -> None:
    node = ForeachNode.model_validate(
        {"id": "orders.v2", "type": "foreach", "over": "input.rows", "as": "order"}
    )
    assert node.item == GraphSourcePath("context", ("foreach", "orders.v2", "item"))
    assert node.index == GraphSourcePath("context", ("foreach", "orders.v2", "index"))
    assert str(node.item) == 'context.foreach."orders.v2".item'
    assert GraphSourcePath.parse(str(node.index)) == node.index
    for dumped in (node.model_dump(), node.model_dump(mode="json", by_alias=True)):
        assert "item" not in dumped and "index" not in dumped
    assert set(ForeachNode.model_json_schema()["properties"]).isdisjoint({"item", "index"})


def test_foreach_item_and_index_work_in_node_input_bindings() -> None:
    orders = ForeachNode.model_validate(
        {"id": "orders.v2", "type": "foreach", "over": "input.rows", "as": "order"}
    )
    use = NodeUse(
        id="body",
        type="node",
        node="probe",
        input=[
            InputPathBinding(target="a", path=orders.item.child("name")),
            InputPathBinding(target="b", path=orders.index),
        ],
    )
    wf = workflow(
        [orders.model_dump(by_alias=True), use.model_dump()],
        ["orders.v2:loop->body", "body:ok->orders.v2", "orders.v2:done->__end__"],
    )
    assert wf.nodes[1].input[0].path == GraphSourcePath(
        "context", ("foreach", "orders.v2", "item", "name")
    )
    recorder = Recorder()
    result = execute_workflow(wf, {"rows": ROWS}, {"probe": recorder})
    assert result.status == "completed", result.error
    assert [p for p, _ in recorder.calls] == [{"a": "r0", "b": 0}, {"a": "r1", "b": 1}]


def test_foreach_item_works_in_subgraph_input_bindings() -> None:
    _, result = run_parent_and_child()  # parent_workflow binds ``rows.item`` structurally
    assert str(parent_workflow().nodes[1].input[0].path) == "context.foreach.rows.item"
    assert result.output == {"log": ["r0", "r1"]}
