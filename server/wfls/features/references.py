"""Find references and document highlight: every occurrence of the symbol under the cursor."""

from __future__ import annotations

from wf_core.semantic.cursor import classify
from wf_core.semantic.model import Role, Symbol
from wf_core.view import AnalysisView
from wfls.features.types import Highlight, Target


def symbol_at(view: AnalysisView, offset: int) -> Symbol | None:
    occurrence = classify(view, offset).occurrence
    return occurrence.symbol if occurrence is not None else None


def references(
    view: AnalysisView, offset: int, *, include_declaration: bool = True
) -> list[Target]:
    symbol = symbol_at(view, offset)
    if symbol is None:
        return []
    found = view.index.references(symbol, include_declaration=include_declaration)
    return [Target(o.span) for o in found]


def highlights(view: AnalysisView, offset: int) -> list[Highlight]:
    symbol = symbol_at(view, offset)
    if symbol is None:
        return []
    return [Highlight(o.span, o.role == Role.DEFINITION) for o in view.index.occurrences_of(symbol)]
