"""The server in-process: registration per client, futures not leaking, bad input."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import sys
import threading
from pathlib import Path

from conftest import PULLING, capabilities
from lsprotocol import types

from wfls import client_log
from wfls.diagnostics_memo import publish_params
from wfls.registry import SessionTask, routes
from wfls.server import create_server
from wfls.settings import ProblemReports, Settings, parse_settings

BILLING = (Path(__file__).parents[2] / "examples" / "billing.wf.toml").read_text()


class Sink:
    """A writer that keeps what the server sends; ``changed`` is set at every message
    written (on the loop) and at every ``poke`` (from any thread: a test's spy in the
    worker), which is what ``until`` waits on."""

    def __init__(self) -> None:
        self.messages: list[dict] = []
        self.changed = asyncio.Event()
        self.loop = asyncio.get_running_loop()

    def write(self, data: bytes) -> None:
        body = data.split(b"\r\n\r\n", 1)[1]
        self.messages.append(json.loads(body))
        self.changed.set()

    def poke(self) -> None:
        self.loop.call_soon_threadsafe(self.changed.set)

    def close(self) -> None:
        pass


def initialized_server(preset: str):
    """A server after ``initialize``, writing to a ``Sink``; the end of an index build
    ahead also wakes ``until`` (nothing is sent to the client then)."""
    server = create_server()
    sink = Sink()
    server.protocol.set_writer(sink)
    server.protocol.handle_message(
        types.InitializeRequest(
            id=1,
            params=types.InitializeParams(capabilities=capabilities(preset, None)),
        )
    )
    indexed: set[str] = set()

    def ended(uri: str, done: bool) -> None:
        if done:
            indexed.add(uri)
        sink.poke()

    server.scheduler.on_index = ended
    server.indexed_ahead = indexed  # read by ``index_complete``
    return server, sink


def index_complete(server, uri: str) -> bool:
    """Whether a build ahead completed the index of ``uri`` (read without making the
    index: a test may check on which thread that is made)."""
    return uri in server.indexed_ahead


def did_open(server, uri: str, text: str, language_id: str = "toml") -> None:
    """``didOpen`` of ``uri`` at version 1, handled as the transport hands it over."""
    server.protocol.handle_message(
        types.DidOpenTextDocumentNotification(
            params=types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id=language_id, version=1, text=text
                )
            )
        )
    )


def did_change(server, uri: str, version: int, text: str) -> None:
    """``didChange`` of ``uri`` to ``text`` (the whole document) at ``version``."""
    server.protocol.handle_message(
        types.DidChangeTextDocumentNotification(
            params=types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
    )


async def test_pull_clients_get_no_push_registration_and_push_clients_no_pull():
    pulling, sink = initialized_server(PULLING)
    [response] = sink.messages
    assert "diagnosticProvider" in response["result"]["capabilities"]
    pushing, sink = initialized_server("visual-studio-code")
    [response] = sink.messages
    assert "diagnosticProvider" not in response["result"]["capabilities"]
    assert pulling.flags.pull_diagnostics and not pushing.flags.pull_diagnostics


def _pull(server, uri: str, request_id: int) -> None:
    server.protocol.handle_message(
        types.DocumentDiagnosticRequest(
            id=request_id,
            params=types.DocumentDiagnosticParams(
                text_document=types.TextDocumentIdentifier(uri=uri)
            ),
        )
    )


FAILING = "file:///w/boom.wf.toml"
FAILED = (
    "wfls failed to analyse this document (RuntimeError: analysis bug); its findings are "
    "missing: please report this bug"
)


async def _failing_analysis(monkeypatch, preset: str):
    """A server whose analysis of ``FAILING`` raises (a bug) and whose other document,
    open before it, has a mistake (its findings made, the workspace indexed)."""
    server, sink = initialized_server(preset)
    other = "file:///w/other.wf.toml"
    did_open(server, other, BILLING.replace('start = "customers"', 'start = "customer"'))
    analyse = server.store.analyse

    def explode(uri: str, *args, **kwargs):
        if uri == FAILING:
            raise RuntimeError("analysis bug\nits second line")
        return analyse(uri, *args, **kwargs)

    monkeypatch.setattr(server.store, "analyse", explode)
    did_open(server, FAILING, "")
    return server, sink, other


def _analysis_failures(caplog) -> list[tuple[str, bool]]:
    return [
        (record.getMessage(), record.exc_info is not None)
        for record in caplog.records
        if "the analysis of" in record.getMessage()
    ]


async def test_a_failed_analysis_is_the_documents_one_pulled_diagnostic(monkeypatch, caplog):
    """A bug of the analysis is answered as the document's ``internal_error`` (with the
    exception's first line) instead of nothing, its traceback logged once; the other
    documents' diagnostics are untouched."""
    server, sink, other = await _failing_analysis(monkeypatch, PULLING)
    for request_id, uri in ((2, FAILING), (3, FAILING), (4, other)):
        _pull(server, uri, request_id)
        await until(sink, lambda n=request_id: _answer(sink, n) is not None, "the answer")
    failed = {
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
        "message": FAILED,
        "severity": 1,
        "code": "internal_error",
        "source": "wfls",
    }
    assert [_answer(sink, n)["result"]["items"] for n in (2, 3)] == [[failed]] * 2
    assert "unknown_start" in [d["code"] for d in _answer(sink, 4)["result"]["items"]]
    assert _analysis_failures(caplog) == [(f"the analysis of {FAILING} failed", True)]


