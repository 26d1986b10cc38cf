"""The program-location-aware pass over ``context.*`` reads (lda-wf-model §7.6).

Each read is walked against the context schema of the node that consumes it;
workflow ``output`` reads the root context. Alias ownership is checked first,
over the stacks that actually occur. This pass also emits the
``deprecated_context_key`` hints, since only here is it known which loop a
convenience key stands for.
"""

from __future__ import annotations

from collections.abc import Collection

from wf_core.analysis.context_scopes import ContextModel
from wf_core.analysis.control_regions import ForeachOwnerStack
from wf_core.base.issues import Issue, IssueData, ProjectCode, Related, Severity
from wf_core.base.locations import Location, NodeRef
from wf_core.base.records import record
from wf_core.base.suggest import did_you_mean, dotted_run, joined
from wf_core.language.context_contracts import (
    FOREACH_CONTEXT_KEY,
    LOOP_INDEX_KEY,
    LOOP_ITEM_KEY,
    RESERVED_CONTEXT_KEYS,
    is_valid_alias,
)
from wf_core.language.paths import GraphSourcePath, format_segments
from wf_core.models.schema_nav import UnknownSegment
from wf_core.models.steps import AnyStep
from wf_core.models.workflow import Workflow, first_index_by_id
from wf_core.validation.memo import Findings, ValidationRuns
from wf_core.validation.reads import PathRead, binding_reads, node_reads
from wf_core.validation.report import ValidationIssueCode as Code
from wf_core.validation.report import ValidationReport

WORKFLOW_OUTPUT_ID = "workflow_output"


def validate_context_paths(
    workflow: Workflow,
    model: ContextModel,
    report: ValidationReport,
    extras: list[Issue],
    runs: ValidationRuns | None = None,
) -> None:
    """Reads in node order, then the workflow output's. A node's reads depend on the node,
    its index and the context model only, so ``runs`` may hand back their findings."""
    check_alias_ownership(workflow, model, report)
    walks = Walks(model)
    nodes = workflow.nodes

    def make(index: int) -> Findings:
        return node_context_findings(nodes[index], index, walks)

    found = (
        runs.get_all("context", len(nodes), make)
        if runs is not None
        else [make(index) for index in range(len(nodes))]
    )
    for errors, more in found:
        report.issues.extend(errors)
        extras.extend(more)
    for path, location in binding_reads(workflow.output, ("output",)):
        if path.root == "context":
            _check_read(PathRead("output", path, location, location, None), walks, report, extras)


def node_context_findings(node: AnyStep, index: int, walks: Walks) -> Findings:
    """The findings of one node's ``context.*`` reads: a function of the node, its index
    and the context model only."""
    found = ValidationReport()
    hints: list[Issue] = []
    for read in node_reads(node, index):
        if read.path.root == "context":
            _check_read(read, walks, found, hints)
    return tuple(found.issues), tuple(hints)


def check_alias_ownership(
    workflow: Workflow, model: ContextModel, report: ValidationReport
) -> None:
    """Each loop's alias against the reserved keys and the aliases of the loops active
    with it, over the stacks that occur; each owner reported once."""
    indexes: dict[str, int] = {}
    reported: set[str] = set()

    def location(owner: str) -> Location:
        if not indexes:  # made for the first conflict only: most workflows have none
            indexes.update(first_index_by_id(node.id for node in workflow.nodes))
        index = indexes.get(owner)
        return ("nodes", index, "as") if index is not None else ("nodes", NodeRef(owner))

    # Each stack once, in the order nodes first have it: the nodes of a body share one,
    # and a stack met again finds nothing it did not find the first time.
    for stack in dict.fromkeys(model.regions.owner_stack_by_node.values()):
        seen: dict[str, str] = {}
        for owner in stack:
            alias = model.alias_of(owner) or ""
            if not alias or alias in RESERVED_CONTEXT_KEYS:
                if owner not in reported:
                    reported.add(owner)
                    report.add(
                        Code.FOREACH_CONTEXT_ALIAS_CONFLICT,
                        location(owner),
                        f"foreach alias {alias!r} for node {owner!r} collides with reserved "
                        "context keys",
                    )
                continue
            outer = seen.get(alias)
            if outer is None:
                seen[alias] = owner
                continue
            if owner not in reported:
                reported.add(owner)
                report.add(
                    Code.FOREACH_CONTEXT_ALIAS_CONFLICT,
                    location(owner),
                    f"foreach alias {alias!r} for node {owner!r} collides with active alias from "
                    f"{outer!r}",
                    related=(
                        Related(
                            location(outer), f"alias {alias!r} of the enclosing foreach {outer!r}"
                        ),
                    ),
                    data={"alias": alias, "outer": outer, "taken": sorted(seen)},
                )


@record
class _Walk:
    """What one path finds in the context of one owner stack, whichever node reads it."""

    unknown: UnknownSegment | None
    not_an_array: bool  # read as a foreach source, it resolves to something else
    # A convenience key's hint: its message, and the structured path the key stands for.
    hint: tuple[str, str] | None


