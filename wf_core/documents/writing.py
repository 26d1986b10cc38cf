"""Writing text into a document: strings in a literal's style, keys in the syntax.

Every edit wfls proposes (completion, rename, quick fixes) writes through these
functions, so what it inserts always reads back as the value it meant.
"""

from __future__ import annotations

import json
import re

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_NEEDS_ESCAPE = re.compile(r'[\x00-\x1f\x7f"\\]')
_TOML_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _toml_basic_body(text: str) -> str:
    if not _NEEDS_ESCAPE.search(text):  # nearly every string: copied as it is
        return text
    out = []
    for char in text:
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif char in _TOML_ESCAPES:
            out.append(_TOML_ESCAPES[char])
        elif _CONTROL.match(char):
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return "".join(out)


def inside_literal(text: str, style: str | None) -> str | None:
    """``text`` written inside an existing string literal of ``style``; None when that
    style cannot hold it (a literal string cannot hold ``'`` or control characters)."""
    if style == "json":
        return json.dumps(text, ensure_ascii=False)[1:-1]
    if style == "literal":
        return None if "'" in text or _CONTROL.search(text) else text
    if style == "multiline_literal":
        return None if "'''" in text or _CONTROL.search(text.replace("\n", "")) else text
    return _toml_basic_body(text)


def write_string(text: str, style: str | None) -> str:
    """A whole string literal for ``text``: in ``style`` when it can hold it, otherwise
    a basic string (TOML) or a JSON string."""
    if style == "json":
        return json.dumps(text, ensure_ascii=False)
    if style in ("literal", "multiline_literal"):
        body = inside_literal(text, "literal")
        if body is not None:
            return f"'{body}'"
    return f'"{_toml_basic_body(text)}"'


def write_key(name: str, syntax: str) -> str:
    """A table key for ``name``: bare when TOML allows it, quoted otherwise."""
    if syntax == "json":
        return json.dumps(name, ensure_ascii=False)
    if _BARE_KEY.fullmatch(name):
        return name
    return f'"{_toml_basic_body(name)}"'
