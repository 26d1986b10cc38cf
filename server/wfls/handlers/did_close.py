"""``textDocument/didClose``: forget the document and clear its pushed diagnostics."""

from __future__ import annotations

from lsprotocol import types

from wfls.context import Session


def handle(session: Session, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    if uri in session.store:
        session.store.close(uri)
        session.document_closed(uri)
    else:
        session.test_documents.closed(uri)
