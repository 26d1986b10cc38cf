"""Find references and document highlight: every occurrence of the symbol under the cursor."""

from __future__ import annotations

from wf_core.semantic.cursor import classify
from wf_core.semantic.occurrences import Role, Symbol, SymbolKind
from wf_core.version.view import AnalysisView, WorkspaceView
from wfls.features.types import Highlight, Target


def symbol_at(view: AnalysisView, offset: int) -> Symbol | None:
    occurrence = classify(view, offset).occurrence
    return occurrence.symbol if occurrence is not None else None


def make_symbol_parts(view: AnalysisView, offset: int) -> None:
    """Make the parts of the semantic index that may hold the symbol at ``offset``
    (``SemanticIndex.occurrences_of``): what references, highlights, rename and
    definition read, made before they answer (off the event loop)."""
    symbol = symbol_at(view, offset)
    if symbol is not None:
        view.index.occurrences_of(symbol)


def references(
    view: AnalysisView,
    offset: int,
    *,
    include_declaration: bool = True,
    workspace: WorkspaceView | None = None,
) -> list[Target]:
    """Every occurrence of the symbol at ``offset``; a workflow name's in every document."""
    symbol = symbol_at(view, offset)
    if symbol is None:
        return []
    found = [
        Target(o.span)
        for o in view.index.references(symbol, include_declaration=include_declaration)
    ]
    if symbol.kind == SymbolKind.WORKFLOW and workspace is not None:
        for document in workspace.documents():
            if document.uri == view.uri:
                continue
            occurrences = document.snapshot.index.references(
                symbol, include_declaration=include_declaration
            )
            found.extend(Target(o.span, document.uri) for o in occurrences)
    return found


def highlights(view: AnalysisView, offset: int) -> list[Highlight]:
    symbol = symbol_at(view, offset)
    if symbol is None:
        return []
    return [Highlight(o.span, o.role == Role.DEFINITION) for o in view.index.occurrences_of(symbol)]
