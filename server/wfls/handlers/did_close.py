"""``textDocument/didClose``: forget the document and clear its pushed diagnostics."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from wfls.handlers import guarded

if TYPE_CHECKING:
    from wfls.server import WflsServer


@guarded()
def handle(ls: WflsServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    if uri in ls.store:
        ls.store.close(uri)
        ls.document_closed(uri)
