"""Source maps: where each value of a document sits in its text.

Invariants:

- Every span is in code points of the document text (see ``wf_core.base.spans``).
- Locations are the document's own keys and list indexes, the same tuples the
  model layer uses (``wf_core.base.locations``), so a model issue can be shown at the
  characters that produced it.
- ``locate`` answers from a nested family of ranges (keys and values nest inside
  their containers); a cursor that touches the end of a range is inside it, so a
  cursor right after ``"context.fore`` still counts as inside that string.
- A map is assembled per document version from global entries (absolute
  offsets) and placed ``Chunk``s: the converted text of one top-level TOML
  statement or one JSON unit value, in offsets relative to its start, shared by
  every version that contains the same text. Where each placement begins is the
  map's (``_starts``), added when an answer is materialised, so reusing a chunk
  after an edit costs nothing per entry. Every location belongs to the global
  entries or to exactly one placed chunk, and the ranges of a chunk nest inside
  the global ranges of its section or JSON value (never partially overlap them),
  so ``locate`` may answer from both separately.
- A map spliced from another (``SourceMap.spliced``: one statement read again
  after a keystroke) shares its placements but one, and its global entries,
  ranges and ``locate`` index, all in the offsets of the text they were read
  from (the map a chain of splices began with, its ``_origin``). A global
  offset is read through the start of the placement it lies in, moved as that
  start moved (``_offset``), which is exact because every global offset of a
  map read clean is the text's start or end, a placement's start, inside its
  header, or its section's end (see ``spliced``). A keystroke thus makes nothing
  per global entry, and a chain of them never has to be made up again.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import field
from enum import StrEnum

from wf_core.base.locations import Location
from wf_core.base.records import record
from wf_core.base.spans import Span


class Kind(StrEnum):
    OBJECT = "object"
    ARRAY = "array"
    STRING = "string"
    NUMBER = "number"
    BOOL = "bool"
    DATETIME = "datetime"
    NULL = "null"


@record
class Entry:
    """The text behind one location.

    ``key`` is the key's own text (None for list elements). ``value`` covers the
    whole value including quotes and brackets; for a TOML ``[table]`` or
    ``[[array]]`` element it runs from its header through its last pair, and for
    a table that only exists because a longer key mentions it, it is the first
    header or pair that created it.
    """

    key: Span | None
    value: Span
    kind: Kind


def plain_span(content: int, size: int, start: int, end: int) -> Span:
    """The document range of the characters ``[start, end)`` of a string of ``size``
    characters written without escapes, its content starting at offset ``content``."""
    begin = content + max(0, min(start, size))
    return Span(begin, max(begin, content + max(0, min(end, size))))


@record
class StringLiteral:
    """A string value and how its decoded characters map back to the text.

    ``span`` is the whole literal with its quotes, ``content`` the text between
    them. An unterminated literal (``closed`` False) ends at the end of its line
    (multi-line literals: at the end of the text) so that editing features keep
    working while the author types.

    The mapping is a list of pieces; a piece is a run of characters copied
    verbatim (decoded length == source length) or one escape / trimmed run
    (``\\"``, ``\\u00e9``, a line-ending backslash, the newline after ``\"\"\"``)
    whose decoded characters all map to the start of the escape. Literals without
    escapes carry no pieces and map by plain addition.
    """

    span: Span
    content: Span
    value: str
    closed: bool
    style: str
    _dec: tuple[int, ...] = field(default=(), repr=False)
    _doc: tuple[int, ...] = field(default=(), repr=False)
    _declen: tuple[int, ...] = field(default=(), repr=False)
    _doclen: tuple[int, ...] = field(default=(), repr=False)

    def doc_offset(self, offset: int) -> int:
        """Document offset where the decoded character ``offset`` starts."""
        offset = max(0, min(offset, len(self.value)))
        if not self._dec:
            return self.content.start + offset
        i = bisect.bisect_right(self._dec, offset) - 1
        if i < 0:
            return self.content.start
        inside = offset - self._dec[i]
        if inside < self._declen[i]:
            if self._declen[i] == self._doclen[i]:
                return self._doc[i] + inside
            return self._doc[i]
        return self._doc[i] + self._doclen[i]

    def doc_end(self, offset: int) -> int:
        """Document offset where the decoded character ``offset - 1`` ends.

        An escape is indivisible: the end of a character that came from
        ``\\"`` is after the quote, not after the backslash.
        """
        offset = max(0, min(offset, len(self.value)))
        if offset == 0:
            return self.doc_offset(0)
        if not self._dec:
            return self.content.start + offset
        i = bisect.bisect_right(self._dec, offset - 1) - 1
        if i < 0:
            return self.content.start + offset
        if self._declen[i] == self._doclen[i]:
            return self._doc[i] + (offset - self._dec[i])
        return self._doc[i] + self._doclen[i]

    def doc_span(self, start: int, end: int) -> Span:
        """Document range holding the decoded characters ``[start, end)``."""
        if not self._dec:  # no escapes: decoded and document characters map one to one
            return plain_span(self.content.start, len(self.value), start, end)
        begin = self.doc_offset(start)
        if end <= start:
            return Span(begin, begin)
        return Span(begin, max(begin, self.doc_end(end)))


@record
class Located:
    """What sits at an offset: the innermost location and whether it is its key.

    ``location`` may name a key that has no value yet (``{ target = "x", pa``):
    editors complete such keys from ``location[:-1]``; ``has_value`` says
    whether ``SourceMap.get(location)`` knows it.
    """

    location: Location
    in_key: bool
    span: Span
    has_value: bool


# A compact entry: (key_start, key_end, value_start, value_end, kind, literal).
# key_start is -1 for list elements. literal is None, a StringLiteral (in the
# same coordinates as the entry) or, for a one-line literal without escapes, its
# style: the value is then the text between the quotes.
Compact = tuple[int, int, int, int, Kind, StringLiteral | str | None]
Header = tuple[tuple[tuple[str, int, int], ...], bool, int]
"""A section's header: its parts ``(name, start, end)``, whether an array of tables,
where it ends."""

ELEMENT_LISTS = frozenset(("nodes", "edges", "node_defs", "output"))
"""The top-level lists whose elements are read, validated and checked one by one."""
ElementKey = str | tuple[object, ...]
"""What an element is read from: its statement's text, or (a statement extended by
others) each statement's place in the element and text, or (an element of a top-level
pair) its index and the pair's text."""


