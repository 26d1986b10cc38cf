"""End-to-end fixtures: ``wfls serve`` driven over stdio by pytest-lsp's client.

Every test using ``session`` runs four times, as the clients wfls serves: pytest-lsp's
VS Code preset with UTF-16 and with UTF-8 positions, its Neovim 0.11 preset with UTF-8
(what Neovim negotiates), both of which are pushed diagnostics, and a pulling client
(the Neovim preset plus ``workspace/diagnostic/refresh``, as VS Code's own client
declares) with UTF-16.
``Session`` keeps the client's copy of each document text and computes the
expected positions itself, independently of the server's conversion code.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

DATA = Path(__file__).parent / "data"
EXAMPLES = Path(__file__).parents[2] / "examples"
PULLING = "neovim+refresh"
"""Neovim 0.11's capabilities plus ``workspace/diagnostic/refresh``: a client that pulls."""
CLIENTS = (
    ("visual-studio-code", "utf-16"),
    ("visual-studio-code", "utf-8"),
    ("neovim", "utf-8"),
    (PULLING, "utf-16"),
)
WAIT = 30.0
"""Upper bound on any wait for the server, so that a broken server fails instead of hanging."""

SESSION = pytest.StashKey["Session"]()
POSITION_PARAMS: dict[str, Any] = {
    types.TEXT_DOCUMENT_COMPLETION: types.CompletionParams,
    types.TEXT_DOCUMENT_HOVER: types.HoverParams,
    types.TEXT_DOCUMENT_DEFINITION: types.DefinitionParams,
    types.TEXT_DOCUMENT_REFERENCES: types.ReferenceParams,
    types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT: types.DocumentHighlightParams,
    types.TEXT_DOCUMENT_PREPARE_RENAME: types.PrepareRenameParams,
    types.TEXT_DOCUMENT_RENAME: types.RenameParams,
}
"""Params of each position request the tests send."""


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


def position(text: str, offset: int, encoding: str) -> types.Position:
    line = text.count("\n", 0, offset)
    line_start = text.rfind("\n", 0, offset) + 1
    return types.Position(line=line, character=units(text[line_start:offset], encoding))


def capabilities(preset: str, encoding: str | None) -> types.ClientCapabilities:
    caps = pytest_lsp.client_capabilities(preset.removesuffix("+refresh"))
    if preset.endswith("+refresh"):
        assert caps.workspace is not None
        caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(
            refresh_support=True
        )
    if encoding is not None:
        if caps.general is None:
            caps.general = types.GeneralClientCapabilities()
        caps.general.position_encodings = [encoding]
    return caps


