"""JSON front-end: tree-sitter tree (or recovery) → values + source map.

A clean tree is read directly. When the tree has errors the whole text is read
by a tolerant reader instead: JSON is one nested value, and a missing comma or
an open string near the top would otherwise cost everything below it. The
reader ends an open string at its line break, reports a missing comma and
carries on, and reports a trailing comma.

Reuse (see ``Chunk``): the units of a workflow document are the value of each
top-level member and, for the large arrays (``CHUNKED_ARRAYS``), each element
instead of the whole array. A unit that is an object or array is converted into
a ``JsonChunk`` from its text alone, cached by that text, and placed again by
the next version that contains the same text: only units whose text changed are
converted. A chunk holds what lies *inside* its value; the unit's own entry
(its key, its range) is global, so a placed chunk never needs shifting.

Chunks come in two flavours:

- *strict*: the text is valid JSON without duplicate keys or surrogate escapes and
  nests less than ``MAX_DEPTH`` allows where it is used. ``json.loads`` builds the values, and
  entries and ranges are read only when first asked for. Either reader reads
  such a text exactly as ``json.loads`` does and ends exactly at its closing
  bracket, so the tolerant reader may place one too: when tree-sitter's tree
  has errors, the clean objects and arrays of that tree are candidates (by
  start offset), and where the tolerant reader is about to read a unit that
  starts at a candidate whose text is strict, it places the chunk and jumps
  to its end. A broken node therefore costs the re-reading of that node only.
- *general*: any other unit of a clean tree, converted by the tree reader (with
  its problems, relative to the unit). Used only for clean trees, where it is
  what the tree reader would produce in place.

Invariants:

- Duplicate keys are reported; the first value is kept (as in TOML), so values
  and source map agree: a duplicate's value is read for its problems only.
- Both readers stop descending at ``MAX_DEPTH`` and report it. A chunk is used
  only where its whole nesting fits (``JsonChunk.nesting``), so it never
  depends on the depth it is used at.
- The reader always advances: each loop iteration consumes a character or exits.
- Identity: a reused chunk's value is the very object of the previous version
  (an unchanged element of ``nodes`` is the same ``dict``). It is shared between
  versions and never mutated: readers only ever build new containers.
- Entries are recorded after the values inside them (the order of both readers),
  and a chunk's entries are in that same order, so ``SourceMap.items`` does not
  depend on which units were chunks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (imported when a text needs a tree: see ``parser._language``)
    from tree_sitter import Node, Tree

from wf_core.base.locations import Location, LocationPart
from wf_core.base.spans import Span
from wf_core.documents._offsets import ByteOffsets
from wf_core.documents._recovery import RecoveryCursor
from wf_core.documents.source_map import (
    Chunk,
    Compact,
    Kind,
    Occurrence,
    Placement,
    SourceMap,
    StringLiteral,
    shift_literal,
)
from wf_core.documents.strings import Problem, scan_json_string
from wf_core.documents.toml_values import MAX_DEPTH

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_WORD = re.compile(r"[A-Za-z0-9_+\-.]+")
_WS = re.compile(r"[ \t\r\n]*")
_NON_FINITE = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}

# Top-level members whose array value is reused element by element.
CHUNKED_ARRAYS = frozenset({"nodes", "edges", "node_defs", "output"})

# A read value: (python value, kind, start, end, string literal or None).
Value = tuple[object, Kind, int, int, StringLiteral | None]
JsonProblem = tuple[Span, str, Span | None]


class JsonChunk(Chunk):
    """One object or array value converted once, relative to its opening bracket.

    ``entries``/``occ`` hold the locations inside the value, relative to the
    value's own location (the placement's ``table_loc``).
    """

    __slots__ = ("kind", "nesting", "strict", "value")

    def __init__(self, text: str, value: object, nesting: int, strict: bool) -> None:
        super().__init__(text)
        self.value = value
        self.kind = Kind.OBJECT if text.startswith("{") else Kind.ARRAY
        # Brackets in the text: at least how deep the value nests.
        self.nesting = nesting
        self.strict = strict


class _Duplicate(Exception):
    pass


def _pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    table = dict(pairs)
    if len(table) != len(pairs):
        raise _Duplicate  # json.loads would keep the last value; the readers keep the first
    return table


def _no_constant(word: str) -> object:
    raise ValueError(word)


_STRICT = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_no_constant)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _strict_chunk(source: str, nesting: int) -> JsonChunk | None:
    """A chunk for a strict text (see module doc); None if the text is not strict.

    A text with a surrogate escape is not strict: ``json.loads`` keeps a lone one,
    which the readers read as U+FFFD (``scan_json_string``)."""
    if "\\u" in source and _SURROGATE_ESCAPE.search(source) is not None:
        return None
    try:
        value = _STRICT.decode(source)
    except (ValueError, _Duplicate, RecursionError):
        return None
    chunk = JsonChunk(source, value, nesting, True)
    chunk.derived = True
    chunk.entries = None  # type: ignore[assignment]
    chunk.fill = _fill_strict
    return chunk


# One token of strict JSON text, after blanks: a string (group 1; group 2 is a
# following colon: the string is a key), a number or literal word (group 3), an
# opening bracket (group 4), a closing bracket (group 5) or a comma.
_TOKEN = re.compile(
    r'[ \t\r\n]*(?:("[^"\\]*(?:\\.[^"\\]*)*")[ \t\r\n]*(:)?'
    r"|([-0-9a-z][-+.0-9a-zA-Z]*)|([{\[])|([}\]])|,)"
)
_WORD_KINDS = {"true": Kind.BOOL, "false": Kind.BOOL, "null": Kind.NULL}


def _fill_strict(chunk: Chunk) -> tuple[dict[Location, Compact], list[Occurrence]]:
    """Entries of a strict chunk, read again from its text by a token loop.

    Strict text has no problems, no duplicate and no key without a value, so a
    tokenizer suffices, and every range is some entry's key or value range
    (``Chunk.derived``). Entries come in the readers' order: a value's after
    everything inside it. (The property tests compare with reading in place.)
    """
    text = chunk.text
    entries: dict[Location, Compact] = {}
    tokens = _TOKEN.finditer(text)
    # The chunk's own opening bracket; its entry is global, not the chunk's.
    is_object = next(tokens).group(4) == "{"
    loc: Location = ()
    key: LocationPart = ""
    ks = ke = -1
    index = 0
    # The containers around ``loc``: their state, restored when it closes.
    stack: list[tuple[Location, bool, LocationPart, int, int, int, int]] = []
    for match in tokens:
        if match.lastindex is None:
            continue  # a comma
        string, colon, word, opening, closing = match.groups()
        if closing is not None:
            if not stack:
                break
            parent, is_object, key, ks, ke, index, start = stack.pop()
            kind = Kind.OBJECT if closing == "}" else Kind.ARRAY
            entries[loc] = (ks, ke, start, match.end(), kind, None)
            loc = parent
            continue
        if colon is not None:
            ks, ke = match.span(1)
            key = string[1:-1] if "\\" not in string else scan_json_string(text, ks, ke)[0].value
            continue
        if is_object:
            child: Location = (*loc, key)
            key_start, key_end = ks, ke
        else:
            child = (*loc, index)
            index += 1
            key_start = key_end = -1
        if opening is not None:
            stack.append((loc, is_object, key, key_start, key_end, index, match.start(4)))
            loc, is_object, index = child, opening == "{", 0
        elif string is not None:
            vs, ve = match.span(1)
            literal: StringLiteral | str = "json"
            if "\\" in string:
                scanned = scan_json_string(text, vs, ve)[0]
                if scanned._dec:
                    literal = scanned
            entries[child] = (key_start, key_end, vs, ve, Kind.STRING, literal)
        elif word is not None:
            vs, ve = match.span(3)
            kind = _WORD_KINDS.get(word, Kind.NUMBER)
            entries[child] = (key_start, key_end, vs, ve, kind, None)
    return entries, []


def _relative_entries(sink: _Sink, base: int) -> dict[Location, Compact]:
    entries: dict[Location, Compact] = {}
    for loc, (ks, ke, vs, ve, kind, literal) in sink.entries.items():
        if isinstance(literal, StringLiteral):  # (the sink's are literals or None)
            # Without escapes the value is the text between the quotes.
            literal = (
                literal.style
                if literal.closed and not literal._dec
                else shift_literal(literal, -base)
            )
        entries[loc] = (
            ks - base if ks >= 0 else -1,
            ke - base if ks >= 0 else -1,
            vs - base,
            ve - base,
            kind,
            literal,
        )
    return entries


class _Chunks:
    """The chunk cache of one version: the previous version's chunks in, the used ones out."""

    __slots__ = ("previous", "text", "used")

    def __init__(self, text: str, previous: dict[str, Chunk]) -> None:
        self.text = text
        self.previous = previous
        self.used: dict[str, Chunk] = {}

    def place(
        self,
        sink: _Sink,
        start: int,
        end: int,
        loc: Location,
        depth: int,
        reader: _TreeReader | None = None,
        node: Node | None = None,
    ) -> Value | None:
        """Place the unit ``text[start:end]`` at ``loc``; None if it cannot be a chunk.

        With the tree reader and the unit's (clean) node, a unit that is not
        strict gets a general chunk; without them only strict chunks are placed.
        """
        source = self.text[start:end]
        used = self.used
        chunk: JsonChunk | None
        # A text repeated verbatim gets a chunk (and a value) of its own.
        chunk = None if source in used else self.previous.get(source)  # type: ignore[assignment]
        if chunk is not None:
            if chunk.nesting + depth > MAX_DEPTH or (reader is None and not chunk.strict):
                return None
        else:
            nesting = source.count("{") + source.count("[")
            if nesting + depth > MAX_DEPTH:
                return None
            chunk = _strict_chunk(source, nesting)
            if chunk is None:
                if reader is None:
                    return None
                chunk = reader.general_chunk(node, source, start, depth, nesting)  # type: ignore[arg-type]
        if source not in used:
            used[source] = chunk
        sink.place(chunk, start, loc)
        return chunk.value, chunk.kind, start, end, None


