"""What an editor feature may read: one typed view of an analysis.

Two kinds of analysis serve features: the full :class:`~wf_core.version.snapshot.DocumentSnapshot`
of a version, and, while the author types inside one string, the
:class:`~wf_core.version.overlay.EditedSnapshot` that sees the previous analysis
through the edit. Both implement :class:`AnalysisView`, and features are typed
against it, so a feature can never call something one of them lacks.
Diagnostics are not part of the view: only a full snapshot has them
(:class:`DiagnosedView`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

from wf_core.base.locations import Location
from wf_core.base.spans import LineIndex

if TYPE_CHECKING:
    from wf_core.analysis.context_scopes import ContextModel
    from wf_core.documents import Entry, Kind, Located, StringLiteral
    from wf_core.models.loading import LoadResult
    from wf_core.models.steps import AnyStep
    from wf_core.models.workflow import Workflow
    from wf_core.semantic.index import IndexView
    from wf_core.version.snapshot import PlacedIssue


class SourceMapView(Protocol):
    def get(self, location: Location, origin: int = 0) -> Entry | None: ...
    def string(self, location: Location, origin: int = 0) -> StringLiteral | None: ...
    def locate(self, offset: int) -> Located | None: ...
    def prepare_locate(self) -> None: ...
    def children(self, location: Location) -> list[Location]: ...
    def locations(self) -> Iterator[Location]: ...
    def __contains__(self, location: object) -> bool: ...
    def items(self) -> Iterator[tuple[Location, Entry]]: ...
    def ranges_of(self, kinds: frozenset[Kind]) -> Iterator[tuple[int, int, int, Kind]]: ...


class ParsedView(Protocol):
    @property
    def text(self) -> str: ...
    @property
    def syntax(self) -> str: ...
    @property
    def values(self) -> dict[str, object]: ...
    @property
    def source_map(self) -> SourceMapView: ...


class AnalysisView(Protocol):
    uri: str | None
    version: int | None

    @property
    def text(self) -> str: ...
    @property
    def syntax(self) -> str: ...
    @property
    def lines(self) -> LineIndex: ...
    @property
    def parsed(self) -> ParsedView: ...
    @property
    def workflow(self) -> Workflow | None: ...
    @property
    def context(self) -> ContextModel | None: ...
    @property
    def load(self) -> LoadResult: ...
    @property
    def index(self) -> IndexView: ...
    def node_at_document_index(self, index: int) -> AnyStep | None: ...


class WorkspaceDocumentView(Protocol):
    """One document of the workspace, as features see it."""

    @property
    def uri(self) -> str: ...
    @property
    def name(self) -> str | None: ...
    @property
    def snapshot(self) -> AnalysisView: ...


class WorkspaceView(Protocol):
    """The other documents of the workspace: what crosses files (subgraphs)."""

    def resolve(self, name: str | None) -> WorkspaceDocumentView | None: ...
    def documents(self) -> Sequence[WorkspaceDocumentView]: ...
    def names(self) -> list[str]: ...
    def issues_of(self, uri: str, snapshot: object) -> tuple[PlacedIssue, ...] | None: ...


class DiagnosedView(AnalysisView, Protocol):
    """A full analysis: the view plus every placed issue."""

    @property
    def issues(self) -> tuple[PlacedIssue, ...]: ...
