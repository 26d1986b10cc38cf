"""``textDocument/didChange``: record the new text (pygls has applied the edits already)."""

from __future__ import annotations

from lsprotocol import types

from wfls.context import Session


def handle(session: Session, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    if uri not in session.store:
        return
    text = session.text_of(uri)
    if text is None:
        return
    session.store.update(uri, text, params.text_document.version)
    session.document_changed(uri, edited=True)
