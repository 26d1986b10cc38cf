"""Plain results of the editor features (the protocol layer converts them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wf_core.spans import Span

if TYPE_CHECKING:
    from wf_core.snapshot import PlacedIssue


@dataclass(frozen=True)
class CompletionCandidate:
    label: str
    # "field", "property", "module", "keyword", "value", "enum", "reference" or "variable"
    kind: str
    replace: Span  # document range that ``insert_text`` replaces
    insert_text: str
    detail: str | None = None
    documentation: str | None = None  # markdown
    sort_text: str | None = None
    filter_text: str | None = None
    deprecated: bool = False


@dataclass(frozen=True)
class HoverResult:
    markdown: str
    span: Span


@dataclass(frozen=True)
class Target:
    span: Span
    uri: str | None = None  # None: the same document


@dataclass(frozen=True)
class TextEdit:
    span: Span
    new_text: str


@dataclass(frozen=True)
class DocumentEdit:
    """Edits of one document version (``version`` None: the document as on disk)."""

    uri: str | None  # None: the document the request was about
    version: int | None
    edits: tuple[TextEdit, ...]


@dataclass(frozen=True)
class Highlight:
    span: Span
    write: bool  # a definition (the name is declared here) rather than a use


class Refusal(Exception):
    """A request that cannot be done here, with the reason to show the author."""


QUICK_FIX = "quickfix"
MIGRATE_CONVENIENCE_KEYS = "source.migrateConvenienceKeys.wfls"


@dataclass(frozen=True)
class CodeAction:
    """A fix or source action. ``edits`` is None for an action computed lazily: ``data``
    then says what to compute (``resolve_code_action``)."""

    title: str
    kind: str
    edits: tuple[TextEdit, ...] | None
    issues: tuple[PlacedIssue, ...] = ()  # what the action fixes
    preferred: bool = False
    data: dict[str, Any] | None = None
