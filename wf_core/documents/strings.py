"""String literals: decoding with a map from decoded characters to the text.

Both front-ends decode strings here so that TOML's four string kinds and JSON
strings share one notion of "where is decoded character *i*". A scan starts at
the opening quote and finds the end itself: the tree-sitter path and the error
recovery path then agree on every literal, closed or not.

Invariants:

- Decoding never raises; problems are returned as ``(span, message)`` pairs and
  the offending text is kept verbatim in the value.
- An unterminated single-line literal ends before the line break (a ``\\r``
  before ``\\n`` included); an unterminated multi-line literal ends at ``limit``.
"""

from __future__ import annotations

import re

from wf_core.base.reading import REPLACEMENT
from wf_core.base.spans import Span
from wf_core.documents.source_map import StringLiteral

Problem = tuple[Span, str]

# Characters that end a verbatim run; everything else is copied as is.
_BASIC_RUN = re.compile(r'[^"\\\x00-\x08\x0a-\x1f\x7f]*')
_ML_BASIC_RUN = re.compile(r'[^"\\\x00-\x08\x0b-\x1f\x7f]*')
_LITERAL_RUN = re.compile(r"[^'\x00-\x08\x0a-\x1f\x7f]*")
_ML_LITERAL_RUN = re.compile(r"[^'\x00-\x08\x0b-\x1f\x7f]*")
_JSON_RUN = re.compile(r'[^"\\\x00-\x1f]*')
_LINE_END_BACKSLASH = re.compile(r"\\[ \t]*(?:\r?\n)[ \t\r\n]*")
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_HEX8 = re.compile(r"[0-9A-Fa-f]{8}")

# TOML's one-character escapes (the path scanner reads key strings with the same table).
TOML_SIMPLE_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}

_JSON_SIMPLE = {
    "b": "\b",
    "t": "\t",
    "n": "\n",
    "f": "\f",
    "r": "\r",
    '"': '"',
    "\\": "\\",
    "/": "/",
}


class _Decoder:
    """Accumulates decoded text and the piece map of a literal."""

    __slots__ = ("content_start", "dec", "declen", "doc", "doclen", "length", "out", "problems")

    def __init__(self, content_start: int) -> None:
        self.content_start = content_start
        self.out: list[str] = []
        self.length = 0
        self.dec: list[int] = []
        self.doc: list[int] = []
        self.declen: list[int] = []
        self.doclen: list[int] = []
        self.problems: list[Problem] = []
        # A verbatim run is recorded lazily: only literals with escapes get pieces.

    def verbatim(self, chunk: str, at: int) -> None:
        if chunk:
            if self.dec:
                self._piece(at, len(chunk), len(chunk))
            self.out.append(chunk)
            self.length += len(chunk)

    def special(self, decoded: str, at: int, source_len: int) -> None:
        """One escape or trimmed run: decoded text that maps to one source range."""
        if not self.dec:
            self._backfill(at)
        self._piece(at, len(decoded), source_len)
        self.out.append(decoded)
        self.length += len(decoded)

    def _backfill(self, at: int) -> None:
        # The verbatim text before the first escape becomes the first piece.
        if self.length:
            self.dec.append(0)
            self.doc.append(self.content_start)
            self.declen.append(self.length)
            self.doclen.append(self.length)

    def _piece(self, at: int, declen: int, doclen: int) -> None:
        self.dec.append(self.length)
        self.doc.append(at)
        self.declen.append(declen)
        self.doclen.append(doclen)

    def finish(self, span: Span, content: Span, closed: bool, style: str) -> StringLiteral:
        return StringLiteral(
            span=span,
            content=content,
            value="".join(self.out),
            closed=closed,
            style=style,
            _dec=tuple(self.dec),
            _doc=tuple(self.doc),
            _declen=tuple(self.declen),
            _doclen=tuple(self.doclen),
        )


def _line_break_at(text: str, pos: int) -> bool:
    return text.startswith("\n", pos) or text.startswith("\r\n", pos)


def _control_problem(ch: str, at: int) -> Problem:
    return Span(at, at + 1), f"control character U+{ord(ch):04X} is not allowed in a string"