async def test_a_failed_analysis_is_the_documents_one_pushed_diagnostic(monkeypatch, caplog):
    _, sink, _ = await _failing_analysis(monkeypatch, "visual-studio-code")

    def pushed() -> list[dict]:
        return [
            m["params"]
            for m in sink.messages
            if m.get("method") == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
            and m["params"]["uri"] == FAILING
        ]

    await until(sink, lambda: pushed(), "the push")
    [params] = pushed()
    assert [(d["code"], d["message"]) for d in params["diagnostics"]] == [
        ("internal_error", FAILED)
    ]
    assert _analysis_failures(caplog) == [(f"the analysis of {FAILING} failed", True)]


def test_settings_parsing():
    assert parse_settings(None) == (Settings(), [])
    settings, problems = parse_settings({"undeclaredPropertySeverity": "Off", "other": 1})
    assert settings.undeclared_property_severity is None
    assert problems == []
    settings, problems = parse_settings(["not", "an", "object"])
    assert settings == Settings()
    assert len(problems) == 1


def published(sink, version: int) -> bool:
    """Whether the diagnostics of ``version`` were pushed to ``sink``."""
    return any(
        m.get("method") == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
        and m["params"].get("version") == version
        for m in sink.messages
    )


async def until(sink: Sink, condition, what: str) -> None:
    """Wait (up to ten seconds) for ``condition`` to hold, checking it again whenever
    ``sink`` changes: a message written or a spy's ``poke``."""
    try:
        async with asyncio.timeout(10):
            while not condition():
                # No await between the check and clear(): a change cannot slip in between.
                sink.changed.clear()
                await sink.changed.wait()
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


async def after_the_servers_timers(delay: float) -> None:
    """Return once the event loop has run every timer the server set for ``delay``
    seconds or less before this call (an edit's grace): a timer set later for longer
    comes after those in the loop's order, however slow the machine is."""
    loop = asyncio.get_running_loop()
    fired = loop.create_future()
    loop.call_later(delay, fired.set_result, None)
    await fired


class _Captured:
    """A writer that keeps what is written (the protocol's transport, in a test)."""

    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data

    def close(self) -> None:
        pass


def _framed(data: bytes) -> dict:
    header, _, body = data.partition(b"\r\n\r\n")
    lines = dict(line.split(": ", 1) for line in header.decode().split("\r\n"))
    assert int(lines["Content-Length"]) == len(body)
    assert lines["Content-Type"] == "application/vscode-jsonrpc; charset=utf-8"
    return json.loads(body)


