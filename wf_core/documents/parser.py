"""Text → ``ParsedDocument``: plain values, source map and syntax issues.

``parse_document`` parses from scratch. ``DocumentParser`` keeps the previous
text and tree-sitter tree of one open document and, told the region an edit
changed (``wf_core.base.edits``), reparses incrementally; it also keeps the previous
version's converted units (``Chunk``s, keyed by their text):
a TOML top-level statement, or a JSON top-level member's value or element of
``nodes``/``edges``/``node_defs``/``output``, whose text did not change is not
converted again, only placed at its new offset (see ``toml_syntax``,
``json_syntax`` and ``source_map``).

A clean TOML text in the common shapes is read without tree-sitter at all, by
the fast reader (``toml_chunks.read_clean``): split at line starts, each
statement read by regular expressions or found among the previous version's
chunks. No tree is kept for such a version; the next one is read the same way,
or, if it cannot be, parsed from scratch. When the change lies inside one
statement of such a version and leaves it one statement of the same kind, the
next version is the previous one with that statement read again and the rest
moved (``toml_chunks.read_spliced``): typing costs no walk of the other
statements.

Invariants:

- The result is a function of the text alone. tree-sitter's error recovery can
  depend on the old tree, so when an incremental parse comes back with errors
  the text is parsed once more from scratch; a clean tree is the same either
  way. A chunk is a function of its text, and a text read without a tree gives
  what its tree gives. Diagnostics therefore never depend on the editing
  history.
- Identity: when a TOML statement or a JSON unit is reused, its values are the
  very objects of the previous version (an unchanged ``[[nodes]]`` table or
  element of a JSON ``nodes`` array is the same ``dict``), so downstream caches
  may key on ``id()``. Such objects are shared between versions and must never
  be mutated, by the front-end (which copies a reused table before extending
  it, see ``toml_tables``, and builds every JSON container afresh, see
  ``json_syntax``) or by its callers.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from wf_core.base.collector import collector_paused
from wf_core.base.edits import Region
from wf_core.base.issues import Issue, ProjectCode, Related, Severity
from wf_core.base.reading import Syntax
from wf_core.base.records import record
from wf_core.base.spans import Span
from wf_core.documents._offsets import encode
from wf_core.documents.json_syntax import parse_json
from wf_core.documents.source_map import Chunk, SourceMap
from wf_core.documents.toml_chunks import read_clean, read_spliced
from wf_core.documents.toml_syntax import parse_toml


@record
class ParsedDocument:
    text: str
    syntax: Syntax
    values: dict[str, object]
    source_map: SourceMap
    issues: tuple[Issue, ...]

    @property
    def has_errors(self) -> bool:
        return bool(self.issues)


if TYPE_CHECKING:
    import tree_sitter


@functools.cache
def _language(syntax: Syntax) -> tree_sitter.Language:
    # tree-sitter is imported when a text first needs a tree: a clean TOML text is read
    # without one, and its imports are 19 ms of every ``wfls check`` otherwise.
    import tree_sitter
    import tree_sitter_json
    import tree_sitter_toml

    grammar = tree_sitter_toml if syntax == "toml" else tree_sitter_json
    return tree_sitter.Language(grammar.language())


def _check_syntax(syntax: Syntax) -> None:
    if syntax not in ("toml", "json"):
        raise ValueError(f"unknown syntax {syntax!r}")


def _parser(syntax: Syntax) -> tree_sitter.Parser:
    _check_syntax(syntax)
    import tree_sitter

    return tree_sitter.Parser(_language(syntax))


Converted = tuple[
    dict[str, object], SourceMap, list[tuple[Span, str, Span | None]], dict[str, Chunk]
]


def _build(
    text: str, syntax: Syntax, tree: tree_sitter.Tree | None, chunks: dict[str, Chunk] | None = None
) -> tuple[ParsedDocument, dict[str, Chunk]] | None:
    """The document for ``text`` and the chunks it used (reusable by the next version).

    Without a tree, only a clean TOML text in the fast reader's shapes is read
    (``toml_chunks.read_clean``); None when it is not.
    """
    # Building allocates many small objects and frees none of them (``collector``).
    converted: Converted | None
    with collector_paused():
        if tree is None:
            converted = read_clean(text, chunks or {}) if syntax == "toml" else None
        elif syntax == "toml":
            converted = parse_toml(text, tree, chunks)
        else:
            converted = parse_json(text, tree, chunks)
    if converted is None:
        return None
    values, source_map, problems, used = converted
    issues = []
    seen: set[tuple[int, int, str]] = set()
    for span, message, first in sorted(problems, key=lambda p: (p[0].start, p[0].end, p[1])):
        marker = (span.start, span.end, message)
        if marker in seen:
            continue
        seen.add(marker)
        related = (Related(None, "first defined here", first),) if first is not None else ()
        issues.append(
            Issue(
                code=ProjectCode.SYNTAX_ERROR.value,
                location=None,
                message=message,
                severity=Severity.ERROR,
                span=span,
                related=related,
            )
        )
    return ParsedDocument(text, syntax, values, source_map, tuple(issues)), used


def _built(
    text: str, syntax: Syntax, tree: tree_sitter.Tree, chunks: dict[str, Chunk] | None = None
) -> tuple[ParsedDocument, dict[str, Chunk]]:
    built = _build(text, syntax, tree, chunks)
    assert built is not None  # with a tree, every text converts
    return built


def parse_document(text: str, syntax: Syntax) -> ParsedDocument:
    clean = _build(text, syntax, None)
    if clean is not None:
        return clean[0]
    tree = _parser(syntax).parse(encode(text))
    return _built(text, syntax, tree)[0]


def _point(data: bytes, byte_offset: int) -> tuple[int, int]:
    row = data.count(b"\n", 0, byte_offset)
    column = byte_offset - (data.rfind(b"\n", 0, byte_offset) + 1)
    return row, column


class DocumentParser:
    """Parses successive versions of one document, reusing the previous chunks (and
    tree, when the previous version needed one)."""

    def __init__(self, syntax: Syntax) -> None:
        _check_syntax(syntax)
        self.syntax: Syntax = syntax
        # Made when a version first needs a tree (see ``_language``).
        self._parser: tree_sitter.Parser | None = None
        self._text: str | None = None
        self._data = b""
        self._tree: tree_sitter.Tree | None = None
        self._result: ParsedDocument | None = None
        # Converted top-level statements of the previous version, by their text; this
        # parser's alone (``read_spliced`` updates them in place).
        self._chunks: dict[str, Chunk] = {}

    def parse(self, text: str, region: Region | None = None) -> ParsedDocument:
        """The document for ``text``. ``region`` is where ``text`` differs from the text
        this parser read last (see ``wf_core.base.edits``): with it, the previous tree is
        edited there and reused; without it (a fresh document), ``text`` is parsed anew.
        Either way the result is the same (see the module's invariants)."""
        old_text, old_tree = self._text, self._tree
        if old_text == text and self._result is not None:
            return self._result
        clean = self._spliced(text, region)
        if clean is None:
            clean = _build(text, self.syntax, None, self._chunks)
        if clean is not None:
            # No tree is kept: the next version is read without one too, or, if
            # it cannot be, parsed from scratch (as any text with errors is).
            result, self._chunks = clean
            self._text, self._data, self._tree, self._result = text, b"", None, result
            return result
        data = encode(text)
        if self._parser is None:
            self._parser = _parser(self.syntax)
        if old_text is None or old_tree is None or not _fits(region, old_text, text):
            tree = self._parser.parse(data)
        else:
            assert region is not None  # ``_fits`` says so
            self._edit_tree(old_tree, old_text, text, data, region)
            tree = self._parser.parse(data, old_tree)
            if tree.root_node.has_error:
                tree = self._parser.parse(data)
        result, self._chunks = _built(text, self.syntax, tree, self._chunks)
        self._text, self._data, self._tree, self._result = text, data, tree, result
        return result

    def _spliced(
        self, text: str, region: Region | None
    ) -> tuple[ParsedDocument, dict[str, Chunk]] | None:
        """The version read from the previous one when the change lies inside one
        statement that stays of the same kind (``toml_chunks.read_spliced``); None
        otherwise. Only after a version read clean without a tree."""
        previous, old_text = self._result, self._text
        if (
            self.syntax != "toml"
            or previous is None
            or old_text is None
            or self._tree is not None
            or previous.issues
            or not _fits(region, old_text, text)
        ):
            return None
        assert region is not None  # ``_fits`` says so
        with collector_paused():
            spliced = read_spliced(previous.values, previous.source_map, text, region, self._chunks)
        if spliced is None:
            return None
        values, source_map, _problems, used = spliced
        return ParsedDocument(text, "toml", values, source_map, ()), used

    def _edit_tree(
        self, tree: tree_sitter.Tree, old_text: str, text: str, data: bytes, region: Region
    ) -> None:
        """Tell ``tree`` (of ``old_text``) that ``region`` changed, in bytes: the bytes
        before the region are counted once (none for an ASCII text, whose bytes are its
        characters), and only the region's two sides are encoded."""
        start, old_end, new_end = region.start, region.old_end, region.new_end
        start_byte = start if len(data) == len(text) else len(encode(text[:start]))
        old_end_byte = start_byte + len(encode(old_text[start:old_end]))
        new_end_byte = start_byte + len(encode(text[start:new_end]))
        tree.edit(
            start_byte=start_byte,
            old_end_byte=old_end_byte,
            new_end_byte=new_end_byte,
            start_point=_point(data, start_byte),
            old_end_point=_point(self._data, old_end_byte),
            new_end_point=_point(data, new_end_byte),
        )


def _fits(region: Region | None, old_text: str, text: str) -> bool:
    """Whether ``region`` can be a change of ``old_text`` into ``text`` (it lies in both and
    leaves as much after it in each): a region of some other text is not used."""
    return (
        region is not None
        and region.old_end <= len(old_text)
        and region.new_end <= len(text)
        and len(old_text) - region.old_end == len(text) - region.new_end
    )
