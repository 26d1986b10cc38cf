"""The fast TOML reader: a clean text in the common shapes, read without tree-sitter.

Almost every version of a workflow an author has open is clean and written in
the common shapes this reader covers. For such a text a tree would only say
where each top-level statement starts and that it is grammatical; the reader
says the second on its own (it gives up on anything it does not fully
understand), and the first is found by looking at line starts (``statements``):
a section starts at a line whose first character is ``[``, and before the first
section a top-level pair starts at a line that begins with ``key =``. Each
statement is then converted into a ``Chunk`` (``read_chunk``), or found among
the previous version's chunks by its text (``read_clean``). Not parsing the
whole text with tree-sitter, and not converting it from tree-sitter's nodes,
makes an open several times faster (``bench/parse.py``); since no tree is kept
for the next version, it also saves the memory the tree takes (17 MB at 2,000
nodes, 125 MB at 14,000). The tree path (``toml_syntax``) uses ``read_chunk``
too, for each clean statement of a text this reader gave up on.

A statement is read straight from the text with a few regular expressions:
bare or simply quoted keys, one-line strings without escapes, numbers,
booleans, arrays, one-line inline tables; the table rules are applied on the
fly to the section's own fresh table, and entries are recorded as they are
read. Anything else (escapes, multi-line strings, dates, trailing commas in
inline tables, duplicate keys, any problem at all) makes the reader give up,
and the text goes the tree-sitter way (``toml_syntax.parse_toml``). Since the
reader decides on its own that a statement is clean, every pattern is linear
on any input, not only on statements tree-sitter has accepted.

A guess at a line start can be wrong (a ``[`` that begins an element of a
multi-line array, a ``key =`` line inside a multi-line string); then the piece
before it does not end where a statement ends, and its reading fails.

Invariants:

- When ``read_chunk`` returns a chunk, its text is one complete, clean
  statement, and the chunk is exactly what the general path (tree reader +
  ``TomlBuilder.local_chunk``) builds from the same text: the same values in
  the same key order, the same entries in the same order, the same ranges.
  Literals are stored as their style (see ``Compact``).
- ``read_clean`` returns a result only when every piece is a complete, clean
  statement on its own (its cached chunk or ``read_chunk`` says so) and the text
  before the first piece is blank; pieces start at line starts in statement
  position, so the text is exactly the sequence of those statements, and the
  result equals what ``parse_toml`` builds from the tree of the same text
  (property-tested against it).
- ``read_spliced`` returns what ``read_clean`` returns for the same text, its
  element keys included (property-tested on chains of edits,
  ``tests/test_documents_splice.py``).
"""

from __future__ import annotations

import re

from wf_core.base.edits import Region
from wf_core.base.locations import Location
from wf_core.documents.source_map import (
    Chunk,
    Compact,
    Header,
    Kind,
    Occurrence,
    SourceMap,
    StringLiteral,
)
from wf_core.documents.strings import SIMPLE_BASIC, SIMPLE_LITERAL, Problem
from wf_core.documents.toml_tables import (
    DOTTED,
    Converted,
    Fallback,
    TomlBuilder,
    converted,
    place_chunk,
    reuse_chunk,
)
from wf_core.documents.toml_values import MAX_DEPTH, classify, has_control_characters

