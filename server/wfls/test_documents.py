"""The open workflow test documents, as the session holds them.

A test document is not a workflow: the document store (``wfls.store``) tracks only
``*.wf.toml``/``*.wf.json`` and leaves test documents to pygls' own copy of every open
document, which the protocol keeps as the editor has it (``WflsProtocol`` applies each
change to it). This reads that copy, once per text: the reader's result is kept until
the text changes, and the workflow it names is looked up in the workspace index.
Reading and checking run on the analysis worker, as a workflow's analysis does, since
finding the workflow may analyse it.

Diagnostics: a pulling client asks for them (``textDocument/diagnostic``); a client
that is pushed to gets them after each open and change, published only for the text
they were computed from.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from lsprotocol import types

from wf_core.base.reading import syntax_for_path
from wfls import convert
from wfls.context import TestRequestContext

if TYPE_CHECKING:
    from wf_core.workflow_tests import LoadedTests
    from wfls.features.test_documents import TestDocumentView
    from wfls.server import WflsServer

logger = logging.getLogger("wfls")


def is_test_document(uri: str) -> bool:
    """A test document by its URI's name (as a workflow document is told by its)."""
    from wf_core.workflow_tests import is_test_document as named_so

    return named_so(unquote(urlparse(uri).path) or uri)


def _base(uri: str) -> Path | None:
    """The folder a ``workflow = "../x.wf.toml"`` path is relative to (None: no file)."""
    parsed = urlparse(uri)
    return Path(unquote(parsed.path)).parent if parsed.scheme == "file" else None


class TestDocuments:
    __test__ = False  # not a pytest class

    def __init__(self, server: WflsServer) -> None:
        self._server = server
        self._read: dict[str, tuple[str, LoadedTests]] = {}  # per uri: the text read, its reading
        self._pushes: set[asyncio.Task[None]] = set()  # kept until done (the loop keeps weak ones)
        self._after: dict[str, asyncio.Task[None]] = {}  # per workflow: its pending re-check
        self._stale: set[str] = set()  # workflows changed since their re-check began

    def text(self, uri: str) -> tuple[str, int] | None:
        """The text of an open test document as the editor has it, and its version."""
        if not is_test_document(uri):
            return None
        document = self._server.workspace.text_documents.get(unquote(uri))
        return (document.source, document.version or 0) if document is not None else None

    def _view(self, uri: str, text: str) -> TestDocumentView:
        """Runs on the worker: the document read (again only for a new text), the
        workflow it names looked up."""
        from wf_core.workflow_tests import read_test_document
        from wfls.features.test_documents import TestDocumentView

        kept = self._read.get(uri)
        if kept is not None and kept[0] == text:
            loaded = kept[1]
        else:
            loaded = read_test_document(
                text, syntax_for_path(unquote(urlparse(uri).path)) or "toml"
            )
            self._read[uri] = (text, loaded)
        return TestDocumentView(uri, loaded, self._server.indexing.workflows, _base(uri))

    async def context(self, uri: str) -> TestRequestContext | None:
        """The context of a request about an open test document (None: it is not one)."""
        found = self.text(uri)
        if found is None:
            return None
        await self._server.workspace_scanned()
        view: TestDocumentView = await self._server.scheduler.in_worker(self._view, uri, found[0])
        server = self._server
        codec = convert.PositionCodec(view.loaded.lines, server.flags.position_encoding)
        return TestRequestContext(uri, view, codec, server.flags)

    async def diagnostics(self, uri: str) -> list[types.Diagnostic] | None:
        """The diagnostics of an open test document: the one check's findings."""
        ctx = await self.context(uri)
        if ctx is None:
            return None
        items: list[types.Diagnostic] = await self._server.scheduler.in_worker(_diagnostics, ctx)
        return items

    def changed(self, uri: str) -> None:
        """After an open or a change: a client that does not pull is pushed the findings."""
        if self._server.flags.pull_diagnostics or not is_test_document(uri):
            return
        task = asyncio.ensure_future(self._push(uri))
        self._pushes.add(task)
        task.add_done_callback(self._pushes.discard)

    async def _push(self, uri: str) -> None:
        before = self.text(uri)
        try:
            items = await self.diagnostics(uri)
        except Exception:
            logger.exception("the checks of %s failed", uri)
            return
        after = self.text(uri)
        if items is None or before is None or after != before:
            return  # closed, or changed since: the push after that change publishes
        self._server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=after[1])
        )

    def workflow_changed(self, uri: str) -> None:
        """After a workflow document is opened or edited: the open test documents' findings
        may change with it (a node renamed, an outcome removed). Once its latest analysis is
        in the workspace index they are pushed again, or a pulling client is asked to pull."""
        if not self._read:
            return  # no test document read yet
        self._stale.add(uri)
        if uri not in self._after:
            self._after[uri] = asyncio.ensure_future(self._after_workflow(uri))

    async def _after_workflow(self, uri: str) -> None:
        """Re-checks until no change of ``uri`` is left. It leaves ``_after`` itself, right
        after its last look at ``_stale`` and with no wait between (a done callback would
        run later, and a change handled in between would find it still there, and be lost)."""
        server = self._server
        try:
            while uri in self._stale:  # changed again meanwhile: once more, after its analysis
                self._stale.discard(uri)
                try:
                    await server.diagnostics_async(uri)  # puts its analysis in the index
                except Exception:
                    logger.exception("the analysis of %s failed", uri)
                    return
                if server.flags.pull_diagnostics:
                    server.workspace_diagnostic_refresh(None)
                    continue
                for test in list(self._read):
                    await self._push(test)
        finally:
            self._after.pop(uri, None)

    def closed(self, uri: str) -> None:
        """Forget its reading, and clear what was pushed."""
        if self._read.pop(uri, None) is None and not is_test_document(uri):
            return
        if not self._server.flags.pull_diagnostics:
            self._server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )


def _diagnostics(ctx: TestRequestContext) -> list[types.Diagnostic]:
    from wfls.features.test_documents import diagnostics

    return [
        types.Diagnostic(
            range=ctx.codec.range(finding.span),
            message=finding.message,
            severity=types.DiagnosticSeverity.Error,
            code=str(finding.code),
            source=convert.SOURCE,
        )
        for finding in diagnostics(ctx.view)
    ]
