"""Source maps: where each value of a document sits in its text.

Invariants:

- Every span is in code points of the document text (see ``wf_core.spans``).
- Locations are the document's own keys and list indexes, the same tuples the
  model layer uses (``wf_core.locations``), so a model issue can be shown at the
  characters that produced it.
- ``locate`` answers from a nested family of ranges (keys and values nest inside
  their containers); a cursor that touches the end of a range is inside it, so a
  cursor right after ``"context.fore`` still counts as inside that string.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from wf_core.locations import Location
from wf_core.spans import Span


class Kind(StrEnum):
    OBJECT = "object"
    ARRAY = "array"
    STRING = "string"
    NUMBER = "number"
    BOOL = "bool"
    DATETIME = "datetime"
    NULL = "null"


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
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
        begin = self.doc_offset(start)
        if end <= start:
            return Span(begin, begin)
        return Span(begin, max(begin, self.doc_end(end)))


@dataclass(frozen=True, slots=True)
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


class SourceMap:
    """Location → text ranges, plus the offset → location index for editors."""

    __slots__ = ("_ends", "_entries", "_index_built", "_occ", "_parents", "_starts", "_strings")

    def __init__(
        self,
        entries: dict[Location, Entry],
        strings: dict[Location, StringLiteral],
        occurrences: list[tuple[int, int, Location, bool]],
    ) -> None:
        self._entries = entries
        self._strings = strings
        self._occ = occurrences
        self._index_built = False
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._parents: list[int] = []

    def get(self, location: Location) -> Entry | None:
        return self._entries.get(tuple(location))

    def string(self, location: Location) -> StringLiteral | None:
        return self._strings.get(tuple(location))

    def locations(self) -> Iterator[Location]:
        """Every location with a value, in document order of first appearance."""
        return iter(self._entries)

    def items(self) -> Iterator[tuple[Location, Entry]]:
        return iter(self._entries.items())

    def __contains__(self, location: object) -> bool:
        return location in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def children(self, location: Location) -> list[Location]:
        """Direct children of ``location`` that have values, in document order."""
        depth = len(location) + 1
        prefix = tuple(location)
        return [loc for loc in self._entries if len(loc) == depth and loc[:-1] == prefix]

    def _build_index(self) -> None:
        # Sort outer before inner for equal starts, so the later item is the
        # inner one; then a parent pointer per range lets a lookup skip whole
        # earlier siblings (their ranges end before the cursor).
        occ = sorted(self._occ, key=lambda o: (o[0], -o[1], len(o[2]), not o[3]))
        self._occ = occ
        starts = [o[0] for o in occ]
        ends = [o[1] for o in occ]
        parents: list[int] = []
        stack: list[int] = []
        for i, (start, end, _loc, _key) in enumerate(occ):
            while stack and not (starts[stack[-1]] <= start and end <= ends[stack[-1]]):
                stack.pop()
            parents.append(stack[-1] if stack else -1)
            stack.append(i)
        self._starts, self._ends, self._parents = starts, ends, parents
        self._index_built = True

    def locate(self, offset: int) -> Located | None:
        """The innermost key or value range containing ``offset`` (end inclusive)."""
        if not self._index_built:
            self._build_index()
        i = bisect.bisect_right(self._starts, offset) - 1
        while i >= 0:
            if self._ends[i] >= offset:
                start, end, loc, in_key = self._occ[i]
                return Located(loc, in_key, Span(start, end), loc in self._entries)
            # Everything between the parent and i lies inside the parent and
            # ends before i starts, so it cannot contain the offset either.
            i = self._parents[i]
        return None