def test_diagnostics_encoded_by_the_worker_are_what_pygls_would_send() -> None:
    """A push client's diagnostics are encoded off the event loop and written as they
    are (``notify_encoded``): the same message, framed the same way, as pygls sends."""
    server = create_server()
    place = types.Range(types.Position(2, 4), types.Position(2, 9))
    params = types.PublishDiagnosticsParams(
        uri="file:///w/billing.wf.toml",
        version=7,
        diagnostics=[
            types.Diagnostic(
                range=place,
                message="unknown segment 'naem' — é ✓ 😀 \u2028",
                severity=types.DiagnosticSeverity.Error,
                code="invalid_context_path",
                source="wfls",
                data={"suggestion": "name", "segments": [1, 2]},
                tags=[types.DiagnosticTag.Unnecessary],
                related_information=[
                    types.DiagnosticRelatedInformation(
                        types.Location("file:///w/billing.wf.toml", place), "declared here"
                    )
                ],
            ),
            types.Diagnostic(range=place, message="a hint", severity=types.DiagnosticSeverity.Hint),
        ],
    )
    by_pygls, by_worker = _Captured(), _Captured()
    server.protocol.set_writer(by_pygls)
    server.text_document_publish_diagnostics(params)
    server.protocol.set_writer(by_worker)
    encoded = [server.diagnostics.encode_diagnostic(d) for d in params.diagnostics]
    server.protocol.notify_encoded(
        types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
        publish_params(server.diagnostics.worker_converter, params.uri, params.version, encoded),
    )
    assert by_worker.data.isascii()
    assert _framed(by_worker.data) == _framed(by_pygls.data)
    assert _framed(by_worker.data)["params"]["diagnostics"][1] == {
        "range": {"start": {"line": 2, "character": 4}, "end": {"line": 2, "character": 9}},
        "message": "a hint",
        "severity": 4,
    }


def test_every_route_is_of_the_kind_its_handler_is() -> None:
    """pygls runs a coroutine function as a task and a function at once, in the order
    the messages come: a session task's handler is a coroutine function, every other
    handler a function (a document request's runs once its context is built), and each
    method is routed once."""
    methods = [route.method for route in routes()]
    assert len(methods) == len(set(methods)) == 31
    for route in routes():
        coroutine = inspect.iscoroutinefunction(route.handle)
        assert coroutine == isinstance(route, SessionTask), route.method


_INITIALIZE_ONLY = """
import asyncio, json, sys
import wfls.cli  # what ``wfls serve`` imports before the server: the command line
from wfls.server import create_server

HEAVY = (
    "pydantic", "tree_sitter", "wf_core.version.snapshot", "wf_core.workspace.catalog", "wfls.store"
)

def loaded():
    return [name for name in HEAVY if name in sys.modules]

class Captured:
    # What is loaded as the answer is written, and after what the handler scheduled
    # before it (the import of the analysis): a callback scheduled now runs after that.
    def __init__(self):
        self.data = b""
        self.before = None
        self.after = asyncio.get_running_loop().create_future()
    def write(self, data):
        if self.before is None:
            self.before = loaded()
            asyncio.get_running_loop().call_soon(lambda: self.after.set_result(loaded()))
        self.data += data
    def close(self): pass

async def main():
    server = create_server()
    out = Captured()
    server.protocol.set_writer(out)
    params = {"processId": None, "rootUri": None, "capabilities": {}}
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
    server.protocol.handle_body(json.dumps(request).encode())
    loaded_after = await asyncio.wait_for(out.after, 30)
    loaded_before = out.before
    answer = json.loads(out.data.partition(b"\\r\\n\\r\\n")[2])
    commands = answer["result"]["capabilities"]["executeCommandProvider"]["commands"]
    print(json.dumps({"before": loaded_before, "after": loaded_after, "commands": commands}))

asyncio.run(main())
"""


