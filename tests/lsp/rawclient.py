"""A bare JSON-RPC client over a byte stream, for requests no well-behaved client sends.

pytest-lsp's client type-checks what it sends; misbehaviour (wrong types, negative
positions, malformed frames) needs raw bytes. Every read has a deadline, so a
server that never answers fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import select
import socket
import subprocess
import sys
import time
from typing import Any

DEADLINE = 10.0


class RawClient:
    def __init__(self, send: Any, read: Any) -> None:
        self._send = send
        self._read = read
        self._buffer = b""
        self.received: list[dict[str, Any]] = []

    @classmethod
    def stdio(cls, *args: str) -> tuple[RawClient, subprocess.Popen[bytes]]:
        process = subprocess.Popen(
            [sys.executable, "-m", "wfls", "serve", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert process.stdin is not None and process.stdout is not None
        stdin, stdout = process.stdin, process.stdout

        def send(data: bytes) -> None:
            stdin.write(data)
            stdin.flush()

        def read(timeout: float) -> bytes:
            ready, _, _ = select.select([stdout], [], [], timeout)
            return stdout.read1(65536) if ready else b""  # type: ignore[attr-defined]

        return cls(send, read), process

    @classmethod
    def tcp(cls, port: int) -> RawClient:
        sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)

        def read(timeout: float) -> bytes:
            ready, _, _ = select.select([sock], [], [], timeout)
            return sock.recv(65536) if ready else b""

        return cls(sock.sendall, read)

    def send_raw(self, body: bytes) -> None:
        self._send(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps({"jsonrpc": "2.0", **message}).encode())

    def request(self, id_: int, method: str, params: Any = None) -> dict[str, Any]:
        self.send({"id": id_, "method": method, "params": params})
        return self.reply(id_)

    def reply(self, id_: int) -> dict[str, Any]:
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            for message in self._drain(end - time.monotonic()):
                if message.get("id") == id_ and "method" not in message:
                    return message
        raise AssertionError(f"no reply to request {id_} within {DEADLINE} s")

    def _drain(self, timeout: float) -> list[dict[str, Any]]:
        chunk = self._read(max(0.0, min(timeout, 0.2)))
        self._buffer += chunk
        out = []
        while b"\r\n\r\n" in self._buffer:
            head, rest = self._buffer.split(b"\r\n\r\n", 1)
            length = next(
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            )
            if len(rest) < length:
                break
            message = json.loads(rest[:length])
            self._buffer = rest[length:]
            self.received.append(message)
            out.append(message)
        return out

    def initialize(self) -> dict[str, Any]:
        reply = self.request(
            1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}}
        )
        self.send({"method": "initialized", "params": {}})
        return reply
