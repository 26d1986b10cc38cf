"""The Debug Adapter Protocol's messages and their framing, written for wfls.

The adapter answers about twenty-five of the protocol's requests. The three kinds of
message (request, response, event) are typed here as ``TypedDict`` records, checked by
mypy at no cost when running; their bodies are the protocol's JSON objects as the
session builds them. The framing is the base protocol's, the one the Language Server Protocol
uses too: a ``Content-Length`` header, a blank line, then that many bytes of UTF-8
JSON.
"""

from __future__ import annotations

import json
import threading
from typing import Any, BinaryIO, Literal, NotRequired, TypedDict

__all__ = [
    "Event",
    "Request",
    "Response",
    "Writer",
    "read_message",
]


class Request(TypedDict):
    seq: int
    type: Literal["request"]
    command: str
    arguments: NotRequired[dict[str, Any]]


class Response(TypedDict):
    seq: int
    type: Literal["response"]
    request_seq: int
    success: bool
    command: str
    message: NotRequired[str]
    body: NotRequired[dict[str, Any]]


class Event(TypedDict):
    seq: int
    type: Literal["event"]
    event: str
    body: NotRequired[dict[str, Any]]


def read_message(stream: BinaryIO) -> dict[str, Any] | None:
    """The next message, or None at the end of input. Headers other than
    ``Content-Length`` are ignored; a message that is not a JSON object is skipped."""
    while True:
        length: int | None = None
        while True:
            line = stream.readline()
            if not line:
                return None
            text = line.decode("ascii", "replace").strip()
            if not text:
                if length is None:
                    continue
                break
            name, _, value = text.partition(":")
            if name.strip().lower() == "content-length" and value.strip().isdigit():
                length = int(value.strip())
        body = stream.read(length)
        if len(body) < length:
            return None
        try:
            message = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue
        if isinstance(message, dict):
            return message


class Writer:
    """Writes framed messages with the adapter's own sequence numbers."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._seq = 0
        self._lock = threading.Lock()

    def _write(self, message: dict[str, Any]) -> None:
        with self._lock:
            self._seq += 1
            message["seq"] = self._seq
            data = json.dumps(message, ensure_ascii=False).encode("utf-8")
            self._stream.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
            self._stream.flush()

    def send(self, message: Response | Event) -> None:
        self._write(dict(message))
