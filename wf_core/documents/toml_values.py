"""TOML scalars and the value/statement shapes shared by both TOML readers.

The tree-sitter reader and the error-recovery reader produce the same
statements (headers and pairs holding value nodes); ``toml_tables`` turns them
into plain values with TOML's table rules. Scalars are classified here from
their text alone, so both readers agree on every number, date and boolean; the
control characters TOML forbids are defined here too, for the tree path (which
reports them) and the fast reader (which gives up on a text holding any).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone

from wf_core.base.spans import Span
from wf_core.documents._offsets import encode
from wf_core.documents.source_map import Kind, StringLiteral

# Nesting deeper than this is reported and not descended into, so that neither
# reader nor the table builder can exhaust the Python stack.
MAX_DEPTH = 100


CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)")
"""A control character TOML allows nowhere outside strings, or a CR without LF."""
# Every byte but the ones ``CONTROL`` may start at: deleting them leaves
# nothing for almost every document, much faster than running the pattern.
_NOT_CONTROL = bytes(b for b in range(256) if not (b < 0x20 or b == 0x7F) or b in (9, 10))


def has_control_characters(text: str) -> bool:
    """Whether ``text`` holds a control character TOML forbids outside strings (or a CR
    without LF) anywhere, strings included."""
    return bool(encode(text).translate(None, _NOT_CONTROL)) and CONTROL.search(text) is not None


@dataclass(slots=True)
class KeyPart:
    name: str
    span: Span


@dataclass(slots=True)
class Scalar:
    kind: Kind
    value: object
    span: Span
    literal: StringLiteral | None = None


@dataclass(slots=True)
class ArrayNode:
    span: Span
    items: list[Value]


@dataclass(slots=True)
class InlineTable:
    span: Span
    pairs: list[Pair]


Value = Scalar | ArrayNode | InlineTable


@dataclass(slots=True)
class Pair:
    """``key = value``; ``value`` is None when the author has not written it yet."""

    keys: list[KeyPart]
    value: Value | None
    span: Span


@dataclass(slots=True)
class Header:
    """``[a.b]`` or ``[[a.b]]``; no keys means a header too broken to name a table."""

    keys: list[KeyPart]
    array: bool
    span: Span


Statement = Header | Pair

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_INT_DEC = re.compile(r"[+-]?(?:0|[1-9](?:_?[0-9])*)")
_INT_PREFIXED = {
    "0x": (re.compile(r"0x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*"), 16),
    "0o": (re.compile(r"0o[0-7](?:_?[0-7])*"), 8),
    "0b": (re.compile(r"0b[01](?:_?[01])*"), 2),
}
_FLOAT = re.compile(
    r"[+-]?(?:0|[1-9](?:_?[0-9])*)"
    r"(?:\.[0-9](?:_?[0-9])*(?:[eE][+-]?[0-9](?:_?[0-9])*)?|[eE][+-]?[0-9](?:_?[0-9])*)"
)
_FLOAT_SPECIAL = re.compile(r"[+-]?(?:inf|nan)")
_DATETIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})"
    r"(?:[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))?)?"
)
_TIME = re.compile(r"(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?")


def format_key(parts: Sequence[object]) -> str:
    """A key as an author would write it: bare where possible, else quoted."""
    out = []
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
            continue
        text = str(part)
        if _BARE_KEY.fullmatch(text):
            out.append(text)
        else:
            escaped = text.replace("\\", "\\\\").replace('"', '\\"')
            out.append(f'"{escaped}"')
    return ".".join(out).replace(".[", "[")


def _micros(text: str | None) -> int:
    return int(text.ljust(6, "0")[:6]) if text else 0


def classify(word: str) -> tuple[Kind, object] | str:
    """The value of a bare TOML value word, or a message saying what is wrong."""
    if word == "true":
        return Kind.BOOL, True
    if word == "false":
        return Kind.BOOL, False
    first = word[:1]
    if first.isdigit() and len(word) >= 8 and (word[4:5] == "-" or word[2:3] == ":"):
        return _classify_datetime(word)
    prefixed = _INT_PREFIXED.get(word[:2])
    if prefixed is not None:
        pattern, base = prefixed
        if pattern.fullmatch(word):
            return Kind.NUMBER, int(word[2:].replace("_", ""), base)
        return f"invalid number '{word}'"
    if _INT_DEC.fullmatch(word):
        try:
            return Kind.NUMBER, int(word.replace("_", ""))
        except ValueError:
            return f"integer '{word[:20]}...' is too long"
    if _FLOAT.fullmatch(word) or _FLOAT_SPECIAL.fullmatch(word):
        return Kind.NUMBER, float(word.replace("_", ""))
    if first.isdigit() or first in "+-.":
        return f"invalid number '{word}'"
    return f"invalid value '{word}' (strings need quotes)"


def _classify_datetime(word: str) -> tuple[Kind, object] | str:
    match = _DATETIME.fullmatch(word)
    try:
        if match is not None:
            year, month, day, hour, minute, sec, frac, zulu, sign, off_h, off_m = match.groups()
            if hour is None:
                return Kind.DATETIME, date(int(year), int(month), int(day))
            tz: timezone | None = None
            if zulu:
                tz = UTC
            elif sign:
                delta = timedelta(hours=int(off_h), minutes=int(off_m))
                tz = timezone(-delta if sign == "-" else delta)
            value = datetime(
                int(year),
                int(month),
                int(day),
                int(hour),
                int(minute),
                int(sec),
                _micros(frac),
                tzinfo=tz,
            )
            return Kind.DATETIME, value
        match = _TIME.fullmatch(word)
        if match is not None:
            hour, minute, sec, frac = match.groups()
            return Kind.DATETIME, time(int(hour), int(minute), int(sec), _micros(frac))
    except ValueError:
        return f"invalid date or time '{word}'"
    return f"invalid date or time '{word}'"