# Blanks and comments are matched possessively: what follows them (a key, a
# value, a comma) never starts with either, and giving characters of a long
# comment back one at a time made a failing match quadratic in its length.
_BLANKS = r"(?:[ \t\r\n]++|#[^\n]*+)*+"
BLANK = re.compile(_BLANKS)
_END_OF_LINE = re.compile(r"[ \t]*(?:#[^\n]*)?(?:\r?\n|\Z)")
WS = re.compile(r"[ \t]*")
_SIMPLE_KEY_EQUALS = re.compile(r"([A-Za-z0-9_-]+)[ \t]*=[ \t]*")
BARE = re.compile(r"[A-Za-z0-9_-]+")
_DOT = re.compile(r"[ \t]*\.[ \t]*")
_EQUALS = re.compile(r"[ \t]*=[ \t]*")
_WORD = re.compile(r"[A-Za-z0-9_+\-.:]+")
# The commonest header, ``[[nodes]]`` (one bare key) to the end of its line, by one match
# (group 1: the key; group 2: the closing brackets).
_ARRAY_HEADER = re.compile(r"\[\[[ \t]*([A-Za-z0-9_-]+)[ \t]*(\]\])[ \t]*(?:#[^\n]*)?(?:\r?\n|\Z)")
_BARE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_STRING = r"""(?:"([^"\\\x00-\x08\x0a-\x1f\x7f]*)"|'([^'\x00-\x08\x0a-\x1f\x7f]*)'(?!''))"""
# The commonest line of all: blank lines or comments, then ``key = "string"``
# to the end of its line. Groups: key, basic content, literal content.
# Or the start of such a pair whose value is an array (group 4: its ``[``), the next
# commonest (a node's bindings): the key is then read by this match too.
_STRING_LINE = re.compile(
    _BLANKS
    + r"([A-Za-z0-9_-]+)[ \t]*=[ \t]*(?:"
    + _STRING
    + r"[ \t]*(?:#[^\n]*)?(?:\r?\n|\Z)|(\[))"
)
# A whole inline table of one to three such pairs, the commonest inline tables of a
# workflow (a binding, an edge), read by one match. Groups, pair by pair: key, basic
# content, literal content (absent pairs' are None). Blanks are matched possessively:
# nothing is given back, so a failing match is linear in the text it looked at.
_TABLE_PAIR = r"([A-Za-z0-9_-]+)[ \t]*+=[ \t]*+" + _STRING
_NEXT_PAIR = r"[ \t]*+,[ \t]*+" + _TABLE_PAIR
_FLAT = r"\{[ \t]*+" + _TABLE_PAIR + r"(?:" + _NEXT_PAIR + r"(?:" + _NEXT_PAIR + r")?)?[ \t]*+\}"
_FLAT_TABLE = re.compile(_FLAT)
_FLAT_TABLE_PAIRS = (0, 3, 6)
# After an array element: blanks, maybe a comma, blanks. Group 1: the comma.
_ARRAY_SEPARATOR = re.compile(_BLANKS + r"(,)?" + _BLANKS)
# An array element that is such a table, with what follows it up to the next element:
# group 1 the table, then its pairs' groups (``_FLAT_ITEM_PAIRS``), then the comma. One
# match an element instead of two, for the bindings of every node.
_FLAT_ITEM = re.compile(r"(" + _FLAT + r")" + _BLANKS + r"(,)?" + _BLANKS)
_FLAT_ITEM_PAIRS = (1, 4, 7)
_FLAT_ITEM_COMMA = 11
_STRING_KIND = Kind.STRING
_ARRAY_KIND = Kind.ARRAY
_OBJECT_KIND = Kind.OBJECT


_Read = tuple[object, Kind, int, StringLiteral | str | None]
"""A value read: its Python value, its kind, where it ends, and its literal (as in
``Compact``)."""


class _GiveUp(Exception):
    pass


