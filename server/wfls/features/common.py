"""Small questions features ask of an analysis view, answered in one place."""

from __future__ import annotations

from collections.abc import Mapping

from wf_core.analysis.context_scopes import dump_schema
from wf_core.base.locations import Location
from wf_core.models import SubgraphNode
from wf_core.models.schema_nav import SchemaNavigator
from wf_core.semantic.occurrences import PathOccurrence, PathRole
from wf_core.validation.subgraphs import Side, Source, subgraph_contract
from wf_core.version.view import AnalysisView, WorkspaceView


def document_nodes(view: AnalysisView) -> list[Mapping[str, object]]:
    """The document's node tables, loaded or not (the resolver already collected them)."""
    return view.index.resolver.nodes


def node_values(view: AnalysisView, index: int | None) -> Mapping[str, object]:
    nodes = document_nodes(view)
    return nodes[index] if index is not None and 0 <= index < len(nodes) else {}


def node_index_of(view: AnalysisView, node_id: str) -> int | None:
    return view.index.resolver.node_ids.get(node_id)


def stack_text(stack: tuple[str, ...] | None) -> str:
    if stack is None:
        return "none (unreachable, or reachable under two foreach regions)"
    return " > ".join(f"`{s}`" for s in stack) if stack else "no active loop"


def owner_stack(view: AnalysisView, node_id: str | None) -> tuple[str, ...] | None:
    model = view.context
    if model is None or node_id is None:
        return None
    return model.stack_of(node_id)


def read_navigator(
    view: AnalysisView, path: PathOccurrence, root: str, workspace: WorkspaceView | None = None
) -> SchemaNavigator | None:
    """The navigator a path is checked against where it is written (validation's own)."""
    model = view.context
    if model is None:
        return None
    if path.role in (PathRole.LOCAL_TARGET, PathRole.LOCAL_SOURCE, PathRole.OUTPUT_TARGET):
        return local_navigator(view, path, workspace)
    if root in ("input", "state"):
        return model.source_navigator(root)
    if root != "context" or not path.role.reads_graph:
        return None
    if path.role == PathRole.OUTPUT or path.node_index is None:
        return model.navigator_for_stack(None)
    if path.node_id is None:
        return None
    return model.navigator_for_node(path.node_id)


def local_navigator(
    view: AnalysisView, path: PathOccurrence, workspace: WorkspaceView | None = None
) -> SchemaNavigator | None:
    """The navigator over the schema a local target or source names fields of.

    A subgraph node's side that declares no schema binds to its child workflow's own
    ``input_schema``/``output_schema`` (the subgraph contract, known only with the
    workspace); any other side is the schema written in the document.
    """
    resolver = view.index.resolver
    child = _child_schema(view, path, workspace)
    if child is not None:
        return child
    if path.role == PathRole.OUTPUT_TARGET:
        site = resolver.site(("output_schema",))
    elif path.node_index is not None:
        site = resolver.node_schema_site(path.node_index, path.role == PathRole.LOCAL_SOURCE)
    else:
        site = None
    return site.navigator if site is not None else None


def value_at(view: AnalysisView, location: Location) -> object:
    """The document value at ``location`` (None when nothing is written there)."""
    value: object = view.parsed.values
    for part in location:
        if isinstance(part, int):
            value = value[part] if isinstance(value, list) and 0 <= part < len(value) else None
        else:
            value = value.get(part) if isinstance(value, Mapping) else None
    return value


def _child_schema(
    view: AnalysisView, path: PathOccurrence, workspace: WorkspaceView | None
) -> SchemaNavigator | None:
    """The child's schema when the subgraph node's contract on the path's side is the
    child's (``subgraph_contract``, the rule ``wfls check`` applies), as the child's
    model has it: the fields offered and described are exactly those check accepts."""
    if workspace is None or path.node_index is None or path.role == PathRole.OUTPUT_TARGET:
        return None
    node = view.node_at_document_index(path.node_index)
    if not isinstance(node, SubgraphNode) or node.workflow.name is None:
        return None
    found = workspace.resolve(node.workflow.name)
    side: Side = "output" if path.role == PathRole.LOCAL_SOURCE else "input"
    boundary = subgraph_contract(node, found.snapshot.workflow if found else None).side(side)
    if boundary.source != Source.CHILD:
        return None
    return SchemaNavigator(dump_schema(boundary.schema))
