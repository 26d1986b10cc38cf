"""Plain results of the editor features (the protocol layer converts them)."""

from __future__ import annotations

from dataclasses import dataclass

from wf_core.spans import Span


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
