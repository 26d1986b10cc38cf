"""The wfls language server: state, the one feature registration point, ``serve``.

Lifecycle: ``create_server`` registers only ``initialize``. The initialize
handler resolves the client's capabilities into ``ClientFlags`` and calls
``register_features``, which registers every other method, choosing pull or
push diagnostics for this client. pygls computes the server capabilities
after the initialize handler, so they advertise exactly what was registered.

Invariants:

- A client that supports pull diagnostics is never pushed any; a client that
  does not is never offered pull (no ``diagnosticProvider``).
- Pushed diagnostics always carry the version they were computed for, and
  only the latest version of a document is ever published.
- Two threads share the server's state. The event loop thread runs every
  handler and alone changes the session: the open documents (``store``), the
  settings, the diagnostics cache and the cross-file counters. One analysis
  worker (``in_worker``) builds snapshots and diagnostics (for a push client
  encoded to JSON too, with a converter of its own) from values the loop hands
  it and returns results that the loop adopts only if they are still current
  (see ``diagnostics_async``); the store's per-document lock and
  one-tuple updates make its reads safe, and the workspace index, which both
  threads update, takes its own lock. Runs of a workflow use a thread of their
  own and read only the snapshot they are given. The thread that reads stdin
  only frames messages (``transport``) and hands each to the loop; while one
  arrives, an index built ahead in the worker pauses (``quiet``).

Protocol guarantees beyond pygls (``WflsProtocol``): every request gets a
reply (``ServerNotInitialized`` before ``initialize``, ``InvalidRequest``
after ``shutdown`` or for a second ``initialize``, ``InvalidParams`` for params
that do not decode, ``ParseError`` for a body that is not JSON); notifications
the server does not know are dropped quietly; edits are applied with the
same position rules as requests; the server exits when the client process
named in ``initialize`` is gone.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, cast
from urllib.parse import unquote

from cattrs.errors import ClassValidationError
from cattrs.v import transform_error
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
    JsonRpcServerNotInitialized,
)
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, default_converter, lsp_method

from wf_core.collector import collector_paused
from wf_core.edits import apply_in_order
from wf_core.records import record
from wf_core.spans import LineIndex
from wf_core.workspace.files import Roots, path_of_uri
from wfls import __version__, client_log, convert, transport
from wfls.capabilities import ClientFlags
from wfls.capabilities import resolve as resolve_flags
from wfls.context import RequestContext
from wfls.diagnostics_memo import DiagnosticsMemo, Encode, diagnostic_encoder, publish_params
from wfls.registry import register_routes
from wfls.settings import ProblemReports, Settings, parse_settings

if TYPE_CHECKING:
    from wf_core.snapshot import DocumentSnapshot
    from wf_core.view import AnalysisView
    from wf_core.workspace.index import ScanResult, Workspace
    from wfls.features.run import LastRun
    from wfls.store import DocumentStore

# What a document's first diagnostics need (the parsers, the model's validators, the
# validation, the workspace index): imported once ``initialize`` is answered
# (``load_analysis``), not before, as that answer needs none of it. Request handlers
# are imported when first called (a few milliseconds each).
ANALYSIS_MODULES = (
    "wfls.store",
    "wf_core.overlay",
    "wf_core.snapshot",
    "wf_core.workspace.checks",
    "wf_core.workspace.index",
    # The parser imports tree-sitter when a text first needs a tree, which a document
    # being edited soon does (a syntax error while typing): imported ahead here.
    "tree_sitter",
    "tree_sitter_toml",
    "tree_sitter_json",
)

logger = logging.getLogger("wfls")


class _DecodeNoise(logging.Filter):
    """pygls logs a traceback for every request it cannot decode; wfls answers those
    with ``InvalidParams`` and logs one line, so the traceback is noise."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Unable to deserialize message")


logging.getLogger("pygls.protocol.json_rpc").addFilter(_DecodeNoise())

INDEX_AHEAD_DELAY = 0.25
"""Quiet time after a version's diagnostics before its semantic index is built ahead."""
FIRST_INDEX_SHARE = 0.25
"""How long a document's first index is built at a stretch before it lets the analysis
of a newer version go first (it then goes on from where it stopped)."""
QUIET_WAIT = 1.0
"""The longest an index built ahead pauses for one arriving message (a safety net: the
transport ends every pause once the loop has handled the message)."""
EDIT_GRACE = 0.005
"""Seconds an edit's analysis waits before it starts: editors send a completion or
signature request right behind the change that triggers it, and that request is answered
first instead of queueing for the interpreter lock behind the analysis."""
EDIT_GRACE_LIMIT = 0.1
"""The longest an edit's analysis is put off, grace by grace, while requests are being
answered (``WflsProtocol.answering``): a request that arrived within the grace but takes
longer than it to answer (a 6 MB full-document change is read and applied first) would
otherwise be answered while the analysis holds the interpreter lock, in stretches of
whole-text operations that do not let it go."""
SWITCH_INTERVAL = 0.001
"""Seconds a thread may hold the GIL while another waits (Python's default: 0.005)."""
PARENT_POLL = 3.0
"""Seconds between two checks that the client process named in ``initialize`` lives."""


@record
class RejectedRequest:
    """A request that could not be decoded; it is answered with ``error``."""

    id: Any
    method: str
    error: JsonRpcException
    jsonrpc: str = "2.0"


