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
- All store methods run on the server's event loop thread. The parser is
  stateful and not thread-safe, so nothing here may move to a worker thread
  without a lock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import unquote, urlparse

from wf_core.documents import DocumentParser, Syntax, syntax_for_path
from wf_core.files import WORKFLOW_SUFFIXES
from wf_core.snapshot import DocumentSnapshot
from wf_core.spans import LineIndex


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
    text: str
    version: int
    parser: DocumentParser
    snapshot: DocumentSnapshot | None = field(default=None, repr=False)


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
        self._documents[uri] = OpenDocument(uri, syntax, text, version, DocumentParser(syntax))
        return True

    def update(self, uri: str, text: str, version: int) -> bool:
        """Record a new version; the snapshot is rebuilt when next asked for."""
        document = self._documents.get(uri)
        if document is None:
            return self.open(uri, text, version)
        document.text, document.version = text, version
        return True

    def close(self, uri: str) -> None:
        self._documents.pop(uri, None)

    def version(self, uri: str) -> int | None:
        document = self._documents.get(uri)
        return document.version if document is not None else None

    def snapshot(self, uri: str) -> DocumentSnapshot | None:
        """The analysis of the latest version of ``uri``, built on first use."""
        document = self._documents.get(uri)
        if document is None:
            return None
        cached = document.snapshot
        if cached is not None and cached.version == document.version:
            return cached
        parsed = document.parser.parse(document.text)
        snapshot = DocumentSnapshot(parsed, uri=uri, version=document.version)
        document.snapshot = snapshot
        return snapshot

    def lines(self, uri: str) -> LineIndex | None:
        """Line index of an open document, without analysing it."""
        document = self._documents.get(uri)
        if document is None:
            return None
        if document.snapshot is not None and document.snapshot.version == document.version:
            return document.snapshot.lines
        return LineIndex(document.text)
