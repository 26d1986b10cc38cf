"""The benchmarks' one LSP client: start a server over stdio, open, edit, wait, measure.

Any stdio language server can be driven with it (wfls, and the peers of
``bench/peers.py``). It wraps pygls' ``LanguageClient`` with what the
benchmarks need and an editor would do:

- ``Server.start`` launches the process, drains its stderr into a log file (a
  pipe nobody reads would eventually block a chatty server), answers the
  requests servers send to clients (``workspace/configuration``, capability
  registration, progress creation), and times process start → initialize answer;
- ``Server.close`` shuts the server down politely within a deadline and kills
  it otherwise, so no benchmark leaves a process behind, even on failure
  (``async with Server(...)`` does it for you);
- ``Session`` opens one document and edits it with incremental or full-document
  sync, and waits for the diagnostics published for a given version. Servers
  that publish without a version are matched by order instead: the first
  publication after a change answers it (the benchmarks wait for each answer
  before the next change, so the order is unambiguous).

A publication is timed when its last byte has been read, before this client
decodes it. pygls' client turns every JSON object of a message into a Python
object as it parses (an ``object_hook``), then structures the parameters with
cattrs: 1,600 diagnostics took it 65 ms and 12,800 took 0.5 to 0.8 s, work an
editor does not do (its ``JSON.parse`` of the same message takes milliseconds)
and that would count against a server in proportion to how many diagnostics it
sends. The delay is kept per publication (``Session.decode_lags``).

The same clock times requests: ``Server.request`` sends one with an id of its own and
takes the moment the answer's last byte was read, before this client decodes it (a
large answer, thousands of document symbols, is structured by cattrs as publications
are). A publication decoded just ahead of an answer would still hold that answer back;
``Server(slim=True)`` keeps only the number of each publication's diagnostics
(``Session.published``), read from the bytes before decoding, so a benchmark of
requests waits on no publication's decoding.

Every wait has a deadline (``TIMEOUT``). Nothing here asserts a timing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import attrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient

TIMEOUT = 300.0
"""Seconds any single wait may take before the benchmark gives up."""

CAPABILITIES = types.ClientCapabilities(
    general=types.GeneralClientCapabilities(position_encodings=["utf-16"]),
    workspace=types.WorkspaceClientCapabilities(configuration=True),
    text_document=types.TextDocumentClientCapabilities(
        synchronization=types.TextDocumentSyncClientCapabilities(dynamic_registration=False),
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
            related_information=True, version_support=True
        ),
        completion=types.CompletionClientCapabilities(
            completion_item=types.ClientCompletionItemOptions(
                documentation_format=[types.MarkupKind.Markdown],
                insert_replace_support=True,
                snippet_support=True,
            )
        ),
        hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
    ),
)
"""Push diagnostics only (the common case), Markdown docs, UTF-16 positions."""

_document = CAPABILITIES.text_document
assert _document is not None
EDITOR_CAPABILITIES = attrs.evolve(
    CAPABILITIES,
    text_document=attrs.evolve(
        _document,
        definition=types.DefinitionClientCapabilities(link_support=True),
        references=types.ReferenceClientCapabilities(),
        document_highlight=types.DocumentHighlightClientCapabilities(),
        rename=types.RenameClientCapabilities(prepare_support=True),
        selection_range=types.SelectionRangeClientCapabilities(),
        document_symbol=types.DocumentSymbolClientCapabilities(
            hierarchical_document_symbol_support=True
        ),
        folding_range=types.FoldingRangeClientCapabilities(line_folding_only=True),
        inlay_hint=types.InlayHintClientCapabilities(),
        semantic_tokens=types.SemanticTokensClientCapabilities(
            requests=types.ClientSemanticTokensRequestOptions(
                range=True, full=types.ClientSemanticTokensRequestFullDelta(delta=True)
            ),
            token_types=[t.value for t in types.SemanticTokenTypes],
            token_modifiers=[m.value for m in types.SemanticTokenModifiers],
            formats=[types.TokenFormat.Relative],
        ),
        code_action=types.CodeActionClientCapabilities(
            code_action_literal_support=types.ClientCodeActionLiteralOptions(
                code_action_kind=types.ClientCodeActionKindOptions(
                    value_set=[k.value for k in types.CodeActionKind]
                )
            ),
            is_preferred_support=True,
            data_support=True,
            resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"]),
        ),
    ),
)
"""``CAPABILITIES`` and what an editor such as VS Code declares for the other requests a
user's typing sends: hierarchical symbols, semantic tokens with delta and range, code
action literals whose edits are resolved lazily, prepared renames."""

_PUBLISH = b'"textDocument/publishDiagnostics"'
_URI = re.compile(rb'"uri":\s*("(?:[^"\\]|\\.)*")')
_VERSION = re.compile(rb'"version":\s*(-?\d+|null)\s*\}\s*\}\s*$')


def position(text: str, offset: int) -> types.Position:
    """UTF-16 position of ``offset`` (the generated documents are ASCII)."""
    line = text.count("\n", 0, offset)
    return types.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


def rss_mb(pid: int, field_name: str = "VmHWM") -> float:
    """Peak (``VmHWM``) or current (``VmRSS``) resident memory of ``pid`` in MB."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return float("nan")
    for line in status.splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


