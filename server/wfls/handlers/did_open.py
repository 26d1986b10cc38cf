"""``textDocument/didOpen``: track a workflow document and schedule its diagnostics (a
test document's are pushed from pygls' copy of its text, ``wfls.test_documents``)."""

from __future__ import annotations

from lsprotocol import types

from wfls.context import Session


def handle(session: Session, params: types.DidOpenTextDocumentParams) -> None:
    document = params.text_document
    if session.store.open(document.uri, document.text, document.version):
        session.document_opened(document.uri)
        session.test_documents.workflow_changed(document.uri)
    else:
        session.test_documents.changed(document.uri)
