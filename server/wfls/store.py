"""The open workflow documents and their analysis, one snapshot per version.

pygls keeps the text (it applies incremental edits before our handlers run);
the store keeps, per workflow document, a ``DocumentParser`` that reparses
incrementally against the previous version, and the snapshot of the latest
version once something asked for it.

Invariants:

- A snapshot is built at most once per (uri, version) and never mutated;
  a request holding one keeps a consistent view while newer versions arrive.
- Building is lazy: an edit only records the text; the first request or the
  debounced diagnostics build the snapshot. A burst of edits costs one parse.
- Full analyses may run on a worker thread while the event loop keeps
  answering: each document's parser is used only under its lock, and the
  text and version are read and written together as one tuple, so a worker
  never pairs one version's text with another's number.
- While a full analysis is pending, completion and hover may answer from an
  :class:`~wf_core.overlay.EditedSnapshot`: the last analysed version seen
  through an edit confined to one string literal. The version they prefer to
  see through is the latest one whose semantic index is built (``indexed``):
  the newest analysis may not have one yet, and building it costs more than
  the analysis itself on a large document.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from urllib.parse import unquote, urlparse

from wf_core.analysis.context_scopes import ContextCache
from wf_core.documents import DocumentParser, Syntax, syntax_for_path
from wf_core.files import WORKFLOW_SUFFIXES
from wf_core.models.loading import ModelCache
from wf_core.overlay import derive_edited_snapshot
from wf_core.snapshot import DocumentSnapshot
from wf_core.spans import LineIndex
from wf_core.view import AnalysisView


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
    current: tuple[str, int]  # (text, version), replaced as one value
    parser: DocumentParser
    snapshot: DocumentSnapshot | None = field(default=None, repr=False)
    indexed: DocumentSnapshot | None = field(default=None, repr=False)  # index built
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    models: ModelCache = field(default_factory=ModelCache, repr=False)
    contexts: ContextCache = field(default_factory=ContextCache, repr=False)

    @property
    def text(self) -> str:
        return self.current[0]

    @property
    def version(self) -> int:
        return self.current[1]


def _same_text(text: str, *snapshots: DocumentSnapshot | None) -> DocumentSnapshot | None:
    """The first of ``snapshots`` whose text is ``text`` (a C-speed comparison)."""
    for snapshot in snapshots:
        if snapshot is not None and snapshot.text == text:
            return snapshot
    return None


class DocumentStore:
    def __init__(self) -> None:
        self._documents: dict[str, OpenDocument] = {}

    def __contains__(self, uri: str) -> bool:
        return uri in self._documents

    def uris(self) -> list[str]:
        return list(self._documents)

    def open(self, uri: str, text: str, version: int) -> bool:
        """Track ``uri``; False (and nothing tracked) when it is not a workflow document."""
        syntax = workflow_syntax(uri)
        if syntax is None:
            return False
        self._documents[uri] = OpenDocument(uri, syntax, (text, version), DocumentParser(syntax))
        return True

    def update(self, uri: str, text: str, version: int) -> bool:
        """Record a new version; the snapshot is rebuilt when next asked for."""
        document = self._documents.get(uri)
        if document is None:
            return self.open(uri, text, version)
        document.current = (text, version)
        return True

    def close(self, uri: str) -> None:
        self._documents.pop(uri, None)

    def version(self, uri: str) -> int | None:
        document = self._documents.get(uri)
        return document.version if document is not None else None

    def is_current(self, uri: str) -> bool:
        """True when the latest version's full analysis exists already."""
        document = self._documents.get(uri)
        return (
            document is not None
            and document.snapshot is not None
            and document.snapshot.version == document.version
        )

    def snapshot(self, uri: str) -> DocumentSnapshot | None:
        """The analysis of the latest version of ``uri``, built on first use (any thread)."""
        document = self._documents.get(uri)
        if document is None:
            return None
        text, version = document.current
        cached = document.snapshot
        if cached is not None and cached.version == version:
            return cached
        with document.lock:
            cached = document.snapshot
            if cached is not None and cached.version == version:
                return cached
            same = _same_text(text, document.indexed, document.snapshot)
            if same is not None:
                snapshot = same.with_version(version)
            else:
                parsed = document.parser.parse(text)
                snapshot = DocumentSnapshot(
                    parsed,
                    uri=uri,
                    version=version,
                    model_cache=document.models,
                    context_cache=document.contexts,
                )
            snapshot.issues  # noqa: B018 - the whole analysis, done here rather than by a reader
            if document.snapshot is None or (document.snapshot.version or 0) <= version:
                document.snapshot = snapshot
        return snapshot

    def editing_snapshot(self, uri: str) -> AnalysisView | None:
        """The latest version's snapshot if analysed, else one derived from the last analysed
        version through an edit inside one string literal; None when neither exists."""
        document = self._documents.get(uri)
        if document is None:
            return None
        text, version = document.current
        base = document.snapshot
        if base is not None and base.version == version and base.has_index:
            return base
        indexed = document.indexed
        if indexed is not None:
            if indexed.version == version:
                return indexed
            if indexed.text == text:
                return indexed.with_version(version)
            derived = derive_edited_snapshot(indexed, text, version)
            if derived is not None:
                return derived
        if base is None:
            return None
        if base.version == version:
            return base
        return derive_edited_snapshot(base, text, version)

    def mark_indexed(self, uri: str, snapshot: DocumentSnapshot) -> None:
        """``snapshot``'s index is built: while-typing requests may see through it."""
        document = self._documents.get(uri)
        if document is None or not snapshot.has_index:
            return
        current = document.indexed
        if current is None or (current.version or 0) <= (snapshot.version or 0):
            document.indexed = snapshot

    def current_snapshot(self, uri: str) -> DocumentSnapshot | None:
        """The latest version's analysis if it is done already (never analyses)."""
        document = self._documents.get(uri)
        if document is None:
            return None
        snapshot = document.snapshot
        return snapshot if snapshot is not None and snapshot.version == document.version else None

    def lines(self, uri: str) -> LineIndex | None:
        """Line index of an open document, without analysing it."""
        document = self._documents.get(uri)
        if document is None:
            return None
        snapshot = document.snapshot
        if snapshot is not None and snapshot.version == document.version:
            return snapshot.lines
        return LineIndex(document.text)
