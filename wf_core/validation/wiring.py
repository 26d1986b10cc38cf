"""What one more edge into an unreachable node would bring: the errors it adds.

An edge ``source --outcome--> target`` puts ``target``, and everything it leads to,
under the owner stack of ``source`` (one loop deeper when ``source`` is a foreach
and ``outcome`` is ``loop``). lda-wf's control-region rules (lda-wf-model §6) then
decide whether that is allowed: from inside a loop body the target must lead back to
the loop (never to an ``end`` node or ``__end__``, never skip the owner, never meet a
node reached under another stack), and the target's reads must find what they read
in that stack's context. The rules are applied by the functions that apply them in
validation (``analyze_control_regions``, the context-path pass on the new stacks,
the alias ownership check), on the workflow with the edge added; nodes whose stack
did not change keep their findings, so only the newly reached ones are walked.

The one thing such an edge cannot help: the newly reachable nodes' own missing
outcome edges, which were there all along and count only once the nodes are
reachable. They are not reported here (``missing_outcome_edge`` has its own fix).
"""

from __future__ import annotations

from collections import Counter

from wf_core.analysis.context_scopes import ContextModel
from wf_core.analysis.control_regions import ControlRegionAnalysis, analyze_control_regions
from wf_core.models.workflow import Edge, Workflow, first_index_by_id
from wf_core.validation.context_paths import (
    Walks,
    check_alias_ownership,
    node_context_findings,
)
from wf_core.validation.report import ValidationReport


def wiring_errors(
    workflow: Workflow, model: ContextModel, source: str, outcome: str, target: str
) -> list[str]:
    """The errors (``code: message``) that adding the edge to ``workflow``, whose context
    model is ``model``, would bring, beyond the newly reachable nodes' missing outcome
    edges; empty when the edge is clean."""
    edge = Edge.model_validate({"from": source, "outcome": outcome, "to": target})
    wired = workflow.model_copy(update={"edges": [*workflow.edges, edge]})
    regions = analyze_control_regions(wired)
    found = _new_region_issues(model, regions)
    if found:
        return found
    wired_model = ContextModel(wired, regions)
    before = model.regions.owner_stack_by_node
    moved = [n for n, s in regions.owner_stack_by_node.items() if before.get(n) != s]
    indexes = first_index_by_id(node.id for node in wired.nodes)
    walks = Walks(wired_model)
    for node_id in moved:
        index = indexes[node_id]
        issues, _hints = node_context_findings(wired.nodes[index], index, walks)
        found.extend(f"{i.code}: {i.message}" for i in issues)
    return found + _new_alias_conflicts(workflow, model, wired, wired_model)


def _new_region_issues(model: ContextModel, regions: ControlRegionAnalysis) -> list[str]:
    """Control-region findings of the wired graph that the graph without the edge lacks,
    compared by message (the edge's own index moves no other finding's message)."""
    old = Counter((str(i.kind), i.message) for i in model.regions.issues)
    new = Counter((str(i.kind), i.message) for i in regions.issues)
    return [f"{kind}: {message}" for kind, message in (new - old).elements()]


def _new_alias_conflicts(
    workflow: Workflow, model: ContextModel, wired: Workflow, wired_model: ContextModel
) -> list[str]:
    """Alias collisions on the stacks the edge creates (the others are checked already)."""
    old, new = ValidationReport(), ValidationReport()
    check_alias_ownership(workflow, model, old)
    check_alias_ownership(wired, wired_model, new)
    known = {i.message for i in old.issues}
    return [f"{i.code}: {i.message}" for i in new.issues if i.message not in known]