def test_initialize_is_answered_before_the_analysis_is_imported() -> None:
    """The answer to ``initialize`` needs the protocol, not the analysis (the model's
    validators, the parsers): those are imported right after it is sent."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _INITIALIZE_ONLY], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["before"] == []
    assert set(seen["after"]) == {
        "pydantic",
        "tree_sitter",
        "wf_core.version.snapshot",
        "wf_core.workspace.catalog",
        "wfls.store",
    }
    assert seen["commands"] == [
        "wfls.ownerStack",
        "wfls.nodeContext",
        "wfls.runWorkflow",
        "wfls.graph",
        "wfls.test",
    ]


async def test_an_index_built_ahead_gives_way_to_an_edit_and_the_next_build_goes_on(
    monkeypatch,
):
    """A version's index is completed ahead, in the worker, after its diagnostics. An edit
    arriving meanwhile makes the build give way between parts; the edit's diagnostics
    come first; and the next version's build makes only the parts left and the part of
    the node the edit changed: every other part is found again, none is made twice."""
    from wf_core.semantic.build import PartWriter

    monkeypatch.syspath_prepend(str(Path(__file__).parents[1]))
    from test_store import many_nodes

    written: list[int] = []
    write = PartWriter.node

    def counted(self: PartWriter, index: int, base: int):
        written.append(index)
        return write(self, index, base)

    monkeypatch.setattr(PartWriter, "node", counted)
    text = many_nodes(300)
    uri = "file:///w/many.wf.json"
    server, sink = initialized_server("visual-studio-code")
    # The build's second poll (after 64 parts) waits for the test.
    polls, release = _hold_index_builds(server, sink, from_poll=2)
    events: list[str] = []
    store = server.store
    server.scheduler.on_analysis = lambda uri: events.append(f"analysis {store.version(uri)}")
    did_open(server, uri, text, "json")
    await until(
        sink, lambda: published(sink, 1) and len(polls) == 2, "the first diagnostics, the build"
    )
    assert len(written) == 64  # held part way
    did_change(server, uri, 2, text.replace("loop.item.name", "loop.item.nam", 1))  # in t0
    release.set()  # the build sees version 2: it gives way
    await until(
        sink,
        lambda: published(sink, 2) and index_complete(server, uri),
        "the edit's diagnostics, then its index",
    )
    assert events == ["analysis 1", "analysis 2"]
    # Every node once, and t0 (``nodes[1]``, made before the edit) once more.
    assert sorted(written) == sorted([*range(301), 1])


def _completion_at(server, uri: str, text: str, needle: str, request_id: int) -> None:
    offset = text.index(needle) + len(needle)
    line = text.count("\n", 0, offset)
    character = offset - (text.rfind("\n", 0, offset) + 1)
    server.protocol.handle_message(  # as the transport hands a decoded request over
        types.CompletionRequest(
            id=request_id,
            params=types.CompletionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=line, character=character),
            ),
        )
    )


def answers_before_each_analysis(server, sink, request_id: int) -> list[int]:
    """A list that gets, as each analysis begins, how many answers to ``request_id`` the
    client has received by then (0 or 1)."""
    answered: list[int] = []

    def noted(uri: str) -> None:
        answered.append(sum(m.get("id") == request_id and "result" in m for m in sink.messages))

    server.scheduler.on_analysis = noted
    return answered


async def test_a_request_sent_with_an_edit_is_answered_before_its_analysis(monkeypatch):
    """An edit's analysis starts ``EDIT_GRACE`` after the change, so the completion an
    editor sends right behind it is answered first; an opened document is analysed at
    once."""

    from wfls import scheduling

    monkeypatch.setattr(scheduling, "EDIT_GRACE", 60.0)  # an opened document: no wait
    text = BILLING
    uri = "file:///w/billing.wf.toml"
    server, sink = initialized_server("visual-studio-code")
    answered = answers_before_each_analysis(server, sink, 7)
    did_open(server, uri, text)
    await until(sink, lambda: published(sink, 1), "the diagnostics of the opened document")
    assert answered == [0]
    # (an edit made while that push is still under way is analysed right after it)
    await until(sink, lambda: index_complete(server, uri), "the first push and index")
    monkeypatch.setattr(scheduling, "EDIT_GRACE", 0.3)
    edited = text.replace("customers.item.name", "customers.item.", 1)
    did_change(server, uri, 2, edited)
    _completion_at(server, uri, edited, "customers.item.", 7)  # right behind the change
    await until(sink, lambda: published(sink, 2), "the diagnostics of the edit")
    assert answered == [0, 1]  # the completion was answered before the analysis began
    items = next(m["result"] for m in sink.messages if m.get("id") == 7)
    assert "name" in {item["label"] for item in items["items"]}


async def test_a_request_after_an_edit_waits_for_the_model_not_the_findings(monkeypatch):
    """A completion right behind an edit that changes the graph (so no earlier analysis
    can answer it) is answered from the new version's model and context model: its
    findings are left to the diagnostics' analysis, which comes after."""
    from wfls import scheduling

    uri = "file:///w/billing.wf.toml"
    server, sink = initialized_server("visual-studio-code")
    did_open(server, uri, BILLING)
    await until(sink, lambda: index_complete(server, uri), "the first push and index")
    monkeypatch.setattr(scheduling, "EDIT_GRACE", 60.0)  # the edit's analysis is not due
    edited = BILLING.replace('id = "charge"', 'id = "bill"').replace(
        "customers.item.name", "customers.item.", 1
    )
    did_change(server, uri, 2, edited)
    _completion_at(server, uri, edited, "customers.item.", 7)
    await until(sink, lambda: any(m.get("id") == 7 for m in sink.messages), "the completion")
    items = next(m["result"] for m in sink.messages if m.get("id") == 7)
    assert "name" in {item["label"] for item in items["items"]}
    analysed = server.store.current_snapshot(uri, "model")
    assert analysed is not None and analysed[1].version == 2
    assert not analysed[1].diagnosed and not published(sink, 2)


