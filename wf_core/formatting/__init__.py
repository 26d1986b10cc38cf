"""Formatting a workflow document in its syntax's canonical style (``wfls fmt``, the
editor's "Format Document").

``format_text`` gives the whole new text or, for a document with a syntax error, that
error and where it is: a document is formatted whole or not at all. The style of each
syntax is in ``toml_style`` and ``json_style``, the key order in ``order`` and the edits
an editor applies in ``text_edits``. What formatting keeps is the contract: the loaded model
and every finding of ``wfls check`` (but their positions), every comment in its order
before the same key or element, and a formatted document formatted again is unchanged.
"""

from __future__ import annotations

from wf_core.authoring.export import ExportError, canonical_paths
from wf_core.base.issues import ProjectCode, Severity
from wf_core.base.line_width import LINE_WIDTH
from wf_core.base.reading import Syntax
from wf_core.base.records import record
from wf_core.base.spans import LineIndex
from wf_core.documents import parse_document
from wf_core.formatting.json_style import json_document
from wf_core.formatting.order import ordered_document
from wf_core.formatting.toml_style import toml_document, whole_model

DEFAULT_WIDTH = LINE_WIDTH
"""The line width a value must fit in to stay on one line."""
DEFAULT_INDENT = "  "
"""The indentation of an array's elements (TOML) or of a nesting level (JSON)."""


@record
class FormatError:
    """Why a document was not formatted, and where (0-based line and code-point column;
    ``offset`` in code points)."""

    message: str
    offset: int
    line: int
    column: int


@record
class FormatResult:
    """The formatted text, or the error that stopped it (``text`` is then None)."""

    text: str | None
    error: FormatError | None = None


def format_text(
    text: str, syntax: Syntax, *, width: int = DEFAULT_WIDTH, indent: str = DEFAULT_INDENT
) -> FormatResult:
    """``text``, a ``*.wf.toml`` (``syntax`` ``"toml"``) or ``*.wf.json`` document, in
    its canonical style. A text with a syntax error is not formatted: its first one is
    the answer."""
    if not text.strip():
        return FormatResult("")
    parsed = parse_document(text, syntax)
    errors = [
        issue
        for issue in parsed.issues
        if issue.code == ProjectCode.SYNTAX_ERROR and issue.severity == Severity.ERROR
    ]
    if errors:
        first = min(errors, key=lambda issue: issue.span.start if issue.span else 0)
        return _error(text, first.message, first.span.start if first.span else 0)
    values = ordered_document(parsed.values)
    workflow = whole_model(parsed)
    try:
        if syntax == "json":
            if workflow is not None:
                values = dict(canonical_paths(values, workflow))
            return FormatResult(json_document(values, width=width, indent=indent))
        return FormatResult(toml_document(parsed, values, workflow, width=width, indent=indent))
    except ExportError as error:  # (a JSON null cannot be TOML: a TOML text has none)
        return _error(text, str(error), 0)


def _error(text: str, message: str, offset: int) -> FormatResult:
    line, column = LineIndex(text).position(offset)
    return FormatResult(None, FormatError(message, offset, line, column))