class WflsProtocol(LanguageServerProtocol):
    """pygls' protocol with the LSP lifecycle enforced and the futures it leaves behind
    for notifications pruned.

    pygls 2.1.1 stores a future per notification handled through a built-in
    handler (didOpen/didChange/didClose...) and never removes it, so a long
    editing session would grow without bound. A finished future is of no use to
    anyone: responses and cancellations look futures up by id and tolerate a
    missing one.
    """

    _server: WflsServer

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Ids of the requests dispatched to a handler and not yet answered: an id is
        # added before dispatch and removed when its response (or error) is sent. (Set
        # first: pygls looks the protocol's attributes over while it is made.)
        self._unanswered: set[Any] = set()
        super().__init__(*args, **kwargs)

    def notify_encoded(self, method: str, params: bytes) -> None:
        """Send a notification whose params are JSON already (``publish_params``): a
        large document's diagnostics are encoded by the worker, and the event loop only
        frames and writes them, with the framing pygls gives every message."""
        if self.writer is None:
            logger.error("cannot send %s: no transport", method)
            return
        body = b'{"jsonrpc": "2.0", "method": %s, "params": %s}' % (
            json.dumps(method).encode(),
            params,
        )
        header = (
            f"Content-Length: {len(body)}\r\n"
            f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
        )
        self.writer.write(header.encode() + body)

    def structure_message(self, data: Any) -> Any:
        """Deserialize, turning a request whose params do not fit into a rejection.

        pygls raises while decoding such a request, before it knows which request
        it was, so the client would wait for a reply that never comes. A request
        always gets an answer: here, ``InvalidParams`` at once.
        """
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if isinstance(data, dict) and "id" in data and "method" in data:
                cause = error.__cause__
                if isinstance(cause, ClassValidationError):
                    detail = "; ".join(transform_error(cause))
                    error = JsonRpcInvalidParams(f"Invalid Params: {detail}")
                return RejectedRequest(data["id"], str(data["method"]), error)
            raise

    _initialize_seen = False

    @property
    def answering(self) -> bool:
        """Whether a request has been dispatched and not yet answered."""
        return bool(self._unanswered)

    def _send_response(
        self, msg_id: Any, result: Any | None = None, error: Any | None = None
    ) -> None:
        self._unanswered.discard(msg_id)
        super()._send_response(msg_id, result=result, error=error)

    def handle_message(self, message: Any) -> None:
        """Apply the LSP lifecycle before pygls dispatches (pygls would answer requests
        before ``initialize``, run a second ``initialize``, and leave requests after
        ``shutdown`` unanswered): requests get the error the specification names,
        notifications the server cannot take are dropped."""
        method = getattr(message, "method", None)
        request = isinstance(message, RejectedRequest) or (
            method is not None and getattr(message, "id", None) is not None
        )
        refusal: JsonRpcException | None = None
        if method is None and self._shutdown and not isinstance(message, RejectedRequest):
            # The client's reply to a request the server sent before ``shutdown``, which
            # cancelled it: nothing waits for it. (pygls would warn on stderr, which
            # editors log as an error, of what is the client's ordinary behaviour.)
            logger.debug("a reply to request %s after shutdown: dropped", message.id)
            return
        if method is None or method == types.EXIT:
            pass  # responses, and exit, which is always obeyed
        elif not self._initialize_seen and method != types.INITIALIZE:
            refusal = JsonRpcServerNotInitialized(f"{method}: the server is not initialized yet")
        elif self._initialize_seen and method == types.INITIALIZE:
            refusal = JsonRpcInvalidRequest("initialize may only be sent once")
        elif self._shutdown:
            refusal = JsonRpcInvalidRequest(f"{method}: the server is shutting down")
        if refusal is not None:
            if request:
                self._send_response(message.id, error=refusal.to_response_error())
            else:
                logger.debug("dropped %s: %s", method, refusal.message)
            return
        if isinstance(message, RejectedRequest):
            logger.warning("%s: %s", message.method, message.error.message)
            self._send_response(message.id, error=message.error.to_response_error())
            return
        if method == types.INITIALIZE:
            self._initialize_seen = True
        elif method is not None and not request and not self._handles(method):
            # Unknown notifications, ``$/`` ones included, may be ignored (LSP).
            logger.debug("ignored the notification %s", method)
            return
        if request:
            self._unanswered.add(message.id)
        super().handle_message(message)

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        """Answer a request. An error the handler raised on purpose (``RequestFailed``
        for a refused rename, ``InvalidParams``) is the answer, not a server failure:
        pygls would log a traceback at error level for each; one info line here."""
        if not future.cancelled() and isinstance(future.exception(), JsonRpcException):
            error: JsonRpcException = future.exception()
            self._request_futures.pop(msg_id, None)
            logger.info("request %s answered with error %d: %s", msg_id, error.code, error.message)
            self._send_response(msg_id, error=error.to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)

    def _handles(self, method: str | None) -> bool:
        return method == types.CANCEL_REQUEST or (
            method in self.fm.builtin_features or method in self.fm.features
        )

    def handle_body(self, body: bytes) -> None:
        """One framed message from the transport: decode it, answer what cannot be."""
        data, problem = transport.parse(body)
        if data is None:
            error: JsonRpcException = (
                JsonRpcParseError("the message is not JSON")
                if problem == "parse"
                else JsonRpcInvalidRequest("the message is not a JSON-RPC 2.0 message")
            )
            logger.warning("%s (%d bytes): %s", error.message, len(body), body[:80])
            self._send_data({"jsonrpc": "2.0", "id": None, "error": _error_object(error)})
            return
        try:
            message = self.structure_message(data)
        except JsonRpcException as error:
            logger.warning("%s: ignored a message that does not decode", data.get("method"))
            if "method" not in data:  # a reply to the server's request: fail that request
                future = self._request_futures.pop(data["id"], None)
                if future is not None and not future.done():
                    future.set_exception(error)
            return
        self.handle_message(message)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        """Run the wfls handler, which applies the edits to the store's text, and make
        pygls' copy of the document that text.

        pygls keeps a copy of every open document and offers no way not to; wfls reads
        from it only whether a document is open. pygls' own application of the edits
        disagrees with the specification at the edges (``convert.edit_at`` reads
        positions as requests do), so the copy is replaced by the text the edits made
        here: the store's for a workflow document, else the same edits applied to the
        copy (a document the store does not track). The two are never compared. An
        edit of a document that is not open is ignored.
        """
        uri = params.text_document.uri
        document = self.workspace.text_documents.get(unquote(uri))
        if document is None:
            logger.warning("didChange of %s, which is not open: ignored", uri)
            return
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None
        text = self._server.store.text(uri)
        if text is None:
            encoding = self._server.flags.position_encoding
            edits = [convert.edit_at(change, encoding) for change in params.content_changes]
            text = apply_in_order(LineIndex(document.source), edits)[0].text
        document.apply_change(types.TextDocumentContentChangeWholeDocument(text=text))
        document.version = params.text_document.version

    def _handle_notification(self, method_name: str, params: Any) -> None:
        super()._handle_notification(method_name, params)
        futures = self._request_futures
        if futures:
            for key in [k for k, f in futures.items() if f.done()]:
                del futures[key]