@dataclass
class Answer:
    """A request's answer: seconds from sending it to its last byte read, and what it was."""

    seconds: float
    result: Any = None
    error: str | None = None
    """The JSON-RPC error's message (e.g. ``ContentModified``), when the answer was one."""


def median_ms(samples: Sequence[float]) -> float:
    return statistics.median(samples) * 1000


def p95_ms(samples: Sequence[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] * 1000


@dataclass
class Server:
    """One language server process and the client talking to it."""

    name: str
    command: Sequence[str]
    settings: dict[str, Any] = field(default_factory=dict)
    """Answers to ``workspace/configuration`` by section (and ``didChangeConfiguration``)."""
    initialization_options: Any = None
    ignore: Sequence[str] = ()
    """Server-specific notifications to accept silently."""
    log: Path | None = None
    env: dict[str, str] | None = None
    client_capabilities: types.ClientCapabilities | None = None
    """What ``initialize`` declares (default: ``CAPABILITIES`` as it is at the start)."""
    slim: bool = False
    """Keep only the number of each publication's diagnostics (see the module's text)."""
    client: LanguageClient = field(init=False)
    initialize_time: float = field(init=False, default=float("nan"))
    arrived: float = field(init=False, default=float("nan"))
    """When the last message body was read in full (``perf_counter``), before decoding."""
    capabilities: types.ServerCapabilities | None = field(init=False, default=None)
    _sessions: dict[str, Session] = field(init=False, default_factory=dict)
    _drain: asyncio.Task[None] | None = field(init=False, default=None)
    _answers: dict[bytes, float | None] = field(init=False, default_factory=dict)
    """The id (as JSON) of each request awaited by ``request``, and when its answer came."""
    _requests: int = field(init=False, default=0)
    _counts: dict[tuple[str, int | None], int] = field(init=False, default_factory=dict)
    """Diagnostics of the slimmed publications, by document and version, until handled."""

    @property
    def pid(self) -> int | None:
        process = self.client._server if hasattr(self, "client") else None
        return process.pid if process is not None else None

    def rss(self, field_name: str = "VmHWM") -> float:
        pid = self.pid
        return rss_mb(pid, field_name) if pid is not None else float("nan")

    async def __aenter__(self) -> Server:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self, root: Path | None = None) -> None:
        self.client = LanguageClient(f"bench-{self.name}", "1")
        self._handlers()
        started = time.perf_counter()
        env = {**os.environ, **self.env} if self.env else None
        await self.client.start_io(*self.command, env=env)
        process = self.client._server
        assert process is not None and process.stderr is not None
        assert process.stdout is not None
        self._clock_arrivals(process.stdout)
        self._drain = asyncio.create_task(self._drain_stderr(process.stderr))
        root_uri = root.resolve().as_uri() if root else None
        async with asyncio.timeout(TIMEOUT):
            result = await self.client.initialize_async(
                types.InitializeParams(
                    capabilities=self.client_capabilities or CAPABILITIES,
                    process_id=os.getpid(),
                    root_uri=root_uri,
                    workspace_folders=[types.WorkspaceFolder(uri=root_uri, name="bench")]
                    if root_uri
                    else None,
                    initialization_options=self.initialization_options,
                )
            )
        self.initialize_time = time.perf_counter() - started
        self.capabilities = result.capabilities
        self.client.initialized(types.InitializedParams())
        if self.settings:
            self.client.workspace_did_change_configuration(
                types.DidChangeConfigurationParams(settings=self.settings)
            )

    def _clock_arrivals(self, reader: asyncio.StreamReader) -> None:
        """Note in ``arrived`` when each message body has been read. pygls' read loop
        reads a body with ``readexactly`` and handles it at once, so a notification's
        handler sees its own message's time there."""
        read = reader.readexactly

        async def readexactly(size: int) -> bytes:
            body = await read(size)
            self.arrived = now = time.perf_counter()
            for marker, when in self._answers.items():
                if when is None and marker in body:
                    self._answers[marker] = now
            if self.slim and _PUBLISH in body[:120]:
                body = self._slimmed(body)
            return body

        reader.readexactly = readexactly  # type: ignore[method-assign,assignment]

    def _slimmed(self, body: bytes) -> bytes:
        """The publication ``body`` without its diagnostics, whose number is kept. Only
        wfls's layout is read (``uri`` first, ``version`` last); any other is kept whole."""
        uri, version = _URI.search(body), _VERSION.search(body[-80:])
        if uri is None or version is None:
            return body
        params = {
            "uri": json.loads(uri.group(1)),
            "version": json.loads(version.group(1)),
            "diagnostics": [],
        }
        self._counts[(params["uri"], params["version"])] = body.count(b'"severity"')
        message = {"jsonrpc": "2.0", "method": types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS}
        return json.dumps({**message, "params": params}).encode()

    def published_count(self, params: types.PublishDiagnosticsParams) -> int:
        """How many diagnostics ``params`` had before it was slimmed (or has)."""
        count = self._counts.pop((params.uri, params.version), None)
        return len(params.diagnostics) if count is None else count

    async def request(self, method: str, params: Any) -> Answer:
        """Send request ``method``; its answer, timed until its last byte was read.

        An error answer is returned as one (``Answer.error``), timed alike."""
        self._requests += 1
        msg_id = f"wfls-bench-request-{self._requests}"
        marker = json.dumps(msg_id).encode()
        self._answers[marker] = None
        start = time.perf_counter()
        result: Any = None
        error: str | None = None
        try:
            async with asyncio.timeout(TIMEOUT):
                result = await self.client.protocol.send_request_async(
                    method, params, msg_id=msg_id
                )
        except JsonRpcException as failure:
            error = str(failure) or type(failure).__name__
        finally:
            arrived = self._answers.pop(marker, None)
        end = arrived if arrived is not None else time.perf_counter()
        return Answer(end - start, result, error)

    def _handlers(self) -> None:
        client = self.client

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _published(params: types.PublishDiagnosticsParams) -> None:
            session = self._sessions.get(params.uri)
            if session is not None:
                session.on_publish(params, self.arrived)

        @client.feature(types.WORKSPACE_CONFIGURATION)
        def _configuration(params: types.ConfigurationParams) -> list[Any]:
            answers = []
            for item in params.items:
                value: Any = self.settings
                for part in (item.section or "").split("."):
                    if part:
                        value = value.get(part) if isinstance(value, dict) else None
                answers.append(value)
            return answers

        @client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def _register(params: types.RegistrationParams) -> None:
            return None

        @client.feature(types.CLIENT_UNREGISTER_CAPABILITY)
        def _unregister(params: types.UnregistrationParams) -> None:
            return None

        @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def _progress(params: types.WorkDoneProgressCreateParams) -> None:
            return None

        quiet = (types.WINDOW_LOG_MESSAGE, types.WINDOW_SHOW_MESSAGE, types.PROGRESS)
        for method in (*quiet, *self.ignore):
            client.feature(method)(lambda params: None)

    async def _drain_stderr(self, stream: asyncio.StreamReader) -> None:
        sink = self.log.open("ab") if self.log else None
        try:
            while chunk := await stream.read(65536):
                if sink:
                    sink.write(chunk)
        finally:
            if sink:
                sink.close()

    def open(
        self,
        uri: str,
        language_id: str,
        text: str,
        *,
        incremental: bool = True,
        accept: Callable[[list[types.Diagnostic]], bool] | None = None,
    ) -> Session:
        """Send ``didOpen``; incremental sync only where the server advertises it."""
        if incremental and self.sync_kind() != types.TextDocumentSyncKind.Incremental:
            raise ValueError(f"{self.name} does not accept incremental changes")
        session = Session(self, uri, text, incremental=incremental, accept=accept)
        self._sessions[uri] = session
        session.opened = session.expect(1)
        session.open_sent = time.perf_counter()
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id=language_id, version=1, text=text
                )
            )
        )
        return session

    def sync_kind(self) -> types.TextDocumentSyncKind:
        sync = self.capabilities.text_document_sync if self.capabilities else None
        if isinstance(sync, types.TextDocumentSyncOptions):
            sync = sync.change
        return types.TextDocumentSyncKind(sync or types.TextDocumentSyncKind.None_)

    async def close(self) -> None:
        """Shut down within a few seconds; terminate, then kill, whatever is left."""
        process = self.client._server if hasattr(self, "client") else None
        if process is None:
            return
        if process.returncode is None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(10):
                    await self.client.shutdown_async(None)
                    self.client.exit(None)
                    await process.wait()
        for stop in (process.terminate, process.kill):
            if process.returncode is not None:
                break
            with contextlib.suppress(ProcessLookupError):
                stop()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(5):
                    await process.wait()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(5):
                await self.client.stop()
        if self._drain is not None:
            self._drain.cancel()
            with contextlib.suppress(BaseException):
                await self._drain


