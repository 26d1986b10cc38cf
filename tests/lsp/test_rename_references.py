"""References, highlights and rename through the protocol, both presets and encodings.

A non-ASCII node id (``café``) puts multi-unit characters before later names on
the same line, so ranges are also checked in the negotiated encoding.
"""

from __future__ import annotations

import pytest
from conftest import Session
from lsprotocol import types


@pytest.fixture
def billing(billing_text: str) -> str:
    return billing_text.replace('"charge"', '"café"')


def _edits(session: Session, edit: types.WorkspaceEdit, uri: str) -> list[types.TextEdit]:
    if edit.document_changes:
        [change] = edit.document_changes
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.uri == uri
        assert change.text_document.version == session.versions[uri]
        return list(change.edits)  # type: ignore[arg-type]
    assert edit.changes is not None
    return list(edit.changes[uri])


def _apply(session: Session, uri: str, edits: list[types.TextEdit]) -> str:
    text = session.texts[uri]
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def offset(position: types.Position) -> int:
        line = lines[position.line]
        units = 0
        for index, char in enumerate(line):
            if units >= position.character:
                return starts[position.line] + index
            size = (
                len(char.encode("utf-8"))
                if session.encoding == "utf-8"
                else (2 if ord(char) > 0xFFFF else 1)
            )
            units += size
        return starts[position.line] + len(line)

    spans = sorted(
        ((offset(e.range.start), offset(e.range.end), e.new_text) for e in edits), reverse=True
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


async def test_references_of_a_node_id(session: Session, billing: str) -> None:
    uri = session.open("billing.wf.toml", billing)
    offset = session.find(uri, 'to = "café"') + 6
    result = await session.request(
        types.TEXT_DOCUMENT_REFERENCES,
        uri,
        offset,
        context=types.ReferenceContext(include_declaration=True),
    )
    ranges = sorted((r.range.start.line, r.range.start.character) for r in result)
    expected = sorted(
        (p.line, p.character)
        for p in (
            session.position(uri, session.find(uri, 'to = "café"') + 6),
            session.position(uri, session.find(uri, 'from = "café"') + 8),
            session.position(uri, session.find(uri, 'id = "café"') + 6),
        )
    )
    assert ranges == expected
    assert {r.uri for r in result} == {uri}


async def test_highlights_mark_reads_and_writes(session: Session, billing: str) -> None:
    uri = session.open("billing.wf.toml", billing)
    offset = session.find(uri, 'id = "customers"') + 6
    result = await session.request(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT, uri, offset)
    kinds = [h.kind for h in result]
    assert kinds.count(types.DocumentHighlightKind.Write) == 1
    assert kinds.count(types.DocumentHighlightKind.Read) == 6  # start, 3 edges, 2 paths


async def test_rename_a_loop_requotes_its_paths(session: Session, billing: str) -> None:
    uri = session.open("billing.wf.toml", billing)
    offset = session.find(uri, 'id = "customers"') + 6
    prepared = await session.request(types.TEXT_DOCUMENT_PREPARE_RENAME, uri, offset)
    assert prepared.placeholder == "customers"
    assert prepared.range == session.range(uri, "customers", after="id = ")
    edit = await session.request(types.TEXT_DOCUMENT_RENAME, uri, offset, new_name="customers.v1")
    text = _apply(session, uri, _edits(session, edit, uri))
    assert 'over = "context.foreach.\\"customers.v1\\".item.orders"' in text
    assert 'path = "context.foreach.\\"customers.v1\\".item.name"' in text
    assert text.count("customers.v1") == 7  # id, start, 3 edges, 2 paths


async def test_a_refused_rename_is_an_error_the_editor_shows(session: Session, billing: str):
    uri = session.open("billing.wf.toml", billing)
    offset = session.find(uri, 'id = "customers"') + 6
    with pytest.raises(Exception, match="a node 'café' already exists"):
        await session.request(types.TEXT_DOCUMENT_RENAME, uri, offset, new_name="café")
    with pytest.raises(Exception, match="workflow's end"):
        end = session.find(uri, '"__end__"') + 2
        await session.request(types.TEXT_DOCUMENT_PREPARE_RENAME, uri, end)
