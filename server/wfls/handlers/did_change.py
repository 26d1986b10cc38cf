"""``textDocument/didChange``: record the new text; analysis waits until needed.

pygls' built-in handler has already applied the incremental edits to its
copy of the document (keyed by the unquoted URI), so the full new text is
read from there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import unquote

from lsprotocol import types

from wfls.handlers import guarded

if TYPE_CHECKING:
    from wfls.server import WflsServer


@guarded()
def handle(ls: WflsServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    if uri not in ls.store:
        return
    document = ls.workspace.text_documents.get(unquote(uri))
    if document is None:
        return
    ls.store.update(uri, document.source, params.text_document.version)
    ls.document_changed(uri)
