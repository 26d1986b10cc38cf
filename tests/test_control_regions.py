"""Owner stacks and the six control-region issues (lda-wf-model §6), one scenario a case."""

from __future__ import annotations

import pytest
from builders import build, foreach, task

from wf_core.analysis.control_regions import analyze_control_regions
from wf_core.base.locations import format_location

ITEMS = "input.items"

CASES = {
    "nested owner stacks": (
        [
            foreach("outer", ITEMS),
            foreach("inner", "context.foreach.outer.item"),
            task("body"),
            task("after"),
        ],
        [
            "outer:loop->inner",
            "inner:loop->body",
            "body:ok->inner",
            "inner:done->outer",
            "outer:done->after",
            "after:ok->__end__",
        ],
        {"outer": (), "inner": ("outer",), "body": ("outer", "inner"), "after": ()},
        [],
    ),
    "external entry into a body": (
        [foreach("loop", ITEMS), task("body"), task("after")],
        ["loop:loop->body", "body:ok->loop", "loop:done->after", "after:ok->body"],
        {"loop": (), "after": ()},
        [
            (
                "foreach_region_conflict",
                "nodes[body]",
                "node 'body' is reachable under two foreach control regions",
            )
        ],
    ),
    "body escape": (
        [foreach("loop", ITEMS), task("body"), task("after")],
        ["loop:loop->body", "body:ok->after", "loop:done->after", "after:ok->__end__"],
        {"loop": (), "body": ("loop",)},
        [
            (
                "foreach_region_conflict",
                "nodes[after]",
                "node 'after' is reachable under two foreach control regions",
            )
        ],
    ),
    "return that skips the inner owner": (
        [foreach("outer", ITEMS), foreach("inner", ITEMS), task("body", node="branch")],
        [
            "outer:loop->inner",
            "inner:loop->body",
            "body:ok->inner",
            "body:back->outer",
            "inner:done->outer",
            "outer:done->__end__",
        ],
        {"outer": (), "inner": ("outer",), "body": ("outer", "inner")},
        [
            (
                "invalid_foreach_return",
                "edges[3]",
                "edge 'body' -> 'outer' skips the immediate foreach owner",
            )
        ],
    ),
    "re-entering an active ancestor as a nested controller": (
        [foreach("outer", ITEMS), foreach("inner", ITEMS), task("body")],
        [
            "outer:loop->inner",
            "inner:loop->outer",
            "inner:done->outer",
            "outer:done->__end__",
            "body:ok->inner",
        ],
        {"outer": (), "inner": ("outer",)},
        [
            (
                "invalid_foreach_return",
                "edges[1]",
                "edge 'inner' -> 'outer' skips the immediate foreach owner",
            ),
            ("unreachable_node", "nodes[body]", "node 'body' is unreachable from start"),
        ],
    ),
    "END inside a body": (
        [foreach("loop", ITEMS), task("body", node="branch")],
        ["loop:loop->body", "body:ok->__end__", "body:back->loop", "loop:done->__end__"],
        {"loop": (), "body": ("loop",)},
        [
            (
                "invalid_foreach_terminal",
                "edges[1]",
                "foreach item path 'body' -> '__end__' targets a workflow terminal from inside a "
                "foreach body",
            )
        ],
    ),
    "end node inside a body": (
        [foreach("loop", ITEMS), task("body", node="branch"), {"id": "stop", "type": "end"}],
        ["loop:loop->body", "body:ok->stop", "body:back->loop", "loop:done->__end__"],
        {"loop": (), "body": ("loop",), "stop": ("loop",)},
        [
            (
                "invalid_foreach_terminal",
                "edges[1]",
                "foreach item path 'body' -> 'stop' targets a workflow terminal from inside a "
                "foreach body",
            )
        ],
    ),
    "empty body": (
        [foreach("loop", ITEMS)],
        ["loop:loop->loop", "loop:done->__end__"],
        {"loop": ()},
        [
            (
                "empty_foreach_body",
                "edges[0]",
                "foreach 'loop' loop targets itself; an iteration body needs a distinct node use",
            )
        ],
    ),
    "closed body cycle without return": (
        [foreach("loop", ITEMS), task("a"), task("b")],
        ["loop:loop->a", "a:ok->b", "b:ok->a", "loop:done->__end__"],
        {"loop": (), "a": ("loop",), "b": ("loop",)},
        [
            (
                "foreach_body_no_return",
                "nodes[loop]",
                "foreach 'loop' body has no structural path back to its immediate owner",
            )
        ],
    ),
    "body cycle with a possible return": (
        [foreach("loop", ITEMS), task("a"), task("b", node="branch")],
        ["loop:loop->a", "a:ok->b", "b:ok->a", "b:back->loop", "loop:done->__end__"],
        {"loop": (), "a": ("loop",), "b": ("loop",)},
        [],
    ),
    "ordinary cycle outside loops": (
        [task("a"), task("b", node="branch")],
        ["a:ok->b", "b:back->a", "b:ok->__end__"],
        {"a": (), "b": ()},
        [],
    ),
    "end node shared by three regions": (
        [
            foreach("outer", ITEMS),
            foreach("inner", ITEMS),
            task("x", node="branch"),
            task("y", node="branch"),
            {"id": "stop", "type": "end"},
        ],
        [
            "outer:loop->x",
            "x:back->outer",
            "x:ok->inner",
            "inner:loop->y",
            "y:back->inner",
            "y:ok->stop",
            "inner:done->stop",
            "outer:done->stop",
        ],
        {"outer": (), "x": ("outer",), "inner": ("outer",), "y": ("outer", "inner")},
        [
            (
                "foreach_region_conflict",
                "nodes[stop]",
                "node 'stop' is reachable under two foreach control regions",
            ),
            (
                "invalid_foreach_terminal",
                "edges[6]",
                "foreach item path 'inner' -> 'stop' targets a workflow terminal from inside a "
                "foreach body",
            ),
            (
                "invalid_foreach_terminal",
                "edges[5]",
                "foreach item path 'y' -> 'stop' targets a workflow terminal from inside a "
                "foreach body",
            ),
        ],
    ),
    "every unreachable node, in list order": (
        [task("a"), task("lost2"), task("b"), task("lost1")],
        ["a:ok->b", "b:ok->__end__", "lost1:ok->lost2"],
        {"a": (), "b": ()},
        [
            ("unreachable_node", "nodes[lost2]", "node 'lost2' is unreachable from start"),
            ("unreachable_node", "nodes[lost1]", "node 'lost1' is unreachable from start"),
        ],
    ),
    "unknown start": (
        [task("a")],
        ["a:ok->__end__"],
        {},
        [],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_control_regions(name: str) -> None:
    nodes, edges, stacks, issues = CASES[name]
    start = "missing" if name == "unknown start" else None
    analysis = analyze_control_regions(build(nodes, edges, start=start))
    assert analysis.owner_stack_by_node == stacks
    assert [
        (i.kind.value, format_location(i.location), i.message) for i in analysis.issues
    ] == issues


def test_conflict_records_both_ways_in() -> None:
    nodes, edges, _, _ = CASES["external entry into a body"]
    analysis = analyze_control_regions(build(nodes, edges))
    assert analysis.conflicted == {"body"}
    assert analysis.entry_edges["body"] == {("loop",): 0, (): 3}


def test_long_body_chain_is_linear() -> None:
    """A 3,000-node body must still be analysed (regression guard for quadratic searches)."""
    body = [task(f"n{i}") for i in range(3000)]
    edges = ["loop:loop->n0", *[f"n{i}:ok->n{i + 1}" for i in range(2999)], "n2999:ok->loop"]
    analysis = analyze_control_regions(
        build([foreach("loop", ITEMS), *body], [*edges, "loop:done->__end__"])
    )
    assert analysis.issues == ()
    assert analysis.owner_stack_by_node["n2999"] == ("loop",)
