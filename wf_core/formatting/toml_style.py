"""The canonical style of a ``*.wf.toml`` document.

The layout is the TOML writer's that ``wfls export`` uses
(``wf_core.authoring.export.write_toml``), so a converted document and a formatted one
look alike: a value on its key's line when the line fits in the width, a longer array
one element a line (indented), a longer table as dotted keys or a table of its own;
tables the author wrote as sections or dotted keys stay so, node defs and nodes stay
arrays of tables, and the edges are one inline table a line (``[[edges]]`` tables become
so, unless a comment inside one or its length keeps it a table). Comments and blank
lines go with the item they precede, or trail on its line; an array or table with a
comment inside is never put on one line. Strings are written one way: a basic string, or
a literal string when it holds ``"`` and a literal string can hold it
(``'context.foreach."orders.v2".item'``); a string with line breaks as a multi-line
literal string when one can hold it.

Path strings are re-quoted canonically (``wf_core.language.paths.format_segments``, the
printer of completion and rename) only when the model loaded every piece of the
document (``whole_model``): then the model's value at the string's place tells that it
is a path and what its canonical text is. A document with a broken piece keeps its
paths as written.
"""

from __future__ import annotations

from collections.abc import Mapping

from wf_core.authoring.export import write_toml
from wf_core.base.issues import ProjectCode, Severity
from wf_core.base.locations import Location
from wf_core.documents import ParsedDocument
from wf_core.models.loading import load_workflow
from wf_core.models.workflow import Workflow

INLINE_ARRAYS: tuple[Location, ...] = (("edges",),)
"""The edges are read as a list, one inline table a line, however the source wrote them."""


def whole_model(parsed: ParsedDocument) -> Workflow | None:
    """The document's model when every piece of it loaded (so the model's indexes are
    the document's), else None."""
    load = load_workflow(parsed.values)
    broken = any(
        issue.code == ProjectCode.INVALID_MODEL and issue.severity == Severity.ERROR
        for issue in load.issues
    )
    return None if broken else load.workflow


def toml_document(
    parsed: ParsedDocument,
    values: Mapping[str, object],
    workflow: Workflow | None,
    *,
    width: int,
    indent: str,
) -> str:
    """The TOML text of a parsed document's values (already ordered); ``workflow`` from
    ``whole_model``."""
    return write_toml(
        parsed, values, workflow, width=width, indent=indent, inline_arrays=INLINE_ARRAYS
    )
