"""One mistake, one error: findings that only follow from another become information.

lda-wf reports every check that fails, so one typo can produce many errors: an
unknown ``start`` leaves every node without a context schema, an unknown node
def declares no outcomes, an edge into a loop body from outside makes its
target reachable under two owner stacks and everything behind it follows. The
codes and messages stay lda-wf's; what changes here is the severity of the
follow-on findings (``information``) and the ``related`` entry that points at
their cause, so the number of errors is the number of mistakes.

Invariant: only findings whose cause is itself reported are demoted, and the
cause keeps its severity; an issue is never dropped here.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from wf_core.analysis.control_regions import ControlRegionAnalysis
from wf_core.base.issues import Issue, ProjectCode, Related, Severity
from wf_core.base.locations import Location, NodeRef
from wf_core.language.tokens import END
from wf_core.models.schemas import NodeDef
from wf_core.models.steps import AnyStep, NodeUse
from wf_core.models.workflow import Workflow, first_index_by_id
from wf_core.validation.report import ValidationIssueCode as Code

NO_CONTEXT_SCHEMA = "no context schema for this program location"
MAX_OWNERS_FOR_BODIES = 64
"""Region bodies are walked per owner involved in a conflict; past this many, the
edges that break regions are not singled out (the conflicts themselves still are)."""


def _consequence(issue: Issue, cause: Location, why: str) -> Issue:
    return replace(
        issue, severity=Severity.INFORMATION, related=(*issue.related, Related(cause, why))
    )


def _successors(workflow: Workflow) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for edge in workflow.edges:
        if edge.to != END:
            out.setdefault(edge.from_, []).append(edge.to)
    return out


def _reach(sources: Iterable[str], successors: Mapping[str, list[str]]) -> dict[str, str]:
    """Every node reachable from ``sources`` (sources excluded unless re-entered), each
    labelled with the first source that reaches it in breadth-first order."""
    label: dict[str, str] = {}
    queue: deque[tuple[str, str]] = deque((s, s) for s in sources)
    while queue:
        node, source = queue.popleft()
        for target in successors.get(node, ()):
            if target not in label:
                label[target] = source
                queue.append((target, source))
    return label


def _body(owner: str, workflow: Workflow, successors: Mapping[str, list[str]]) -> set[str]:
    """The nodes on some way from ``owner``'s ``loop`` edge back to ``owner``."""
    forward: set[str] = set()
    queue = deque(e.to for e in workflow.edges if e.from_ == owner and e.outcome == "loop")
    while queue:
        node = queue.popleft()
        if node in (owner, END) or node in forward:
            continue
        forward.add(node)
        queue.extend(successors.get(node, ()))
    predecessors: dict[str, list[str]] = {}
    for edge in workflow.edges:
        if edge.from_ in forward:
            predecessors.setdefault(edge.to, []).append(edge.from_)
    body: set[str] = set()
    queue = deque(predecessors.get(owner, ()))
    while queue:
        node = queue.popleft()
        if node in body:
            continue
        body.add(node)
        queue.extend(predecessors.get(node, ()))
    return body


def region_breaking_edges(
    workflow: Workflow, regions: ControlRegionAnalysis, successors: Mapping[str, list[str]]
) -> list[tuple[int, str, str]]:
    """``(edge index, conflicted target, explanation)`` for each edge that enters a loop
    body from outside it, or leaves one without returning, into a conflicted node."""
    owners: dict[str, None] = {}
    for node_id in regions.conflicted:
        for stack in regions.entry_edges.get(node_id, {}):
            owners.update(dict.fromkeys(stack))
    if not owners or len(owners) > MAX_OWNERS_FOR_BODIES:
        return []
    # Innermost loops first: their bodies are the smallest, and the explanation
    # should name the loop the edge really breaks into.
    bodies = dict(
        sorted(
            ((owner, _body(owner, workflow, successors)) for owner in owners),
            key=lambda item: len(item[1]),
        )
    )
    found: list[tuple[int, str, str]] = []
    for index, edge in enumerate(workflow.edges):
        source, target = edge.from_, edge.to
        if target not in regions.conflicted:
            continue
        for owner, body in bodies.items():
            if target in body and source not in body:
                if source == owner and edge.outcome == "loop":
                    continue
                found.append(
                    (
                        index,
                        target,
                        f"this edge enters the body of foreach {owner!r} from outside it",
                    )
                )
                break
            if source in body and target not in body and target != owner:
                found.append(
                    (
                        index,
                        target,
                        f"this edge leaves the body of foreach {owner!r} without returning to it",
                    )
                )
                break
    return found


