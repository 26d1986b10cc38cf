"""Semantic tokens: what each name and path segment of the document means.

Every token comes from the semantic index, so a colour says what references,
hover and rename say: inside path strings each classified segment (roots,
``foreach``, foreach ids, entry fields, aliases, convenience keys, members,
standard fields, segments nothing declares), and outside them the names written
as string values (node ids in ``start``, edges and ``id``, node def names and
uses, aliases in ``as``, outcomes). Names that resolve to nothing outside a path
get no token: the grammar's string colour stays, and a diagnostic explains.

The legend is ``semantic_legend.json`` (``wfls.features.legend``); tokens are
plain data here, encoded for the client by ``wfls.convert``. The whole document's
tokens are also given part by part (``token_runs``): a part of the semantic index is
found again by the next version while its element's text and the graph's structure
stay, so its tokens, encoded once, serve every such version; after a keystroke only
the edited node's are made again (``tests/test_tokens_by_part.py``).

Invariant: tokens are in document order and never overlap.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from wf_core.base.spans import Span
from wf_core.semantic.occurrences import NameSyntax, Role, SegmentKind, SymbolKind
from wf_core.semantic.parts import PART_KINDS
from wf_core.version.view import AnalysisView
from wfls.features.types import SemanticToken, TokenRun

if TYPE_CHECKING:
    from wf_core.base.edits import Region
    from wf_core.semantic.build import PathResolver
    from wf_core.semantic.parts import IndexPart

DECLARATION = "declaration"
DEPRECATED = "deprecated"
BUILTIN = "defaultLibrary"

_SEGMENTS: dict[SegmentKind, tuple[str, tuple[str, ...]]] = {
    SegmentKind.ROOT: ("variable", (BUILTIN,)),
    SegmentKind.FOREACH: ("keyword", ()),
    SegmentKind.FOREACH_ID: ("namespace", ()),
    SegmentKind.ENTRY_FIELD: ("property", (BUILTIN,)),
    SegmentKind.STANDARD_FIELD: ("property", (BUILTIN,)),
    SegmentKind.ALIAS: ("parameter", ()),
    SegmentKind.CONVENIENCE: ("property", (BUILTIN,)),
    SegmentKind.MEMBER: ("property", ()),
    SegmentKind.UNKNOWN: ("unresolvedReference", ()),
}
_NAMES: dict[SymbolKind, str] = {
    SymbolKind.NODE_DEF: "type",
    SymbolKind.ALIAS: "parameter",
    SymbolKind.OUTCOME: "enumMember",
}


# Enum members hash in Python (``Enum.__hash__``); kinds are looked up by identity instead.
_SEGMENT_BY_ID = {id(kind): token for kind, token in _SEGMENTS.items()}
_NAME_BY_ID = {id(kind): name for kind, name in _NAMES.items()}
_STRING, _DEFINITION, _NODE, _OUTCOME = (
    NameSyntax.STRING,
    Role.DEFINITION,
    SymbolKind.NODE,
    SymbolKind.OUTCOME,
)


def semantic_tokens(view: AnalysisView, span: Span | None = None) -> list[SemanticToken]:
    """The tokens of the document, or of those touching ``span``, in document order."""
    index = view.index
    resolver = index.resolver
    lo, hi = (span.start, span.end) if span is not None else (0, len(view.text))
    found: list[SemanticToken] = []
    foreach: dict[str, bool] = {}
    # Each part's items are relative to its base (``SemanticIndex.placed``): only the
    # tokens are made at their document offsets, not a copy of every item.
    for part, base in index.placed(span):
        _add_tokens(part, base, lo, hi, resolver, foreach, found)
    return _apart(found)


def token_runs(view: AnalysisView) -> list[TokenRun]:
    """Every token of the document by part, the runs ordered by where their names begin;
    a part's tokens are made only when asked (``TokenRun.tokens``). Together they are
    ``semantic_tokens(view)``, when no two runs' extents overlap."""
    index = view.index
    resolver = index.resolver
    document = index.parts.document()
    runs: list[TokenRun] = []
    for part, base in index.placed(None):
        extent = part.extent
        assert extent is not None  # ``placed`` leaves out the parts without names
        if part is not document:
            runs.append(TokenRun(part, base, extent, partial(_tokens_of, part, resolver)))
            continue
        for token in _tokens_of(part, resolver):
            runs.append(TokenRun(None, 0, token.span, partial(list, (token,))))
    runs.sort(key=_run_start)
    return runs


ElementKeys = tuple[list[object], ...]
"""Each kind's elements' keys (``PART_KINDS`` order): what a version's parts are made from."""


def element_keys(view: AnalysisView) -> ElementKeys:
    """``view``'s element keys, copied (a later parse may update its lists in place)."""
    parts = view.index.parts
    return tuple(list(parts.keys(kind)) for kind in PART_KINDS)


def document_tokens(view: AnalysisView) -> list[SemanticToken]:
    """The tokens of the rest of the document (what no node or edge holds)."""
    index = view.index
    return _tokens_of(index.parts.document(), index.resolver)


