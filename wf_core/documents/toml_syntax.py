"""TOML front-end: tree-sitter tree (or recovery) → statements → values.

tree-sitter gives the structure of everything it parsed cleanly. Where its tree
has errors, its recovery is often poor for TOML (an open string can swallow the
next ``[[nodes]]`` header), so each run of broken top-level statements is read
again from the text by a tolerant line-oriented reader that knows TOML: an open
string ends at its line, an open inline table at its line, an open array at the
next line that looks like ``key =`` or a header. Both readers emit the same
statements, so the same table rules apply to both.

Clean top-level nodes (a ``[table]``/``[[array]]`` section or a top-level pair)
are converted as a whole into a ``Chunk`` from their text alone, by the fast
reader (``toml_chunks``) or else the general way below, and cached by that text:
the next version places the same chunk again instead of converting it, and the
table rules run per section on the placed chunks (``TomlBuilder.add_section``).
A clean node next to a recovery region is split into its statements first, so
recovery sees exactly the statements it always did.

Invariants:

- A recovery region starts at a line start and ends at a line end, and every
  statement tree-sitter parsed cleanly on those lines is inside it: the reader
  always starts in statement position.
- The recovery reader always advances: every loop iteration consumes at least
  one character or leaves the loop.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:  # (imported when a text needs a tree: see ``parser._language``)
    from tree_sitter import Node, Tree

from wf_core.base.spans import Span
from wf_core.documents._offsets import ByteOffsets
from wf_core.documents._recovery import RecoveryCursor
from wf_core.documents.source_map import Chunk, Kind
from wf_core.documents.strings import Problem, scan_toml_string
from wf_core.documents.toml_chunks import BARE, BLANK, WS, read_chunk
from wf_core.documents.toml_tables import (
    Converted,
    Fallback,
    TomlBuilder,
    converted,
    place_chunk,
    reuse_chunk,
)
from wf_core.documents.toml_values import (
    CONTROL,
    MAX_DEPTH,
    ArrayNode,
    Header,
    InlineTable,
    KeyPart,
    Pair,
    Scalar,
    Statement,
    Value,
    classify,
    format_key,
    has_control_characters,
)

_SCALAR_TYPES = frozenset(
    {
        "integer",
        "float",
        "boolean",
        "offset_date_time",
        "local_date_time",
        "local_date",
        "local_time",
    }
)


def parse_toml(text: str, tree: Tree, chunks: dict[str, Chunk] | None = None) -> Converted:
    """Values, source map and problems of ``text``; also the chunks it used.

    ``chunks`` holds the statements converted for an earlier version, keyed by
    their text; the returned dict holds those this version used, for the next.
    """
    try:
        return _parse(text, tree, chunks or {}, use_chunks=True)
    except Fallback:
        return _parse(text, tree, {}, use_chunks=False)


def _parse(text: str, tree: Tree, chunks: dict[str, Chunk], *, use_chunks: bool) -> Converted:
    problems: list[Problem] = []
    offsets = ByteOffsets(text)
    reader = _TreeReader(text, offsets, problems)
    builder = TomlBuilder()
    used: dict[str, Chunk] = {}
    _run(text, tree, reader, builder, problems, chunks, used, use_chunks)
    _stray_controls(text, problems)
    return converted(text, builder, problems, used)


_MAX_CONTROL_REPORTS = 100


def _stray_controls(text: str, problems: list[Problem]) -> None:
    """Report control characters (and a CR without LF) that no reader reported.

    TOML allows them nowhere outside strings, and tree-sitter skips some of
    them as whitespace; string scanning already reports those inside strings.
    At most ``_MAX_CONTROL_REPORTS`` are reported, so binary junk stays cheap.
    """
    if not has_control_characters(text):
        return
    covered = sorted((span.start, span.end) for span, _message in problems)
    starts = [start for start, _end in covered]
    reach: list[int] = []  # furthest end among spans starting at or before each index
    furthest = -1
    for _start, end in covered:
        furthest = max(furthest, end)
        reach.append(furthest)
    reported = 0
    for match in CONTROL.finditer(text):
        at = match.start()
        i = bisect.bisect_right(starts, at) - 1
        if i >= 0 and reach[i] > at:
            continue
        char = match.group()
        if char == "\r":
            name = "a carriage return without a line feed"
        else:
            name = f"control character U+{ord(char):04X}"
        problems.append((Span(at, at + 1), f"{name} is not allowed here"))
        reported += 1
        if reported >= _MAX_CONTROL_REPORTS:
            return


# -- planning: which parts come from the tree, which are read again ------------

Item: TypeAlias = "tuple[int, int, Node | None, bool, Node | None]"


def _node_items(child: Node, char: Callable[[int], int], items: list[Item]) -> None:
    """Statements of one top-level node as (start, end, node, broken, table) items.

    A table node is split into its header and its children, so one broken
    pair does not send a whole large table to the recovery reader.
    ``table`` is the table node for a header item.
    """
    kind = child.type
    if kind == "comment":
        return
    if kind in ("table", "table_array_element") and not child.is_missing:
        kids = child.children
        close = "]]" if kind == "table_array_element" else "]"
        header_end = None
        broken = False
        for i, kid in enumerate(kids):
            if kid.has_error or kid.is_missing:
                broken = True
            if kid.type == close:
                header_end = i
                break
        if header_end is None or header_end != 2:
            broken = True
        if header_end is None:
            items.append((char(child.start_byte), char(child.end_byte), child, True, None))
            return
        header = (char(child.start_byte), char(kids[header_end].end_byte), child, broken, child)
        items.append(header)
        for kid in kids[header_end + 1 :]:
            if kid.type == "comment":
                continue
            bad = kid.type != "pair" or kid.has_error or kid.is_missing
            items.append((char(kid.start_byte), char(kid.end_byte), kid, bad, None))
        return
    bad = kind != "pair" or child.has_error or child.is_missing
    items.append((char(child.start_byte), char(child.end_byte), child, bad, None))


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


_TABLE_TYPES = frozenset({"table", "table_array_element"})


class _Block:
    """A clean top-level node converted (or reused) as a whole: one chunk."""

    __slots__ = ("end", "node", "section", "start")

    def __init__(self, start: int, end: int, node: Node, section: bool) -> None:
        self.start, self.end, self.node, self.section = start, end, node, section


def _units(root: Node, offsets: ByteOffsets, use_chunks: bool) -> list[Item | _Block]:
    """Top-level statements: clean nodes as blocks, everything else as items."""
    char = offsets.char
    units: list[Item | _Block] = []
    items: list[Item] = []
    for child in root.children:
        if use_chunks and not child.has_error and not child.is_missing:
            kind = child.type
            if kind in _TABLE_TYPES or kind == "pair":
                units.append(
                    _Block(char(child.start_byte), char(child.end_byte), child, kind != "pair")
                )
                continue
        _node_items(child, char, items)
        if items:
            units.extend(items)
            items.clear()
    return units


def _expand(unit: _Block, offsets: ByteOffsets) -> list[Item]:
    items: list[Item] = []
    _node_items(unit.node, offsets.char, items)
    return items


def _plan(text: str, root: Node, offsets: ByteOffsets, use_chunks: bool) -> list[tuple[Any, ...]]:
    """Steps: ("tree", item), ("block", block) or ("text", start, end).

    This is the item-level plan (a run of broken items and every item on their
    lines is read again from the text), with clean nodes kept whole as blocks
    wherever no recovery region reaches them: a block is split into its items
    as soon as a region would take or touch one of them, so the plan equals the
    one made from items alone.
    """
    units = _units(root, offsets, use_chunks)
    plan: list[tuple[Any, ...]] = []
    i = 0
    while i < len(units):
        unit = units[i]
        if type(unit) is _Block:
            plan.append(("block", unit))
            i += 1
            continue
        start, end, _node, broken, _table = unit  # type: ignore[misc]
        if not broken:
            plan.append(("tree", unit))
            i += 1
            continue
        region_start = _line_start(text, start)
        region_end = _line_end(text, max(start, end - 1))
        while plan:
            last = plan[-1]
            if last[0] == "block":
                if last[1].end <= region_start:
                    break
                plan.pop()
                plan.extend(("tree", item) for item in _expand(last[1], offsets))
                continue
            last_end = last[1][1] if last[0] == "tree" else last[2]
            if last_end <= region_start:
                break
            plan.pop()
            last_start = last[1][0] if last[0] == "tree" else last[1]
            region_start = min(region_start, _line_start(text, last_start))
        j = i + 1
        while j < len(units):
            following = units[j]
            if type(following) is _Block:
                if following.start >= region_end:
                    break
                units[j : j + 1] = _expand(following, offsets)
                continue
            if not (following[3] or following[0] < region_end):  # type: ignore[index]
                break
            region_end = max(
                region_end,
                _line_end(text, max(following[0], following[1] - 1)),  # type: ignore[index]
            )
            j += 1
        plan.append(("text", region_start, region_end))
        i = j
    if not units and root.has_error:
        plan.append(("text", 0, len(text)))
    # A section block takes no pairs after its own: when pairs (or a recovery
    # region that may hold some) follow it, it is converted item by item.
    out: list[tuple[Any, ...]] = []
    for k, planned in enumerate(plan):
        if planned[0] == "block" and planned[1].section and k + 1 < len(plan):
            after = plan[k + 1]
            if (
                after[0] == "text"
                or (after[0] == "block" and not after[1].section)
                or (after[0] == "tree" and after[1][4] is None)
            ):
                out.extend(("tree", item) for item in _expand(planned[1], offsets))
                continue
        out.append(planned)
    return out


def _run(
    text: str,
    tree: Tree,
    reader: _TreeReader,
    builder: TomlBuilder,
    problems: list[Problem],
    chunks: dict[str, Chunk],
    used: dict[str, Chunk],
    use_chunks: bool,
) -> None:
    offsets = reader.offsets
    for step in _plan(text, tree.root_node, offsets, use_chunks):
        kind = step[0]
        if kind == "tree":
            start, end, node, _broken, table = step[1]
            if table is not None:
                builder.add(reader.header(table, start, end))
            else:
                pair = reader.pair(node, 0)
                if pair is not None:
                    builder.add(pair)
        elif kind == "text":
            for statement in _Recovery(text, step[1], step[2], problems).statements():
                builder.add(statement)
        else:
            _run_block(text, step[1], reader, builder, problems, chunks, used)


def _run_block(
    text: str,
    block: _Block,
    reader: _TreeReader,
    builder: TomlBuilder,
    problems: list[Problem],
    chunks: dict[str, Chunk],
    used: dict[str, Chunk],
) -> None:
    base = block.start
    source = text[base : block.end]
    chunk = reuse_chunk(
        source,
        block.section,
        chunks,
        used,
        lambda _source, _section: _convert(text, source, block, reader),
    )
    if chunk is None:
        # Not convertible on its own (a top-level pair with a dotted key).
        pair = reader.pair(block.node, 0)
        if pair is not None:
            builder.add(pair)
        return
    if place_chunk(builder, chunk, base, block.section, problems):
        return
    if not block.section:
        pair = reader.pair(block.node, 0)
        if pair is not None:
            builder.add(pair)
        return
    # The header named a table with content already: add the pairs one by one
    # (their problems are the chunk's, already reported).
    quiet = _TreeReader(text, reader.offsets, [])
    for kid in block.node.children[3:]:
        if kid.type == "pair":
            pair = quiet.pair(kid, 0)
            if pair is not None:
                builder.add(pair)


def _convert(text: str, source: str, block: _Block, reader: _TreeReader) -> Chunk | None:
    """A chunk for a clean node: read fast from its text, else the general way."""
    chunk = read_chunk(source, block.section)
    if chunk is not None:
        return chunk
    base = block.start
    found: list[Problem] = []
    local = _TreeReader(text, reader.offsets, found)
    node = block.node
    chunk = Chunk(source)
    pairs: list[Pair] = []
    if block.section:
        kids = node.children
        close = "]]" if node.type == "table_array_element" else "]"
        if len(kids) < 3 or kids[2].type != close:
            raise Fallback  # not the shape a clean table has; plan item by item
        header = local.header(node, base, local.offsets.char(kids[2].end_byte))
        chunk.header = (
            tuple((k.name, k.span.start - base, k.span.end - base) for k in header.keys),
            header.array,
            header.span.end - base,
        )
        for kid in kids[3:]:
            kid_type = kid.type
            if kid_type == "comment":
                continue
            if kid_type != "pair":
                raise Fallback
            pair = local.pair(kid, 0)
            if pair is not None:
                pairs.append(pair)
    else:
        pair = local.pair(node, 0)
        if pair is None or pair.value is None or len(pair.keys) != 1:
            return None  # placed only as a key with a value; else converted each time
        pairs.append(pair)
        chunk.key = pair.keys[0].name
    TomlBuilder().local_chunk(chunk, pairs, base)
    chunk.reader_problems = [(span.start - base, span.end - base, m) for span, m in found]
    return chunk


# -- the clean part: from tree-sitter nodes ----------------------------------


class _TreeReader:
    __slots__ = ("offsets", "problems", "text")

    def __init__(self, text: str, offsets: ByteOffsets, problems: list[Problem]) -> None:
        self.text = text
        self.offsets = offsets
        self.problems = problems

    def span(self, node: Node) -> Span:
        if self.offsets.ascii:
            return Span(node.start_byte, node.end_byte)
        char = self.offsets.char
        return Span(char(node.start_byte), char(node.end_byte))

    def header(self, table: Node, start: int, end: int) -> Header:
        key_node = table.children[1]
        return Header(self.keys(key_node), table.type == "table_array_element", Span(start, end))

    def keys(self, node: Node) -> list[KeyPart]:
        parts: list[KeyPart] = []
        # dotted_key nests to the left: ((a . b) . c); walk down its left spine.
        while node.type == "dotted_key":
            kids = node.children
            parts.append(self.key_part(kids[-1]))
            node = kids[0]
        parts.append(self.key_part(node))
        parts.reverse()
        return parts

    def key_part(self, node: Node) -> KeyPart:
        span = self.span(node)
        if node.type == "bare_key":
            return KeyPart(self.text[span.start : span.end], span)
        literal, found = scan_toml_string(self.text, span.start, span.end)
        self.problems.extend(found)
        return KeyPart(literal.value, span)

    def pair(self, node: Node, depth: int) -> Pair | None:
        kids = node.children
        if len(kids) < 3:
            return None
        value = self.value(kids[2], depth)
        keys = self.keys(kids[0])
        span = Span(self.offsets.char(node.start_byte), self.offsets.char(kids[2].end_byte))
        return Pair(keys, value, span)

    def value(self, node: Node, depth: int) -> Value | None:
        kind = node.type
        span = self.span(node)
        if kind == "string":
            literal, found = scan_toml_string(self.text, span.start, span.end)
            self.problems.extend(found)
            return Scalar(Kind.STRING, literal.value, literal.span, literal)
        if kind in _SCALAR_TYPES:
            result = classify(self.text[span.start : span.end])
            if isinstance(result, str):
                self.problems.append((span, result))
                return None
            return Scalar(result[0], result[1], span)
        if depth >= MAX_DEPTH:
            self.problems.append((Span(span.start, span.start + 1), "nesting is too deep"))
            return None
        if kind == "array":
            items = []
            for kid in node.children:
                if kid.is_named and kid.type != "comment":
                    item = self.value(kid, depth + 1)
                    if item is not None:
                        items.append(item)
            return ArrayNode(span, items)
        if kind == "inline_table":
            pairs = []
            previous = ""
            for kid in node.children:
                kid_type = kid.type
                if kid_type == "pair":
                    pair = self.pair(kid, depth + 1)
                    if pair is not None:
                        pairs.append(pair)
                elif kid_type == "}" and previous == ",":
                    self.problems.append(
                        (self.span(kid), "a trailing comma is not allowed in an inline table")
                    )
                previous = kid_type
            return InlineTable(span, pairs)
        self.problems.append((span, "expected a value"))
        return None


# -- the broken part: read again from the text --------------------------------

_WORD = re.compile(r"[A-Za-z0-9_+\-.:]+")
_DATETIME_WORD = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})?"
    r"(?![A-Za-z0-9_+\-.:])"
)
_COMMENT_BAD = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_KEY_ATOM = r"(?:[A-Za-z0-9_-]+|\"[^\"\n]*\"|'[^'\n]*')"
# Inside an open array, a line that can only be a statement ends the array.
_PAIR_LINE = re.compile(rf"[ \t]*{_KEY_ATOM}(?:[ \t]*\.[ \t]*{_KEY_ATOM})*[ \t]*=")
_HEADER_LINE = re.compile(
    r"[ \t]*\[\[?[ \t]*(?!(?:true|false|inf|nan)[ \t]*\])[A-Za-z_][A-Za-z0-9_-]*"
    r"(?:[ \t]*\.[ \t]*[A-Za-z0-9_-]+)*[ \t]*\]\]?[ \t]*(?:#[^\n]*)?(?:\r?\n|$)"
)


class _Recovery(RecoveryCursor):
    """A tolerant reader for one region of TOML text."""

    def __init__(self, text: str, start: int, end: int, problems: list[Problem]) -> None:
        self.text = text
        self.pos = start
        self.end = end
        self.problems = problems
        self.abort = False
        self.open_string = False  # the last value read was an unterminated string

    def problem(self, start: int, end: int, message: str) -> None:
        """Report ``message`` on ``[start, end)``, kept inside the text: a problem found
        at its very end (``a.`` with nothing after) is an empty range there."""
        size = len(self.text)
        start = min(start, size)
        self.problems.append((Span(start, min(max(start, end), size)), message))

    def statements(self) -> Iterator[Statement]:
        text = self.text
        while not self.abort:
            self.skip_blank()
            if self.pos >= self.end:
                return
            ch = text[self.pos]
            if ch == "[":
                header = self.header()
                if header is not None:
                    yield header
            elif ch in "\"'" or BARE.match(ch):
                pair = self.pair()
                if pair is not None:
                    yield pair
            else:
                eol = self.eol(self.pos)
                self.problem(self.pos, eol, "expected a key or a [table] header")
                self.pos = eol

    # -- positions --

    def eol(self, pos: int) -> int:
        """End of the line at ``pos``, before ``\\n`` or ``\\r\\n``."""
        end = self.text.find("\n", pos, self.end)
        if end < 0:
            return self.end
        if end > pos and self.text[end - 1] == "\r":
            return end - 1
        return end

    def skip_ws(self) -> None:
        self.pos = WS.match(self.text, self.pos, self.end).end()  # type: ignore[union-attr]

    def skip_blank(self) -> None:
        text = self.text
        pos = self.pos
        while True:
            match = BLANK.match(text, pos, self.end)
            assert match is not None
            chunk_end = match.end()
            comment = text.find("#", pos, chunk_end)
            while comment >= 0:
                line_end = self.eol(comment)
                bad = _COMMENT_BAD.search(text, comment, line_end)
                if bad is not None:
                    self.problem(bad.start(), bad.start() + 1, "control character in a comment")
                comment = text.find("#", line_end, chunk_end)
            if chunk_end == pos:
                break
            pos = chunk_end
        self.pos = pos

    def at_line_end(self) -> bool:
        pos = self.pos
        if pos >= self.end:
            return True
        ch = self.text[pos]
        return ch in "\n#" or (ch == "\r" and self.text.startswith("\r\n", pos))

    def finish_line(self, what: str) -> None:
        self.skip_ws()
        if self.pos < self.end and self.text[self.pos] == "#":
            self.skip_blank()
            return
        if self.at_line_end() or self.first_on_line():
            # (a value that ended a line early, like an unclosed array, leaves
            # the reader at the start of the next statement)
            return
        eol = self.eol(self.pos)
        self.problem(self.pos, eol, f"unexpected text after {what}")
        self.pos = eol

    def first_on_line(self) -> bool:
        # Backwards over blanks only, never to the line's start: the array reader asks
        # this before every element, and on a one-line array of a million elements a
        # search for the previous newline made parsing quadratic.
        text = self.text
        at = self.pos - 1
        while at >= 0 and text[at] in " \t":
            at -= 1
        return at < 0 or text[at] == "\n"

    # -- statements --

    def header(self) -> Header | None:
        text = self.text
        start = self.pos
        array = text.startswith("[[", start, self.end)
        self.pos += 2 if array else 1
        keys = self.key()
        self.skip_ws()
        close = "]]" if array else "]"
        if text.startswith(close, self.pos, self.end):
            self.pos += len(close)
        else:
            # ``[[nodes]`` is one mistake: the half of the closing brackets that is
            # there belongs to the header, not to "text after" it.
            if array and text.startswith("]", self.pos, self.end):
                self.pos += 1
            self.problem(start, self.pos, f"table header is missing its closing '{close}'")
        span = Span(start, self.pos)
        self.finish_line("the table header")
        return Header(keys or [], array, span)

    def key(self) -> list[KeyPart] | None:
        parts: list[KeyPart] = []
        while True:
            self.skip_ws()
            part = self.key_part()
            if part is None:
                if parts:
                    self.problem(self.pos, self.pos + 1, "expected a key after '.'")
                else:
                    self.problem(self.pos, self.pos + 1, "expected a key")
                return parts or None
            parts.append(part)
            save = self.pos
            self.skip_ws()
            if self.pos < self.end and self.text[self.pos] == ".":
                self.pos += 1
                continue
            self.pos = save
            return parts

    def key_part(self) -> KeyPart | None:
        text = self.text
        pos = self.pos
        if pos >= self.end:
            return None
        match = BARE.match(text, pos, self.end)
        if match is not None:
            self.pos = match.end()
            return KeyPart(match.group(), Span(pos, match.end()))
        if text[pos] in "\"'":
            if text.startswith('"""', pos, self.end) or text.startswith("'''", pos, self.end):
                self.problem(pos, pos + 3, "a key cannot be a multi-line string")
            literal, found = scan_toml_string(text, pos, self.end)
            self.problems.extend(found)
            self.pos = literal.span.end
            return KeyPart(literal.value, literal.span)
        return None

    def pair(self) -> Pair | None:
        start = self.pos
        keys = self.key()
        if not keys:
            self.pos = max(self.pos + 1, self.eol(self.pos))
            return None
        self.skip_ws()
        if self.pos >= self.end or self.text[self.pos] != "=":
            last = keys[-1].span
            self.problem(
                last.start,
                last.end,
                f"expected '=' after key '{format_key([k.name for k in keys])}'",
            )
            self.pos = self.eol(self.pos)
            return Pair(keys, None, Span(start, last.end))
        equals = self.pos
        self.pos += 1
        self.skip_ws()
        reported = len(self.problems)
        before = self.pos
        value = self.value(0)
        if value is None:
            # A value that was there but broken has reported itself already.
            name = format_key([k.name for k in keys])
            if len(self.problems) == reported and (self.pos == equals + 1 or self.at_line_end()):
                self.problem(equals, equals + 1, f"missing value for key '{name}'")
            elif len(self.problems) == reported and self.pos == before:
                # ``node = = "x"``: what stands in the value's place is the one mistake,
                # not a missing value and then text after it.
                eol = self.eol(self.pos)
                self.problem(self.pos, eol, f"expected a value for key '{name}'")
                self.pos = eol
            self.finish_line("the value")
            return Pair(keys, None, Span(start, equals + 1))
        span = Span(start, value.span.end)
        self.finish_line("the value")
        return Pair(keys, value, span)

    # -- values --

    def value(self, depth: int) -> Value | None:
        text = self.text
        pos = self.pos
        self.open_string = False
        if pos >= self.end:
            return None
        ch = text[pos]
        if ch in "\"'":
            literal, found = scan_toml_string(text, pos, self.end)
            self.problems.extend(found)
            self.pos = literal.span.end
            self.open_string = not literal.closed
            return Scalar(Kind.STRING, literal.value, literal.span, literal)
        if ch in "[{":
            if depth >= MAX_DEPTH:
                self.problem(pos, pos + 1, "nesting is too deep")
                self.abort = True
                self.pos = self.end
                return None
            return self.array(depth + 1) if ch == "[" else self.inline_table(depth + 1)
        match = _DATETIME_WORD.match(text, pos, self.end) or _WORD.match(text, pos, self.end)
        if match is None:
            return None
        word = match.group()
        self.pos = match.end()
        span = Span(pos, match.end())
        result = classify(word)
        if isinstance(result, str):
            self.problem(span.start, span.end, result)
            return None
        return Scalar(result[0], result[1], span)

    def array(self, depth: int) -> ArrayNode:
        text = self.text
        start = self.pos
        self.pos += 1
        items: list[Value] = []
        while not self.abort:
            self.skip_blank()
            if self.pos >= self.end:
                if not self.open_string:
                    self.problem(start, start + 1, "array is not closed")
                break
            ch = text[self.pos]
            if ch == "]":
                self.pos += 1
                break
            if self.first_on_line() and (
                _PAIR_LINE.match(text, self.pos, self.end)
                or _HEADER_LINE.match(text, self.pos, self.end)
            ):
                if not self.open_string:
                    self.problem(start, start + 1, "array is not closed")
                break
            before = self.pos
            item = self.value(depth)
            if item is not None:
                items.append(item)
            elif self.pos == before:
                self.skip_junk(",]\n", "expected a value in the array")
                self.open_string = False
            self.skip_blank()
            if self.pos < self.end and text[self.pos] == ",":
                self.pos += 1
                self.open_string = False
                continue
            if self.pos >= self.end or text[self.pos] == "]":
                continue
            if self.first_on_line() and (
                _PAIR_LINE.match(text, self.pos, self.end)
                or _HEADER_LINE.match(text, self.pos, self.end)
            ):
                continue
            if not self.open_string:
                self.problem(self.pos, self.pos + 1, "expected ',' or ']' after an array element")
            self.open_string = False
        span = Span(start, max(start + 1, self.pos if self.pos <= self.end else self.end))
        return ArrayNode(span, items)

    def inline_table(self, depth: int) -> InlineTable:
        text = self.text
        start = self.pos
        self.pos += 1
        pairs: list[Pair] = []
        previous = "{"
        while not self.abort:
            self.skip_ws()
            if self.at_line_end():
                if not self.open_string:
                    self.problem(start, start + 1, "inline table is not closed")
                break
            self.open_string = False
            ch = text[self.pos]
            if ch == "}":
                if previous == ",":
                    self.problem(
                        self.pos - 1, self.pos, "a trailing comma is not allowed in an inline table"
                    )
                self.pos += 1
                break
            if ch == ",":
                self.problem(self.pos, self.pos + 1, "expected a key before ','")
                self.pos += 1
                previous = ","
                continue
            pair_start = self.pos
            keys = self.key()
            if not keys:
                self.skip_junk(",}\n", "expected a key")
                previous = ""
                continue
            self.skip_ws()
            if self.pos >= self.end or text[self.pos] != "=":
                last = keys[-1].span
                self.problem(
                    last.start,
                    last.end,
                    f"expected '=' after key '{format_key([k.name for k in keys])}'",
                )
                pairs.append(Pair(keys, None, Span(pair_start, last.end)))
                if not self.at_line_end() and text[self.pos] not in ",}":
                    self.skip_junk(",}\n", "unexpected text in the inline table")
                previous = ""
                continue
            equals = self.pos
            self.pos += 1
            self.skip_ws()
            before = self.pos
            value = self.value(depth)
            if value is None:
                if self.pos == before:
                    name = format_key([k.name for k in keys])
                    if self.at_line_end() or text[self.pos] in ",}":
                        self.problem(equals, equals + 1, f"missing value for key '{name}'")
                    else:  # ``{ node = = "x" }``: one mistake, reported once
                        self.skip_junk(",}\n", f"expected a value for key '{name}'")
                pairs.append(Pair(keys, None, Span(pair_start, equals + 1)))
            else:
                pairs.append(Pair(keys, value, Span(pair_start, value.span.end)))
            self.skip_ws()
            if self.pos < self.end and text[self.pos] == ",":
                self.pos += 1
                previous = ","
                continue
            previous = ""
            if self.at_line_end() or text[self.pos] == "}":
                continue
            if not self.open_string:
                self.problem(self.pos, self.pos + 1, "expected ',' or '}' in the inline table")
        return InlineTable(Span(start, max(start + 1, self.pos)), pairs)
