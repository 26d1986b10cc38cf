"""A misbehaving client, end to end: lifecycle, unknown methods, broken framing, a client
that stops reading or dies, cancellation, and versions that go backwards.

Every test starts the real server as a subprocess and talks raw JSON-RPC
(``rawclient``); every read has a deadline, so a hung server fails the test.
Deadlines are generous: they tell a hang from a slow machine, nothing finer.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.rawclient import RawClient, cpu_seconds, memory_mb
from wf_core.authoring.generate import generate_toml

EXAMPLES = Path(__file__).parents[2] / "examples"
PROBE = [sys.executable, str(Path(__file__).parent / "probe_server.py")]
URI = "file:///tmp/protocol/billing.wf.toml"
BILLING = (EXAMPLES / "billing.wf.toml").read_text(encoding="utf-8")
START = {"line": 2, "character": 10}  # inside `start = "customers"`
EXIT_DEADLINE = 20.0


class Server:
    """One ``wfls serve`` process and its raw client; killed at the end whatever happens."""

    def __init__(self, command: list[str] | None = None, tcp: bool = False, **popen: Any) -> None:
        self.said = b""  # what the server wrote on stderr before a TCP client connected
        if not tcp:
            self.client, self.process = RawClient.stdio(command=command, **popen)
        else:  # wfls serve --tcp: the same transport over a socket
            self.client, self.process, self.said = RawClient.serve_tcp(stdin=subprocess.DEVNULL)
        self.next_id = 100

    def request(self, method: str, params: Any = None) -> dict[str, Any]:
        self.next_id += 1
        return self.client.request(self.next_id, method, params)

    def open(self, uri: str = URI, text: str = BILLING, version: int = 1) -> None:
        self.client.send(
            {
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": uri,
                        "languageId": "toml",
                        "version": version,
                        "text": text,
                    }
                },
            }
        )

    def hover(self, uri: str = URI, position: dict[str, int] = START) -> dict[str, Any]:
        return self.request(
            "textDocument/hover", {"textDocument": {"uri": uri}, "position": position}
        )

    def stop(self) -> int:
        """Shut down and exit politely; the exit status."""
        assert self.request("shutdown")["result"] is None
        self.client.send({"method": "exit"})
        return self.process.wait(timeout=EXIT_DEADLINE)

    def stderr(self) -> str:
        assert self.process.stderr is not None
        return (self.said + self.process.stderr.read()).decode(errors="replace")

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.kill()
        self.process.wait()


def framed(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def blocked_writing_to_a_pipe(pid: int) -> bool:
    """Whether a thread of process ``pid`` is asleep in a write to a pipe, which the
    kernel says as the function the thread waits in (``/proc/<pid>/task/<tid>/wchan``)."""
    return any(
        "pipe_write" in wchan.read_text() for wchan in Path(f"/proc/{pid}/task").glob("*/wchan")
    )


def assert_no_error_shown(messages: list[dict[str, Any]]) -> None:
    """No window/showMessage or window/logMessage of type Error reached the client."""
    shown = [
        m
        for m in messages
        if m.get("method") in ("window/showMessage", "window/logMessage")
        and m["params"]["type"] == 1
    ]
    assert shown == []


def assert_idle(pid: int, seconds: float = 2.0) -> None:
    """The process uses (almost) no CPU while nothing is asked of it: no busy loop."""
    before = cpu_seconds(pid)
    time.sleep(seconds)
    used = cpu_seconds(pid) - before
    assert used < seconds / 4, f"{used:.2f} s of CPU in {seconds} s of idleness"


# -- lifecycle -------------------------------------------------------------------------


def test_the_lifecycle_is_enforced_and_answered() -> None:
    with Server() as server:
        client = server.client
        # Before initialize: requests get ServerNotInitialized, notifications are dropped.
        before = client.request(
            2, "textDocument/hover", {"textDocument": {"uri": URI}, "position": START}
        )
        assert before["error"]["code"] == -32002
        assert client.request(3, "shutdown")["error"]["code"] == -32002
        server.open()  # dropped: the document is not open afterwards
        result = client.initialize()["result"]
        assert result["capabilities"]["hoverProvider"]
        assert server.hover()["result"] is None  # the early didOpen did not count
        # A second initialize is refused; the session goes on.
        again = client.request(4, "initialize", {"processId": None, "capabilities": {}})
        assert again["error"]["code"] == -32600
        server.open()
        assert "customers" in json.dumps(server.hover()["result"])
        # After shutdown: requests get InvalidRequest, then exit ends with 0.
        assert server.request("shutdown")["result"] is None
        after = server.hover()
        assert after["error"]["code"] == -32600
        assert server.request("shutdown")["error"]["code"] == -32600
        client.send({"method": "exit"})
        assert server.process.wait(timeout=EXIT_DEADLINE) == 0
        assert_no_error_shown(client.received)
        assert "Traceback" not in server.stderr()


def test_exit_without_shutdown_exits_with_1() -> None:
    with Server() as server:
        server.client.initialize()
        server.client.send({"method": "exit"})
        assert server.process.wait(timeout=EXIT_DEADLINE) == 1
        assert "Traceback" not in server.stderr()


def test_exit_before_initialize_exits_with_1() -> None:
    with Server() as server:
        server.client.send({"method": "exit"})
        assert server.process.wait(timeout=EXIT_DEADLINE) == 1


def test_exit_while_stdin_stays_open_and_end_of_input_without_exit() -> None:
    """``exit`` ends the process even if the client keeps the pipe open; the end of the
    input without ``exit`` ends it too (status 1: no shutdown came)."""
    with Server() as server:
        server.client.initialize()
        assert server.stop() == 0
    with Server() as server:
        server.client.initialize()
        assert server.process.stdin is not None
        server.process.stdin.close()
        assert server.process.wait(timeout=EXIT_DEADLINE) == 1


def test_unknown_methods_and_notifications() -> None:
    with Server() as server:
        client = server.client
        client.initialize()
        server.open()
        assert server.request("wfls/noSuchRequest", {})["error"]["code"] == -32601
        assert server.request("$/noSuchRequest")["error"]["code"] == -32601
        # Methods of the specification wfls does not serve, whatever their params.
        for method in ("textDocument/moniker", "callHierarchy/incomingCalls"):
            for params in (5, {"textDocument": {"uri": URI}, "position": START}):
                assert server.request(method, params)["error"]["code"] == -32601, method
        client.send({"method": "$/noSuchNotification", "params": {"x": 1}})
        client.send({"method": "$/noParams"})
        client.send({"method": "custom/notification", "params": [1, 2]})
        client.send({"method": "$/setTrace", "params": {"value": "verbose"}})
        client.send({"method": "$/cancelRequest", "params": {"id": 424242}})
        # Known notifications whose params do not decode are dropped with a warning.
        client.send({"method": "textDocument/didOpen", "params": {"textDocument": 3}})
        client.send({"method": "textDocument/didChange", "params": None})
        negative = {"start": {"line": -1, "character": 0}, "end": {"line": 0, "character": 0}}
        client.send(
            {
                "method": "textDocument/didChange",
                "params": {
                    "textDocument": {"uri": URI, "version": 2},
                    "contentChanges": [{"range": negative, "text": "x"}],
                },
            }
        )
        assert "customers" in json.dumps(server.hover()["result"])
        assert server.stop() == 0
        assert_no_error_shown(client.received)
        stderr = server.stderr()
        assert "Traceback" not in stderr and "ERROR" not in stderr


# -- broken messages and framing -------------------------------------------------------


def _hover_body(id_: int) -> bytes:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": id_,
            "method": "textDocument/hover",
            "params": {"textDocument": {"uri": URI}, "position": START},
        }
    ).encode()


def _frame(body: bytes, length: int | None = None) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


GARBAGE: dict[str, bytes] = {
    "malformed JSON": _frame(b'{"jsonrpc": "2.0", "id": 7, "method": '),
    "not UTF-8": _frame(b'{"jsonrpc": "2.0", "method": "\xff\xfe"}'),
    "deep nesting": _frame(b"[" * 100_000),
    "an array": _frame(b"[1, 2, 3]"),
    "a number": _frame(b"42"),
    "no jsonrpc member": _frame(b'{"id": 8, "method": "textDocument/hover"}'),
    "jsonrpc 1.0": _frame(b'{"jsonrpc": "1.0", "id": 9, "method": "shutdown"}'),
    "a null id": _frame(b'{"jsonrpc": "2.0", "id": null, "method": "shutdown"}'),
    "a result and an error": _frame(b'{"jsonrpc": "2.0", "id": 9, "result": 1, "error": {}}'),
    "Content-Length shorter": _frame(_hover_body(10), len(_hover_body(10)) - 9),
    "Content-Length longer": _frame(_hover_body(11), len(_hover_body(11)) + 25),
    "Content-Length not a number": b"Content-Length: twelve\r\n\r\n" + _hover_body(12),
    "Content-Length negative": b"Content-Length: -5\r\n\r\n" + _hover_body(13),
    "Content-Length huge": b"Content-Length: 99999999999999\r\n\r\n" + _hover_body(14),
    "no Content-Length": b"Content-Type: application/json\r\n\r\n" + _hover_body(15),
    "no header at all": _hover_body(16),
    "a long line without newline": b"x" * 300_000,
    "binary junk": bytes(range(256)) * 64,
}


@pytest.mark.parametrize("tcp", [False, True], ids=["stdio", "tcp"])
def test_garbage_is_survived_and_never_spins(tcp: bool) -> None:
    """After each kind of broken input in turn, the server answers a hover again within
    a deadline; then it uses no CPU while idle. (Exiting would be allowed too, if clean,
    but wfls resynchronises on the next header.)"""
    with Server(tcp=tcp) as server:
        client = server.client
        client.initialize()
        server.open()
        for name, garbage in GARBAGE.items():
            client.write(garbage)
            answered = None
            deadline = time.monotonic() + 30
            while answered is None and time.monotonic() < deadline:
                assert server.process.poll() is None, f"exited after {name}"
                server.next_id += 1
                client.send(
                    {
                        "id": server.next_id,
                        "method": "textDocument/hover",
                        "params": {"textDocument": {"uri": URI}, "position": START},
                    }
                )
                try:
                    answered = client.reply(server.next_id, deadline=2.0)
                except AssertionError:
                    continue
            assert answered is not None, f"no hover answered after {name}"
            assert "customers" in json.dumps(answered["result"]), name
        assert_idle(server.process.pid)
        assert server.stop() == 0
        assert "Traceback" not in server.stderr()
        assert_no_error_shown(client.received)


DEEP = b"[" * 100_000 + b"]" * 100_000
"""Params nested deeper than any decoder goes."""


def test_unparsable_bodies_get_errors_with_their_id_when_it_can_be_read() -> None:
    with Server() as server:
        client = server.client
        client.initialize()
        for body, id_ in (
            (
                b'{"jsonrpc": "2.0", "id": 20, "method": "textDocument/hover", "params": '
                + DEEP
                + b"}",
                20,
            ),
            (
                b'{"jsonrpc": "2.0", "method": "textDocument/hover", "params": '
                + DEEP
                + b', "id": "x"}',
                "x",
            ),
            (b"[" + DEEP + b', {"id": 21}]', None),  # no object: no id of its own
            (b'{"params": {"id": 22, "x": ' + DEEP + b"}}", None),  # not the request's id
        ):
            client.write(_frame(body))
            parse = client.wait_for(lambda m, id_=id_: m.get("id", 0) == id_ and "error" in m)
            assert parse["error"]["code"] == -32700, body[-20:]
            client.received.remove(parse)
        client.write(GARBAGE["malformed JSON"])  # its id is there before it breaks off
        assert client.wait_for(lambda m: m.get("id") == 7)["error"]["code"] == -32700
        client.write(GARBAGE["an array"])
        invalid = client.wait_for(lambda m: m.get("id", 0) is None and "error" in m)
        assert invalid["error"]["code"] == -32600
        # A request whose params do not decode still gets its own id back.
        bad = client.request(5, "textDocument/hover", {"textDocument": {}, "position": 3})
        assert bad["error"]["code"] == -32602
        assert server.stop() == 0


# -- a client that stops reading -------------------------------------------------------


def test_a_client_that_stops_reading_stalls_the_server_without_memory_growth() -> None:
    """Many requests with large answers, stdout never read: the server blocks writing,
    stops reading, and so the client's writes block too, long before every request is
    sent; the server's memory stays under a ceiling. Reading again resumes the session:
    every request is answered."""
    text = generate_toml(600)
    requests = 120
    padding = "x" * 16_000  # large requests fill the pipes with few of them
    with Server() as server:
        client = server.client
        client.initialize()
        server.open(text=text)
        symbols = server.request("textDocument/documentSymbol", {"textDocument": {"uri": URI}})
        answer_size = len(json.dumps(symbols))
        assert answer_size > 65_536  # more than a pipe holds: one unread answer blocks
        baseline = memory_mb(server.process.pid)
        frames = [
            framed(
                {
                    "jsonrpc": "2.0",
                    "id": 10_000 + n,
                    "method": "textDocument/documentSymbol",
                    "params": {"textDocument": {"uri": URI}, "padding": padding},
                }
            )
            for n in range(requests)
        ]
        data = b"".join(frames)
        assert server.process.stdin is not None and server.process.stdout is not None
        to_server = server.process.stdin.fileno()
        # Written without blocking until the server is stalled: the pipe to it is full
        # (a write would block) while the server is blocked writing an answer to the pipe
        # nobody reads (it reads no more). Nothing signals a process falling asleep in a
        # write, so while the pipe to it is full that is looked at again each time the
        # wait for room in the pipe (the server reading on) ends, at least every 0.1 s.
        os.set_blocking(to_server, False)
        written = 0
        deadline = time.monotonic() + 120
        while written < len(data):
            try:
                written += os.write(to_server, data[written : written + 65_536])
                continue
            except BlockingIOError:
                pass
            if blocked_writing_to_a_pipe(server.process.pid):
                break
            assert time.monotonic() < deadline, "the server neither read on nor stalled"
            select.select([], [to_server], [], 0.1)
        assert written < len(data), "the client's writes never blocked"
        sent = sum(1 for end in itertools.accumulate(map(len, frames)) if end <= written)
        print(f"stalled after {sent} of {requests} requests")
        ceiling = baseline + 100
        assert memory_mb(server.process.pid) < ceiling
        # Reading again: every request is answered, and the rest is written meanwhile.
        os.set_blocking(to_server, True)
        writer = threading.Thread(target=os.write, args=(to_server, data[written:]), daemon=True)
        writer.start()
        for n in range(requests):
            reply = client.reply(10_000 + n, deadline=60)
            assert reply.get("result"), reply
            client.received.clear()
        writer.join(timeout=60)
        assert not writer.is_alive()
        assert memory_mb(server.process.pid, "VmHWM") < ceiling
        assert server.stop() == 0


# -- a client that dies ----------------------------------------------------------------


def test_the_server_exits_when_the_client_process_is_gone() -> None:
    # A stand-in for the editor: a process that lives until it is killed.
    parent = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    try:
        with Server() as server:
            server.client.initialize(processId=parent.pid)
            server.open()
            assert "customers" in json.dumps(server.hover()["result"])
            parent.kill()
            parent.wait()
            assert server.process.wait(timeout=EXIT_DEADLINE) == 1
            stderr = server.stderr()
            assert f"process {parent.pid} is gone" in stderr
            assert "Traceback" not in stderr
    finally:
        parent.kill()
        parent.wait()


def test_a_process_id_that_is_not_visible_is_not_watched() -> None:
    """A client in another pid namespace names a pid this server cannot see: serving goes on."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    with Server() as server:
        server.client.initialize(processId=gone.pid)
        # Said as the server decides at initialize, instead of starting a watchdog.
        said = server.client.wait_for(lambda m: m.get("method") == "window/logMessage")
        assert said["params"]["message"] == (
            f"wfls: the client's process {gone.pid} is not visible here: not watching it"
        )
        server.open()
        assert "customers" in json.dumps(server.hover()["result"])
        assert server.stop() == 0