def changed_span(
    view: AnalysisView,
    region: Region,
    keys: tuple[ElementKeys, ElementKeys],
    document: tuple[list[SemanticToken], list[SemanticToken]],
) -> Span | None:
    """Where ``view``'s tokens may differ from an earlier version's, whose text became
    ``view``'s by the change ``region`` and whose index read the same values of the
    whole document (``SnapshotParts.dependencies``): outside it, the tokens are that
    version's, moved by the change's length. None when that cannot be told. ``keys``
    and ``document``: the earlier version's ``element_keys`` and ``document_tokens``,
    then ``view``'s.

    A part's tokens are a function of its element's text under those values, and the
    texts of elements do not overlap: the span holds, for each kind, the text of every
    element whose key changed, from where it begins to where the element after it does
    (the text's end after the last), and every token touching the change (a name of the
    rest of the document). The elements that may have changed are those from the one
    the change begins in (or at the end of) to the one it ends in; every other element
    must have kept its key: a change can make the text after it read otherwise (a quote
    left open in JSON), and then the elements there are others. The rest of the document
    is made again for each version, and is small: its tokens are compared, those that
    are not the earlier ones moved are in the span."""
    start, end = region.start, region.new_end
    parts = view.index.parts
    lo, hi = start, end
    for kind, old, new in zip(PART_KINDS, *keys, strict=True):
        touched = parts.elements_in(kind, max(start - 1, 0), end)
        grown = len(new) - len(old)
        first, stop = (touched.start, touched.stop) if touched else (len(new), len(new))
        if stop - grown < 0 or new[:first] != old[:first] or new[stop:] != old[stop - grown :]:
            return None
        while first < stop and first < len(old) and new[first] == old[first]:
            first += 1
        while stop > first and stop - 1 - grown >= 0 and new[stop - 1] == old[stop - 1 - grown]:
            stop -= 1
        if first == stop:
            continue  # none changed: those there were inserted or removed inside the change
        begin = parts.begins(kind, first)
        after = parts.begins(kind, stop) if stop < len(new) else None
        lo = min(lo, begin if begin is not None else 0)
        hi = max(hi, after if after is not None else len(view.text))
    for token in semantic_tokens(view, Span(start, end)):
        lo, hi = min(lo, token.span.start), max(hi, token.span.end)
    delta, old_end = region.delta, region.old_end
    moved = {
        token._replace(span=Span(token.span.start + delta, token.span.end + delta))
        if token.span.start >= old_end
        else token._replace(span=Span(token.span.start, max(token.span.end + delta, end)))
        if token.span.end > start
        else token
        for token in document[0]
    }
    for token in moved.symmetric_difference(document[1]):
        lo, hi = min(lo, token.span.start), max(hi, token.span.end)
    return Span(lo, hi)


def _run_start(run: TokenRun) -> int:
    return run.base + run.extent.start


def _tokens_of(part: IndexPart, resolver: PathResolver) -> list[SemanticToken]:
    """The tokens of ``part``, relative to its base, in order and apart."""
    found: list[SemanticToken] = []
    _add_tokens(part, 0, -1, 1 << 62, resolver, {}, found)
    return _apart(found)


def _add_tokens(
    part: IndexPart,
    base: int,
    lo: int,
    hi: int,
    resolver: PathResolver,
    foreach: dict[str, bool],
    found: list[SemanticToken],
) -> None:
    """Add the tokens of ``part`` touching ``[lo, hi]``, moved by ``base``, to ``found``.
    ``foreach``: whether a node id names a foreach, as found so far."""
    nodes, node_ids = resolver.nodes, resolver.node_ids
    add = found.append
    segment_token = _SEGMENT_BY_ID.__getitem__
    for path in part.paths:
        literal = path.literal.span
        if literal.end + base < lo or literal.start + base > hi:
            continue
        for segment in path.segments:
            where = segment.span
            if where.end <= where.start:
                continue
            kind, marks = segment_token(id(segment.kind))
            if segment.deprecated:
                marks = (*marks, DEPRECATED)
            add(SemanticToken(Span(where.start + base, where.end + base), kind, marks))
    for occurrence in part.occurrences:
        symbol = occurrence.symbol
        if symbol is None or occurrence.syntax != _STRING:
            continue
        where = occurrence.span
        if where.end <= where.start or where.end + base < lo or where.start + base > hi:
            continue
        if symbol.kind == _NODE:
            node_id = symbol.key[0]
            loop = foreach.get(node_id)
            if loop is None:
                at = node_ids.get(node_id)
                loop = foreach[node_id] = at is not None and nodes[at].get("type") == "foreach"
            kind = "namespace" if loop else "function"
        else:
            kind = _NAME_BY_ID.get(id(symbol.kind), "")
            if not kind:
                continue
        modifiers: tuple[str, ...] = ()
        if occurrence.role == _DEFINITION:
            modifiers = (DECLARATION,)
        elif symbol.kind == _OUTCOME and symbol.key[0] == "builtin":
            modifiers = (BUILTIN,)
        add(SemanticToken(Span(where.start + base, where.end + base), kind, modifiers))


def _apart(found: list[SemanticToken]) -> list[SemanticToken]:
    """``found`` in document order, each token overlapping an earlier one left out."""
    found.sort(key=_start)
    tokens: list[SemanticToken] = []
    end = -1
    for token in found:
        if token.span.start >= end:
            tokens.append(token)
            end = token.span.end
    return tokens


def _start(token: SemanticToken) -> int:
    return token.span.start