@dataclass
class Session:
    """A connected client plus the documents it has open."""

    client: LanguageClient
    preset: str
    encoding: str
    root: Path
    result: types.InitializeResult
    texts: dict[str, str] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)

    @property
    def pulls(self) -> bool:
        """Whether the server chose pull diagnostics for this client."""
        return self.result.capabilities.diagnostic_provider is not None

    @property
    def pushes(self) -> list[types.PublishDiagnosticsParams]:
        return self.recorder.pushes

    @property
    def registrations(self) -> list[types.Registration]:
        return self.recorder.registrations

    @property
    def refreshed(self) -> asyncio.Event:
        """Set at every ``workspace/diagnostic/refresh`` the server sends (pulling clients)."""
        return self.recorder.refreshed

    @property
    def recorder(self) -> RecordingClient:
        assert isinstance(self.client, RecordingClient), "the client comes from SERVER"
        return self.client

    async def until(self, predicate: Any) -> None:
        """Wait until ``predicate()`` holds, checking it again after each message the
        client records (a push, a refresh, a registration, a progress report)."""
        async with asyncio.timeout(WAIT):
            while not predicate():
                # No await between the check and clear(): a message cannot slip in between.
                self.recorder.received.clear()
                await self.recorder.received.wait()

    # -- documents ---------------------------------------------------------------------

    def uri(self, name: str) -> str:
        return (self.root / name).as_uri()

    def open(self, name: str, text: str, language_id: str = "toml") -> str:
        uri = self.uri(name)
        self.texts[uri], self.versions[uri] = text, 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id=language_id, version=1, text=text
                )
            )
        )
        return uri

    def edit(self, uri: str, start: int, end: int, new_text: str) -> None:
        """Replace ``[start, end)`` (code-point offsets) as an incremental change."""
        text = self.texts[uri]
        change = types.TextDocumentContentChangePartial(
            range=types.Range(
                start=position(text, start, self.encoding), end=position(text, end, self.encoding)
            ),
            text=new_text,
        )
        self.texts[uri] = text[:start] + new_text + text[end:]
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[change],
            )
        )

    def replace(self, uri: str, old: str, new: str, occurrence: int = 0) -> None:
        start = self.find(uri, old, occurrence)
        self.edit(uri, start, start + len(old), new)

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    # -- positions ---------------------------------------------------------------------

    def find(self, uri: str, needle: str, occurrence: int = 0, after: str | None = None) -> int:
        text = self.texts[uri]
        offset = text.index(after) + len(after) if after is not None else 0
        offset = text.index(needle, offset)
        for _ in range(occurrence):
            offset = text.index(needle, offset + 1)
        return offset

    def position(self, uri: str, offset: int) -> types.Position:
        return position(self.texts[uri], offset, self.encoding)

    def range(self, uri: str, needle: str, occurrence: int = 0, after: str | None = None):
        start = self.find(uri, needle, occurrence, after)
        return types.Range(
            start=self.position(uri, start), end=self.position(uri, start + len(needle))
        )

    # -- diagnostics -------------------------------------------------------------------

    async def push_where(self, predicate, since: int = 0) -> types.PublishDiagnosticsParams:
        """The first push (recorded or still to come) satisfying ``predicate``, among the
        pushes from the ``since``-th on (``len(pushes)`` before an action: its effect)."""
        found: list[types.PublishDiagnosticsParams] = []

        def seen() -> bool:
            found.extend(p for p in self.pushes[since:] if predicate(p))
            return bool(found)

        await self.until(seen)
        return found[0]

    async def pushed(self, uri: str, version: int | None) -> types.PublishDiagnosticsParams:
        """The first push for ``uri`` at ``version``."""
        return await self.push_where(lambda p: p.uri == uri and p.version == version)

    async def pull(self, uri: str) -> Any:
        """A full pull report (the client may decode it as the "related" variant)."""
        async with asyncio.timeout(WAIT):
            report = await self.client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(
                    text_document=types.TextDocumentIdentifier(uri=uri), identifier="wfls"
                )
            )
        assert report.kind == "full"
        return report

    async def pulled_where(self, uri: str, predicate) -> list[types.Diagnostic]:
        """Pull ``uri`` now and again after each refresh until its diagnostics satisfy
        ``predicate`` (a finding that depends on another document comes with a refresh)."""
        async with asyncio.timeout(WAIT):
            while True:
                self.refreshed.clear()  # a refresh during the pull sets it again: never missed
                found = list((await self.pull(uri)).items)
                if predicate(found):
                    return found
                await self.refreshed.wait()

    async def diagnostics(self, uri: str) -> list[types.Diagnostic]:
        """The diagnostics of the current version of ``uri``, the way this client gets them."""
        if self.pulls:
            return list((await self.pull(uri)).items)
        params = await self.pushed(uri, self.versions[uri])
        return list(params.diagnostics)

    # -- requests ----------------------------------------------------------------------

    async def request(self, method: str, uri: str, offset: int, **extra: Any) -> Any:
        """A position request at ``offset``; ``extra`` holds the method's other params."""
        params: Any = POSITION_PARAMS[method](
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=self.position(uri, offset),
            **extra,
        )
        async with asyncio.timeout(WAIT):
            return await self.client.protocol.send_request_async(method, params)


