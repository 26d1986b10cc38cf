"""pygls' protocol with the LSP lifecycle enforced (``WflsProtocol``).

Guarantees beyond pygls: every request gets a reply (``ServerNotInitialized``
before ``initialize``, ``InvalidRequest`` after ``shutdown`` or for a second
``initialize``, ``InvalidParams`` for params that do not decode, ``ParseError`` for a
body that is not JSON); notifications the server does not know are dropped quietly;
edits are applied with the same position rules as requests.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Generator
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from cattrs.errors import ClassValidationError
from cattrs.v import transform_error
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import LanguageServerProtocol, lsp_method

from wf_core.edits import apply_in_order
from wf_core.records import record
from wf_core.spans import LineIndex
from wfls import convert, transport

if TYPE_CHECKING:
    from wfls.server import WflsServer

logger = logging.getLogger("wfls")


class _DecodeNoise(logging.Filter):
    """pygls logs a traceback for every request it cannot decode; wfls answers those
    with ``InvalidParams`` and logs one line, so the traceback is noise."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Unable to deserialize message")


logging.getLogger("pygls.protocol.json_rpc").addFilter(_DecodeNoise())


@record
class RejectedRequest:
    """A request that could not be decoded; it is answered with ``error``."""

    id: Any
    method: str
    error: JsonRpcException
    jsonrpc: str = "2.0"


