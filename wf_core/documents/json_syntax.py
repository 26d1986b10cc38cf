"""JSON front-end: tree-sitter tree (or recovery) → values + source map.

A clean tree is read directly. When the tree has errors the whole text is read
by a tolerant reader instead: JSON is one nested value, and a missing comma or
an open string near the top would otherwise cost everything below it. The
reader ends an open string at its line break, reports a missing comma and
carries on, and reports a trailing comma.

Invariants:

- Duplicate keys are reported; the first value is kept (as in TOML), so values
  and source map agree.
- Both readers stop descending at ``MAX_DEPTH`` and report it.
- The reader always advances: each loop iteration consumes a character or exits.
"""

from __future__ import annotations

import re
from typing import Any

from tree_sitter import Node, Tree

from wf_core.documents._offsets import ByteOffsets
from wf_core.documents.source_map import Entry, Kind, SourceMap, StringLiteral
from wf_core.documents.strings import Problem, scan_json_string
from wf_core.documents.toml_values import MAX_DEPTH
from wf_core.locations import Location
from wf_core.spans import Span

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_WORD = re.compile(r"[A-Za-z0-9_+\-.]+")
_WS = re.compile(r"[ \t\r\n]*")
_NON_FINITE = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


class _Sink:
    """Collects values, entries, strings and ranges for both readers."""

    def __init__(self) -> None:
        self.entries: dict[Location, Entry] = {}
        self.strings: dict[Location, StringLiteral] = {}
        self.occ: list[tuple[int, int, Location, bool]] = []
        self.problems: list[tuple[Span, str, Span | None]] = []

    def problem(self, span: Span, message: str, first: Span | None = None) -> None:
        self.problems.append((span, message, first))

    def extend(self, found: list[Problem]) -> None:
        self.problems.extend((span, message, None) for span, message in found)

    def member(
        self,
        target: dict[str, Any],
        loc: Location,
        key: StringLiteral,
        value: tuple[Any, Kind, Span, StringLiteral | None] | None,
        child: Location,
    ) -> None:
        name = key.value
        if value is None:
            self.occ.append((key.span.start, key.span.end, child, True))
            return
        if name in target:
            previous = self.entries.get(child)
            shown = name.replace("\\", "\\\\").replace("'", "\\'")
            self.problem(key.span, f"duplicate key '{shown}'", previous.key if previous else None)
            return
        python, kind, span, literal = value
        target[name] = python
        self.entries[child] = Entry(key.span, span, kind)
        self.occ.append((key.span.start, key.span.end, child, True))
        self.occ.append((span.start, span.end, child, False))
        if literal is not None:
            self.strings[child] = literal

    def element(self, loc: Location, value: tuple[Any, Kind, Span, StringLiteral | None]) -> None:
        _python, kind, span, literal = value
        self.entries[loc] = Entry(None, span, kind)
        self.occ.append((span.start, span.end, loc, False))
        if literal is not None:
            self.strings[loc] = literal


def parse_json(
    text: str, tree: Tree
) -> tuple[dict[str, Any], SourceMap, list[tuple[Span, str, Span | None]]]:
    sink = _Sink()
    root = tree.root_node
    top: tuple[Any, Kind, Span, StringLiteral | None] | None
    if root.has_error:
        reader = _Recovery(text, sink)
        top = reader.document()
    else:
        top = _TreeReader(text, ByteOffsets(text), sink).document(root)
    values: dict[str, Any] = {}
    if top is not None:
        if isinstance(top[0], dict):
            values = top[0]
        else:
            sink.problem(top[2], "a workflow document must be a JSON object")
    elif not sink.problems:
        sink.problem(Span(0, len(text)), "expected a JSON object")
    return values, SourceMap(sink.entries, sink.strings, sink.occ), sink.problems


def _number(word: str) -> tuple[Any, Kind] | None:
    match = _NUMBER.fullmatch(word)
    if match is None:
        return None
    if match.group(1) is None and match.group(2) is None:
        try:
            return int(word), Kind.NUMBER
        except ValueError:
            return None
    return float(word), Kind.NUMBER


