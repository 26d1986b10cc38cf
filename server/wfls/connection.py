"""The server's link to its client: served over stdio or a TCP socket with wfls' own
transport, log lines sent to it, and its process watched.

The thread that reads the input only frames messages (``transport``) and hands each to
the event loop; while one arrives, work in the analysis worker that can wait pauses
(``Scheduler.quiet``). The server exits when the client process named in
``initialize`` is gone, as LSP asks of a server whose client died without
``shutdown``/``exit``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, cast

from lsprotocol import types
from pygls.io_ import StdoutWriter

from wfls import transport

if TYPE_CHECKING:
    from wfls.server import WflsServer

logger = logging.getLogger("wfls")

PARENT_POLL = 3.0
"""Seconds between two checks that the client process named in ``initialize`` lives."""


class ClientConnection:
    """One server's client, from ``initialize`` until it is gone."""

    def __init__(self, server: WflsServer) -> None:
        self._server = server
        # The event loop serving the client, once ``initialize`` came (``log_to_client``).
        self._loop: asyncio.AbstractEventLoop | None = None
        self._gone = False
        self._watchdog: asyncio.Future[None] | None = None

    def initialized(self) -> None:
        """``initialize`` came (on the loop serving the client): log lines may go to it."""
        self._loop = asyncio.get_running_loop()

    def serve_stdio(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdio with wfls' transport (``transport``) instead of pygls' read
        loop, until the input ends or the client sends ``exit``."""
        server = self._server
        output, given = stdout or sys.stdout.buffer, stdin or sys.stdin.buffer
        for end in (given, output):
            transport.widen_pipe(end)
        server.protocol.set_writer(StdoutWriter(output))
        stream = transport.private_reader(given)
        try:
            asyncio.run(
                transport.serve_stream(
                    stream, server.protocol.handle_body, _problem, server.scheduler.quiet
                )
            )
        except BrokenPipeError:
            self._gone = True
            logger.info("the client closed its end of the connection")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            server.shutdown()  # type: ignore[no-untyped-call]  # pygls leaves it unannotated

    def serve_tcp(self, host: str, port: int) -> None:
        """Serve the first client that connects to ``host:port``, with the same transport
        as stdio (framing, blocking writes, a reading thread), until it disconnects or
        sends ``exit``; ``exit`` ends here as ``SystemExit`` with the exit status.

        pygls' own TCP server buffers replies without limit for a client that stops
        reading and keeps pygls' read loop; here the accepted socket is taken over from
        asyncio (a duplicate of its descriptor, in blocking mode) and served like stdio.
        A listening error (a busy port) is raised as ``OSError``."""
        asyncio.run(self._serve_tcp(host, port))

    async def _serve_tcp(self, host: str, port: int) -> None:
        server = self._server
        loop = asyncio.get_running_loop()
        accepted: asyncio.Future[socket.socket] = loop.create_future()

        def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if accepted.done():  # one client per server, as over stdio
                writer.close()
                return
            channel = cast(asyncio.Transport, writer.transport)
            channel.pause_reading()
            original = writer.get_extra_info("socket")
            connection = socket.socket(fileno=os.dup(original.fileno()))
            connection.setblocking(True)
            channel.abort()  # closes asyncio's descriptor, not the connection
            accepted.set_result(connection)

        listener = await asyncio.start_server(connected, host, port)
        logger.info("listening on %s:%d", host, port)
        async with listener:
            connection = await accepted
        with connection:
            server.protocol.set_writer(StdoutWriter(connection.makefile("wb")))
            stream = cast(BinaryIO, connection.makefile("rb", buffering=transport.READ_BUFFER))
            await transport.serve_stream(
                stream, server.protocol.handle_body, _problem, server.scheduler.quiet
            )

    def log_to_client(self, kind: types.MessageType, message: str) -> bool:
        """Send ``message`` as ``window/logMessage`` (from any thread: another thread's is
        sent by the loop); False when the client cannot take it: before ``initialize``,
        after ``shutdown``, once it is gone (``wfls.client_log``)."""
        loop = self._loop
        if loop is None or not self._can_log():
            return False
        params = types.LogMessageParams(type=kind, message=message)
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._send_log(params)
            return True
        if loop.is_closed():
            return False
        try:
            loop.call_soon_threadsafe(self._send_log, params)
        except RuntimeError:  # closed meanwhile
            return False
        return True

    def _can_log(self) -> bool:
        protocol = self._server.protocol
        return not (self._gone or protocol.shut_down or protocol.writer is None)

    def _send_log(self, params: types.LogMessageParams) -> None:
        if not self._can_log():
            return
        try:
            self._server.window_log_message(params)
        except OSError:
            self._gone = True  # the pipe is closed: what follows goes to stderr

    def watch_client(self, pid: int | None) -> None:
        """Exit when the client process ``pid`` (``processId`` of ``initialize``) is gone,
        as LSP asks of a server whose client died without ``shutdown``/``exit``. A pid
        that is not alive already (a client in another pid namespace) is not watched."""
        if pid is None or pid <= 0 or os.name != "posix":
            return
        if not _alive(pid):
            logger.warning("the client's process %d is not visible here: not watching it", pid)
            return
        self._watchdog = asyncio.ensure_future(self._watch_client(pid))

    async def _watch_client(self, pid: int) -> None:
        while _alive(pid):
            await asyncio.sleep(PARENT_POLL)
        self._gone = True
        logger.warning("the client's process %d is gone: exiting", pid)
        # Ends the event loop and so ``serve`` (exit status 1: no shutdown came).
        raise SystemExit(1)


def _problem(text: str) -> None:
    logger.warning("%s", text)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (a dead child not yet reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, owned by someone else
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return True  # no /proc: trust kill
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] != b"Z"
