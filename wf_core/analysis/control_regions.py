"""Control regions: which foreach loops are active at every node (lda-wf-model §6).

A breadth-first search over ``(node, owner stack)`` states. A foreach's ``loop``
edge pushes the foreach onto the stack; an edge back to the top of the stack
returns an item and resumes the controller in its outer region. A node reached
with two different stacks is *conflicted* and gets no stack at all, so every
context read there fails closed.

Invariant: ``owner_stack_by_node`` holds exactly the nodes reached with one
unambiguous stack (reached ``EndNode``s included); nothing else reads a stack.
"""

from __future__ import annotations

from collections import deque
from dataclasses import field
from enum import StrEnum

from wf_core.base.locations import Location, NodeRef
from wf_core.base.records import record
from wf_core.language.tokens import END
from wf_core.models.steps import AnyStep
from wf_core.models.workflow import Edge, Workflow, nodes_by_id

ForeachOwnerStack = tuple[str, ...]
State = tuple[str, ForeachOwnerStack]


class ControlRegionIssueKind(StrEnum):
    UNREACHABLE_NODE = "unreachable_node"
    FOREACH_REGION_CONFLICT = "foreach_region_conflict"
    INVALID_FOREACH_RETURN = "invalid_foreach_return"
    INVALID_FOREACH_TERMINAL = "invalid_foreach_terminal"
    EMPTY_FOREACH_BODY = "empty_foreach_body"
    FOREACH_BODY_NO_RETURN = "foreach_body_no_return"


@record
class ControlRegionIssue:
    kind: ControlRegionIssueKind
    location: Location
    message: str


@record
class ControlRegionAnalysis:
    """The result of :func:`analyze_control_regions`.

    ``entry_edges`` records, for every node reached, the edge indexes (or None for
    ``start``) of the first way in under each stack it was reached with; editors
    use it to show the two ways into a conflicted node.
    """

    owner_stack_by_node: dict[str, ForeachOwnerStack]
    issues: tuple[ControlRegionIssue, ...]
    entry_edges: dict[str, dict[ForeachOwnerStack, int | None]] = field(default_factory=dict)
    conflicted: frozenset[str] = frozenset()


def _is_foreach(node: AnyStep) -> bool:
    return node.type == "foreach"


