"""``wfls debug``: the Debug Adapter Protocol over stdio, or ``--port N`` on 127.0.0.1.

The session runs in this process, one request at a time (``wfls.debug.session``).
Over stdio the protocol owns standard output: what a user's handler prints goes to
standard error instead, so it cannot break a message.
"""

from __future__ import annotations

import argparse
import socket
import sys
from typing import BinaryIO


def add_debug_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port",
        type=int,
        metavar="N",
        help="listen on 127.0.0.1:N for one client instead of stdio (0 picks a free port, "
        "printed on standard error)",
    )


def serve_session(reader: BinaryIO, writer: BinaryIO) -> None:
    """Answer one client's requests until it disconnects or its input ends."""
    from wfls.debug.protocol import Writer, read_message
    from wfls.debug.session import Session

    out = Writer(writer)
    session = Session(out.send)
    while not session.finished:
        message = read_message(reader)
        if message is None:
            return
        if message.get("type") == "request":
            session.handle(message)
    # A client may still send disconnect after terminated: answer it.
    while True:
        message = read_message(reader)
        if message is None or message.get("type") != "request":
            return
        session.handle(message)
        if message.get("command") == "disconnect":
            return


def run_debug(port: int | None) -> int:
    if port is None:
        reader, writer = sys.stdin.buffer, sys.stdout.buffer
        sys.stdout = sys.stderr  # a handler's print must not land among the messages
        serve_session(reader, writer)
        return 0
    with socket.create_server(("127.0.0.1", port)) as server:
        print(f"wfls debug: listening on 127.0.0.1:{server.getsockname()[1]}", file=sys.stderr)
        sys.stderr.flush()
        connection, _ = server.accept()
        with connection, connection.makefile("rb") as reader, connection.makefile("wb") as writer:
            serve_session(reader, writer)
    return 0