def key_at(keys: Sequence[ElementKey | None], index: int) -> ElementKey | None:
    """The key of the element at ``index`` of a list's ``keys`` (``SourceMap.element_keys``,
    which ends at the last element read from statements): None past its end."""
    return keys[index] if index < len(keys) else None


Occurrence = tuple[int, int, Location, bool]


def _entry(compact: Compact, base: int) -> Entry:
    ks, ke, vs, ve, kind, _lit = compact
    key = Span(ks + base, ke + base) if ks >= 0 else None
    return Entry(key, Span(vs + base, ve + base), kind)


def _moved(entry: Entry, delta: int) -> Entry:
    if not delta:
        return entry
    key = Span(entry.key.start + delta, entry.key.end + delta) if entry.key is not None else None
    return Entry(key, Span(entry.value.start + delta, entry.value.end + delta), entry.kind)


def shift_literal(literal: StringLiteral, delta: int) -> StringLiteral:
    """The same literal ``delta`` code points further into the text."""
    if not delta:
        return literal
    return StringLiteral(
        Span(literal.span.start + delta, literal.span.end + delta),
        Span(literal.content.start + delta, literal.content.end + delta),
        literal.value,
        literal.closed,
        literal.style,
        literal._dec,
        tuple(d + delta for d in literal._doc),
        literal._declen,
        literal._doclen,
    )


def _section_end(chunk: Chunk, base: int) -> int:
    """Where a section's table entry ends: its header, or its last pair (-1 for a pair)."""
    if chunk.header is None:
        return -1
    header_end = chunk.header[2]
    return base + (header_end if chunk.end < 0 else max(header_end, chunk.end))


def _sort_key(occ: Occurrence) -> tuple[int, int, int, bool]:
    # Outer before inner for equal starts, so the later item is the inner one.
    return (occ[0], -occ[1], len(occ[2]), not occ[3])