# -- cancellation ----------------------------------------------------------------------


def test_cancelling_a_slow_request() -> None:
    """The first semantic tokens of a large document wait for its analysis on the worker;
    cancelled, the request is answered RequestCancelled, and only that, and the next one
    is answered in full."""
    text = generate_toml(1500)
    with Server() as server:
        client = server.client
        client.initialize()
        server.open(text=text)
        tokens = {"textDocument": {"uri": URI}}
        client.send({"id": 50, "method": "textDocument/semanticTokens/full", "params": tokens})
        client.send({"method": "$/cancelRequest", "params": {"id": 50}})
        cancelled = client.reply(50, deadline=60)
        assert cancelled.get("error", {}).get("code") == -32800, cancelled
        full = client.request(51, "textDocument/semanticTokens/full", tokens)
        assert len(full["result"]["data"]) > 1000
        assert server.stop() == 0
        # No second reply to the cancelled request ever came: all the server sent before
        # it exited has been read.
        assert [m for m in client.to_the_end() if m.get("id") == 50] == []


def test_a_cancelled_command_that_fails_leaves_no_traceback() -> None:
    """A run refused (the workflow has errors) after its request was cancelled: the
    refusal is nobody's answer any more, and no "Task exception was never retrieved"
    traceback reaches the log."""
    run = {"command": "wfls.runWorkflow", "arguments": [{"uri": URI, "input": {}}]}
    with Server() as server:
        client = server.client
        client.initialize()
        server.open(text=BILLING.replace('start = "customers"', 'start = "nobody"'))
        # In one write: the cancellation is read before the run can have ended.
        client.write(
            framed(
                {"jsonrpc": "2.0", "id": 60, "method": "workspace/executeCommand", "params": run}
            )
            + framed({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 60}})
        )
        assert client.reply(60)["error"]["code"] == -32800
        # The same run, not cancelled, is refused once the first has ended (the runs are
        # analysed in order); a notification then drops the futures that were finished.
        assert client.request(61, "workspace/executeCommand", run)["error"]["code"] == -32803
        client.send({"method": "$/setTrace", "params": {"value": "off"}})
        assert server.stop() == 0
        stderr = server.stderr()
        assert "never retrieved" not in stderr and "Traceback" not in stderr, stderr