async def test_a_completion_right_behind_an_opening_is_answered_before_the_findings():
    """An opened document is analysed at once, its model first as a job of its own: a
    completion sent right behind the opening is answered while the findings' analysis is
    held at its start (it would never be, were the answer behind that analysis)."""
    uri = "file:///w/billing.wf.toml"
    server, sink = initialized_server("visual-studio-code")
    completion_answered = threading.Event()
    held: list[bool] = []

    def hold(uri: str) -> None:  # in the worker, as the findings' analysis begins
        held.append(completion_answered.wait(10))

    server.scheduler.on_analysis = hold
    did_open(server, uri, BILLING)
    _completion_at(server, uri, BILLING, "customers.item.", 7)
    await until(sink, lambda: any(m.get("id") == 7 for m in sink.messages), "the completion")
    completion_answered.set()
    await until(sink, lambda: published(sink, 1), "the diagnostics of the opened document")
    assert held == [True]
    items = next(m["result"] for m in sink.messages if m.get("id") == 7)
    assert "name" in {item["label"] for item in items["items"]}


async def test_an_edits_analysis_waits_for_a_request_being_answered(monkeypatch):
    """A request that arrived within the grace but is still being answered when the grace
    ends puts the analysis off, grace by grace, until it is answered (up to
    ``EDIT_GRACE_LIMIT``): answered while the analysis runs, it would wait on it."""

    from wfls import scheduling

    text = BILLING
    uri = "file:///w/billing.wf.toml"
    server, sink = initialized_server("visual-studio-code")
    did_open(server, uri, text)
    await until(sink, lambda: index_complete(server, uri), "the first push and index")
    answered = answers_before_each_analysis(server, sink, 8)
    context = server.contexts.request_context
    proceed = asyncio.Event()

    async def held(*args, **kwargs):
        await proceed.wait()  # still being answered when the grace ends
        return await context(*args, **kwargs)

    monkeypatch.setattr(server.contexts, "request_context", held)
    monkeypatch.setattr(scheduling, "EDIT_GRACE", 0.05)
    monkeypatch.setattr(scheduling, "EDIT_GRACE_LIMIT", 60.0)
    edited = text.replace("customers.item.name", "customers.item.", 1)
    did_change(server, uri, 2, edited)
    _completion_at(server, uri, edited, "customers.item.", 8)
    assert server.protocol.answering
    # The edit's grace has ended (its timer ran before this longer one), and an analysis
    # it started would be queued in the one worker before this no-op, so done after it.
    await after_the_servers_timers(2 * scheduling.EDIT_GRACE)
    await server.scheduler.in_worker(lambda: None)
    assert answered == []  # put off: the completion is still being answered
    proceed.set()
    await until(sink, lambda: published(sink, 2), "the diagnostics of the edit")
    assert answered == [1]  # the analysis began once the completion was answered
    assert not server.protocol.answering


class ObservedQuiet(threading.Event):
    """A ``quiet`` event that tells ``sink`` when it is waited on, and keeps how each
    wait ended (True: it was set; False: the wait timed out)."""

    def __init__(self, sink: Sink) -> None:
        super().__init__()
        self.sink = sink
        self.waited = threading.Event()
        self.ends: list[bool] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.waited.set()
        self.sink.poke()
        ended = super().wait(timeout)
        self.ends.append(ended)
        return ended


async def test_an_analysis_waits_while_a_message_arrives(monkeypatch):
    """The worker's analysis starts only once the message arriving meanwhile has been
    handled (the transport clears ``quiet`` from its first byte until then)."""
    from wfls import scheduling

    text = BILLING
    uri = "file:///w/billing.wf.toml"
    server, sink = initialized_server("visual-studio-code")
    started = threading.Event()
    server.scheduler.on_analysis = lambda uri: started.set()
    monkeypatch.setattr(scheduling, "QUIET_WAIT", 60.0)  # not ended by the safety net
    quiet = ObservedQuiet(sink)  # cleared: a message is arriving
    monkeypatch.setattr(server.scheduler, "quiet", quiet)
    did_open(server, uri, text)
    await until(sink, quiet.waited.is_set, "the analysis to pause")
    assert not started.is_set() and not published(sink, 1)  # paused before it began
    quiet.set()  # handled
    await until(sink, lambda: published(sink, 1), "the diagnostics once the message was handled")
    assert started.is_set()
    assert quiet.ends[0] is True  # the pause ended as the message was handled