class _Index:
    """Occurrences sorted for ``locate``, with a parent pointer per range.

    A parent pointer lets a lookup skip whole earlier siblings: their ranges end
    before the cursor.
    """

    __slots__ = ("ends", "occ", "parents", "starts")

    def __init__(self, occurrences: list[Occurrence]) -> None:
        occ = sorted(occurrences, key=_sort_key)
        starts = [o[0] for o in occ]
        ends = [o[1] for o in occ]
        parents: list[int] = []
        stack: list[int] = []
        for i, (start, end, _loc, _key) in enumerate(occ):
            while stack and not (starts[stack[-1]] <= start and end <= ends[stack[-1]]):
                stack.pop()
            parents.append(stack[-1] if stack else -1)
            stack.append(i)
        self.occ, self.starts, self.ends, self.parents = occ, starts, ends, parents

    def find(self, offset: int, moved: Callable[[int], int] | None = None) -> Occurrence | None:
        """The innermost range containing ``offset`` (end inclusive); ``moved``: where each
        offset of these ranges is in the text ``offset`` is in (``SourceMap._offset``,
        which keeps their order, so the order and parents found here hold there too)."""
        i = bisect.bisect_right(self.starts, offset, key=moved) - 1
        while i >= 0:
            end = self.ends[i]
            if (end if moved is None else moved(end)) >= offset:
                return self.occ[i]
            # Everything between the parent and i lies inside the parent and
            # ends before i starts, so it cannot contain the offset either.
            i = self.parents[i]
        return None


_NONE: tuple[()] = ()  # shared "no problems" of chunks that have none
INLINE_TABLE = ("inline", -1, -1, False)  # ``Chunk.tables`` of a table it does not list


class Chunk:
    """One top-level statement converted once, in offsets relative to its start.

    (JSON units use the subclass ``json_syntax.JsonChunk``: a value whose
    entries lie inside it, relative to the value's location, with ``key`` and
    ``header`` None.)

    Built from ``text`` alone (the cache key), so any version of a document
    that contains the same statement text may place it again, at its new
    offset, without converting anything. Never mutated after it is built: the
    front-end copies a chunk's table instead of writing into it.

    ``entries`` and ``occ`` are relative to the chunk's table location: a
    section chunk (``[table]`` / ``[[array]]`` element) holds the locations
    below its table; a top-level ``key = value`` chunk holds ``(key, ...)``.
    A JSON chunk read by the fast reader fills them only when first asked
    (``fill``, which reads the text again).
    """

    __slots__ = (
        "_children",
        "_element_keys",
        "_entries",
        "_index",
        "_occ",
        "derived",
        "end",
        "fill",
        "header",
        "key",
        "problems",
        "reader_problems",
        "table",
        "tables",
        "text",
    )

    def __init__(self, text: str) -> None:
        # Every slot is set here and in ``read``.
        self.text = text
        self._entries: dict[Location, Compact] | None = {}
        # Key and value ranges; when ``derived``, only those that are not the
        # key and value range of some entry (each entry adds its own two).
        self._occ: list[Occurrence] = []
        self.derived = False
        # Fills ``entries`` and ``occ`` of a chunk built without them.
        self.fill: Callable[[Chunk], tuple[dict[Location, Compact], list[Occurrence]]] | None = None
        # The table the statement's pairs filled; for a top-level pair, {key: value}.
        self.table: dict[str, object] = {}
        # Every other table the statement created: id -> (kind, first_start,
        # first_end, in_section). ``in_section``: created by dotted keys of the
        # section itself (not inside an inline table). A table not listed is
        # an inline table (``INLINE_TABLE``).
        self.tables: dict[int, tuple[str, int, int, bool]] = {}
        # A section's header: ((name, start, end), ...), is_array, end of header.
        self.header: Header | None = None
        self.key: str | None = None  # a top-level pair's single key
        self.end = -1  # where the last pair ends (-1: no pairs)
        self.problems: list[tuple[int, int, str, tuple[int, int] | None]] = _NONE  # type: ignore[assignment]
        self.reader_problems: list[tuple[int, int, str]] = _NONE  # type: ignore[assignment]
        self._index: _Index | None = None
        self._children: dict[Location, list[Location]] | None = None
        self._element_keys: list[ElementKey] | None = None

    @classmethod
    def read(
        cls,
        text: str,
        table: dict[str, object],
        tables: dict[int, tuple[str, int, int, bool]],
        header: Header | None,
        end: int,
        key: str | None,
        entries: dict[Location, Compact],
        occ: list[Occurrence],
    ) -> Chunk:
        """A chunk the fast reader read (``derived`` ranges, no problems), made from its
        parts without the empty containers ``__init__`` would make first: a large document
        has one chunk per statement. Sets every slot ``__init__`` sets."""
        chunk = cls.__new__(cls)
        chunk.text = text
        chunk._entries = entries
        chunk._occ = occ
        chunk.derived = True
        chunk.fill = None
        chunk.table = table
        chunk.tables = tables
        chunk.header = header
        chunk.key = key
        chunk.end = end
        chunk.problems = _NONE  # type: ignore[assignment]
        chunk.reader_problems = _NONE  # type: ignore[assignment]
        chunk._index = None
        chunk._children = None
        chunk._element_keys = None
        return chunk

    def element_keys(self) -> list[ElementKey]:
        """For a top-level pair holding a list (``edges = [...]``): each element's key, its
        index with the pair's text, made once for the chunk (so every version holding
        this statement hands out the very same keys)."""
        keys = self._element_keys
        if keys is None:
            elements = self.table.get(self.key) if self.key is not None else None
            count = len(elements) if isinstance(elements, list) else 0
            keys = self._element_keys = [(i, self.text) for i in range(count)]
        return keys

    @property
    def entries(self) -> dict[Location, Compact]:
        if self._entries is None:
            self._fill()
        return self._entries  # type: ignore[return-value]

    @entries.setter
    def entries(self, value: dict[Location, Compact]) -> None:
        self._entries = value

    @property
    def occ(self) -> list[Occurrence]:
        if self._entries is None:
            self._fill()
        return self._occ

    @occ.setter
    def occ(self, value: list[Occurrence]) -> None:
        self._occ = value

    def _fill(self) -> None:
        # Idempotent: two threads racing here compute equal results, and
        # ``_occ`` is set before ``_entries`` marks the chunk as filled.
        assert self.fill is not None
        entries, occ = self.fill(self)
        self._occ = occ
        self._entries = entries

    def index(self) -> _Index:
        if self._index is None:
            occ = list(self.occ)
            if self.derived:
                for loc, (ks, ke, vs, ve, _kind, _lit) in self.entries.items():
                    if ks >= 0:
                        occ.append((ks, ke, loc, True))
                    occ.append((vs, ve, loc, False))
            self._index = _Index(occ)
        return self._index

    def children(self, parent: Location) -> list[Location]:
        if self._children is None:
            children: dict[Location, list[Location]] = {}
            for loc in self.entries:
                children.setdefault(loc[:-1], []).append(loc)
            self._children = children
        return self._children.get(parent, [])

    def literal(self, compact: Compact, base: int) -> StringLiteral | None:
        lit = compact[5]
        if lit is None:
            return None
        if isinstance(lit, str):
            start, end = compact[2], compact[3]
            return StringLiteral(
                Span(start + base, end + base),
                Span(start + 1 + base, end - 1 + base),
                self.text[start + 1 : end - 1],
                True,
                lit,
            )
        return shift_literal(lit, base)