def analyze_control_regions(workflow: Workflow) -> ControlRegionAnalysis:
    named: dict[str, AnyStep] = nodes_by_id(workflow.nodes)
    if workflow.start not in named:
        return ControlRegionAnalysis({}, ())

    edges_by_source: dict[str, list[tuple[int, Edge]]] = {}
    for index, edge in enumerate(workflow.edges):
        edges_by_source.setdefault(edge.from_, []).append((index, edge))

    owner_stack: dict[str, ForeachOwnerStack] = {}
    conflicted: set[str] = set()
    ambiguous: set[str] = set()
    visited_nodes: set[str] = set()
    visited_states: set[State] = set()
    adjacency: dict[State, list[State]] = {}
    returns_by_owner: dict[str, set[State]] = {}
    entry_edges: dict[str, dict[ForeachOwnerStack, int | None]] = {}
    traversal_issues: list[ControlRegionIssue] = []

    def report(kind: ControlRegionIssueKind, location: Location, message: str) -> None:
        traversal_issues.append(ControlRegionIssue(kind, location, message))

    def mark_top_ambiguous(stack: ForeachOwnerStack) -> None:
        if stack:
            ambiguous.add(stack[-1])

    def record(node_id: str, stack: ForeachOwnerStack, via: int | None) -> bool:
        """Record a stack for a node; False when the node is (now) conflicted."""
        ways_in = entry_edges.get(node_id)
        if ways_in is None:
            entry_edges[node_id] = {stack: via}
        else:
            ways_in.setdefault(stack, via)
        if node_id in conflicted:
            return False
        known = owner_stack.get(node_id)
        if known is None:
            owner_stack[node_id] = stack
            return True
        if known == stack:
            return True
        del owner_stack[node_id]
        conflicted.add(node_id)
        report(
            ControlRegionIssueKind.FOREACH_REGION_CONFLICT,
            ("nodes", NodeRef(node_id)),
            f"node {node_id!r} is reachable under two foreach control regions",
        )
        mark_top_ambiguous(known)
        mark_top_ambiguous(stack)
        return False

    queue: deque[tuple[State, int | None]] = deque([((workflow.start, ()), None)])
    while queue:
        state, via = queue.popleft()
        if state in visited_states:
            continue
        node_id, stack = state
        node = named.get(node_id)
        if node is None:
            continue
        visited_states.add(state)
        visited_nodes.add(node_id)
        if not record(node_id, stack, via):
            continue
        successors = adjacency.setdefault(state, [])
        controls = _is_foreach(node)
        for index, edge in edges_by_source.get(node_id, ()):
            target = edge.to
            if controls and edge.outcome == "loop":
                if target == node_id:
                    report(
                        ControlRegionIssueKind.EMPTY_FOREACH_BODY,
                        ("edges", index),
                        f"foreach {node_id!r} loop targets itself; an iteration body needs a "
                        "distinct node use",
                    )
                    mark_top_ambiguous(stack)
                    continue
                target_stack = (*stack, node_id)
            else:
                target_stack = stack
            target_node = named.get(target)
            if target_node is None and target != END:
                continue
            if target == END or (target_node is not None and target_node.type == "end"):
                if target_node is not None:
                    visited_nodes.add(target)
                    visited_states.add((target, target_stack))
                    record(target, target_stack, index)
                if target_stack:
                    report(
                        ControlRegionIssueKind.INVALID_FOREACH_TERMINAL,
                        ("edges", index),
                        f"foreach item path {node_id!r} -> {target!r} targets a workflow "
                        "terminal from inside a foreach body",
                    )
                    mark_top_ambiguous(target_stack)
                continue
            if target_stack and target == target_stack[-1]:
                returns_by_owner.setdefault(target, set()).add(state)
                resumed: State = (target, target_stack[:-1])
                successors.append(resumed)
                queue.append((resumed, index))
                continue
            if target in target_stack:
                report(
                    ControlRegionIssueKind.INVALID_FOREACH_RETURN,
                    ("edges", index),
                    f"edge {node_id!r} -> {target!r} skips the immediate foreach owner",
                )
                mark_top_ambiguous(target_stack)
                continue
            successor: State = (target, target_stack)
            successors.append(successor)
            queue.append((successor, index))

    unreachable = [
        ControlRegionIssue(
            ControlRegionIssueKind.UNREACHABLE_NODE,
            ("nodes", NodeRef(node.id)),
            f"node {node.id!r} is unreachable from start",
        )
        for node in workflow.nodes
        if node.id not in visited_nodes
    ]

    failing = _tops_without_return(
        visited_states, adjacency, returns_by_owner, conflicted, ambiguous
    )
    no_return = [
        ControlRegionIssue(
            ControlRegionIssueKind.FOREACH_BODY_NO_RETURN,
            ("nodes", NodeRef(top)),
            f"foreach {top!r} body has no structural path back to its immediate owner",
        )
        for top in sorted(failing)
        if top not in conflicted and top in visited_nodes
    ]
    return ControlRegionAnalysis(
        owner_stack,
        (*traversal_issues, *unreachable, *no_return),
        entry_edges,
        frozenset(conflicted),
    )


def _tops_without_return(
    visited_states: set[State],
    adjacency: dict[State, list[State]],
    returns_by_owner: dict[str, set[State]],
    conflicted: set[str],
    ambiguous: set[str],
) -> set[str]:
    """Owners with a body state from which no path reaches a return to that owner.

    One possible path is enough: termination is not this analysis's business.
    Walking backwards from each owner's return states once finds every state
    that can return, which keeps this linear per owner instead of one forward
    search per body state.
    """
    reverse: dict[State, list[State]] = {}
    for source, successors in adjacency.items():
        for successor in successors:
            reverse.setdefault(successor, []).append(source)
    can_return: dict[str, set[State]] = {}

    def states_returning_to(top: str) -> set[State]:
        found = can_return.get(top)
        if found is None:
            found = set(returns_by_owner.get(top, ()))
            # Where ``top`` sits in the stacks of its body: checking that slot first
            # keeps the region test O(1) under deep nesting (1,000 nested loops made
            # the scan of every stack quadratic); the scan stays as the fallback.
            slot = next((s[1].index(top) for s in found if top in s[1]), 0)
            frontier = deque(found)
            while frontier:
                for source in reverse.get(frontier.popleft(), ()):
                    # A body path that returns never leaves the owner's region, so
                    # states outside it cannot matter (and are not walked).
                    stack = source[1]
                    inside = (len(stack) > slot and stack[slot] == top) or top in stack
                    if source not in found and inside:
                        found.add(source)
                        frontier.append(source)
            can_return[top] = found
        return found

    failing: set[str] = set()
    for state in visited_states:
        node_id, stack = state
        if not stack or node_id in conflicted:
            continue
        top = stack[-1]
        if top in ambiguous or top in failing:
            continue
        # (the memo read here: every state of a body asks about the same owner)
        returning = can_return.get(top)
        if returning is None:
            returning = states_returning_to(top)
        if state not in returning:
            failing.add(top)
    return failing