def _toml_escape(text: str, pos: int, limit: int, dec: _Decoder) -> int:
    """Decode the escape at ``pos`` (a backslash); returns the position after it."""
    nxt = text[pos + 1] if pos + 1 < limit else ""
    simple = TOML_SIMPLE_ESCAPES.get(nxt)
    if simple is not None:
        dec.special(simple, pos, 2)
        return pos + 2
    if nxt in ("u", "U"):
        width = 4 if nxt == "u" else 8
        match = (_HEX4 if width == 4 else _HEX8).match(text, pos + 2, limit)
        if match is None:
            dec.problems.append(
                (
                    Span(pos, min(pos + 2, limit)),
                    f"invalid escape '\\{nxt}': expected {width} hex digits",
                )
            )
            dec.verbatim(text[pos : pos + 2], pos)
            return pos + 2
        code = int(match.group(), 16)
        end = match.end()
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            dec.problems.append(
                (Span(pos, end), f"escape '{text[pos:end]}' is not a Unicode scalar value")
            )
            dec.verbatim(text[pos:end], pos)
            return end
        dec.special(chr(code), pos, end - pos)
        return end
    shown = nxt if nxt and nxt not in "\r\n" else ""
    dec.problems.append((Span(pos, pos + 1 + len(shown)), f"invalid escape '\\{shown}'"))
    dec.verbatim(text[pos : pos + 1 + len(shown)], pos)
    return pos + 1 + len(shown)


# Most literals are one line without escapes: one regex, no piece map.
SIMPLE_BASIC = re.compile(r'"([^"\\\x00-\x08\x0a-\x1f\x7f]*)"')
SIMPLE_LITERAL = re.compile(r"'([^'\x00-\x08\x0a-\x1f\x7f]*)'(?!'')")
_SIMPLE_JSON = re.compile(r'"([^"\\\x00-\x1f]*)"')


def _simple(match: re.Match[str], style: str) -> tuple[StringLiteral, list[Problem]]:
    start, end = match.span()
    literal = StringLiteral(Span(start, end), Span(start + 1, end - 1), match.group(1), True, style)
    return literal, []


def scan_toml_string(text: str, pos: int, limit: int) -> tuple[StringLiteral, list[Problem]]:
    """Scan the TOML string literal whose opening quote is at ``pos``."""
    first = text[pos : pos + 1]
    if first == '"' and not text.startswith('""', pos + 1):
        match = SIMPLE_BASIC.match(text, pos, limit)
        if match is not None:
            return _simple(match, "basic")
    elif first == "'" and not text.startswith("''", pos + 1):
        match = SIMPLE_LITERAL.match(text, pos, limit)
        if match is not None:
            return _simple(match, "literal")
    if text.startswith('"""', pos):
        return _scan_multiline(text, pos, limit, basic=True)
    if text.startswith("'''", pos):
        return _scan_multiline(text, pos, limit, basic=False)
    if text.startswith('"', pos):
        return _scan_single(text, pos, limit, basic=True)
    return _scan_single(text, pos, limit, basic=False)


def _scan_single(
    text: str, pos: int, limit: int, *, basic: bool
) -> tuple[StringLiteral, list[Problem]]:
    quote = '"' if basic else "'"
    run = _BASIC_RUN if basic else _LITERAL_RUN
    start = pos
    pos += 1
    dec = _Decoder(pos)
    while True:
        match = run.match(text, pos, limit)
        assert match is not None  # a starred pattern always matches
        dec.verbatim(match.group(), pos)
        pos = match.end()
        if pos >= limit or _line_break_at(text, pos):
            # Unterminated: ends before the line break.
            dec.problems.append((Span(start, pos), "unterminated string"))
            lit = dec.finish(
                Span(start, pos), Span(start + 1, pos), False, "basic" if basic else "literal"
            )
            return lit, dec.problems
        ch = text[pos]
        if ch == quote:
            style = "basic" if basic else "literal"
            return dec.finish(Span(start, pos + 1), Span(start + 1, pos), True, style), dec.problems
        if ch == "\\":  # only reachable for basic strings
            pos = _toml_escape(text, pos, limit, dec)
            continue
        dec.problems.append(_control_problem(ch, pos))
        dec.verbatim(ch, pos)
        pos += 1


