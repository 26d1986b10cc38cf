"""The context a request is answered in: the analysis it reads, made as far as it reads,
its positions' codec, and what else of the session it may read (``RequestContext``).

A request answered on the loop waits for its analysis, made on the worker
(``request_context``); a request answered on the worker makes its analysis, its context
and its answer in one job there (``context_here``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wf_core.base.collector import collector_paused
from wfls import convert
from wfls.context import RequestContext

if TYPE_CHECKING:
    from wf_core.version.snapshot import DocumentSnapshot
    from wfls.server import WflsServer
    from wfls.store import Depth, TextVersion


class RequestContexts:
    """Makes the contexts of one server's requests."""

    def __init__(self, server: WflsServer) -> None:
        self._server = server

    async def analysed(self, uri: str, depth: Depth) -> tuple[int, DocumentSnapshot] | None:
        """The latest version's analysis with its revision, made off the loop as far as
        ``depth`` unless it is (``DocumentStore.analyse``)."""
        current = self._server.store.current_snapshot(uri, depth)
        if current is not None:
            return current
        analysed: tuple[int, DocumentSnapshot] | None = await self._server.scheduler.in_worker(
            self._analyse_here, uri, depth
        )
        return analysed

    def _analyse_here(self, uri: str, depth: Depth) -> tuple[int, DocumentSnapshot] | None:
        # As the diagnostics' analysis (``Diagnostics.compute``): what a first analysis
        # makes lives as long as the document.
        with collector_paused(lasting=not self._server.store.has_analysed(uri)):
            return self._server.store.analyse(uri, depth)

    async def request_context(
        self,
        uri: str,
        *,
        local: bool = False,
        sent: TextVersion | None = None,
        maps_positions: bool = False,
        depth: Depth = "model",
    ) -> RequestContext | None:
        """The context of a request about ``uri``; None when it is not an open workflow.

        The request waits for the analysis of the latest version, made off the event
        loop (after a keystroke, only what it changed is made again). A ``local``
        request (about one place) reads the parts of the semantic index there, made on
        the spot; any other first has every part made, off the loop, unless they are.

        ``sent`` is the text the request was sent for. When the analysis answering is of
        a later text, a request that ``maps_positions`` reads and answers positions of
        the text it was sent for, mapped through the edits since (``MappedCodec``); any
        other gets ``ContentModified``.

        The view is analysed as far as ``depth`` first: its findings only for a request
        that reads them (code actions); any other is answered as soon as what it reads
        is made, the findings following for the diagnostics.
        """
        analysed = await self.analysed(uri, depth)
        if analysed is not None and not local and not analysed[1].index.is_complete:
            await self._server.scheduler.in_worker(analysed[1].index.complete)
        return self._context(uri, analysed, sent, maps_positions)

    def context_here(
        self,
        uri: str,
        *,
        sent: TextVersion | None = None,
        maps_positions: bool = False,
        depth: Depth = "model",
    ) -> RequestContext | None:
        """``request_context`` made on the worker, for a request answered there: its
        analysis, its context and its answer are one job, which no other job (a
        version's findings) comes between. It makes the index parts it reads itself."""
        return self._context(uri, self._analyse_here(uri, depth), sent, maps_positions)

    def _context(
        self,
        uri: str,
        analysed: tuple[int, DocumentSnapshot] | None,
        sent: TextVersion | None,
        maps_positions: bool,
    ) -> RequestContext | None:
        if analysed is None:
            return None
        revision, view = analysed
        encoding = self._server.flags.position_encoding
        codec = convert.PositionCodec(view.lines, encoding)
        if sent is not None and sent.revision != revision:
            region = self._server.store.region_between(uri, sent.revision, revision)
            if region is None or not maps_positions:
                raise convert.ContentModified()
            codec = convert.MappedCodec(sent.lines, view.lines, region, encoding)
        server = self._server
        return RequestContext(
            uri,
            view,
            codec,
            server.flags,
            server.settings,
            server,
            server.indexing.workflows,
            server.last_runs.get(uri),
            revision,
        )