class _Sink:
    """Collects values, entries, strings and ranges for both readers."""

    __slots__ = ("entries", "occ", "placements", "problems", "starts", "strings")

    def __init__(self) -> None:
        # Entries as compacts; their literal is also in ``strings``.
        self.entries: dict[Location, Compact] = {}
        self.strings: dict[Location, StringLiteral] = {}
        self.occ: list[Occurrence] = []
        self.problems: list[JsonProblem] = []
        self.placements: list[Placement] = []
        self.starts: list[int] = []  # where each placement begins

    def problem(self, span: Span, message: str, first: Span | None = None) -> None:
        self.problems.append((span, message, first))

    def extend(self, found: list[Problem]) -> None:
        self.problems.extend((span, message, None) for span, message in found)

    def member(
        self, target: dict[str, object], key: StringLiteral, value: Value | None, child: Location
    ) -> None:
        ks, ke = key.span.start, key.span.end
        self.occ.append((ks, ke, child, True))
        if value is None:
            return
        python, kind, start, end, literal = value
        target[key.value] = python
        self.entries[child] = (ks, ke, start, end, kind, literal)
        self.occ.append((start, end, child, False))
        if literal is not None:
            self.strings[child] = literal

    def duplicate(self, key: StringLiteral, value: Value | None, child: Location) -> None:
        """A key already in its object: reported once it has a value, else only a range."""
        if value is None:
            self.occ.append((key.span.start, key.span.end, child, True))
            return
        previous = self.entries.get(child)
        shown = key.value.replace("\\", "\\\\").replace("'", "\\'")
        first = Span(previous[0], previous[1]) if previous is not None else None
        self.problem(key.span, f"duplicate key '{shown}'", first)

    def element(self, loc: Location, value: Value) -> None:
        _python, kind, start, end, literal = value
        self.entries[loc] = (-1, -1, start, end, kind, literal)
        self.occ.append((start, end, loc, False))
        if literal is not None:
            self.strings[loc] = literal

    def place(self, chunk: Chunk, base: int, loc: Location) -> None:
        self.placements.append(Placement(chunk, loc, len(self.entries)))
        self.starts.append(base)
        for start, end, message, first in chunk.problems:
            self.problems.append(
                (
                    Span(start + base, end + base),
                    message,
                    None if first is None else Span(first[0] + base, first[1] + base),
                )
            )


