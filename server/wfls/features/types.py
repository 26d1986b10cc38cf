"""Plain results of the editor features (the protocol layer converts them)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from wf_core.base.records import record
from wf_core.base.spans import Span

if TYPE_CHECKING:
    from wf_core.semantic.parts import IndexPart
    from wf_core.version.snapshot import PlacedIssue


@record
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


@record
class HoverResult:
    markdown: str
    span: Span


@record
class Target:
    span: Span
    uri: str | None = None  # None: the same document


@record
class TextEdit:
    span: Span
    new_text: str


@record
class DocumentEdit:
    """Edits of one document version (``version`` None: the document as on disk)."""

    uri: str | None  # None: the document the request was about
    version: int | None
    edits: tuple[TextEdit, ...]


@record
class Highlight:
    span: Span
    write: bool  # a definition (the name is declared here) rather than a use


class Refusal(Exception):
    """A request that cannot be done here, with the reason to show the author."""


QUICK_FIX = "quickfix"
MIGRATE_CONVENIENCE_KEYS = "source.migrateConvenienceKeys.wfls"


@record
class CodeAction:
    """A fix or source action. ``edits`` is None for an action computed lazily: ``data``
    then says what to compute (``resolve_code_action``)."""

    title: str
    kind: str
    edits: tuple[TextEdit, ...] | None
    issues: tuple[PlacedIssue, ...] = ()  # what the action fixes
    preferred: bool = False
    data: Mapping[str, object] | None = None


class SemanticToken(NamedTuple):
    """One token: a type and modifiers of the legend (``semantic_legend.json``).
    A named tuple: a large document has tens of thousands, made per request."""

    span: Span
    type: str
    modifiers: tuple[str, ...] = ()


class TokenRun(NamedTuple):
    """Tokens of one part of the index, at offsets relative to ``base``: the same for every
    version the part serves, so encoded once for all of them (``wfls.convert``). ``part``
    is None for a token of the rest of the document, made again for each version."""

    part: IndexPart | None
    base: int
    extent: Span
    tokens: Callable[[], list[SemanticToken]]


@record
class InlayHintItem:
    """A hint shown at ``offset``: ``kind`` is "type" or None (anything else)."""

    offset: int
    label: str
    kind: str | None = None
    tooltip: str | None = None
    padding_left: bool = False


@record
class OutlineSymbol:
    """A document symbol: ``kind`` is an LSP ``SymbolKind`` name (``"Function"``...);
    ``span`` encloses it, ``selection`` is its name."""

    name: str
    kind: str
    span: Span
    selection: Span
    detail: str | None = None
    children: tuple[OutlineSymbol, ...] = ()


@record
class Fold:
    """A foldable region: ``span`` is what folding hides, from the end of the line that
    stays visible (after a header, after an opening bracket) to where the hidden text
    ends (the end of a section's last pair, before a closing bracket)."""

    span: Span
    kind: str | None = None  # None, or "comment"
