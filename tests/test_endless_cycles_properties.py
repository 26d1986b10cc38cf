"""``endless_cycle`` against a brute-force definition, over generated graphs.

The definition: a node reachable from ``start`` that is on a cycle and from which no
``end`` node and no edge to ``__end__`` can be reached loops forever; the nodes that
reach each other among those form one loop, reported once.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise
from typing import Any

from builders import build, foreach, task
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wf_core.base.issues import Issue, Severity
from wf_core.base.locations import NodeRef
from wf_core.validation.core import validate_workflow

OUTCOMES = {
    "task": ["ok"],
    "branch": ["ok", "back"],
    "condition": ["true", "false"],
    "interrupt": ["x", "y"],
    "end": [],
    "foreach": ["loop", "done"],
}
PLAIN = ["task", "branch", "condition", "interrupt", "end"]
Edge = tuple[str, str, str]
Graph = tuple[list[tuple[str, str]], list[Edge], str]


def node(node_id: str, kind: str) -> dict[str, Any]:
    if kind == "task":
        return task(node_id)
    if kind == "branch":
        return task(node_id, node="branch")
    if kind == "condition":
        return {"id": node_id, "type": "condition", "check": {"op": "exists", "path": "input.x"}}
    if kind == "interrupt":
        return {"id": node_id, "type": "interrupt", "kind": "k", "outcomes": OUTCOMES[kind]}
    if kind == "foreach":
        return foreach(node_id, "input.items")
    return {"id": node_id, "type": "end"}


@st.composite
def graphs(draw: st.DrawFn, kinds: list[str], mistakes: bool) -> Graph:
    """Up to seven nodes with every declared outcome wired to a node or ``__end__``;
    with ``mistakes``, also missing edges, unknown targets and undeclared outcomes."""
    count = draw(st.integers(min_value=1, max_value=7))
    ids = [f"n{i}" for i in range(count)]
    nodes = [(node_id, draw(st.sampled_from(kinds))) for node_id in ids]
    targets = st.sampled_from([*ids, "__end__", *(["nowhere"] if mistakes else [])])
    edges: list[Edge] = []
    for node_id, kind in nodes:
        for outcome in OUTCOMES[kind]:
            if mistakes and draw(st.integers(min_value=0, max_value=9)) == 0:
                continue
            edges.append((node_id, outcome, draw(targets)))
    if mistakes and draw(st.booleans()):
        edges.append((draw(st.sampled_from(ids)), "undeclared", draw(targets)))
    return nodes, edges, draw(st.sampled_from(ids))


def endless_loops(graph: Graph) -> set[frozenset[str]]:
    """The brute-force definition, one search per node."""
    nodes, edges, start = graph
    kinds = dict(nodes)
    successors = {n: [t for f, _, t in edges if f == n and t in kinds] for n in kinds}
    ends = {n for n in kinds if kinds[n] == "end"} | {f for f, _, t in edges if t == "__end__"}

    def after(source: str) -> set[str]:
        """The nodes one edge or more away from ``source``."""
        seen: set[str] = set()
        stack = list(successors[source])
        while stack:
            current = stack.pop()
            if current not in seen:
                seen.add(current)
                stack.extend(successors[current])
        return seen

    reached = {start} | after(start)
    endless = {n for n in reached if n in after(n) and not ({n} | after(n)) & ends}
    return {frozenset(m for m in endless if m in after(n) and n in after(m)) for n in endless}


def workflow_of(graph: Graph) -> Any:
    nodes, edges, start = graph
    return build(
        [node(n, kind) for n, kind in nodes],
        [f"{f}:{o}->{t}" for f, o, t in edges],
        start=start,
        input_schema={
            "type": "object",
            "properties": {"x": {}, "items": {"type": "array", "items": {}}},
        },
    )


def reported(issues: Iterable[Issue]) -> dict[frozenset[str], Issue]:
    """Each endless-cycle warning by the nodes it names: its own and the related ones."""
    out = {}
    for issue in issues:
        if issue.code == "endless_cycle":
            assert issue.severity == Severity.WARNING and issue.location is not None
            ids = [issue.location[1], *(r.location[1] for r in issue.related if r.location)]
            assert all(isinstance(i, NodeRef) for i in ids)
            loop = frozenset(i.id for i in ids if isinstance(i, NodeRef))
            assert loop not in out, "a loop is reported once"
            out[loop] = issue
    return out


def assert_names_a_cycle(issue: Issue, graph: Graph) -> None:
    """The message's cycle starts and ends at the loop's first node in the document, and
    each step is an edge."""
    _, edges, _ = graph
    text = issue.message.removeprefix("these nodes loop forever: no end is reachable from ")
    steps = text.split(" (and ")[0].split(" -> ")
    assert issue.location == ("nodes", NodeRef(steps[0])) and steps[0] == steps[-1]
    wired = {(f, t) for f, _, t in edges}
    assert all((a, b) in wired for a, b in pairwise(steps))


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(graphs(PLAIN, mistakes=False))
def test_every_endless_loop_is_reported_once_and_nothing_else(graph: Graph) -> None:
    issues = validate_workflow(workflow_of(graph)).issues
    found = reported(issues)
    assert set(found) == endless_loops(graph)
    order = [n for n, _ in graph[0]]
    for loop, issue in found.items():
        assert_names_a_cycle(issue, graph)
        assert issue.location == ("nodes", NodeRef(min(loop, key=order.index)))


@SETTINGS
@given(graphs([*PLAIN, "foreach"], mistakes=True))
def test_a_loop_left_unreported_has_an_error_that_explains_it(graph: Graph) -> None:
    issues = validate_workflow(workflow_of(graph)).issues
    found = reported(issues)
    loops = endless_loops(graph)
    assert set(found) <= loops, "only loops that really cannot end are reported"
    for issue in found.values():
        assert_names_a_cycle(issue, graph)
    if loops - set(found):
        assert any(issue.severity == Severity.ERROR for issue in issues)