class _Reader:
    """Reads pairs into tables as the table rules would, recording entries as it goes.

    Entries are recorded on the first read rather than on demand: a chunk's
    entries are asked for soon in practice (to place a finding, or by the
    semantic index that the editor's first requests build), and reading a
    statement twice cost more than recording during the one read.

    Ranges are never recorded one by one: each entry's key and value ranges are
    its occurrences (see ``Chunk.derived``); only a dotted key's later uses of an
    existing prefix (``a.x = 1`` after ``a.y = 2``) add occurrences of their own.
    """

    __slots__ = ("entries", "occ", "tables", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.entries: dict[Location, Compact] = {}
        self.occ: list[Occurrence] = []
        self.tables: dict[int, tuple[str, int, int, bool]] = {}

    def keys(self, pos: int) -> tuple[list[tuple[str, int, int]], int]:
        text = self.text
        parts: list[tuple[str, int, int]] = []
        while True:
            ch = text[pos : pos + 1]
            if ch and ch in _BARE_CHARS:
                match = BARE.match(text, pos)
            elif ch == '"' and not text.startswith('"""', pos):
                match = SIMPLE_BASIC.match(text, pos)
            elif ch == "'" and not text.startswith("'''", pos):
                match = SIMPLE_LITERAL.match(text, pos)
            else:
                raise _GiveUp
            if match is None:
                raise _GiveUp
            end = match.end()
            parts.append((match.group(1) if ch in "\"'" else match.group(), pos, end))
            if len(parts) > MAX_DEPTH:
                raise _GiveUp  # the table builder reports the nesting
            dot = _DOT.match(text, end)
            if dot is None:
                return parts, end
            pos = dot.end()

    def pair(
        self, table: dict[str, object], loc: Location, dotted: set[int], pos: int, depth: int
    ) -> int:
        """Read ``key = value`` at ``pos`` into ``table``; returns where the value ends."""
        text = self.text
        match = _SIMPLE_KEY_EQUALS.match(text, pos)
        if match is not None:
            name = match.group(1)
            if name in table:
                raise _GiveUp
            return self.keyed_value(table, loc, name, pos, match.end(), depth)
        parts, after = self.keys(pos)
        equals = _EQUALS.match(text, after)
        if equals is None or len(loc) + len(parts) > MAX_DEPTH:
            raise _GiveUp
        # Dotted prefixes are created before the value is read, so their
        # entries come first; their range ends with the pair, known only later.
        created: list[Location] = []
        prefixes: list[tuple[int, int, Location]] = []
        for name, start, end in parts[:-1]:
            loc = (*loc, name)
            child = table.get(name)
            if child is None:
                child = {}
                table[name] = child
                dotted.add(id(child))
                self.tables[id(child)] = (DOTTED, start, end, depth == 0)
                self.entries[loc] = None  # type: ignore[assignment]  # placeholder
                created.append(loc)
            elif type(child) is not dict or id(child) not in dotted:
                raise _GiveUp
            prefixes.append((start, end, loc))
            table = child
        name, key_start, key_end = parts[-1]
        if name in table:
            raise _GiveUp
        value_loc = (*loc, name)
        value, kind, end, lit = self.value(equals.end(), value_loc, depth)
        table[name] = value
        for start, part_end, prefix_loc in prefixes:
            if prefix_loc in created:
                self.entries[prefix_loc] = (start, part_end, start, end, _OBJECT_KIND, None)
            else:
                self.occ.append((start, part_end, prefix_loc, True))
                self.occ.append((start, end, prefix_loc, False))
        self.entries[value_loc] = (key_start, key_end, equals.end(), end, kind, lit)
        return end

    def keyed_value(
        self,
        table: dict[str, object],
        loc: Location,
        name: str,
        key_start: int,
        start: int,
        depth: int,
    ) -> int:
        """The value at ``start`` read into ``table`` under the simple key ``name`` (at
        ``key_start``, not yet in ``table``), its entry recorded; where the value ends."""
        value_loc = (*loc, name)
        value, kind, end, lit = self.value(start, value_loc, depth)
        table[name] = value
        self.entries[value_loc] = (key_start, key_start + len(name), start, end, kind, lit)
        return end

    def value(self, pos: int, loc: Location, depth: int) -> _Read:
        text = self.text
        ch = text[pos : pos + 1]
        if ch == '"':
            if text.startswith('"""', pos):
                raise _GiveUp
            match = SIMPLE_BASIC.match(text, pos)
            if match is None:
                raise _GiveUp
            return match.group(1), _STRING_KIND, match.end(), "basic"
        if ch == "'":
            if text.startswith("'''", pos):
                raise _GiveUp
            match = SIMPLE_LITERAL.match(text, pos)
            if match is None:
                raise _GiveUp
            return match.group(1), _STRING_KIND, match.end(), "literal"
        if ch == "[":
            if depth >= MAX_DEPTH - 1:
                raise _GiveUp
            return self.array(pos, loc, depth + 1)
        if ch == "{":
            if depth >= MAX_DEPTH - 1:
                raise _GiveUp
            flat = self.flat_inline_table(pos, loc)
            if flat is not None:
                return flat
            return self.inline_table(pos, loc, depth + 1)
        match = _WORD.match(text, pos)
        if match is None:
            raise _GiveUp
        result = classify(match.group())
        if isinstance(result, str):
            raise _GiveUp
        return result[1], result[0], match.end(), None

    def array(self, start: int, loc: Location, depth: int) -> _Read:
        text = self.text
        entries = self.entries
        items: list[object] = []
        pos = BLANK.match(text, start + 1).end()  # type: ignore[union-attr]
        flat_item = _FLAT_ITEM.match
        while (ch := text[pos : pos + 1]) != "]":
            item_loc = (*loc, len(items))
            if ch == "{" and (match := flat_item(text, pos)) is not None:
                # The item's entry first, then its pairs': the order of a single pass.
                entries[item_loc] = (-1, -1, pos, match.end(1), _OBJECT_KIND, None)
                items.append(self._flat_pairs(match, _FLAT_ITEM_PAIRS, item_loc))
                pos = match.end()
                if match.group(_FLAT_ITEM_COMMA) is None and text[pos : pos + 1] != "]":
                    raise _GiveUp
                continue
            entries[item_loc] = None  # type: ignore[assignment]  # placeholder, keeps order
            value, kind, end, lit = self.value(pos, item_loc, depth)
            entries[item_loc] = (-1, -1, pos, end, kind, lit)
            items.append(value)
            separator = _ARRAY_SEPARATOR.match(text, end)
            pos = separator.end()  # type: ignore[union-attr]
            if separator.group(1) is None and text[pos : pos + 1] != "]":  # type: ignore[union-attr]
                raise _GiveUp
        return items, _ARRAY_KIND, pos + 1, None

    def flat_inline_table(self, start: int, loc: Location) -> _Read | None:
        """``{ a = "x", b = 'y' }`` at ``start``: bare keys and one-line strings only, read
        in one match; None for any other inline table, including one of four or more
        pairs (``inline_table`` reads those)."""
        match = _FLAT_TABLE.match(self.text, start)
        if match is None:
            return None
        return self._flat_pairs(match, _FLAT_TABLE_PAIRS, loc), _OBJECT_KIND, match.end(), None

    def _flat_pairs(
        self, match: re.Match[str], pairs: tuple[int, ...], loc: Location
    ) -> dict[str, object]:
        """The table a flat inline table's ``match`` read, its pairs' entries recorded;
        ``pairs`` are the indexes (in ``match.groups()``) of each pair's key group, its
        basic and literal contents' groups following it."""
        groups = match.groups()
        table: dict[str, object] = {}
        entries = self.entries
        for first in pairs:
            name = groups[first]
            if name is None:
                break
            if name in table:
                raise _GiveUp
            basic = groups[first + 1]
            if basic is not None:
                table[name] = basic
                value_start, value_end = match.span(first + 2)
                style = "basic"
            else:
                table[name] = groups[first + 2]
                value_start, value_end = match.span(first + 3)
                style = "literal"
            key_start = match.start(first + 1)
            entries[(*loc, name)] = (
                key_start,
                key_start + len(name),
                value_start - 1,
                value_end + 1,
                _STRING_KIND,
                style,
            )
        return table

    def inline_table(self, start: int, loc: Location, depth: int) -> _Read:
        text = self.text
        table: dict[str, object] = {}
        dotted: set[int] = set()
        pos = WS.match(text, start + 1).end()  # type: ignore[union-attr]
        if text[pos : pos + 1] != "}":
            while True:
                end = self.pair(table, loc, dotted, pos, depth)
                pos = WS.match(text, end).end()  # type: ignore[union-attr]
                ch = text[pos : pos + 1]
                if ch == "}":
                    break
                if ch != ",":
                    raise _GiveUp
                pos = WS.match(text, pos + 1).end()  # type: ignore[union-attr]
                if text[pos : pos + 1] == "}":
                    raise _GiveUp  # a trailing comma: the general path reports it
        return table, _OBJECT_KIND, pos + 1, None

    def read(self, section: bool) -> tuple[dict[str, object], Header | None, int]:
        """The whole statement: its table, header and where its last pair ends."""
        text = self.text
        entries = self.entries
        header: Header | None = None
        end = -1
        pos = 0
        simple = _ARRAY_HEADER.match(text) if section else None
        if simple is not None:
            key_start, key_end = simple.span(1)
            header = (((simple.group(1), key_start, key_end),), True, simple.end(2))
            pos = simple.end()
        elif section:
            array = text.startswith("[[")
            pos = WS.match(text, 2 if array else 1).end()  # type: ignore[union-attr]
            parts, pos = self.keys(pos)
            pos = WS.match(text, pos).end()  # type: ignore[union-attr]
            close = "]]" if array else "]"
            if not text.startswith(close, pos):
                raise _GiveUp
            pos += len(close)
            header = (tuple(parts), array, pos)
            line = _END_OF_LINE.match(text, pos)
            if line is None:
                raise _GiveUp
            pos = line.end()
        table: dict[str, object] = {}
        dotted: set[int] = set()
        length = len(text)
        string_line = _STRING_LINE.match
        while True:
            match = string_line(text, pos)
            if match is not None:
                name, basic, _literal, bracket = match.groups()
                if name in table:
                    raise _GiveUp
                if bracket is not None:
                    end = self.keyed_value(table, (), name, match.start(1), match.start(4), 0)
                    line = _END_OF_LINE.match(text, end)
                    if line is None:
                        raise _GiveUp
                    pos = line.end()
                    continue
                if basic is not None:
                    table[name] = basic
                    end = match.end(2) + 1
                else:
                    table[name] = match.group(3)
                    end = match.end(3) + 1
                key_start = match.start(1)
                value_start = match.start(2 if basic is not None else 3) - 1
                entries[(name,)] = (
                    key_start,
                    key_start + len(name),
                    value_start,
                    end,
                    _STRING_KIND,
                    "basic" if basic is not None else "literal",
                )
                pos = match.end()
                continue
            pos = BLANK.match(text, pos).end()  # type: ignore[union-attr]
            if pos >= length:
                break
            end = self.pair(table, (), dotted, pos, 0)
            line = _END_OF_LINE.match(text, end)
            if line is None:
                raise _GiveUp
            pos = line.end()
        if not section and (len(table) != 1 or dotted):
            raise _GiveUp
        return table, header, end


def read_chunk(text: str, section: bool) -> Chunk | None:
    """A ``[table]``/``[[array]]`` section, or one top-level pair; None to give up."""
    reader = _Reader(text)
    try:
        table, header, end = reader.read(section)
    except _GiveUp:
        return None
    key = None if section else next(iter(table))
    return Chunk.read(text, table, reader.tables, header, end, key, reader.entries, reader.occ)


# -- a whole text: its statements by line starts, each read or reused ----------

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
    try:
        for start, end, section in pieces:
            source = text[start:end]
            chunk = reuse_chunk(source, section, chunks, used, read_chunk)
            if chunk is None or not place_chunk(builder, chunk, start, section, problems):
                return None  # the general path reads it, or adds its pairs one by one
    except Fallback:
        return None
    return converted(text, builder, problems, used)


def read_spliced(
    values: dict[str, object],
    source_map: SourceMap,
    text: str,
    region: Region,
    chunks: dict[str, Chunk],
) -> Converted | None:
    """What ``read_clean(text, chunks)`` returns, made from the previous version's result
    (read clean or spliced, without a problem, into ``values`` and ``source_map``) when
    ``region`` lies inside one top-level statement after its first character, and that
    statement still reads as one clean statement with the same header (an element of an
    array of tables) or the same key (a top-level pair): the statement read again, its
    value put in the element's or key's place, the rest moved, not read or placed
    again. None when that does not hold, and the text is read in full.

    ``chunks``, the previous version's, are its caller's alone (``DocumentParser``): on
    success they are updated in place into this version's and returned, not copied (a
    copy was 0.3 ms at 16,000 nodes, and as much again for the collector to scan it).

    Why it gives the same: the text is the same statements but that one (its piece still
    splits as one statement, and the text after it is unchanged, so the pieces after it
    start where they did, moved); what the table rules make of the others does not
    depend on its content, as long as no other statement entered its table (its value
    is still the chunk's own table) and its header or key is the same; the source map's
    global ranges, which only headers and sections make, move with the statements they
    lie in (``SourceMap.spliced``)."""
    found = source_map.placement_at(region.start)
    if found is None:
        return None
    k, placement, start = found
    old = placement.chunk
    limit = start + len(old.text)
    if region.start <= start or region.old_end >= limit:
        return None
    if limit != source_map.next_base(k):
        return None  # the chunk is not its whole piece (a statement read another way)
    source = text[start : limit + region.delta]
    section = old.header is not None
    if source in chunks or has_control_characters(source):
        return None
    if statements(source) != [(0, len(source), section)]:
        return None
    chunk = read_chunk(source, section)
    if chunk is None or chunk.header != old.header or chunk.key != old.key:
        return None
    new_values = dict(values)
    table_loc = placement.table_loc
    if section:
        if len(table_loc) != 2 or type(table_loc[1]) is not int:
            return None
        name, index = str(table_loc[0]), table_loc[1]
        elements = values.get(name)
        if type(elements) is not list or index >= len(elements):
            return None
        if elements[index] is not old.table:
            return None  # a later statement entered it: the table rules decide again
        replaced = list(elements)
        replaced[index] = chunk.table
        new_values[name] = replaced
    else:
        key = old.key
        if table_loc != () or key is None or values.get(key) is not old.table.get(key):
            return None
        new_values[key] = chunk.table[key]
    new_map = source_map.spliced(k, chunk, region.old_end, region.new_end)
    if chunks.get(old.text) is old:
        del chunks[old.text]
    chunks[source] = chunk
    return new_values, new_map, [], chunks
