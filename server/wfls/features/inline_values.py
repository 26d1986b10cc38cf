"""The values a debugger shows beside the stopped node's bindings (``textDocument/inlineValue``).

The editor asks with the place the debugger stopped at (``wfls debug`` stops at a
node's ``id`` line); the answer is the paths that node reads (its bindings, its
condition, its ``over``), each with where it is written, read from the semantic
index. The editor then asks the debug adapter to evaluate each path in the stopped
frame, the evaluation ``wfls debug`` answers with the runtime's own reader.
"""

from __future__ import annotations

from wf_core.base.records import record
from wf_core.base.spans import Span
from wf_core.semantic.cursor import node_index_at
from wf_core.version.view import AnalysisView

__all__ = ["InlineRead", "inline_reads"]


@record
class InlineRead:
    """A path the stopped node reads: where its text is (between the quotes) and the
    path as written, which the debug adapter evaluates."""

    span: Span
    expression: str


def inline_reads(view: AnalysisView, stopped: int, visible: Span | None = None) -> list[InlineRead]:
    """The reads of the node whose entry holds the offset ``stopped``, in document
    order, those inside ``visible`` when given; none outside every node."""
    source_map = view.parsed.source_map
    index = node_index_at(view, stopped, source_map.locate(stopped))
    if index is None:
        return []
    entry = source_map.get(("nodes", index))
    if entry is None:
        return []
    reads: list[InlineRead] = []
    for path in view.index.paths_in(entry.value):
        literal = path.literal
        if path.node_index != index or not path.role.reads_graph or not path.scan.valid:
            continue
        if visible is not None and not (
            visible.start <= literal.span.start and literal.span.end <= visible.end
        ):
            continue
        reads.append(InlineRead(literal.content, literal.value))
    return reads
