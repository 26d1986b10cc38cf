"""Formatting in the editor: the whole document's edits, or a selection's.

The edits are the smallest replacements between the document and its formatted text
(``wf_core.formatting.text_edits``), so an already formatted document gets none and the
client's cursor and undo follow what changed. A selection is formatted as the whole
document is, then only the edits inside the lines it touches are kept; since formatting
may move a key from one place to another (a deletion here, an insertion there), those
edits are given only when the text they make formats to the same text as the document
(nothing moved across the selection's bounds), and otherwise the request is refused with
the reason, never half done.
"""

from __future__ import annotations

from wf_core.base.reading import Syntax
from wf_core.base.spans import LineIndex, Span
from wf_core.formatting import format_text
from wf_core.formatting.text_edits import apply_edits, minimal_edits
from wf_core.version.view import AnalysisView
from wfls.features.types import Refusal, TextEdit


def format_edits(
    view: AnalysisView, *, width: int, indent: str, within: Span | None = None
) -> list[TextEdit]:
    """The edits that format the document, or (``within``) those inside the lines the
    span touches. Raises ``Refusal`` for a document with a syntax error, or a selection
    that cannot be formatted alone."""
    text = view.text
    syntax: Syntax = "json" if view.syntax == "json" else "toml"
    formatted = _formatted(text, syntax, width, indent)
    edits = minimal_edits(text, formatted)
    if within is not None:
        lines = _whole_lines(view.lines, within)
        edits = [e for e in edits if lines.start <= e.start and e.end <= lines.end]
        if edits and _formatted(apply_edits(text, edits), syntax, width, indent) != formatted:
            raise Refusal(
                "the selection cannot be formatted alone: formatting moves keys across its "
                "bounds; format the whole document"
            )
    return [TextEdit(Span(e.start, e.end), e.text) for e in edits]


def _formatted(text: str, syntax: Syntax, width: int, indent: str) -> str:
    result = format_text(text, syntax, width=width, indent=indent)
    if result.error is not None or result.text is None:
        error = result.error
        where = f" at line {error.line + 1}, column {error.column + 1}" if error else ""
        message = f": {error.message}" if error else ""
        raise Refusal(f"not formatted: the document has a syntax error{where}{message}")
    return result.text


def _whole_lines(lines: LineIndex, span: Span) -> Span:
    """From the start of the span's first line to the end of its last (its line break
    included); a span ending at a line's start does not take that line."""
    first = lines.line_of(span.start)
    last = lines.line_of(span.end)
    if last > first and lines.line_start(last) == span.end:
        last -= 1
    end = lines.line_start(last + 1) if last + 1 < lines.line_count else len(lines.text)
    return Span(lines.line_start(first), end)
