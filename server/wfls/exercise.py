"""What the editor features answer for one analysed document, in figures.

The pathological-document tests assert these figures and the pathological benchmark
measures how long they take: both ask them here, so that they are about the same
answers (the outline's shape, how many tokens, folds and hints, how many completions
and how long a hover at each given place).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from wf_core.version.snapshot import DocumentSnapshot
from wf_core.workspace.catalog import Workspace
from wfls.features.completion import complete
from wfls.features.folding import folding_ranges
from wfls.features.hover import hover
from wfls.features.inlay_hints import inlay_hints
from wfls.features.semantic_tokens import semantic_tokens
from wfls.features.symbols import document_symbols


def feature_figures(
    snapshot: DocumentSnapshot, workspace: Workspace, cursors: tuple[int, ...]
) -> dict[str, Any]:
    """The features' answers about ``snapshot``, asked at ``cursors`` and at both ends
    of its text where they are about one place."""
    outline = document_symbols(snapshot)
    depth, kinds, stack = 0, Counter[str](), [(symbol, 1) for symbol in outline]
    while stack:
        symbol, level = stack.pop()
        depth = max(depth, level)
        kinds[symbol.kind] += 1
        stack.extend((child, level + 1) for child in symbol.children)
    places = (*cursors, 0, len(snapshot.text))
    hovers = [hover(snapshot, place, workspace) for place in places]
    return {
        "symbols": len(outline),
        "outline_depth": depth,
        "outline_kinds": dict(kinds),
        "tokens": len(semantic_tokens(snapshot)),
        "folds": len(folding_ranges(snapshot)),
        "hints": len(inlay_hints(snapshot)),
        "completions": [len(complete(snapshot, place, workspace)) for place in places],
        "hovers": [None if found is None else len(found.markdown) for found in hovers],
    }