# -- versions --------------------------------------------------------------------------


def _change(
    uri: str, version: int, start: tuple[int, int], end: tuple[int, int], text: str
) -> dict:
    return {
        "method": "textDocument/didChange",
        "params": {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [
                {
                    "range": {
                        "start": {"line": start[0], "character": start[1]},
                        "end": {"line": end[0], "character": end[1]},
                    },
                    "text": text,
                }
            ],
        },
    }


def test_versions_going_backwards() -> None:
    """The server keeps the client's text whatever the version numbers do, publishes
    each version number it was given, and never answers from the analysis of an
    earlier text that had the same number."""
    with Server(command=PROBE) as server:
        client = server.client
        client.initialize()
        lines = BILLING.split("\n")
        line = next(i for i, text in enumerate(lines) if 'path = "state.total"' in text)
        column = lines[line].index("state.total") + len("state.")
        server.open(version=5)
        client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        client.received.clear()
        texts: list[tuple[int, str]] = []
        # Each name has its own length: the diagnostic's range tells which text it is of.
        for version, name in ((3, "totalAA"), (3, "tx"), (1, "totalCCCC")):
            current = texts[-1][1] if texts else "total"
            client.send(_change(URI, version, (line, column), (line, column + len(current)), name))
            texts.append((version, name))
            published = client.wait_for(
                lambda m: m.get("method") == "textDocument/publishDiagnostics"
            )
            assert published["params"]["version"] == version
            [diagnostic] = published["params"]["diagnostics"]
            assert diagnostic["range"]["end"] == {"line": line, "character": column + len(name)}
            client.received.clear()
            expected = "\n".join(
                [
                    *lines[:line],
                    lines[line][:column] + name + lines[line][column + 5 :],
                    *lines[line + 1 :],
                ]
            )
            shown = server.request("wflsTest/documentText", {"uri": URI})["result"]
            assert shown == {
                "text": expected,
                "version": version,
                "analysed_text": expected,
                "analysed_version": version,
            }
        assert server.stop() == 0