class _TreeReader:
    def __init__(self, text: str, offsets: ByteOffsets, sink: _Sink) -> None:
        self.text = text
        self.char = offsets.char
        self.sink = sink

    def span(self, node: Node) -> Span:
        return Span(self.char(node.start_byte), self.char(node.end_byte))

    def document(self, root: Node) -> tuple[Any, Kind, Span, StringLiteral | None] | None:
        top = None
        for child in root.children:
            if child.type == "comment":
                self.sink.problem(self.span(child), "comments are not allowed in JSON")
            elif top is None:
                top = self.value(child, (), 0)
            else:
                self.sink.problem(self.span(child), "unexpected text after the document")
        return top

    def value(
        self, node: Node, loc: Location, depth: int
    ) -> tuple[Any, Kind, Span, StringLiteral | None] | None:
        kind = node.type
        span = self.span(node)
        if kind == "string":
            literal, found = scan_json_string(self.text, span.start, span.end)
            self.sink.extend(found)
            return literal.value, Kind.STRING, span, literal
        if kind == "number":
            word = self.text[span.start : span.end]
            number = _number(word)
            if number is None:
                self.sink.problem(span, f"invalid number '{word}'")
                return None
            return number[0], number[1], span, None
        if kind == "true":
            return True, Kind.BOOL, span, None
        if kind == "false":
            return False, Kind.BOOL, span, None
        if kind == "null":
            return None, Kind.NULL, span, None
        if depth >= MAX_DEPTH:
            self.sink.problem(Span(span.start, span.start + 1), "nesting is too deep")
            return None
        if kind == "object":
            out: dict[str, Any] = {}
            previous = ""
            for kid in node.children:
                kid_type = kid.type
                if kid_type == "pair":
                    self.pair(kid, out, loc, depth)
                elif kid_type == "comment":
                    self.sink.problem(self.span(kid), "comments are not allowed in JSON")
                    continue
                elif kid_type == "}" and previous == ",":
                    self.sink.problem(self.span(kid), "a trailing comma is not allowed in JSON")
                previous = kid_type
            return out, Kind.OBJECT, span, None
        if kind == "array":
            items: list[Any] = []
            previous = ""
            for kid in node.children:
                kid_type = kid.type
                if kid_type == "comment":
                    self.sink.problem(self.span(kid), "comments are not allowed in JSON")
                    continue
                if kid.is_named:
                    item_loc = (*loc, len(items))
                    item = self.value(kid, item_loc, depth + 1)
                    if item is not None:
                        items.append(item[0])
                        self.sink.element(item_loc, item)
                elif kid_type == "]" and previous == ",":
                    self.sink.problem(self.span(kid), "a trailing comma is not allowed in JSON")
                previous = kid_type
            return items, Kind.ARRAY, span, None
        self.sink.problem(span, "expected a JSON value")
        return None

    def pair(self, node: Node, out: dict[str, Any], loc: Location, depth: int) -> None:
        key_node = node.child_by_field_name("key")
        value_node = node.child_by_field_name("value")
        if key_node is None:
            return
        key_span = self.span(key_node)
        if key_node.type != "string":
            self.sink.problem(key_span, "a key must be a string")
            return
        key, found = scan_json_string(self.text, key_span.start, key_span.end)
        self.sink.extend(found)
        child = (*loc, key.value)
        value = self.value(value_node, child, depth + 1) if value_node is not None else None
        self.sink.member(out, loc, key, value, child)


