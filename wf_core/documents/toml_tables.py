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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wf_core.documents.source_map import Entry, Kind, SourceMap, StringLiteral
from wf_core.documents.toml_values import (
    ArrayNode,
    Header,
    Pair,
    Scalar,
    Statement,
    Value,
    format_key,
)
from wf_core.locations import Location
from wf_core.spans import Span

Problem = tuple[Span, str, Span | None]  # span, message, where it was first defined

# How a table came to exist; decides what may add to it later.
_IMPLICIT = "implicit"  # named as a prefix of a longer [header]; may still get its own header
_HEADER = "header"  # defined by [header] (or the root)
_ELEMENT = "element"  # an element of an array of tables
_DOTTED = "dotted"  # created by dotted keys; open to more dotted keys of the same section only
_INLINE = "inline"  # an inline table value: closed for good


@dataclass(slots=True)
class _State:
    kind: str
    section: int
    first: Span | None


class TomlBuilder:
    def __init__(self) -> None:
        self.root: dict[str, Any] = {}
        self.problems: list[Problem] = []
        self._entries: dict[Location, Entry] = {}
        self._strings: dict[Location, StringLiteral] = {}
        self._occ: list[tuple[int, int, Location, bool]] = []
        self._state: dict[int, _State] = {}
        self._aot: set[int] = set()
        self._keep: list[object] = [self.root]
        self._section = 0
        self._state[id(self.root)] = _State(_HEADER, 0, None)
        self._table: dict[str, Any] = self.root
        self._loc: Location | None = ()
        # The section being filled: its header start and the locations whose
        # value range ends with the section's last pair.
        self._section_start = 0
        self._section_end = 0
        self._section_locs: list[Location] = []
        self._inline_ids = 1 << 40

    # -- statements ---------------------------------------------------------

    def add(self, statement: Statement) -> None:
        if isinstance(statement, Header):
            self._header(statement)
        else:
            self._pair(statement)

    def finish(self, text_end: int) -> tuple[dict[str, Any], SourceMap]:
        self._close_section(text_end)
        return self.root, SourceMap(self._entries, self._strings, self._occ)

    # -- helpers ------------------------------------------------------------

    def _new_table(self, kind: str, first: Span | None) -> dict[str, Any]:
        table: dict[str, Any] = {}
        self._keep.append(table)
        self._state[id(table)] = _State(kind, self._section, first)
        return table

    def _entry(self, loc: Location, key: Span | None, start: int, end: int, kind: Kind) -> None:
        self._entries[loc] = Entry(key, Span(start, end), kind)

    def _problem(self, span: Span, message: str, first: Span | None = None) -> None:
        self.problems.append((span, message, first))

    def _close_section(self, until: int) -> None:
        """End the current section where the next header starts (or the text ends).

        Entries end at the last pair; for ``locate`` the section reaches up to
        the next header, so a cursor on a fresh line below the last pair is
        still inside the table the author is adding to.
        """
        for loc in self._section_locs:
            entry = self._entries.get(loc)
            if entry is not None and entry.value.end < self._section_end:
                span = Span(entry.value.start, self._section_end)
                self._entries[loc] = Entry(entry.key, span, entry.kind)
        if self._loc is not None:
            end = max(self._section_end, until)
            self._occ.append((self._section_start, end, self._loc, False))
        self._section_locs = []

    # -- [header] and [[header]] --------------------------------------------

    def _header(self, header: Header) -> None:
        self._close_section(header.span.start)
        self._section += 1
        self._section_start = header.span.start
        self._section_end = header.span.end
        self._table, self._loc = self._new_table(_HEADER, None), None  # until proven valid
        if not header.keys:
            return
        table: Any = self.root
        loc: Location = ()
        for part in header.keys[:-1]:
            loc = (*loc, part.name)
            child = table.get(part.name)
            if child is None:
                child = self._new_table(_IMPLICIT, part.span)
                table[part.name] = child
                self._entry(loc, part.span, header.span.start, header.span.end, Kind.OBJECT)
            elif isinstance(child, list) and id(child) in self._aot:
                loc = (*loc, len(child) - 1)
                child = child[-1]
            elif isinstance(child, dict):
                if self._state[id(child)].kind == _INLINE:
                    self._problem(part.span, f"inline table '{format_key(loc)}' cannot be extended")
                    return
            else:
                self._problem(part.span, f"key '{format_key(loc)}' is not a table")
                return
            self._occ.append((part.span.start, part.span.end, loc[: len(loc)], True))
            table = child
        last = header.keys[-1]
        loc = (*loc, last.name)
        existing = table.get(last.name)
        name = format_key(loc)
        if header.array:
            if existing is None:
                existing = []
                self._keep.append(existing)
                self._aot.add(id(existing))
                table[last.name] = existing
                self._entry(loc, last.span, header.span.start, header.span.end, Kind.ARRAY)
            elif isinstance(existing, list) and id(existing) not in self._aot:
                self._problem(
                    last.span,
                    f"array '{name}' is a static array and cannot be extended with [[{name}]]",
                )
                return
            elif not isinstance(existing, list):
                self._problem(last.span, f"key '{name}' is not an array of tables")
                return
            element = self._new_table(_ELEMENT, last.span)
            existing.append(element)
            self._occ.append((last.span.start, last.span.end, loc, True))
            element_loc = (*loc, len(existing) - 1)
            self._entry(element_loc, None, header.span.start, header.span.end, Kind.OBJECT)
            self._section_locs = [loc, element_loc]
            self._table, self._loc = element, element_loc
            return
        if existing is None:
            existing = self._new_table(_HEADER, last.span)
            table[last.name] = existing
        elif isinstance(existing, dict):
            state = self._state[id(existing)]
            if state.kind == _IMPLICIT:
                state.kind, state.first = _HEADER, last.span
            elif state.kind == _DOTTED:
                self._problem(
                    last.span, f"table '{name}' is already defined by dotted keys", state.first
                )
                return
            elif state.kind == _INLINE:
                self._problem(
                    last.span,
                    f"table '{name}' is an inline table and cannot be extended",
                    state.first,
                )
                return
            else:
                self._problem(last.span, f"table '{name}' is defined twice", state.first)
                return
        elif isinstance(existing, list) and id(existing) in self._aot:
            self._problem(
                last.span, f"'{name}' is an array of tables; add elements with [[{name}]]"
            )
            return
        else:
            self._problem(last.span, f"key '{name}' already has a value")
            return
        self._entry(loc, last.span, header.span.start, header.span.end, Kind.OBJECT)
        self._occ.append((last.span.start, last.span.end, loc, True))
        self._section_locs = [loc]
        self._table, self._loc = existing, loc

    # -- key = value --------------------------------------------------------

    def _pair(self, pair: Pair) -> None:
        self._section_end = max(self._section_end, pair.span.end)
        if self._loc is None:
            return  # the section's header was rejected; its pairs belong nowhere
        self._assign(self._table, self._loc, pair, self._section)

    def _assign(self, table: dict[str, Any], loc: Location, pair: Pair, section: int) -> None:
        keys = pair.keys
        written = [part.name for part in keys]
        for i, part in enumerate(keys[:-1]):
            loc = (*loc, part.name)
            child = table.get(part.name)
            if child is None:
                child = self._new_table(_DOTTED, part.span)
                self._state[id(child)].section = section
                table[part.name] = child
                self._entry(loc, part.span, part.span.start, pair.span.end, Kind.OBJECT)
            elif isinstance(child, dict):
                state = self._state[id(child)]
                if state.kind == _INLINE:
                    self._problem(
                        part.span,
                        f"inline table '{format_key(written[: i + 1])}' cannot be extended",
                        state.first,
                    )
                    return
                if state.kind in (_HEADER, _ELEMENT) or (
                    state.kind == _DOTTED and state.section != section
                ):
                    self._problem(
                        part.span,
                        f"table '{format_key(written[: i + 1])}' is already defined;"
                        " dotted keys cannot add to it",
                        state.first,
                    )
                    return
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
                previous.key if previous else None,
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
        table = self._new_table(_DOTTED, None)
        # Dotted keys inside one inline table may share prefixes, so the whole
        # inline table is one "section" of its own.
        self._inline_ids += 1
        section = self._inline_ids
        self._state[id(table)].section = section
        for pair in node.pairs:
            self._assign(table, loc, pair, section)
        self._state[id(table)].kind = _INLINE
        return table


def _kind(node: Value) -> Kind:
    if isinstance(node, Scalar):
        return node.kind
    if isinstance(node, ArrayNode):
        return Kind.ARRAY
    return Kind.OBJECT
