"""What wfls changes of pygls' private behaviour, where pygls 2.1 offers no public way.

Everything else of the protocol uses pygls' public API (``handle_message``,
``structure_message``, ``writer``, the built-in features overridden with
``lsp_method``). Four things cannot be: each is done here, by overriding or reading
one private name of ``pygls.protocol.JsonRPCProtocol``, and
``tests/lsp/test_pygls_internals.py`` checks that each name still has the shape used
here and that each behaviour is still what wfls makes it, so a pygls upgrade that
changes one fails a test instead of undoing the change in silence.

- ``_send_response`` (overridden): pygls sends every reply through it, so it is where
  a request is known to be answered (``answering``, which an edit's analysis waits
  on). pygls has no hook for a reply sent.
- ``_send_handler_result`` (overridden): pygls answers a request whose handler raised
  a ``JsonRpcException`` with that error, but logs a traceback at error level first,
  which editors show as a server failure; wfls raises such errors on purpose (a
  refused rename is ``RequestFailed``), so they are logged as one info line.
- ``_run_generator`` (overridden): a built-in handler written as a generator
  (``workspace/executeCommand``) runs the handler it yields as a task of its own. When
  the request is cancelled before that task ends, pygls returns without reading the
  task's outcome, so an error it raised (a refused run) is logged by asyncio, traceback
  and all, as "Task exception was never retrieved". wfls reads it: the request is gone,
  and its error with it.
- ``_request_futures`` (read): pygls 2.1.1 stores a future per notification handled
  through a built-in handler (didOpen/didChange/didClose...) or by a coroutine, and
  per step of a generator handler (``workspace/executeCommand``: the handler it
  yields, whose future holds the answer, a whole run's trace for a run), under an id
  of its own, and never removes it, so a long editing session would grow without
  bound. A finished future is of no use to anyone: replies and cancellations look
  futures up by id and tolerate a missing one, so the finished ones are dropped after
  every message. And at ``shutdown`` pygls cancels the requests under way while it
  iterates over that table, but cancelling a generator handler's request runs its
  callback at once, which removes it from the table being iterated (``RuntimeError:
  dictionary changed size during iteration``, logged as a server error): wfls cancels
  them first, over a copy (``cancel_under_way``).

And one thing pygls logs: a traceback at error level for every request it cannot decode
(``_DecodeNoise``), which wfls answers with ``InvalidParams`` and one line of its own.
"""

from __future__ import annotations

import logging
from collections.abc import Generator
from concurrent.futures import Future
from typing import Any

from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol

logger = logging.getLogger("wfls")


class _DecodeNoise(logging.Filter):
    """pygls logs a traceback for every request it cannot decode; wfls answers those
    with ``InvalidParams`` and logs one line, so the traceback is noise."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Unable to deserialize message")


logging.getLogger("pygls.protocol.json_rpc").addFilter(_DecodeNoise())


class AdaptedProtocol(LanguageServerProtocol):
    """pygls' protocol with replies tracked, deliberate errors answered quietly and the
    futures pygls leaves behind pruned."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Ids of the requests dispatched to a handler and not yet answered: an id is
        # added before dispatch and removed when its reply is sent. (Set first: pygls
        # looks the protocol's attributes over while it is made.)
        self._unanswered: set[Any] = set()
        super().__init__(*args, **kwargs)

    @property
    def answering(self) -> bool:
        """Whether a request has been dispatched and not yet answered."""
        return bool(self._unanswered)

    def dispatch(self, message: Any, *, request: bool) -> None:
        """Hand ``message`` to pygls: a request is unanswered until its reply is sent;
        after every message, the futures pygls finished with are dropped."""
        if request:
            self._unanswered.add(message.id)
        super().handle_message(message)
        futures = self._request_futures
        for key in [k for k, f in futures.items() if f.done()]:
            del futures[key]

    def cancel_under_way(self) -> None:
        """Cancel every request under way but the one being handled, over a copy of
        pygls' table (a cancelled request's callback removes it from the table)."""
        current = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current and not future.done():
                future.cancel()

    def _send_response(
        self, msg_id: Any, result: Any | None = None, error: Any | None = None
    ) -> None:
        self._unanswered.discard(msg_id)
        super()._send_response(msg_id, result=result, error=error)

    def _run_generator(
        self,
        future: Any,
        *,
        gen: Generator[Any, Any, Any],
        result_future: Future[Any],
    ) -> None:
        """The next step of a generator handler; when its request was cancelled, the
        outcome of the step that just ended is read (pygls leaves it unread)."""
        if result_future.cancelled() and future is not None and not future.cancelled():
            future.exception()
        super()._run_generator(future, gen=gen, result_future=result_future)

    def _send_handler_result(self, future: Future[Any], *, msg_id: Any) -> None:
        """Answer a request. An error the handler raised on purpose (``RequestFailed``
        for a refused rename, ``InvalidParams``) is the answer, not a server failure:
        one info line, where pygls would log a traceback at error level."""
        error = None if future.cancelled() else future.exception()
        if isinstance(error, JsonRpcException):
            self._request_futures.pop(msg_id, None)
            logger.info("request %s answered with error %d: %s", msg_id, error.code, error.message)
            self._send_response(msg_id, error=error.to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)
