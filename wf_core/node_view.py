"""An analysis seen through the index of the one node under the cursor.

A document's semantic index is built once per version, off the event loop, and at
16,000 nodes its first build takes seconds: it starts after the first diagnostics and
lets the analyses of edits go first. A completion or hover asked meanwhile is about one
place, and inside a ``nodes`` entry everything it reads of the index is written in that
entry: its names and path strings, resolved against the document's schemas and the
node's owner stack, which the analysis already has. So such a request is answered from
the index of that entry alone (``wf_core.semantic.index.NodeIndex``, a few
milliseconds), and only a query about the rest of the document (a property's readers,
for hover) raises ``IndexIncomplete``, after which the request waits for the whole
index as before.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING

from wf_core.semantic.cursor import node_of
from wf_core.semantic.index import IndexIncomplete, IndexView, NodeIndex

if TYPE_CHECKING:
    from wf_core.analysis.context_scopes import ContextModel
    from wf_core.models.loading import LoadResult
    from wf_core.models.steps import AnyStep
    from wf_core.models.workflow import Workflow
    from wf_core.overlay import EditedSnapshot
    from wf_core.semantic.build import PathResolver
    from wf_core.snapshot import DocumentSnapshot
    from wf_core.spans import LineIndex
    from wf_core.view import AnalysisView, ParsedView


# Each snapshot's resolver for node indexes: its tables of nodes take a whole walk of the
# document, once per snapshot rather than per request. Only the event loop builds node
# views; the worker may make a snapshot's resolver ahead (``prepare``) and hands it over
# under the lock, never to use it again (a resolver memoises as it answers). A snapshot's
# entry goes with the snapshot.
_resolvers: weakref.WeakKeyDictionary[DocumentSnapshot, PathResolver] = weakref.WeakKeyDictionary()
_resolvers_lock = threading.Lock()


def prepare(snapshot: DocumentSnapshot) -> None:
    """Make what node views of ``snapshot`` read, ahead of the first request: the source
    map's offset index and the resolver's tables. Called by the worker when it starts a
    document's first semantic index, which takes seconds for a large document: a
    completion inside a node meanwhile answers from that node's index, and used to make
    these on the event loop first (the first completion after opening a 16,000-node
    document took 170 ms, the others 10 to 30)."""
    snapshot.parsed.source_map.prepare_locate()
    _resolver_of(snapshot)


def _resolver_of(snapshot: DocumentSnapshot) -> PathResolver:
    """``snapshot``'s resolver for node indexes, made on first use (outside the lock: the
    tables take a whole walk of the document)."""
    from wf_core.semantic.build import PathResolver

    with _resolvers_lock:
        resolver = _resolvers.get(snapshot)
    if resolver is None:
        made = PathResolver(snapshot.parsed.values, snapshot.context)
        with _resolvers_lock:
            resolver = _resolvers.setdefault(snapshot, made)
    return resolver


def node_index_at(snapshot: DocumentSnapshot, offset: int) -> NodeIndex | None:
    """The index of the ``nodes`` entry whose text holds ``offset`` (a key or value inside
    it; not the ``[[nodes]]`` header), or None when the offset lies outside every one."""
    from wf_core.semantic.build import IndexBuilder

    source_map = snapshot.parsed.source_map
    node = node_of(source_map.locate(offset))
    if node is None:
        return None
    entry = source_map.get(("nodes", node))
    if entry is None:
        return None
    resolver = _resolver_of(snapshot)
    builder = IndexBuilder(snapshot.parsed.values, source_map, snapshot.context, resolver=resolver)
    if not 0 <= node < len(builder.resolver.nodes):
        return None
    return builder.node_index(node, entry.value)


def at_node(view: AnalysisView, offset: int) -> AnalysisView | None:
    """``view`` answering from the index of the node at ``offset`` (see above), for a
    full snapshot or one seen through an edit; None when ``offset`` is not inside a node,
    or the edit seen through is not inside the same node."""
    from wf_core.overlay import EditedSnapshot
    from wf_core.snapshot import DocumentSnapshot

    if isinstance(view, EditedSnapshot):
        return _edited_at_node(view, offset)
    if isinstance(view, DocumentSnapshot):
        index = node_index_at(view, offset)
        return NodeView(view, index) if index is not None else None
    return None


def _edited_at_node(view: EditedSnapshot, offset: int) -> AnalysisView | None:
    index = node_index_at(view.base, view.parsed.source_map.shift.back(offset))
    if index is None:
        return None
    try:
        return view.over_index(index)
    except IndexIncomplete:  # the edited string lies outside that node
        return None


class NodeView:
    """A full snapshot whose index is one node's (``NodeIndex``); the rest is the
    snapshot's own."""

    def __init__(self, snapshot: DocumentSnapshot, index: NodeIndex) -> None:
        self.snapshot = snapshot
        self.uri = snapshot.uri
        self.version = snapshot.version
        self._index = index

    @property
    def text(self) -> str:
        return self.snapshot.text

    @property
    def syntax(self) -> str:
        return self.snapshot.syntax

    @property
    def lines(self) -> LineIndex:
        return self.snapshot.lines

    @property
    def parsed(self) -> ParsedView:
        return self.snapshot.parsed

    @property
    def workflow(self) -> Workflow | None:
        return self.snapshot.workflow

    @property
    def context(self) -> ContextModel | None:
        return self.snapshot.context

    @property
    def load(self) -> LoadResult:
        return self.snapshot.load

    @property
    def index(self) -> IndexView:
        return self._index

    def node_at_document_index(self, index: int) -> AnyStep | None:
        return self.snapshot.node_at_document_index(index)