class Placement:
    """A chunk placed in one version, under ``table_loc``; where it begins is the map's
    (``SourceMap._starts``), so a version spliced from another shares every placement but
    the one it replaced.

    ``position`` is how many global entries came before it, which keeps
    ``items()`` in the order a single pass over the document would produce.
    """

    __slots__ = ("chunk", "position", "table_loc")

    def __init__(self, chunk: Chunk, table_loc: Location, position: int) -> None:
        self.chunk = chunk
        self.table_loc = table_loc
        self.position = position


_Origin = tuple[list[Placement], list[int]]
"""The map a spliced map's global entries were read for: its placements and starts."""


class SourceMap:
    """Location → text ranges, plus the offset → location index for editors."""

    __slots__ = (
        "_anchor_sizes",
        "_anchors",
        "_element_keys",
        "_entries",
        "_index",
        "_occ",
        "_origin",
        "_placements",
        "_starts",
        "_strings",
    )

    def __init__(
        self,
        entries: Mapping[Location, Entry | Compact],
        strings: dict[Location, StringLiteral],
        occurrences: list[Occurrence],
        placements: list[Placement],
        starts: list[int],
    ) -> None:
        """``starts``: where each of ``placements`` begins, then where the text ends."""
        self._entries = entries
        self._strings = strings
        self._occ = occurrences
        self._placements = placements
        self._starts = starts
        # None: the global entries are this map's own; else the map they were read for
        # (``spliced``).
        self._origin: _Origin | None = None
        # Where a location's chunk is found (the placement's index): a top-level pair's
        # chunk under its key, any other chunk (a section, a JSON value) under its table
        # location.
        self._anchors: dict[Location, int] = {}
        for i, placement in enumerate(placements):
            if placement.chunk.key is not None:
                self._anchors[(*placement.table_loc, placement.chunk.key)] = i
            else:
                self._anchors[placement.table_loc] = i
        # The lengths anchors have, longest first: ``_find`` tries only prefixes of those
        # (a path under a ``[[nodes]]`` section is five or six long; its anchor, two).
        self._anchor_sizes = sorted({len(anchor) for anchor in self._anchors}, reverse=True)
        self._index: _Index | None = None
        self._element_keys: (
            tuple[dict[str, Sequence[ElementKey | None]], dict[str, Sequence[int]]] | None
        ) = None

    def placement_at(self, offset: int) -> tuple[int, Placement, int] | None:
        """The last placement starting at or before ``offset``, its index and its base."""
        k = bisect.bisect_right(self._starts, offset, 0, len(self._placements)) - 1
        return (k, self._placements[k], self._starts[k]) if k >= 0 else None

    def next_base(self, k: int) -> int:
        """Where the placement after the ``k``-th begins (the text's end after the last)."""
        return self._starts[k + 1]

    def spliced(self, k: int, chunk: Chunk, old_end: int, new_end: int) -> SourceMap:
        """This map with the ``k``-th placement's chunk replaced by ``chunk``, read from the
        same statement (the same header, or the same key) after a change inside it that
        ended at ``old_end`` and now ends at ``new_end``; only for a map read clean or
        spliced from one (``toml_chunks.read_spliced``). The placements after it begin
        later by the change's length; nothing else is made again: the global entries,
        ranges and ``locate`` index are this map's, read through ``_offset``.

        The global ranges of a map read clean (every statement a placed chunk) are
        made by headers and sections (``TomlBuilder``): each of their offsets is the text's
        start or end, a placement's start, lies inside its header, or is the end of its
        section (its header through its last pair: the end of the entries that section
        closes). A change after a statement's first character that keeps its header moves
        none of them but its section's end, which the new chunk tells. (Nor does a clean
        read have string literals of its own: only pairs read one by one do.)"""
        assert not self._strings
        delta = new_end - old_end
        old = self._placements[k]
        placements = list(self._placements)
        placements[k] = Placement(chunk, old.table_loc, old.position)
        starts = self._starts[: k + 1]
        starts.extend(map(delta.__add__, self._starts[k + 1 :]))
        spliced = SourceMap.__new__(SourceMap)
        spliced._entries, spliced._strings, spliced._occ = self._entries, self._strings, self._occ
        spliced._placements, spliced._starts = placements, starts
        spliced._origin = self._origin or (self._placements, self._starts)
        spliced._anchors, spliced._anchor_sizes = self._anchors, self._anchor_sizes
        spliced._index = self._index
        spliced._element_keys = None
        if self._element_keys is not None:
            spliced._element_keys = self._spliced_elements(k, chunk, old_end, delta)
        return spliced

    def _offset(self, offset: int) -> int:
        """A global range's ``offset`` (in its map's text, ``_origin``) in this version's:
        moved as the start of the placement it lies in (or the text's end) moved."""
        if self._origin is None:
            return offset
        starts = self._origin[1]
        i = bisect.bisect_right(starts, offset) - 1
        return offset if i < 0 else offset - starts[i] + self._starts[i]

    def _global(self, compact: Compact) -> Compact:
        """A global entry in this version's text (``_offset``). Its key and start lie in one
        header, and its end in that section or a later one (see ``spliced``); the end of a
        section whose chunk was replaced is where the new chunk's section ends."""
        if self._origin is None:
            return compact
        placements, starts = self._origin
        ks, ke, vs, ve, kind, lit = compact
        i = bisect.bisect_right(starts, vs) - 1
        shift = self._starts[i] - starts[i] if i >= 0 else 0
        if ks >= 0:
            ks, ke = ks + shift, ke + shift
        vs += shift
        if not 0 <= i < len(placements) or ve > starts[i + 1]:
            i = bisect.bisect_right(starts, ve - 1) - 1  # the section ``ve - 1`` lies in
            shift = self._starts[i] - starts[i] if i >= 0 else 0
        if (
            0 <= i < len(placements)
            and placements[i] is not self._placements[i]
            and ve == _section_end(placements[i].chunk, starts[i])
        ):
            return ks, ke, vs, _section_end(self._placements[i].chunk, self._starts[i]), kind, lit
        return ks, ke, vs, ve + shift, kind, lit

    def _spliced_elements(
        self, k: int, chunk: Chunk, old_end: int, delta: int
    ) -> tuple[dict[str, Sequence[ElementKey | None]], dict[str, Sequence[int]]] | None:
        """``_make_element_keys`` of the spliced map, from this map's: the replaced
        statement's element keyed by its new text, the bases after the change moved. None
        (made afresh when asked) where the element's key was not that statement's text
        alone."""
        assert self._element_keys is not None
        keys, bases = self._element_keys
        old = self._placements[k]
        keys = dict(keys)
        moved: dict[str, Sequence[int]] = {}
        for kind, written in bases.items():  # ascending: those after the change, moved
            i = bisect.bisect_left(written, old_end)
            moved[kind] = (
                written if i == len(written) else [*written[:i], *map(delta.__add__, written[i:])]
            )
        if chunk.header is not None:
            name, index = old.table_loc[0], old.table_loc[1]
            found = keys.get(str(name))
            if type(index) is not int or found is None or index >= len(found):
                return None
            if found[index] is not old.chunk.text:
                return None
            replaced = list(found)
            replaced[index] = chunk.text
            keys[str(name)] = replaced
        elif chunk.key in keys:
            if keys[chunk.key] is not old.chunk.element_keys():
                return None
            keys[chunk.key] = chunk.element_keys()
            moved[chunk.key] = [self._starts[k]] * len(keys[chunk.key])
        return keys, moved

    def element_keys(self, kind: str) -> Sequence[ElementKey | None]:
        """What the value of each element of the document's list ``kind`` (``nodes``,
        ``edges``, ``node_defs`` or ``output``) is a function of: the text of the statement
        it was read from (a ``[[nodes]]`` section; with the statements that extend it, each
        with where it lies in the element and how far from the first it starts), or its
        index in a top-level pair's text (``edges = [...]``). Two versions whose element
        has an equal key have equal values there, whatever else changed, and the same
        text around them relative to ``element_bases``, so what is derived from the
        element alone may be found again by this key (``wf_core.base.derived``), its offsets
        kept relative to that base. None (or an index past the end) where the element was
        not read from statements alone: nothing is found again for it.

        A statement's text is the very string object in every version that holds the
        statement (its chunk is reused), so comparing keys is mostly comparing identities."""
        return self._elements()[0].get(kind, ())

    def element_bases(self, kind: str) -> Sequence[int]:
        """Where the text each of ``element_keys(kind)`` names begins (its first
        statement's offset); meaningful only where the key is not None. In ascending
        order, which ``_spliced_elements`` relies on."""
        return self._elements()[1].get(kind, ())

    def _elements(
        self,
    ) -> tuple[dict[str, Sequence[ElementKey | None]], dict[str, Sequence[int]]]:
        elements = self._element_keys
        if elements is None:
            elements = self._element_keys = self._make_element_keys()
        return elements

    def _make_element_keys(
        self,
    ) -> tuple[dict[str, Sequence[ElementKey | None]], dict[str, Sequence[int]]]:
        sections: dict[str, dict[int, tuple[str, int]]] = {}
        extended: dict[tuple[str, int], list[tuple[Location, str, int]]] = {}
        pairs: dict[str, tuple[Chunk, int]] = {}
        # (``_starts`` ends with the text's end, after the last placement's start.)
        for placement, base in zip(self._placements, self._starts, strict=False):
            loc, chunk = placement.table_loc, placement.chunk
            if not loc:
                if chunk.key in ELEMENT_LISTS:
                    pairs[chunk.key] = (chunk, base)
            elif len(loc) >= 2 and loc[0] in ELEMENT_LISTS and isinstance(loc[1], int):
                if len(loc) == 2:
                    sections.setdefault(loc[0], {})[loc[1]] = (chunk.text, base)
                else:
                    extended.setdefault((loc[0], loc[1]), []).append((loc[2:], chunk.text, base))
        keys: dict[str, Sequence[ElementKey | None]] = {}
        bases: dict[str, Sequence[int]] = {}
        for kind, (pair, base) in pairs.items():
            # Written both ways, a mistake the front-end reports, the place of an element
            # does not tell which statement it came from: no keys.
            if kind not in sections and not any(k == kind for k, _ in extended):
                keys[kind] = pair.element_keys()
                bases[kind] = [base] * len(keys[kind])
        for kind, texts in sections.items():
            if kind in pairs:
                continue
            # Elements in the order of their headers, so their bases ascend; one that no
            # statement of its own began (no key) gets the base before it.
            found: list[ElementKey | None] = []
            starts: list[int] = []
            base = 0
            for index in range(max(texts) + 1):
                text, base = texts.get(index, (None, base))
                found.append(text)
                starts.append(base)
            keys[kind], bases[kind] = found, starts
        for (kind, index), parts in extended.items():
            found_keys = keys.get(kind)
            if isinstance(found_keys, list) and index < len(found_keys):
                head = found_keys[index]
                first = bases[kind][index]
                found_keys[index] = (
                    None
                    if head is None
                    else (((), head), *((loc, text, base - first) for loc, text, base in parts))
                )
        # A statement that extends an element but was read pair by pair (one with a syntax
        # error) left its entries among the global ones, not in a chunk: the element's value
        # is then not a function of its statements' texts alone, so it gets no key. Its
        # extensions' tables themselves (and the tables on the way to them) are global
        # entries whatever happens, and do not count.
        tables: set[Location] = set()
        for (kind, index), parts in extended.items():
            for loc, _text, _base in parts:
                tables.update((kind, index, *loc[:end]) for end in range(1, len(loc) + 1))
        for loc in self._entries:
            if len(loc) > 2 and loc[0] in ELEMENT_LISTS and loc not in tables:
                listed, position = str(loc[0]), loc[1]
                element_keys = keys.get(listed)
                if (
                    isinstance(position, int)
                    and element_keys is not None
                    and position < len(element_keys)
                ):
                    if not isinstance(element_keys, list):
                        element_keys = keys[listed] = list(element_keys)
                    element_keys[position] = None
        return keys, bases

    def _find(self, loc: Location) -> tuple[int, Compact] | None:
        """The index of the placement whose chunk holds ``loc``'s entry, tried from the
        longest anchor that is a prefix of ``loc`` to the shortest, and the entry."""
        anchors = self._anchors
        size = len(loc)
        for k in self._anchor_sizes:
            if k > size:
                continue
            i = anchors.get(loc[:k])
            if i is not None:
                placement = self._placements[i]
                compact = placement.chunk.entries.get(loc[len(placement.table_loc) :])
                if compact is not None:
                    return i, compact
        return None

    def chunk_at(self, location: Location) -> tuple[Chunk, int] | None:
        """The placed chunk holding ``location``'s entry and the chunk's base offset;
        None for a global entry or no entry. Every range of that entry, and of the
        locations below it, is the chunk's relative range plus the base."""
        loc = tuple(location)
        if loc in self._entries:
            return None
        found = self._find(loc)
        return None if found is None else (self._placements[found[0]].chunk, self._starts[found[0]])

    def get(self, location: Location, origin: int = 0) -> Entry | None:
        """The entry at ``location``, its offsets relative to ``origin`` (the text's start
        by default)."""
        loc = tuple(location)
        entry = self._entries.get(loc)
        if entry is not None:
            if isinstance(entry, tuple):
                return _entry(self._global(entry), -origin)
            return _moved(entry, -origin)
        found = self._find(loc)
        if found is None:
            return None
        return _entry(found[1], self._starts[found[0]] - origin)

    def string(self, location: Location, origin: int = 0) -> StringLiteral | None:
        """The string literal at ``location``, its offsets relative to ``origin`` (the
        text's start by default; the semantic index's parts ask for theirs relative to
        their element's start, made so at once rather than placed and moved back)."""
        loc = tuple(location)
        literal = self._strings.get(loc)
        if literal is not None or loc in self._entries:
            return shift_literal(literal, -origin) if literal is not None else None
        found = self._find(loc)
        if found is None:
            return None
        i, compact = found
        return self._placements[i].chunk.literal(compact, self._starts[i] - origin)

    def plain_string(self, location: Location) -> tuple[str, int] | None:
        """The value and content offset of the string at ``location`` when the fast reader
        read it without escapes; None for any other (``string`` has it all). Placing a
        finding inside a path string asks only this: at 14,000 nodes, 11,200 times."""
        loc = tuple(location)
        if loc in self._strings or loc in self._entries:
            return None
        found = self._find(loc)
        if found is None:
            return None
        i, compact = found
        if type(compact[5]) is not str:
            return None
        start, end = compact[2], compact[3]
        return self._placements[i].chunk.text[start + 1 : end - 1], start + 1 + self._starts[i]

    def _walk(self) -> Iterator[tuple[Location, Entry | Compact | Placement, int]]:
        """Global entries (in this version's text) and placements (with their bases) in
        the order they were added."""
        placements, starts = self._placements, self._starts
        j, count = 0, len(placements)
        for i, (loc, item) in enumerate(self._entries.items()):
            while j < count and placements[j].position <= i:
                yield (), placements[j], starts[j]
                j += 1
            yield loc, self._global(item) if isinstance(item, tuple) else item, 0
        while j < count:
            yield (), placements[j], starts[j]
            j += 1

    def locations(self) -> Iterator[Location]:
        """Every location with a value, in document order of first appearance."""
        return (loc for loc, _entry in self.items())

    def items(self) -> Iterator[tuple[Location, Entry]]:
        for loc, item, base in self._walk():
            if type(item) is Placement:
                prefix = item.table_loc
                for rel, compact in item.chunk.entries.items():
                    yield (*prefix, *rel), _entry(compact, base)
            elif isinstance(item, tuple):
                yield loc, _entry(item, 0)
            elif isinstance(item, Entry):
                yield loc, item

    def ranges_of(self, kinds: frozenset[Kind]) -> Iterator[tuple[int, int, int, Kind]]:
        """``(key start or -1, value start, value end, kind)`` of every value of one of ``kinds``,
        in the order of ``items``: what a feature that needs only the ranges of some
        values (folding: the containers) reads, without a location or an ``Entry`` made
        for each of the document's values."""
        for _loc, item, base in self._walk():
            if type(item) is Placement:
                for ks, _ke, vs, ve, kind, _lit in item.chunk.entries.values():
                    if kind in kinds:
                        yield (ks + base if ks >= 0 else -1), vs + base, ve + base, kind
            elif isinstance(item, tuple):
                if item[4] in kinds:
                    yield item[0], item[2], item[3], item[4]
            elif isinstance(item, Entry) and item.kind in kinds:
                key = item.key.start if item.key is not None else -1
                yield key, item.value.start, item.value.end, item.kind

    def __contains__(self, location: object) -> bool:
        if location in self._entries:
            return True
        return isinstance(location, tuple) and self._find(location) is not None

    def __len__(self) -> int:
        return len(self._entries) + sum(len(p.chunk.entries) for p in self._placements)

    def children(self, location: Location) -> list[Location]:
        """Direct children of ``location`` that have values, in document order."""
        depth = len(location) + 1
        prefix = tuple(location)
        out: list[Location] = []
        for loc, item, _base in self._walk():
            if type(item) is Placement:
                table_loc = item.table_loc
                if prefix[: len(table_loc)] == table_loc:
                    out.extend(
                        (*table_loc, *rel) for rel in item.chunk.children(prefix[len(table_loc) :])
                    )
            elif len(loc) == depth and loc[:-1] == prefix:
                out.append(loc)
        return out

    def keys_without_value(self) -> frozenset[Location]:
        """Keys written with no value that parsed (``node = = "x"``, ``"node": ,``).

        Such a key is not missing: its syntax error is the one mistake, and a "missing
        required key" on top of it would be a second error for the same cause. Read from
        the key ranges the front-ends record for every key, valued or not; a walk over all
        of them, so asked only of a document with syntax errors.
        """
        found: set[Location] = set()
        for _start, _end, loc, in_key in self._occ:
            if in_key and loc not in self:
                found.add(loc)
        for placement in self._placements:
            prefix, chunk = placement.table_loc, placement.chunk
            entries = chunk.entries
            for _start, _end, rel, in_key in chunk.occ:
                if in_key and rel not in entries:
                    found.add((*prefix, *rel))
        return frozenset(found)

    def prepare_locate(self) -> None:
        """Build what ``locate`` reads (done on first use otherwise): a semantic index
        build calls this, so that the first request to locate an offset in this version
        does not pay for it (60 ms at 16,000 nodes) while the user waits. A spliced map
        shares the index of the map it was spliced from: its global ranges are that
        map's (``_offset``), in the same order."""
        if self._index is None:
            self._index = _Index(self._occ)

    @property
    def locate_prepared(self) -> bool:
        """Whether what ``locate`` reads is built (``prepare_locate``): a request that
        locates an offset in this version pays nothing more for it."""
        return self._index is not None

    def locate(self, offset: int) -> Located | None:
        """The innermost key or value range containing ``offset`` (end inclusive)."""
        self.prepare_locate()
        assert self._index is not None
        moved = self._offset if self._origin is not None else None
        best = self._index.find(offset, moved)
        if best is not None and moved is not None:
            best = (moved(best[0]), moved(best[1]), best[2], best[3])
        placements, starts = self._placements, self._starts
        i = bisect.bisect_right(starts, offset, 0, len(placements)) - 1
        # At most one chunk holds the offset; the one before is checked too in
        # case its last range touches the offset with its end.
        for j in range(max(0, i - 1), i + 1):
            placement, base = placements[j], starts[j]
            if offset > base + len(placement.chunk.text):
                continue
            found = placement.chunk.index().find(offset - base)
            if found is None:
                continue
            start, end, rel, in_key = found
            candidate = (start + base, end + base, (*placement.table_loc, *rel), in_key)
            if best is None or _sort_key(candidate) > _sort_key(best):
                best = candidate
        if best is None:
            return None
        start, end, loc, in_key = best
        return Located(loc, in_key, Span(start, end), loc in self)
