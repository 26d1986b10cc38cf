"""The open workflow documents and their analysis, one snapshot per version.

pygls keeps the text (it applies incremental edits before our handlers run);
the store keeps, per workflow document, a ``DocumentParser`` that reparses
incrementally against the previous version, and the snapshot of the latest
version once something asked for it.

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
  text, version and revision are read and written together as one tuple, so a
  worker never pairs one version's text with another's number. Only the event
  loop calls ``open``, ``update`` and ``close``.
- While a full analysis is pending, completion and hover may answer from an
  :class:`~wf_core.overlay.EditedSnapshot`: the last analysed version seen
  through an edit confined to one string literal. The version they prefer to
  see through is the latest one whose semantic index is built (``indexed``):
  the newest analysis may not have one yet, and building it costs more than
  the analysis itself on a large document. An index is recorded for the latest
  analysis or the one before it (``previous``): a request sees through the
  analysis it found, and the worker often finishes the next one first. The
  first index of a document is recorded whatever its revision (``mark_indexed``
  with the revision): until one exists, every request waits for a build.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from urllib.parse import unquote, urlparse

from wf_core.analysis.context_scopes import ContextCache
from wf_core.documents import DocumentParser, Syntax, syntax_for_path
from wf_core.files import WORKFLOW_SUFFIXES
from wf_core.models.loading import ModelCache
from wf_core.overlay import derive_edited_snapshot
from wf_core.placing import PlacementMemo
from wf_core.snapshot import DocumentSnapshot
from wf_core.spans import LineIndex
from wf_core.validation.document_checks import DocumentChecksMemo
from wf_core.validation.memo import ValidationMemo
from wf_core.view import AnalysisView
from wfls.diagnostics_memo import DiagnosticsMemo

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def analysable(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD, for the analysis.

    A JSON string may carry a lone surrogate (``"\\udc80"``), so a client may send
    one in a document, but nothing can encode it in UTF-8 and the analysis fails on
    it. One code point replaces one, so every offset, and so every position the
    analysis answers with, stays that of the client's text.
    """
    if text.isascii() or _LONE_SURROGATE.search(text) is None:
        return text
    return _LONE_SURROGATE.sub("\ufffd", text)


def workflow_syntax(uri: str) -> Syntax | None:
    """The syntax of a workflow document by its URI, or None for other documents.

    The URI decides, not the language id: clients disagree on language ids
    (``toml``, ``json``, ``jsonc``, a custom one), but the suffix is the contract.
    """
    path = unquote(urlparse(uri).path) or uri
    if not path.endswith(WORKFLOW_SUFFIXES):
        return None
    return syntax_for_path(path)


@dataclass
class OpenDocument:
    uri: str
    syntax: Syntax
    current: tuple[str, int, int]  # (text, version, revision), replaced as one value
    parser: DocumentParser
    analysed: tuple[int, DocumentSnapshot] | None = field(default=None, repr=False)
    # The analysis ``analysed`` replaced: a request that arrived while the latest one
    # was being made sees through it, and may build its index meanwhile.
    previous: tuple[int, DocumentSnapshot] | None = field(default=None, repr=False)
    # The latest analysis whose semantic index is built, with its revision.
    indexed: tuple[int, DocumentSnapshot] | None = field(default=None, repr=False)
    # The analysis whose first index is being built while ``indexed`` is None: that build
    # gives way to newer analyses, and requests see through it meanwhile.
    indexing: DocumentSnapshot | None = field(default=None, repr=False)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    models: ModelCache = field(default_factory=ModelCache, repr=False)
    contexts: ContextCache = field(default_factory=ContextCache, repr=False)
    validations: ValidationMemo = field(default_factory=ValidationMemo, repr=False)
    placements: PlacementMemo = field(default_factory=PlacementMemo, repr=False)
    checks: DocumentChecksMemo = field(default_factory=DocumentChecksMemo, repr=False)
    # Read and written by the analysis worker only (``WflsServer._compute_diagnostics``).
    diagnostics: DiagnosticsMemo = field(default_factory=DiagnosticsMemo, repr=False)

    @property
    def text(self) -> str:
        return self.current[0]

    @property
    def version(self) -> int:
        return self.current[1]

    @property
    def revision(self) -> int:
        return self.current[2]

    @property
    def snapshot(self) -> DocumentSnapshot | None:
        """The latest analysis made, of whichever revision."""
        return self.analysed[1] if self.analysed is not None else None

    def analysis_of(self, revision: int) -> DocumentSnapshot | None:
        analysed = self.analysed
        return analysed[1] if analysed is not None and analysed[0] == revision else None

    def kept_analysis_of(self, revision: int) -> DocumentSnapshot | None:
        """The analysis of ``revision`` if it is still kept (the latest or the one before)."""
        for known in (self.analysed, self.previous):
            if known is not None and known[0] == revision:
                return known[1]
        return None


