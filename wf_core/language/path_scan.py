"""A tolerant reader of path text for editors.

``wf_core.language.paths`` parses a path or rejects it; an editor also needs to know
what the user meant while the text is still broken (``context.foreach."ord``,
``input . a``, a stray ``=``), where each segment sits in the text, and which
segment a completion should replace. This module reads the same TOML key
grammar as ``wf_core.language.paths.parse_toml_key`` but never raises: it records the
first offending character and keeps going with a best guess.

Invariant: ``scan_path(text).valid`` is true exactly when
``parse_toml_key(text)`` succeeds, and the decoded segment values then agree.
Offsets are code-point offsets into the scanned text (the decoded path
string, not the document); mapping them through a document string's own
escapes is the document layer's job.
"""

from __future__ import annotations

import re
from functools import lru_cache

from wf_core.base.records import record
from wf_core.documents.strings import TOML_SIMPLE_ESCAPES

__all__ = ["CursorScan", "PartialSegment", "PathScan", "ScannedSegment", "scan_at", "scan_path"]

_TOML_WS = frozenset(" \t")
_BARE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
# A bare run is read up to whitespace, a dot or a quote, so text such as
# ``items[0]`` stays one (invalid) segment instead of splintering.
_BARE_STOP = frozenset(" \t.\"'")
_BARE_RUN = re.compile(r"[A-Za-z0-9_-]+")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _is_control(ch: str) -> bool:
    return ch <= "\x1f" or ch == "\x7f"


def _is_scalar_value(code_point: int) -> bool:
    return 0 <= code_point <= 0xD7FF or 0xE000 <= code_point <= 0x10FFFF


@record
class ScannedSegment:
    """One key of the path.

    ``start``..``end`` covers the segment in the text, quotes included;
    ``value`` is the decoded key. ``closed`` is False only for a quoted
    segment whose closing quote is missing (it then runs to the end of text).
    """

    value: str
    start: int
    end: int
    quote: str | None = None
    closed: bool = True


@record
class PathScan:
    """The segments of a path text and whether the text is a well-formed path.

    ``separators`` are the offsets of the dots between segments (dots inside
    quotes are part of a segment, not separators). ``error_offset`` is the
    first offending character; it equals ``len(text)`` when a segment is
    missing at the end (empty text, trailing dot).
    """

    segments: tuple[ScannedSegment, ...]
    valid: bool
    error_offset: int | None
    separators: tuple[int, ...] = ()

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(seg.value for seg in self.segments)


@record
class PartialSegment:
    """The segment a completion at the cursor is typing.

    ``value`` is the decoded text from the segment's start (after an opening
    quote) up to the cursor, i.e. the prefix to filter candidates by.
    ``start``..``end`` is what an accepted completion replaces: the whole
    segment as written, quotes included, so completing in the middle of a word
    replaces the word. ``quote`` is the quote the user opened, if any.
    """

    value: str
    start: int
    end: int
    quote: str | None = None


@record
class CursorScan:
    """``before``: the segments preceding the one at the cursor; ``partial``: that one.

    ``replaced`` is the whole segment ``partial`` replaces (None when it starts an
    empty one) and ``after`` the segments behind it: a completion of a dotted name
    typed without quotes (``o|rders.v2``) also replaces the ones that spell it.
    """

    before: tuple[ScannedSegment, ...]
    partial: PartialSegment
    replaced: ScannedSegment | None = None
    after: tuple[ScannedSegment, ...] = ()


class _Errors:
    __slots__ = ("first",)

    def __init__(self) -> None:
        self.first: int | None = None

    def at(self, offset: int) -> None:
        if self.first is None or offset < self.first:
            self.first = offset


def _decode_basic(
    text: str, pos: int, stop: int, errors: _Errors
) -> tuple[list[str], list[int], int]:
    """Decode a basic-string body from ``pos`` up to the closing quote or ``stop``.

    Returns the decoded characters, the text offset each came from (so a
    decoded control character can be reported where it was written), and the
    offset reached: that of the closing quote, or ``stop``. Escapes TOML
    rejects are recorded and kept literally, so the value stays readable.
    """
    chars: list[str] = []
    origins: list[int] = []
    i = pos
    while i < stop:
        ch = text[i]
        if ch == '"':
            break
        if ch != "\\":
            if _is_control(ch) and ch != "\t":
                errors.at(i)
            chars.append(ch)
            origins.append(i)
            i += 1
            continue
        kind = text[i + 1] if i + 1 < stop else ""
        if kind in TOML_SIMPLE_ESCAPES:
            chars.append(TOML_SIMPLE_ESCAPES[kind])
            origins.append(i)
            i += 2
            continue
        if kind in ("u", "U"):
            width = 4 if kind == "u" else 8
            j = i + 2
            while j < min(stop, i + 2 + width) and text[j] in _HEX_DIGITS:
                j += 1
            digits = text[i + 2 : j]
            if len(digits) == width and _is_scalar_value(int(digits, 16)):
                chars.append(chr(int(digits, 16)))
                origins.append(i)
            else:
                errors.at(i)
                chars.extend(text[i:j])
                origins.extend(range(i, j))
            i = j
            continue
        errors.at(i)
        chars.append("\\")
        origins.append(i)
        i += 1
    return chars, origins, i


