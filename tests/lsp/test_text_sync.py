"""The server's text stays the client's, character for character, through any edits.

The reference is a model of the client's text written from LSP's definitions alone: a
line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r``; a column counts UTF-16 units or UTF-8
bytes. The client sends ranges in those terms; the server reads them (``edit_at``) and
applies them (``apply_in_order``), deriving its line index edit by edit.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

from wf_core.base.edits import apply_in_order
from wf_core.base.spans import LineIndex
from wfls.convert import edit_at

_TEXT = st.text(alphabet="ab \n\r😀é", max_size=40)
_ENCODINGS = {"utf-16": "utf-16-le", "utf-8": "utf-8"}


def _client_position(text: str, offset: int, encoding: str) -> types.Position:
    """The position of ``offset`` as a client numbers it."""
    starts = [0, *(m.end() for m in re.finditer("\r\n|\r|\n", text))]
    line = max(n for n, start in enumerate(starts) if start <= offset)
    if starts[line] == offset + 1 and text[offset] == "\n":  # inside a "\r\n": not a place
        line -= 1
    column = len(text[starts[line] : offset].encode(_ENCODINGS[encoding]))
    units = column // 2 if encoding == "utf-16" else column
    return types.Position(line=line, character=units)


def _places(text: str) -> list[int]:
    """Offsets a client's cursor can be at: not between the two halves of a ``\\r\\n``."""
    return [
        o for o in range(len(text) + 1) if not (0 < o < len(text) and text[o - 1 : o + 1] == "\r\n")
    ]


@settings(max_examples=300)
@given(_TEXT, st.sampled_from(sorted(_ENCODINGS)), st.data())
def test_the_servers_text_is_the_clients_after_any_edits(
    text: str, encoding: str, data: st.DataObject
) -> None:
    lines = LineIndex(text)
    client = text
    for _ in range(data.draw(st.integers(1, 6))):
        places = _places(client)
        start = data.draw(st.sampled_from(places))
        end = data.draw(st.sampled_from([p for p in places if p >= start]))
        inserted = data.draw(_TEXT)
        change = types.TextDocumentContentChangePartial(
            range=types.Range(
                start=_client_position(client, start, encoding),
                end=_client_position(client, end, encoding),
            ),
            text=inserted,
        )
        client = client[:start] + inserted + client[end:]
        lines, _ = apply_in_order(lines, [edit_at(change, encoding)])
        assert lines.text == client
        assert lines.line_count == len(re.split("\r\n|\r|\n", client))


@pytest.mark.parametrize(
    ("text", "start", "end", "inserted", "expected"),
    [
        ("a\rb", (0, 1), (1, 0), "", "ab"),  # the lone CR deleted, not the rest
        ("a\rb", (1, 0), (1, 0), "X", "a\rXb"),  # typed at the second line's start
        ("a = 1\r", (0, 5), (1, 0), "", "a = 1"),
        ("a = 1\r", (1, 0), (1, 0), "b", "a = 1\rb"),
        ("a\r\nb", (1, 0), (1, 1), "c", "a\r\nc"),
    ],
)
def test_a_lone_carriage_return_ends_a_line(
    text: str, start: tuple[int, int], end: tuple[int, int], inserted: str, expected: str
) -> None:
    for encoding in _ENCODINGS:
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(*start), end=types.Position(*end)),
            text=inserted,
        )
        assert apply_in_order(LineIndex(text), [edit_at(change, encoding)])[0].text == expected