def _same_text(
    text: str, *analyses: tuple[int, DocumentSnapshot] | None
) -> DocumentSnapshot | None:
    """The first analysis whose text is ``text`` (a C-speed comparison)."""
    for analysis in analyses:
        if analysis is not None and analysis[1].text == text:
            return analysis[1]
    return None


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
        self._documents[uri] = OpenDocument(
            uri, syntax, (text, version, self._revisions), DocumentParser(syntax)
        )
        return True

    def update(self, uri: str, text: str, version: int) -> bool:
        """Record a new version; the snapshot is rebuilt when next asked for."""
        document = self._documents.get(uri)
        if document is None:
            return self.open(uri, text, version)
        self._revisions += 1
        document.current = (text, version, self._revisions)
        return True

    def close(self, uri: str) -> None:
        self._documents.pop(uri, None)

    def diagnostics_memo(self, uri: str) -> DiagnosticsMemo | None:
        """The converted diagnostics kept for ``uri`` while it is open."""
        document = self._documents.get(uri)
        return document.diagnostics if document is not None else None

    def version(self, uri: str) -> int | None:
        document = self._documents.get(uri)
        return document.version if document is not None else None

    def revision(self, uri: str) -> int | None:
        """Changes with every update of ``uri`` (whatever the client's version says)."""
        document = self._documents.get(uri)
        return document.revision if document is not None else None

    def is_current(self, uri: str) -> bool:
        """True when the latest version's full analysis exists already."""
        document = self._documents.get(uri)
        return document is not None and document.analysis_of(document.revision) is not None

    def snapshot(self, uri: str) -> DocumentSnapshot | None:
        """The analysis of the latest version of ``uri``, built on first use (any thread)."""
        analysed = self.analyse(uri)
        return analysed[1] if analysed is not None else None

    def analyse(self, uri: str) -> tuple[int, DocumentSnapshot] | None:
        """The latest revision of ``uri`` and its analysis, built on first use (any thread)."""
        document = self._documents.get(uri)
        if document is None:
            return None
        text, version, revision = document.current
        cached = document.analysis_of(revision)
        if cached is not None:
            return revision, cached
        with document.lock:
            cached = document.analysis_of(revision)
            if cached is not None:
                return revision, cached
            source = analysable(text)
            same = _same_text(source, document.indexed, document.analysed)
            if same is not None:
                snapshot = same.with_version(version)
            else:
                parsed = document.parser.parse(source)
                before = document.analysed
                snapshot = DocumentSnapshot(
                    parsed,
                    uri=uri,
                    version=version,
                    model_cache=document.models,
                    context_cache=document.contexts,
                    validation_memo=document.validations,
                    placement_memo=document.placements,
                    checks_memo=document.checks,
                    lines_before=before[1].made_lines if before is not None else None,
                )
            snapshot.issues  # noqa: B018 - the whole analysis, done here rather than by a reader
            if document.analysed is None or document.analysed[0] <= revision:
                if document.analysed is not None and document.analysed[0] < revision:
                    document.previous = document.analysed
                document.analysed = (revision, snapshot)
        return revision, snapshot

    def editing_snapshot(self, uri: str) -> AnalysisView | None:
        """The latest version's snapshot if analysed, else one derived from the last analysed
        version through an edit inside one string literal; None when neither exists."""
        document = self._documents.get(uri)
        if document is None:
            return None
        text, version, revision = document.current
        analysed = document.analysed
        if analysed is not None and analysed[0] == revision and analysed[1].has_index:
            return analysed[1]
        source = analysable(text)
        indexed = document.indexed
        if indexed is not None:
            if indexed[0] == revision:
                return indexed[1]
            if indexed[1].text == source:
                return indexed[1].with_version(version)
            derived = derive_edited_snapshot(indexed[1], source, version)
            if derived is not None:
                return derived
        elif document.indexing is not None:
            # Seen through the analysis whose first index is under way: the request
            # waits for the rest of that index rather than build a whole one of its own
            # (a completion or hover inside a node answers from that node's index instead:
            # ``WflsServer.request_context``).
            derived = derive_edited_snapshot(document.indexing, source, version)
            if derived is not None:
                return derived
        if analysed is None:
            return None
        if analysed[0] == revision:
            return analysed[1]
        return derive_edited_snapshot(analysed[1], analysable(text), version)

    def mark_indexed(
        self, uri: str, snapshot: DocumentSnapshot, revision: int | None = None
    ) -> None:
        """``snapshot``'s index is built: while-typing requests may see through it.

        Recorded when ``snapshot`` is the latest analysis or the one before it (their
        revisions are known) and newer than the version recorded so far. The one
        before matters: a request that arrived while the latest analysis was being
        made saw through it, and its index is often finished only after that analysis.
        With its ``revision`` given, ``snapshot`` is recorded when no index is yet,
        however old it is: the document's first index, built while edits went on.
        """
        document = self._documents.get(uri)
        if document is None or not snapshot.has_index:
            return
        if revision is not None and document.indexed is None:
            document.indexed = (revision, snapshot)
            document.indexing = None
            return
        for known in (document.analysed, document.previous):
            if known is not None and known[1] is snapshot:
                if document.indexed is None or document.indexed[0] <= known[0]:
                    document.indexed = known
                return

    def first_index_under_way(self, uri: str, snapshot: DocumentSnapshot) -> None:
        """``snapshot``'s index, the document's first, is being built (``editing_snapshot``)."""
        document = self._documents.get(uri)
        if document is not None and document.indexed is None:
            document.indexing = snapshot

    def has_analysed(self, uri: str) -> bool:
        """Whether some version of ``uri`` has been analysed since it was opened."""
        document = self._documents.get(uri)
        return document is not None and document.analysed is not None

    def has_indexed(self, uri: str) -> bool:
        """Whether some analysis of ``uri`` has its semantic index built and recorded."""
        document = self._documents.get(uri)
        return document is not None and document.indexed is not None

    def kept_snapshot(self, uri: str, revision: int) -> DocumentSnapshot | None:
        """The analysis of ``revision`` if the store still keeps it (never analyses)."""
        document = self._documents.get(uri)
        return document.kept_analysis_of(revision) if document is not None else None

    def current_snapshot(self, uri: str) -> tuple[int, DocumentSnapshot] | None:
        """The latest revision and its analysis if it is done already (never analyses)."""
        document = self._documents.get(uri)
        if document is None:
            return None
        snapshot = document.analysis_of(document.revision)
        return (document.revision, snapshot) if snapshot is not None else None

    def lines(self, uri: str) -> LineIndex | None:
        """Line index of an open document, without analysing it."""
        document = self._documents.get(uri)
        if document is None:
            return None
        text, _, revision = document.current
        snapshot = document.analysis_of(revision)
        if snapshot is not None:
            return snapshot.lines
        return LineIndex(text)