async def test_edits_faster_than_the_grace_do_not_put_the_analysis_off(monkeypatch):
    """An edit's analysis is due ``EDIT_GRACE`` after the first edit of a burst: edits
    that keep arriving sooner than that do not push it back, so typing faster than the
    grace still gets diagnostics while it goes on (those of the last version after it)."""

    from wfls import scheduling

    text = BILLING
    uri = "file:///w/billing.wf.toml"
    server, sink = initialized_server("visual-studio-code")
    analysed: list[int | None] = []

    def noted(uri: str) -> None:
        analysed.append(server.store.version(uri))
        sink.poke()

    server.scheduler.on_analysis = noted
    did_open(server, uri, text)
    # (an edit made while that push is still under way is analysed right after it)
    await until(sink, lambda: index_complete(server, uri), "the first push and index")
    grace = 0.4
    monkeypatch.setattr(scheduling, "EDIT_GRACE", grace)

    def edit(version: int) -> None:
        edited = text.replace("customers.item.name", f"customers.item.n{version}", 1)
        did_change(server, uri, version, edited)

    # An edit every quarter of the grace (the wait for the analysis to begin is what
    # spaces them) until the analysis of the first begins; edits that put it off would
    # go on to the bound.
    version = 1
    while len(analysed) < 2:
        assert version < 40, "edits faster than the grace put the analysis off"
        version += 1
        edit(version)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(grace / 4):
                await until(sink, lambda: len(analysed) >= 2, "the analysis of the edits")
    last = version + 1
    edit(last)
    assert analysed[0] == 1
    assert 2 <= analysed[1] < last  # analysed while the edits went on
    await until(sink, lambda: published(sink, last), "the diagnostics of the last edit")


def _position(text: str, offset: int) -> types.Position:
    line = text.count("\n", 0, offset)
    return types.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


def _hold_index_builds(
    server, sink: Sink, from_poll: int = 1
) -> tuple[list[bool], threading.Event]:
    """Index builds ahead wait at their polls, from the ``from_poll``-th on, until the
    returned event is set; the list gets a mark at each poll."""
    release = threading.Event()
    polls: list[bool] = []
    waiting = server.scheduler.jobs_waiting

    def held_polls() -> bool:
        # Only the build's polls (``give_way`` asks first whether a job waits).
        if sys._getframe(1).f_code.co_name == "give_way":
            polls.append(True)
            if len(polls) >= from_poll:
                sink.poke()
                release.wait(10)
        return waiting()

    server.scheduler.jobs_waiting = held_polls  # type: ignore[method-assign]
    return polls, release


def _answer(sink, request_id: int):
    return next((m for m in sink.messages if m.get("id") == request_id), None)


INDEXED = "file:///w/indexed.wf.toml"
"""A document opened, and indexed, before the first index builds are held."""


async def _opened_while_the_first_index_is_held(monkeypatch, uri: str, text: str):
    """A server with ``text`` open, its diagnostics published and its first index build
    held until the returned event is set: ``(server, sink, builds, release)``. ``INDEXED``
    (the billing example) is open too, its index built."""
    server, sink = initialized_server("visual-studio-code")
    did_open(server, INDEXED, BILLING)
    await until(sink, lambda: index_complete(server, INDEXED), "the index of INDEXED")
    builds, release = _hold_index_builds(server, sink)
    did_open(server, uri, text)
    try:
        await until(
            sink, lambda: published(sink, 1) and builds, "the diagnostics and the index build"
        )
    except BaseException:
        release.set()
        raise
    return server, sink, builds, release


def _hover_at(server, uri: str, text: str, offset: int, request_id: int) -> None:
    server.protocol.handle_message(
        types.HoverRequest(
            id=request_id,
            params=types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=_position(text, offset),
            ),
        )
    )


async def _answered_after(server, sink, request_id: int) -> None:
    """Return once a hover on ``INDEXED``, sent now, is answered: it needs nothing that
    is held, and requests are taken in order and answered by tasks started in order, so
    request ``request_id`` (sent before) has by then been answered, or waits on something."""
    _hover_at(server, INDEXED, BILLING, BILLING.index('"customers"') + 2, 99)
    await until(sink, lambda: _answer(sink, 99) is not None, "the hover on INDEXED")
    assert _answer(sink, 99)["result"] is not None


