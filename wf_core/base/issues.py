"""Issues: what every layer reports, with lda-wf's code, location and message.

lda-wf's own codes are always errors. This project's additions (syntax errors,
model errors, deprecations, hints) carry their own codes; only syntax and model
errors are errors among them.
"""

from __future__ import annotations

from dataclasses import field
from enum import StrEnum
from typing import TypedDict

from wf_core.base.locations import Location, format_location
from wf_core.base.records import record
from wf_core.base.spans import Span


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFORMATION = "information"
    HINT = "hint"


class ProjectCode(StrEnum):
    """Codes this project adds to lda-wf's ``ValidationIssueCode``."""

    SYNTAX_ERROR = "syntax_error"
    INVALID_MODEL = "invalid_model"
    DEPRECATED_INPUT_FORM = "deprecated_input_form"
    UNDECLARED_PROPERTY = "undeclared_property"
    DEPRECATED_CONTEXT_KEY = "deprecated_context_key"
    REGION_BREAKING_EDGE = "region_breaking_edge"
    UNKNOWN_KEY = "unknown_key"
    UNKNOWN_SUBGRAPH = "unknown_subgraph"
    SUBGRAPH_BINDING = "subgraph_binding"
    SUBGRAPH_CYCLE = "subgraph_cycle"
    DUPLICATE_WORKFLOW_NAME = "duplicate_workflow_name"
    ENDLESS_CYCLE = "endless_cycle"
    INTERNAL_ERROR = "internal_error"


@record
class Related:
    """Another place that explains an issue (an outer alias, a second way in).

    ``uri`` is set when the place is in another document (a caller's loop); its
    ``span`` is then in that document's text.
    """

    location: Location | None
    message: str
    span: Span | None = None
    uri: str | None = None

    @property
    def model_path(self) -> str | None:
        return format_location(self.location) if self.location is not None else None


@record
class Issue:
    """One finding.

    ``location`` is the model location (None for syntax errors, which carry
    ``span`` instead); ``model_path`` is lda-wf's string for it. ``segment``
    is, for an issue about a path value, the index of the failing segment in
    the path's segment list (0 is the root); the document layer turns it into
    the exact characters.
    ``data`` holds machine-readable extras for quick fixes (e.g. suggestions).
    """

    code: str
    location: Location | None
    message: str
    severity: Severity = Severity.ERROR
    span: Span | None = None
    segment: int | None = None
    related: tuple[Related, ...] = ()
    data: dict[str, object] = field(default_factory=dict, compare=False, hash=False)
    on_key: bool = False  # the range is the key at ``location``, not its value
    span_at: Location | None = None  # where the range is, when not at ``location`` itself

    @property
    def model_path(self) -> str | None:
        return format_location(self.location) if self.location is not None else None


class IssueExtras(TypedDict, total=False):
    """An :class:`Issue`'s optional fields, as the checks hand them on with ``**``
    (``did_you_mean``'s suggestion, a path's failing segment, a help note)."""

    severity: Severity
    span: Span | None
    segment: int | None
    related: tuple[Related, ...]
    data: dict[str, object]
    on_key: bool
    span_at: Location | None


class IssueData(TypedDict, total=False):
    """Issue extras that carry only ``data`` (a "did you mean", a help note): they go with
    any of the other fields a check passes itself."""

    data: dict[str, object]


INTERNAL_DETAIL_LIMIT = 200
"""Characters of the exception's message an ``internal_error`` finding quotes."""


def internal_error(error: BaseException) -> Issue:
    """The one finding of a document whose analysis raised ``error`` (a bug of wfls), at
    its start: its findings are missing, and whoever reads the others' must be told so
    (``wfls check`` goes on with the next file, the language server publishes it). The
    exception's first line only: a finding is one line wherever it is shown."""
    lines = str(error).strip().splitlines()
    detail = type(error).__name__ + (f": {lines[0]}" if lines else "")
    if len(detail) > INTERNAL_DETAIL_LIMIT:
        detail = detail[: INTERNAL_DETAIL_LIMIT - 1] + "…"
    return Issue(
        code=ProjectCode.INTERNAL_ERROR,
        location=None,
        message=f"wfls failed to analyse this document ({detail}); its findings are missing: "
        "please report this bug",
        span=Span(0, 0),
    )
