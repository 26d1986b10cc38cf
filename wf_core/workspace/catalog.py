"""The workspace index: documents by URI, workflows by name, callers by name.

Invariants:

- A document is known by its URI; the text of an open document (given by the
  editor) overrides the file on disk until it is closed.
- Cross-file findings are a function of the set of snapshots: any change to a
  document may change the findings of the documents whose subgraphs name it
  (its *dependents*), and ``put``/``remove`` return exactly those URIs so the
  caller can re-check them.
- All reads and writes of the tables happen under one lock, so an indexing
  thread and request handlers may share the index.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from wf_core.base.locations import Location
from wf_core.base.reading import decode
from wf_core.base.records import record
from wf_core.base.spans import Span
from wf_core.documents import syntax_for_path
from wf_core.documents.toml_chunks import first_section
from wf_core.models.steps import ARTIFACT_REF
from wf_core.version.snapshot import DocumentSnapshot, PlacedIssue, analyze_text
from wf_core.workspace.files import Roots, Skipped, read_document


@record
class SubgraphUse:
    """A subgraph node's ``workflow`` value. ``location`` is the document location of
    the value that names the child (``workflow`` itself, or its ``name`` key)."""

    node_index: int
    node_id: str
    name: str | None  # None for a registry artifact reference
    display: str
    location: Location


class WorkspaceDocument:
    """One document of the workspace, with its analysis.

    A document read from disk that calls no subgraph and names itself on a plain
    ``name = "..."`` line is analysed only when something asks for its snapshot:
    indexing a large workspace then costs a line scan per document, not a parse.
    """

    def __init__(
        self,
        uri: str,
        path: Path | None,
        snapshot: DocumentSnapshot | None = None,
        *,
        make: Callable[[], DocumentSnapshot] | None = None,
        name: str | None = None,
    ) -> None:
        self.uri = uri
        self.path = path
        self.open = False
        self._snapshot = snapshot
        self._make = make
        self._lock = threading.Lock()
        self.name: str | None
        self.uses: tuple[SubgraphUse, ...]
        if snapshot is not None:
            self.name, self.uses = outline(snapshot.parsed.values)
        else:
            self.name, self.uses = name, ()

    @property
    def snapshot(self) -> DocumentSnapshot:
        if self._snapshot is None:
            with self._lock:
                if self._snapshot is None:
                    assert self._make is not None
                    self._snapshot = self._make()
        return self._snapshot


_PLAIN_NAME = re.compile(r'\nname[ \t]*=[ \t]*"([^"\\\n]*)"[ \t]*(?:#[^\n]*)?(?=\n|\Z)')
"""A plain ``name`` line, found after a line break (``^`` with ``re.MULTILINE`` tries every
position: 20 ms of a 5 MB document, spent by ``wfls check`` before it reads anything)."""


def quick_name(text: str, syntax: str) -> str | None:
    """The workflow's ``name`` when a line scan can tell it for sure (TOML, no subgraph,
    one plain ``name = "..."`` line before the first table, no multi-line string
    that could hide lines); None: parse to know."""
    if syntax != "toml" or "subgraph" in text:
        return None
    table = first_section(text)
    head = text if table is None else text[:table]
    # A multi-line string that could hide lines opens before the first line that looks
    # like a table (only such a string could make that line not one).
    if '"""' in head or "'''" in head:
        return None
    found = _PLAIN_NAME.findall("\n" + head)
    return found[0] if len(found) == 1 else None


def outline(values: object) -> tuple[str | None, tuple[SubgraphUse, ...]]:
    """The workflow's ``name`` and its subgraph uses, read from the document's values: what
    the index keeps of each document, and the graph's subgraph calls (``wf_core.graph``)."""
    if not isinstance(values, Mapping):
        return None, ()
    written = values.get("name")
    name = written if isinstance(written, str) else None
    uses = []
    nodes = values.get("nodes")
    for index, node in enumerate(nodes if isinstance(nodes, list) else ()):
        if not isinstance(node, Mapping) or node.get("type") != "subgraph":
            continue
        ref = node.get("workflow")
        node_id = str(node.get("id", ""))
        if isinstance(ref, str):
            artifact = ARTIFACT_REF.fullmatch(ref) is not None
            uses.append(
                SubgraphUse(
                    index, node_id, None if artifact else ref, ref, ("nodes", index, "workflow")
                )
            )
        elif isinstance(ref, Mapping):
            if isinstance(ref.get("name"), str):
                uses.append(
                    SubgraphUse(
                        index,
                        node_id,
                        ref["name"],
                        ref["name"],
                        ("nodes", index, "workflow", "name"),
                    )
                )
            elif "artifact_id" in ref:
                display = f"workflow.{ref.get('artifact_id')}.v{ref.get('version')}"
                uses.append(
                    SubgraphUse(index, node_id, None, display, ("nodes", index, "workflow"))
                )
    return name, tuple(uses)