async def test_a_completion_while_the_index_is_built_answers_from_the_part_there(
    monkeypatch,
):
    """While a document's index is being built ahead (seconds at 16,000 nodes), a
    completion inside a node is answered at once from the part of that node, made on
    the spot."""
    from wf_core.semantic.build import PathResolver

    # The resolver the parts are written with is made in the worker, by the build.
    made_on: list[threading.Thread] = []
    original = PathResolver.__init__

    def recorded(self: PathResolver, *args: object, **kwargs: object) -> None:
        made_on.append(threading.current_thread())
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(PathResolver, "__init__", recorded)
    uri = "file:///w/billing.wf.toml"
    server, sink, _, release = await _opened_while_the_first_index_is_held(
        monkeypatch, uri, BILLING
    )
    try:
        _completion_at(server, uri, BILLING, "customers.item.", 9)
        await until(sink, lambda: _answer(sink, 9) is not None, "the completion")
        assert not index_complete(server, uri)  # answered while the build was held
        labels = {item["label"] for item in _answer(sink, 9)["result"]["items"]}
        assert {"name", "orders"} <= labels
        assert made_on and threading.current_thread() not in made_on
    finally:
        release.set()


SUBGRAPH_CALLER = """\
name = "parent"
start = "call"

[[nodes]]
id = "call"
type = "subgraph"
workflow = "child"
output_schema = { type = "object", properties = { total = { type = "number" } } }
output = [{ target = "state.total", path = "total" }]

[[edges]]
from = "call"
outcome = "ok"
to = "__end__"
"""


async def test_a_hover_that_needs_the_whole_index_makes_the_parts_it_reads(monkeypatch):
    """A property's hover counts its readers in the whole document: asked while the index
    is being built ahead, it makes the parts it reads and answers without waiting."""
    uri = "file:///w/parent.wf.toml"
    server, sink, _, release = await _opened_while_the_first_index_is_held(
        monkeypatch, uri, SUBGRAPH_CALLER
    )
    try:
        _hover_at(server, uri, SUBGRAPH_CALLER, SUBGRAPH_CALLER.index("total = { type"), 10)
        await until(sink, lambda: _answer(sink, 10) is not None, "the hover")
        assert not index_complete(server, uri)
    finally:
        release.set()
    assert "**property `total`**" in _answer(sink, 10)["result"]["contents"]["value"]


# -- log lines and settings problems ------------------------------------------------------


def test_log_records_below_error_go_to_the_client_with_their_level():
    """Editors log a server's stderr as errors: records below ERROR go to the client as
    ``window/logMessage`` of their level; errors, and what cannot be sent, to stderr."""
    sent: list[tuple[types.MessageType, str]] = []
    kept: list[logging.LogRecord] = []
    accepting = True

    def send(kind: types.MessageType, message: str) -> bool:
        if accepting:
            sent.append((kind, message))
        return accepting

    fallback = logging.Handler()
    fallback.emit = kept.append  # type: ignore[method-assign]
    log = logging.getLogger("wfls.test-client-log")
    log.propagate = False
    log.setLevel(logging.DEBUG)
    log.addHandler(client_log.ClientLog(send, fallback))
    try:
        log.debug("a debug line")
        log.info("request 4 answered with error -32803: there is no name to rename here")
        log.warning("the client refused a progress token")
        log.error("analysis of x failed")
        accepting = False  # the client is gone
        log.info("the client closed its end of the connection")
    finally:
        log.handlers.clear()
    assert sent == [
        (types.MessageType.Log, "wfls.test-client-log: a debug line"),
        (
            types.MessageType.Info,
            "wfls.test-client-log: request 4 answered with error -32803: "
            "there is no name to rename here",
        ),
        (types.MessageType.Warning, "wfls.test-client-log: the client refused a progress token"),
    ]
    assert [r.getMessage() for r in kept] == [
        "analysis of x failed",
        "the client closed its end of the connection",
    ]


async def test_the_server_logs_to_the_client_only_between_initialize_and_shutdown():
    server = create_server()
    sink = Sink()
    server.protocol.set_writer(sink)
    assert server.connection.log_to_client(types.MessageType.Info, "too early") is False
    server.protocol.handle_message(
        types.InitializeRequest(
            id=1, params=types.InitializeParams(capabilities=capabilities("neovim", None))
        )
    )
    assert server.connection.log_to_client(types.MessageType.Info, "hello") is True
    [log] = [m for m in sink.messages if m.get("method") == types.WINDOW_LOG_MESSAGE]
    assert log["params"] == {"type": types.MessageType.Info.value, "message": "hello"}
    server.protocol.handle_body(b'{"jsonrpc": "2.0", "id": 2, "method": "shutdown"}')
    assert server.connection.log_to_client(types.MessageType.Info, "too late") is False


