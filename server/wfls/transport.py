"""The stdio transport: LSP framing read leniently, in bounded memory, with backpressure.

pygls' own read loop loses its place for good after one message whose
``Content-Length`` header is missing or wrong (every later header is read as
part of a body line), so the server would silently stop answering. This loop
resynchronises instead:

- Header lines are read with a length limit; a line holding a
  ``Content-Length`` header (in any case, after any junk on the same line)
  starts a new header block. A block that ends without a valid length is
  skipped with one warning on stderr; so is everything up to the next header.
- A body is read in chunks of at most ``CHUNK`` bytes, so a bogus length
  costs memory only for the bytes that really arrive. A length over
  ``MAX_BODY`` is taken as junk, like a missing one: what follows is skipped
  up to the next header, rather than swallowing every later message.
- A body that is not JSON gets a ``ParseError`` reply and one that is JSON but
  not a JSON-RPC message an ``InvalidRequest`` reply (both with a null id, as
  JSON-RPC prescribes, but for a body whose ``id`` can still be read: one nested
  too deeply to decode is answered with its own id, ``request_id``); the session
  goes on.
- End of input ends the loop.

Decoding: a body of ``FAST_DECODE`` bytes or more (a document opened or changed
whole) is decoded by msgspec, three times as fast as the json module (a 6 MB
change of a 16,000-node workflow: 6 ms instead of 18, while the request behind
it waits). Where msgspec refuses a text (``NaN``, a lone surrogate escape, a
number out of range, a byte-order mark), the json module decides, so every body
decodes to what the json module makes of it. Small bodies take the json module
at once: msgspec is imported with the first large one.

Backpressure: the reading thread hands each message to the event loop and
waits until the loop has handled it before reading the next, and the loop
writes replies with blocking writes. A client that stops reading stdout
therefore stalls the server (the loop blocks on a full pipe, the reader waits
for the loop, the client's own writes then block on a full stdin pipe)
instead of making it buffer: memory stays bounded by the pipe buffers, one
message and the requests already accepted.

Pipes are widened to ``PIPE_BUFFER`` where the system allows it (Linux): a
full-document change of a large workflow is megabytes, and with the default
64 KiB pipe it crossed in a hundred reads, each of which waited for the
interpreter lock while an analysis held it (a 6 MB change took 75-110 ms to
arrive during an index build, 10-20 ms otherwise). Memory stays bounded: by
the wider buffers.

The reading thread is a daemon: after ``exit`` the process ends even if the
client keeps stdin open. It reads through a buffer of its own over a copy of
the file descriptor: the interpreter flushes ``sys.stdin`` at exit and aborts
if a daemon thread is blocked inside it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

logger = logging.getLogger("wfls")

MAX_HEADER_LINE = 64 * 1024
"""Bytes of one header line read at a time; a longer line is junk, read in pieces."""
MAX_BODY = 256 * 1024 * 1024
"""The largest message body accepted; a larger one is read and dropped."""
CHUNK = 1024 * 1024
READ_BUFFER = 64 * 1024
PIPE_BUFFER = 1024 * 1024
"""Bytes a stdio pipe is asked to hold (Linux's default upper limit for a user)."""
FAST_DECODE = 64 * 1024
"""Bodies from this size on are decoded by msgspec (see the module's docstring)."""

_CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*(\S*)[ \t]*\r?\n?\Z", re.IGNORECASE)


def read_messages(
    stream: BinaryIO,
    deliver: Callable[[bytes], None],
    problem: Callable[[str], None],
    arriving: Callable[[], None] = lambda: None,
) -> None:
    """Read framed messages from ``stream`` until its end, calling ``deliver(body)`` for
    each; ``problem(text)`` for each framing problem; ``arriving()`` when a body starts
    to be read. Runs on the reading thread."""
    length: int | None = None  # the current block's valid Content-Length
    block = False  # inside a header block (a Content-Length line was seen)
    junk = 0  # bytes skipped since the last good message
    while True:
        line = stream.readline(MAX_HEADER_LINE)
        if not line:
            return
        if line in (b"\r\n", b"\n"):
            if length is None:
                if block:
                    problem("a message without a valid Content-Length header was skipped")
                block = False
                continue
            if junk:
                problem(f"{junk} bytes that were not a message were skipped")
                junk = 0
            if length:
                arriving()
            body = _read_body(stream, length)
            length, block = None, False
            if body is None:
                return
            if body:
                deliver(body)
            continue
        found = _CONTENT_LENGTH.search(line)
        if found is not None:
            junk += found.start()
            value = found.group(1)
            block = True
            length = int(value) if value.isdigit() else None
            if length is None:
                problem(f"Content-Length {value[:40]!r} is not a number")
            elif length > MAX_BODY:
                problem(f"Content-Length {length} is over the limit of {MAX_BODY} bytes")
                length = None
        elif block and b":" in line and line.endswith(b"\n"):
            continue  # another header (Content-Type)
        else:
            junk += len(line)
            length, block = None, False


def _read_body(stream: BinaryIO, length: int) -> bytes | None:
    """The body of ``length`` bytes; None when the stream ends first."""
    parts: list[bytes] = []
    remaining = length
    while remaining:
        chunk = stream.read(min(remaining, CHUNK))
        if not chunk:
            return None
        remaining -= len(chunk)
        parts.append(chunk)
    return b"".join(parts)


def parse(body: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """The JSON-RPC message of ``body``, or None and why not (``parse``/``invalid``)."""
    try:
        data = _decode(body)
    except (ValueError, RecursionError):
        return None, "parse"
    if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
        return None, "invalid"
    method, id_ = data.get("method"), data.get("id", 0)
    if isinstance(id_, bool) or not isinstance(id_, int | str):
        return None, "invalid"
    if method is None:
        if "id" not in data or ("result" in data) == ("error" in data):
            return None, "invalid"
    elif not isinstance(method, str):
        return None, "invalid"
    else:
        data.setdefault("params", None)
    return data, None


_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_ID_VALUE = re.compile(rb'[ \t\r\n]*:[ \t\r\n]*(-?[0-9]+|"(?:[^"\\]|\\.)*")[ \t\r\n]*[,}]')
ID_SCAN_LIMIT = 16 * 1024 * 1024
"""The largest body whose id ``request_id`` looks for."""


def request_id(body: bytes) -> int | str | None:
    """The ``id`` member of the object ``body`` holds, read without decoding the rest: a
    body that does not decode (nested deeper than any decoder goes) still names the
    request to answer. None when there is none to read, or the body is over
    ``ID_SCAN_LIMIT`` bytes (a scan of strings and brackets only, but one token at a
    time)."""
    if len(body) > ID_SCAN_LIMIT or not body.lstrip().startswith(b"{"):
        return None
    depth = 0
    for token in _TOKEN.finditer(body):
        text = token.group()
        if text in (b"{", b"["):
            depth += 1
        elif text in (b"}", b"]"):
            depth -= 1
            if depth == 0:
                return None  # the end of the object
        elif depth == 1 and text == b'"id"':
            value = _ID_VALUE.match(body, token.end())
            if value is not None:
                try:
                    found = json.loads(value.group(1))
                except ValueError:
                    return None
                return found if isinstance(found, int | str) else None
    return None


def _decode(body: bytes) -> Any:
    """``json.loads(body)``, faster for a large body."""
    if len(body) >= FAST_DECODE:
        import msgspec

        try:
            return msgspec.json.decode(body)
        except (msgspec.MsgspecError, RecursionError):
            pass  # the json module accepts a few texts msgspec does not, or gives the error
    return json.loads(body)


def widen_pipe(stream: BinaryIO) -> None:
    """Ask for a ``PIPE_BUFFER`` pipe behind ``stream``; nothing happens where that is not
    a pipe, not allowed, or not supported (only Linux can)."""
    try:
        import fcntl

        fcntl.fcntl(stream.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BUFFER)  # type: ignore[attr-defined,unused-ignore]
    except (ImportError, AttributeError, OSError, ValueError):
        pass


def private_reader(stream: BinaryIO) -> BinaryIO:
    """A buffered reader of ``stream``'s file descriptor that only the reading thread uses."""
    # A small buffer: what the server has read ahead is what a stalled client can push.
    return open(os.dup(stream.fileno()), "rb", buffering=READ_BUFFER)


async def serve_stream(
    stream: BinaryIO,
    handle: Callable[[bytes], None],
    problem: Callable[[str], None],
    quiet: threading.Event | None = None,
) -> None:
    """Read ``stream`` on a daemon thread, handling each body on the event loop in order;
    returns at the end of the stream.

    ``quiet`` is cleared from the moment a message body starts to arrive until the loop
    has handled it, and set otherwise: work that can wait (building an index ahead of
    use) waits on it rather than compete with the message for the interpreter.
    """
    loop = asyncio.get_running_loop()
    ended = asyncio.Event()
    quiet = quiet or threading.Event()
    quiet.set()

    def deliver(body: bytes) -> None:
        handled = threading.Event()

        def run() -> None:
            try:
                handle(body)
            finally:
                handled.set()

        loop.call_soon_threadsafe(run)
        handled.wait()
        quiet.set()

    def report(text: str) -> None:
        loop.call_soon_threadsafe(problem, text)

    def reader() -> None:
        try:
            read_messages(stream, deliver, report, quiet.clear)
        except (OSError, ValueError) as error:  # a closed stream
            logger.info("reading the client's messages stopped: %s", error)
        except RuntimeError:
            return  # the event loop is closed: the process is exiting
        finally:
            quiet.set()  # nothing more arrives: no one may wait for it
            with contextlib.suppress(RuntimeError):  # the loop is gone: the process exits
                loop.call_soon_threadsafe(ended.set)

    threading.Thread(target=reader, name="wfls-stdin", daemon=True).start()
    await ended.wait()
