"""Selection ranges: what "expand selection" grows through, from the cursor outwards.

In a path string: the segment under the cursor, the path (the string's
content), the string with its quotes, then what holds it: ``path = "..."``, the
binding's inline table, the binding list, ``input = [...]``, the node's table,
the document. Anywhere else: the innermost value (or key), its key/value pair,
then each containing value and pair up to the document. Steps come from the
source map (``locate``, ``get``) and the semantic index's path segments.

Invariant: each range strictly contains the one before it.
"""

from __future__ import annotations

from wf_core.base.spans import Span
from wf_core.semantic.cursor import in_literal
from wf_core.version.view import AnalysisView


def selection_chain(view: AnalysisView, offset: int) -> list[Span]:
    """The ranges around ``offset``, innermost first, the whole document last."""
    chain: list[Span] = []

    def add(span: Span | None) -> None:
        if span is None:
            return
        if chain:
            last = chain[-1]
            if span == last or not (span.start <= last.start and last.end <= span.end):
                return
        chain.append(span)

    source_map = view.parsed.source_map
    path = view.index.path_at(offset)
    if path is not None and in_literal(path.literal, offset):
        segment = path.segment_at(offset)
        if segment is not None and segment.span.end > segment.span.start:
            add(segment.span)
        add(path.literal.content)
        add(path.literal.span)
    located = source_map.locate(offset)
    if located is not None:
        location = located.location
        if located.in_key:
            add(located.span)
        else:
            literal = source_map.string(location)
            if literal is not None and in_literal(literal, offset):
                add(literal.content)
        for depth in range(len(location), 0, -1):
            entry = source_map.get(location[:depth])
            if entry is None:
                continue
            add(entry.value)
            if entry.key is not None:
                key, value = entry.key, entry.value
                add(Span(min(key.start, value.start), max(key.end, value.end)))
    add(Span(0, len(view.text)))
    return chain
