"""The wfls language server: the session's state, its wiring, ``serve``.

Lifecycle: ``create_server`` registers only ``initialize``. The initialize
handler resolves the client's capabilities into ``ClientFlags`` and registers every
other method from the routing table (``wfls.registry``), choosing pull or push
diagnostics for this client. pygls computes the server capabilities after the
initialize handler, so they advertise exactly what was registered.

The server is the :class:`~wfls.context.Session` that session handlers see; its
parts live beside it: the protocol and its lifecycle (``protocol``), when analyses
run (``scheduling``), the diagnostics (``diagnostics``), the workspace index
(``indexing``) and the link to the client (``connection``).

Invariants:

- A client that supports pull diagnostics is never pushed any; a client that
  does not is never offered pull (no ``diagnosticProvider``).
- Pushed diagnostics always carry the version they were computed for, and
  only the latest version of a document is ever published.
- Two threads share the server's state. The event loop thread runs every
  handler and alone changes the session: the open documents (``store``), the
  settings, the diagnostics cache and the cross-file counters. One analysis
  worker (``Scheduler.in_worker``) builds snapshots and diagnostics (for a push
  client encoded to JSON too, with a converter of its own) from values the loop hands
  it and returns results that the loop adopts only if they are still current
  (see ``Diagnostics.get``); the store's per-document lock and
  one-tuple updates make its reads safe, and the workspace index, which both
  threads update, takes its own lock. Runs of a workflow use a thread of their
  own and read only the snapshot they are given. The thread that reads stdin
  only frames messages (``transport``) and hands each to the loop; while one
  arrives, an index built ahead in the worker pauses (``Scheduler.quiet``).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, BinaryIO, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from wfls import __version__, client_log, convert
from wfls.capabilities import ClientFlags
from wfls.capabilities import resolve as resolve_flags
from wfls.connection import ClientConnection
from wfls.contexts import RequestContexts
from wfls.diagnostics import Diagnostics, DiagnosticsResult
from wfls.indexing import WorkspaceIndexing
from wfls.protocol import WflsProtocol
from wfls.registry import register_routes
from wfls.scheduling import SWITCH_INTERVAL, Scheduler
from wfls.settings import ProblemReports, Settings, parse_settings
from wfls.test_documents import TestDocuments

if TYPE_CHECKING:
    from wf_core.base.edits import Region
    from wf_core.version.snapshot import DocumentSnapshot
    from wf_core.version.view import AnalysisView
    from wf_core.workspace.catalog import Workspace
    from wfls.features.run import LastRun
    from wfls.store import DocumentStore
T = TypeVar("T")

# What a document's first diagnostics need (the parsers, the model's validators, the
# validation, the workspace index): imported once ``initialize`` is answered
# (``load_analysis``), not before, as that answer needs none of it. What a request
# handler computes with is imported when it is first called (a few milliseconds each).
ANALYSIS_MODULES = (
    "wfls.store",
    "wf_core.version.snapshot",
    "wf_core.workspace.checks",
    "wf_core.workspace.catalog",
    # The parser imports tree-sitter when a text first needs a tree, which a document
    # being edited soon does (a syntax error while typing): imported ahead here.
    "tree_sitter",
    "tree_sitter_toml",
    "tree_sitter_json",
)

logger = logging.getLogger("wfls")


class WflsServer(LanguageServer):
    protocol: WflsProtocol

    def __init__(self) -> None:
        super().__init__(
            "wfls",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=WflsProtocol,
            converter_factory=convert.protocol_converter,
        )
        self._store: DocumentStore | None = None
        self._lazily = threading.Lock()  # creates the store once
        self.last_runs: dict[str, LastRun] = {}  # per open document, for hover
        self.flags = ClientFlags()
        self.settings = Settings()
        self._settings_problems = ProblemReports()
        self.scheduler = Scheduler(self)
        self.diagnostics = Diagnostics(self)
        self.contexts = RequestContexts(self)
        self.indexing = WorkspaceIndexing(self)
        self.connection = ClientConnection(self)
        self.test_documents = TestDocuments(self)  # the open workflow test documents

    @property
    def store(self) -> DocumentStore:
        """The open documents and their analyses (made on first use: ``load_analysis``)."""
        if self._store is None:
            with self._lazily:
                if self._store is None:
                    from wfls.store import DocumentStore

                    self._store = DocumentStore()
        return self._store

    def load_analysis(self) -> None:
        """Import the analysis (on the event loop, right after the answer to ``initialize``
        is sent): a client takes the answer in and opens its documents meanwhile, and the
        first of them then waits for less of it, or none."""
        for name in ANALYSIS_MODULES:
            importlib.import_module(name)
        _ = self.diagnostics.encode_diagnostic  # made now, while the client opens documents

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdio with wfls' transport, not pygls' read loop (``connection``)."""
        self.connection.serve_stdio(stdin, stdout)

    def start_tcp(self, host: str, port: int) -> None:
        """Serve one client over TCP with wfls' transport (``connection``)."""
        self.connection.serve_tcp(host, port)

    # -- the session, as handlers see it (``wfls.context.Session``) ----------------------

    async def analysed(self, uri: str) -> DocumentSnapshot | None:
        """The full analysis of the latest version of ``uri``, its diagnostics pushed
        first when they are due (``Scheduler.push_first``)."""
        analysed = await self.contexts.analysed(uri, "findings")
        if analysed is not None:
            await self.scheduler.push_first(uri)
        return analysed[1] if analysed is not None else None

    async def parsed(self, uri: str) -> AnalysisView | None:
        """The latest text of ``uri`` parsed (the editor's, else the disk's), made off the
        loop: all that what reads every document of the workspace needs."""
        if uri in self.store:
            analysed = await self.contexts.analysed(uri, "parse")
            return analysed[1] if analysed is not None else None
        document = self.indexing.workflows.document(uri)
        if document is None:
            return None
        view: AnalysisView = await self.scheduler.in_worker(lambda: document.snapshot)
        return view

    async def off_loop(self, work: Callable[[], T]) -> T:
        """Run ``work`` on the analysis worker (one at a time with the analyses): its result."""
        done: T = await self.scheduler.in_worker(work)
        return done

    def remember_run(self, uri: str, run: LastRun) -> None:
        """Keep what a run of ``uri`` saw, for hover, until the next run or closing."""
        self.last_runs[uri] = run

    def codec_for(self, uri: str) -> convert.PositionCodec | None:
        """The codec of an open document, or of one the workspace index read from disk."""
        lines = self.store.lines(uri)
        if lines is None:
            document = self.indexing.workflows.document(uri)
            lines = document.snapshot.lines if document is not None else None
        return convert.PositionCodec(lines, self.flags.position_encoding) if lines else None

    def region_between(self, uri: str, old: int, new: int) -> Region | None:
        return self.store.region_between(uri, old, new)

    def document_uris(self) -> list[str]:
        """Every workflow document: the open ones, then the rest of the workspace."""
        uris = self.store.uris()
        documents = self.indexing.workflows.documents()
        return [*uris, *(d.uri for d in documents if d.uri not in uris)]

    @property
    def workflows(self) -> Workspace:
        """The workspace index: every workflow document, open or on disk."""
        return self.indexing.workflows

    def indexed(self, uri: str) -> AnalysisView | None:
        """The workspace index's analysis of a document (from disk when it is not open)."""
        document = self.indexing.workflows.document(uri)
        return document.snapshot if document is not None else None

    async def diagnostics_async(self, uri: str) -> DiagnosticsResult | None:
        return await self.diagnostics.get(uri)

    def result_id(self, uri: str) -> str:
        return self.diagnostics.result_id(uri)

    async def start_indexing(self) -> None:
        self.indexing.start()

    async def workspace_scanned(self) -> None:
        await self.indexing.scanned()

    async def files_changed(self, changes: list[tuple[str, bool]]) -> None:
        await self.indexing.files_changed(changes)

    def document_changed(self, uri: str, *, edited: bool = False) -> None:
        self.scheduler.document_changed(uri, edited=edited)

    def document_opened(self, uri: str) -> None:
        """The editor holds ``uri`` from now on: its analyses replace the disk's version
        in the workspace index until it is closed; analyse it."""
        self.indexing.workflows.opened(uri)
        self.scheduler.document_changed(uri)

    def document_closed(self, uri: str) -> None:
        """Forget what was kept for ``uri``, check what depends on it again (the index
        reads it from disk now), and clear its pushed diagnostics."""
        self.scheduler.forget(uri)
        self.diagnostics.forget(uri)
        self.last_runs.pop(uri, None)
        self.diagnostics.dependencies_changed(self.indexing.close(uri) - {uri})
        if not self.flags.pull_diagnostics:
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )

    def cancel_pending(self) -> None:
        self.scheduler.stop()

    def apply_settings(self, raw: object, origin: str) -> None:
        """Adopt settings from ``origin``; bad entries fall back and are reported, once for
        the same invalid configuration however often it is read (``ProblemReports``)."""
        settings, problems = parse_settings(raw)
        if self._settings_problems.to_report(problems):
            self.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Warning,
                    message=f"wfls: invalid settings in {origin} ({'; '.join(problems)}); "
                    "using the defaults for them",
                )
            )
        if settings != self.settings:
            rescan = settings.extra_globs != self.settings.extra_globs
            hints = _inlay_settings(settings) != _inlay_settings(self.settings)
            self.settings = settings
            if rescan:
                self.indexing.set_globs(settings.extra_globs)
            self.diagnostics.settings_changed()
            self.scheduler.all_changed()
            if hints and self.flags.inlay_hint_refresh and self.store.uris():
                self.workspace_inlay_hint_refresh(None)

    async def fetch_configuration(self) -> None:
        """Read section ``wfls`` through ``workspace/configuration`` when the client has it."""
        if not self.flags.configuration:
            return
        try:
            result = await self.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section="wfls")])
            )
        except Exception:
            logger.exception("workspace/configuration failed; keeping the current settings")
            return
        raw = result[0] if result else None
        if raw is not None:
            self.apply_settings(raw, "the workspace configuration")


