"""What a request handler may use: a narrow context, never the server.

A handler of a document request gets a :class:`RequestContext`: the analysis
view of the document (the snapshot of one version), the position codec of that view's
text, the client's flags and the settings. Handlers of session events
(opening, editing, settings, diagnostics) get the :class:`Session` protocol.
Neither imports the server, so handlers can be tested with a context alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from wf_core.base.records import record
from wf_core.base.spans import Span
from wf_core.version.view import AnalysisView, DiagnosedView, WorkspaceView
from wfls.capabilities import ClientFlags
from wfls.convert import PositionCodec
from wfls.settings import Settings

if TYPE_CHECKING:
    from wf_core.base.edits import Region
    from wfls.contexts import RequestContexts
    from wfls.diagnostics import DiagnosticsResult
    from wfls.features.run import LastRun
    from wfls.features.test_documents import TestDocumentView
    from wfls.store import DocumentStore
    from wfls.test_documents import TestDocuments


T = TypeVar("T")


class RequestFailed(JsonRpcException):
    """LSP's ``RequestFailed``: the request was valid but cannot be carried out (a refused
    rename, a run of a workflow with errors); the client shows the message."""

    CODE = -32803  # pygls reads ``CODE``; a lower-case ``code`` left refusals InternalError
    MESSAGE = "Request failed"


class DocumentLookup(Protocol):
    """Other documents a request may point into (a definition in another file), and how
    an open document's text changed between two of its revisions."""

    def codec_for(self, uri: str) -> PositionCodec | None: ...
    def region_between(self, uri: str, old: int, new: int) -> Region | None: ...


@record
class RequestContext:
    uri: str
    view: AnalysisView
    codec: PositionCodec
    flags: ClientFlags
    settings: Settings
    documents: DocumentLookup
    workspace: WorkspaceView | None = None
    last_run: LastRun | None = None  # what the last "Run with sample input" saw
    revision: int | None = None  # the store's revision of ``view`` (None: not known)

    def offset(self, position: types.Position) -> int:
        """The code-point offset of a client position in this view's text."""
        return self.codec.offset(position)

    def span(self, range_: types.Range) -> Span:
        """The code-point span of a client range (which a client may send backwards)."""
        start, end = self.offset(range_.start), self.offset(range_.end)
        return Span(min(start, end), max(start, end))


class InRange(Protocol):
    """The params of a request about a range (code actions, inlay hints)."""

    @property
    def range(self) -> types.Range: ...


def make_range_parts(ctx: RequestContext, params: InRange) -> None:
    """What a request about a range reads of the semantic index: the parts of the
    elements there (a route's ``make_parts``, made off the event loop), only made:
    nothing of them is placed."""
    for _placed in ctx.view.index.placed(ctx.span(params.range)):
        pass


@record
class TestRequestContext:
    """What a request about a workflow test document is answered from: the document
    read, with the workflow it names (``wfls.features.test_documents``)."""

    __test__ = False  # not a pytest class

    uri: str
    view: TestDocumentView
    codec: PositionCodec
    flags: ClientFlags

    def offset(self, position: types.Position) -> int:
        return self.codec.offset(position)


class Session(Protocol):
    """The server's side of the session, as session-event handlers see it."""

    @property
    def store(self) -> DocumentStore: ...
    @property
    def flags(self) -> ClientFlags: ...
    @property
    def test_documents(self) -> TestDocuments: ...
    def document_changed(self, uri: str, *, edited: bool = False) -> None: ...
    def document_opened(self, uri: str) -> None: ...
    def document_closed(self, uri: str) -> None: ...
    def apply_settings(self, raw: object, origin: str) -> None: ...
    async def fetch_configuration(self) -> None: ...
    def cancel_pending(self) -> None: ...
    async def diagnostics_async(self, uri: str) -> DiagnosticsResult | None: ...
    @property
    def contexts(self) -> RequestContexts: ...
    async def off_loop(self, work: Callable[[], T]) -> T:
        """Run ``work`` on the analysis worker and wait for its result."""
        ...

    async def analysed(self, uri: str) -> DiagnosedView | None: ...
    async def parsed(self, uri: str) -> AnalysisView | None: ...
    async def workspace_scanned(self) -> None: ...
    def remember_run(self, uri: str, run: LastRun) -> None: ...
    def document_uris(self) -> list[str]: ...
    def result_id(self, uri: str) -> str: ...
    async def files_changed(self, changes: list[tuple[str, bool]]) -> None: ...
    async def start_indexing(self) -> None: ...
    def indexed(self, uri: str) -> AnalysisView | None: ...
    @property
    def workflows(self) -> WorkspaceView: ...
    def codec_for(self, uri: str) -> PositionCodec | None: ...