def parse_json(
    text: str, tree: Tree, chunks: dict[str, Chunk] | None = None
) -> tuple[dict[str, object], SourceMap, list[JsonProblem], dict[str, Chunk]]:
    """Values, source map and problems of ``text``; also the chunks it used.

    ``chunks`` holds the units converted for an earlier version, keyed by their
    text; the returned dict holds those this version used, for the next.
    """
    sink = _Sink()
    not_json = not_a_json_document(text)
    if not_json is not None:
        # One mistake (the wrong format, or the wrong file name), one error: reading
        # the text as JSON anyway would report every line of it.
        sink.problem(*not_json)
        return {}, SourceMap({}, {}, [], [], [len(text)]), sink.problems, {}
    cache = _Chunks(text, chunks or {})
    root = tree.root_node
    offsets = ByteOffsets(text)
    top: Value | None
    if root.has_error:
        hints = _clean_containers(root, offsets)
        top = _Recovery(text, sink, cache, hints).document()
    else:
        top = _TreeReader(text, offsets, sink, cache).document(root)
    values: dict[str, object] = {}
    if top is not None:
        if isinstance(top[0], dict):
            values = top[0]
        else:
            sink.problem(Span(top[2], top[3]), "a workflow document must be a JSON object")
    elif not sink.problems:
        sink.problem(Span(0, len(text)), "expected a JSON object")
    starts = [*sink.starts, len(text)]
    source_map = SourceMap(sink.entries, sink.strings, sink.occ, sink.placements, starts)
    return values, source_map, sink.problems, cache.used