def _inlay_settings(settings: Settings) -> tuple[bool, ...]:
    return (settings.inlay_item_types, settings.inlay_path_types, settings.inlay_owner_stacks)


def create_server() -> WflsServer:
    """A server that knows only ``initialize``; the rest is registered for the client."""
    server = WflsServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: WflsServer, params: types.InitializeParams) -> None:
        # Not wrapped: a failure here must fail the initialize request visibly.
        ls.connection.initialized()  # log lines may go to the client now
        ls.flags = resolve_flags(params.capabilities)
        register_routes(ls, ls)
        if params.initialization_options is not None:
            ls.apply_settings(params.initialization_options, "initializationOptions")
        ls.indexing.set_roots(params)
        ls.connection.watch_client(params.process_id)
        # The answer needs none of the analysis: it is imported once the answer is sent,
        # while the client takes it in (this runs on the event loop, in order).
        asyncio.get_running_loop().call_soon(ls.load_analysis)

    return server


def serve(tcp: str | None = None, log_level: str = "info") -> int:
    """Run the server on stdio (or a TCP socket) until the client exits.

    Returns 0 after an orderly shutdown, 1 when the client went away without
    one (the LSP exit-code convention), 2 for a bad ``--tcp`` argument.
    ``log_level`` (``error``, ``warning``, ``info`` or ``debug``) is the least severe
    record logged. Logs go to the client (``window/logMessage``) or to stderr, never to
    stdout, which carries the protocol (``wfls.client_log``).
    """
    server = create_server()
    # Below ERROR, to the client as ``window/logMessage`` once it can take them; else stderr.
    client_log.install(server.connection.log_to_client)
    logger.setLevel(log_level.upper())
    # The analysis thread is CPU-bound; with Python's default 5 ms switch interval, the
    # event loop waits up to 5 ms for the GIL at every read, write and hand-off of a
    # request, which adds tens of milliseconds to a completion while an analysis runs.
    sys.setswitchinterval(SWITCH_INTERVAL)
    if tcp is not None:
        host, _, port = tcp.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            print(
                f"wfls: --tcp expects HOST:PORT with a port from 1 to 65535, not {tcp!r}",
                file=sys.stderr,
            )
            return 2
        try:
            server.start_tcp(host.strip("[]"), int(port))
        except SystemExit as stop:  # the client's ``exit``: the status is the answer
            return stop.code if isinstance(stop.code, int) else 1
        except OSError as error:
            print(f"wfls: cannot listen on {tcp}: {error.strerror or error}", file=sys.stderr)
            return 2
    else:
        server.start_io()
    return 0 if server.protocol.shut_down else 1