class WflsProtocol(LanguageServerProtocol):
    """pygls' protocol with the LSP lifecycle enforced and the futures it leaves behind
    for notifications pruned.

    pygls 2.1.1 stores a future per notification handled through a built-in
    handler (didOpen/didChange/didClose...) and never removes it, so a long
    editing session would grow without bound. A finished future is of no use to
    anyone: responses and cancellations look futures up by id and tolerate a
    missing one.
    """

    _server: WflsServer

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Ids of the requests dispatched to a handler and not yet answered: an id is
        # added before dispatch and removed when its response (or error) is sent. (Set
        # first: pygls looks the protocol's attributes over while it is made.)
        self._unanswered: set[Any] = set()
        super().__init__(*args, **kwargs)

    def notify_encoded(self, method: str, params: bytes) -> None:
        """Send a notification whose params are JSON already (``publish_params``): a
        large document's diagnostics are encoded by the worker, and the event loop only
        frames and writes them, with the framing pygls gives every message."""
        if self.writer is None:
            logger.error("cannot send %s: no transport", method)
            return
        body = b'{"jsonrpc": "2.0", "method": %s, "params": %s}' % (
            json.dumps(method).encode(),
            params,
        )
        header = (
            f"Content-Length: {len(body)}\r\n"
            f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
        )
        self.writer.write(header.encode() + body)

    def structure_message(self, data: Any) -> Any:
        """Deserialize, turning a request whose params do not fit into a rejection.

        pygls raises while decoding such a request, before it knows which request
        it was, so the client would wait for a reply that never comes. A request
        always gets an answer: here, ``InvalidParams`` at once.
        """
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if isinstance(data, dict) and "id" in data and "method" in data:
                cause = error.__cause__
                if isinstance(cause, ClassValidationError):
                    detail = "; ".join(transform_error(cause))
                    error = JsonRpcInvalidParams(f"Invalid Params: {detail}")
                return RejectedRequest(data["id"], str(data["method"]), error)
            raise

    _initialize_seen = False

    @property
    def answering(self) -> bool:
        """Whether a request has been dispatched and not yet answered."""
        return bool(self._unanswered)

    def _send_response(
        self, msg_id: Any, result: Any | None = None, error: Any | None = None
    ) -> None:
        self._unanswered.discard(msg_id)
        super()._send_response(msg_id, result=result, error=error)

    def handle_message(self, message: Any) -> None:
        """Apply the LSP lifecycle before pygls dispatches (pygls would answer requests
        before ``initialize``, run a second ``initialize``, and leave requests after
        ``shutdown`` unanswered): requests get the error the specification names,
        notifications the server cannot take are dropped."""
        method = getattr(message, "method", None)
        request = isinstance(message, RejectedRequest) or (
            method is not None and getattr(message, "id", None) is not None
        )
        refusal: JsonRpcException | None = None
        if method is None and self._shutdown and not isinstance(message, RejectedRequest):
            # The client's reply to a request the server sent before ``shutdown``, which
            # cancelled it: nothing waits for it. (pygls would warn on stderr, which
            # editors log as an error, of what is the client's ordinary behaviour.)
            logger.debug("a reply to request %s after shutdown: dropped", message.id)
            return
        if method is None or method == types.EXIT:
            pass  # responses, and exit, which is always obeyed
        elif not self._initialize_seen and method != types.INITIALIZE:
            refusal = JsonRpcServerNotInitialized(f"{method}: the server is not initialized yet")
        elif self._initialize_seen and method == types.INITIALIZE:
            refusal = JsonRpcInvalidRequest("initialize may only be sent once")
        elif self._shutdown:
            refusal = JsonRpcInvalidRequest(f"{method}: the server is shutting down")
        if refusal is not None:
            if request:
                self._send_response(message.id, error=refusal.to_response_error())
            else:
                logger.debug("dropped %s: %s", method, refusal.message)
            return
        if isinstance(message, RejectedRequest):
            logger.warning("%s: %s", message.method, message.error.message)
            self._send_response(message.id, error=message.error.to_response_error())
            return
        if method == types.INITIALIZE:
            self._initialize_seen = True
        elif method is not None and not request and not self._handles(method):
            # Unknown notifications, ``$/`` ones included, may be ignored (LSP).
            logger.debug("ignored the notification %s", method)
            return
        if request:
            self._unanswered.add(message.id)
        super().handle_message(message)

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        """Answer a request. An error the handler raised on purpose (``RequestFailed``
        for a refused rename, ``InvalidParams``) is the answer, not a server failure:
        pygls would log a traceback at error level for each; one info line here."""
        if not future.cancelled() and isinstance(future.exception(), JsonRpcException):
            error: JsonRpcException = future.exception()
            self._request_futures.pop(msg_id, None)
            logger.info("request %s answered with error %d: %s", msg_id, error.code, error.message)
            self._send_response(msg_id, error=error.to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)

    def _handles(self, method: str | None) -> bool:
        return method == types.CANCEL_REQUEST or (
            method in self.fm.builtin_features or method in self.fm.features
        )

    def handle_body(self, body: bytes) -> None:
        """One framed message from the transport: decode it, answer what cannot be."""
        data, problem = transport.parse(body)
        if data is None:
            error: JsonRpcException = (
                JsonRpcParseError("the message is not JSON")
                if problem == "parse"
                else JsonRpcInvalidRequest("the message is not a JSON-RPC 2.0 message")
            )
            logger.warning("%s (%d bytes): %s", error.message, len(body), body[:80])
            self._send_data({"jsonrpc": "2.0", "id": None, "error": _error_object(error)})
            return
        try:
            message = self.structure_message(data)
        except JsonRpcException as error:
            logger.warning("%s: ignored a message that does not decode", data.get("method"))
            if "method" not in data:  # a reply to the server's request: fail that request
                future = self._request_futures.pop(data["id"], None)
                if future is not None and not future.done():
                    future.set_exception(error)
            return
        self.handle_message(message)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        """Run the wfls handler, which applies the edits to the store's text, and make
        pygls' copy of the document that text.

        pygls keeps a copy of every open document and offers no way not to; wfls reads
        from it only whether a document is open. pygls' own application of the edits
        disagrees with the specification at the edges (``convert.edit_at`` reads
        positions as requests do), so the copy is replaced by the text the edits made
        here: the store's for a workflow document, else the same edits applied to the
        copy (a document the store does not track). The two are never compared. An
        edit of a document that is not open is ignored.
        """
        uri = params.text_document.uri
        document = self.workspace.text_documents.get(unquote(uri))
        if document is None:
            logger.warning("didChange of %s, which is not open: ignored", uri)
            return
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None
        text = self._server.store.text(uri)
        if text is None:
            encoding = self._server.flags.position_encoding
            edits = [convert.edit_at(change, encoding) for change in params.content_changes]
            text = apply_in_order(LineIndex(document.source), edits)[0].text
        document.apply_change(types.TextDocumentContentChangeWholeDocument(text=text))
        document.version = params.text_document.version

    def _handle_notification(self, method_name: str, params: Any) -> None:
        super()._handle_notification(method_name, params)
        futures = self._request_futures
        if futures:
            for key in [k for k, f in futures.items() if f.done()]:
                del futures[key]


def _error_object(error: JsonRpcException) -> dict[str, Any]:
    return {"code": error.code, "message": error.message}