# What a JSON value may start with; a document starting otherwise is not JSON at all.
_JSON_START = re.compile(r'[\s\ufeff]*(?:[{\["\-0-9]|true\b|false\b|null\b|//|/\*|$)')
# A first line TOML has and JSON cannot: a comment, a ``[table]`` header, ``key =``.
_KEY = r"""(?:[A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*')"""
_DOTTED = rf"{_KEY}(?:[ \t]*\.[ \t]*{_KEY})*"
_TOML_LINE = re.compile(
    rf"[\s\ufeff]*(?:\#|\[\[?[ \t]*{_DOTTED}[ \t]*\]\]?[ \t]*(?:\#.*)?$|{_DOTTED}[ \t]*=)",
    re.MULTILINE,
)


def not_a_json_document(text: str) -> tuple[Span, str] | None:
    """The one syntax error of a text that is not JSON at all, on its first line (None for
    a text that starts like JSON). TOML text is named as such: it belongs in a
    ``.wf.toml`` file."""
    toml = _TOML_LINE.match(text) is not None
    if not toml and _JSON_START.match(text):
        return None
    start = len(text) - len(text.lstrip("\ufeff \t\r\n"))
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    span = Span(start, max(start, len(text[:end].rstrip())))
    if toml:
        return span, (
            "this is TOML, not JSON: a TOML workflow belongs in a .wf.toml file "
            "(a .wf.json file holds one JSON object)"
        )
    return span, "this is not JSON: a .wf.json file holds one JSON object, starting with '{'"


def _is_unit(loc: Location, opening: str) -> bool:
    """Whether a container value at ``loc`` is a unit of reuse (see module doc)."""
    if len(loc) == 1:
        return type(loc[0]) is str and not (opening == "[" and loc[0] in CHUNKED_ARRAYS)
    return len(loc) == 2 and type(loc[1]) is int and loc[0] in CHUNKED_ARRAYS


def _clean_containers(root: Node, offsets: ByteOffsets) -> dict[int, int]:
    """Start → end of the error-free objects and arrays where units may be.

    Descends into every node with an error, but into a clean container only
    where units are below it: the document's own object (the first container
    under the root) and arrays that are member values of an object being
    descended. So the cost is that of the units and the broken parts, not of
    the whole tree, however tree-sitter's recovery arranged the rest.
    """
    char = offsets.char
    found: dict[int, int] = {}
    stack: list[tuple[Node, int]] = [(root, 0)]
    top = True
    while stack:
        node, level = stack.pop()
        for kid in node.children:
            kind = kid.type
            if kind == "object" or kind == "array":
                if kid.has_error:
                    stack.append((kid, level + 1))
                else:
                    found[char(kid.start_byte)] = char(kid.end_byte)
                    if (top and node is root) or (level == 1 and kind == "array"):
                        stack.append((kid, level + 1))
                if node is root:
                    top = False
            elif kind == "pair" or kid.has_error:
                stack.append((kid, level))
    return found


