"""The canonical style of a ``*.wf.json`` document.

lda-wf's JSON is plain JSON (no comments), so the style is only layout: the key order
of ``order``, indentation (two spaces unless told otherwise), and a value on one line
when it fits in the width, else one member or element a line. The document itself,
the ``nodes`` and ``node_defs`` lists and each of their elements are always written
one entry a line, as their TOML form writes each as a table of its own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

_RECORD_LISTS = frozenset(("nodes", "node_defs"))


def json_document(values: Mapping[str, object], *, width: int, indent: str) -> str:
    """The JSON text of a document's (already ordered) values, with a final line break."""
    out: list[str] = []
    _write(values, 0, "", "", True, out, width, indent)
    return "\n".join(out) + "\n"


def one_line(value: object) -> str:
    """A value on one line, spaced as people write it (``{"a": 1, "b": [1, 2]}``),
    non-ASCII as it is."""
    return json.dumps(value, ensure_ascii=False)


def _write(
    value: object,
    level: int,
    lead: str,
    tail: str,
    expand: bool,
    out: list[str],
    width: int,
    indent: str,
) -> None:
    """``value`` after ``lead`` (its indentation and key) and before ``tail`` (its comma)."""
    if not isinstance(value, Mapping | list) or not value:
        out.append(lead + one_line(value) + tail)
        return
    if not expand:
        text = lead + one_line(value) + tail
        if len(text) <= width:
            out.append(text)
            return
    inner = indent * (level + 1)
    if isinstance(value, Mapping):
        out.append(lead + "{")
        last = len(value) - 1
        for i, (key, item) in enumerate(value.items()):
            records = level == 0 and key in _RECORD_LISTS
            lead_item = f"{inner}{one_line(key)}: "
            _write(item, level + 1, lead_item, "," if i < last else "", records, out, width, indent)
        out.append(indent * level + "}" + tail)
        return
    out.append(lead + "[")
    last = len(value) - 1
    # the elements of ``nodes`` and ``node_defs`` (the only lists written expanded)
    records = expand and level == 1
    for i, item in enumerate(value):
        _write(item, level + 1, inner, "," if i < last else "", records, out, width, indent)
    out.append(indent * level + "]" + tail)
