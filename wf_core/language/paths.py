"""Paths into workflow data: graph sources, state destinations and local payload paths.

A path's canonical string form is a TOML key expression (``input."a b".c``).
Parsing delegates the key grammar to ``tomllib`` so that every string the
project accepts is exactly a TOML dotted key; formatting goes through the one
canonical formatter below (``format_segments``), which every printed or
inserted path in the project uses, so the same path always reads the same way.

Invariants, enforced by the constructors and therefore by every way of making
a path (parsing, fragment helpers, structural objects, pydantic input):

- ``parts`` is a tuple of strings;
- every segment contains a non-whitespace character and no control character;
- ``GraphSourcePath.root`` is ``input``, ``state`` or ``context``;
- a ``StatePath`` has at least one part (bare ``state`` is not a destination).
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING, ClassVar

from pydantic_core import core_schema

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler, JsonValue
    from pydantic.json_schema import JsonSchemaValue

__all__ = [
    "BARE_KEY_RE",
    "GRAPH_SOURCE_ROOTS",
    "STATE_PATH_MESSAGE",
    "GraphSourcePath",
    "LocalPath",
    "LocalPathError",
    "PathResolutionError",
    "StatePath",
    "format_owner_stack",
    "format_segment",
    "format_segments",
    "get_nested_value",
    "has_overlapping_paths",
    "is_valid_destination_path",
    "is_valid_source_path",
    "parse_toml_key",
    "path_exists",
    "path_parts_overlap",
    "quote_bare_segments",
    "resolve_graph_path",
    "set_nested_value",
    "split_graph_path",
    "validate_segment",
]


class PathResolutionError(ValueError):
    """A path that cannot be parsed, built or resolved.

    A ``ValueError`` so that pydantic validators turn it into an ordinary
    validation error carrying the message.
    """


class LocalPathError(PathResolutionError):
    """A local (payload-relative) path problem, kept apart for binding-target checks."""


BARE_KEY_RE = re.compile(r"[A-Za-z0-9_-]+")
GRAPH_SOURCE_ROOTS: tuple[str, ...] = ("input", "state", "context")
STATE_PATH_MESSAGE = "expected state path such as state.foo"

_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
_WRAPPER_KEY = "__wf_path__"
# Characters TOML allows outside quotes in a dotted key: bare-key characters,
# the separator and the two TOML whitespace characters.
_KEY_SYNTAX_CHARS = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-. \t"
)


# ---------------------------------------------------------------------------
# Canonical string form


def format_segment(seg: str) -> str:
    """Bare when TOML allows it, otherwise a JSON string, which is also a valid TOML basic string.

    ``json.dumps`` escapes exactly what TOML basic strings require (quotes,
    backslashes, control characters) and, with ``ensure_ascii=False``, keeps
    other characters readable.
    """
    if BARE_KEY_RE.fullmatch(seg):
        return seg
    return json.dumps(seg, ensure_ascii=False)


def format_segments(segments: Iterable[str]) -> str:
    """The canonical path text; ``parse_toml_key`` gives the same segments back."""
    return ".".join(format_segment(seg) for seg in segments)


def format_owner_stack(stack: Iterable[str]) -> str:
    """An owner stack as people read it, outermost first: ``customers > "orders.v2"``.

    Each foreach id is written as the path segment it is in ``context.foreach.<id>``,
    so a dotted id reads the same in every command that prints a stack.
    """
    text = " > ".join(format_segment(owner) for owner in stack)
    return text or "no active loop"


def _toml_path_error(text: object) -> str:
    """lda-wf's message, with a hint that names what is actually wrong.

    lda-wf always suggests quoting; that is only the right advice when a
    segment holds characters a bare key cannot, so the hint is chosen from
    where the tolerant scanner found the first fault.
    """
    return f"invalid TOML path {text!r}; {_toml_path_hint(text)}"


QUOTE_HINT = "quote path segments containing dots or spaces"
GENERIC_HINT = (
    "a path is segments joined by '.', and a segment other than A-Z, a-z, 0-9, '_' and '-' "
    "is quoted"
)


def _toml_path_hint(text: object) -> str:
    """The advice for a path that does not parse, from where the first fault is."""
    if not isinstance(text, str):
        return GENERIC_HINT
    if not text.strip():
        return "a path needs at least one segment"
    if "\n" in text or "\r" in text:
        return "a path is a single line"
    if text.lstrip().startswith("{"):
        return "a path is written as text such as input.a.b, not as an object"
    from wf_core.language.path_scan import scan_path  # only broken paths need the scanner

    scan = scan_path(text)
    offset = scan.error_offset
    if offset is None:
        return GENERIC_HINT
    for segment in scan.segments:
        if segment.quote is not None and not segment.closed:
            return "a quoted segment is not closed"
    stripped = text.strip()
    if stripped.startswith("."):
        return "a segment is missing before the first '.'"
    if stripped.endswith("."):
        return "a segment is missing after the last '.'"
    if ".." in "".join(stripped.split()):
        return "a segment is missing between two '.'"
    if any(ch in " \t" for ch in stripped) and "=" not in stripped:
        return QUOTE_HINT
    for segment in scan.segments:
        if segment.quote is None and segment.start <= offset < segment.end:
            quoted = json.dumps(segment.value, ensure_ascii=False)
            fixed = text[: segment.start] + quoted + text[segment.end :]
            if scan_path(fixed).valid:
                return (
                    f"quote the segment {quoted}: unquoted segments may only contain A-Z, a-z, "
                    "0-9, '_' and '-'"
                )
    return GENERIC_HINT


def quote_bare_segments(text: str) -> str | None:
    """``text`` with every unquoted segment a bare key cannot hold written by the canonical
    formatter (``a.skü`` → ``a."skü"``): the fix the hint above names. None when there is
    no such segment, or quoting them does not make a valid path."""
    from wf_core.language.path_scan import scan_path

    fixed = text
    changed = False
    for segment in reversed(scan_path(text).segments):
        if segment.quote is None and segment.value and not BARE_KEY_RE.fullmatch(segment.value):
            fixed = fixed[: segment.start] + format_segment(segment.value) + fixed[segment.end :]
            changed = True
    return fixed if changed and scan_path(fixed).valid else None


def validate_segment(
    segment: str, kind: str, error: type[PathResolutionError] = PathResolutionError
) -> str:
    """Reject segments that no document could show or type unambiguously.

    Whitespace-only and empty segments are checked before control characters,
    so a lone tab reads as an empty segment rather than as a control character.
    """
    if not segment.strip():
        raise error(f"invalid {kind} segment {segment!r}")
    if _CONTROL_RE.search(segment):
        raise error(f"invalid {kind} segment {segment!r}; control characters are not allowed")
    return segment


def _is_key_shaped(text: str) -> bool:
    """True when, outside quoted strings, ``text`` holds only dotted-key characters.

    ``tomllib`` parses the text inside a wrapper document, so without this
    guard text such as ``a = {b = true} } #`` would close the wrapper's inline
    table early and still parse. Quoted strings are skipped the way TOML reads
    them (escapes only in basic strings); a raw line break is never part of a
    one-line key, so any line break rejects the text outright.
    """
    if "\n" in text or "\r" in text:
        return False
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            if i >= n:
                return False
        elif ch == "'":
            close = text.find("'", i + 1)
            if close == -1:
                return False
            i = close
        elif ch not in _KEY_SYNTAX_CHARS:
            return False
        i += 1
    return True


_PLAIN_DOTTED_RE = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*")
# Segments bare or quoted without escapes (a basic or literal string holding no
# quote of its kind, no backslash in a basic one, no control character but tab),
# joined by single dots: their decoded value is their text between the quotes, so
# they are split here instead of by a TOML parse of a wrapper document (50 µs each,
# and a workflow with a thousand loops named ``"orders.v2"`` spells a thousand).
_SIMPLE_SEGMENT = (
    r"[A-Za-z0-9_-]+"
    r'|"[^"\\\x00-\x08\x0a-\x1f\x7f]*"'
    r"|'[^'\x00-\x08\x0a-\x1f\x7f]*'"
)
_SIMPLE_DOTTED_RE = re.compile(rf"(?:{_SIMPLE_SEGMENT})(?:\.(?:{_SIMPLE_SEGMENT}))*")
_SIMPLE_SEGMENT_RE = re.compile(rf"\.?({_SIMPLE_SEGMENT})")


# Parsed quoted paths by text: a workflow repeats the same few paths many times,
# and each would otherwise cost a whole TOML document parse. Only successes are
# kept (errors depend on ``kind``); the bound keeps a long editing session small.
_PARSED: dict[str, tuple[str, ...]] = {}
_PARSED_LIMIT = 4096


def _parse_key(text: str, kind: str, error: type[PathResolutionError]) -> tuple[str, ...]:
    # Fast path: bare segments joined by single dots parse to exactly their split,
    # and they are what nearly every real path looks like.
    if isinstance(text, str) and _PLAIN_DOTTED_RE.fullmatch(text):
        return tuple(text.split("."))
    known = _PARSED.get(text) if isinstance(text, str) else None
    if known is not None:
        return known
    segments = _parse_key_uncached(text, kind, error)
    if len(_PARSED) >= _PARSED_LIMIT:
        _PARSED.clear()
    _PARSED[text] = segments
    return segments


def _parse_key_uncached(text: str, kind: str, error: type[PathResolutionError]) -> tuple[str, ...]:
    if not isinstance(text, str) or not _is_key_shaped(text):
        raise error(_toml_path_error(text))
    if _SIMPLE_DOTTED_RE.fullmatch(text):
        simple = [m.group(1) for m in _SIMPLE_SEGMENT_RE.finditer(text)]
        decoded = tuple(seg[1:-1] if seg[0] in "\"'" else seg for seg in simple)
        for seg in decoded:
            validate_segment(seg, kind, error)
        return decoded
    try:
        document = tomllib.loads(f"{_WRAPPER_KEY} = {{ {text} = true }}")
    except tomllib.TOMLDecodeError:
        raise error(_toml_path_error(text)) from None
    if list(document) != [_WRAPPER_KEY]:
        raise error(_toml_path_error(text))
    segments: list[str] = []
    node: object = document[_WRAPPER_KEY]
    while isinstance(node, dict):
        if len(node) != 1:
            raise error(_toml_path_error(text))
        ((key, node),) = node.items()
        segments.append(key)
    if node is not True or not segments:
        raise error(_toml_path_error(text))
    for seg in segments:
        validate_segment(seg, kind, error)
    return tuple(segments)


@lru_cache(maxsize=4096)
def _format_tuple(segments: tuple[str, ...]) -> str:
    """``format_segments`` for the path types: their segments repeat across a workflow."""
    return format_segments(segments)


def parse_toml_key(text: str, kind: str = "TOML path") -> tuple[str, ...]:
    """Split a TOML key expression into its decoded segments.

    ``kind`` names the path in segment errors (``TOML path``, ``local``,
    ``graph source`` or ``state``); syntax errors always read ``invalid TOML
    path ...`` because the problem is the key syntax, whatever the path is for.
    """
    return _parse_key(text, kind, PathResolutionError)


# ---------------------------------------------------------------------------
# Shared construction and pydantic plumbing


def _checked_parts(parts: object, kind: str, error: type[PathResolutionError]) -> tuple[str, ...]:
    if isinstance(parts, str | bytes) or not isinstance(parts, Iterable):
        raise error(f"{kind} path parts must be strings")
    result = tuple(parts)
    if not all(isinstance(part, str) for part in result):
        raise error(f"{kind} path parts must be strings")
    for part in result:
        validate_segment(part, kind, error)
    return result


def _split_fragments(
    fragments: tuple[object, ...], kind: str, error: type[PathResolutionError]
) -> tuple[str, ...]:
    """Split code-written fragments on dots: a convenience for literals, not a parser.

    No TOML and no quoting, so ``"a.b"`` is two parts; a part that needs a dot
    must be given structurally (the constructor or ``parts`` in an object).
    """
    parts: list[str] = []
    for fragment in fragments:
        if not isinstance(fragment, str):
            raise error(f"invalid {kind} path {fragment!r}")
        if not fragment:
            raise error(f"invalid {kind} path")
        pieces = fragment.split(".")
        if any(not piece for piece in pieces):
            raise error(f"invalid {kind} path {fragment!r}")
        parts.extend(pieces)
    return tuple(parts)


def _structural_parts(
    value: Mapping[str, object], kind: str, error: type[PathResolutionError]
) -> tuple[str, ...]:
    """Structural ``parts`` are literal segments; a missing ``parts`` means none."""
    parts = value.get("parts", [])
    if not isinstance(parts, list | tuple):
        raise error(f"{kind} path parts must be strings")
    return _checked_parts(parts, kind, error)


def _path_json_schema(root: dict[str, object], min_items: int) -> dict[str, object]:
    return {
        "oneOf": [
            {"type": "string"},
            {
                "type": "object",
                "additionalProperties": False,
                "required": ["root", "parts"],
                "properties": {
                    "root": root,
                    "parts": {
                        "type": "array",
                        "items": {"type": "string", "minLength": 1},
                        "minItems": min_items,
                    },
                },
            },
        ]
    }


class _PydanticPath:
    """Pydantic v2 hooks shared by the path types.

    Validation is a plain function (``_coerce``) so the accepted inputs and the
    error texts are the same wherever a path appears; serialization is always
    the canonical string, in Python and JSON mode alike.
    """

    __slots__ = ()

    # Each path type supplies ``_coerce(value)`` and these two schema details.
    if TYPE_CHECKING:

        @classmethod
        def _coerce(cls, value: object) -> _PydanticPath: ...

    _JSON_ROOT: ClassVar[dict[str, object]]
    _JSON_MIN_ITEMS: ClassVar[int]

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: object, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            cls._coerce,
            serialization=core_schema.plain_serializer_function_ser_schema(str, when_used="always"),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return _path_json_schema(copy.deepcopy(cls._JSON_ROOT), cls._JSON_MIN_ITEMS)


# ---------------------------------------------------------------------------
# Path types


@dataclass(frozen=True, slots=True)
class GraphSourcePath(_PydanticPath):
    """Where a value is read from: workflow input, state or the graph context.

    Invariant (checked on construction): ``root`` is one of
    ``GRAPH_SOURCE_ROOTS`` and every part is a valid segment. Empty ``parts``
    means the whole root value.
    """

    root: str
    parts: tuple[str, ...] = ()

    _KIND: ClassVar[str] = "graph source"
    _JSON_ROOT: ClassVar[dict[str, object]] = {"enum": list(GRAPH_SOURCE_ROOTS)}
    _JSON_MIN_ITEMS: ClassVar[int] = 0

    def __post_init__(self) -> None:
        if not isinstance(self.root, str) or self.root not in GRAPH_SOURCE_ROOTS:
            raise PathResolutionError(f"unknown path root {self.root!r}")
        object.__setattr__(
            self, "parts", _checked_parts(self.parts, self._KIND, PathResolutionError)
        )

    @classmethod
    def parse(cls, text: str) -> GraphSourcePath:
        segments = parse_toml_key(text, cls._KIND)
        return cls(segments[0], segments[1:])

    @classmethod
    def input(cls, *fragments: str) -> GraphSourcePath:
        return cls("input", _split_fragments(fragments, cls._KIND, PathResolutionError))

    @classmethod
    def state(cls, *fragments: str) -> GraphSourcePath:
        return cls("state", _split_fragments(fragments, cls._KIND, PathResolutionError))

    @classmethod
    def context(cls, *fragments: str) -> GraphSourcePath:
        return cls("context", _split_fragments(fragments, cls._KIND, PathResolutionError))

    @property
    def segments(self) -> tuple[str, ...]:
        """The root followed by the parts: what the canonical string spells out."""
        return (self.root, *self.parts)

    @property
    def is_root(self) -> bool:
        return not self.parts

    def child(self, *parts: str) -> GraphSourcePath:
        """Append literal segments (no splitting, unlike the fragment helpers)."""
        return GraphSourcePath(self.root, (*self.parts, *parts))

    def __str__(self) -> str:
        return _format_tuple(self.segments)

    @classmethod
    def _coerce(cls, value: object) -> GraphSourcePath:
        if isinstance(value, str):  # a document's value, the common case: tested first
            return _parse_graph_source(value)
        if isinstance(value, GraphSourcePath):
            return cls(value.root, value.parts)
        if isinstance(value, Mapping):
            root = value.get("root")
            if not isinstance(root, str) or root not in GRAPH_SOURCE_ROOTS:
                raise PathResolutionError("expected graph source path root")
            return cls(root, _structural_parts(value, cls._KIND, PathResolutionError))
        raise PathResolutionError("expected graph source path string or structural object")


@dataclass(frozen=True, slots=True)
class StatePath(_PydanticPath):
    """Where a value is written: a field inside workflow state.

    Invariant (checked on construction): at least one part, each a valid
    segment; replacing the whole state is not a destination.
    """

    parts: tuple[str, ...]

    _KIND: ClassVar[str] = "state"
    _JSON_ROOT: ClassVar[dict[str, object]] = {"const": "state"}
    _JSON_MIN_ITEMS: ClassVar[int] = 1

    def __post_init__(self) -> None:
        parts = _checked_parts(self.parts, self._KIND, PathResolutionError)
        if not parts:
            raise PathResolutionError(STATE_PATH_MESSAGE)
        object.__setattr__(self, "parts", parts)

    @classmethod
    def parse(cls, text: str) -> StatePath:
        """Parsed as a graph source first, so other roots get the state-path message."""
        source = GraphSourcePath.parse(text)
        if source.root != "state" or not source.parts:
            raise PathResolutionError(STATE_PATH_MESSAGE)
        return cls(source.parts)

    @classmethod
    def of(cls, *fragments: str) -> StatePath:
        return cls(_split_fragments(fragments, cls._KIND, PathResolutionError))

    @property
    def root(self) -> str:
        return "state"

    @property
    def segments(self) -> tuple[str, ...]:
        return ("state", *self.parts)

    @property
    def field(self) -> str:
        """The root state field the write lands in."""
        return self.parts[0]

    def as_source(self) -> GraphSourcePath:
        """The same location read back as a graph source."""
        return GraphSourcePath("state", self.parts)

    def __str__(self) -> str:
        return _format_tuple(self.segments)

    @classmethod
    def _coerce(cls, value: object) -> StatePath:
        if isinstance(value, str):  # a document's value, the common case: tested first
            return _parse_state(value)
        if isinstance(value, StatePath):
            return cls(value.parts)
        if isinstance(value, Mapping):
            if value.get("root") != "state":
                raise PathResolutionError("expected state path root")
            return cls(_structural_parts(value, cls._KIND, PathResolutionError))
        raise PathResolutionError("expected state path string or structural object")


@dataclass(frozen=True, slots=True)
class LocalPath(_PydanticPath):
    """A path relative to a payload (a binding target or output source).

    No root prefix; empty ``parts`` is the payload itself, written ``.``.
    Invariant (checked on construction): every part is a valid segment.
    All errors are ``LocalPathError``.
    """

    parts: tuple[str, ...] = ()

    _KIND: ClassVar[str] = "local"
    _JSON_ROOT: ClassVar[dict[str, object]] = {"const": "local"}
    _JSON_MIN_ITEMS: ClassVar[int] = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "parts", _checked_parts(self.parts, self._KIND, LocalPathError))

    @classmethod
    def parse(cls, text: str) -> LocalPath:
        if text == ".":
            return cls(())
        return cls(_parse_key(text, cls._KIND, LocalPathError))

    @classmethod
    def of(cls, *fragments: str) -> LocalPath:
        return cls(_split_fragments(fragments, cls._KIND, LocalPathError))

    @property
    def segments(self) -> tuple[str, ...]:
        return self.parts

    @property
    def is_root(self) -> bool:
        return not self.parts

    def child(self, *parts: str) -> LocalPath:
        """Append literal segments (no splitting, unlike ``of``)."""
        return LocalPath((*self.parts, *parts))

    def __str__(self) -> str:
        return _format_tuple(self.parts) if self.parts else "."

    @classmethod
    def _coerce(cls, value: object) -> LocalPath:
        if isinstance(value, str):  # a document's value, the common case: tested first
            return _parse_local(value)
        if isinstance(value, LocalPath):
            return cls(value.parts)
        if isinstance(value, Mapping):
            if value.get("root") != "local":
                raise LocalPathError("expected local path root")
            return cls(_structural_parts(value, cls._KIND, LocalPathError))
        raise LocalPathError("expected local path string or structural object")


# Parses for the pydantic hooks. Paths are immutable values and a workflow spells
# the same path in many bindings (every node of a loop body reads the same item),
# so one parse serves them all; a text that fails to parse raises each time.
_parse_graph_source = lru_cache(maxsize=4096)(GraphSourcePath.parse)
_parse_state = lru_cache(maxsize=4096)(StatePath.parse)
_parse_local = lru_cache(maxsize=4096)(LocalPath.parse)


# ---------------------------------------------------------------------------
# Helpers


def _as_graph_path(path: GraphSourcePath | StatePath | str) -> GraphSourcePath | StatePath:
    if isinstance(path, GraphSourcePath | StatePath):
        return path
    return GraphSourcePath.parse(path)


def split_graph_path(path: GraphSourcePath | StatePath | str) -> tuple[str, list[str]]:
    """``(root, parts)`` for any graph-rooted path, including destinations."""
    parsed = _as_graph_path(path)
    return parsed.root, list(parsed.parts)


def is_valid_source_path(
    path: GraphSourcePath | StatePath | str,
    state_root_fields: Iterable[str],
    input_root_fields: Iterable[str],
    *,
    allow_context: bool = False,
) -> bool:
    """Coarse static check of a read: only the first segment is compared with the schema.

    Context paths are accepted wholesale when allowed, because the context is
    checked elsewhere against the schema of the node that reads it.
    """
    try:
        root, parts = split_graph_path(path)
    except PathResolutionError:
        return False
    if root == "context":
        return allow_context
    if not parts:
        return True
    fields = state_root_fields if root == "state" else input_root_fields
    return parts[0] in fields


def is_valid_destination_path(path: object) -> bool:
    try:
        StatePath.parse(str(path))
    except PathResolutionError:
        return False
    return True


def resolve_graph_path(
    path: GraphSourcePath | StatePath | str,
    *,
    state: object,
    workflow_input: object,
    context: object,
) -> object:
    """Read a value, descending through mappings only (lists have no index syntax)."""
    parsed = _as_graph_path(path)
    current = {"state": state, "input": workflow_input, "context": context}[parsed.root]
    for part in parsed.parts:
        if not isinstance(current, Mapping) or part not in current:
            raise PathResolutionError(f"path {str(parsed)!r} could not be resolved")
        current = current[part]
    return current


def path_exists(
    path: GraphSourcePath | StatePath | str,
    *,
    state: object,
    workflow_input: object,
    context: object,
) -> bool:
    try:
        resolve_graph_path(path, state=state, workflow_input=workflow_input, context=context)
    except PathResolutionError:
        return False
    return True


def get_nested_value(data: JsonValue, parts: Sequence[str] | LocalPath) -> JsonValue:
    """The value at ``parts`` or None; a stored None and a miss read the same."""
    if isinstance(parts, LocalPath):
        parts = parts.parts
    current = data
    for part in parts:
        if not isinstance(current, Mapping) or part not in current:
            return None
        current = current[part]
    return current


def set_nested_value(
    state: dict[str, JsonValue], parts: Sequence[str] | LocalPath, value: JsonValue
) -> None:
    """Write ``value`` in place, creating missing or None levels as empty objects.

    An existing non-object level is an error rather than being replaced, so a
    write never silently discards data.
    """
    if isinstance(parts, LocalPath):
        parts = parts.parts
    if not parts:
        raise PathResolutionError("cannot set value with empty path")
    current = state
    for part in parts[:-1]:
        nxt = current.get(part)
        if nxt is None:
            nxt = {}
            current[part] = nxt
        elif not isinstance(nxt, MutableMapping):
            raise PathResolutionError(f"cannot descend into non-object state field {part!r}")
        current = nxt
    current[parts[-1]] = value


def path_parts_overlap(
    a: Sequence[str] | LocalPath | StatePath, b: Sequence[str] | LocalPath | StatePath
) -> bool:
    """True when writing one path would touch the other: one is a prefix of the other."""
    left = tuple(a.parts if isinstance(a, LocalPath | StatePath) else a)
    right = tuple(b.parts if isinstance(b, LocalPath | StatePath) else b)
    shorter = min(len(left), len(right))
    return left[:shorter] == right[:shorter]


def has_overlapping_paths(paths: Iterable[LocalPath | Sequence[str]]) -> bool:
    """True when any two of ``paths`` overlap (duplicates included).

    After sorting, a path that is a prefix of another sorts before it and
    before everything in between, so comparing neighbours is enough.
    """
    ordered = [p.parts if isinstance(p, LocalPath) else tuple(p) for p in paths]
    if len(ordered) < 2:
        return False
    ordered.sort()
    # Sorted, a path that another overlaps is its prefix: ``a <= b`` overlap exactly when
    # ``a`` is a prefix of ``b`` (``path_parts_overlap``, without its conversions: this
    # runs for every node's bindings).
    return any(b[: len(a)] == a for a, b in pairwise(ordered))