def _read_segment(text: str, pos: int, errors: _Errors) -> ScannedSegment:
    """Read one key starting at ``pos`` (not whitespace, not a dot)."""
    n = len(text)
    ch = text[pos]
    if ch == '"':
        chars, origins, i = _decode_basic(text, pos + 1, n, errors)
        closed = i < n
        end = i + 1 if closed else n
        quote: str | None = '"'
    elif ch == "'":
        close = text.find("'", pos + 1)
        closed = close != -1
        body_end = close if closed else n
        chars = list(text[pos + 1 : body_end])
        origins = list(range(pos + 1, body_end))
        for offset, c in zip(origins, chars, strict=True):
            if _is_control(c) and c != "\t":
                errors.at(offset)
        end = body_end + 1 if closed else n
        quote = "'"
    else:
        bare = _BARE_RUN.match(text, pos)
        if bare is not None and (bare.end() == n or text[bare.end()] in _BARE_STOP):
            # The common case, a bare key of bare characters only: nothing to report.
            return ScannedSegment(bare.group(), pos, bare.end(), None, True)
        i = pos
        while i < n and text[i] not in _BARE_STOP:
            if text[i] not in _BARE_CHARS:
                errors.at(i)
            i += 1
        chars = list(text[pos:i])
        origins = list(range(pos, i))
        closed = True
        end = i
        quote = None
    if not closed:
        errors.at(pos)
    value = "".join(chars)
    # The same segment rules as wf_core.language.paths.validate_segment.
    if not value.strip():
        errors.at(pos)
    else:
        for offset, c in zip(origins, chars, strict=True):
            if _is_control(c):
                errors.at(offset)
                break
    return ScannedSegment(value, pos, end, quote, closed)


@lru_cache(maxsize=4096)
def scan_path(text: str) -> PathScan:
    """Split ``text`` into segments following TOML dotted-key syntax, never raising.

    Recovery is chosen so the segments match what the user most likely meant:
    a missing dot starts a new segment, an extra dot is skipped, an unclosed
    quote runs to the end of the text.
    """
    if not isinstance(text, str):
        return PathScan((), False, 0)
    errors = _Errors()
    segments: list[ScannedSegment] = []
    separators: list[int] = []
    n = len(text)
    i = 0
    expect_key = True
    while True:
        while i < n and text[i] in _TOML_WS:
            i += 1
        if i >= n:
            if expect_key:
                errors.at(n)
            break
        if text[i] == ".":
            if expect_key:
                errors.at(i)
            separators.append(i)
            expect_key = True
            i += 1
            continue
        if not expect_key:
            errors.at(i)
        segment = _read_segment(text, i, errors)
        segments.append(segment)
        expect_key = False
        i = segment.end
    return PathScan(tuple(segments), errors.first is None, errors.first, tuple(separators))


def _decoded_prefix(text: str, segment: ScannedSegment, cursor: int) -> str:
    """Decoded text of ``segment`` from its start up to ``cursor`` (quotes excluded)."""
    if segment.quote is None:
        return text[segment.start : cursor]
    body_end = segment.end - 1 if segment.closed else segment.end
    stop = min(cursor, body_end)
    if segment.quote == "'":
        return text[segment.start + 1 : stop]
    chars, _, _ = _decode_basic(text, segment.start + 1, stop, _Errors())
    return "".join(chars)


def scan_at(text: str, cursor: int) -> CursorScan:
    """What a completion at ``cursor`` is completing, and the path before it.

    The cursor is clamped into the text. A cursor strictly inside a segment,
    or at its end, is typing that segment; a cursor at a segment's start, or
    in the spaces before it, is starting it afresh and replaces it; anywhere
    else (right after a dot, after trailing spaces) an empty segment starts at
    the cursor.
    """
    if not isinstance(text, str):
        text = ""
    if not isinstance(cursor, int):
        cursor = 0
    cursor = max(0, min(cursor, len(text)))
    scan = scan_path(text)
    segments = scan.segments
    # The dot-delimited slot holding the cursor; a cursor on a dot's left
    # belongs to the segment before it, on its right to the one after.
    slot_end = min((dot for dot in scan.separators if dot >= cursor), default=len(text))
    for index, segment in enumerate(segments):
        if segment.start < cursor <= segment.end:
            partial = PartialSegment(
                _decoded_prefix(text, segment, cursor), segment.start, segment.end, segment.quote
            )
            return CursorScan(segments[:index], partial, segment, segments[index + 1 :])
        if segment.start >= cursor:
            if segment.start < slot_end:
                partial = PartialSegment("", cursor, segment.end, None)
                return CursorScan(segments[:index], partial, segment, segments[index + 1 :])
            partial = PartialSegment("", cursor, cursor, None)
            return CursorScan(segments[:index], partial, None, segments[index:])
    return CursorScan(segments, PartialSegment("", cursor, cursor, None))
