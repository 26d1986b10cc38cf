"""The open workflow documents and their analysis, one snapshot per version.

The store owns each workflow document's text: a client's changes arrive as
edits (``wf_core.base.edits``), which the store applies, keeping the text's line
index derived edit by edit and the region each update changed. What follows a
document from one version to the next reads those regions, never a comparison
of two texts: the ``DocumentParser`` reparses incrementally against the text it
read last. The store also keeps the snapshot of the latest version once
something asked for it.

Invariants:

- A snapshot is built at most once per (uri, revision) and never mutated;
  a request holding one keeps a consistent view while newer versions arrive.
  The revision counts the store's updates of a document; the client's version
  number is only carried along. Clients must increase versions, but one that
  sends them out of order (or repeats one) must still get answers about its
  latest text, so nothing is cached by the client's number.
- Building is lazy: an edit only records the text; the first request or the
  diagnostics push builds the snapshot. Edits that arrive while one is being
  built are analysed together, once, by the push after it.
- Full analyses may run on a worker thread while the event loop keeps
  answering: each document's parser is used only under its lock, and the
  text, its line index, version, revision and the regions of the updates are
  read and written together as one value (:class:`TextVersion`), so a worker
  never pairs one version's text with another's number. Only the event loop
  calls ``open``, ``update`` and ``close``.
- The regions of the last ``KEPT_CHANGES`` updates are kept, so the region from
  what reads a change (the parser's text, the latest analysis, the text a request
  was sent for) to the latest text, or to the text of an analysis made since, is
  known. Were it not (a log cut short), the parser parses afresh and a request
  gets ``ContentModified``: slower, never wrong.
- One analysis is kept per document, the latest made. A request reads the
  analysis of the latest version, made as far as it reads (``Depth``): after a
  keystroke its parse, model and the parts of the semantic index it asks for are
  derived from the last version's, only what the edit changed made again
  (``wf_core.base.derived``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import unquote, urlparse

from wf_core.base.derived import Derivations
from wf_core.base.edits import UNCHANGED, Edit, EditAt, Region, apply_in_order, edit_between
from wf_core.base.reading import WORKFLOW_SUFFIXES, analysable
from wf_core.base.records import record
from wf_core.base.spans import LineIndex
from wf_core.documents import DocumentParser, Syntax, syntax_for_path
from wf_core.version.snapshot import DocumentSnapshot
from wfls.diagnostics_memo import DiagnosticsMemo


def workflow_syntax(uri: str) -> Syntax | None:
    """The syntax of a workflow document by its URI, or None for other documents.

    The URI decides, not the language id: clients disagree on language ids
    (``toml``, ``json``, ``jsonc``, a custom one), but the suffix is the contract.
    """
    path = unquote(urlparse(uri).path) or uri
    if not path.endswith(WORKFLOW_SUFFIXES):
        return None
    return syntax_for_path(path)


Depth = Literal["parse", "model", "report", "findings"]
"""How far an analysis is made: the text parsed; its model and context model too; every
finding made too (placed where a request asks: ``DocumentSnapshot.issues_touching``);
every finding placed too."""


def _reached(snapshot: DocumentSnapshot, depth: Depth) -> bool:
    if depth == "findings":
        return snapshot.diagnosed
    if depth == "report":
        return snapshot.reported
    return depth == "parse" or snapshot.modelled


KEPT_CHANGES = 1024
"""The most update regions a document keeps; when reached, the older half goes (see the
module's invariants)."""


@record
class TextVersion:
    """One version of a document's text, replaced as one value."""

    text: str
    version: int  # the client's number, carried along
    revision: int  # the store's, one more for each update
    lines: LineIndex  # of ``text``, derived edit by edit
    # The revision each update made and the region it changed, oldest first; the
    # first was made on revision ``since``.
    changes: tuple[tuple[int, Region], ...]
    since: int

    def region_since(self, revision: int, until: int | None = None) -> Region | None:
        """The region where ``revision``'s text and this one (or revision ``until``'s) may
        differ, composed from the updates' regions; None when ``revision`` is older than
        the kept ones."""
        if revision == (self.revision if until is None else until):
            return UNCHANGED
        changes = self.changes
        if until is not None:
            changes = tuple(change for change in changes if change[0] <= until)
            if not changes:
                return None
        if revision == self.since:
            first = 0
        else:
            first = next((i + 1 for i, (made, _) in enumerate(changes) if made == revision), -1)
            if first < 0:
                return None
        if first >= len(changes):
            return None
        region = changes[first][1]
        for _, later in changes[first + 1 :]:
            region = region.then(later)
        return region


@dataclass
class OpenDocument:
    uri: str
    syntax: Syntax
    current: TextVersion
    parser: DocumentParser
    # The revision whose text the parser read last (None: it read none yet).
    parsed: int | None = field(default=None, repr=False)
    # The latest analysis made, with its revision.
    analysed: tuple[int, DocumentSnapshot] | None = field(default=None, repr=False)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    # What its analyses derived, found again by content (``wf_core.base.derived``).
    derived: Derivations = field(default_factory=Derivations, repr=False)
    # Read and written by the analysis worker only (``Diagnostics.compute``).
    diagnostics: DiagnosticsMemo = field(default_factory=DiagnosticsMemo, repr=False)

    @property
    def text(self) -> str:
        return self.current.text

    @property
    def version(self) -> int:
        return self.current.version

    @property
    def revision(self) -> int:
        return self.current.revision

    @property
    def snapshot(self) -> DocumentSnapshot | None:
        """The latest analysis made, of whichever revision."""
        return self.analysed[1] if self.analysed is not None else None

    def analysis_of(self, revision: int) -> DocumentSnapshot | None:
        analysed = self.analysed
        return analysed[1] if analysed is not None and analysed[0] == revision else None


class DocumentStore:
    def __init__(self) -> None:
        self._documents: dict[str, OpenDocument] = {}
        self._revisions = 0  # one counter for all documents: a reopened one never repeats

    def __contains__(self, uri: str) -> bool:
        return uri in self._documents

    def uris(self) -> list[str]:
        return list(self._documents)

    def open(self, uri: str, text: str, version: int) -> bool:
        """Track ``uri``; False (and nothing tracked) when it is not a workflow document."""
        syntax = workflow_syntax(uri)
        if syntax is None:
            return False
        self._revisions += 1
        revision = self._revisions
        current = TextVersion(text, version, revision, LineIndex(text), (), revision)
        self._documents[uri] = OpenDocument(uri, syntax, current, DocumentParser(syntax))
        return True

    def update(self, uri: str, edits: Iterable[Edit | EditAt], version: int) -> bool:
        """Apply ``edits`` to the text of ``uri``, one after the other (one given as an
        ``EditAt`` is read with the line index of the text the ones before it made), and
        record the result as a new version; the snapshot is rebuilt when next asked for.
        False when ``uri`` is not open."""
        document = self._documents.get(uri)
        if document is None:
            return False
        current = document.current
        lines, region = apply_in_order(current.lines, edits)
        self._revisions += 1
        changes, since = current.changes, current.since
        if len(changes) >= KEPT_CHANGES:
            half = len(changes) // 2
            changes, since = changes[half:], changes[half - 1][0]
        document.current = TextVersion(
            lines.text,
            version,
            self._revisions,
            lines,
            (*changes, (self._revisions, region if region is not None else UNCHANGED)),
            since,
        )
        return True

    def replace(self, uri: str, text: str, version: int) -> bool:
        """Record ``text`` as the new version of ``uri`` (opened when it is not): a change
        of the whole text, one edit narrowed to where the texts differ."""
        document = self._documents.get(uri)
        if document is None:
            return self.open(uri, text, version)
        return self.update(uri, [edit_between(document.text, text)], version)

    def close(self, uri: str) -> None:
        self._documents.pop(uri, None)

    def diagnostics_memo(self, uri: str) -> DiagnosticsMemo | None:
        """The converted diagnostics kept for ``uri`` while it is open."""
        document = self._documents.get(uri)
        return document.diagnostics if document is not None else None

    def text(self, uri: str) -> str | None:
        """The latest text of an open document."""
        document = self._documents.get(uri)
        return document.text if document is not None else None

    def version(self, uri: str) -> int | None:
        document = self._documents.get(uri)
        return document.version if document is not None else None

    def revision(self, uri: str) -> int | None:
        """Changes with every update of ``uri`` (whatever the client's version says)."""
        document = self._documents.get(uri)
        return document.revision if document is not None else None

    def is_current(self, uri: str) -> bool:
        """True when the latest version's full analysis exists already."""
        return self.current_snapshot(uri) is not None

    def snapshot(self, uri: str) -> DocumentSnapshot | None:
        """The analysis of the latest version of ``uri``, built on first use (any thread)."""
        analysed = self.analyse(uri)
        return analysed[1] if analysed is not None else None

    def analyse(self, uri: str, depth: Depth = "findings") -> tuple[int, DocumentSnapshot] | None:
        """The latest revision of ``uri`` and its analysis, built on first use (any thread),
        as far as ``depth``: every finding placed; or as far as a request about the
        document reads (``"model"``: its model and context model; what else it reads,
        the semantic index, is made part by part when asked; ``"report"``: every finding
        made, for code actions to place those in their range); or its parse alone. What
        is left is made by the next caller that needs it, under the document's lock as
        everything it derives."""
        document = self._documents.get(uri)
        if document is None:
            return None
        revision = document.revision
        cached = document.analysis_of(revision)
        if cached is not None and _reached(cached, depth):
            return revision, cached
        with document.lock:
            # Read again under the lock: the parser only ever moves to a later text.
            current = document.current
            revision = current.revision
            snapshot = document.analysis_of(revision)
            if snapshot is None:
                snapshot = self._new_snapshot(document, current)
            if depth == "findings":
                snapshot.issues  # noqa: B018 - the whole analysis, done here rather than by a reader
            elif depth == "report":
                snapshot.report  # noqa: B018 - every finding, to be placed where asked
                snapshot.document_checks  # noqa: B018
            elif depth == "model":
                snapshot.context  # noqa: B018 - what a request reads first
            if document.analysed is None or document.analysed[0] <= revision:
                document.analysed = (revision, snapshot)
        return revision, snapshot

    @staticmethod
    def _new_snapshot(document: OpenDocument, current: TextVersion) -> DocumentSnapshot:
        """The analysis of ``current`` (not made yet), under the document's lock."""
        source = analysable(current.text)
        same = document.analysed
        if same is not None and same[1].text == source:  # an undo, a save: C speed
            return same[1].with_version(current.version)
        region = None if document.parsed is None else current.region_since(document.parsed)
        parsed = document.parser.parse(source, region)
        document.parsed = current.revision
        return DocumentSnapshot(
            parsed,
            uri=document.uri,
            version=current.version,
            derived=document.derived,
            # The client's text's lines, whatever ``analysable`` read differently: it keeps
            # every offset and line break, and positions are counted in the client's
            # units (a BOM is three UTF-8 bytes, the space read for it one).
            lines=current.lines,
        )

    def text_version(self, uri: str) -> TextVersion | None:
        """The latest text of ``uri`` with its revision and line index (what a request
        sent now is about)."""
        document = self._documents.get(uri)
        return document.current if document is not None else None

    def region_between(self, uri: str, old: int, new: int) -> Region | None:
        """Where revision ``old``'s text and the later revision ``new``'s may differ;
        None when that is no longer known (``KEPT_CHANGES``) or ``uri`` is not open."""
        document = self._documents.get(uri)
        return document.current.region_since(old, until=new) if document is not None else None

    def last_analysis(self, uri: str) -> DocumentSnapshot | None:
        """The latest analysis made of ``uri``, of whichever revision (never analyses)."""
        document = self._documents.get(uri)
        return document.snapshot if document is not None else None

    def has_analysed(self, uri: str) -> bool:
        """Whether some version of ``uri`` has been analysed since it was opened."""
        document = self._documents.get(uri)
        return document is not None and document.analysed is not None

    def current_snapshot(
        self, uri: str, depth: Depth = "findings"
    ) -> tuple[int, DocumentSnapshot] | None:
        """The latest revision and its analysis if it is done already as far as ``depth``
        (never analyses)."""
        document = self._documents.get(uri)
        if document is None:
            return None
        snapshot = document.analysis_of(document.revision)
        if snapshot is None or not _reached(snapshot, depth):
            return None
        return document.revision, snapshot

    def lines(self, uri: str) -> LineIndex | None:
        """Line index of an open document's latest text, without analysing it."""
        document = self._documents.get(uri)
        return document.current.lines if document is not None else None
