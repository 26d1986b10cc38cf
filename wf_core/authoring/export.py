"""Writing a workflow in either syntax.

JSON is lda-wf's canonical serialization: the model's, with every default. TOML
is written for people: a value stays on one line when it fits in ``LINE_WIDTH``
characters; a longer table becomes dotted keys (``properties.x = { ... }``) or a
table of its own (``[input_schema.properties.x]``), a longer array one element a
line, node defs and nodes arrays of tables.

``export_document`` converts a document, not only its model, so that nothing is
lost on the way: keys lda-wf does not know are kept where they were written (in
JSON, after the key they followed), and a TOML document keeps its comments and
blank lines, each comment with what it precedes (or trails, on its line). A TOML
export writes the document's own values, so reading it back gives the same model
and the same findings; only path strings are rewritten, in their canonical form,
and a JSON document's values equal to the model's defaults are left out.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time
from enum import Enum
from functools import lru_cache
from typing import Any, Literal, NamedTuple, cast, overload

import pydantic_core
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from wf_core.base.line_width import LINE_WIDTH
from wf_core.base.locations import Location, LocationPart, format_location
from wf_core.base.spans import LineIndex
from wf_core.documents import Entry, Kind, ParsedDocument, SourceMap
from wf_core.documents.writing import write_key, write_string
from wf_core.language.paths import PathResolutionError, format_segments, parse_toml_key
from wf_core.models.keys import DOCUMENT_ORDER, TOP_LEVEL_EXTRAS, unknown_keys
from wf_core.models.loading import LoadResult, load_workflow
from wf_core.models.steps import InterruptNode, SubgraphNode
from wf_core.models.workflow import Workflow
from wf_core.validation.subgraphs import declares_schema

SCHEMA_KEYS = ("input_schema", "state_schema", "output_schema")
_SIDES: tuple[Literal["input", "output"], ...] = ("input", "output")
_RECORD_LISTS = ("node_defs", "nodes")

ONE_LINE_WIDTH = 80
"""``inline_toml``: a list of one table stays on one line up to this many characters."""
_LITERAL_SAFE = re.compile(r"[^'\x00-\x1f\x7f]*")
_MULTILINE_LITERAL_SAFE = re.compile(r"(?:[^'\x00-\x08\x0b-\x1f\x7f]|'(?!''))*")

# Keys whose values are JSON data rather than model fields: a null there means
# something, and TOML cannot say it.
_JSON_DATA_KEYS = frozenset(("value", "const", "default", "enum", "examples"))


class ExportError(ValueError):
    """The workflow holds something the target syntax cannot express."""


# ---------------------------------------------------------------------------
# A model (the runtime's authoring API) and plain values


def canonical_dump(workflow: Workflow) -> dict[str, object]:
    """The model's JSON with every default, but for the defaults whose writing would
    change the model (``_unwritten_defaults``)."""
    dumped = workflow.model_dump(mode="json", by_alias=True)
    for node, data in zip(workflow.nodes, dumped.get("nodes", ()), strict=False):
        for key in _unwritten_defaults(node):
            del data[key]
    return dumped


def to_json(workflow: Workflow) -> str:
    return json_text(canonical_dump(workflow))


def json_text(data: object) -> str:
    """JSON text indented by two spaces, non-ASCII as it is. ``pydantic_core`` writes it
    ten times faster than ``json.dumps``, whose indenting encoder is Python's; the text
    is the same but for a float's exponent (``1.5e-7``, not ``1.5e-07``)."""
    return pydantic_core.to_json(data, indent=2).decode() + "\n"


def to_toml(workflow: Workflow) -> str:
    """Readable TOML: values equal to the model's defaults are left out (they mean the
    same either way), so a converted document stays as short as one written by hand."""
    data = workflow.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    if "nodes" in data:
        data["nodes"] = [short_dump(node) for node in workflow.nodes]
    return dump_toml(data)


_PAYLOAD_SCHEMAS = ("request_schema", "resume_schema")


def _unwritten_defaults(node: BaseModel) -> tuple[str, ...]:
    """The keys of a node whose defaults mean something else when written: a subgraph
    node's schema it does not declare (that side binds to the child workflow's schema
    instead) and an interrupt's payload schemas when it writes neither (the model
    tells such an interrupt from one with an explicit contract)."""
    if isinstance(node, SubgraphNode):
        return tuple(f"{side}_schema" for side in _SIDES if not declares_schema(node, side))
    if isinstance(node, InterruptNode) and not node.has_explicit_contract:
        return _PAYLOAD_SCHEMAS
    return ()


def _written_defaults(node: BaseModel) -> tuple[str, ...]:
    """The keys of a node that stay written even when equal to their defaults: the
    schemas a subgraph node declares, an interrupt's explicit payload schemas."""
    if isinstance(node, SubgraphNode):
        return tuple(f"{side}_schema" for side in _SIDES if declares_schema(node, side))
    if isinstance(node, InterruptNode) and node.has_explicit_contract:
        return _PAYLOAD_SCHEMAS
    return ()


def short_dump(model: BaseModel) -> dict[str, object]:
    """``model``'s JSON without the values equal to its defaults, but for those whose
    presence the model records (``_written_defaults``)."""
    short: dict[str, object] = model.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    for key in _written_defaults(model):
        if key not in short:
            value = getattr(model, key)
            short[key] = (
                value.model_dump(mode="json", by_alias=True, exclude_defaults=True)
                if isinstance(value, BaseModel)
                else to_jsonable_python(value)
            )
    return short


def same_model(one: BaseModel | None, other: BaseModel | None) -> bool:
    """Whether two workflows (or two of their nodes) are the same: equal, with the same
    defaults written (``_unwritten_defaults``), which equality does not always tell."""
    if one != other:
        return False
    if one is None or other is None:
        return True  # (both, being equal)
    if isinstance(one, Workflow) and isinstance(other, Workflow):
        return [_unwritten_defaults(n) for n in one.nodes] == [
            _unwritten_defaults(n) for n in other.nodes
        ]
    return _unwritten_defaults(one) == _unwritten_defaults(other)


def dump_toml(data: Mapping[str, object]) -> str:
    """Plain values as readable TOML; a null model field is left out (it is a default),
    a null in JSON data raises ``ExportError``."""
    return _Writer(_table_without_nulls(data, "")).document()


