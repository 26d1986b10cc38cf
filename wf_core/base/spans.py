"""Text ranges inside a document.

Invariant: every offset in ``wf_core`` counts Unicode code points (Python ``str``
indexes) from the start of the document text. Conversion to bytes, UTF-16 units
or line/column pairs happens only at the edges (CLI output, the LSP layer).
"""

from __future__ import annotations

import bisect
import re
from itertools import accumulate
from typing import TYPE_CHECKING

from wf_core.base.records import record

if TYPE_CHECKING:
    from wf_core.base.edits import Region


@record(order=True)
class Span:
    """A half-open range ``[start, end)`` of code-point offsets."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"invalid span {self.start}..{self.end}")

    def contains(self, offset: int) -> bool:
        """True when ``offset`` lies inside the span or touches its end (a cursor after it)."""
        return self.start <= offset <= self.end

    def touches(self, other: Span) -> bool:
        """True when the two spans share an offset, either end included (a finding right
        after a cursor, or right before it, touches it)."""
        return self.start <= other.end and other.start <= self.end

    def slice(self, text: str) -> str:
        return text[self.start : self.end]


class LineIndex:
    """Maps code-point offsets to 0-based (line, column) pairs and back.

    Columns count code points; the LSP layer converts them to the negotiated
    position encoding. A line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r``, as LSP
    counts lines: a client numbers a text's lines so, and the server's positions (and
    the edits it applies) must be the client's.

    An index made by :meth:`edited` shares its predecessor's line starts: the
    starts of the lines after the edited one are read shifted by the edit's
    length change, so deriving it costs nothing however long the document is.
    """

    __slots__ = ("_ascii", "_delta", "_edited", "_first", "_starts", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._ascii: bool | None = None
        if "\r" in text:
            self._starts = [0, *(m.end() for m in _LINE_BREAK.finditer(text))]
        else:
            # Line lengths come from C (split + len); only the running sum is Python.
            self._starts = list(accumulate((len(line) + 1 for line in text.split("\n")), initial=0))
            self._starts.pop()
        self._edited = len(self._starts) - 1  # no line is shifted
        self._delta = 0
        # The first line whose text may differ from the text the starts were made for.
        self._first = len(self._starts)

    def edited(self, text: str, at: int, delta: int) -> LineIndex:
        """The index of ``text``, which differs from this index's text only inside the
        line holding offset ``at`` (no line break added or removed) and is ``delta``
        code points longer."""
        line = self.line_of(at)
        if self._delta and line != self._edited:
            return LineIndex(text)  # shifted twice, in two places: not worth composing
        derived = LineIndex.__new__(LineIndex)
        derived._text = text
        derived._ascii = None
        derived._starts = self._starts  # never mutated after construction
        derived._edited = line
        derived._delta = self._delta + delta
        derived._first = min(self._first, line)  # an edit of delta 0 may leave another line
        return derived

    def following(self, text: str, region: Region) -> LineIndex:
        """The index of ``text``, which this index's text became by a change inside
        ``region``: derived (:meth:`edited`) when the region holds no line break on
        either side, as typing makes it; else made afresh (5 MB: 40 to 50 ms). Next to a
        ``\\r`` just before the region, the change may join or part a ``\\r\\n`` (one
        break): made afresh too."""
        start, old_end, new_end = region.start, region.old_end, region.new_end
        old = self._text
        if (
            _has_break(old[start:old_end])
            or _has_break(text[start:new_end])
            or (start and text[start - 1] == "\r")
        ):
            return LineIndex(text)
        return self.edited(text, start, new_end - old_end)

    def unchanged_before(self, other: LineIndex | None) -> int:
        """An offset before which this index's text and ``other``'s are the same, line for
        line, so every offset before it has the same position (and column in any
        encoding) in both; 0 when that is not known. Known for indexes derived from one
        index (:meth:`edited`): each text equals that index's text up to the first line
        an edit on the way touched."""
        if other is None or other._starts is not self._starts:
            return 0
        first = min(self._first, other._first)
        return self._starts[first] if first < len(self._starts) else 0

    def _start(self, line: int) -> int:
        start = self._starts[line]
        return start + self._delta if line > self._edited else start

    def line_of(self, offset: int) -> int:
        """The line holding ``offset`` (clamped to the text)."""
        return self._line(max(0, min(offset, len(self._text))))

    def _line(self, offset: int) -> int:
        """``line_of`` an offset already inside the text."""
        starts, edited = self._starts, self._edited
        if edited + 1 < len(starts) and offset >= starts[edited + 1] + self._delta:
            return bisect.bisect_right(starts, offset - self._delta) - 1
        return min(bisect.bisect_right(starts, offset) - 1, edited)

    @property
    def text(self) -> str:
        """The text this index numbers."""
        return self._text

    @property
    def is_ascii(self) -> bool:
        """Whether the text is all ASCII, where a column in code points is one in any
        encoding's units (checked once, at C speed: under a millisecond for 6 MB)."""
        if self._ascii is None:
            self._ascii = self._text.isascii()
        return self._ascii

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def position(self, offset: int) -> tuple[int, int]:
        offset = max(0, min(offset, len(self._text)))
        line = self._line(offset)
        return line, offset - self._start(line)

    def one_based(self, offset: int) -> tuple[int, int]:
        """``position`` as the machine outputs print it (``wfls check --format json``, the
        graph's JSON): line and column both counted from 1, the column in code points."""
        line, column = self.position(offset)
        return line + 1, column + 1

    def offset(self, line: int, column: int) -> int:
        if line < 0:
            return 0
        if line >= len(self._starts):
            return len(self._text)
        start = self._start(line)
        end = self.line_end(line)
        return min(start + max(column, 0), end)

    def line_start(self, line: int) -> int:
        return self._start(line)

    def line_end(self, line: int) -> int:
        """Offset of the end of ``line``, before its line break (``\\n``, ``\\r\\n`` or
        ``\\r``)."""
        if line + 1 >= len(self._starts):
            return len(self._text)
        end = self._start(line + 1) - 1  # the break's last character
        if self._text[end] == "\n" and end > self._start(line) and self._text[end - 1] == "\r":
            end -= 1
        return end

    def line_text(self, line: int) -> str:
        return self._text[self._start(line) : self.line_end(line)]


_LINE_BREAK = re.compile("\r\n?|\n")


def _has_break(text: str) -> bool:
    return "\n" in text or "\r" in text