class Session:
    """One open document: its text as the client sees it, edits, and publications."""

    def __init__(
        self,
        server: Server,
        uri: str,
        text: str,
        *,
        incremental: bool,
        accept: Callable[[list[types.Diagnostic]], bool] | None = None,
    ) -> None:
        self.server, self.uri, self.text, self.version = server, uri, text, 1
        self.incremental = incremental
        self.accept = accept
        """Which publications answer a change (default: any); the others are only recorded."""
        self.opened: asyncio.Future[float]
        self.open_sent = 0.0
        self.history: list[tuple[float, types.PublishDiagnosticsParams]] = []
        """(arrival time, publication), in the order they came."""
        self.decode_lags: list[float] = []
        """Seconds from each publication's arrival to its handling (this client's decoding)."""
        self.published: dict[int | None, int] = {}
        """The number of diagnostics of the last publication of each version."""
        self._waiting: dict[int, asyncio.Future[float]] = {}
        self._published: dict[int, types.PublishDiagnosticsParams] = {}

    def on_publish(self, params: types.PublishDiagnosticsParams, arrived: float) -> None:
        """A publication whose message was read in full at ``arrived`` (``perf_counter``)."""
        self.decode_lags.append(time.perf_counter() - arrived)
        self.history.append((arrived, params))
        self.published[params.version] = self.server.published_count(params)
        if self.accept is not None and not self.accept(params.diagnostics):
            return  # e.g. a peer's syntax-only pass before its schema validation
        if params.version is not None:
            versions = [params.version]
        else:  # unversioned: it answers every change still waiting
            versions = list(self._waiting)
        for version in versions:
            self._published[version] = params
            future = self._waiting.pop(version, None)
            if future is not None and not future.done():
                future.set_result(arrived)

    def expect(self, version: int) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._waiting[version] = future
        return future

    def diagnostics(self, version: int) -> list[types.Diagnostic]:
        published = self._published.get(version)
        return list(published.diagnostics) if published else []

    async def wait(self, future: asyncio.Future[float]) -> float:
        async with asyncio.timeout(TIMEOUT):
            return await future

    async def open_time(self) -> float:
        """Seconds from ``didOpen`` to the first accepted diagnostics."""
        return await self.wait(self.opened) - self.open_sent

    def first_publication(self) -> float:
        """Seconds from ``didOpen`` to the first publication of any kind."""
        return self.history[0][0] - self.open_sent if self.history else float("nan")

    def edit(self, offset: int, length: int, new_text: str) -> int:
        """Replace ``length`` characters at ``offset``; send the change; return the version."""
        start, end = position(self.text, offset), position(self.text, offset + length)
        self.text = self.text[:offset] + new_text + self.text[offset + length :]
        self.version += 1
        change: types.TextDocumentContentChangeEvent
        if self.incremental:
            change = types.TextDocumentContentChangePartial(
                range=types.Range(start=start, end=end), text=new_text
            )
        else:
            change = types.TextDocumentContentChangeWholeDocument(text=self.text)
        self.server.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=self.uri, version=self.version
                ),
                content_changes=[change],
            )
        )
        return self.version

    async def edit_time(self, offset: int, length: int, new_text: str) -> float:
        """Seconds from sending an edit to the diagnostics of its version."""
        published = self.expect(self.version + 1)
        start = time.perf_counter()
        self.edit(offset, length, new_text)
        return await self.wait(published) - start

    def close(self) -> None:
        """Send ``didClose``; later publications for the document are not recorded."""
        self.server._sessions.pop(self.uri, None)
        self.server.client.text_document_did_close(
            types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri)
            )
        )

    def where(self, offset: int) -> tuple[types.TextDocumentIdentifier, types.Position]:
        return types.TextDocumentIdentifier(uri=self.uri), position(self.text, offset)

    async def completion(self, offset: int) -> tuple[float, int]:
        """Seconds to answer a completion at ``offset``, and the number of items."""
        document, at = self.where(offset)
        start = time.perf_counter()
        async with asyncio.timeout(TIMEOUT):
            answer = await self.server.client.text_document_completion_async(
                types.CompletionParams(text_document=document, position=at)
            )
        spent = time.perf_counter() - start
        if answer is None:
            return spent, 0
        items = answer.items if isinstance(answer, types.CompletionList) else answer
        return spent, len(items)

    async def hover(self, offset: int) -> tuple[float, str]:
        """Seconds to answer a hover at ``offset``, and the start of its text."""
        document, at = self.where(offset)
        start = time.perf_counter()
        async with asyncio.timeout(TIMEOUT):
            answer = await self.server.client.text_document_hover_async(
                types.HoverParams(text_document=document, position=at)
            )
        spent = time.perf_counter() - start
        return spent, hover_text(answer)


def hover_text(answer: types.Hover | None) -> str:
    if answer is None:
        return ""
    contents = answer.contents
    parts = contents if isinstance(contents, list) else [contents]
    return " ".join(p if isinstance(p, str) else p.value for p in parts).strip()
