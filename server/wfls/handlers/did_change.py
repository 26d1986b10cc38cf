"""``textDocument/didChange``: apply the client's changes to the store's text."""

from __future__ import annotations

from lsprotocol import types

from wfls import convert
from wfls.context import Session


def handle(session: Session, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    if uri not in session.store:
        # pygls' copy of the text changes after this handler: the push waits for the loop.
        session.test_documents.changed(uri)
        return
    encoding = session.flags.position_encoding
    edits = [convert.edit_at(change, encoding) for change in params.content_changes]
    session.store.update(uri, edits, params.text_document.version)
    session.document_changed(uri, edited=True)
    session.test_documents.workflow_changed(uri)
