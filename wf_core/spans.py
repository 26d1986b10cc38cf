"""Text ranges inside a document.

Invariant: every offset in ``wf_core`` counts Unicode code points (Python ``str``
indexes) from the start of the document text. Conversion to bytes, UTF-16 units
or line/column pairs happens only at the edges (CLI output, the LSP layer).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from itertools import accumulate


@dataclass(frozen=True, slots=True, order=True)
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

    def slice(self, text: str) -> str:
        return text[self.start : self.end]


class LineIndex:
    """Maps code-point offsets to 0-based (line, column) pairs and back.

    Columns count code points; the LSP layer converts them to the negotiated
    position encoding. Lines end at ``\\n`` (a preceding ``\\r`` belongs to the line).
    """

    __slots__ = ("_starts", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        # Line lengths come from C (split + len); only the running sum is Python.
        self._starts = list(accumulate((len(line) + 1 for line in text.split("\n")), initial=0))
        self._starts.pop()

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def position(self, offset: int) -> tuple[int, int]:
        offset = max(0, min(offset, len(self._text)))
        line = bisect.bisect_right(self._starts, offset) - 1
        return line, offset - self._starts[line]

    def offset(self, line: int, column: int) -> int:
        if line < 0:
            return 0
        if line >= len(self._starts):
            return len(self._text)
        start = self._starts[line]
        end = self.line_end(line)
        return min(start + max(column, 0), end)

    def line_start(self, line: int) -> int:
        return self._starts[line]

    def line_end(self, line: int) -> int:
        """Offset of the end of ``line``, before its ``\\n`` (and a ``\\r`` before that)."""
        if line + 1 < len(self._starts):
            end = self._starts[line + 1] - 1
        else:
            end = len(self._text)
        if end > self._starts[line] and self._text[end - 1] == "\r":
            end -= 1
        return end

    def line_text(self, line: int) -> str:
        return self._text[self._starts[line] : self.line_end(line)]