def inline_toml(value: object) -> str:
    """TOML text of one value as it is written after ``key = ``: tables inline
    (``{ a = 1 }``), a list of tables one per line. Raises ``ExportError`` for a null.
    Quick fixes insert values through this."""
    return _inline_text(_without_nulls(value, ""), 0)


def _without_field_nulls(value: object, *, data: bool = False) -> object:
    """``value`` without its null model fields (defaults, which canonical JSON spells
    out); a null in JSON data stays, for ``_refuse_nulls`` to name."""
    if isinstance(value, Mapping):
        return {
            key: _without_field_nulls(item, data=data or key in _JSON_DATA_KEYS)
            for key, item in value.items()
            if item is not None or data
        }
    if isinstance(value, list):
        return [_without_field_nulls(item, data=data) for item in value]
    return value


def _without_nulls(value: object, where: str, *, data: bool = False) -> object:
    """Drop null model fields (they are defaults); refuse nulls inside JSON data."""
    if value is None:
        raise ExportError(f"TOML has no null: cannot write the null at {where or 'the top level'}")
    if isinstance(value, Mapping):
        return _table_without_nulls(value, where, data=data)
    if isinstance(value, list):
        return [_without_nulls(item, f"{where}[{i}]", data=data) for i, item in enumerate(value)]
    return value


def _table_without_nulls(
    table: Mapping[str, object], where: str, *, data: bool = False
) -> dict[str, object]:
    """``_without_nulls`` of a table."""
    out: dict[str, object] = {}
    for key, item in table.items():
        here = f"{where}.{key}" if where else str(key)
        if item is None and not data:
            continue
        out[key] = _without_nulls(item, here, data=data or key in _JSON_DATA_KEYS)
    return out


def _inline_text(value: object, depth: int) -> str:
    """``inline_toml``'s text: at the outermost level, a list of tables is one per line
    when it has more than one or does not fit in ``ONE_LINE_WIDTH``."""
    if isinstance(value, list) and depth == 0:
        items = [inline(v) for v in value]
        one_line = "[" + ", ".join(items) + "]"
        tables = any(isinstance(v, Mapping) for v in value)
        if tables and (len(items) > 1 or len(one_line) > ONE_LINE_WIDTH):
            return "[\n" + "".join(f"  {item},\n" for item in items) + "]"
        return one_line
    return inline(value)


# ---------------------------------------------------------------------------
# TOML text of values


@lru_cache(maxsize=4096)
def _key(name: str) -> str:
    return write_key(name, "toml")


