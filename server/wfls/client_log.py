"""Where the server's log records go while it serves a client.

Editors treat a language server's stderr as its error stream: Neovim 0.11 writes every
chunk of it to its LSP log at ERROR level, so an informational line ("request 4 answered
with error -32803: there is no name to rename here", a refused rename) read as a failure.
While a client can take them, records below ERROR are therefore sent to it as
``window/logMessage`` with the type of their level (a warning as ``Warning``, an info line
as ``Info``, a debug line as ``Log``), which the client logs at that level. Errors (and
tracebacks) stay on stderr, and so does everything the client cannot be sent: before
``initialize``, after ``shutdown``, once the client is gone.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from lsprotocol import types

STDERR_FORMAT = "wfls %(levelname)s %(name)s: %(message)s"
CLIENT_FORMAT = "%(name)s: %(message)s"  # the client adds the level and the time


def message_type(level: int) -> types.MessageType:
    """The ``window/logMessage`` type of a record's level."""
    if level >= logging.ERROR:
        return types.MessageType.Error
    if level >= logging.WARNING:
        return types.MessageType.Warning
    if level >= logging.INFO:
        return types.MessageType.Info
    return types.MessageType.Log


Send = Callable[[types.MessageType, str], bool]
"""Sends one log line to the client, from any thread; False when it cannot."""


class ClientLog(logging.Handler):
    """Records below ERROR to the client (``send``), the others to ``fallback`` (stderr),
    as is any record ``send`` refuses or that is logged while one is being sent (pygls
    logs its own failures to write)."""

    def __init__(self, send: Send, fallback: logging.Handler) -> None:
        super().__init__()
        self._send = send
        self._fallback = fallback
        self._sending = threading.local()
        self.setFormatter(logging.Formatter(CLIENT_FORMAT))

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno < logging.ERROR and not getattr(self._sending, "active", False):
            self._sending.active = True
            try:
                if self._send(message_type(record.levelno), self.format(record)):
                    return
            except Exception:  # a log line must never fail the caller
                pass
            finally:
                self._sending.active = False
        self._fallback.handle(record)


def install(send: Send) -> None:
    """Route the process's log records through :class:`ClientLog` (``wfls serve``)."""
    stderr = logging.StreamHandler()  # sys.stderr
    stderr.setFormatter(logging.Formatter(STDERR_FORMAT))
    logging.basicConfig(level=logging.WARNING, handlers=[ClientLog(send, stderr)])
