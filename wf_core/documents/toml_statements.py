"""A clean TOML document read without tree-sitter: split by lines, each statement a chunk.

Almost every version of a workflow an author has open is clean and written in
the common shapes the fast reader (``toml_chunks``) covers. For such a text
the tree only served to say where each top-level statement starts and that it
is grammatical; the fast reader says the second on its own (it gives up on
anything it does not fully understand), and the first is found by looking at
line starts: a section starts at a line whose first character is ``[``, and
before the first section a top-level pair starts at a line that begins with
``key =``. Not parsing the whole text with tree-sitter saves about a tenth of
an open and, since no tree is kept for the next version, the memory the tree
takes (17 MB at 2,000 nodes, 125 MB at 14,000).

A guess at a line start can be wrong (a ``[`` that begins an element of a
multi-line array, a ``key =`` line inside a multi-line string); then the piece
before it does not end where a statement ends, its reading fails, and the
whole text goes the tree-sitter way (``toml_syntax.parse_toml``).

Invariant: ``read_clean`` returns a result only when every piece is a complete,
clean statement on its own (its cached chunk or the fast reader's says so) and
the text before the first piece is blank; pieces start at line starts in
statement position, so the text is exactly the sequence of those statements,
and the result equals what ``parse_toml`` builds from the tree of the same
text (property-tested against it).
"""

from __future__ import annotations

import re

from wf_core.documents.source_map import Chunk
from wf_core.documents.strings import Problem
from wf_core.documents.toml_chunks import (
    BLANK,
    ChunkState,
    StateWriter,
    chunk_from_state,
    read_chunk,
)
from wf_core.documents.toml_syntax import (
    Converted,
    converted,
    has_control_characters,
    place_chunk,
    reuse_chunk,
)
from wf_core.documents.toml_tables import Fallback, TomlBuilder
from wf_core.forked import Pending, in_child

_KEY = r"""(?:[A-Za-z0-9_-]+|"[^"\\\n]*"|'[^'\n]*')"""
# A line that starts a section: its first non-blank character is ``[``. Searched
# for after a line break (a literal the engine skips to at C speed; ``^`` with
# ``re.MULTILINE`` tried every position of the text, five times slower), and
# matched at the very start.
_SECTION = re.compile(r"\n[ \t]*(\[)")
_FIRST_SECTION = re.compile(r"[ \t]*(\[)")
# A line that starts a top-level pair: ``key =``, the key maybe dotted; searched for
# after a line break too, and matched at the very start.
_PAIR_KEY = rf"[ \t]*({_KEY}(?:[ \t]*\.[ \t]*{_KEY})*[ \t]*=)"
_PAIR = re.compile(r"\n" + _PAIR_KEY)
_FIRST_PAIR = re.compile(_PAIR_KEY)


def first_section(text: str) -> int | None:
    """Where the first line that starts a section (its first non-blank character is
    ``[``) has that bracket; None when no line does."""
    head = _FIRST_SECTION.match(text)
    if head is not None:
        return head.start(1)
    found = _SECTION.search(text)
    return None if found is None else found.start(1)


def statements(text: str) -> list[tuple[int, int, bool]] | None:
    """``(start, end, section)`` of each top-level statement, by line starts; None when
    the text before the first one is not blank.

    The pieces tile the text from the first statement on; each runs to the next
    one's start, so trailing blank and comment lines belong to the piece before.
    """
    sections = [match.start(1) for match in _SECTION.finditer(text)]
    if (head := _FIRST_SECTION.match(text)) is not None:
        sections.insert(0, head.start(1))
    first = sections[0] if sections else len(text)
    starts = [(match.start(1), False) for match in _PAIR.finditer(text, 0, first)]
    if (head_pair := _FIRST_PAIR.match(text, 0, first)) is not None:
        starts.insert(0, (head_pair.start(1), False))
    starts.extend((start, True) for start in sections)
    begin = starts[0][0] if starts else len(text)
    blank = BLANK.match(text, 0, begin)
    if blank is None or blank.end() != begin:
        return None
    ends = [start for start, _section in starts[1:]]
    if starts:
        ends.append(len(text))
    return [(start, end, section) for (start, section), end in zip(starts, ends, strict=True)]


def read_clean(text: str, chunks: dict[str, Chunk]) -> Converted | None:
    """What ``parse_toml`` returns for ``text``, without a tree; None to give up.

    ``chunks`` are the previous version's, by their text; a piece found there is
    placed again without reading it.
    """
    if has_control_characters(text):
        return None  # the general path says where
    pieces = statements(text)
    if pieces is None:
        return None
    builder = TomlBuilder()
    used: dict[str, Chunk] = {}
    problems: list[Problem] = []
    halfway, pending = _read_ahead(text, pieces)
    try:
        for n, (start, end, section) in enumerate(pieces):
            if n == halfway and pending is not None:
                # Handed over first: once its result is asked for, the child is the
                # result's to reap, whatever happens next.
                ahead, pending = pending, None
                chunks = _with_read_ahead(text, pieces[halfway:], ahead, chunks)
            source = text[start:end]
            chunk = reuse_chunk(source, section, chunks, used, read_chunk)
            if chunk is None or not place_chunk(builder, chunk, start, section, problems):
                return None  # the general path reads it, or adds its pairs one by one
    except Fallback:
        return None
    finally:
        if pending is not None:  # given up before the child's part: not waited for
            pending.cancel()
    return converted(text, builder, problems, used)


SPLIT_FROM = 2_000
"""Statements from which a process allowed to fork (``wf_core.forked``) has a child read
the last part of them while it reads the first."""
PARENT_SHARE = 0.5
"""The part the parent reads. Per statement the parent reads and places; the child reads
and pickles, which costs about as much (at 14,000 nodes both parts took 0.6-0.65 s, and
with the child given 57% the parent waited 0.2-0.35 s for it). The parent then unpickles
and places the child's part, at about a third of what reading it would cost."""


def _read_ahead(
    text: str, pieces: list[tuple[int, int, bool]]
) -> tuple[int, Pending[list[ChunkState | None]] | None]:
    """Where the child's part starts, and the child reading it; no child for a short text
    or a process that may not fork."""
    if len(pieces) < SPLIT_FROM:
        return len(pieces), None
    halfway = int(len(pieces) * PARENT_SHARE)
    rest = pieces[halfway:]
    pending = in_child(lambda: _states(text, rest))
    return halfway, pending


def _states(text: str, pieces: list[tuple[int, int, bool]]) -> list[ChunkState | None]:
    """The child's part: each statement read, as a state to send (None: given up)."""
    writer = StateWriter()
    return [writer.state(read_chunk(text[s:e], sec)) for s, e, sec in pieces]


def _with_read_ahead(
    text: str,
    rest: list[tuple[int, int, bool]],
    pending: Pending[list[ChunkState | None]],
    chunks: dict[str, Chunk],
) -> dict[str, Chunk]:
    """``chunks`` and what the child read, by text (a statement the child gave up on, or
    all of them when it failed, is read where it is met, as without a child)."""
    states = pending.result()
    if states is None:
        return chunks
    found = dict(chunks)
    for (start, end, _section), state in zip(rest, states, strict=True):
        if state is not None:
            source = text[start:end]
            found[source] = chunk_from_state(source, state)
    return found