def _number(word: str) -> tuple[object, Kind] | None:
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
    def __init__(
        self, text: str, offsets: ByteOffsets, sink: _Sink, chunks: _Chunks | None = None
    ) -> None:
        self.text = text
        self.offsets = offsets
        self.char = offsets.char
        self.sink = sink
        self.chunks = chunks

    def span(self, node: Node) -> Span:
        return Span(self.char(node.start_byte), self.char(node.end_byte))

    def document(self, root: Node) -> Value | None:
        top = None
        for child in root.children:
            if child.type == "comment":
                self.sink.problem(self.span(child), "comments are not allowed in JSON")
            elif top is None:
                top = self.value(child, (), 0)
            else:
                self.sink.problem(self.span(child), "unexpected text after the document")
        return top

    def general_chunk(
        self, node: Node, source: str, start: int, depth: int, nesting: int
    ) -> JsonChunk:
        """The chunk of a clean container that is not strict: what this reader reads."""
        sink = _Sink()
        value = _TreeReader(self.text, self.offsets, sink).value(node, (), depth)
        assert value is not None  # a container always has a value within MAX_DEPTH
        chunk = JsonChunk(source, value[0], nesting, False)
        chunk.entries = _relative_entries(sink, start)
        chunk.occ = [(s - start, e - start, loc, key) for s, e, loc, key in sink.occ]
        chunk.problems = [
            (
                span.start - start,
                span.end - start,
                message,
                None if first is None else (first.start - start, first.end - start),
            )
            for span, message, first in sink.problems
        ]
        return chunk

    def value(
        self, node: Node, loc: Location, depth: int, unit: bool = False, items: bool = False
    ) -> Value | None:
        """The value of ``node``; ``unit``: it is a unit, ``items``: its elements are."""
        kind = node.type
        start, end = self.char(node.start_byte), self.char(node.end_byte)
        if unit and (kind == "object" or kind == "array") and self.chunks is not None:
            placed = self.chunks.place(self.sink, start, end, loc, depth, self, node)
            if placed is not None:
                return placed
        if kind == "string":
            literal, found = scan_json_string(self.text, start, end)
            if found:
                self.sink.extend(found)
            return literal.value, Kind.STRING, start, end, literal
        if kind == "number":
            word = self.text[start:end]
            number = _number(word)
            if number is None:
                self.sink.problem(Span(start, end), f"invalid number '{word}'")
                return None
            return number[0], number[1], start, end, None
        if kind == "true":
            return True, Kind.BOOL, start, end, None
        if kind == "false":
            return False, Kind.BOOL, start, end, None
        if kind == "null":
            return None, Kind.NULL, start, end, None
        if depth >= MAX_DEPTH:
            self.sink.problem(Span(start, start + 1), "nesting is too deep")
            return None
        if kind == "object":
            out: dict[str, object] = {}
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
            return out, Kind.OBJECT, start, end, None
        if kind == "array":
            values: list[object] = []
            previous = ""
            element = self.sink.element
            for kid in node.children:
                kid_type = kid.type
                if kid_type == "comment":
                    self.sink.problem(self.span(kid), "comments are not allowed in JSON")
                    continue
                if kid.is_named:
                    item_loc = (*loc, len(values))
                    item = self.value(kid, item_loc, depth + 1, items)
                    if item is not None:
                        values.append(item[0])
                        element(item_loc, item)
                elif kid_type == "]" and previous == ",":
                    self.sink.problem(self.span(kid), "a trailing comma is not allowed in JSON")
                previous = kid_type
            return values, Kind.ARRAY, start, end, None
        self.sink.problem(Span(start, end), "expected a JSON value")
        return None

    def pair(self, node: Node, out: dict[str, object], loc: Location, depth: int) -> None:
        key_node = node.child_by_field_name("key")
        value_node = node.child_by_field_name("value")
        if key_node is None:
            return
        key_span = self.span(key_node)
        if key_node.type != "string":
            self.sink.problem(key_span, "a key must be a string")
            return
        key, found = scan_json_string(self.text, key_span.start, key_span.end)
        if found:
            self.sink.extend(found)
        name = key.value
        child = (*loc, name)
        if name in out:
            value = None
            if value_node is not None:
                value = self.quietly(lambda: self.value(value_node, child, depth + 1))
            self.sink.duplicate(key, value, child)
            return
        value = None
        if value_node is not None:
            if depth == 0 and self.chunks is not None:
                items = name in CHUNKED_ARRAYS and value_node.type == "array"
                value = self.value(value_node, child, 1, not items, items)
            else:
                value = self.value(value_node, child, depth + 1)
        self.sink.member(out, key, value, child)

    def quietly(self, read: Callable[[], Value | None]) -> Value | None:
        """``read()`` with only its problems kept (for a duplicate key's value)."""
        sink, chunks = self.sink, self.chunks
        self.sink, self.chunks = _Sink(), None
        try:
            return read()
        finally:
            sink.problems.extend(self.sink.problems)
            self.sink, self.chunks = sink, chunks


