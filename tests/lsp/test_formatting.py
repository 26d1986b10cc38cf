"""Formatting through the protocol, for every client preset and position encoding: the
smallest edits (none for a formatted document), the client's indentation, a selection's
edits only, and an error reply for a document with a syntax error. Non-ASCII text
before the edits proves they are converted in the negotiated encoding."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from conftest import WAIT, Session
from lsprotocol import types
from test_code_action_requests import offset

from wfls.settings import parse_settings

MESSY = """\
# é😀 a comment before everything
name = "é😀"
outcomes = [ "ok" ]
start = "a"
edges = [{ from = "a", outcome = "done", to = "b" }, { from = "b", outcome = "ok", to = "__end__" }]

[[nodes]]
type = "foreach"
id = "a"
over = "input.xs"
as = "x"

[[nodes]]
type = "join"
id = "b"
"""
FORMATTED = """\
# é😀 a comment before everything
name = "é😀"
start = "a"
outcomes = ["ok"]
edges = [
  { from = "a", outcome = "done", to = "b" },
  { from = "b", outcome = "ok", to = "__end__" },
]

[[nodes]]
id = "a"
type = "foreach"
over = "input.xs"
as = "x"

[[nodes]]
id = "b"
type = "join"
"""
OPTIONS = types.FormattingOptions(tab_size=2, insert_spaces=True)


async def send(session: Session, method: str, params: Any) -> Any:
    async with asyncio.timeout(WAIT):
        return await session.client.protocol.send_request_async(method, params)


async def format_document(
    session: Session, uri: str, options: types.FormattingOptions = OPTIONS
) -> list[types.TextEdit]:
    params = types.DocumentFormattingParams(
        text_document=types.TextDocumentIdentifier(uri=uri), options=options
    )
    return list(await send(session, types.TEXT_DOCUMENT_FORMATTING, params) or [])


def applied(session: Session, uri: str, edits: list[types.TextEdit]) -> str:
    text = session.texts[uri]
    spans = [
        (offset(text, e.range.start, session.encoding), offset(text, e.range.end, session.encoding))
        for e in edits
    ]
    for (start, end), edit in sorted(
        zip(spans, edits, strict=True), reverse=True, key=lambda p: p[0]
    ):
        text = text[:start] + edit.new_text + text[end:]
    return text


async def test_formatting_gives_the_smallest_edits_and_none_once_formatted(session: Session):
    uri = session.open("messy.wf.toml", MESSY)
    edits = await format_document(session, uri)
    assert applied(session, uri, edits) == FORMATTED
    # The comment and the line of ``name`` are not rewritten, only what changed.
    assert all(e.range.start.line >= 1 for e in edits)
    assert not any("comment" in e.new_text for e in edits)
    session.edit(uri, 0, len(session.texts[uri]), applied(session, uri, edits))
    assert await format_document(session, uri) == []


async def test_the_client_indentation_is_the_arrays(session: Session):
    uri = session.open("messy.wf.toml", FORMATTED)
    tabs = types.FormattingOptions(tab_size=4, insert_spaces=False)
    text = applied(session, uri, await format_document(session, uri, tabs))
    assert text == FORMATTED.replace("\n  {", "\n\t{")


async def test_range_formatting_keeps_the_edits_in_the_selected_lines(session: Session):
    uri = session.open("messy.wf.toml", MESSY)
    start = session.find(uri, "[[nodes]]", occurrence=1)
    params = types.DocumentRangeFormattingParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(
            start=session.position(uri, start), end=session.position(uri, len(MESSY))
        ),
        options=OPTIONS,
    )
    edits = await send(session, types.TEXT_DOCUMENT_RANGE_FORMATTING, params)
    assert edits
    assert all(e.range.start.line >= MESSY[:start].count("\n") for e in edits)
    assert applied(session, uri, edits) == MESSY.replace(
        'type = "join"\nid = "b"', 'id = "b"\ntype = "join"'
    )
    # The same range given end first.
    params.range = types.Range(start=params.range.end, end=params.range.start)
    assert await send(session, types.TEXT_DOCUMENT_RANGE_FORMATTING, params) == edits


async def test_a_syntax_error_is_an_error_reply_saying_where(session: Session):
    uri = session.open("broken.wf.toml", 'name = "é😀"\nnodes = [\n')
    with pytest.raises(Exception, match="syntax error at line 2, column 9: array is not closed"):
        await format_document(session, uri)


@pytest.mark.parametrize(
    ("raw", "width", "problems"),
    [
        ({"format": {"width": 80}}, 80, []),
        ({"wfls": {"format.width": 120}}, 120, []),
        ({}, 100, []),
        (
            {"format": {"width": 5}},
            100,
            ["format.width must be a whole number from 20 to 1000, not 5"],
        ),
    ],
)
def test_the_width_setting(raw: object, width: int, problems: list[str]):
    settings, found = parse_settings(raw)
    assert (settings.format_width, found) == (width, problems)
