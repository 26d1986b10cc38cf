"""A small Debug Adapter Protocol client for the tests: ``wfls debug`` in a child
process, requests answered in order, events kept until a test asks for them.

It writes its own framing (not the adapter's module), so the adapter's framing is
tested by a second reading of the protocol."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

WAIT = 60  # seconds: only a hung adapter waits this long


def _read(stream: IO[bytes], into: queue.Queue[dict[str, Any] | None]) -> None:
    while True:
        length = None
        while True:
            line = stream.readline()
            if not line:
                into.put(None)
                return
            if line.strip() == b"":
                break
            name, _, value = line.decode("ascii").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        assert length is not None
        into.put(json.loads(stream.read(length)))


class DapClient:
    def __init__(self, cwd: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "wfls", "debug"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(
            target=_read, args=(self.process.stdout, self._messages), daemon=True
        ).start()
        self._seq = 0
        self.events: list[dict[str, Any]] = []
        self.transcript: list[str] = []

    def _next(self) -> dict[str, Any]:
        message = self._messages.get(timeout=WAIT)
        if message is None:
            raise AssertionError("the adapter closed its output")
        return message

    def send(self, command: str, **arguments: Any) -> dict[str, Any]:
        """Send a request and return its whole response (success or not)."""
        self._seq += 1
        body = json.dumps(
            {"seq": self._seq, "type": "request", "command": command, "arguments": arguments}
        ).encode()
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        stdin.flush()
        while True:
            message = self._next()
            if message["type"] == "event":
                self.events.append(message)
                continue
            assert message["request_seq"] == self._seq
            self.transcript.append(f"{command} -> {'ok' if message['success'] else 'refused'}")
            return message

    def request(self, command: str, **arguments: Any) -> dict[str, Any]:
        """Send a request that must succeed; its body."""
        response = self.send(command, **arguments)
        assert response["success"], response.get("message")
        body: dict[str, Any] = response.get("body", {})
        return body

    def event(self, name: str) -> dict[str, Any]:
        """The body of the first unclaimed event ``name``, waiting for it if needed;
        events before it are dropped."""
        while True:
            while self.events:
                event = self.events.pop(0)
                if event["event"] == name:
                    self.transcript.append(f"  event {name} {json.dumps(event.get('body', {}))}")
                    body: dict[str, Any] = event.get("body", {})
                    return body
            message = self._next()
            if message["type"] == "event":
                self.events.append(message)

    def first_of(self, *names: str) -> str:
        """Which of the events ``names`` comes first (left for :meth:`event` to take)."""
        while True:
            for event in self.events:
                if event["event"] in names:
                    return str(event["event"])
            message = self._next()
            if message["type"] == "event":
                self.events.append(message)

    def close(self) -> None:
        if self.process.poll() is None:
            self.send("disconnect")
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=WAIT)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()

    # -- what the tests read ----------------------------------------------------------

    def stack(self) -> list[tuple[str, str, int]]:
        frames = self.request("stackTrace", threadId=1)["stackFrames"]
        return [(f["name"], Path(f["source"]["path"]).name, f["line"]) for f in frames]

    def scopes(self, frame: int = 1) -> dict[str, int]:
        """The scopes of the ``frame``-th stack frame (1: the top), by name."""
        frames = self.request("stackTrace", threadId=1)["stackFrames"]
        found = self.request("scopes", frameId=frames[frame - 1]["id"])["scopes"]
        return {scope["name"]: scope["variablesReference"] for scope in found}

    def variables(self, reference: int) -> dict[str, Any]:
        """``name -> (value as JSON, evaluateName)`` of a reference's variables."""
        found = self.request("variables", variablesReference=reference)["variables"]
        return {v["name"]: (json.loads(v["value"]), v.get("evaluateName")) for v in found}

    def context(self) -> dict[str, Any]:
        """The Context scope, rebuilt as the JSON object of the context."""
        entries = self.variables(self.scopes()["Context"])
        return {name: value for name, (value, _) in entries.items() if "." not in name}
