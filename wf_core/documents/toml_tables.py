"""TOML's table rules: statements in document order → plain values + source map.

tree-sitter checks only the grammar. Everything TOML forbids beyond it is found
here and reported as a problem with the range of the offending key, never as an
exception: duplicate keys (also through dotted keys), a table defined twice, a
``[table]`` for a table that dotted keys already defined, extending an inline
table or a static array, ``[[x]]`` over something that is not an array of tables.

Invariants:

- The first definition wins; a rejected statement leaves ``values`` untouched,
  so values and source map always describe the same data.
- Every table object the builder creates is kept referenced in ``_keep`` for the
  builder's lifetime, so the ``id()`` keys of ``_state`` are never reused.
- Reuse (see ``Chunk``): a section whose header creates a fresh table gets the
  chunk's table object itself, so an unchanged ``[[nodes]]`` element is the same
  ``dict`` in every version (downstream caches key on that identity). Such a
  table is *sealed*: it is in ``_sealed``, never in ``_state``, and nothing
  writes into it. A later header that must enter it (``[a.b]`` after ``[a]``)
  enters a copy instead (``_enter``), registered like the original would have
  been; the chunk and earlier versions keep the untouched original.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wf_core.base.locations import Location
from wf_core.base.spans import Span
from wf_core.documents.source_map import (
    INLINE_TABLE,
    Chunk,
    Compact,
    Kind,
    Occurrence,
    Placement,
    SourceMap,
    StringLiteral,
    shift_literal,
)
from wf_core.documents.strings import Problem as ReadProblem
from wf_core.documents.toml_values import (
    MAX_DEPTH,
    ArrayNode,
    Header,
    Pair,
    Scalar,
    Statement,
    Value,
    format_key,
)

Problem = tuple[Span, str, Span | None]  # span, message, where it was first defined

Converted = tuple[dict[str, object], SourceMap, list[Problem], dict[str, Chunk]]
"""Values, source map, problems (span, message, first definition) and the chunks used: what
both TOML readers (the tree path and the fast reader) return for a text."""

# How a table came to exist; decides what may add to it later.
IMPLICIT = "implicit"  # named as a prefix of a longer [header]; may still get its own header
HEADER = "header"  # defined by [header] (or the root)
ELEMENT = "element"  # an element of an array of tables
DOTTED = "dotted"  # created by dotted keys; open to more dotted keys of the same section only
INLINE = "inline"  # an inline table value: closed for good


class Fallback(Exception):
    """Chunk placement met a case it does not cover; convert without chunks."""


@dataclass(slots=True)
class _State:
    kind: str
    section: int
    first: Span | None


def _span(pair: tuple[int, int] | None) -> Span | None:
    return None if pair is None else Span(pair[0], pair[1])


class TomlBuilder:
    def __init__(self, root: dict[str, Any] | None = None) -> None:
        self.root: dict[str, Any] = {} if root is None else root
        self.problems: list[Problem] = []
        self._entries: dict[Location, Compact] = {}
        self._strings: dict[Location, StringLiteral] = {}
        self._occ: list[Occurrence] = []
        self._placements: list[Placement] = []
        self._starts: list[int] = []  # where each placement begins
        self._state: dict[int, _State] = {}
        # Placed (sealed) tables: id -> (chunk, base, kind, section, first range).
        self._sealed: dict[int, tuple[Chunk, int, str, int, tuple[int, int] | None]] = {}
        self._aot: set[int] = set()
        self._keep: list[object] = [self.root]
        self._section = 0
        self._state[id(self.root)] = _State(HEADER, 0, None)
        self._table: dict[str, Any] = self.root
        self._loc: Location | None = ()
        # The section being filled: its header start and the locations whose
        # value range ends with the section's last pair.
        self._section_start = 0
        self._section_end = 0
        self._section_locs: list[Location] = []
        self._inline_ids = 1 << 40
        self._name_locs: dict[str, Location] = {}  # ``[[name]]`` → ``(name,)``, shared

    # -- statements ---------------------------------------------------------

    def add(self, statement: Statement) -> None:
        if isinstance(statement, Header):
            parts = [(k.name, k.span.start, k.span.end) for k in statement.keys]
            self._header(parts, statement.array, statement.span.start, statement.span.end)
        else:
            self._pair(statement)

    def add_section(self, chunk: Chunk, base: int) -> str:
        """A ``[table]``/``[[array]]`` section from a chunk placed at ``base``.

        Returns "placed" (the chunk's table is the section's table), "rejected"
        (the header was refused; its pairs go nowhere) or "existing" (the header
        names a table that already has content: the caller must add the
        section's pairs one by one).
        """
        assert chunk.header is not None
        names, array, header_end = chunk.header
        if array and len(names) == 1:
            # The common case, ``[[nodes]]`` after the first one, without the
            # generic header walk (same effect as ``_header`` with a chunk).
            name, key_start, key_end = names[0]
            existing = self.root.get(name)
            if type(existing) is list and id(existing) in self._aot:
                self._close_section(base)
                self._section += 1
                key_start += base
                key_end += base
                table = chunk.table
                self._sealed[id(table)] = (
                    chunk,
                    base,
                    ELEMENT,
                    self._section,
                    (key_start, key_end),
                )
                existing.append(table)
                loc = self._name_locs.get(name)
                if loc is None:  # one tuple for every ``[[nodes]]`` header, not one each
                    loc = self._name_locs[name] = (name,)
                self._occ.append((key_start, key_end, loc, True))
                element_loc = (name, len(existing) - 1)
                end = header_end + base
                self._entries[element_loc] = (-1, -1, base, end, Kind.OBJECT, None)
                self._section_locs = [loc, element_loc]
                self._table, self._loc = table, element_loc
                self._section_start = base
                self._section_end = end if chunk.end < 0 else max(end, chunk.end + base)
                self._place(chunk, base, element_loc)
                return "placed"
        parts = [(name, start + base, end + base) for name, start, end in names]
        status = self._header(parts, array, base, header_end + base, (chunk, base))
        if chunk.end >= 0 and status != "existing":
            self._section_end = max(self._section_end, chunk.end + base)
        if status == "placed":
            self._place(chunk, base, self._loc)  # type: ignore[arg-type]
        return status

    def add_pair(self, chunk: Chunk, base: int) -> bool:
        """A top-level ``key = value`` from a chunk; False if it needs the slow path."""
        key = chunk.key
        if key is None or self._table is not self.root or self._loc != () or key in self.root:
            return False
        value = chunk.table[key]
        self.root[key] = value
        if type(value) is dict:
            kind, first_start, first_end, _in_section = chunk.tables.get(id(value), INLINE_TABLE)
            first = (first_start + base, first_end + base) if first_start >= 0 else None
            self._sealed[id(value)] = (chunk, base, kind, -1, first)
        self._section_end = max(self._section_end, chunk.end + base)
        self._place(chunk, base, ())
        return True

    def _place(self, chunk: Chunk, base: int, table_loc: Location) -> None:
        self._placements.append(Placement(chunk, table_loc, len(self._entries)))
        self._starts.append(base)
        if not chunk.problems:
            return
        for start, end, message, first in chunk.problems:
            span = Span(start + base, end + base)
            self.problems.append(
                (span, message, None if first is None else Span(first[0] + base, first[1] + base))
            )

    def finish(self, text_end: int) -> tuple[dict[str, Any], SourceMap]:
        self._close_section(text_end)
        source_map = SourceMap(
            self._entries, self._strings, self._occ, self._placements, [*self._starts, text_end]
        )
        return self.root, source_map

    # -- helpers ------------------------------------------------------------

    def _new_table(self, kind: str, first: Span | None) -> dict[str, Any]:
        table: dict[str, Any] = {}
        self._keep.append(table)
        self._state[id(table)] = _State(kind, self._section, first)
        return table

    def _state_of(self, table: dict[str, Any]) -> _State:
        state = self._state.get(id(table))
        if state is not None:
            return state
        sealed = self._sealed.get(id(table))
        if sealed is None:
            raise Fallback
        _chunk, _base, kind, section, first = sealed
        return _State(kind, section, _span(first))

    def _enter(self, parent: Any, key: Any, table: dict[str, Any]) -> dict[str, Any]:
        """``table`` (found at ``parent[key]``) ready to be written into.

        A sealed table is replaced in its parent by a registered copy; its own
        subtables stay sealed until something enters them in turn.
        """
        if id(table) in self._state:
            return table
        sealed = self._sealed.get(id(table))
        if sealed is None:
            raise Fallback
        chunk, base, kind, section, first = sealed
        copy = dict(table)
        parent[key] = copy
        self._keep.append(copy)
        self._state[id(copy)] = _State(kind, section, _span(first))
        for value in copy.values():
            if type(value) is dict:
                meta = chunk.tables.get(id(value), INLINE_TABLE)
                sub_kind, first_start, first_end, in_section = meta
                sub_first = (first_start + base, first_end + base) if first_start >= 0 else None
                self._sealed[id(value)] = (
                    chunk,
                    base,
                    sub_kind,
                    section if in_section else -1,
                    sub_first,
                )
        return copy

    def _entry(self, loc: Location, key: Span | None, start: int, end: int, kind: Kind) -> None:
        if key is None:
            self._entries[loc] = (-1, -1, start, end, kind, None)
        else:
            self._entries[loc] = (key.start, key.end, start, end, kind, None)

    def _problem(self, span: Span, message: str, first: Span | None = None) -> None:
        self.problems.append((span, message, first))

    def _close_section(self, until: int) -> None:
        """End the current section where the next header starts (or the text ends).

        Entries end at the last pair; for ``locate`` the section reaches up to
        the next header, so a cursor on a fresh line below the last pair is
        still inside the table the author is adding to.
        """
        section_end = self._section_end
        for loc in self._section_locs:
            entry = self._entries.get(loc)
            if entry is not None and entry[3] < section_end:
                self._entries[loc] = (entry[0], entry[1], entry[2], section_end, entry[4], None)
        if self._loc is not None:
            end = max(section_end, until)
            self._occ.append((self._section_start, end, self._loc, False))
        self._section_locs = []

    # -- [header] and [[header]] --------------------------------------------

    def _header(
        self,
        parts: list[tuple[str, int, int]],
        array: bool,
        start: int,
        end: int,
        chunk: tuple[Chunk, int] | None = None,
    ) -> str:
        self._close_section(start)
        self._section += 1
        self._section_start = start
        self._section_end = end
        self._table, self._loc = self.root, None  # until proven valid
        if not parts:
            return "rejected"
        if len(parts) > MAX_DEPTH:
            _, part_start, part_end = parts[MAX_DEPTH]
            self._problem(Span(part_start, part_end), "nesting is too deep")
            return "rejected"
        table: Any = self.root
        loc: Location = ()
        for name, part_start, part_end in parts[:-1]:
            loc = (*loc, name)
            child = table.get(name)
            if child is None:
                child = self._new_table(IMPLICIT, Span(part_start, part_end))
                table[name] = child
                self._entries[loc] = (part_start, part_end, start, end, Kind.OBJECT, None)
            elif isinstance(child, list) and id(child) in self._aot:
                loc = (*loc, len(child) - 1)
                child = self._enter(child, len(child) - 1, child[-1])
            elif isinstance(child, dict):
                if self._state_of(child).kind == INLINE:
                    self._problem(
                        Span(part_start, part_end),
                        f"inline table '{format_key(loc)}' cannot be extended",
                    )
                    return "rejected"
                child = self._enter(table, name, child)
            else:
                self._problem(Span(part_start, part_end), f"key '{format_key(loc)}' is not a table")
                return "rejected"
            self._occ.append((part_start, part_end, loc, True))
            table = child
        name, last_start, last_end = parts[-1]
        last = Span(last_start, last_end)
        loc = (*loc, name)
        existing = table.get(name)
        if array:
            if existing is None:
                existing = []
                self._keep.append(existing)
                self._aot.add(id(existing))
                table[name] = existing
                self._entries[loc] = (last_start, last_end, start, end, Kind.ARRAY, None)
            elif isinstance(existing, list) and id(existing) not in self._aot:
                key = format_key(loc)
                self._problem(
                    last, f"array '{key}' is a static array and cannot be extended with [[{key}]]"
                )
                return "rejected"
            elif not isinstance(existing, list):
                self._problem(last, f"key '{format_key(loc)}' is not an array of tables")
                return "rejected"
            if chunk is None:
                element = self._new_table(ELEMENT, last)
            else:
                element = chunk[0].table
                first = (last_start, last_end)
                self._sealed[id(element)] = (chunk[0], chunk[1], ELEMENT, self._section, first)
            existing.append(element)
            self._occ.append((last_start, last_end, loc, True))
            element_loc = (*loc, len(existing) - 1)
            self._entries[element_loc] = (-1, -1, start, end, Kind.OBJECT, None)
            self._section_locs = [loc, element_loc]
            self._table, self._loc = element, element_loc
            return "placed" if chunk is not None else "existing"
        status = "placed" if chunk is not None else "existing"
        if existing is None:
            if chunk is None:
                existing = self._new_table(HEADER, last)
            else:
                existing = chunk[0].table
                first = (last_start, last_end)
                self._sealed[id(existing)] = (chunk[0], chunk[1], HEADER, self._section, first)
            table[name] = existing
        elif isinstance(existing, dict):
            state = self._state_of(existing)
            if state.kind == IMPLICIT:
                state.kind, state.first = HEADER, last
                status = "existing"
            elif state.kind == DOTTED:
                key = format_key(loc)
                self._problem(last, f"table '{key}' is already defined by dotted keys", state.first)
                return "rejected"
            elif state.kind == INLINE:
                key = format_key(loc)
                self._problem(
                    last, f"table '{key}' is an inline table and cannot be extended", state.first
                )
                return "rejected"
            else:
                self._problem(last, f"table '{format_key(loc)}' is defined twice", state.first)
                return "rejected"
        elif isinstance(existing, list) and id(existing) in self._aot:
            key = format_key(loc)
            self._problem(last, f"'{key}' is an array of tables; add elements with [[{key}]]")
            return "rejected"
        else:
            self._problem(last, f"key '{format_key(loc)}' already has a value")
            return "rejected"
        self._entries[loc] = (last_start, last_end, start, end, Kind.OBJECT, None)
        self._occ.append((last_start, last_end, loc, True))
        self._section_locs = [loc]
        self._table, self._loc = existing, loc
        return status

    # -- key = value --------------------------------------------------------

    def _pair(self, pair: Pair) -> None:
        self._section_end = max(self._section_end, pair.span.end)
        if self._loc is None:
            return  # the section's header was rejected; its pairs go nowhere
        if id(self._table) not in self._state:
            raise Fallback  # a placed chunk's table never takes more pairs
        self._assign(self._table, self._loc, pair, self._section, len(self._loc))

    def _assign(
        self, table: dict[str, Any], loc: Location, pair: Pair, section: int, nested: int = 0
    ) -> None:
        """Store ``pair`` in ``table`` (at ``loc``), ``nested`` levels below the root as
        far as the nesting limit counts: the section's header for a section pair; an
        inline table's own nesting is bounded by the value reader already."""
        keys = pair.keys
        if nested + len(keys) > MAX_DEPTH:
            # Tables nested by headers and dotted keys count like nested values: a
            # 10,000-part dotted key would build 10,000 nested tables for every
            # recursive reader downstream (and took minutes here).
            self._problem(keys[max(0, MAX_DEPTH - nested)].span, "nesting is too deep")
            return
        written = [part.name for part in keys]
        for i, part in enumerate(keys[:-1]):
            loc = (*loc, part.name)
            child = table.get(part.name)
            if child is None:
                child = self._new_table(DOTTED, part.span)
                self._state[id(child)].section = section
                table[part.name] = child
                self._entry(loc, part.span, part.span.start, pair.span.end, Kind.OBJECT)
            elif isinstance(child, dict):
                state = self._state_of(child)
                if state.kind == INLINE:
                    self._problem(
                        part.span,
                        f"inline table '{format_key(written[: i + 1])}' cannot be extended",
                        state.first,
                    )
                    return
                if state.kind in (HEADER, ELEMENT) or (
                    state.kind == DOTTED and state.section != section
                ):
                    self._problem(
                        part.span,
                        f"table '{format_key(written[: i + 1])}' is already defined;"
                        " dotted keys cannot add to it",
                        state.first,
                    )
                    return
                child = self._enter(table, part.name, child)
            else:
                self._problem(
                    part.span, f"key '{format_key(written[: i + 1])}' already has a value"
                )
                return
            self._occ.append((part.span.start, part.span.end, loc, True))
            self._occ.append((part.span.start, pair.span.end, loc, False))
            table = child
        last = keys[-1]
        loc = (*loc, last.name)
        if pair.value is None:
            # Nothing to store yet, but editors still need to know the key is there.
            self._occ.append((last.span.start, last.span.end, loc, True))
            return
        if last.name in table:
            previous = self._entries.get(loc)
            self._problem(
                last.span,
                f"duplicate key '{format_key(written)}'",
                Span(previous[0], previous[1]) if previous and previous[0] >= 0 else None,
            )
            return
        table[last.name] = self._value(pair.value, loc)
        self._entry(loc, last.span, pair.value.span.start, pair.value.span.end, _kind(pair.value))
        self._occ.append((last.span.start, last.span.end, loc, True))

    def _value(self, node: Value, loc: Location) -> Any:
        self._occ.append((node.span.start, node.span.end, loc, False))
        if isinstance(node, Scalar):
            if node.literal is not None:
                self._strings[loc] = node.literal
            return node.value
        if isinstance(node, ArrayNode):
            out = []
            for index, item in enumerate(node.items):
                item_loc = (*loc, index)
                self._entry(item_loc, None, item.span.start, item.span.end, _kind(item))
                out.append(self._value(item, item_loc))
            return out
        table = self._new_table(DOTTED, None)
        # Dotted keys inside one inline table may share prefixes, so the whole
        # inline table is one "section" of its own.
        self._inline_ids += 1
        section = self._inline_ids
        self._state[id(table)].section = section
        for pair in node.pairs:
            self._assign(table, loc, pair, section)
        self._state[id(table)].kind = INLINE
        return table

    # -- a chunk: one section's pairs into a fresh table ---------------------

    def local_chunk(self, chunk: Chunk, pairs: list[Pair], base: int) -> None:
        """Fill ``chunk`` from ``pairs`` (absolute offsets) as if in a fresh section.

        ``self.root`` must be the chunk's table and the builder otherwise unused.
        Everything is stored relative to ``base``.
        """
        end = -1
        for pair in pairs:
            end = max(end, pair.span.end)
            self._assign(self.root, (), pair, 0)
        chunk.end = end - base if end >= 0 else -1
        for loc, (ks, ke, vs, ve, kind, _lit) in self._entries.items():
            literal = self._strings.get(loc)
            if literal is not None:
                literal = shift_literal(literal, -base)
            chunk.entries[loc] = (
                ks - base if ks >= 0 else -1,
                ke - base if ks >= 0 else -1,
                vs - base,
                ve - base,
                kind,
                literal,
            )
        chunk.occ = [(s - base, e - base, loc, key) for s, e, loc, key in self._occ]
        chunk.problems = []
        for span, message, first in self.problems:
            chunk.problems.append(
                (
                    span.start - base,
                    span.end - base,
                    message,
                    None if first is None else (first.start - base, first.end - base),
                )
            )
        for table_id, state in self._state.items():
            if table_id == id(self.root):
                continue
            first = state.first
            chunk.tables[table_id] = (
                state.kind,
                first.start - base if first is not None else -1,
                first.end - base if first is not None else -1,
                state.section == 0,
            )
        # Every subtable is reachable from the table, so the ids in ``tables``
        # stay valid for as long as the chunk lives.
        chunk.table = self.root


def _kind(node: Value) -> Kind:
    if isinstance(node, Scalar):
        return node.kind
    if isinstance(node, ArrayNode):
        return Kind.ARRAY
    return Kind.OBJECT


# -- chunks: what both readers do with a converted statement -------------------


def reuse_chunk(
    source: str,
    section: bool,
    chunks: dict[str, Chunk],
    used: dict[str, Chunk],
    convert: Callable[[str, bool], Chunk | None],
) -> Chunk | None:
    """The chunk for the statement ``source``: the previous version's (``chunks``), else
    ``convert(source, section)``'s; recorded in ``used`` for the next version. A
    statement repeated verbatim gets a chunk, and a table, of its own."""
    chunk = chunks.get(source)
    if chunk is None or source in used:
        chunk = convert(source, section)
    if chunk is not None and source not in used:
        used[source] = chunk
    return chunk


def place_chunk(
    builder: TomlBuilder, chunk: Chunk, base: int, section: bool, problems: list[ReadProblem]
) -> bool:
    """Place ``chunk`` at ``base``, with its reader's problems. False when its statement
    must be added pair by pair instead: a top-level key the table already has, or a
    header naming a table that has content already."""
    for start, end, message in chunk.reader_problems:
        problems.append((Span(start + base, end + base), message))
    if not section:
        return builder.add_pair(chunk, base)
    return builder.add_section(chunk, base) != "existing"


def converted(
    text: str, builder: TomlBuilder, problems: list[ReadProblem], used: dict[str, Chunk]
) -> Converted:
    """The result of a conversion: the builder's values and source map, the readers'
    problems and the builder's own."""
    values, source_map = builder.finish(len(text))
    found: list[Problem] = [(s, m, None) for s, m in problems]
    found.extend(builder.problems)
    return values, source_map, found, used