def relate_consequences(
    workflow: Workflow,
    regions: ControlRegionAnalysis,
    node_defs: Mapping[str, NodeDef],
    issues: Sequence[Issue],
) -> list[Issue]:
    """``issues`` with follow-on findings demoted and tied to their cause, plus an
    ``information`` finding on each edge that breaks a loop region."""
    node_ids = {node.id for node in workflow.nodes}
    start_known = workflow.start in node_ids
    unknown_defs = {
        node_id: index
        for node_id, index in first_index_by_id(node.id for node in workflow.nodes).items()
        if _uses_unknown_def(workflow.nodes[index], node_defs)
    }
    conflicted = regions.conflicted
    successors = _successors(workflow) if start_known and (conflicted or regions.issues) else {}

    # Conflicts that follow from another conflict, and the edges behind the first ones.
    secondary: dict[str, str] = {}
    breaking: list[tuple[int, str, str]] = []
    if conflicted:
        breaking = region_breaking_edges(workflow, regions, successors)
        primary = [target for _, target, _ in breaking]
        if not primary:
            reached_from_other = {
                n for c in conflicted for n, src in _reach([c], successors).items() if src != n
            }
            ordered = [
                i.location[1].id
                for i in regions.issues
                if i.kind.value == Code.FOREACH_REGION_CONFLICT
                and isinstance(i.location[1], NodeRef)
            ]
            primary = [n for n in ordered if n not in reached_from_other] or ordered[:1]
        for node, source in _reach(dict.fromkeys(primary), successors).items():
            if node in conflicted and node not in primary:
                secondary[node] = source

    # Nodes cut off only because the traversal stopped at a conflict or a bad edge.
    cut_off: dict[str, Location] = {}
    plainly: set[str] = set()
    if start_known and regions.issues:
        plainly = set(_reach([workflow.start], successors)) | {workflow.start}
        for node, source in _reach(sorted(conflicted), successors).items():
            if node not in conflicted:
                cut_off.setdefault(node, ("nodes", NodeRef(source)))

    out: list[Issue] = []
    for issue in issues:
        location = issue.location or ()
        code = issue.code
        if code == Code.INVALID_CONTEXT_PATH and issue.message.endswith(NO_CONTEXT_SCHEMA):
            node_id = _reading_node(workflow, location)
            if not start_known:
                issue = _consequence(
                    issue, ("start",), "the start node is unknown, so no node has a context"
                )
            elif node_id in conflicted:
                issue = _consequence(
                    issue,
                    ("nodes", NodeRef(node_id)),
                    f"{node_id!r} is reachable under two foreach control regions",
                )
            elif node_id is not None and node_id in node_ids:
                issue = _consequence(
                    issue, ("nodes", NodeRef(node_id)), f"{node_id!r} is unreachable from start"
                )
        elif code == Code.UNDECLARED_EDGE_OUTCOME and len(location) >= 2:
            edge = workflow.edges[location[1]] if isinstance(location[1], int) else None
            index = unknown_defs.get(edge.from_) if edge is not None else None
            if index is not None and edge is not None:
                issue = _consequence(
                    issue,
                    ("nodes", index, "node"),
                    f"node {edge.from_!r} uses an unknown node def, so it declares no outcomes",
                )
        elif (
            code == Code.FOREACH_REGION_CONFLICT
            and len(location) == 2
            and isinstance(location[1], NodeRef)
        ):
            node_id = location[1].id
            if node_id in secondary:
                issue = _consequence(
                    issue,
                    ("nodes", NodeRef(secondary[node_id])),
                    f"{node_id!r} is reached through {secondary[node_id]!r}, which is reachable "
                    "under two foreach control regions",
                )
            else:
                marks = tuple(
                    Related(("edges", index), why)
                    for index, target, why in breaking
                    if target == node_id
                )
                issue = replace(issue, related=(*marks, *issue.related))
        elif (
            code == Code.UNREACHABLE_NODE
            and len(location) == 2
            and isinstance(location[1], NodeRef)
            and location[1].id in plainly
        ):
            cause = cut_off.get(location[1].id)
            if cause is not None:
                issue = _consequence(
                    issue, cause, "reached only through a node with two foreach control regions"
                )
        out.append(issue)
    for index, target, why in breaking:
        out.append(
            Issue(
                code=ProjectCode.REGION_BREAKING_EDGE,
                location=("edges", index),
                message=f"{why}, so {target!r} is reachable under two foreach control regions",
                severity=Severity.INFORMATION,
                related=(Related(("nodes", NodeRef(target)), "the node reached both ways"),),
                data={"breaks_region": target},
            )
        )
    return out


def _uses_unknown_def(node: AnyStep, node_defs: Mapping[str, NodeDef]) -> bool:
    return isinstance(node, NodeUse) and node.node not in node_defs


def _reading_node(workflow: Workflow, location: Location) -> str | None:
    """The id of the node whose read sits at ``location`` (model indexes)."""
    if (
        len(location) >= 2
        and location[0] == "nodes"
        and isinstance(location[1], int)
        and location[1] < len(workflow.nodes)
    ):
        return workflow.nodes[location[1]].id
    return None