class _Recovery(RecoveryCursor):
    def __init__(
        self,
        text: str,
        sink: _Sink,
        chunks: _Chunks | None = None,
        candidates: dict[int, int] | None = None,
    ) -> None:
        self.text = text
        self.end = len(text)
        self.pos = 0
        self.sink = sink
        self.abort = False
        self.open_string = False
        self.chunks = chunks
        # Start → end of clean containers of the tree: where a chunk may be placed.
        self.candidates = candidates

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

    def document(self) -> Value | None:
        self.skip_ws()
        top = self.value((), 0)
        if top is None and self.pos < self.end and not self.abort:
            self.problem(self.pos, self.pos + 1, "expected a JSON object")
        self.skip_ws()
        if self.pos < self.end and not self.abort:
            self.problem(self.pos, self.end, "unexpected text after the document")
        return top

    def value(self, loc: Location, depth: int) -> Value | None:
        text = self.text
        pos = self.pos
        self.open_string = False
        if pos >= self.end:
            return None
        ch = text[pos]
        if ch == '"':
            literal, found = scan_json_string(text, pos, self.end)
            if found:
                self.sink.extend(found)
            self.pos = literal.span.end
            self.open_string = not literal.closed
            return literal.value, Kind.STRING, pos, literal.span.end, literal
        if ch in "{[":
            if depth >= MAX_DEPTH:
                self.problem(pos, pos + 1, "nesting is too deep")
                self.abort = True
                self.pos = self.end
                return None
            if self.candidates is not None:
                end = self.candidates.get(pos)
                if end is not None and self.chunks is not None and _is_unit(loc, ch):
                    # Strict text is read to its closing bracket, so placing
                    # its chunk and jumping there is reading it.
                    placed = self.chunks.place(self.sink, pos, end, loc, depth)
                    if placed is not None:
                        self.pos = end
                        return placed
            return self.object(loc, depth + 1) if ch == "{" else self.array(loc, depth + 1)
        match = _WORD.match(text, pos)
        if match is None:
            return None
        word = match.group()
        end = match.end()
        self.pos = end
        if word in ("true", "false"):
            return word == "true", Kind.BOOL, pos, end, None
        if word == "null":
            return None, Kind.NULL, pos, end, None
        number = _number(word)
        if number is not None:
            return number[0], number[1], pos, end, None
        if word in _NON_FINITE:
            self.problem(pos, end, f"'{word}' is not valid JSON")
            return _NON_FINITE[word], Kind.NUMBER, pos, end, None
        what = "number" if word[0] in "-0123456789" else "value"
        self.problem(pos, end, f"invalid {what} '{word}'")
        return None

    def object(self, loc: Location, depth: int) -> Value:
        text = self.text
        start = self.pos
        self.pos += 1
        out: dict[str, object] = {}
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
            if found:
                self.sink.extend(found)
            self.pos = key.span.end
            child = (*loc, key.value)
            duplicate = key.value in out
            self.skip_ws()
            value = None
            if self.pos < self.end and text[self.pos] == ":":
                colon = self.pos
                self.pos += 1
                self.skip_ws()
                before = self.pos
                if duplicate:
                    value = self.quietly(lambda: self.value(child, depth))  # noqa: B023
                else:
                    value = self.value(child, depth)
                if value is None and self.pos == before:
                    if self.pos >= self.end or text[self.pos] in ',}"\n':
                        self.problem(colon, colon + 1, f"missing value for key '{key.value}'")
                    else:  # ``"node": = "x"``: one mistake, reported once
                        self.skip_junk(",}]\n", f"expected a value for key '{key.value}'")
            else:
                self.problem(key.span.start, key.span.end, f"expected ':' after key '{key.value}'")
                self.open_string = False
            if duplicate:
                self.sink.duplicate(key, value, child)
            else:
                self.sink.member(out, key, value, child)
            self.skip_ws()
            if self.pos < self.end and text[self.pos] == ",":
                self.pos += 1
                previous = ","
                self.open_string = False
            else:
                previous = "value"
        return out, Kind.OBJECT, start, self.pos, None

    def quietly(self, read: Callable[[], Value | None]) -> Value | None:
        """``read()`` with only its problems kept (for a duplicate key's value)."""
        sink, candidates = self.sink, self.candidates
        self.sink, self.candidates = _Sink(), None
        try:
            return read()
        finally:
            sink.problems.extend(self.sink.problems)
            self.sink, self.candidates = sink, candidates

    def array(self, loc: Location, depth: int) -> Value:
        text = self.text
        start = self.pos
        self.pos += 1
        items: list[object] = []
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
        return items, Kind.ARRAY, start, self.pos, None