class _Recovery:
    def __init__(self, text: str, sink: _Sink) -> None:
        self.text = text
        self.end = len(text)
        self.pos = 0
        self.sink = sink
        self.abort = False
        self.open_string = False

    def problem(self, start: int, end: int, message: str) -> None:
        self.sink.problem(Span(start, max(start, end)), message)

    def skip_ws(self) -> None:
        text = self.text
        while True:
            self.pos = _WS.match(text, self.pos).end()  # type: ignore[union-attr]
            if text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                end = self.end if end < 0 else end
                self.problem(self.pos, end, "comments are not allowed in JSON")
                self.pos = end
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                end = self.end if end < 0 else end + 2
                self.problem(self.pos, end, "comments are not allowed in JSON")
                self.pos = end
            else:
                return

    def document(self) -> tuple[Any, Kind, Span, StringLiteral | None] | None:
        self.skip_ws()
        top = self.value((), 0)
        if top is None and self.pos < self.end and not self.abort:
            self.problem(self.pos, self.pos + 1, "expected a JSON object")
        self.skip_ws()
        if self.pos < self.end and not self.abort:
            self.problem(self.pos, self.end, "unexpected text after the document")
        return top

    def value(
        self, loc: Location, depth: int
    ) -> tuple[Any, Kind, Span, StringLiteral | None] | None:
        text = self.text
        pos = self.pos
        self.open_string = False
        if pos >= self.end:
            return None
        ch = text[pos]
        if ch == '"':
            literal, found = scan_json_string(text, pos, self.end)
            self.sink.extend(found)
            self.pos = literal.span.end
            self.open_string = not literal.closed
            return literal.value, Kind.STRING, literal.span, literal
        if ch in "{[":
            if depth >= MAX_DEPTH:
                self.problem(pos, pos + 1, "nesting is too deep")
                self.abort = True
                self.pos = self.end
                return None
            return self.object(loc, depth + 1) if ch == "{" else self.array(loc, depth + 1)
        match = _WORD.match(text, pos)
        if match is None:
            return None
        word = match.group()
        self.pos = match.end()
        span = Span(pos, match.end())
        if word in ("true", "false"):
            return word == "true", Kind.BOOL, span, None
        if word == "null":
            return None, Kind.NULL, span, None
        number = _number(word)
        if number is not None:
            return number[0], number[1], span, None
        if word in _NON_FINITE:
            self.problem(span.start, span.end, f"'{word}' is not valid JSON")
            return _NON_FINITE[word], Kind.NUMBER, span, None
        what = "number" if word[0] in "-0123456789" else "value"
        self.problem(span.start, span.end, f"invalid {what} '{word}'")
        return None

    def skip_junk(self, stops: str, message: str) -> None:
        text = self.text
        pos = self.pos + 1
        while pos < self.end and text[pos] not in stops:
            pos += 1
        self.problem(self.pos, pos, message)
        self.pos = pos

    def object(self, loc: Location, depth: int) -> tuple[Any, Kind, Span, StringLiteral | None]:
        text = self.text
        start = self.pos
        self.pos += 1
        out: dict[str, Any] = {}
        previous = "{"
        while not self.abort:
            self.skip_ws()
            if self.pos >= self.end:
                self.problem(start, start + 1, "object is not closed")
                break
            ch = text[self.pos]
            if ch == "}":
                if previous == ",":
                    self.problem(self.pos - 1, self.pos, "a trailing comma is not allowed in JSON")
                self.pos += 1
                break
            if ch == ",":
                self.problem(self.pos, self.pos + 1, "expected a key before ','")
                self.pos += 1
                previous = ","
                continue
            if ch == "]":
                self.problem(self.pos, self.pos + 1, "unexpected ']' in an object")
                self.pos += 1
                continue
            if ch != '"':
                self.skip_junk(',}"\n', "expected a quoted key")
                continue
            if previous not in ("{", ",") and not self.open_string:
                self.problem(self.pos, self.pos + 1, "expected ',' between members")
            key, found = scan_json_string(text, self.pos, self.end)
            self.sink.extend(found)
            self.pos = key.span.end
            child = (*loc, key.value)
            self.skip_ws()
            value = None
            if self.pos < self.end and text[self.pos] == ":":
                colon = self.pos
                self.pos += 1
                self.skip_ws()
                before = self.pos
                value = self.value(child, depth)
                if value is None and self.pos == before:
                    self.problem(colon, colon + 1, f"missing value for key '{key.value}'")
            else:
                self.problem(key.span.start, key.span.end, f"expected ':' after key '{key.value}'")
                self.open_string = False
            self.sink.member(out, loc, key, value, child)
            self.skip_ws()
            if self.pos < self.end and text[self.pos] == ",":
                self.pos += 1
                previous = ","
                self.open_string = False
            else:
                previous = "value"
        return out, Kind.OBJECT, Span(start, self.pos), None

    def array(self, loc: Location, depth: int) -> tuple[Any, Kind, Span, StringLiteral | None]:
        text = self.text
        start = self.pos
        self.pos += 1
        items: list[Any] = []
        previous = "["
        while not self.abort:
            self.skip_ws()
            if self.pos >= self.end:
                self.problem(start, start + 1, "array is not closed")
                break
            ch = text[self.pos]
            if ch == "]":
                if previous == ",":
                    self.problem(self.pos - 1, self.pos, "a trailing comma is not allowed in JSON")
                self.pos += 1
                break
            if ch == ",":
                self.problem(self.pos, self.pos + 1, "expected a value before ','")
                self.pos += 1
                previous = ","
                continue
            if ch == "}":
                self.problem(self.pos, self.pos + 1, "unexpected '}' in an array")
                self.pos += 1
                continue
            if previous not in ("[", ",") and not self.open_string:
                self.problem(self.pos, self.pos + 1, "expected ',' between array elements")
            item_loc = (*loc, len(items))
            before = self.pos
            item = self.value(item_loc, depth)
            if item is not None:
                items.append(item[0])
                self.sink.element(item_loc, item)
            elif self.pos == before:
                self.skip_junk(",]}\n", "expected a value")
            self.skip_ws()
            if self.pos < self.end and text[self.pos] == ",":
                self.pos += 1
                previous = ","
                self.open_string = False
            else:
                previous = "value"
        return items, Kind.ARRAY, Span(start, self.pos), None