def _error_object(error: JsonRpcException) -> dict[str, Any]:
    return {"code": error.code, "message": error.message}


@record
class DiagnosticsResult:
    """Converted diagnostics of one document under one settings generation.

    ``affected``: the documents whose cross-file findings this analysis may have
    changed (callers of the workflow, the other documents with its name).
    """

    uri: str
    version: int | None
    result_id: str
    items: list[types.Diagnostic]
    affected: frozenset[str] = frozenset()
    revision: int | None = None  # the store's revision analysed (None: from disk)
    published: bytes | None = None  # push clients: the publishDiagnostics params, as JSON
    # Made before the workspace was indexed: the document's own findings only (its
    # cross-file ones could name a child the index has not read yet).
    withheld: bool = False


class WflsServer(LanguageServer):
    protocol: WflsProtocol

    def __init__(self) -> None:
        super().__init__(
            "wfls",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=WflsProtocol,
        )
        self._store: DocumentStore | None = None
        self._roots = Roots([])
        self._workflows: Workspace | None = None
        self._lazily = threading.Lock()  # creates the store and the workspace index once
        self._last_runs: dict[str, LastRun] = {}  # per open document, for hover
        self._cross: dict[str, int] = {}  # per URI: changes of the documents it depends on
        self._indexing: asyncio.Future[None] | None = None
        self._indexed_roots: Roots | None = None  # the roots whose scan has finished
        # Set (and replaced by a fresh one) at the end of every scan of the current roots.
        self._scan_ended = asyncio.Event()
        # Documents whose last diagnostics withheld their cross-file findings (made before
        # the scan finished): made again once it has.
        self._withheld: set[str] = set()
        self.flags = ClientFlags()
        self.settings = Settings()
        self._settings_generation = 0
        self._settings_problems = ProblemReports()
        self._diagnostics: dict[str, DiagnosticsResult] = {}
        self._pending_push: dict[str, asyncio.Handle] = {}
        # A document has at most one push in progress; changes meanwhile ask for one more
        # after it (``schedule_push``), so a burst of edits costs two analyses, not one each.
        self._pushing: set[str] = set()
        self._push_again: set[str] = set()
        self._push_tasks: set[asyncio.Future[None]] = set()
        # What the client was last sent for each open document (push clients): a push that
        # would repeat it is left out, so documents are pushed only when their findings
        # (or version) changed, however often they are checked again.
        self._published: dict[str, bytes] = {}
        # Documents whose first semantic index is being built (``_index_ahead``).
        self._first_indexes: set[str] = set()
        # One worker: analyses of a document are serialised by its lock anyway, and a
        # second CPU-bound thread would only compete with the event loop for the GIL.
        self._analysis = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wfls-analysis")
        self._watchdog: asyncio.Future[None] | None = None
        self._closing = False
        self.quiet = threading.Event()
        """Set while no message arrives: the transport clears it from a message's first
        byte until the loop has handled it (``wait_for_quiet``)."""
        self.quiet.set()
        self.on_analysis: Callable[[str], None] | None = None
        """Called on the worker with the document's URI as each analysis for diagnostics
        begins, after its pause for an arriving message: what a test waits for, or
        checks the order of, since nothing reaches the client at that moment."""
        # The event loop serving the client, once ``initialize`` came (``log_to_client``).
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self._client_gone = False

    @cached_property
    def _worker_converter(self) -> Any:
        """The worker's own converter: cattrs builds its hooks lazily, on first use, so
        the protocol's, used on the loop, is not shared with another thread. Made by the
        first analysis (or ``load_analysis``), not before ``initialize`` is answered:
        making one resolves every protocol class's annotations (20 ms)."""
        return default_converter()  # type: ignore[no-untyped-call]

    @cached_property
    def _encode_diagnostic(self) -> Encode:
        return diagnostic_encoder(self._worker_converter)

    @property
    def store(self) -> DocumentStore:
        """The open documents and their analyses (made on first use: ``load_analysis``)."""
        if self._store is None:
            with self._lazily:
                if self._store is None:
                    from wfls.store import DocumentStore

                    self._store = DocumentStore()
        return self._store

    @property
    def workflows(self) -> Workspace:
        """The workspace index of the current roots (made on first use)."""
        if self._workflows is None:
            with self._lazily:
                if self._workflows is None:
                    from wf_core.workspace.index import Workspace

                    self._workflows = Workspace(self._roots)
        return self._workflows

    def _new_roots(self, roots: Roots) -> None:
        """Index ``roots`` from now on (a fresh workspace index, made on first use)."""
        with self._lazily:
            self._roots, self._workflows = roots, None

    def load_analysis(self) -> None:
        """Import the analysis (on the event loop, right after the answer to ``initialize``
        is sent): a client takes the answer in and opens its documents meanwhile, and the
        first of them then waits for less of it, or none."""
        for name in ANALYSIS_MODULES:
            importlib.import_module(name)
        _ = self._encode_diagnostic  # made now, while the client opens its documents

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdio with wfls' transport (``transport``) instead of pygls' read
        loop, until the input ends or the client sends ``exit``."""
        self._stop_event = threading.Event()
        output, given = stdout or sys.stdout.buffer, stdin or sys.stdin.buffer
        for end in (given, output):
            transport.widen_pipe(end)
        self.protocol.set_writer(StdoutWriter(output))
        stream = transport.private_reader(given)
        try:
            asyncio.run(
                transport.serve_stream(stream, self.protocol.handle_body, _problem, self.quiet)
            )
        except BrokenPipeError:
            self._client_gone = True
            logger.info("the client closed its end of the connection")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]  # pygls leaves it unannotated

    def start_tcp(self, host: str, port: int) -> None:
        """Serve the first client that connects to ``host:port``, with the same transport
        as stdio (framing, blocking writes, a reading thread), until it disconnects or
        sends ``exit``; ``exit`` ends here as ``SystemExit`` with the exit status.

        pygls' own TCP server buffers replies without limit for a client that stops
        reading and keeps pygls' read loop; here the accepted socket is taken over from
        asyncio (a duplicate of its descriptor, in blocking mode) and served like stdio.
        A listening error (a busy port) is raised as ``OSError``."""
        self._stop_event = threading.Event()
        asyncio.run(self._serve_tcp(host, port))

    async def _serve_tcp(self, host: str, port: int) -> None:
        loop = asyncio.get_running_loop()
        accepted: asyncio.Future[socket.socket] = loop.create_future()

        def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if accepted.done():  # one client per server, as over stdio
                writer.close()
                return
            channel = cast(asyncio.Transport, writer.transport)
            channel.pause_reading()
            original = writer.get_extra_info("socket")
            connection = socket.socket(fileno=os.dup(original.fileno()))
            connection.setblocking(True)
            channel.abort()  # closes asyncio's descriptor, not the connection
            accepted.set_result(connection)

        listener = await asyncio.start_server(connected, host, port)
        logger.info("listening on %s:%d", host, port)
        async with listener:
            connection = await accepted
        with connection:
            self.protocol.set_writer(StdoutWriter(connection.makefile("wb")))
            stream = cast(BinaryIO, connection.makefile("rb", buffering=transport.READ_BUFFER))
            await transport.serve_stream(stream, self.protocol.handle_body, _problem, self.quiet)

    def log_to_client(self, kind: types.MessageType, message: str) -> bool:
        """Send ``message`` as ``window/logMessage`` (from any thread: another thread's is
        sent by the loop); False when the client cannot take it: before ``initialize``,
        after ``shutdown``, once it is gone (``wfls.client_log``)."""
        loop = self._client_loop
        if loop is None or not self._can_log():
            return False
        params = types.LogMessageParams(type=kind, message=message)
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._send_log(params)
            return True
        if loop.is_closed():
            return False
        try:
            loop.call_soon_threadsafe(self._send_log, params)
        except RuntimeError:  # closed meanwhile
            return False
        return True

    def _can_log(self) -> bool:
        return not (self._client_gone or self.protocol._shutdown or self.protocol.writer is None)

    def _send_log(self, params: types.LogMessageParams) -> None:
        if not self._can_log():
            return
        try:
            self.window_log_message(params)
        except OSError:
            self._client_gone = True  # the pipe is closed: what follows goes to stderr

    def watch_client(self, pid: int | None) -> None:
        """Exit when the client process ``pid`` (``processId`` of ``initialize``) is gone,
        as LSP asks of a server whose client died without ``shutdown``/``exit``. A pid
        that is not alive already (a client in another pid namespace) is not watched."""
        if pid is None or pid <= 0 or os.name != "posix":
            return
        if not _alive(pid):
            logger.warning("the client's process %d is not visible here: not watching it", pid)
            return
        self._watchdog = asyncio.ensure_future(self._watch_client(pid))

    async def _watch_client(self, pid: int) -> None:
        while _alive(pid):
            await asyncio.sleep(PARENT_POLL)
        self._client_gone = True
        logger.warning("the client's process %d is gone: exiting", pid)
        # Ends the event loop and so ``serve`` (exit status 1: no shutdown came).
        raise SystemExit(1)

    async def in_worker(self, function: Callable[..., Any], *args: Any) -> Any:
        """Run an analysis off the event loop, so requests keep being answered meanwhile.

        After ``shutdown`` the worker takes nothing more: the caller is cancelled."""
        if self._closing:
            raise asyncio.CancelledError
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._analysis, function, *args)

    async def analysed(self, uri: str) -> DocumentSnapshot | None:
        """The full analysis of the latest version of ``uri``."""
        if self.store.is_current(uri):
            return self.store.snapshot(uri)
        snapshot: DocumentSnapshot | None = await self.in_worker(self.store.snapshot, uri)
        return snapshot

    async def diagnostics_async(self, uri: str) -> DiagnosticsResult | None:
        """The diagnostics of ``uri``: the latest version if open, else what is on disk.

        Ownership: the event loop alone reads and writes the result cache and the
        cross-file counters; the worker only computes (``_compute_diagnostics``), from
        the settings and result id the loop hands it, so a settings change on the
        loop can never be overwritten by a result computed under the old settings.
        Enforced here: the result is cached only if, back on the loop, neither the
        settings generation nor the document's revision moved while it was computed.
        """
        result_id = self._result_id(uri)
        cached = self._diagnostics.get(uri)
        if cached is not None and cached.result_id == result_id:
            return cached
        generation = self._settings_generation
        result: DiagnosticsResult | None = await self.in_worker(
            self._compute_diagnostics,
            uri,
            result_id,
            self.settings,
            self.flags,
            self.workspace_indexed,
        )
        if result is None:
            return None
        if result.affected:
            self._dependencies_changed(result.affected - {uri})
        if result.withheld:
            self._withhold(uri)
        if (
            generation == self._settings_generation
            and result.result_id == self._result_id(uri)
            and result.revision == self.store.revision(uri)
        ):
            self._diagnostics[uri] = result
        if result.revision is not None:
            self._index_ahead(uri, result.revision)
        return result

    def _index_ahead(self, uri: str, revision: int) -> None:
        """Build the semantic index of ``revision`` in the worker, so that the next request
        does not wait for it.

        A document's first index is built at once and finished even when newer
        revisions arrive meanwhile: every editor feature reads an index, and until one
        exists none can see through an edit, so each request would wait for a whole
        build (five seconds at 16,000 nodes). It gives way to the analysis of an edit
        after each share of the worker (``FIRST_INDEX_SHARE``) and goes on from where it
        stopped; requests meanwhile see through it and wait for the rest of it
        (``DocumentStore.editing_snapshot``).
        Later indexes are built after a quiet moment and give way (between nodes) as
        soon as a newer revision arrives, so they never delay its analysis by more than
        a few nodes' work. Either pauses while a message arrives."""
        first = not self.store.has_indexed(uri)
        if first and uri in self._first_indexes:
            return  # the first build is under way: it serves this revision too
        started = [0.0]  # when the current slice of the build began

        def stale() -> bool:
            return self.store.revision(uri) != revision

        def give_way() -> bool:
            self.wait_for_quiet()
            if not first:
                return stale()
            if self.store.revision(uri) is None:
                return True  # closed
            # The first index pauses for the analysis of a newer version once it has had
            # its share of the worker, and goes on from where it stopped afterwards.
            waiting = not self.store.is_current(uri)
            return waiting and time.monotonic() - started[0] >= FIRST_INDEX_SHARE

        def build_slice(snapshot: DocumentSnapshot) -> bool:
            started[0] = time.monotonic()
            # Frozen rather than scanned when the pause ends (``collector``): a document's
            # first index lives as long as the document; a later one as long as its
            # version is the latest, and it is given up when a newer version arrives,
            # which is when the user types and the completion sent with the change waits
            # on whatever holds the interpreter lock. A young scan of what the build made
            # took 80-100 ms at 16,000 nodes, finding it all alive (the snapshot holds it)
            # and answering that completion after it. No index holds reference cycles: a
            # replaced version's is freed by reference counting, frozen or not.
            with collector_paused(lasting=True):
                return snapshot.build_index(give_way)

        async def build() -> None:
            if first:
                snapshot = self.store.kept_snapshot(uri, revision)
            else:
                await asyncio.sleep(INDEX_AHEAD_DELAY)
                current = self.store.current_snapshot(uri)
                snapshot = current[1] if current is not None and not stale() else None
            if snapshot is None:
                return
            if first:
                self.store.first_index_under_way(uri, snapshot, revision)
                # What a completion inside a node reads while this index is under way.
                await self.in_worker(_node_views_ahead, snapshot)
            while not (snapshot.has_index or await self.in_worker(build_slice, snapshot)):
                if not first or self.store.revision(uri) is None:
                    return  # given up: a newer version came, or the document was closed
                # Paused: the newer version is analysed first (its push, queued or not,
                # finds the analysis done), then the build goes on.
                await self.in_worker(self.store.analyse, uri)
            self.store.mark_indexed(uri, snapshot, revision if first else None)

        if first:
            self._first_indexes.add(uri)

        task = asyncio.ensure_future(build())
        self._push_tasks.add(task)
        task.add_done_callback(self._push_tasks.discard)
        if first:
            task.add_done_callback(lambda _: self._first_indexes.discard(uri))

    def wait_for_quiet(self) -> None:
        """Pause while a message arrives, up to ``QUIET_WAIT``: work that can wait calls
        this in the worker, so that an arriving edit (which may make that work stale) or
        request does not queue for the interpreter lock behind it. Never on the loop,
        which is what ends the pause."""
        self.quiet.wait(QUIET_WAIT)

    def document_uris(self) -> list[str]:
        """Every workflow document: the open ones, then the rest of the workspace."""
        uris = self.store.uris()
        return [*uris, *(d.uri for d in self.workflows.documents() if d.uri not in uris)]

    def indexed(self, uri: str) -> AnalysisView | None:
        """The workspace index's analysis of a document (from disk when it is not open)."""
        document = self.workflows.document(uri)
        return document.snapshot if document is not None else None

    def result_id(self, uri: str) -> str:
        return self._result_id(uri)

    def _result_id(self, uri: str) -> str:
        # The store's revision, not the client's version: a client that repeats a
        # version number for another text must not be told "unchanged".
        revision = self.store.revision(uri)
        return f"{'disk' if revision is None else revision}.{self._settings_generation}." + str(
            self._cross.get(uri, 0)
        )

    async def request_context(
        self, uri: str, *, while_typing: bool = False, at: types.Position | None = None
    ) -> RequestContext | None:
        """The context of a request about ``uri``; None when it is not an open workflow.

        With ``while_typing``, an edit confined to one string literal is answered from
        the previous analysis seen through that edit (``DocumentStore.editing_snapshot``)
        while the full analysis of the latest version is pending; otherwise the
        request waits for that analysis, which runs off the event loop, as does the
        first build of a snapshot's semantic index. A request about the place ``at``
        inside a node is not kept waiting for that index: it sees the analysis through
        the index of that node alone (``wf_core.node_view``), and, should it need more,
        raises ``IndexIncomplete`` and is asked again without ``at``.
        """
        view: AnalysisView | None = self.store.editing_snapshot(uri) if while_typing else None
        if view is None:
            view = await self.analysed(uri)
        if view is None:
            return None
        from wf_core.overlay import EditedSnapshot
        from wf_core.snapshot import DocumentSnapshot

        # The semantic index of a large document takes a while to build: off the loop.
        indexable = view.base if isinstance(view, EditedSnapshot) else view
        # (a node's view has the lines of the view it is made from)
        codec = convert.PositionCodec(view.lines, self.flags.position_encoding)
        if isinstance(indexable, DocumentSnapshot) and not indexable.has_index:
            local = self._at_node(view, codec.offset(at)) if at is not None else None
            if local is not None:
                view = local
            else:
                await self.in_worker(getattr, indexable, "index")
                self.store.mark_indexed(uri, indexable)
        return RequestContext(
            uri,
            view,
            codec,
            self.flags,
            self.settings,
            self,
            self.workflows,
            self._last_runs.get(uri),
        )

    def _at_node(self, view: AnalysisView, offset: int) -> AnalysisView | None:
        """``view`` through the index of the node at ``offset`` (few milliseconds, on the
        loop), or None when the offset is not inside a node, or when making that view
        failed (logged): the request then waits for the whole index."""
        from wf_core.node_view import at_node

        try:
            return at_node(view, offset)
        except Exception:
            logger.exception("the index of the node at offset %d could not be made", offset)
            return None

    def remember_run(self, uri: str, run: LastRun) -> None:
        """Keep what a run of ``uri`` saw, for hover, until the next run or closing."""
        self._last_runs[uri] = run

    # -- positions ---------------------------------------------------------------------

    def codec(self, snapshot: DocumentSnapshot) -> convert.PositionCodec:
        return convert.PositionCodec(snapshot.lines, self.flags.position_encoding)

    def codec_for(self, uri: str) -> convert.PositionCodec | None:
        """The codec of an open document, or of one the workspace index read from disk."""
        lines = self.store.lines(uri)
        if lines is None:
            document = self.workflows.document(uri)
            lines = document.snapshot.lines if document is not None else None
        return convert.PositionCodec(lines, self.flags.position_encoding) if lines else None

    # -- settings ----------------------------------------------------------------------

    def apply_settings(self, raw: Any, origin: str) -> None:
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
                self._new_roots(Roots(self._roots.folders, settings.extra_globs))
                self._indexing = asyncio.ensure_future(self._index_logged())
            self._settings_generation += 1
            self._diagnostics.clear()
            self.diagnostics_changed()
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

    # -- diagnostics -------------------------------------------------------------------

    def _compute_diagnostics(
        self,
        uri: str,
        result_id: str,
        settings: Settings,
        flags: ClientFlags,
        indexed: bool = True,
    ) -> DiagnosticsResult | None:
        """Runs on the worker: analyse, record the analysis in the workspace index, convert.

        Reads only the store (under its locks) and the workspace index, never the
        loop's caches or settings: those arrive as arguments.

        The collector is paused throughout (``wf_core.collector``) and scans what
        survived once at the end, after the versions this one replaces in the store and
        the workspace index were freed.

        A message arriving when the analysis is due goes first (``wait_for_quiet``): the
        analysis would take the interpreter lock from the loop answering it. An open
        document's first analysis lives as long as the document: frozen, not scanned
        (a lasting pause, ``wf_core.collector``).

        Before the workspace is ``indexed``, only the document's own findings are given:
        a cross-file one would be made against a partial index (a subgraph's child not
        read yet is "unknown"), and a client must never be shown such a false finding."""
        self.wait_for_quiet()
        if self.on_analysis is not None:
            self.on_analysis(uri)
        first = uri in self.store and not self.store.has_analysed(uri)
        with collector_paused(lasting=first):
            return self._analyse_and_convert(uri, result_id, settings, flags, indexed)

    def _analyse_and_convert(
        self, uri: str, result_id: str, settings: Settings, flags: ClientFlags, indexed: bool
    ) -> DiagnosticsResult | None:
        from wf_core.workspace.checks import document_issues

        analysed = self.store.analyse(uri)
        snapshot, revision = (analysed[1], analysed[0]) if analysed else (None, None)
        affected: set[str] = set()
        if snapshot is not None:
            known = self.workflows.document(uri)
            if known is None or known.snapshot is not snapshot:
                affected = self.workflows.put(uri, snapshot)
        else:
            document = self.workflows.document(uri)
            if document is None:
                return None
            snapshot = document.snapshot
        issues = document_issues(self.workflows, uri) if indexed else snapshot.issues
        codec = convert.PositionCodec(snapshot.lines, flags.position_encoding)
        # An open document's unchanged findings keep their diagnostics (and JSON) from
        # the last analysis; a document read from disk is converted afresh.
        memo = self.store.diagnostics_memo(uri) or DiagnosticsMemo()
        # Push clients: encoded here, off the event loop (12,800 diagnostics of 16,000
        # nodes take 90 ms to encode, which requests arriving meanwhile would wait for).
        encode = None if flags.pull_diagnostics else self._encode_diagnostic
        items, encoded = memo.convert(issues, codec, uri, flags, settings, self.codec_for, encode)
        published = None
        if encoded is not None:
            published = publish_params(self._worker_converter, uri, snapshot.version, encoded)
        return DiagnosticsResult(
            uri,
            snapshot.version,
            result_id,
            items,
            frozenset(affected),
            revision,
            published,
            withheld=not indexed,
        )

    def _dependencies_changed(self, uris: Iterable[str]) -> None:
        """Documents that depend on a changed one: their findings must be computed again."""
        changed = False
        for uri in uris:
            self._cross[uri] = self._cross.get(uri, 0) + 1
            self._diagnostics.pop(uri, None)
            changed = True
            if not self.flags.pull_diagnostics and uri in self.store:
                self.schedule_push(uri)
        if changed and self.flags.pull_diagnostics:
            self.workspace_diagnostic_refresh(None)

    # -- the workspace -------------------------------------------------------------

    def set_roots(self, params: types.InitializeParams) -> None:
        """The workspace folders the client announced (only local ``file:`` folders)."""
        uris = [f.uri for f in params.workspace_folders or ()]
        if not uris and params.root_uri:
            uris = [params.root_uri]
        folders = [p for p in (path_of_uri(u) for u in uris) if p is not None]
        self._new_roots(Roots(folders, self.settings.extra_globs))

    async def start_indexing(self) -> None:
        """Index in the background: requests are answered meanwhile."""
        self._indexing = asyncio.ensure_future(self._index_logged())

    @property
    def workspace_indexed(self) -> bool:
        """Whether the scan of the current workspace folders has finished (or failed): until
        then, diagnostics withhold cross-file findings (``_compute_diagnostics``)."""
        return self._indexed_roots is self._roots

    async def workspace_scanned(self) -> None:
        """Return once the scan of the current workspace folders has finished: what
        reads other documents as a whole (a run's children) never sees a partial index,
        as diagnostics withhold cross-file findings until then."""
        while not self.workspace_indexed:
            await self._scan_ended.wait()

    def _withhold(self, uri: str) -> None:
        """``uri``'s diagnostics were made without its cross-file findings: make them again
        once the workspace is indexed, or now if it was indexed meanwhile."""
        if self.workspace_indexed:
            self._dependencies_changed({uri})
        else:
            self._withheld.add(uri)

    def _scanned(self, roots: Roots, affected: set[str]) -> None:
        """The scan of ``roots`` ended: if they are still the workspace's, the documents it
        affects and those whose cross-file findings were withheld are checked again."""
        if roots is not self._roots:
            return  # superseded (new folders or globs): their own scan ends this
        self._indexed_roots = roots
        ended, self._scan_ended = self._scan_ended, asyncio.Event()
        ended.set()
        withheld, self._withheld = self._withheld, set()
        self._dependencies_changed(affected | withheld)

    async def _index_logged(self) -> None:
        roots = self._roots
        try:
            await self.index_workspace()
        except Exception:
            logger.exception("indexing the workspace failed; open documents are still checked")
            self._scanned(roots, set())

    async def index_workspace(self) -> None:
        """Read every document of the workspace folders off the event loop, reporting
        progress, then re-check what depends on them and watch them for changes."""
        roots = self._roots
        loop = asyncio.get_running_loop()
        token = f"wfls-index-{id(self)}"
        progress = self.flags.work_done_progress
        if progress:
            try:
                await self.work_done_progress.create_async(token)
                self.work_done_progress.begin(
                    token,
                    types.WorkDoneProgressBegin(
                        title="wfls: indexing workflows", percentage=0, cancellable=False
                    ),
                )
            except Exception:
                logger.warning("the client refused a progress token; indexing without it")
                progress = False

        def report(done: int, total: int) -> None:
            if progress and (done == total or done % 25 == 0):
                loop.call_soon_threadsafe(
                    self.work_done_progress.report,
                    token,
                    types.WorkDoneProgressReport(
                        message=f"{done}/{total}", percentage=100 * done // max(total, 1)
                    ),
                )

        scanned: ScanResult = await self.in_worker(self.workflows.scan, report)
        count = len(self.workflows.documents())
        if progress:
            self.work_done_progress.end(
                token, types.WorkDoneProgressEnd(message=f"{count} workflow document(s)")
            )
        for item in scanned.skipped:
            self.window_log_message(
                types.LogMessageParams(
                    type=types.MessageType.Info, message=f"wfls: skipped {item.path}: {item.reason}"
                )
            )
        self._scanned(roots, scanned.affected)
        await self._watch_files()

    async def _watch_files(self) -> None:
        if not self.flags.watched_files or self.protocol._shutdown:
            return  # (after ``shutdown`` the server starts nothing new with the client)
        patterns = ["**/*.wf.toml", "**/*.wf.json", *self.settings.extra_globs]
        registration = types.Registration(
            id="wfls-watched-files",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern=p) for p in patterns]
            ),
        )
        try:
            await self.client_register_capability_async(
                types.RegistrationParams(registrations=[registration])
            )
        except Exception:
            logger.warning("the client refused to watch workflow files")

    async def files_changed(self, changes: list[tuple[str, bool]]) -> None:
        """Files changed on disk: read them again (only inside the workspace folders)."""

        def apply() -> set[str]:
            affected: set[str] = set()
            for uri, deleted in changes:
                path = path_of_uri(uri)
                if path is None or not self.workflows.roots.contains(path):
                    continue
                if deleted:
                    affected |= self.workflows.remove(path.resolve().as_uri())
                else:
                    problem = self.workflows.load(path, affected)
                    if problem is not None:
                        logger.info("skipped %s: %s", problem.path, problem.reason)
            return affected

        affected: set[str] = await self.in_worker(apply)
        self._dependencies_changed(affected)

    def document_changed(self, uri: str, *, edited: bool = False) -> None:
        """A document was opened or edited: schedule its analysis (and, for a client that
        does not pull, the push of its diagnostics). Analysing without being asked is what
        lets the documents that depend on it learn about the change. An edit's analysis
        starts after ``EDIT_GRACE``, once the requests sent with the edit are in."""
        self.schedule_push(uri, EDIT_GRACE if edited else 0.0)

    def diagnostics_changed(self) -> None:
        """Settings changed every document's diagnostics: push again, or ask to pull again."""
        if self.flags.pull_diagnostics:
            self.workspace_diagnostic_refresh(None)
            return
        for uri in self.store.uris():
            self.schedule_push(uri)

    def schedule_push(self, uri: str, delay: float = 0.0) -> None:
        """Analyse ``uri`` and push its diagnostics (push clients) once the loop is free
        and ``delay`` has passed, or, while a push of it is in progress, once more right
        after that one: the first edit after a pause is analysed without more wait, and
        edits that arrive during an analysis are coalesced into the next. A push already
        due keeps its time when a later one would come later: edits arriving faster than
        ``delay`` never put their analysis off for longer than one ``delay``."""
        pending = self._pending_push.pop(uri, None)
        if pending is not None:
            if delay:
                self._pending_push[uri] = pending
                return
            pending.cancel()
        if uri in self._pushing:
            self._push_again.add(uri)
            return
        loop = asyncio.get_running_loop()
        self._pending_push[uri] = (
            loop.call_later(delay, self._push, uri, loop.time() + EDIT_GRACE_LIMIT)
            if delay
            else loop.call_soon(self._push, uri)
        )

    def _push(self, uri: str, deadline: float | None = None) -> None:
        """Start the push of ``uri``; one put off by an edit's grace (``deadline``) waits
        grace by grace, up to the deadline, while a request is being answered."""
        loop = asyncio.get_running_loop()
        if deadline is not None and self.protocol.answering and loop.time() < deadline:
            self._pending_push[uri] = loop.call_later(EDIT_GRACE, self._push, uri, deadline)
            return
        self._pending_push.pop(uri, None)
        self._pushing.add(uri)
        task = asyncio.ensure_future(self._push_async(uri))
        self._push_tasks.add(task)
        task.add_done_callback(self._push_tasks.discard)
        task.add_done_callback(lambda _: self._pushed(uri))

    def _pushed(self, uri: str) -> None:
        self._pushing.discard(uri)
        if uri in self._push_again and not self._closing:
            self._push_again.discard(uri)
            self.schedule_push(uri)

    async def _push_async(self, uri: str) -> None:
        """Publish only what is current when the result is back on the loop: the latest
        revision of the document under the settings in force (anything else was
        superseded, and a newer push is scheduled by whatever superseded it), so a
        client never sees an older version's diagnostics after a newer one's."""
        generation = self._settings_generation
        try:
            result = await self.diagnostics_async(uri)
        except Exception:
            logger.exception("analysis of %s failed", uri)
            return
        if (
            result is None
            or result.revision != self.store.revision(uri)
            or generation != self._settings_generation
        ):
            return
        if self.flags.pull_diagnostics:
            return  # analysed for the documents that depend on it; the client pulls its own
        # The flags are fixed at ``initialize``, so a push client's results always carry
        # their encoding (``_compute_diagnostics``).
        assert result.published is not None
        if self._published.get(uri) == result.published:
            return  # checked again (a dependency, the index, settings) to the same findings
        self._published[uri] = result.published
        self.protocol.notify_encoded(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, result.published)

    def document_closed(self, uri: str) -> None:
        pending = self._pending_push.pop(uri, None)
        if pending is not None:
            pending.cancel()
        self._push_again.discard(uri)
        self._withheld.discard(uri)
        self._published.pop(uri, None)
        self._diagnostics.pop(uri, None)
        self._last_runs.pop(uri, None)
        self._dependencies_changed(self.workflows.close(uri) - {uri})
        if not self.flags.pull_diagnostics:
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )

    def cancel_pending(self) -> None:
        for handle in self._pending_push.values():
            handle.cancel()
        self._pending_push.clear()
        self._closing = True
        self._analysis.shutdown(wait=False, cancel_futures=True)


