"""``textDocument/didOpen``: track workflow documents (by URI suffix) and check them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from wfls.handlers import guarded

if TYPE_CHECKING:
    from wfls.server import WflsServer


@guarded()
def handle(ls: WflsServer, params: types.DidOpenTextDocumentParams) -> None:
    document = params.text_document
    if ls.store.open(document.uri, document.text, document.version):
        ls.document_changed(document.uri)
