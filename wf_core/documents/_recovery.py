"""What the tolerant TOML and JSON readers share: a cursor that reports and moves on.

Each reader keeps its own grammar; this base only knows the text, the cursor
``pos``, the region ``end`` and how to report a problem.
"""

from __future__ import annotations


class RecoveryCursor:
    text: str
    pos: int
    end: int

    def problem(self, start: int, end: int, message: str) -> None:
        raise NotImplementedError

    def skip_junk(self, stops: str, message: str) -> None:
        """Report and skip text up to a stop character (always at least one character)."""
        text = self.text
        pos = self.pos + 1
        while pos < self.end and text[pos] not in stops:
            pos += 1
        self.problem(self.pos, pos, message)
        self.pos = pos
