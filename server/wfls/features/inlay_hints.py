"""Inlay hints: types and owner stacks written after the values they describe.

- After a foreach's ``over``: the type of one item (``: object``).
- After a binding's ``path`` (node inputs, interrupt requests, expression paths,
  the workflow output): the type it reads at that node (``: string``).
- After a body node's ``id``: its owner stack (``customers > orders.v2``); off by
  default.

Types are resolved by the navigators validation uses at that node
(``common.read_navigator``) and written by the one summariser,
``SchemaView.type_summary``, that completion details and hover headers use. A
path that does not resolve (a segment nothing declares, a node without an owner
stack) gets no hint: its diagnostic says more than a guess would.
"""

from __future__ import annotations

from wf_core.base.records import record
from wf_core.base.spans import Span
from wf_core.models.schema_nav import SchemaView
from wf_core.semantic.occurrences import PathOccurrence, PathRole, SegmentKind
from wf_core.version.view import AnalysisView
from wfls.features.common import document_nodes, owner_stack, read_navigator
from wfls.features.types import InlayHintItem


@record
class HintOptions:
    item_types: bool = True
    path_types: bool = True
    owner_stacks: bool = False


_BINDING_READS = frozenset((PathRole.SOURCE, PathRole.OUTPUT))


def inlay_hints(
    view: AnalysisView, span: Span | None = None, options: HintOptions | None = None
) -> list[InlayHintItem]:
    """The hints whose position lies in ``span`` (the whole document when None)."""
    options = options or HintOptions()
    lo, hi = (span.start, span.end) if span is not None else (0, len(view.text))
    hints: list[InlayHintItem] = []
    if options.item_types or options.path_types:
        paths = view.index.paths if span is None else view.index.paths_in(span)
        for path in paths:
            literal = path.literal
            at = literal.span.end
            if not (lo <= at <= hi) or not literal.closed:
                continue
            if path.role == PathRole.OVER and options.item_types:
                item = item_type(view, path)
                if item is not None:
                    tooltip = f"each item of `{literal.value}`: {item}"
                    hints.append(InlayHintItem(at, f": {item}", "type", tooltip))
            elif path.role in _BINDING_READS and options.path_types:
                read = read_type(view, path)
                if read is not None:
                    summary = read.type_summary()
                    tooltip = f"`{literal.value}` reads {summary} here"
                    hints.append(InlayHintItem(at, f": {summary}", "type", tooltip))
    if options.owner_stacks:
        hints.extend(_owner_stacks(view, lo, hi))
    hints.sort(key=lambda hint: hint.offset)
    return hints


def read_type(view: AnalysisView, path: PathOccurrence) -> SchemaView | None:
    """What ``path`` reads where it is written, when every segment resolves."""
    segments = path.segments
    if not path.scan.valid or not segments:
        return None
    if any(segment.kind == SegmentKind.UNKNOWN for segment in segments):
        return None
    values = [segment.value for segment in segments]
    navigator = read_navigator(view, path, values[0])
    return navigator.at_path(values[1:]) if navigator is not None else None


def item_type(view: AnalysisView, over: PathOccurrence) -> str | None:
    """The type of one item of the list a foreach's ``over`` reads."""
    collection = read_type(view, over)
    if collection is None or not collection.declares_array():
        return None
    items = collection.array_items()
    return SchemaView((items,)).type_summary() if items is not None else "any"


def _owner_stacks(view: AnalysisView, lo: int, hi: int) -> list[InlayHintItem]:
    source_map = view.parsed.source_map
    hints = []
    for index, node in enumerate(document_nodes(view)):
        node_id = node.get("id")
        if not isinstance(node_id, str):
            continue
        literal = source_map.string(("nodes", index, "id"))
        if literal is None or not literal.closed or not (lo <= literal.span.end <= hi):
            continue
        stack = owner_stack(view, node_id)
        if stack:
            label = " > ".join(stack)
            tooltip = f"`{node_id}` runs inside the loops {label} (outermost first)"
            hints.append(InlayHintItem(literal.span.end, label, None, tooltip, padding_left=True))
    return hints
