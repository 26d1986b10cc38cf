"""Byte offsets (tree-sitter) to code-point offsets (everything else) and back.

Invariant: ASCII text converts by identity. Otherwise the converter keeps one
checkpoint after each non-ASCII character; between checkpoints bytes and code
points advance together, so a lookup is one bisection.
"""

from __future__ import annotations

import bisect
import re

_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def encode(text: str) -> bytes:
    # Lone surrogates (possible in editor buffers) must not make encoding fail.
    return text.encode("utf-8", "surrogatepass")


class ByteOffsets:
    __slots__ = ("_bytes", "_chars", "ascii", "length")

    def __init__(self, text: str) -> None:
        self.length = len(text)
        self.ascii = text.isascii()
        self._bytes: list[int] = [0]
        self._chars: list[int] = [0]
        if self.ascii:
            return
        extra = 0
        for match in _NON_ASCII.finditer(text):
            code = ord(match.group())
            extra += 1 if code < 0x800 else (2 if code < 0x10000 else 3)
            index = match.start() + 1
            self._chars.append(index)
            self._bytes.append(index + extra)

    def char(self, byte_offset: int) -> int:
        """Code-point offset of ``byte_offset`` (inside a character: its start)."""
        if self.ascii:
            return byte_offset
        i = bisect.bisect_right(self._bytes, byte_offset) - 1
        char = self._chars[i] + (byte_offset - self._bytes[i])
        if i + 1 < len(self._chars):
            char = min(char, self._chars[i + 1] - 1)
        return min(char, self.length)