def _node_views_ahead(snapshot: DocumentSnapshot) -> None:
    """In the worker: what node views of a document's first indexed snapshot read
    (``wf_core.node_view.prepare``), which lives as long as that index: frozen, not
    scanned, when the pause ends (``collector``)."""
    from wf_core.node_view import prepare

    with collector_paused(lasting=True):
        prepare(snapshot)


def _problem(text: str) -> None:
    logger.warning("%s", text)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (a dead child not yet reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, owned by someone else
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return True  # no /proc: trust kill
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] != b"Z"


def _inlay_settings(settings: Settings) -> tuple[bool, ...]:
    return (settings.inlay_item_types, settings.inlay_path_types, settings.inlay_owner_stacks)


def create_server() -> WflsServer:
    """A server that knows only ``initialize``; the rest is registered for the client."""
    server = WflsServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: WflsServer, params: types.InitializeParams) -> None:
        # Not wrapped: a failure here must fail the initialize request visibly.
        ls._client_loop = asyncio.get_running_loop()  # log lines may go to the client now
        ls.flags = resolve_flags(params.capabilities)
        register_routes(ls, ls)
        if params.initialization_options is not None:
            ls.apply_settings(params.initialization_options, "initializationOptions")
        ls.set_roots(params)
        ls.watch_client(params.process_id)
        # The answer needs none of the analysis: it is imported once the answer is sent,
        # while the client takes it in (this runs on the event loop, in order).
        asyncio.get_running_loop().call_soon(ls.load_analysis)

    return server


def serve(tcp: str | None = None) -> int:
    """Run the server on stdio (or a TCP socket) until the client exits.

    Returns 0 after an orderly shutdown, 1 when the client went away without
    one (the LSP exit-code convention), 2 for a bad ``--tcp`` argument.
    Logs go to the client (``window/logMessage``) or to stderr, never to stdout, which
    carries the protocol (``wfls.client_log``).
    """
    server = create_server()
    # Below ERROR, to the client as ``window/logMessage`` once it can take them; else stderr.
    client_log.install(server.log_to_client)
    logger.setLevel(logging.INFO)
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
    return 0 if server.protocol._shutdown else 1
