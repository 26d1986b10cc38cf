"""Go to definition: from any name to where it is declared.

Names resolve through the semantic index: a node id (in ``start``, edges or a
``context.foreach.<id>`` segment) to the node's ``id`` (the first node's, when
several share it), an alias read to the
``as`` that declares it, a node def use to its ``name``, an outcome to the
entry that declares it, a path member or binding target to the schema
property. ``context.loop_item``/``loop_index`` lead to the innermost loop.
Outcomes no entry declares (``loop``, ``done``, ``true``...) have no definition.
"""

from __future__ import annotations

from wf_core.language.context_contracts import LOOP_INDEX_KEY, LOOP_ITEM_KEY
from wf_core.semantic.cursor import classify
from wf_core.semantic.occurrences import SegmentKind, Symbol, SymbolKind
from wf_core.version.view import AnalysisView, WorkspaceView
from wfls.features.common import node_index_of, owner_stack
from wfls.features.types import Target


def definition(
    view: AnalysisView, offset: int, workspace: WorkspaceView | None = None
) -> list[Target]:
    cursor = classify(view, offset)
    occurrence = cursor.occurrence
    if occurrence is not None and occurrence.symbol is not None:
        if occurrence.symbol.kind == SymbolKind.WORKFLOW:
            return workflow_definition(view, occurrence.symbol, workspace)
        return symbol_definition(view, occurrence.symbol)
    segment = cursor.segment
    path = cursor.path
    if segment is not None and path is not None and segment.kind == SegmentKind.CONVENIENCE:
        stack = owner_stack(view, path.node_id)
        if stack and segment.value in (LOOP_ITEM_KEY, LOOP_INDEX_KEY):
            return node_field(view, stack[-1], "id")
    return []


def workflow_definition(
    view: AnalysisView, symbol: Symbol, workspace: WorkspaceView | None
) -> list[Target]:
    """A subgraph's child: the ``name`` of the document that declares it (maybe this one)."""
    local = [Target(o.span) for o in view.index.definitions(symbol)]
    if local or workspace is None:
        return local
    child = workspace.resolve(symbol.name)
    if child is None:
        return []
    return [Target(o.span, child.uri) for o in child.snapshot.index.definitions(symbol)]


def symbol_definition(view: AnalysisView, symbol: Symbol) -> list[Target]:
    definitions = view.index.definitions(symbol)
    if symbol.kind == SymbolKind.NODE:  # a duplicated id names its first node only
        named = ("nodes", node_index_of(view, symbol.name), "id")
        definitions = [o for o in definitions if o.location == named]
    return [Target(o.span) for o in definitions]


def node_field(view: AnalysisView, node_id: str, field: str) -> list[Target]:
    """Where the string ``field`` of node ``node_id`` (its first node) is written."""
    index = node_index_of(view, node_id)
    if index is None:
        return []
    literal = view.parsed.source_map.string(("nodes", index, field))
    return [Target(literal.span)] if literal is not None else []
