"""``endless_cycle``: loops of the node graph that no run can ever leave.

lda-wf accepts any cycle ("termination is not checked"), and most cycles are
meant: a retry, a review that goes round until approved, a foreach's body
returning to its foreach. A cycle from which no end is reachable at all is a
different matter: once a run enters it, the run can never finish. This module
reports each such cycle once, as a warning.

What counts, over the nodes reachable from ``start`` and the edges out of them
(a foreach's ``loop`` edge and its body's edge back are edges like any other, so
a body that returns to a foreach whose ``done`` edge leads on is left, through
``done``):

- a *cycle* is a strongly connected component of that graph with at least one
  edge inside it (two nodes or more, or a node with an edge to itself);
- a node *leads out* when it is an ``end`` node or has an edge to ``__end__``;
- a node whose wiring has an error also leads out: an edge to an unknown node,
  a declared outcome with no edge, an edge for an outcome the node does not
  declare (which includes every edge of a node whose node def is unknown), or an
  id that two nodes share. The run would stop there with an error rather than go
  round forever, and the error already says what is wrong; a cycle whose only
  way out is one of these is not reported, so a typo in an edge does not also
  show as an endless loop;
- a cycle is *endless* when no node of it leads out and no node it reaches does.

An ``interrupt`` in the cycle does not change this. The person who answers it can
only resume it with one of its declared outcomes, and every one of them is wired
back into the cycle: the run pauses each time round, but can never finish.

The control-region analysis (``wf_core.analysis.control_regions``) has the last
word on cycles that involve foreach loops. A cycle is reported only when that analysis places every
node of it (one owner stack each) and at least one of them in the workflow's
top-level region:

- a cycle wholly inside foreach bodies never returns to the foreach that owns
  it, and the analysis reports that as an error (``foreach_body_no_return``, or
  a region conflict or an invalid return met on the way);
- a cycle with a node the analysis cannot place (reachable under two foreach
  regions, or cut off behind an invalid return) is not reported while that
  error stands: such a loop usually comes from the very edges the error is about
  (a ``done`` edge wired back into the body, say), and which region its nodes
  belong to is unknown until they are fixed. The cycle is reported then if it
  still has no way out.

The analysis runs here only when there is an endless cycle and the workflow has
a foreach at all.

Unreachable cycles are left to ``unreachable_node``, and with an unknown ``start``
nothing is reachable, so nothing is reported.

Time is linear in the size of the graph: a search forwards from ``start`` and one
backwards from the nodes that lead out, which settle most workflows; Tarjan's
algorithm (``strongly_connected_components``) only over the nodes neither search
settles; and one breadth-first search inside each endless cycle for the message.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence

from wf_core.analysis.components import strongly_connected_components
from wf_core.analysis.control_regions import analyze_control_regions
from wf_core.base.issues import Issue, ProjectCode, Related, Severity
from wf_core.base.locations import NodeRef
from wf_core.models.schemas import NodeDef
from wf_core.models.steps import declared_outcomes
from wf_core.models.workflow import Workflow

Successors = Callable[[str], Sequence[str]]

MAX_NAMED = 12
"""Node ids a message names at most; the rest of a longer cycle is counted."""
MAX_RELATED = 20
"""Related entries at most: one per other node of the cycle, first the ones named."""


def endless_cycles(workflow: Workflow, node_defs: Mapping[str, NodeDef]) -> list[Issue]:
    """One ``endless_cycle`` warning per endless cycle (see the module's docstring), in
    the document order of the cycles' first nodes.

    Most workflows have none, and that is found first and cheaply: every node reachable
    from ``start`` is also reachable backwards from a node that leads out. Only the
    nodes that are not (the *stuck* ones) are looked at further: every node of an
    endless cycle is stuck, and every cycle through a stuck node consists of stuck
    nodes, so the endless cycles are the cycles of the graph of the stuck nodes."""
    position: dict[str, int] = {}
    leads_out: set[str] = set()
    for index, node in enumerate(workflow.nodes):
        node_id = node.id
        if node_id in position:
            leads_out.add(node_id)  # duplicate_node_id
        else:
            position[node_id] = index
            if node.type == "end":
                leads_out.add(node_id)
    if workflow.start not in position:
        return []
    successors: dict[str, list[str]] = {}
    predecessors: dict[str, list[str]] = {}
    for edge in workflow.edges:
        source, target = edge.from_, edge.to
        if source not in position:
            continue
        if target in position:
            successors.setdefault(source, []).append(target)
            predecessors.setdefault(target, []).append(source)
        else:
            leads_out.add(source)  # __end__, or an unknown destination
    reached = _closure([workflow.start], successors)
    ending = _closure(leads_out, predecessors)
    stuck = {n for n in reached if n not in ending}
    if stuck:
        faulty = _faulty_wiring(workflow, node_defs, stuck, position)
        stuck -= _closure(faulty, predecessors, stuck)

    def out_of(node_id: str) -> Sequence[str]:
        return successors.get(node_id, ())

    endless = [
        sorted(component, key=position.__getitem__)
        for component in strongly_connected_components(
            sorted(stuck, key=position.__getitem__),
            lambda node_id: [n for n in out_of(node_id) if n in stuck],
        )
        if len(component) > 1 or component[0] in out_of(component[0])
    ]
    endless = _unexplained(workflow, endless)
    endless.sort(key=lambda members: position[members[0]])
    return [_finding(members, out_of) for members in endless]


def _closure(
    sources: Iterable[str], graph: Mapping[str, Sequence[str]], within: set[str] | None = None
) -> set[str]:
    """``sources`` and every node reachable from them along ``graph`` (only through
    nodes of ``within``, when given)."""
    found = set(sources)
    pending = list(found)
    while pending:
        for target in graph.get(pending.pop(), ()):
            if target not in found and (within is None or target in within):
                found.add(target)
                pending.append(target)
    return found


def _faulty_wiring(
    workflow: Workflow,
    node_defs: Mapping[str, NodeDef],
    among: set[str],
    position: Mapping[str, int],
) -> list[str]:
    """The nodes of ``among`` whose outgoing edges are not exactly their declared
    outcomes: a declared outcome without an edge (``missing_outcome_edge``), or an edge
    for an outcome the node does not declare (``undeclared_edge_outcome``)."""
    wired: dict[str, set[str]] = {}
    for edge in workflow.edges:
        if edge.from_ in among:
            wired.setdefault(edge.from_, set()).add(edge.outcome)
    nodes = workflow.nodes
    return [
        node_id
        for node_id in among
        if declared_outcomes(nodes[position[node_id]], node_defs) != wired.get(node_id, set())
    ]


def _unexplained(workflow: Workflow, cycles: list[list[str]]) -> list[list[str]]:
    """The cycles no control-region error explains: each node placed in one region, one
    of them in the top-level region (see the module's docstring)."""
    if not cycles or not any(node.type == "foreach" for node in workflow.nodes):
        return cycles  # no foreach: every reachable node is in the top-level region
    stacks = analyze_control_regions(workflow).owner_stack_by_node
    return [
        members
        for members in cycles
        if all(n in stacks for n in members) and any(stacks[n] == () for n in members)
    ]


def _finding(members: Sequence[str], out_of: Successors) -> Issue:
    """The warning for one endless cycle, on its first node in document order."""
    first = members[0]
    path = _cycle_through(first, set(members), out_of)
    named = path if len(path) <= MAX_NAMED else path[: MAX_NAMED - 1]
    text = " -> ".join(named)
    if len(named) < len(path):
        text += f" -> ... ({len(path) - len(named)} more)"
    message = f"these nodes loop forever: no end is reachable from {text} -> {first}"
    on_path = set(path)
    others = [n for n in members if n not in on_path]
    if others:
        more = "node" if len(others) == 1 else "nodes"
        message += f" (and {len(others)} more {more} in the same loop)"
    related = tuple(
        Related(("nodes", NodeRef(node_id)), f"{node_id!r} is part of the loop")
        for node_id in [*path[1:], *others][:MAX_RELATED]
    )
    return Issue(
        code=str(ProjectCode.ENDLESS_CYCLE),
        location=("nodes", NodeRef(first)),
        message=message,
        severity=Severity.WARNING,
        related=related,
    )


def _cycle_through(first: str, members: set[str], out_of: Successors) -> list[str]:
    """A shortest cycle from ``first`` back to it inside ``members``, without the final
    return to ``first``: ``[first]`` for a node with an edge to itself."""
    parent: dict[str, str] = {}
    queue = deque([first])
    while queue:
        node = queue.popleft()
        for target in out_of(node):
            if target == first:
                path = [node]
                while path[-1] != first:
                    path.append(parent[path[-1]])
                return path[::-1]
            if target in members and target not in parent:
                parent[target] = node
                queue.append(target)
    return [first]  # not reached for a cycle: ``first`` is on one
