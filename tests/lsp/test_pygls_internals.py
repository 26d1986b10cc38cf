"""What wfls changes of pygls' private behaviour (``wfls.pygls_internals``).

Each change is checked twice: plain pygls still behaves as the change assumes (a test
that fails when an upgrade changes that, so the change can be dropped or redone), and
wfls' server behaves as changed (a test that fails when an upgrade renames what the
change overrides, which would undo it in silence).
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import json
import logging
from concurrent.futures import Future
from functools import partial
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCProtocol
from test_server_unit import (
    Sink,
    _answer,
    did_change,
    did_open,
    initialized_server,
    published,
    until,
)

from wfls.pygls_internals import _DecodeNoise

KEYWORD = inspect.Parameter.KEYWORD_ONLY
EITHER = inspect.Parameter.POSITIONAL_OR_KEYWORD


@pytest.mark.parametrize(
    ("name", "parameters"),
    [
        ("_send_response", [("msg_id", EITHER), ("result", EITHER), ("error", EITHER)]),
        ("_send_handler_result", [("future", EITHER), ("msg_id", KEYWORD)]),
        ("_run_generator", [("future", EITHER), ("gen", KEYWORD), ("result_future", KEYWORD)]),
    ],
)
def test_the_methods_wfls_overrides_are_pygls_own_with_their_parameters(name, parameters):
    method = vars(JsonRPCProtocol)[name]
    found = list(inspect.signature(method).parameters.values())[1:]
    assert [(p.name, p.kind) for p in found] == parameters


def plain_server() -> tuple[LanguageServer, Sink]:
    """A pygls server as pygls makes it, initialized, writing to a ``Sink``."""
    server = LanguageServer("plain", "0")
    sink = Sink()
    server.protocol.set_writer(sink)
    server.protocol.handle_message(
        types.InitializeRequest(
            id=1, params=types.InitializeParams(capabilities=types.ClientCapabilities())
        )
    )
    return server, sink


def opened(uri: str) -> types.DidOpenTextDocumentNotification:
    document = types.TextDocumentItem(uri=uri, language_id="toml", version=1, text="")
    return types.DidOpenTextDocumentNotification(
        params=types.DidOpenTextDocumentParams(text_document=document)
    )


async def test_pygls_keeps_a_future_for_every_notification_it_handles():
    server, _ = plain_server()
    before = len(server.protocol._request_futures)
    for n in range(5):
        server.protocol.handle_message(opened(f"file:///w/{n}.wf.toml"))
    futures = server.protocol._request_futures
    assert len(futures) == before + 5
    assert all(future.done() for future in futures.values())


async def test_wfls_drops_the_futures_pygls_finished_with():
    server, sink = initialized_server("neovim")
    uri = "file:///w/leak.wf.toml"
    did_open(server, uri, "")
    for version in range(2, 202):
        did_change(server, uri, version, "x")
    # Pushed: every notification was handled, and what they started has finished.
    await until(sink, lambda: published(sink, 201), "the diagnostics of the last version")
    assert len(server.protocol._request_futures) <= 2
    assert server.store.version(uri) == 201


def command_request(request_id: int) -> types.ExecuteCommandRequest:
    """``wfls.ownerStack`` on a document that is not open: answered null."""
    arguments = [{"uri": "file:///w/none.wf.toml", "position": {"line": 0, "character": 0}}]
    params = types.ExecuteCommandParams(command="wfls.ownerStack", arguments=arguments)
    return types.ExecuteCommandRequest(id=request_id, params=params)


async def test_pygls_keeps_a_future_for_every_step_of_a_generator_handler():
    server, sink = plain_server()

    @server.command("wfls.ownerStack")
    async def owner_stack(*arguments: Any) -> None:
        return None

    before = len(server.protocol._request_futures)
    for request_id in range(100, 105):
        server.protocol.handle_message(command_request(request_id))
        await until(sink, lambda n=request_id: _answer(sink, n) is not None, "the answer")
    assert len(server.protocol._request_futures) == before + 5


async def test_wfls_drops_the_futures_of_a_generator_handlers_steps_between_requests():
    """``workspace/executeCommand`` is a generator handler: the future of the handler it
    yields (holding the answer, a whole run's trace for a run) stays in pygls' table; a
    client that sends nothing but requests must not keep every answer."""
    server, sink = initialized_server("neovim")
    for request_id in range(100, 200):
        server.protocol.handle_message(command_request(request_id))
        await until(sink, lambda n=request_id: _answer(sink, n) is not None, "the answer")
    assert len(server.protocol._request_futures) <= 2


def hover_request(request_id: int, uri: str) -> types.HoverRequest:
    return types.HoverRequest(
        id=request_id,
        params=types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=0),
        ),
    )


async def test_pygls_logs_a_traceback_for_an_error_a_handler_raises(caplog):
    server, sink = plain_server()

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: LanguageServer, params: types.HoverParams) -> None:
        raise JsonRpcInvalidParams("no hover here")

    server.protocol.handle_message(hover_request(2, "file:///w/a.wf.toml"))
    assert _answer(sink, 2)["error"] == {"code": -32602, "message": "no hover here"}
    [failure] = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert failure.exc_info is not None and failure.name == "pygls.protocol.json_rpc"


async def test_wfls_answers_an_error_raised_on_purpose_with_one_info_line(caplog):
    """A rename where there is no name is refused (``RequestFailed``): the refusal is
    the answer, logged as one line, and the reply marks the request answered."""
    server, sink = initialized_server("visual-studio-code")
    uri = "file:///w/empty.wf.toml"
    did_open(server, uri, "\n")
    caplog.set_level(logging.INFO)
    server.protocol.handle_message(
        types.RenameRequest(
            id=3,
            params=types.RenameParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=0, character=0),
                new_name="other",
            ),
        )
    )
    assert server.protocol.answering  # dispatched: answered once its reply is sent
    await until(sink, lambda: _answer(sink, 3) is not None, "the answer")
    assert not server.protocol.answering
    error = _answer(sink, 3)["error"]
    assert error["code"] == -32803 and "rename" in error["message"]
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert f"request 3 answered with error -32803: {error['message']}" in caplog.messages


BAD_HOVER = {
    "jsonrpc": "2.0",
    "id": 4,
    "method": types.TEXT_DOCUMENT_HOVER,
    "params": {"textDocument": {"uri": "file:///w/a.wf.toml"}, "position": "here"},
}


async def test_pygls_logs_a_traceback_for_a_request_it_cannot_decode(caplog, monkeypatch):
    server, _ = plain_server()
    monkeypatch.setattr(logging.getLogger("pygls.protocol.json_rpc"), "filters", [])
    with pytest.raises(JsonRpcInvalidParams):
        server.protocol.structure_message(json.loads(json.dumps(BAD_HOVER)))
    [failure] = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not _DecodeNoise().filter(failure)  # what wfls leaves out


async def test_wfls_answers_a_request_it_cannot_decode_with_one_warning(caplog):
    server, sink = initialized_server("visual-studio-code")
    server.protocol.handle_body(json.dumps(BAD_HOVER).encode())
    assert _answer(sink, 4)["error"]["code"] == -32602
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    [warning] = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warning.getMessage().startswith("textDocument/hover: Invalid Params")
    await asyncio.sleep(0)  # (lets the tasks the initialize scheduled start and end)


def _a_cancelled_requests_step_ends(protocol: JsonRPCProtocol) -> None:
    """What pygls does when the task a generator handler yielded to fails after the
    request was cancelled: the step's callback runs with the cancelled result."""

    def handler():  # the generator's remaining part: never resumed
        yield None

    loop = asyncio.get_running_loop()
    step: asyncio.Future[None] = loop.create_future()
    step.set_exception(RuntimeError("a refused run"))
    result: Future[object] = Future()
    result.cancel()
    protocol._run_generator(step, gen=handler(), result_future=result)


async def test_pygls_leaves_a_cancelled_requests_failed_step_unread(caplog):
    server, _ = plain_server()
    _a_cancelled_requests_step_ends(server.protocol)
    gc.collect()  # the step is gone: asyncio says what nobody read
    assert any("exception was never retrieved" in m for m in caplog.messages)


async def test_wfls_reads_a_cancelled_requests_failed_step(caplog):
    server, _ = initialized_server("neovim")
    _a_cancelled_requests_step_ends(server.protocol)
    gc.collect()
    assert not any("never retrieved" in m for m in caplog.messages)


def _a_request_under_way(protocol: JsonRPCProtocol, msg_id: int) -> Future[object]:
    """What pygls keeps for a generator handler's request that has not ended (a document
    request waiting on its analysis): a future whose callback answers it and removes it
    from the table."""
    future: Future[object] = Future()
    protocol._request_futures[msg_id] = future
    future.add_done_callback(partial(protocol._send_handler_result, msg_id=msg_id))
    return future


async def test_pygls_fails_to_shut_down_with_a_generator_request_under_way(caplog):
    server, sink = plain_server()
    _a_request_under_way(server.protocol, 50)
    server.protocol.handle_message(types.ShutdownRequest(id=51))
    await until(sink, lambda: _answer(sink, 51) is not None, "the shutdown's answer")
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert any("changed size during iteration" in str(r.exc_info) for r in errors)


async def test_wfls_shuts_down_with_a_generator_request_under_way(caplog):
    server, sink = initialized_server("neovim")
    under_way = _a_request_under_way(server.protocol, 50)
    server.protocol.handle_message(types.ShutdownRequest(id=51))
    await until(sink, lambda: _answer(sink, 51) is not None, "the shutdown's answer")
    assert under_way.cancelled()
    assert _answer(sink, 51)["result"] is None
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
