"""``endless_cycle``: one warning per loop no run can leave, silent where a loop has a way
out or an error already explains it. One scenario a case, the findings as plain text."""

from __future__ import annotations

from typing import Any

import pytest
from builders import build, foreach, task

from wf_core.analysis.components import strongly_connected_components
from wf_core.base.issues import Severity
from wf_core.validation.core import validate_workflow
from wf_core.validation.cycles import MAX_NAMED, MAX_RELATED, endless_cycles
from wf_core.validation.report import ValidationReport
from wfls.store import DocumentStore

ITEMS = "input.items"


def condition(node_id: str) -> dict[str, Any]:
    return {"id": node_id, "type": "condition", "check": {"op": "exists", "path": ITEMS}}


def interrupt(node_id: str, *outcomes: str) -> dict[str, Any]:
    return {"id": node_id, "type": "interrupt", "kind": "approval", "outcomes": list(outcomes)}


def end(node_id: str) -> dict[str, Any]:
    return {"id": node_id, "type": "end"}


def described(report: ValidationReport) -> list[str]:
    """The errors and the endless-cycle warnings, with the warnings' related entries."""
    lines = []
    for issue in report.issues:
        if issue.severity == Severity.ERROR or issue.code == "endless_cycle":
            lines.append(f"{issue.severity.value} {issue.code} {issue.model_path}: {issue.message}")
            if issue.code == "endless_cycle":
                lines += [f"  {r.model_path}: {r.message}" for r in issue.related]
    return lines


