"""``wfls serve`` plus one request that exists only in tests: the server's text.

Tests that check the server's copy of a document against the client's need to
see that copy, and no public request shows it. Rather than ship a debug
command, this script adds ``wflsTest/documentText`` to the very server
``wfls serve`` runs, from the outside, and serves. The answer holds both
copies the server keeps: pygls' (which applies the edits) and the text the
analysis reads (the store's), with their versions, or null for a document
that is not open.
"""

from __future__ import annotations

import sys
from typing import Any
from urllib.parse import unquote

import wfls.server as wfls_server

TEXT_METHOD = "wflsTest/documentText"
_create = wfls_server.create_server


def create_server() -> wfls_server.WflsServer:
    server = _create()

    # Async, as wfls' own handlers are: it runs after the tasks of the messages before
    # it have started, so its reply also tells that they have (a barrier for tests).
    @server.feature(TEXT_METHOD)
    async def document_text(ls: wfls_server.WflsServer, params: Any) -> Any:
        uri = params["uri"] if isinstance(params, dict) else params.uri
        document = ls.workspace.text_documents.get(unquote(uri))
        if document is None:
            return None
        stored = ls.store._documents.get(uri)
        return {
            "text": document.source,
            "version": document.version,
            "analysed_text": stored.text if stored is not None else None,
            "analysed_version": stored.version if stored is not None else None,
        }

    return server


if __name__ == "__main__":
    wfls_server.create_server = create_server
    sys.exit(wfls_server.serve())
