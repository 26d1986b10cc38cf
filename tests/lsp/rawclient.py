"""A bare JSON-RPC client over a byte stream, for requests no well-behaved client sends.

pytest-lsp's client type-checks what it sends; misbehaviour (wrong types, negative
positions, malformed frames) needs raw bytes. Every read has a deadline, so a
server that never answers fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

DEADLINE = 10.0


class RawClient:
    def __init__(self, send: Any, read: Any) -> None:
        self._send = send
        self._read = read
        self._buffer = b""
        self.received: list[dict[str, Any]] = []
        self.closed = False
        """Whether the server closed its end (``read`` gave None)."""

    @classmethod
    def stdio(
        cls,
        *args: str,
        command: list[str] | None = None,
        stderr: Any = subprocess.PIPE,
        **popen: Any,
    ) -> tuple[RawClient, subprocess.Popen[bytes]]:
        """``wfls serve`` (or ``command``) on pipes; ``stderr`` as for Popen (a file keeps a
        long session from blocking on a full stderr pipe)."""
        process = subprocess.Popen(
            command or [sys.executable, "-m", "wfls", "serve", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            **popen,
        )
        assert process.stdin is not None and process.stdout is not None
        stdin, stdout = process.stdin, process.stdout

        def send(data: bytes) -> None:
            stdin.write(data)
            stdin.flush()

        def read(timeout: float) -> bytes | None:
            ready, _, _ = select.select([stdout], [], [], timeout)
            if not ready:
                return b""
            return stdout.read1(65536) or None  # type: ignore[attr-defined]

        return cls(send, read), process

    @classmethod
    def serve_tcp(cls, **popen: Any) -> tuple[RawClient, subprocess.Popen[bytes], bytes]:
        """``wfls serve --tcp`` on a free port and a client connected to it once the
        server has said on stderr that it listens; also what it wrote there until then."""
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        process = subprocess.Popen(
            [sys.executable, "-m", "wfls", "serve", "--tcp", f"127.0.0.1:{port}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            **popen,
        )
        assert process.stderr is not None
        said = b""
        end = time.monotonic() + DEADLINE
        while f"listening on 127.0.0.1:{port}".encode() not in said:
            ready, _, _ = select.select([process.stderr], [], [], max(0.0, end - time.monotonic()))
            chunk = process.stderr.read1(65536) if ready else b""  # type: ignore[attr-defined]
            assert chunk, f"the server did not say it listens: {said.decode(errors='replace')}"
            said += chunk
        return cls.tcp(port), process, said

    @classmethod
    def tcp(cls, port: int) -> RawClient:
        sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)

        def read(timeout: float) -> bytes | None:
            ready, _, _ = select.select([sock], [], [], timeout)
            if not ready:
                return b""
            return sock.recv(65536) or None

        return cls(sock.sendall, read)

    def write(self, data: bytes) -> None:
        """``data`` as it is, unframed: what no well-behaved client sends."""
        self._send(data)

    def send_raw(self, body: bytes) -> None:
        self._send(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps({"jsonrpc": "2.0", **message}).encode())

    def request(
        self, id_: int, method: str, params: Any = None, deadline: float | None = None
    ) -> dict[str, Any]:
        self.send({"id": id_, "method": method, "params": params})
        return self.reply(id_, deadline)

    def reply(self, id_: Any, deadline: float | None = None) -> dict[str, Any]:
        """The reply to request ``id_`` (already received or still to come); ``deadline``
        defaults to the module's ``DEADLINE`` as it is when called."""
        deadline = DEADLINE if deadline is None else deadline
        for message in self.received:
            if message.get("id") == id_ and "method" not in message:
                self.received.remove(message)
                return message
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            for message in self.drain(end - time.monotonic()):
                if message.get("id") == id_ and "method" not in message:
                    self.received.remove(message)
                    return message
        raise AssertionError(f"no reply to request {id_} within {deadline} s")

    def wait_for(self, predicate: Any, deadline: float | None = None) -> dict[str, Any]:
        """The first message received (or to come) that satisfies ``predicate``."""
        deadline = DEADLINE if deadline is None else deadline
        end = time.monotonic() + deadline
        while True:
            for message in self.received:
                if predicate(message):
                    return message
            if time.monotonic() >= end:
                raise AssertionError(f"no such message within {deadline} s")
            self.drain(end - time.monotonic())

    def collect(self, seconds: float) -> list[dict[str, Any]]:
        """Everything received and not yet taken, and what arrives within ``seconds``
        (taken: no longer in ``received``)."""
        end = time.monotonic() + seconds
        while True:
            self.drain(max(0.0, end - time.monotonic()))
            if time.monotonic() >= end:
                break
        out, self.received = self.received, []
        return out

    def to_the_end(self, deadline: float | None = None) -> list[dict[str, Any]]:
        """Everything not yet taken and every message still to come until the server
        closes its end (it has exited): all it will ever send."""
        end = time.monotonic() + (DEADLINE if deadline is None else deadline)
        while not self.closed:
            assert time.monotonic() < end, "the server did not close its end"
            self.drain(end - time.monotonic())
        out, self.received = self.received, []
        return out

    def drain(self, timeout: float) -> list[dict[str, Any]]:
        """Read for up to ``timeout`` seconds (at most 0.2 at a time); the messages read."""
        chunk = self._read(max(0.0, min(timeout, 0.2)))
        if chunk is None:
            self.closed = True
            chunk = b""
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

    def initialize(self, **params: Any) -> dict[str, Any]:
        reply = self.request(
            1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}, **params}
        )
        self.send({"method": "initialized", "params": {}})
        return reply


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` so far (``/proc/<pid>/stat``)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory_mb(pid: int, field: str = "VmRSS") -> float:
    """Resident (``VmRSS``) or peak resident (``VmHWM``) memory of ``pid`` in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field} for {pid}")