class Walks:
    """Each (stack, path, read kind)'s walk, made once per validation.

    The nodes of a loop body read the same few paths over and over (every task of
    a loop reads its item), and what a read finds depends on its stack, its path
    and whether it is a foreach source, never on the node: only the findings'
    messages and locations do.
    """

    def __init__(self, model: ContextModel) -> None:
        self.model = model
        self._walks: dict[tuple[ForeachOwnerStack | None, tuple[str, ...], bool], _Walk] = {}

    def of(self, stack: ForeachOwnerStack | None, path: GraphSourcePath, over: bool) -> _Walk:
        """``stack`` None: the workflow output's reads, of the root context."""
        key = (stack, path.parts, over)
        walk = self._walks.get(key)
        if walk is None:
            unknown = self.model.first_unknown(stack, path.parts)
            not_an_array = False
            if over and unknown is None:
                view = self.model.view_at(stack, path.parts)
                not_an_array = view is not None and not view.declares_array()
            structured = structured_replacement(path, stack or (), self.model)
            hint = None
            if structured is not None:
                replacement = str(structured)
                message = (
                    f"{format_segments(('context', path.parts[0]))!r} is a convenience key; "
                    f"read {replacement!r} instead"
                )
                hint = (message, replacement)
            walk = _Walk(unknown, not_an_array, hint)
            self._walks[key] = walk
        return walk


def _check_read(
    read: PathRead, walks: Walks, report: ValidationReport, extras: list[Issue]
) -> None:
    path = read.path
    model = walks.model
    node_id = read.node_id or WORKFLOW_OUTPUT_ID
    stack = None if read.node_id is None else model.stack_of(read.node_id)
    if stack is None and read.node_id is not None:
        report.add(
            Code.INVALID_CONTEXT_PATH,
            read.location,
            f"invalid context path {str(path)!r} at {node_id!r}: no context schema for this "
            "program location",
        )
        return
    walk = walks.of(stack, path, read.kind == "over")
    unknown = walk.unknown
    if unknown is not None:
        segment = path.parts[unknown.index]
        available = f" (available: {','.join(unknown.available)})" if unknown.available else ""
        related: tuple[Related, ...] = ()
        owner = model.nodes_by_id.get(segment)
        inactive_loop = getattr(owner, "type", None) == "foreach"
        if unknown.index == 1 and path.parts[0] == FOREACH_CONTEXT_KEY and inactive_loop:
            related = (
                Related(
                    ("nodes", NodeRef(segment)),
                    f"foreach {segment!r} is not active at {node_id!r}: its body does not "
                    "contain this node",
                ),
            )
        report.add(
            Code.INVALID_CONTEXT_PATH,
            read.location,
            f"invalid context path {str(path)!r} at {node_id!r}: unknown segment {segment!r}"
            f"{available}",
            segment=unknown.index + 1,
            related=related,
            **_unknown_segment_help(model, stack, path, unknown),
        )
        return
    if walk.not_an_array:
        report.add(
            Code.INVALID_FOREACH_SOURCE,
            read.location,
            f"foreach source {str(path)!r} must resolve to an array",
        )
    if walk.hint is not None:
        message, replacement = walk.hint
        extras.append(
            Issue(
                code=ProjectCode.DEPRECATED_CONTEXT_KEY,
                location=read.location,
                message=message,
                severity=Severity.HINT,
                segment=1,
                data={"replacement": replacement},
            )
        )


def _unknown_segment_help(
    model: ContextModel,
    stack: ForeachOwnerStack | None,
    path: GraphSourcePath,
    unknown: UnknownSegment,
) -> IssueData:
    """Issue extras for an unknown segment. A dotted name read without its quotes
    (``context.foreach.orders.v2.item`` for the loop ``orders.v2``) gets a help note
    saying so and, when the quoted path walks, ``data["replacement"]``, that path, and
    ``data["dotted"]``, the name, for the quick fix; any other name gets the closest
    declared one that fits."""
    parts = path.parts

    def names_at(prefix: tuple[str, ...]) -> Collection[str]:
        if len(prefix) == unknown.index:
            return unknown.available
        view = model.view_at(stack, prefix)
        return view.declared_names() if view is not None else ()

    def fits(candidate: tuple[str, ...]) -> bool:
        return model.first_unknown(stack, candidate) is None

    run = dotted_run(parts, unknown.index, names_at, fits)
    if run is None:
        return did_you_mean(
            parts[unknown.index],
            model.navigator_for_stack(stack).replacements(parts, unknown.index, unknown.available),
        )
    start, end = run
    quoted = joined(parts, start, end)
    written = str(GraphSourcePath(path.root, quoted))
    if start == 1 and parts[0] == FOREACH_CONTEXT_KEY:
        what = "the loop id"
    elif start == 0:
        what = "the alias"
    else:
        what = "the name"
    data: dict[str, object] = {
        "help": f"{what} {quoted[start]!r} contains a dot and must be quoted: write {written}"
    }
    if fits(quoted):
        data.update(replacement=written, dotted=quoted[start])
    return {"data": data}


def structured_replacement(
    path: GraphSourcePath, stack: tuple[str, ...], model: ContextModel
) -> GraphSourcePath | None:
    """The ``context.foreach.<owner>...`` path a convenience key stands for, if any."""
    if path.root != "context" or not path.parts or not stack:
        return None
    head, rest = path.parts[0], path.parts[1:]
    if head in (LOOP_ITEM_KEY, LOOP_INDEX_KEY):
        field = "item" if head == LOOP_ITEM_KEY else "index"
        return GraphSourcePath("context", (FOREACH_CONTEXT_KEY, stack[-1], field, *rest))
    for owner in reversed(stack):
        alias = model.alias_of(owner)
        if alias == head and is_valid_alias(alias):
            return GraphSourcePath("context", (FOREACH_CONTEXT_KEY, owner, "item", *rest))
    return None
