"""The server in-process: registration per client, futures not leaking, bad input."""

from __future__ import annotations

import asyncio
import json

import pytest_lsp
from lsprotocol import types

from wfls.server import create_server
from wfls.settings import Settings, parse_settings


class Sink:
    """A writer that keeps what the server sends."""

    def __init__(self) -> None:
        self.messages: list[dict] = []

    def write(self, data: bytes) -> None:
        body = data.split(b"\r\n\r\n", 1)[1]
        self.messages.append(json.loads(body))

    def close(self) -> None:
        pass


def initialized_server(preset: str):
    server = create_server()
    sink = Sink()
    server.protocol.set_writer(sink)
    server.protocol._handle_request(
        1,
        types.INITIALIZE,
        types.InitializeParams(capabilities=pytest_lsp.client_capabilities(preset)),
    )
    return server, sink


async def test_notifications_leave_no_futures_behind():
    server, _ = initialized_server("neovim")
    uri = "file:///w/leak.wf.toml"
    server.protocol._handle_notification(
        types.TEXT_DOCUMENT_DID_OPEN,
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="toml", version=1, text="")
        ),
    )
    for version in range(2, 202):
        server.protocol._handle_notification(
            types.TEXT_DOCUMENT_DID_CHANGE,
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text="x")],
            ),
        )
    await asyncio.sleep(0)
    assert len(server.protocol._request_futures) <= 2
    assert server.store.version(uri) == 201


async def test_pull_clients_get_no_push_registration_and_push_clients_no_pull():
    pulling, sink = initialized_server("neovim")
    [response] = sink.messages
    assert "diagnosticProvider" in response["result"]["capabilities"]
    pushing, sink = initialized_server("visual-studio-code")
    [response] = sink.messages
    assert "diagnosticProvider" not in response["result"]["capabilities"]
    assert pulling.flags.pull_diagnostics and not pushing.flags.pull_diagnostics


async def test_analysis_failure_gives_an_empty_answer(monkeypatch):
    server, sink = initialized_server("neovim")
    uri = "file:///w/boom.wf.toml"
    server.protocol._handle_notification(
        types.TEXT_DOCUMENT_DID_OPEN,
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="toml", version=1, text="")
        ),
    )

    def explode(uri: str):
        raise RuntimeError("analysis bug")

    monkeypatch.setattr(server.store, "snapshot", explode)
    monkeypatch.setattr(server.store, "analyse", explode)  # diagnostics read the revision too
    server.protocol._handle_request(
        2,
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri)),
    )
    for _ in range(500):  # the handler is async: let the event loop finish it
        if sink.messages and sink.messages[-1].get("id") == 2:
            break
        await asyncio.sleep(0.01)
    response = sink.messages[-1]
    assert response["id"] == 2
    assert response["result"] == {"kind": "full", "items": []}


def test_settings_parsing():
    assert parse_settings(None) == (Settings(), [])
    settings, problems = parse_settings({"undeclaredPropertySeverity": "Off", "other": 1})
    assert settings.undeclared_property_severity is None
    assert problems == []
    settings, problems = parse_settings(["not", "an", "object"])
    assert settings == Settings()
    assert len(problems) == 1