def scalar(value: object) -> str:
    """TOML text of a scalar. A string holding ``"`` (a path with a quoted segment) is
    a literal string, so it reads without escapes: ``'context.foreach."a.b".item'``."""
    if isinstance(value, str):
        if '"' in value and _LITERAL_SAFE.fullmatch(value):
            return f"'{value}'"
        return write_string(value, None)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return repr(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if value is None:
        raise ExportError("TOML has no null")
    raise ExportError(f"TOML cannot hold a {type(value).__name__}")


def inline(value: object) -> str:
    """One-line TOML text of a value, spaced the way people write it (``{ a = 1 }``)."""
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{_key(k)} = {inline(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(inline(v) for v in value) + "]"
    return scalar(value)


def _multiline_string(value: str) -> str | None:
    """A string with line breaks as a multi-line literal string, when one can hold it."""
    if "\n" not in value or "\r" in value or not _MULTILINE_LITERAL_SAFE.fullmatch(value):
        return None
    return "'''\n" + value + "'''"


# ---------------------------------------------------------------------------
# Comments and blank lines of a TOML text


@dataclass
class Notes:
    """What a TOML text says besides its values, by the location each note goes with.

    ``before``: lines above an item, ``""`` for a blank line, else a comment;
    ``trailing``: a comment after the item on its first line; ``closing`` and
    ``closing_trailing``: the same for the closing bracket of an array written over
    several lines, and, under ``()``, the end of the document. ``inside`` holds every
    location that has a note below it.
    """

    before: dict[Location, list[str]] = field(default_factory=dict)
    trailing: dict[Location, str] = field(default_factory=dict)
    closing: dict[Location, list[str]] = field(default_factory=dict)
    closing_trailing: dict[Location, str] = field(default_factory=dict)
    comments: int = 0
    inside: set[Location] = field(default_factory=set)

    def note_inside(self, location: Location, *, own: bool) -> None:
        for size in range(len(location) + (1 if own else 0)):
            self.inside.add(location[:size])


# A blank line or a comment line (group 1: the comment), after the line break before it.
_GAP_LINE = re.compile(r"\n[ \t]*(?:(#[^\n]*)|\r?)(?=\n|\Z)")
_FIRST_GAP_LINE = re.compile(r"[ \t]*(?:(#[^\n]*)|\r?)(?=\n|\Z)")
_BLANKS = re.compile(r"[ \t\r\n]*")
# A line up to its comment, strings skipped (group 1: the comment).
_LINE_COMMENT = re.compile(r"""(?:[^"'#\n]|"(?:\\.|[^"\\\n])*"|'[^'\n]*')*(#[^\n]*)""")
_STRING_OR_COMMENT = re.compile(
    r'"""(?:\\.|[^\\])*?"""(?:"{1,2})?'
    r"|'''(?s:.*?)'''(?:'{1,2})?"
    r'|"(?:\\.|[^"\\\n])*"'
    r"|'[^'\n]*'"
    r"|#[^\n]*"
)


def count_comments(text: str) -> int:
    """How many comments a TOML text has (what a conversion to JSON leaves out)."""
    return len(_comments(text, _multiline_strings(text))[0])


def _multiline_strings(text: str) -> list[tuple[int, int]]:
    """The ranges of the multi-line strings of a TOML text (whose lines are no gaps)."""
    if '"""' not in text and "'''" not in text:
        return []
    return [
        (m.start(), m.end())
        for m in _STRING_OR_COMMENT.finditer(text)
        if m.group().startswith(('"""', "'''"))
    ]


def _in_string(spans: list[tuple[int, int]], offset: int) -> bool:
    i = bisect.bisect_right(spans, (offset, math.inf)) - 1
    return i >= 0 and spans[i][0] < offset < spans[i][1]


def _line_at(text: str, start: int) -> str:
    end = text.find("\n", start)
    return text[start : len(text) if end < 0 else end].rstrip()


def _comments(
    text: str, strings: list[tuple[int, int]]
) -> tuple[list[tuple[int, int, str]], dict[int, int]]:
    """Every comment as ``(line start, comment start, text)`` in text order, and the
    gap lines: line start -> its comment's start, or -1 for a blank line."""
    gap_lines: dict[int, int] = {}
    first = _FIRST_GAP_LINE.match(text)
    if first is not None:
        gap_lines[0] = first.start(1) if first.group(1) else -1
    for match in _GAP_LINE.finditer(text):
        start = match.start() + 1
        if not strings or not _in_string(strings, start):
            gap_lines[start] = match.start(1) if match.group(1) else -1
    found = [(line, at, _line_at(text, at)) for line, at in gap_lines.items() if at >= 0]
    seen: set[int] = set(gap_lines)
    at = text.find("#")
    while at >= 0:
        line = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        if line not in seen:
            seen.add(line)
            comment = _trailing_comment(text, line, end, strings)
            if comment is not None:
                found.append((line, comment, text[comment:end].rstrip()))
        at = text.find("#", end)
    found.sort()
    return found, gap_lines


def _trailing_comment(text: str, line: int, end: int, strings: list[tuple[int, int]]) -> int | None:
    """Where the comment after the content of the line ``[line, end)`` starts, if any."""
    start = line
    for s, e in strings:  # only texts with multi-line strings have any
        if s < end and e > line:
            if s <= line:
                start = max(start, e)
            else:
                end = min(end, s)
    if start >= end:
        return None
    match = _LINE_COMMENT.match(text, start, end)
    return None if match is None else match.start(1)


class _Found(NamedTuple):
    """An item a note goes with, where it starts; ``closing``: the closing bracket of
    the array at ``location``."""

    location: Location
    start: int
    closing: bool = False


class _Anchors:
    """Which item of a document a note goes with: the first item at or after an
    offset, the outermost of those starting there. Starts come from the source map;
    a table written as a section or by dotted keys may have entries after a later
    sibling (TOML allows ``[a]``, ``[b]``, ``[a.c]``), so such a table is searched
    as far as its entries reach."""

    def __init__(self, text: str, values: Mapping[str, object], source_map: SourceMap) -> None:
        self._text = text
        self._values = values
        self._map = source_map
        self._spans: dict[Location, tuple[int, int, bool] | None] = {}
        self._reach: dict[Location, int] = {}
        self._starts: dict[Location, list[int]] = {}

    def span(self, location: Location) -> tuple[int, int, bool] | None:
        """``(start, end, loose)``: where an item starts and ends, and whether its
        entries may lie outside that range (a section or a table made by dotted keys)."""
        if location in self._spans:
            return self._spans[location]
        entry = self._map.get(location)
        found: tuple[int, int, bool] | None = None
        if entry is not None:
            start = (
                entry.value.start if entry.key is None else min(entry.key.start, entry.value.start)
            )
            form = written_form(entry, self._text)
            found = (start, entry.value.end, form is not _Form.INLINE)
        self._spans[location] = found
        return found

    def find(self, offset: int) -> _Found | None:
        """The item a note at ``offset`` goes with; None at the end of the document."""
        return self._search(self._values, (), offset)

    def _search(
        self, node: Mapping[str, object] | list[object], location: Location, offset: int
    ) -> _Found | None:
        if isinstance(node, list):
            return self._search_list(node, location, offset)
        best: _Found | None = None
        for key, value in node.items():
            here = (*location, key)
            span = self.span(here)
            if span is None:
                continue
            start, end, loose = span
            if start == offset:
                return _Found(here, start)  # the outermost item starting there
            if start > offset:
                if best is None or start < best.start:
                    best = _Found(here, start)
            elif (
                isinstance(value, Mapping | list)
                and (end >= offset or loose)
                and self.reach(here, value) >= offset
            ):
                inner = self._search(value, here, offset)
                if inner is not None and (best is None or inner.start < best.start):
                    best = inner
        return best

    def _search_list(self, items: list[object], location: Location, offset: int) -> _Found | None:
        starts = self._starts.get(location)
        if starts is None:
            starts = []
            for i in range(len(items)):
                span = self.span((*location, i))
                starts.append(span[0] if span is not None else -1)
            self._starts[location] = starts
        i = bisect.bisect_left(starts, offset)
        if i < len(items) and starts[i] == offset:
            return _Found((*location, i), offset)
        previous = items[i - 1] if i > 0 else None
        if isinstance(previous, Mapping | list):
            before = (*location, i - 1)
            if self.reach(before, previous) >= offset:
                inner = self._search(previous, before, offset)
                if inner is not None and (i == len(items) or inner.start <= starts[i]):
                    return inner
        if i < len(items):
            return _Found((*location, i), starts[i])
        span = self.span(location)
        if span is not None and not span[2] and offset < span[1]:
            return _Found(location, offset, closing=True)
        return None

    def reach(self, location: Location, value: Mapping[str, object] | list[object]) -> int:
        """Where the last entry of an item ends."""
        if location in self._reach:
            return self._reach[location]
        span = self.span(location)
        reach = -1 if span is None else span[1]
        if span is not None and span[2]:
            children: Iterator[tuple[LocationPart, object]]
            if isinstance(value, list):
                children = iter([(len(value) - 1, value[-1])] if value else [])
            else:
                children = iter(value.items())
            for key, child in children:
                here = (*location, key)
                if isinstance(child, Mapping | list):
                    reach = max(reach, self.reach(here, child))
                else:
                    child_span = self.span(here)
                    if child_span is not None:
                        reach = max(reach, child_span[1])
        self._reach[location] = reach
        return reach


def _skip_blanks(text: str, offset: int) -> int:
    match = _BLANKS.match(text, offset)
    return offset if match is None else match.end()


def source_notes(parsed: ParsedDocument) -> Notes:
    """The comments and blank lines of a TOML document, each with the item it goes with."""
    text = parsed.text
    strings = _multiline_strings(text)
    comments, gap_lines = _comments(text, strings)
    notes = Notes(comments=len(comments))
    anchors = _Anchors(text, parsed.values, parsed.source_map)
    trailing = {line: (at, comment) for line, at, comment in comments if line not in gap_lines}
    run: list[str] = []
    for line in sorted({*gap_lines, *trailing}):
        if line in gap_lines:
            at = gap_lines[line]
            run.append("" if at < 0 else _line_at(text, at))
            following = text.find("\n", line)
            if following >= 0 and following + 1 in gap_lines:
                continue  # the run goes on
            content = len(text) if following < 0 else _skip_blanks(text, following + 1)
            _add_before(notes, anchors.find(content) if content < len(text) else None, run)
            run = []
        else:
            _add_trailing(notes, anchors, text, line, *trailing[line])
    return notes


def _add_before(notes: Notes, found: _Found | None, lines: list[str]) -> None:
    if found is None:
        notes.closing.setdefault((), []).extend(lines)
    elif found.closing:
        notes.closing.setdefault(found.location, []).extend(lines)
        notes.note_inside(found.location, own=True)
    else:
        notes.before.setdefault(found.location, []).extend(lines)
        notes.note_inside(found.location, own=False)


def _add_trailing(
    notes: Notes, anchors: _Anchors, text: str, line: int, at: int, comment: str
) -> None:
    """A comment after content: it trails the first item on its line, or, on a line
    where no item starts (after a multi-line string), goes before the next one."""
    found = anchors.find(_skip_blanks(text, line))
    if found is None or found.start >= at:
        _add_before(notes, found, [comment])
    elif found.closing:
        _join(notes.closing_trailing, found.location, comment)
        notes.note_inside(found.location, own=True)
    else:
        _join(notes.trailing, found.location, comment)
        notes.note_inside(found.location, own=False)


def _join(where: dict[Location, str], location: Location, comment: str) -> None:
    where[location] = f"{where[location]}  {comment}" if location in where else comment


# ---------------------------------------------------------------------------
# Layout


class _Form(Enum):
    """How a value is written."""

    SCALAR = "scalar"
    INLINE = "inline"  # on its key's line
    MULTILINE = "multiline"  # an array, one element a line
    DOTTED = "dotted"  # a table as ``key.sub = ...`` lines
    SECTION = "section"  # a table as ``[path.key]``
    TABLES = "tables"  # an array of tables as ``[[path.key]]``


_HEADED = (_Form.SECTION, _Form.TABLES)
SourceForm = Callable[[Location, bool], _Form | None]
"""How the source wrote a table or array (the location, and whether it is an array):
SECTION / TABLES (with headers), DOTTED, or
INLINE; None when there is no source text (a JSON document, a model)."""


_Plan = list[tuple[str, Any, _Form]]
"""How a table's entries are written: each key, its value and the form chosen for it. The
form says what the value is (a table for ``SECTION`` and ``DOTTED``, a list for ``TABLES``
and ``MULTILINE``), as ``_choose`` found it, so the value is typed ``Any``: the form, not
a static type, tells (``_pair`` likewise)."""


class _Writer:
    """Lines of TOML for a table of plain values, laid out by ``LINE_WIDTH``.

    With ``notes`` and ``form`` (a TOML source), comments and blank lines are written
    with their items, and tables the source wrote as sections or dotted keys stay so.
    Every note is written once: one whose item is written on one line inside another
    goes above that line.
    """

    def __init__(
        self,
        values: Mapping[str, object],
        notes: Notes | None = None,
        form: SourceForm | None = None,
        watch: Callable[[str], bool] | None = None,
        *,
        width: int = LINE_WIDTH,
        indent: str = "  ",
    ) -> None:
        self._values = values
        self._width = width
        self._indent = indent
        self._watch = watch
        self.watched = False
        """Whether ``watch`` held for a string written."""
        self._notes = notes if notes is not None else Notes()
        self._form = form
        self._out: list[str] = []
        self._carry: list[str] = []
        # Texts by container identity (every value is alive while the writer is) or string.
        self._inline_memo: dict[int | str, str] = {}

    def document(self) -> str:
        values = self._values
        if self._form is None:
            first = [k for k in DOCUMENT_ORDER if k in values]
            values = {**{k: values[k] for k in first}, **values}
        self._body(values, (), (), root=True)
        self._leftovers()
        self._lines(self._notes.closing.pop((), []), "")
        out = self._out
        while out and not out[-1]:
            out.pop()
        return "\n".join(out) + "\n"

    # -- choosing --

    def _inline(self, value: Any) -> str:
        """``inline(value)``, each container's and string's text made once. (``Any``: the
        writer's hottest loop tells a value's type by one ``type(value)``, which a static
        type cannot follow.)"""
        memo = self._inline_memo
        kind = type(value)
        if kind is str:
            text = memo.get(value)
            if text is None:
                text = memo[value] = self._string(value)
            return text
        if kind is not dict and kind is not list:
            return scalar(value)
        text = memo.get(id(value))
        if text is not None:
            return text
        parts: list[str] = []
        items = value.items() if kind is dict else enumerate(value)
        for key, item in items:
            if type(item) is str:  # the commonest: a string, made once per document
                part = memo.get(item)
                if part is None:
                    part = memo[item] = self._string(item)
            else:
                part = self._inline(item)
            parts.append(part if kind is list else f"{_key(key)} = {part}")
        if kind is list:
            text = "[" + ", ".join(parts) + "]"
        else:
            text = "{ " + ", ".join(parts) + " }" if parts else "{}"
        memo[id(value)] = text
        return text

    def _string(self, value: str) -> str:
        if self._watch is not None and not self.watched and self._watch(value):
            self.watched = True
        return scalar(value)

    def _source_form(self, location: Location, array: bool) -> _Form | None:
        return None if self._form is None else self._form(location, array)

    def _choose(
        self, location: Location, width: int, value: object, *, root: bool, sections: bool
    ) -> _Form | None:
        """How ``value`` at ``location`` is written after ``width`` characters of
        indentation and key; None when it cannot be without a section (``sections``
        False: inside dotted keys)."""
        if type(value) is dict:
            return self._choose_table(location, width, value, root=root, sections=sections)
        if type(value) is list:
            return self._choose_array(location, width, value, root=root, sections=sections)
        return _Form.SCALAR

    def _fits(self, location: Location, width: int, value: object) -> bool:
        return (
            location not in self._notes.inside and width + len(self._inline(value)) <= self._width
        )

    def _choose_table(
        self,
        location: Location,
        width: int,
        value: Mapping[str, object],
        *,
        root: bool,
        sections: bool,
    ) -> _Form | None:
        if not value:
            return _Form.INLINE
        source = self._source_form(location, False)
        if source is _Form.SECTION or (root and source is None):
            return _Form.SECTION if sections else None
        if source is not _Form.DOTTED and self._fits(location, width + 3, value):
            return _Form.INLINE
        # A table of tables (``properties``) reads well as dotted keys, one entry a line;
        # a record (``type = ..., properties = ...``) as a table of its own.
        named = sections and not root and all(type(v) is dict for v in value.values())
        if (source is _Form.DOTTED or named) and self._dottable(location, width, value):
            return _Form.DOTTED
        return _Form.SECTION if sections else None

    def _dottable(self, location: Location, width: int, value: Mapping[str, object]) -> bool:
        return all(self._sub_form(location, width, k, v) is not None for k, v in value.items())

    def _sub_form(self, location: Location, width: int, key: str, value: object) -> _Form | None:
        """How an entry of a table written as dotted keys after ``width`` characters of
        indentation and key is written; None when it needs a table of its own."""
        return self._choose(
            (*location, key), width + 1 + len(_key(key)), value, root=False, sections=False
        )

    def _choose_array(
        self, location: Location, width: int, value: list[object], *, root: bool, sections: bool
    ) -> _Form | None:
        tables = bool(value) and all(type(v) is dict for v in value)
        if tables:
            source = self._source_form(location, True)
            named = source is None and root and location[-1] in _RECORD_LISTS
            if source is _Form.TABLES or named:
                return _Form.TABLES if sections else None
        if (not tables or len(value) == 1) and self._fits(location, width + 3, value):
            return _Form.INLINE
        if tables and not self._elements_fit(location, value):
            # an element too long for one line: a table of its own, where one can be
            return _Form.TABLES if sections else None
        return _Form.MULTILINE

    def _elements_fit(self, location: Location, items: list[object]) -> bool:
        """Whether each element fits on a line of its own (indented, with its comma)."""
        room = len(self._indent) + 1  # the element's indentation and its comma
        if location in self._notes.inside:
            return all(self._fits((*location, i), room, v) for i, v in enumerate(items))
        inline, width = self._inline, self._width - room
        return all(len(inline(v)) <= width for v in items)

    # -- writing --

    def _plan(self, table: Mapping[str, object], location: Location, *, root: bool) -> _Plan:
        plan: _Plan = []
        scalar_form = _Form.SCALAR
        for key, value in table.items():
            kind = type(value)
            if kind is not dict and kind is not list:
                plan.append((key, value, scalar_form))
                continue
            form = self._choose((*location, key), len(_key(key)), value, root=root, sections=True)
            assert form is not None  # sections allowed: every value can be written
            plan.append((key, value, form))
        return self._in_order(plan, root=root)

    def _in_order(self, plan: _Plan, *, root: bool) -> _Plan:
        """A table of tables (``properties``) keeps its order: after one entry that needs a
        table of its own, the others are tables of their own too (a table's pairs come
        before its tables in TOML)."""
        if root or not plan or not all(type(value) is dict for _k, value, _f in plan):
            return plan
        first = next((i for i, (_k, _v, form) in enumerate(plan) if form in _HEADED), None)
        if first is None:
            return plan
        return [*plan[:first], *((k, v, _Form.SECTION) for k, v, _f in plan[first:])]

    def _body(
        self, table: Mapping[str, object], location: Location, path: tuple[str, ...], *, root: bool
    ) -> None:
        self._write_plan(self._plan(table, location, root=root), location, path)

    def _write_plan(self, plan: _Plan, location: Location, path: tuple[str, ...]) -> None:
        for key, value, form in plan:
            if form not in _HEADED:
                self._pair((*location, key), _key(key), value, form, "")
        for key, value, form in plan:
            here = (*location, key)
            if form is _Form.SECTION:
                self._section(value, here, (*path, key))
            elif form is _Form.TABLES:
                self._tables(value, here, (*path, key))

    def _header_path(self, path: tuple[str, ...]) -> str:
        return ".".join(_key(k) for k in path)

    def _section(
        self, table: Mapping[str, object], location: Location, path: tuple[str, ...]
    ) -> None:
        plan = self._plan(table, location, root=False)
        notes = self._notes
        headed_only = bool(plan) and all(form in _HEADED for _k, _v, form in plan)
        if headed_only and location not in notes.trailing:
            # Only tables below: their headers say it all (``[a.b]`` makes ``a``).
            self._carry.extend(notes.before.pop(location, []))
        else:
            self._header(location, f"[{self._header_path(path)}]")
        self._write_plan(plan, location, path)

    def _tables(
        self, items: list[Mapping[str, object]], location: Location, path: tuple[str, ...]
    ) -> None:
        header = f"[[{self._header_path(path)}]]"
        self._carry.extend(self._notes.before.pop(location, []))
        own_trailing = self._notes.trailing.pop(location, None)
        for index, item in enumerate(items):
            here = (*location, index)
            self._header(here, header, extra_trailing=own_trailing if index == 0 else None)
            self._body(item, here, path, root=False)
        self._lines(self._notes.closing.pop(location, []), "")

    def _header(self, location: Location, header: str, extra_trailing: str | None = None) -> None:
        lines = [*self._carry, *self._notes.before.pop(location, [])]
        self._carry = []
        self._blank()
        self._lines(lines, "")
        trailing = [t for t in (extra_trailing, self._notes.trailing.pop(location, None)) if t]
        self._out.append(header + "".join(f"  {t}" for t in trailing))

    def _blank(self) -> None:
        if self._out and self._out[-1]:
            self._out.append("")

    def _lines(self, lines: list[str], indent: str) -> None:
        """Blank and comment lines, a run of blank lines written as one."""
        out = self._out
        for line in lines:
            if line:
                out.append(indent + line)
            elif out and out[-1]:
                out.append("")

    def _trail(self, location: Location, line: str) -> str:
        trailing = self._notes.trailing
        return f"{line}  {trailing.pop(location)}" if location in trailing else line

    def _before(self, location: Location, indent: str) -> None:
        if self._carry:
            self._lines(self._carry, indent)
            self._carry = []
        before = self._notes.before
        if location in before:
            self._lines(before.pop(location), indent)

    def _pair(self, location: Location, key: str, value: Any, form: _Form, indent: str) -> None:
        self._before(location, indent)
        if form is _Form.SCALAR:
            text = _multiline_string(value) if type(value) is str else None
            self._out.append(
                self._trail(location, f"{indent}{key} = {text or self._inline(value)}")
            )
        elif form is _Form.INLINE:
            self._out.append(self._trail(location, f"{indent}{key} = {self._inline(value)}"))
        elif form is _Form.MULTILINE:
            self._array(location, f"{indent}{key} = ", value, indent, "")
        else:
            self._dotted(location, key, value, indent)

    def _dotted(
        self, location: Location, key: str, table: Mapping[str, object], indent: str
    ) -> None:
        first = len(self._out)
        for sub, value in table.items():
            here = (*location, sub)
            form = self._sub_form(location, len(indent) + len(key), sub, value)
            assert form is not None and form not in _HEADED  # checked by ``_dottable``
            self._pair(here, f"{key}.{_key(sub)}", value, form, indent)
        trailing = self._notes.trailing.pop(location, None)
        if trailing is not None:
            at = next(
                i for i in range(first, len(self._out)) if self._out[i].lstrip()[:1] not in "#"
            )
            self._out[at] = f"{self._out[at]}  {trailing}"

    def _array(
        self, location: Location, opener: str, items: list[object], indent: str, end: str
    ) -> None:
        self._out.append(self._trail(location, f"{opener}["))
        inner = indent + self._indent
        for index, item in enumerate(items):
            self._element((*location, index), item, inner)
        self._lines(self._notes.closing.pop(location, []), inner)
        closing = f"{indent}]{end}"
        trailing = self._notes.closing_trailing.pop(location, None)
        self._out.append(closing if trailing is None else f"{closing}  {trailing}")

    def _element(self, location: Location, item: object, indent: str) -> None:
        self._before(location, indent)
        if type(item) is list and not self._fits(location, len(indent) + 1, item):
            self._array(location, indent, item, indent, ",")
            return
        if location in self._notes.inside:
            self._hoist(location, indent)
        self._out.append(self._trail(location, f"{indent}{self._inline(item)},"))

    def _hoist(self, location: Location, indent: str) -> None:
        """The notes of what a one-line element holds, written above it."""
        notes = self._notes
        size = len(location)
        for where in (notes.before, notes.closing):
            for loc in [loc for loc in where if loc[:size] == location]:
                self._lines(where.pop(loc), indent)
        for trail in (notes.trailing, notes.closing_trailing):
            for loc in [loc for loc in trail if loc[:size] == location and loc != location]:
                self._lines([trail.pop(loc)], indent)

    def _leftovers(self) -> None:
        """Notes whose item was not written apart (inside a one-line value of a pair):
        at the end rather than lost. Not expected: such values have no notes."""
        notes = self._notes
        rest: list[str] = [*self._carry]
        for where in (notes.before, notes.closing):
            for loc in [loc for loc in where if loc != ()]:
                rest.extend(where.pop(loc))
        for trail in (notes.trailing, notes.closing_trailing):
            rest.extend(trail.values())
            trail.clear()
        if rest:
            self._blank()
            self._lines(rest, "")


# ---------------------------------------------------------------------------
# Converting a document


@dataclass
class Export:
    """A document converted: its text, and how many comments the target could not hold."""

    text: str
    dropped_comments: int = 0


def export_document(parsed: ParsedDocument, load: LoadResult, target: str) -> Export:
    """``parsed`` (with the model ``load`` built from it, every piece loaded) in the
    ``target`` syntax, ``"json"`` or ``"toml"``. Raises ``ExportError`` for what the
    target cannot hold (a null in TOML; an unknown key the canonical JSON has no
    place for), naming each place."""
    workflow = load.workflow
    if workflow is None:
        raise ExportError("the document is not a workflow")
    if target == "json":
        data = canonical_dump(workflow)
        _keep_unknown_keys(data, parsed)
        dropped = count_comments(parsed.text) if parsed.syntax == "toml" else 0
        return Export(json_text(data), dropped)
    if parsed.syntax == "toml":
        return Export(write_toml(parsed, parsed.values, workflow))
    model = _ModelValues(workflow)
    values = _lean_values(parsed.values, load, model)
    try:
        return Export(_Writer(values).document())
    except ExportError:
        _refuse_nulls(values, (), parsed)  # the writer stops at the first: name them all
        raise


_Piece = tuple[BaseModel, dict[str, object], dict[str, object]]
"""A piece's model, its JSON values and those not equal to its defaults."""


def write_toml(
    parsed: ParsedDocument,
    values: Mapping[str, object],
    workflow: Workflow | None,
    *,
    width: int = LINE_WIDTH,
    indent: str = "  ",
    inline_arrays: Collection[Location] = (),
) -> str:
    """A TOML document written again: ``values`` (its own, or the same in another key
    order) with its comments and blank lines, each with the item it goes with, and its
    tables in the forms the source wrote them (``_Writer``), but for the arrays at
    ``inline_arrays``, written inline (one element a line when too long) even where the
    source wrote arrays of tables, unless an element cannot be (a comment inside it, a
    line too long). With ``workflow``, the document's model with every piece loaded (so
    its indexes are the document's), a path string written otherwise than canonically
    is written canonically; raises ``ExportError`` for a value TOML cannot hold."""
    forms = _source_forms(parsed)
    if inline_arrays:
        source_form = forms

        def forms(location: Location, array: bool) -> _Form | None:
            if array and location in inline_arrays:
                return _Form.INLINE
            return source_form(location, array)

    if workflow is None:
        return _Writer(values, source_notes(parsed), forms, width=width, indent=indent).document()
    # Written as they are; only when some string could be a path written otherwise
    # than canonically (rare) once more, with the model's paths.
    writer = _Writer(
        values, source_notes(parsed), forms, watch=_maybe_path, width=width, indent=indent
    )
    text = writer.document()
    if writer.watched:
        text = _Writer(
            canonical_paths(values, workflow),
            source_notes(parsed),
            forms,
            width=width,
            indent=indent,
        ).document()
    return text


def canonical_paths(values: Mapping[str, object], workflow: Workflow) -> Mapping[str, object]:
    """A document's values with each path string written otherwise than canonically in
    its canonical form (``format_segments``); ``workflow`` is the document's model with
    every piece loaded, whose value at a string's place tells that it is a path. The
    very same objects where nothing changes."""
    return _canonical_paths(values, (), _ModelValues(workflow))


class _ModelValues:
    """The model's JSON values, dumped a piece at a time when first asked for."""

    def __init__(self, workflow: Workflow) -> None:
        self._workflow = workflow
        self._pieces: dict[tuple[str, int], _Piece] = {}
        self._top: tuple[dict[str, object], dict[str, object]] | None = None

    def piece(self, kind: str, index: int) -> _Piece:
        """The model of ``kind[index]``, its JSON values and those not equal to defaults."""
        key = (kind, index)
        found = self._pieces.get(key)
        if found is None:
            model: BaseModel = getattr(self._workflow, kind)[index]
            found = (
                model,
                model.model_dump(mode="json", by_alias=True),
                short_dump(model),
            )
            self._pieces[key] = found
        return found

    def top(self) -> tuple[dict[str, object], dict[str, object]]:
        if self._top is None:
            lists = set(_LIST_KEYS)
            self._top = (
                self._workflow.model_dump(mode="json", by_alias=True, exclude=lists),
                self._workflow.model_dump(
                    mode="json", by_alias=True, exclude=lists, exclude_defaults=True
                ),
            )
        return self._top

    def default_list(self, key: str) -> bool:
        """Whether the list ``key`` (one of ``_LIST_KEYS``) is the model's default."""
        return not self._workflow.model_dump(include={key}, exclude_defaults=True)

    def value(self, location: Location) -> object:
        """The model's JSON value at a document location (every piece loaded, so the
        document's indexes are the model's); None when it has none there."""
        if len(location) >= 2 and location[0] in _LIST_KEYS and isinstance(location[1], int):
            try:
                data: object = self.piece(str(location[0]), location[1])[1]
            except IndexError:
                return None
            rest = location[2:]
        else:
            data, rest = self.top()[0], location
        for part in rest:
            if isinstance(data, Mapping) and isinstance(part, str):
                data = data.get(part)
            elif isinstance(data, list) and isinstance(part, int) and part < len(data):
                data = data[part]
            else:
                return None
        return data


_LIST_KEYS = ("output", "node_defs", "nodes", "edges")
# A line that starts an array of tables (group 1: its key).
_ARRAY_HEADER = re.compile(r"\n[ \t]*\[\[([^\]\n]*)\]\]")
_PATH_QUOTING = re.compile(r"[\"' \t]")


def _other_form(text: str) -> str | None:
    """The canonical form (``wf_core.language.paths.format_segments``) of a string that reads as a
    path written otherwise; None for any other string. Only a string with quotes or
    blanks can be written otherwise than canonically."""
    if not _PATH_QUOTING.search(text):
        return None
    try:
        canonical = format_segments(parse_toml_key(text))
    except PathResolutionError:
        return None
    return canonical if canonical != text else None


def _maybe_path(text: str) -> bool:
    return _other_form(text) is not None


def _canonical_path(text: str, location: Location, model: _ModelValues) -> str:
    """A path string in its canonical form when the model holds it as a path there; any
    other string as it is."""
    canonical = _other_form(text)
    if canonical is not None and model.value(location) == canonical:
        return canonical
    return text


@overload
def _canonical_paths(
    value: Mapping[str, object], location: Location, model: _ModelValues
) -> Mapping[str, object]: ...
@overload
def _canonical_paths(value: object, location: Location, model: _ModelValues) -> object: ...
def _canonical_paths(value: object, location: Location, model: _ModelValues) -> object:
    """``value`` with its path strings canonical (``_canonical_path``): the very same
    objects where nothing changes, which is nearly everywhere."""
    if isinstance(value, str):
        return _canonical_path(value, location, model)
    if isinstance(value, Mapping):
        changed: dict[str, object] | None = None
        for key, item in value.items():
            if isinstance(item, str) and not _PATH_QUOTING.search(item):
                continue
            new = _canonical_paths(item, (*location, key), model)
            if new is not item:
                changed = changed if changed is not None else dict(value)
                changed[key] = new
        return value if changed is None else changed
    if isinstance(value, list):
        changed_list: list[object] | None = None
        for index, item in enumerate(value):
            if isinstance(item, str) and not _PATH_QUOTING.search(item):
                continue
            new = _canonical_paths(item, (*location, index), model)
            if new is not item:
                changed_list = changed_list if changed_list is not None else list(value)
                changed_list[index] = new
        return value if changed_list is None else changed_list
    return value


def _lean_values(
    values: Mapping[str, object], load: LoadResult, model: _ModelValues
) -> dict[str, object]:
    """A JSON document's values without what equals the model's defaults (canonical
    JSON writes every default, nulls among them), path strings canonical. A piece whose
    model would differ without its defaults (one whose keys' presence matters) keeps
    them, and so does everything if the whole would still differ: the result loads to
    the very same model."""
    workflow = load.workflow
    full, short = model.top()
    lean: dict[str, object] = {}
    for key, value in values.items():
        if key in full and key not in short and value == full[key]:
            continue
        if key in _LIST_KEYS and value == [] and model.default_list(key):
            continue
        if key in _LIST_KEYS and isinstance(value, list):
            lean[key] = [_lean_piece(key, i, item, model) for i, item in enumerate(value)]
        else:
            trimmed = _trim(value, full.get(key), short.get(key), (key,), model)
            if trimmed or not value:  # a table of defaults only goes with them
                lean[key] = trimmed
    reloaded = load_workflow(lean)
    if same_model(reloaded.workflow, workflow):
        return lean
    if not reloaded.issues and reloaded.workflow is not None and workflow is not None:
        _restore_differences(lean, values, reloaded.workflow, workflow, model)
        if same_model(load_workflow(lean).workflow, workflow):
            return lean
    return dict(_canonical_paths(values, (), model))


def _restore_differences(
    lean: dict[str, object],
    values: Mapping[str, object],
    reloaded: Workflow,
    workflow: Workflow,
    model: _ModelValues,
) -> None:
    """Give their defaults back to the pieces of ``lean`` whose model differs."""
    fields = {info.alias or name: name for name, info in type(workflow).model_fields.items()}
    for key, value in values.items():
        if key in _LIST_KEYS and isinstance(value, list):
            ours, theirs = getattr(workflow, key), getattr(reloaded, key)
            for index, item in enumerate(value):
                if (
                    index >= len(theirs)
                    or index >= len(ours)
                    or not same_model(theirs[index], ours[index])
                ):
                    restored = _canonical_paths(item, (key, index), model)
                    pieces = cast(list[object], lean[key])  # (made by ``_lean_values``)
                    pieces[index] = _without_field_nulls(restored)
        elif key in fields and getattr(reloaded, fields[key]) != getattr(workflow, fields[key]):
            lean[key] = _without_field_nulls(_canonical_paths(value, (key,), model))


def _lean_piece(kind: str, index: int, item: object, model: _ModelValues) -> object:
    try:
        _piece, full, short = model.piece(kind, index)
    except IndexError:
        return item
    return _trim(item, full, short, (kind, index), model)


def _trim(
    value: object, full: object, short: object, location: Location, model: _ModelValues
) -> object:
    """``value`` without the keys whose value is the model's default (``full`` holds
    them, ``short`` does not, and the document wrote them as the model dumps them)."""
    if type(value) is dict and type(full) is dict:
        short_map = short if type(short) is dict else {}
        out: dict[str, object] = {}
        for key, item in value.items():
            if key in short_map and item == short_map[key]:
                # Written as the model has it without defaults: nothing to leave out,
                # and its strings are the model's (canonical paths). Most bindings.
                out[key] = item
                continue
            if key in full and key not in short_map and item == full[key]:
                continue
            here = (*location, key)
            if key in full:
                trimmed = _trim(item, full[key], short_map.get(key), here, model)
                # A table of defaults only goes with them, unless the model has it apart
                # from its defaults (a schema a subgraph node declares empty).
                if trimmed or not item or key in short_map:
                    out[key] = trimmed
            else:
                out[key] = _canonical_paths(item, here, model)
        return out
    if type(value) is list and type(full) is list and len(value) == len(full):
        shorts = short if type(short) is list and len(short) == len(full) else None
        return [
            _trim(v, f, None if shorts is None else shorts[i], (*location, i), model)
            for i, (v, f) in enumerate(zip(value, full, strict=True))
        ]
    if isinstance(value, str) and isinstance(full, str) and value != full:
        return _canonical_path(value, location, model)
    return value


def _refuse_nulls(values: object, location: Location, parsed: ParsedDocument) -> None:
    nulls = list(_nulls(values, location))
    if nulls:
        lines = LineIndex(parsed.text)
        places = ", ".join(f"'{_dotted(loc)}' at {_where(parsed, lines, loc)}" for loc in nulls)
        raise ExportError(f"TOML has no null: cannot write the null at {places}")


def _nulls(value: object, location: Location) -> Iterator[Location]:
    """The locations of the nulls in ``value`` (JSON values), in document order."""
    stack: list[tuple[object, Location]] = [(value, location)]
    while stack:
        value, location = stack.pop()
        if value is None:
            yield location
        elif type(value) is dict:
            stack.extend(
                (item, (*location, key))
                for key, item in reversed(value.items())
                if item is None or type(item) is dict or type(item) is list
            )
        elif type(value) is list:
            stack.extend(
                (value[i], (*location, i))
                for i in range(len(value) - 1, -1, -1)
                if value[i] is None or type(value[i]) is dict or type(value[i]) is list
            )


def _dotted(location: Location) -> str:
    return format_location(location) if location else "the top level"


def _where(parsed: ParsedDocument, lines: LineIndex, location: Location) -> str:
    """``line:column`` (1-based, code points) of a location's key, else its value."""
    entry = parsed.source_map.get(location)
    if entry is None:
        return "an unknown place"
    line, column = lines.position((entry.value if entry.key is None else entry.key).start)
    return f"{line + 1}:{column + 1}"


def written_form(entry: Entry, text: str) -> _Form:
    """How a TOML text wrote a value: a table or array of tables with headers
    (``[a]``, ``[[a]]``, or a table such a header made), a table made by dotted keys
    (``a.b = 1``), or inline (a scalar too)."""
    key, value = entry.key, entry.value
    if key is not None and key.start == value.start:
        return _Form.DOTTED
    headed = key.start > value.start if key is not None else entry.kind == Kind.OBJECT
    if headed and text.startswith("[", value.start):
        if entry.kind == Kind.OBJECT and not text.startswith("[[", value.start):
            return _Form.SECTION
        return _Form.TABLES if entry.kind == Kind.ARRAY else _Form.SECTION
    return _Form.INLINE


def _source_forms(parsed: ParsedDocument) -> SourceForm:
    """How a TOML document wrote each table and array (``written_form``). An array is
    asked of the source map only when an ``[[...]]`` header names its keys: the others
    (a node's bindings, thousands of them) are inline."""
    source_map, text = parsed.source_map, parsed.text
    headed: set[tuple[str, ...]] = set()
    for match in _ARRAY_HEADER.finditer("\n" + text):
        try:
            headed.add(parse_toml_key(match.group(1)))
        except PathResolutionError:
            continue

    def form(location: Location, array: bool) -> _Form | None:
        if array and tuple(part for part in location if type(part) is str) not in headed:
            return _Form.INLINE
        entry = source_map.get(location)
        return _Form.INLINE if entry is None else written_form(entry, text)

    return form


def _keep_unknown_keys(data: dict[str, object], parsed: ParsedDocument) -> None:
    """Put the keys lda-wf does not know (and ``$schema``) into the canonical JSON, each
    in its table after the key it followed; ``ExportError`` naming each one the
    canonical JSON has no table for."""
    values = parsed.values
    keys: list[Location] = [(k,) for k in TOP_LEVEL_EXTRAS if k in values]
    keys.extend(issue.location for issue in unknown_keys(values) if issue.location)
    lost: list[Location] = []
    for location in keys:
        table, document_table = _table_at(data, location[:-1]), _table_at(values, location[:-1])
        if not isinstance(table, dict) or not isinstance(document_table, Mapping):
            lost.append(location)
            continue
        _insert_after(table, document_table, str(location[-1]))
    if lost:
        lines = LineIndex(parsed.text)
        places = ", ".join(f"'{loc[-1]}' at {_where(parsed, lines, loc)}" for loc in lost)
        raise ExportError(f"canonical JSON has no place for the unknown keys {places}")


def _table_at(data: object, location: Location) -> object:
    for part in location:
        if isinstance(data, Mapping) and isinstance(part, str):
            data = data.get(part)
        elif isinstance(data, list) and isinstance(part, int) and part < len(data):
            data = data[part]
        else:
            return None
    return data


def _insert_after(table: dict[str, object], document_table: Mapping[str, object], key: str) -> None:
    """``document_table[key]`` into ``table``, after the nearest key before it there."""
    value = to_jsonable_python(document_table[key])
    keys = list(document_table)
    anchor = next((k for k in reversed(keys[: keys.index(key)]) if k in table), None)
    items = list(table.items())
    at = 0 if anchor is None else next(i for i, (k, _v) in enumerate(items) if k == anchor) + 1
    items.insert(at, (key, value))
    table.clear()
    table.update(items)
