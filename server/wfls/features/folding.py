"""Folding ranges: the document's structure, from its source map.

TOML: each ``[table]`` section and ``[[nodes]]``/``[[node_defs]]`` entry (from
its header line through its last pair), and each inline array or inline table
that spans lines. JSON: each object and array that spans lines, the document's
own object included. A fold hides what follows its first line: after a header,
or between a bracket and its closing bracket. Only what spans lines folds.
"""

from __future__ import annotations

from wf_core.base.spans import Span
from wf_core.documents import Kind
from wf_core.version.view import AnalysisView
from wfls.features.types import Fold

_CLOSING = {"[": "]", "{": "}"}


def folding_ranges(view: AnalysisView) -> list[Fold]:
    text = view.text
    lines = view.lines
    spans: set[tuple[int, int]] = set()
    for _location, entry in view.parsed.source_map.items():
        if entry.kind not in (Kind.OBJECT, Kind.ARRAY):
            continue
        value = entry.value
        if value.end - value.start < 2:
            continue
        opening = text[value.start]
        if opening == "[" and entry.kind == Kind.OBJECT:  # a TOML section: header, then pairs
            line, _ = lines.position(value.start)
            spans.add((lines.line_end(line), max(lines.line_end(line), value.end)))
            continue
        if entry.key is not None and entry.key.start > value.start:
            continue  # a TOML array of tables: its entries fold one by one
        if opening in _CLOSING and text[value.end - 1] == _CLOSING[opening]:
            spans.add((value.start + 1, value.end - 1))
    if view.syntax == "json":
        body = text.strip()
        if body.startswith("{") and body.endswith("}"):
            start = text.index("{")
            spans.add((start + 1, text.rindex("}")))
    line_of = lines.position
    return [
        Fold(Span(start, end))
        for start, end in sorted(spans)
        if line_of(start)[0] < line_of(end)[0]
    ]
