"""``validate_workflow``: lda-wf's checks in lda-wf's order, then this project's help.

lda-wf-model §5.3 fixes the order; §5.4 the locations and messages. Every
lda-wf code is an error. The additions of workflow-format.md ("Decisions")
come after them: full-depth ``input.*``/``state.*`` walks, non-array ``over``
for every root, resume targets, ``undeclared_property`` warnings and
``deprecated_context_key`` hints.

Locations use model indexes (``nodes[i]`` is ``workflow.nodes[i]``); the
document layer maps them back to the text.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence

from wf_core.analysis.context_scopes import ContextModel
from wf_core.analysis.control_regions import (
    ControlRegionAnalysis,
    ControlRegionIssue,
    analyze_control_regions,
)
from wf_core.base.derived import Derivations
from wf_core.base.issues import Issue, Related
from wf_core.base.locations import Location, NodeRef
from wf_core.base.suggest import did_you_mean
from wf_core.documents.source_map import ElementKey
from wf_core.language.paths import StatePath, has_overlapping_paths
from wf_core.language.tokens import END
from wf_core.models.conditions import Condition, NotCondition, VariadicCondition
from wf_core.models.schemas import NodeDef, SchemaRef
from wf_core.models.steps import (
    AnyStep,
    ConditionNode,
    ForeachNode,
    InterruptNode,
    NodeUse,
    SubgraphNode,
    declared_outcomes,
)
from wf_core.models.workflow import Workflow, first_index_by_id, nodes_by_id
from wf_core.validation.consequences import relate_consequences
from wf_core.validation.context_paths import validate_context_paths
from wf_core.validation.cycles import endless_cycles
from wf_core.validation.memo import Findings, ValidationRuns
from wf_core.validation.reads import binding_reads, node_reads
from wf_core.validation.report import ValidationIssueCode as Code
from wf_core.validation.report import ValidationReport
from wf_core.validation.source_paths import SourceChecker
from wf_core.validation.subgraphs import declares_schema, undeclared_field

_SOURCE_MESSAGE = (
    "source path must start with input., state., or context. and reference a declared root "
    "field when applicable"
)
_FOREACH_SOURCE_MESSAGE = (
    "foreach source path must start with input., state., or context. and reference a declared "
    "root field when applicable"
)
_INTERRUPT_SOURCE_MESSAGE = (
    "interrupt request source must start with input., state., or context. and reference a "
    "declared root field when applicable"
)


def validate_workflow(
    workflow: Workflow,
    *,
    context: ContextModel | None = None,
    derived: Derivations | None = None,
    node_keys: Sequence[ElementKey | None] = (),
) -> ValidationReport:
    """With ``derived`` (what the document's last validation derived) and the content
    keys of the model's nodes (``node_keys[i]`` of ``workflow.nodes[i]``), an edit
    re-checks only the nodes it touched; the report is the same with or without them."""
    report = ValidationReport()
    regions = context.regions if context is not None else analyze_control_regions(workflow)
    model = context or ContextModel(workflow, regions)
    sources = SourceChecker(model)
    runs = ValidationRuns(derived, node_keys, model, workflow.node_defs, workflow.outcomes)
    node_defs = _collect_node_defs(workflow, report)
    # The whole-graph checks come after the nodes' in the report.
    graph = runs.graph(workflow, node_defs, lambda: graph_findings(workflow, node_defs))

    _validate_workflow_output(workflow, model, sources, report)
    extras = sources.drain_extras()
    _validate_nodes(workflow, node_defs, model, sources, report, extras, runs)
    report.issues.extend(graph)
    for issue in regions.issues:
        report.add(
            Code(issue.kind.value), issue.location, issue.message, related=_ways_in(issue, regions)
        )
    validate_context_paths(workflow, model, report, extras, runs)
    report.issues.extend(extras)
    report.issues = relate_consequences(workflow, regions, node_defs, report.issues)
    return report


def graph_findings(workflow: Workflow, node_defs: Mapping[str, NodeDef]) -> list[Issue]:
    """The whole-graph checks: the start, the edges, the outcomes of reachable nodes, and
    (a warning of this project's) the cycles no run can leave."""
    graph = ValidationReport()
    _validate_start(workflow, graph)
    _validate_edges(workflow, node_defs, graph)
    _validate_reachable_outcomes(workflow, node_defs, graph)
    graph.issues.extend(endless_cycles(workflow, node_defs))
    return graph.issues


def _ways_in(issue: ControlRegionIssue, regions: ControlRegionAnalysis) -> tuple[Related, ...]:
    """For a region conflict: the first two ways in, each with the stack it brings."""
    ref = issue.location[1] if len(issue.location) > 1 else None
    if issue.kind.value != Code.FOREACH_REGION_CONFLICT or not isinstance(ref, NodeRef):
        return ()
    node_id = ref.id
    related = []
    for stack, edge_index in list(regions.entry_edges.get(node_id, {}).items())[:2]:
        where: Location = ("start",) if edge_index is None else ("edges", edge_index)
        loops = " > ".join(stack) if stack else "no active loop"
        related.append(Related(where, f"{node_id!r} is reached here with owner stack: {loops}"))
    return tuple(related)


def _collect_node_defs(workflow: Workflow, report: ValidationReport) -> dict[str, NodeDef]:
    node_defs: dict[str, NodeDef] = {}
    first_defs: dict[str, int] = {}
    for i, definition in enumerate(workflow.node_defs):
        if definition.name in node_defs:
            report.add(
                Code.DUPLICATE_NODE_DEF,
                ("node_defs", i, "name"),
                f"duplicate node def name {definition.name!r}",
                related=(
                    Related(
                        ("node_defs", first_defs[definition.name], "name"),
                        f"the first node def named {definition.name!r}",
                    ),
                ),
            )
            continue
        node_defs[definition.name] = definition
        first_defs[definition.name] = i
    return node_defs


def _validate_workflow_output(
    workflow: Workflow, model: ContextModel, sources: SourceChecker, report: ValidationReport
) -> None:
    declared = sources.declared_names(workflow.output_schema)
    targets = []
    for i, binding in enumerate(workflow.output):
        if not hasattr(binding, "path") and not hasattr(binding, "value"):
            report.add(
                Code.INVALID_WORKFLOW_OUTPUT_FIELD,
                ("output", i),
                "unsupported workflow output binding",
            )
            continue
        targets.append(binding.target)
        undeclared = undeclared_field(binding.target, declared)
        if undeclared is not None:
            report.add(
                Code.INVALID_WORKFLOW_OUTPUT_FIELD,
                ("output", i, "target"),
                "destination field is not declared in workflow output schema",
                **undeclared,
            )
        path = getattr(binding, "path", None)
        if path is not None:
            sources.check(path, ("output", i, "path"), Code.INVALID_SOURCE_PATH, _SOURCE_MESSAGE)
    if has_overlapping_paths(targets):
        report.add(
            Code.INVALID_WORKFLOW_OUTPUT_FIELD,
            ("output",),
            "workflow output has overlapping output payload paths",
        )
    report.issues.extend(sources.drain_errors())


def _validate_nodes(
    workflow: Workflow,
    node_defs: Mapping[str, NodeDef],
    model: ContextModel,
    sources: SourceChecker,
    report: ValidationReport,
    extras: list[Issue],
    runs: ValidationRuns,
) -> None:
    first_ids = first_index_by_id([node.id for node in workflow.nodes])
    repeated = len(first_ids) < len(workflow.nodes)  # (a model node's id is a string)
    for i, node in enumerate(workflow.nodes if repeated else ()):
        first = first_ids[node.id]
        if first != i:
            report.add(
                Code.DUPLICATE_NODE_ID,
                ("nodes", i, "id"),
                f"duplicate node id {node.id!r}",
                related=(Related(("nodes", first, "id"), f"the first node with id {node.id!r}"),),
            )
    nodes = workflow.nodes

    def make(i: int) -> Findings:
        return _node_findings(workflow, nodes[i], i, node_defs, model, sources)

    for errors, more in runs.get_all("node", len(nodes), make):
        report.issues.extend(errors)
        extras.extend(more)


def _node_findings(
    workflow: Workflow,
    node: AnyStep,
    i: int,
    node_defs: Mapping[str, NodeDef],
    model: ContextModel,
    sources: SourceChecker,
) -> Findings:
    """One node's own checks. They read the node, its index, the node defs, the workflow's
    outcomes and the context model, nothing else (what :class:`ValidationRuns` relies on)."""
    base: Location = ("nodes", i)
    if node.type == "node":
        definition = node_defs.get(node.node)
        if definition is None:
            sources.error(
                Code.UNKNOWN_NODE_DEF,
                (*base, "node"),
                f"unknown node def {node.node!r}",
                **did_you_mean(node.node, node_defs),
            )
        else:
            _validate_io(node, definition.input_schema, definition.output_schema, base, sources)
    elif node.type == "subgraph":
        # A side the node leaves out is the child's to decide (``validation.subgraphs``).
        _validate_io(
            node,
            node.input_schema if declares_schema(node, "input") else None,
            node.output_schema if declares_schema(node, "output") else None,
            base,
            sources,
        )
    elif node.type == "condition":
        _validate_condition(node, i, sources)
    elif node.type == "foreach":
        _validate_foreach(node, i, model, sources)
    elif node.type == "interrupt":
        _validate_interrupt(node, i, sources)
    elif node.type == "end" and node.outcome not in workflow.outcomes:
        sources.error(
            Code.UNDECLARED_WORKFLOW_OUTCOME,
            (*base, "outcome"),
            f"workflow outcome {node.outcome!r} is not declared",
        )
    return tuple(sources.drain_errors()), tuple(sources.drain_extras())


def _validate_io(
    node: NodeUse | SubgraphNode,
    input_schema: SchemaRef | None,
    output_schema: SchemaRef | None,
    base: Location,
    sources: SourceChecker,
) -> None:
    """A node's bindings against its contract; a schema of None is a side decided
    elsewhere (a subgraph node's child), whose fields are not checked here."""
    inputs = sources.declared_names(input_schema) if input_schema is not None else None
    for j, binding in enumerate(node.input):
        undeclared = None if inputs is None else undeclared_field(binding.target, inputs)
        if undeclared is not None:
            sources.error(
                Code.INVALID_NODE_INPUT_FIELD,
                (*base, "input", j, "target"),
                f"destination field {str(binding.target)!r} is not declared in node input schema",
                **undeclared,
            )
    for path, loc in binding_reads(node.input, (*base, "input")):
        sources.check(path, loc, Code.INVALID_SOURCE_PATH, _SOURCE_MESSAGE)
    if has_overlapping_paths(b.target for b in node.input):
        sources.error(
            Code.INVALID_NODE_INPUT_FIELD,
            (*base, "input"),
            "input has overlapping node-local input paths",
        )
    outputs = sources.declared_names(output_schema) if output_schema is not None else None
    for j, output in enumerate(node.output):
        undeclared = None if outputs is None else undeclared_field(output.source, outputs)
        if undeclared is not None:
            sources.error(
                Code.INVALID_NODE_OUTPUT_FIELD,
                (*base, "output", j, "source"),
                f"source field {str(output.source)!r} is not declared in node output schema",
                **undeclared,
            )
        sources.check_destination(output.target, (*base, "output", j, "target"))
    if _state_targets_overlap(b.target for b in node.output):
        sources.error(
            Code.INVALID_DESTINATION_PATH,
            (*base, "output"),
            "output has overlapping state destination paths",
        )


def _state_targets_overlap(targets: Iterable[StatePath]) -> bool:
    return has_overlapping_paths(tuple(t.parts) for t in targets)


def _validate_condition(node: ConditionNode, index: int, sources: SourceChecker) -> None:
    check = node.check
    _empty_args(check, ("nodes", index, "check"), sources)
    for read in node_reads(node, index):
        # lda-wf prints the path object's repr here, not its text; kept for parity
        # (the diagnostic's range and the did-you-mean help say the rest).
        kind = "condition" if read.kind == "condition" else "operand"
        sources.check(
            read.path,
            read.coarse_location,
            Code.INVALID_CONDITION_PATH,
            f"invalid {kind} path {read.path!r}",
            extra_location=read.location,
        )


def _empty_args(condition: Condition, location: Location, sources: SourceChecker) -> None:
    stack: list[tuple[Condition, Location]] = [(condition, location)]
    while stack:
        cond, loc = stack.pop()
        if isinstance(cond, NotCondition):
            stack.append((cond.arg, (*loc, "arg")))
        elif isinstance(cond, VariadicCondition):
            if not cond.args:
                sources.error(
                    Code.EMPTY_CONDITION_ARGS, (*loc, "args"), "condition args must not be empty"
                )
            stack.extend((arg, (*loc, "args", k)) for k, arg in enumerate(cond.args))


def _validate_foreach(
    node: ForeachNode, index: int, model: ContextModel, sources: SourceChecker
) -> None:
    base: Location = ("nodes", index)
    over = node.over
    ok = sources.check(over, (*base, "over"), Code.INVALID_FOREACH_SOURCE, _FOREACH_SOURCE_MESSAGE)
    if ok and over.root in ("input", "state"):
        view = model.source_navigator(over.root).at_path(over.parts)
        if view is not None and not view.is_open() and not view.declares_array():
            sources.error(
                Code.INVALID_FOREACH_SOURCE,
                (*base, "over"),
                f"foreach source {str(over)!r} must resolve to an array",
            )
    policy = node.item_error
    location: Location = (*base, "item_error", "collect_to")
    if policy.action == "collect":
        target = policy.collect_to
        if target is None:
            sources.error(
                Code.INVALID_FOREACH_COLLECT_DESTINATION,
                location,
                "collect_to is required when item_error.action is 'collect'",
            )
        else:
            if target.parts[0] not in sources.root_fields("state"):
                sources.error(
                    Code.INVALID_FOREACH_COLLECT_DESTINATION,
                    location,
                    "collect_to must start with state. and reference a declared state field",
                    segment=1,
                    **sources.unknown_root_field("state", target.parts[0]),
                )
            else:
                declared = model.source_navigator("state").at_path(target.parts)
                types = declared.first("type") if declared is not None else None
                if types != "array":
                    sources.error(
                        Code.INVALID_FOREACH_COLLECT_DESTINATION,
                        location,
                        "collect_to must reference a declared array state field",
                    )


def _validate_interrupt(node: InterruptNode, index: int, sources: SourceChecker) -> None:
    base: Location = ("nodes", index)
    for j, binding in enumerate(node.request):
        if binding.target is None:
            sources.error(
                Code.INVALID_INTERRUPT_SOURCE,
                (*base, "request", j),
                "interrupt request payload field must not be empty",
            )
    for path, loc in binding_reads(node.request, (*base, "request")):
        sources.check(path, loc, Code.INVALID_INTERRUPT_SOURCE, _INTERRUPT_SOURCE_MESSAGE)
    for j, resume in enumerate(node.resume):
        target = resume.target
        if target is None or not target.parts:
            sources.error(
                Code.INVALID_INTERRUPT_DESTINATION,
                (*base, "resume", j),
                "interrupt resume field must not be empty",
            )
            continue
        sources.check_resume_destination(target, (*base, "resume", j, "target"))


def _validate_start(workflow: Workflow, report: ValidationReport) -> None:
    if workflow.start not in {node.id for node in workflow.nodes}:
        report.add(
            Code.UNKNOWN_START,
            ("start",),
            f"unknown start node {workflow.start!r}",
            **did_you_mean(workflow.start, [node.id for node in workflow.nodes]),
        )


def _validate_edges(
    workflow: Workflow, node_defs: Mapping[str, NodeDef], report: ValidationReport
) -> None:
    named = nodes_by_id(workflow.nodes)
    seen: set[tuple[str, str]] = set()
    for i, edge in enumerate(workflow.edges):
        key = (edge.from_, edge.outcome)
        if key in seen:
            report.add(
                Code.DUPLICATE_EDGE,
                ("edges", i),
                f"duplicate edge for source {edge.from_!r} and outcome {edge.outcome!r}",
            )
        seen.add(key)
        source = named.get(edge.from_)
        if source is None:
            report.add(
                Code.UNKNOWN_EDGE_SOURCE,
                ("edges", i, "from"),
                f"unknown source node {edge.from_!r}",
                **did_you_mean(edge.from_, named),
            )
        elif edge.outcome not in (outcomes := declared_outcomes(source, node_defs)):
            report.add(
                Code.UNDECLARED_EDGE_OUTCOME,
                ("edges", i, "outcome"),
                f"outcome {edge.outcome!r} is not declared by node {edge.from_!r}",
                **did_you_mean(edge.outcome, sorted(outcomes)),
            )
        if edge.to == END:
            if "ok" not in workflow.outcomes:
                report.add(
                    Code.UNDECLARED_WORKFLOW_OUTCOME,
                    ("edges", i, "to"),
                    "legacy __end__ requires workflow outcome 'ok' to be declared",
                )
        elif edge.to not in named:
            report.add(
                Code.UNKNOWN_EDGE_DESTINATION,
                ("edges", i, "to"),
                f"unknown destination node {edge.to!r}",
                **did_you_mean(edge.to, [*named, END]),
            )


def reachable_nodes(workflow: Workflow) -> list[str]:
    """Plain forward reachability from ``start`` (edges to END ignored), in BFS order."""
    node_ids = {node.id for node in workflow.nodes}
    if workflow.start not in node_ids:
        return []
    successors: dict[str, list[str]] = {}
    for edge in workflow.edges:
        if edge.to != END and edge.to in node_ids:
            successors.setdefault(edge.from_, []).append(edge.to)
    order = [workflow.start]
    seen = {workflow.start}
    queue = deque(order)
    while queue:
        for target in successors.get(queue.popleft(), ()):
            if target not in seen:
                seen.add(target)
                order.append(target)
                queue.append(target)
    return order


def _validate_reachable_outcomes(
    workflow: Workflow, node_defs: Mapping[str, NodeDef], report: ValidationReport
) -> None:
    reachable = set(reachable_nodes(workflow))
    wired: dict[str, set[str]] = {}
    for edge in workflow.edges:
        wired.setdefault(edge.from_, set()).add(edge.outcome)
    for node in nodes_by_id(workflow.nodes).values():  # a later duplicate is never reached
        if node.id not in reachable:
            continue
        missing = declared_outcomes(node, node_defs) - wired.get(node.id, set())
        if missing:
            report.add(
                Code.MISSING_OUTCOME_EDGE,
                ("nodes", NodeRef(node.id)),
                f"reachable node is missing edges for outcomes {sorted(missing)!r}",
                data={"missing": sorted(missing)},
            )