@dataclass
class ScanResult:
    skipped: list[Skipped]
    affected: set[str]


class Workspace:
    def __init__(self, roots: Roots) -> None:
        self.roots = roots
        self._lock = threading.RLock()
        self._documents: dict[str, WorkspaceDocument] = {}
        self._disk: dict[str, WorkspaceDocument] = {}  # what an open document hides
        # The documents an editor holds open (``opened``): only their analyses are taken
        # from the editor (``put_open``), whenever the analysis ends.
        self._editing: set[str] = set()
        self.generation = 0  # bumped on every change: cached cross-file findings expire

    # -- loading -------------------------------------------------------------------

    def scan(self, progress: Callable[[int, int], None] | None = None) -> ScanResult:
        """Index every document under the folders: the files skipped (with why) and the
        documents whose cross-file findings the new ones may change."""
        found = list(self.roots.scan())
        result = ScanResult([item for item in found if isinstance(item, Skipped)], set())
        paths = [item for item in found if isinstance(item, Path)]
        for done, path in enumerate(paths, 1):
            problem = self.load(path, result.affected)
            if problem is not None:
                result.skipped.append(problem)
            if progress is not None:
                progress(done, len(paths))
        return result

    def load(
        self, path: Path, affected: set[str] | None = None, *, named: bool = False
    ) -> Skipped | None:
        """(Re)read one file from disk, unless it is open; None when it was indexed.
        The documents its change may affect are added to ``affected``; ``named``: see
        :meth:`Roots.check`."""
        reason = self.roots.check(path, named=named)
        if reason is not None:
            return Skipped(path, reason)
        data = read_document(path)
        if isinstance(data, str):
            return Skipped(path, data)
        text, decode_issue = decode(data)
        uri = path.resolve().as_uri()
        syntax = syntax_for_path(path.name) or "toml"

        def analyse() -> DocumentSnapshot:
            extra = (decode_issue,) if decode_issue else ()
            return analyze_text(text, syntax, uri=uri, extra_issues=extra)

        name = quick_name(text, syntax) if decode_issue is None else None
        document = WorkspaceDocument(uri, path, make=analyse, name=name)
        if name is None:
            # Parsed now, for its name and subgraph calls. A failure (a bug of the parser) is
            # raised again to whoever asks for this document's analysis (its own check reports
            # it), never into the scan of the others.
            with contextlib.suppress(Exception):
                document = WorkspaceDocument(uri, path, analyse())
        changed = self._put(document, from_disk=True)
        if affected is not None:
            affected |= changed
        return None

    # -- changes -------------------------------------------------------------------

    def put(
        self,
        uri: str,
        snapshot: DocumentSnapshot,
        *,
        path: Path | None = None,
        from_disk: bool = False,
    ) -> set[str]:
        """Record a new analysis of ``uri``; the URIs whose cross-file findings may change."""
        with self._lock:
            old = self._documents.get(uri)
            document = WorkspaceDocument(uri, path or (old.path if old else None), snapshot)
            return self._put(document, from_disk=from_disk)

    def _put(self, document: WorkspaceDocument, *, from_disk: bool) -> set[str]:
        uri = document.uri
        with self._lock:
            old = self._documents.get(uri)
            if from_disk and old is not None and old.open:
                self._disk[uri] = document  # the editor's text wins until it is closed
                return set()
            document.open = not from_disk
            if document.open and old is not None and not old.open:
                self._disk[uri] = old  # what counts again when the editor closes it
            self._documents[uri] = document
            self.generation += 1
            return self._affected(old, document)

    def opened(self, uri: str) -> None:
        """An editor opened ``uri``: its analyses may replace what is on disk
        (``put_open``) until it is closed."""
        with self._lock:
            self._editing.add(uri)

    def put_open(self, uri: str, snapshot: DocumentSnapshot) -> set[str]:
        """``put`` an analysis of the editor's text of ``uri``, unless the editor closed it
        meanwhile: an analysis that ends after the close must not hide the disk's
        version again (nothing is changed then, and nothing affected)."""
        with self._lock:
            if uri not in self._editing:
                return set()
            return self.put(uri, snapshot)

    def close(self, uri: str) -> set[str]:
        """The editor closed ``uri``: what is on disk counts again (or nothing). When no
        analysis of the editor's text got here yet, the disk's version never left."""
        with self._lock:
            self._editing.discard(uri)
            current = self._documents.get(uri)
            if current is not None and not current.open:
                return set()
            old = self._documents.pop(uri, None)
            disk = self._disk.pop(uri, None)
            if disk is not None:
                self._documents[uri] = disk
            self.generation += 1
            return self._affected(old, disk)

    def remove(self, uri: str) -> set[str]:
        """The file is gone from disk (an open document stays)."""
        with self._lock:
            self._disk.pop(uri, None)
            document = self._documents.get(uri)
            if document is None or document.open:
                return set()
            del self._documents[uri]
            self.generation += 1
            return self._affected(document, None)

    def _affected(self, old: WorkspaceDocument | None, new: WorkspaceDocument | None) -> set[str]:
        """Documents whose findings may change: the changed one, its callers under its old
        and new names, the other documents with either name, the children it calls."""
        names = {d.name for d in (old, new) if d is not None and d.name}
        out = {d.uri for d in (old, new) if d is not None}
        for other in self._documents.values():
            if other.name in names or any(u.name in names for u in other.uses):
                out.add(other.uri)
        for changed in (old, new):
            for use in changed.uses if changed is not None else ():
                out.update(d.uri for d in self._by_name(use.name))
        return out

    # -- queries --------------------------------------------------------------------

    def documents(self) -> list[WorkspaceDocument]:
        with self._lock:
            return list(self._documents.values())

    def document(self, uri: str) -> WorkspaceDocument | None:
        with self._lock:
            return self._documents.get(uri)

    def _by_name(self, name: str | None) -> list[WorkspaceDocument]:
        if name is None:
            return []
        return sorted((d for d in self._documents.values() if d.name == name), key=lambda d: d.uri)

    def by_name(self, name: str | None) -> list[WorkspaceDocument]:
        with self._lock:
            return self._by_name(name)

    def resolve(self, name: str | None) -> WorkspaceDocument | None:
        """The document of the workflow ``name`` (the first by URI when names clash)."""
        found = self.by_name(name)
        return found[0] if found else None

    def names(self) -> list[str]:
        with self._lock:
            return sorted({d.name for d in self._documents.values() if d.name})

    def callers(self, name: str | None) -> list[tuple[WorkspaceDocument, SubgraphUse]]:
        """Every subgraph use naming ``name``, with its document."""
        if name is None:
            return []
        with self._lock:
            return [
                (document, use)
                for document in self._documents.values()
                for use in document.uses
                if use.name == name
            ]

    def issues_of(
        self, uri: str, snapshot: object, touching: Span | None = None
    ) -> tuple[PlacedIssue, ...] | None:
        """The findings of ``uri`` in the workspace when the index holds this very
        ``snapshot`` of it (None otherwise: the caller falls back to its own findings);
        those whose range touches ``touching`` alone, when given (see ``document_issues``)."""
        from wf_core.workspace.checks import document_issues  # checks builds on the index

        document = self.document(uri)
        if document is None or document.snapshot is not snapshot:
            return None
        return document_issues(self, uri, touching)

    def calls(self) -> dict[str, set[str]]:
        """Workflow name → the names its subgraphs call (across all its documents)."""
        with self._lock:
            graph: dict[str, set[str]] = {}
            for document in self._documents.values():
                if document.name:
                    graph.setdefault(document.name, set()).update(
                        use.name for use in document.uses if use.name
                    )
            return graph


def workspace_for(paths: Iterable[Path], extra_globs: Iterable[str] = ()) -> Workspace:
    """A workspace over folders (files: their folders), as ``wfls check`` builds one."""
    folders = [p if p.is_dir() else p.parent for p in paths]
    return Workspace(Roots(folders, extra_globs))
