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
_CONTAINERS = frozenset((Kind.OBJECT, Kind.ARRAY))


def folding_ranges(view: AnalysisView) -> list[Fold]:
    text = view.text
    lines = view.lines
    line_of = lines.line_of
    find = text.find
    returns = "\r" in text

    def one_line(start: int, end: int) -> bool:
        # A line break inside is what a fold needs (most containers are one-line arrays
        # and inline tables): searched at C speed, before any line is looked up.
        return find("\n", start, end) < 0 and (not returns or find("\r", start, end) < 0)

    spans: set[tuple[int, int]] = set()
    for key, start, end, kind in view.parsed.source_map.ranges_of(_CONTAINERS):
        if end - start < 2 or one_line(start, end):
            continue
        opening = text[start]
        if opening == "[" and kind == Kind.OBJECT:  # a TOML section: header, then pairs
            line_end = lines.line_end(line_of(start))
            spans.add((line_end, max(line_end, end)))
            continue
        if key > start:
            continue  # a TOML array of tables: its entries fold one by one
        if opening in _CLOSING and text[end - 1] == _CLOSING[opening]:
            spans.add((start + 1, end - 1))
    if view.syntax == "json":
        body = text.strip()
        if body.startswith("{") and body.endswith("}"):
            start = text.index("{")
            spans.add((start + 1, text.rindex("}")))
    return [Fold(Span(start, end)) for start, end in sorted(spans) if line_of(start) < line_of(end)]
