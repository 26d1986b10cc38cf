"""pygls' protocol with the LSP lifecycle enforced (``WflsProtocol``).

Guarantees beyond pygls: every request gets a reply (``ServerNotInitialized``
before ``initialize``, ``InvalidRequest`` after ``shutdown`` or for a second
``initialize``, ``MethodNotFound`` for a method the server does not serve whatever its
params, ``InvalidParams`` for params of one it does that do not decode, ``ParseError``
for a body that is not JSON, with the request's id when it can be read, and
``InvalidParams`` naming the known commands for an unknown ``executeCommand``);
notifications the server does not know are dropped quietly;
edits are applied with the same position rules as requests.

Only pygls' public API is used here; what wfls changes of pygls' private behaviour is
in ``pygls_internals``.
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
    JsonRpcMethodNotFound,
    JsonRpcParseError,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import lsp_method

from wf_core.base.edits import apply_in_order
from wf_core.base.records import record
from wf_core.base.spans import LineIndex
from wfls import convert, transport
from wfls.pygls_internals import AdaptedProtocol

if TYPE_CHECKING:
    from cattrs import Converter

    from wfls.context import Session

logger = logging.getLogger("wfls")


@record
class RejectedRequest:
    """A request that could not be decoded; it is answered with ``error``."""

    id: Any
    method: str
    error: JsonRpcException
    jsonrpc: str = "2.0"


class WflsProtocol(AdaptedProtocol):
    """pygls' protocol with the LSP lifecycle enforced."""

    def __init__(self, server: Session, converter: Converter) -> None:
        # The session whose documents ``didChange`` edits (pygls makes the protocol with
        # the server it serves, which is that session).
        self.session = server
        self.shut_down = False
        """Whether ``shutdown`` was handled: the server then takes nothing but ``exit``."""
        super().__init__(server, converter)

    def notify_encoded(self, method: str, params: bytes) -> None:
        """Send a notification whose params are JSON already (``publish_params``): a
        large document's diagnostics are encoded by the worker, and the event loop only
        frames and writes them."""
        body = b'{"jsonrpc": "2.0", "method": %s, "params": %s}' % (
            json.dumps(method).encode(),
            params,
        )
        self._write(body, method)

    def _reply_error(self, msg_id: Any, error: JsonRpcException) -> None:
        """Answer a request pygls is not given (refused, or that does not decode)."""
        reply = {"jsonrpc": "2.0", "id": msg_id, "error": _error_object(error)}
        self._write(json.dumps(reply).encode(), "a reply")

    def _write(self, body: bytes, what: str) -> None:
        """Write one message, with the framing pygls gives every message."""
        if self.writer is None:
            logger.error("cannot send %s: no transport", what)
            return
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
                method = str(data["method"])
                cause = error.__cause__
                if not self._handles(method):
                    # A method of the specification wfls does not serve: whatever its
                    # params, it is not found (pygls decodes them first).
                    error = JsonRpcMethodNotFound.of(method)
                elif isinstance(cause, ClassValidationError):
                    detail = "; ".join(transform_error(cause))
                    error = JsonRpcInvalidParams(f"Invalid Params: {detail}")
                return RejectedRequest(data["id"], method, error)
            raise

    _initialize_seen = False

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
        if method is None and self.shut_down and not isinstance(message, RejectedRequest):
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
        elif self.shut_down:
            refusal = JsonRpcInvalidRequest(f"{method}: the server is shutting down")
        if refusal is not None:
            if request:
                self._reply_error(message.id, refusal)
            else:
                logger.debug("dropped %s: %s", method, refusal.message)
            return
        if isinstance(message, RejectedRequest):
            logger.warning("%s: %s", message.method, message.error.message)
            self._reply_error(message.id, message.error)
            return
        if method == types.INITIALIZE:
            self._initialize_seen = True
        elif method is not None and not request and not self._handles(method):
            # Unknown notifications, ``$/`` ones included, may be ignored (LSP).
            logger.debug("ignored the notification %s", method)
            return
        self.dispatch(message, request=request)

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
            # The request's own id when it can be read (a body nested too deeply to
            # decode), so that a client waiting for that reply gets it; else null.
            self._reply_error(transport.request_id(body) if problem == "parse" else None, error)
            return
        try:
            message = self.structure_message(data)
        except JsonRpcException as error:
            logger.warning("%s: ignored a message that does not decode", data.get("method"))
            if "method" not in data:  # a reply to the server's request: fail that request
                failed = types.ResponseError(code=error.code, message=error.message)
                self.handle_message(types.ResponseErrorMessage(id=data["id"], error=failed))
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
        text = self.session.store.text(uri)
        if text is None:
            encoding = self.session.flags.position_encoding
            edits = [convert.edit_at(change, encoding) for change in params.content_changes]
            text = apply_in_order(LineIndex(document.source), edits)[0].text
        document.apply_change(types.TextDocumentContentChangeWholeDocument(text=text))
        document.version = params.text_document.version

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    def lsp_workspace__execute_command(
        self, params: types.ExecuteCommandParams
    ) -> Generator[Any, Any, Any]:
        """pygls' ``workspace/executeCommand``, an unknown command refused with the names
        of those the server has (pygls' own error names none)."""
        if params.command not in self.fm.commands:
            known = ", ".join(self.fm.commands)
            raise JsonRpcInvalidParams(
                f"unknown command {params.command!r}; the commands are: {known}"
            )
        return (yield from super().lsp_workspace__execute_command(params))

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls' ``shutdown`` (every request under way cancelled, then the wfls
        handler), after which the server takes nothing but ``exit``."""
        self.cancel_under_way()  # (pygls' own cancelling fails on a generator's request)
        yield from super().lsp_shutdown(*args)
        self.shut_down = True


def _error_object(error: JsonRpcException) -> dict[str, Any]:
    found = {"code": error.code, "message": error.message}
    return found if error.data is None else {**found, "data": error.data}