def _scan_multiline(
    text: str, pos: int, limit: int, *, basic: bool
) -> tuple[StringLiteral, list[Problem]]:
    quote = '"' if basic else "'"
    run = _ML_BASIC_RUN if basic else _ML_LITERAL_RUN
    style = "multiline_basic" if basic else "multiline_literal"
    start = pos
    pos += 3
    content_start = pos
    dec = _Decoder(content_start)
    # A line break right after the opening delimiter is not part of the value.
    if text.startswith("\n", pos, limit):
        dec.special("", pos, 1)
        pos += 1
    elif text.startswith("\r\n", pos, limit):
        dec.special("", pos, 2)
        pos += 2
    while True:
        match = run.match(text, pos, limit)
        assert match is not None
        dec.verbatim(match.group(), pos)
        pos = match.end()
        if pos >= limit:
            dec.problems.append((Span(start, start + 3), "unterminated multi-line string"))
            return dec.finish(
                Span(start, pos), Span(content_start, pos), False, style
            ), dec.problems
        ch = text[pos]
        if ch == quote:
            run_end = pos
            while run_end < limit and text[run_end] == quote:
                run_end += 1
            count = run_end - pos
            if count < 3:
                dec.verbatim(text[pos:run_end], pos)
                pos = run_end
                continue
            # Up to two quotes right before the closing delimiter belong to the value.
            extra = min(count - 3, 2)
            dec.verbatim(text[pos : pos + extra], pos)
            close = pos + extra
            lit = dec.finish(Span(start, close + 3), Span(content_start, close), True, style)
            return lit, dec.problems
        if ch == "\\" and basic:
            trim = _LINE_END_BACKSLASH.match(text, pos, limit)
            if trim is not None:
                dec.special("", pos, trim.end() - pos)
                pos = trim.end()
                continue
            pos = _toml_escape(text, pos, limit, dec)
            continue
        if ch == "\r" and text.startswith("\r\n", pos, limit):
            # TOML reads CRLF as LF everywhere, values included.
            dec.special("\n", pos, 2)
            pos += 2
            continue
        dec.problems.append(_control_problem(ch, pos))
        dec.verbatim(ch, pos)
        pos += 1


def scan_json_string(text: str, pos: int, limit: int) -> tuple[StringLiteral, list[Problem]]:
    """Scan the JSON string whose opening quote is at ``pos``.

    Matches ``json.loads``: surrogate pairs written as two ``\\u`` escapes
    combine into one character; but a lone surrogate escape (``"\\ud800"``, valid
    JSON) is read as U+FFFD, as a lone surrogate in an editor's text is
    (``wf_core.base.reading.analysable``): nothing could encode it in UTF-8, so every
    name or message made of it would fail where it is printed or sent.
    """
    match = _SIMPLE_JSON.match(text, pos, limit)
    if match is not None:
        return _simple(match, "json")
    start = pos
    pos += 1
    dec = _Decoder(pos)
    while True:
        match = _JSON_RUN.match(text, pos, limit)
        assert match is not None
        dec.verbatim(match.group(), pos)
        pos = match.end()
        if pos >= limit or _line_break_at(text, pos):
            dec.problems.append((Span(start, pos), "unterminated string"))
            return dec.finish(Span(start, pos), Span(start + 1, pos), False, "json"), dec.problems
        ch = text[pos]
        if ch == '"':
            return dec.finish(
                Span(start, pos + 1), Span(start + 1, pos), True, "json"
            ), dec.problems
        if ch == "\\":
            pos = _json_escape(text, pos, limit, dec)
            continue
        dec.problems.append(_control_problem(ch, pos))
        dec.verbatim(ch, pos)
        pos += 1


def _json_escape(text: str, pos: int, limit: int, dec: _Decoder) -> int:
    nxt = text[pos + 1] if pos + 1 < limit else ""
    simple = _JSON_SIMPLE.get(nxt)
    if simple is not None:
        dec.special(simple, pos, 2)
        return pos + 2
    if nxt == "u":
        match = _HEX4.match(text, pos + 2, limit)
        if match is None:
            dec.problems.append((Span(pos, pos + 2), "invalid escape '\\u': expected 4 hex digits"))
            dec.verbatim(text[pos : pos + 2], pos)
            return pos + 2
        code = int(match.group(), 16)
        end = match.end()
        if 0xD800 <= code <= 0xDBFF and text.startswith("\\u", end):
            low = _HEX4.match(text, end + 2, limit)
            if low is not None:
                low_code = int(low.group(), 16)
                if 0xDC00 <= low_code <= 0xDFFF:
                    combined = 0x10000 + ((code - 0xD800) << 10) + (low_code - 0xDC00)
                    dec.special(chr(combined), pos, low.end() - pos)
                    return low.end()
        dec.special(REPLACEMENT if 0xD800 <= code <= 0xDFFF else chr(code), pos, end - pos)
        return end
    shown = nxt if nxt and nxt not in "\r\n" else ""
    dec.problems.append((Span(pos, pos + 1 + len(shown)), f"invalid escape '\\{shown}'"))
    dec.verbatim(text[pos : pos + 1 + len(shown)], pos)
    return pos + 1 + len(shown)
