"""Structural edits of a document's text: write a value, replace or remove a key, append
to an array, in the document's own syntax and layout.

Quick fixes change the document through these, so that what they write reads back
as the value they meant: TOML values through ``wf_core.authoring.export.inline_toml`` (tables
inline, a list of tables one per line), JSON values as compact JSON with a list of
objects one per line, keys through ``write_key``, strings through ``write_string``.
Each function answers None when the text is laid out in a way it cannot edit
safely (a key written as a table header, a dotted key); the caller then offers no
fix rather than a wrong one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from wf_core.authoring.export import ExportError, inline_toml
from wf_core.base.locations import Location, LocationPart
from wf_core.base.records import record
from wf_core.base.spans import Span
from wf_core.documents.writing import inside_literal, write_key, write_string
from wf_core.version.view import AnalysisView
from wfls.features.types import TextEdit

_PAIR_SEPARATOR = re.compile(r"[ \t]*[=:][ \t]*")
_JSON_DEFAULT_INDENT = "  "


def line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def line_end(text: str, offset: int) -> int:
    """The offset just past the newline ending the line of ``offset`` (or the text end)."""
    end = text.find("\n", offset)
    return len(text) if end < 0 else end + 1


def indentation(text: str, offset: int) -> str:
    """The leading whitespace of the line holding ``offset``."""
    start = line_start(text, offset)
    line = text[start:offset]
    return line[: len(line) - len(line.lstrip(" \t"))]


def write_value(view: AnalysisView, value: object, indent: str = "") -> str | None:
    """``value`` written after a key whose line is indented by ``indent``; None when the
    syntax cannot hold it (a null in TOML)."""
    if view.syntax == "json":
        if isinstance(value, list) and any(isinstance(v, Mapping) for v in value):
            inner = indent + _json_unit(view)
            items = ",\n".join(inner + json.dumps(v, ensure_ascii=False) for v in value)
            return f"[\n{items}\n{indent}]"
        return json.dumps(value, ensure_ascii=False)
    try:
        text = inline_toml(value)
    except ExportError:
        return None
    return text.replace("\n", "\n" + indent)


def _json_unit(view: AnalysisView) -> str:
    """The indentation step of a JSON document (that of its first indented line)."""
    match = re.search(r"\n([ \t]+)\S", view.text)
    return match.group(1) if match else _JSON_DEFAULT_INDENT


def string_edit(view: AnalysisView, location: Location, value: str) -> TextEdit | None:
    """Replace the string at ``location`` by ``value``, in its literal's style when it can
    hold it (a TOML literal string cannot hold ``'``), otherwise as a new literal."""
    literal = view.parsed.source_map.string(location)
    if literal is None:
        return None
    if literal.style == "basic" and '"' in value and inside_literal(value, "literal"):
        # Quoted path segments read best in a literal string: no escaping.
        return TextEdit(literal.span, write_string(value, "literal"))
    body = inside_literal(value, literal.style)
    if body is not None and literal.closed:
        return TextEdit(literal.content, body)
    return TextEdit(literal.span, write_string(value, literal.style))


@record
class _Pair:
    key: Span
    value: Span


def _pair(view: AnalysisView, location: Location) -> _Pair | None:
    """The entry at ``location`` when it is written ``key = value`` (or ``"key": value``)."""
    entry = view.parsed.source_map.get(location)
    if entry is None or entry.key is None or entry.key.end > entry.value.start:
        return None
    if not _PAIR_SEPARATOR.fullmatch(view.text[entry.key.end : entry.value.start]):
        return None
    return _Pair(entry.key, entry.value)


def replace_pair(
    view: AnalysisView, location: Location, key: str, value: object
) -> TextEdit | None:
    """Rewrite the pair at ``location`` as ``key = value`` in place."""
    entry = _pair(view, location)
    if entry is None:
        return None
    written = write_value(view, value, indentation(view.text, entry.key.start))
    if written is None:
        return None
    separator = view.text[entry.key.end : entry.value.start]
    return TextEdit(
        Span(entry.key.start, entry.value.end),
        write_key(key, view.syntax) + separator + written,
    )


def remove_pair(view: AnalysisView, location: Location) -> TextEdit | None:
    """Remove the pair at ``location`` with its separator: the whole line when it stands
    on lines of its own, otherwise the pair and one comma beside it."""
    entry = _pair(view, location)
    if entry is None:
        return None
    text = view.text
    start, end = entry.key.start, entry.value.end
    starts_line = text[line_start(text, start) : start].strip() == ""
    rest = _skip_space(text, end, newlines=False)
    ends_line = rest >= len(text) or text[rest] in "\n\r#"
    if view.syntax == "toml" and starts_line and ends_line:
        return TextEdit(Span(line_start(text, start), line_end(text, end)), "")
    after = _skip_space(text, end)
    if after < len(text) and text[after] == ",":
        # ``key = value,`` : the comma after it goes with it.
        stop = _skip_space(text, after + 1, newlines=False)
        if stop >= len(text) or text[stop] in "\n\r":
            if starts_line:
                return TextEdit(Span(line_start(text, start), line_end(text, stop)), "")
            start = len(text[:start].rstrip(" \t"))  # no trailing blanks left behind
        return TextEdit(Span(start, stop), "")
    before = _skip_space_back(text, start)
    if before > 0 and text[before - 1] == ",":
        # The last member: the comma before it goes with it.
        return TextEdit(Span(before - 1, end), "")
    return TextEdit(Span(start, end), "")


def _skip_space(text: str, offset: int, *, newlines: bool = True) -> int:
    spaces = " \t\r\n" if newlines else " \t"
    while offset < len(text) and text[offset] in spaces:
        offset += 1
    return offset


def _skip_space_back(text: str, offset: int) -> int:
    while offset > 0 and text[offset - 1] in " \t\r\n":
        offset -= 1
    return offset


def append_elements(
    view: AnalysisView, location: Location, values: Sequence[Mapping[str, object]]
) -> TextEdit | None:
    """Append tables to the array at ``location`` (a top-level key), creating the key when
    the document has none: in TOML inline tables one per line (or ``[[key]]`` tables
    when the array is written that way), in JSON compact objects one per line."""
    source_map = view.parsed.source_map
    text = view.text
    entry = source_map.get(location)
    if entry is None:
        return _add_top_level(view, location[-1], list(values)) if len(location) == 1 else None
    if view.syntax == "toml" and text.startswith("[[", entry.value.start):
        return _append_tables(view, location, values)
    elements = [_element(view, v) for v in values]
    written = [w for w in elements if w is not None]
    if len(written) != len(elements):
        return None
    children = source_map.children(location)
    if not children:
        if text[entry.value.start : entry.value.end].strip() != "[]":
            return None
        indent = indentation(text, entry.value.start)
        inner = indent + (_json_unit(view) if view.syntax == "json" else "  ")
        comma = "," if view.syntax == "toml" else ""
        body = (",\n" if view.syntax == "json" else "\n").join(
            f"{inner}{w}{comma}" for w in written
        )
        return TextEdit(entry.value, f"[\n{body}\n{indent}]")
    last = source_map.get(children[-1])
    if last is None:
        return None
    after = _skip_space(text, last.value.end)
    multiline = "\n" in text[entry.value.start : last.value.start]
    indent = indentation(text, last.value.start) if multiline else ""
    if text[after : after + 1] == ",":
        # A trailing comma: the new elements keep that style.
        return TextEdit(Span(after + 1, after + 1), "".join(f"\n{indent}{w}," for w in written))
    separator = f",\n{indent}" if multiline else ", "
    return TextEdit(Span(last.value.end, last.value.end), "".join(separator + w for w in written))


def _element(view: AnalysisView, value: Mapping[str, object]) -> str | None:
    if view.syntax == "json":
        return json.dumps(value, ensure_ascii=False)
    try:
        return inline_toml(value)
    except ExportError:
        return None


def _append_tables(
    view: AnalysisView, location: Location, values: Sequence[Mapping[str, object]]
) -> TextEdit | None:
    source_map = view.parsed.source_map
    children = source_map.children(location)
    last = source_map.get(children[-1]) if children else None
    if last is None:
        return None
    header = "[[" + ".".join(write_key(str(part), "toml") for part in location) + "]]"
    tables = []
    for value in values:
        pairs = []
        for key, item in value.items():
            written = write_value(view, item)
            if written is None:
                return None
            pairs.append(f"{write_key(key, 'toml')} = {written}\n")
        tables.append("\n" + header + "\n" + "".join(pairs))
    end = line_end(view.text, last.value.end)
    prefix = "" if view.text[:end].endswith("\n") else "\n"
    return TextEdit(Span(end, end), prefix + "".join(tables))


def _add_top_level(
    view: AnalysisView, key: LocationPart, values: list[Mapping[str, object]]
) -> TextEdit | None:
    """A new top-level ``key`` holding ``values``: in TOML after the last top-level pair
    (before any table), in JSON after the last member."""
    source_map = view.parsed.source_map
    text = view.text
    pairs = [
        entry for child in source_map.children(()) if (entry := _pair(view, child)) is not None
    ]
    if view.syntax == "json":
        if not pairs:
            return None
        last = max(pairs, key=lambda e: e.value.end)
        indent = indentation(text, last.key.start) if last.key else _JSON_DEFAULT_INDENT
        written = write_value(view, values, indent)
        return TextEdit(
            Span(last.value.end, last.value.end),
            f",\n{indent}{write_key(str(key), 'json')}: {written}",
        )
    written = write_value(view, values)
    if written is None:
        return None
    line = f"{write_key(str(key), 'toml')} = {written}\n"
    tables = [
        table.value.start
        for child in source_map.children(())
        if (table := source_map.get(child)) is not None and _pair(view, child) is None
    ]
    if pairs:
        at = line_end(text, max(e.value.end for e in pairs))
        if tables and at > min(tables):
            at = line_start(text, min(tables))
    elif tables:
        at = line_start(text, min(tables))
    else:
        at = len(text)
    prefix = "" if at == 0 or text[at - 1] == "\n" else "\n"
    return TextEdit(Span(at, at), prefix + line)


def add_schema_property(
    view: AnalysisView, schema_key: str, name: str, schema: object
) -> TextEdit | None:
    """Declare ``name`` in the top-level schema ``schema_key`` (``input_schema``...).

    TOML: a ``properties.<name> = ...`` line at the end of the ``[schema_key]`` section,
    or a new section at the end of the document when there is none. JSON: a member at
    the start of the schema's ``properties`` object. None where the schema is written
    some other way (inline, without a ``properties`` object in JSON).
    """
    source_map = view.parsed.source_map
    text = view.text
    entry = source_map.get((schema_key,))
    if view.syntax == "json":
        props = source_map.get((schema_key, "properties"))
        if props is None or text[props.value.start : props.value.start + 1] != "{":
            return None
        written = write_value(view, schema, "")
        if written is None:
            return None
        empty = not source_map.children((schema_key, "properties"))
        member = f"{write_key(name, 'json')}: {written}" + ("" if empty else ", ")
        return TextEdit(Span(props.value.start + 1, props.value.start + 1), member)
    written = write_value(view, schema)
    if written is None:
        return None
    line = f"{write_key('properties', 'toml')}.{write_key(name, 'toml')} = {written}\n"
    if entry is None:
        prefix = "" if text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        return TextEdit(
            Span(len(text), len(text)), f'{prefix}[{schema_key}]\ntype = "object"\n{line}'
        )
    if not text.startswith("[", entry.value.start):
        return None  # written inline: leave it to the author
    at = line_end(text, entry.value.end)
    at = at + 1 if text[at : at + 1] == "\n" else at
    prefix = "" if at == 0 or text[at - 1] == "\n" else "\n"
    return TextEdit(Span(at, at), prefix + line)