class RecordingClient(LanguageClient):
    """pytest-lsp's client, keeping besides what it keeps itself what the tests wait for:
    every ``publishDiagnostics`` with its version (pytest-lsp keeps the latest list of
    each document only), the capabilities the server registers, the diagnostic refreshes
    it asks for; ``received`` is set at each of those and at every progress report."""

    def __init__(self) -> None:
        super().__init__(converter_factory=default_converter)
        self.pushes: list[types.PublishDiagnosticsParams] = []
        self.registrations: list[types.Registration] = []
        self.refreshed = asyncio.Event()
        self.received = asyncio.Event()
        self.configuration_answered: asyncio.Event | None = None
        """While set to an event that is not set, ``workspace/configuration`` waits for it."""


def _published(client: RecordingClient, params: types.PublishDiagnosticsParams) -> None:
    DEFAULT_CLIENT_FEATURES[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS](client, params)
    client.pushes.append(params)
    client.received.set()


def _refresh(client: RecordingClient, params: None) -> None:
    DEFAULT_CLIENT_FEATURES[types.WORKSPACE_DIAGNOSTIC_REFRESH](client, params)
    client.refreshed.set()
    client.received.set()


def _progress(client: RecordingClient, params: types.ProgressParams) -> None:
    DEFAULT_CLIENT_FEATURES[types.PROGRESS](client, params)
    client.received.set()


def _register(client: RecordingClient, params: types.RegistrationParams) -> None:
    """Answer ``client/registerCapability`` as an editor does, keeping what was registered."""
    client.registrations.extend(params.registrations)
    client.received.set()


async def _configuration(client: RecordingClient, params: types.ConfigurationParams) -> Any:
    if client.configuration_answered is not None:
        await client.configuration_answered.wait()
    return DEFAULT_CLIENT_FEATURES[types.WORKSPACE_CONFIGURATION](client, params)


def recording_client() -> RecordingClient:
    """The client of every test: pytest-lsp's own handlers, some of them also recording."""
    client = RecordingClient()
    register_lsp_features(
        client,
        {
            **DEFAULT_CLIENT_FEATURES,
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _published,
            types.WORKSPACE_DIAGNOSTIC_REFRESH: _refresh,
            types.PROGRESS: _progress,
            types.CLIENT_REGISTER_CAPABILITY: _register,
            types.WORKSPACE_CONFIGURATION: _configuration,
        },
    )
    return client


SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "wfls", "serve"], client_factory=recording_client
)


async def start_session(
    client: LanguageClient,
    request: pytest.FixtureRequest,
    root: Path,
    preset: str,
    encoding: str,
    initialization_options: Any = None,
) -> Session:
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(preset, encoding),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options=initialization_options,
        )
    )
    session = Session(client, preset, encoding, root, result)
    request.node.stash[SESSION] = session
    return session


def check_clean_end(session: Session) -> None:
    """After a test: no error was shown, and a pulling client was never pushed to."""
    errors = [m for m in session.client.messages if m.type == types.MessageType.Error]
    assert errors == []
    if session.pulls:
        assert session.pushes == []


@pytest_lsp.fixture(
    config=SERVER,
    params=list(CLIENTS),
    ids=[f"{p}-{e}" for p, e in CLIENTS],
)
async def client(lsp_client: LanguageClient, request, tmp_path):
    preset, encoding = request.param
    session = await start_session(lsp_client, request, tmp_path, preset, encoding)
    yield
    await lsp_client.shutdown_session()
    check_clean_end(session)


@pytest.fixture
def session(client: LanguageClient, request) -> Session:
    return request.node.stash[SESSION]


@pytest.fixture
def audit_text() -> str:
    return (DATA / "audit.wf.toml").read_text(encoding="utf-8")


@pytest.fixture
def billing_text() -> str:
    return (EXAMPLES / "billing.wf.toml").read_text(encoding="utf-8")


@pytest_lsp.fixture(config=SERVER)
async def bare_client(lsp_client: LanguageClient, request):
    """A started server that the test initializes itself (settings, capabilities)."""
    yield
    await lsp_client.shutdown_session()
    if SESSION in request.node.stash:
        check_clean_end(request.node.stash[SESSION])
