"""References, highlights, definition and inlay hints read only the parts of the semantic
index they need (made off the event loop), never wait for the whole index; code actions
place only the findings in their range; and an index built ahead stops for any job the
worker is given, then goes on."""

from __future__ import annotations

import asyncio
import threading

from lsprotocol import types
from test_server_unit import (
    _answer,
    _position,
    did_change,
    did_open,
    initialized_server,
    published,
    until,
)

from wf_core.authoring.generate import generate_toml

URI = "file:///w/large.wf.toml"
TEXT = generate_toml(120)
NODE_ID = "g7_t3"


def _document() -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=URI)


def _at_the_id() -> types.Position:
    return _position(TEXT, TEXT.index(f'id = "{NODE_ID}"') + 6)


async def _opened_without_index_ahead():
    server, sink = initialized_server("visual-studio-code")
    server.scheduler.index_ahead = lambda uri, revision: None  # no build ahead: none to wait for
    did_open(server, URI, TEXT)
    await until(sink, lambda: published(sink, 1), "the diagnostics")
    return server, sink


async def test_references_and_highlights_make_only_the_parts_that_name_the_symbol():
    server, sink = await _opened_without_index_ahead()
    server.protocol.handle_message(
        types.ReferencesRequest(
            id=10,
            params=types.ReferenceParams(
                text_document=_document(),
                position=_at_the_id(),
                context=types.ReferenceContext(include_declaration=True),
            ),
        )
    )
    server.protocol.handle_message(
        types.DocumentHighlightRequest(
            id=11,
            params=types.DocumentHighlightParams(text_document=_document(), position=_at_the_id()),
        )
    )
    await until(sink, lambda: _answer(sink, 11) is not None, "both answers")
    written = TEXT.count(f'"{NODE_ID}"')
    assert written >= 3  # its id, and the edges into and out of it
    assert len(_answer(sink, 10)["result"]) == written
    assert len(_answer(sink, 11)["result"]) == written
    snapshot = server.store.snapshot(URI)
    assert snapshot is not None and not snapshot.index.is_complete


async def test_inlay_hints_of_a_screen_make_only_its_parts():
    server, sink = await _opened_without_index_ahead()
    start = TEXT.index(f'id = "{NODE_ID}"')
    server.protocol.handle_message(
        types.InlayHintRequest(
            id=12,
            params=types.InlayHintParams(
                text_document=_document(),
                range=types.Range(start=_position(TEXT, start), end=_position(TEXT, start + 400)),
            ),
        )
    )
    await until(sink, lambda: _answer(sink, 12) is not None, "the hints")
    assert _answer(sink, 12)["result"]
    snapshot = server.store.snapshot(URI)
    assert snapshot is not None and not snapshot.index.is_complete


async def test_an_index_built_ahead_stops_for_a_job_and_goes_on():
    """A job handed to the worker while a build ahead runs is started at the build's next
    pause, not after its last part; the build then goes on and completes."""
    server, sink = initialized_server("visual-studio-code")
    scheduler = server.scheduler
    pauses: list[bool] = []  # at each of the build's pauses: whether it stopped there
    paused, proceed = threading.Event(), threading.Event()
    original = scheduler.jobs_waiting

    def watched() -> bool:
        if not pauses:  # the first pause lasts until the job below is handed over
            paused.set()
            proceed.wait(10)
        waiting = original()
        pauses.append(waiting)
        return waiting

    scheduler.jobs_waiting = watched  # type: ignore[method-assign]
    did_open(server, URI, TEXT)
    loop = asyncio.get_running_loop()
    assert await loop.run_in_executor(None, paused.wait, 10), "the build ahead paused"
    ran: list[bool] = []
    job = asyncio.ensure_future(scheduler.in_worker(lambda: ran.append(bool(pauses))))
    await asyncio.sleep(0)  # one turn of the loop: the job is handed over
    proceed.set()
    await job
    assert ran == [True] and pauses[0] is True  # run at the build's first pause
    await until(sink, lambda: URI in server.indexed_ahead, "the build's end")
    snapshot = server.store.snapshot(URI)
    assert snapshot is not None and snapshot.index.is_complete


async def test_a_job_cancelled_before_it_starts_waits_no_more():
    """A request cancelled while its job waits for the worker: the build ahead is not told
    forever after that a job waits."""
    server, _ = initialized_server("visual-studio-code")
    scheduler = server.scheduler
    busy, release = threading.Event(), threading.Event()

    def hold() -> None:
        busy.set()
        release.wait(10)

    held = asyncio.ensure_future(scheduler.in_worker(hold))
    loop = asyncio.get_running_loop()
    assert await loop.run_in_executor(None, busy.wait, 10)
    queued = asyncio.ensure_future(scheduler.in_worker(lambda: None))
    await asyncio.sleep(0)  # one turn of the loop: the job is handed over
    assert scheduler.jobs_waiting()
    queued.cancel()
    release.set()
    await held
    assert queued.cancelled()
    assert not scheduler.jobs_waiting()


def _ask_code_actions(server, request_id: int, at: types.Position) -> None:
    """A ``textDocument/codeAction`` request for the cursor at ``at``, sent as the transport
    hands it over."""
    server.protocol.handle_message(
        types.CodeActionRequest(
            id=request_id,
            params=types.CodeActionParams(
                text_document=_document(),
                range=types.Range(start=at, end=at),
                context=types.CodeActionContext(diagnostics=[]),
            ),
        )
    )


async def test_code_actions_at_the_cursor_make_only_the_parts_there():
    """The quick fix of the finding under the cursor (a convenience key's read, rewritten
    as its structured path) and the migration, without the whole index."""
    server, sink = await _opened_without_index_ahead()
    snapshot = server.store.snapshot(URI)
    assert snapshot is not None
    finding = next(i for i in snapshot.issues if i.code == "deprecated_context_key")
    _ask_code_actions(server, 13, _position(TEXT, finding.span.start))
    await until(sink, lambda: _answer(sink, 13) is not None, "the actions")
    titles = [action["title"] for action in _answer(sink, 13)["result"]]
    assert titles == [f"Read {finding.issue.data['replacement']!r}", "Migrate convenience keys"]
    assert not snapshot.index.is_complete


async def test_code_actions_right_behind_an_edit_place_only_the_findings_there():
    """Sent right behind an edit, code actions are answered, in one job of the worker, from
    the edited version's findings made but not all placed: the diagnostics' analysis of the
    edit is held at its start until the answer is in (it never would be, were the answer
    made behind it), and the version is not diagnosed when it is."""
    server, sink = await _opened_without_index_ahead()
    finding = next(
        i for i in server.store.snapshot(URI).issues if i.code == "deprecated_context_key"
    )
    answered = threading.Event()
    held: list[bool] = []
    server.scheduler.on_analysis = lambda uri: held.append(answered.wait(10))
    edited = TEXT + "\n"  # after every finding: none of them moves
    did_change(server, URI, 2, edited)
    _ask_code_actions(server, 14, _position(edited, finding.span.start))
    await until(sink, lambda: _answer(sink, 14) is not None, "the actions")
    assert server.store.current_snapshot(URI, "report") is not None
    assert server.store.current_snapshot(URI, "findings") is None
    answered.set()
    await until(sink, lambda: published(sink, 2), "the diagnostics of the edit")
    assert held == [True]
    titles = [action["title"] for action in _answer(sink, 14)["result"]]
    assert titles == [f"Read {finding.issue.data['replacement']!r}", "Migrate convenience keys"]