def test_a_lone_surrogate_in_a_document() -> None:
    """JSON can carry a lone surrogate that UTF-8 cannot: the document is still analysed,
    with positions counted on the client's text."""
    text = BILLING.replace('name = "billing"', 'name = "bi\udc80lling"').replace(
        'start = "customers"', 'start = "\ud83dcustomerz"'
    )
    with Server() as server:
        client = server.client
        client.initialize()
        server.open(text=text)
        published = client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        [unknown] = [d for d in published["params"]["diagnostics"] if d["code"] == "unknown_start"]
        # The quoted value: the lone high surrogate counts as one UTF-16 unit, as in the
        # client's text.
        assert unknown["range"] == {
            "start": {"line": 2, "character": 8},
            "end": {"line": 2, "character": 20},
        }
        assert server.stop() == 0
        stderr = server.stderr()
        assert "Traceback" not in stderr and " ERROR " not in stderr


# -- the log level -----------------------------------------------------------------------


def test_the_log_level_debug_says_what_each_request_took() -> None:
    """``wfls serve --log-level debug``: each request handled is logged to the client with
    its method and time; at the default level, nothing of the kind."""

    def timed(message: dict[str, Any]) -> bool:
        return message.get("method") == "window/logMessage" and (
            "textDocument/hover handled in" in message["params"]["message"]
        )

    with Server(command=[sys.executable, "-m", "wfls", "serve", "--log-level", "debug"]) as server:
        server.client.initialize()
        server.open()
        assert "customers" in json.dumps(server.hover()["result"])
        said = server.client.wait_for(timed)
        assert said["params"]["type"] == 4  # Log: the client's most detailed level
        assert re.fullmatch(
            r"wfls: textDocument/hover handled in \d+\.\d ms", said["params"]["message"]
        )
        assert server.stop() == 0
    with Server() as server:
        server.client.initialize()
        server.open()
        assert "customers" in json.dumps(server.hover()["result"])
        assert server.stop() == 0
        assert not any(timed(m) for m in server.client.received)


def test_an_unknown_log_level_is_refused() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "wfls", "serve", "--log-level", "loud"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "argument --log-level: invalid choice: 'loud'" in done.stderr