async def test_a_reply_after_shutdown_is_taken_quietly(caplog):
    """The client answers a request the server sent before ``shutdown`` (which cancelled
    it): nothing is logged at warning level, which stderr and so Neovim's log as an
    error would get."""
    server, sink = initialized_server("neovim")
    future = server.protocol.send_request(
        types.WORKSPACE_CONFIGURATION,
        types.ConfigurationParams(items=[types.ConfigurationItem(section="wfls")]),
    )
    request_id = sink.messages[-1]["id"]
    server.protocol.handle_body(b'{"jsonrpc": "2.0", "id": 2, "method": "shutdown"}')
    assert server.protocol.shut_down
    with caplog.at_level(logging.DEBUG):
        reply = {"jsonrpc": "2.0", "id": request_id, "result": [None]}
        server.protocol.handle_body(json.dumps(reply).encode())
    assert future.cancelled()
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_a_settings_problem_is_reported_once_per_configuration():
    """Neovim sends its settings at initialization and again as didChangeConfiguration;
    the same invalid configuration read again is not reported again."""
    reports = ProblemReports()
    readings = [
        ([], False),  # valid
        (["a must be a boolean"], True),
        (["a must be a boolean"], False),  # read again
        (["a must be a boolean", "b is unknown"], True),  # another mistake
        (["a must be a boolean"], True),  # another configuration
        ([], False),
        (["a must be a boolean"], True),  # made again after valid settings
    ]
    assert [reports.to_report(problems) for problems, _ in readings] == [
        shown for _, shown in readings
    ]


async def test_a_run_right_behind_an_edit_is_answered_after_the_edits_diagnostics(monkeypatch):
    """A run reads the full analysis of the latest version, the one whose diagnostics are
    due: they are pushed before its answer, not after it (a client that reads both in one
    chunk handles them in that order, and lsp-mode 8 drops whatever follows the answer to
    a request it waits for in that chunk)."""
    from wfls import scheduling

    text = BILLING.replace("customers.item.name", "customers.item.nmae", 1)
    uri = "file:///w/billing.wf.toml"
    server, sink = initialized_server("visual-studio-code")
    # The workspace's scan (of no folder), which a run waits for, reports its progress;
    # done before the document is opened, whose diagnostics it would check again.
    server.indexing.start()
    create = types.WINDOW_WORK_DONE_PROGRESS_CREATE
    await until(sink, lambda: any(m.get("method") == create for m in sink.messages), "progress")
    asked = next(m for m in sink.messages if m.get("method") == create)
    server.protocol.handle_message(types.WorkDoneProgressCreateResponse(id=asked["id"]))
    await server.workspace_scanned()
    did_open(server, uri, text)
    await until(sink, lambda: published(sink, 1), "the diagnostics of the opened document")
    scheduler = server.scheduler
    while uri in scheduler._pushing or uri in scheduler._pending_push:  # the opening's
        await scheduler.push_first(uri)
        await asyncio.sleep(0)
    # The edit's push is put off for longer than the run takes, unless the run pushes it.
    monkeypatch.setattr(scheduling, "EDIT_GRACE", 30.0)
    did_change(server, uri, 2, BILLING)
    inputs = json.loads((Path(__file__).parents[2] / "examples" / "billing.input.json").read_text())
    server.protocol.handle_message(
        types.ExecuteCommandRequest(
            id=9,
            params=types.ExecuteCommandParams(
                command="wfls.runWorkflow", arguments=[{"uri": uri, "input": inputs}]
            ),
        )
    )
    await until(sink, lambda: any(m.get("id") == 9 for m in sink.messages), "the run's answer")
    order = [
        "answer" if m.get("id") == 9 else m["params"]["version"]
        for m in sink.messages
        if m.get("id") == 9 or m.get("method") == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
    ]
    assert order == [1, 2, "answer"]
    assert next(m for m in sink.messages if m.get("id") == 9)["result"]["status"] == "completed"
    assert [
        m["params"]["diagnostics"]
        for m in sink.messages
        if m.get("method") == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
    ][-1] == []