CASES: dict[str, tuple[list[dict[str, Any]], list[str], dict[str, Any], list[str]]] = {
    "a node whose only outcome leads back to itself": (
        [task("fetch"), task("summary")],
        ["fetch:ok->summary", "summary:ok->summary"],
        {},
        [
            "warning endless_cycle nodes[summary]: these nodes loop forever: no end is "
            "reachable from summary -> summary"
        ],
    ),
    "two nodes wired only to each other": (
        [task("a"), task("b")],
        ["a:ok->b", "b:ok->a"],
        {},
        [
            "warning endless_cycle nodes[a]: these nodes loop forever: no end is reachable "
            "from a -> b -> a",
            "  nodes[b]: 'b' is part of the loop",
        ],
    ),
    "the loop's first node in the document names it, wherever the run enters": (
        [task("enter"), task("second"), task("first")],
        ["enter:ok->first", "first:ok->second", "second:ok->first"],
        {},
        [
            "warning endless_cycle nodes[second]: these nodes loop forever: no end is "
            "reachable from second -> first -> second",
            "  nodes[first]: 'first' is part of the loop",
        ],
    ),
    "a loop with more nodes than its shortest cycle: counted, and related": (
        [task("a"), task("b", node="branch"), task("c")],
        ["a:ok->b", "b:ok->a", "b:back->c", "c:ok->a"],
        {},
        [
            "warning endless_cycle nodes[a]: these nodes loop forever: no end is reachable "
            "from a -> b -> a (and 1 more node in the same loop)",
            "  nodes[b]: 'b' is part of the loop",
            "  nodes[c]: 'c' is part of the loop",
        ],
    ),
    "a loop that leads only into another endless loop: both reported": (
        [task("a", node="branch"), task("b")],
        ["a:ok->a", "a:back->b", "b:ok->b"],
        {},
        [
            "warning endless_cycle nodes[a]: these nodes loop forever: no end is reachable "
            "from a -> a",
            "warning endless_cycle nodes[b]: these nodes loop forever: no end is reachable "
            "from b -> b",
        ],
    ),
    "an interrupt whose every outcome leads back into the loop": (
        [task("draft"), interrupt("review", "changes", "approved")],
        ["draft:ok->review", "review:changes->draft", "review:approved->draft"],
        {},
        [
            "warning endless_cycle nodes[draft]: these nodes loop forever: no end is reachable "
            "from draft -> review -> draft",
            "  nodes[review]: 'review' is part of the loop",
        ],
    ),
    "an interrupt with one outcome out of the loop": (
        [task("draft"), interrupt("review", "changes", "approved")],
        ["draft:ok->review", "review:changes->draft", "review:approved->__end__"],
        {},
        [],
    ),
    "a condition's other outcome leaves the loop": (
        [task("work"), condition("again")],
        ["work:ok->again", "again:true->work", "again:false->__end__"],
        {},
        [],
    ),
    "an edge to __end__ leaves the loop": (
        [task("retry", node="branch")],
        ["retry:back->retry", "retry:ok->__end__"],
        {},
        [],
    ),
    "an end node leaves the loop": (
        [task("retry", node="branch"), end("stop")],
        ["retry:back->retry", "retry:ok->stop"],
        {},
        [],
    ),
    "a way out through a node outside the loop": (
        [task("a"), task("b", node="branch"), task("after")],
        ["a:ok->b", "b:ok->a", "b:back->after", "after:ok->__end__"],
        {},
        [],
    ),
    "a foreach body returning to its foreach, whose done edge leads on": (
        [foreach("loop", ITEMS), task("body"), task("after")],
        ["loop:loop->body", "body:ok->loop", "loop:done->after", "after:ok->__end__"],
        {},
        [],
    ),
    "a retry loop inside a foreach body that returns": (
        [foreach("loop", ITEMS), task("body", node="branch")],
        ["loop:loop->body", "body:back->body", "body:ok->loop", "loop:done->__end__"],
        {},
        [],
    ),
    "a foreach whose done edge comes back to it: the whole loop is endless": (
        [foreach("loop", ITEMS), task("body"), task("again")],
        ["loop:loop->body", "body:ok->loop", "loop:done->again", "again:ok->loop"],
        {},
        [
            "warning endless_cycle nodes[loop]: these nodes loop forever: no end is reachable "
            "from loop -> body -> loop (and 1 more node in the same loop)",
            "  nodes[body]: 'body' is part of the loop",
            "  nodes[again]: 'again' is part of the loop",
        ],
    ),
    "a body loop that never returns: the region error explains it": (
        [foreach("loop", ITEMS), task("body")],
        ["loop:loop->body", "body:ok->body", "loop:done->__end__"],
        {},
        [
            "error foreach_body_no_return nodes[loop]: foreach 'loop' body has no structural "
            "path back to its immediate owner"
        ],
    ),
    "a done edge wired back into the body: the region conflict explains it": (
        [foreach("loop", ITEMS), task("body")],
        ["loop:loop->body", "body:ok->loop", "loop:done->body"],
        {},
        [
            "error foreach_region_conflict nodes[body]: node 'body' is reachable under two "
            "foreach control regions"
        ],
    ),
    "an unreachable loop": (
        [task("main"), task("x"), task("y")],
        ["main:ok->__end__", "x:ok->y", "y:ok->x"],
        {},
        [
            "error unreachable_node nodes[x]: node 'x' is unreachable from start",
            "error unreachable_node nodes[y]: node 'y' is unreachable from start",
        ],
    ),
    "an unknown start": (
        [task("a")],
        ["a:ok->a"],
        {"start": "b"},
        ["error unknown_start start: unknown start node 'b'"],
    ),
    "the only way out is an edge to an unknown node": (
        [task("retry", node="branch")],
        ["retry:back->retry", "retry:ok->dne"],
        {},
        ["error unknown_edge_destination edges[1].to: unknown destination node 'dne'"],
    ),
    "the only way out is an outcome with no edge": (
        [task("retry", node="branch")],
        ["retry:back->retry"],
        {},
        [
            "error missing_outcome_edge nodes[retry]: reachable node is missing edges for "
            "outcomes ['ok']"
        ],
    ),
    "the only way out is an outcome the node does not declare": (
        [task("retry")],
        ["retry:ok->retry", "retry:stop->__end__"],
        {},
        [
            "error undeclared_edge_outcome edges[1].outcome: outcome 'stop' is not declared by "
            "node 'retry'"
        ],
    ),
    "a node whose node def is unknown": (
        [task("retry", node="nope")],
        ["retry:ok->retry"],
        {},
        ["error unknown_node_def nodes[0].node: unknown node def 'nope'"],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_endless_cycles(case: str) -> None:
    nodes, edges, extra, expected = CASES[case]
    assert described(validate_workflow(build(nodes, edges, **extra))) == expected


def test_a_long_loop_is_named_in_part_and_related_in_part() -> None:
    count = 3_000  # deeper than the recursion limit: the search must be iterative
    nodes = [task(f"n{i}") for i in range(count)]
    edges = [f"n{i}:ok->n{(i + 1) % count}" for i in range(count)]
    workflow = build(nodes, edges)
    (issue,) = endless_cycles(workflow, {d.name: d for d in workflow.node_defs})
    named = " -> ".join(f"n{i}" for i in range(MAX_NAMED - 1))
    assert issue.message == (
        "these nodes loop forever: no end is reachable from "
        f"{named} -> ... ({count - MAX_NAMED + 1} more) -> n0"
    )
    assert [r.model_path for r in issue.related] == [f"nodes[n{i}]" for i in range(1, 21)]
    assert len(issue.related) == MAX_RELATED


# -- through an editor's edits ----------------------------------------------------------

DRAFTS = """\
name = "article"
start = "draft"
outcomes = ["ok"]
edges = [
  { from = "draft", outcome = "ok", to = "review" },
  { from = "review", outcome = "changes", to = "draft" },
  { from = "review", outcome = "approved", to = "draft" },
]

[[node_defs]]
name = "write"
outcomes = ["ok"]
input_schema = { type = "object" }
output_schema = { type = "object" }

[[nodes]]
id = "draft"
type = "node"
node = "write"

[[nodes]]
id = "review"
type = "interrupt"
kind = "approval"
outcomes = ["changes", "approved"]
"""
ENDLESS = "these nodes loop forever: no end is reachable from draft -> review -> draft"


def test_the_warning_follows_edits_of_the_edges_both_ways() -> None:
    uri = "file:///w/article.wf.toml"
    store = DocumentStore()
    store.open(uri, DRAFTS, 1)
    versions = [
        (DRAFTS, [ENDLESS]),
        # A way out: the memo of the whole-graph findings must not hand out the warning.
        (DRAFTS.replace('"approved", to = "draft"', '"approved", to = "__end__"'), []),
        (DRAFTS, [ENDLESS]),
    ]
    for version, (text, expected) in enumerate(versions, start=1):
        if version > 1:
            store.replace(uri, text, version)
        snapshot = store.snapshot(uri)
        assert snapshot is not None
        assert [p.message for p in snapshot.issues if p.code == "endless_cycle"] == expected
        fresh = DocumentStore()
        fresh.open(uri, text, 1)
        again = fresh.snapshot(uri)
        assert again is not None
        assert [(p.code, p.message, p.span, p.related) for p in snapshot.issues] == [
            (p.code, p.message, p.span, p.related) for p in again.issues
        ]


def test_an_edit_that_leaves_the_graph_alone_keeps_the_very_warning() -> None:
    uri = "file:///w/article.wf.toml"
    store = DocumentStore()
    store.open(uri, DRAFTS, 1)
    before = store.snapshot(uri)
    assert before is not None
    (warning,) = (p for p in before.issues if p.code == "endless_cycle")
    store.replace(uri, DRAFTS.replace('kind = "approval"', 'kind = "approvals"'), 2)
    after = store.snapshot(uri)
    assert after is not None
    (kept,) = (p for p in after.issues if p.code == "endless_cycle")
    assert kept.issue is warning.issue


# -- the shared components function -----------------------------------------------------


def test_components_come_after_the_components_they_reach() -> None:
    graph = {"a": ["b"], "b": ["c", "a"], "c": ["d"], "d": ["c"], "e": ["a"]}
    components = strongly_connected_components(["a", "e"], graph.__getitem__)
    assert [sorted(c) for c in components] == [["c", "d"], ["a", "b"], ["e"]]
