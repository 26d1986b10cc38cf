"""The stdio transport's own promises, in process: wider pipes where the system allows
them, and the ``quiet`` signal that work which can wait pauses on while a message arrives."""

from __future__ import annotations

import asyncio
import io
import os
import sys
import threading
from pathlib import Path

import pytest

from wfls import transport
from wfls.server import WflsServer


def framed(*bodies: bytes) -> bytes:
    return b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(body), body) for body in bodies)


def serve(data: bytes, handle: object, quiet: threading.Event) -> list[str]:
    problems: list[str] = []
    asyncio.run(transport.serve_stream(io.BytesIO(data), handle, problems.append, quiet))  # type: ignore[arg-type]
    return problems


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="only Linux resizes pipes")
def test_a_pipe_is_widened() -> None:
    import fcntl

    if int(Path("/proc/sys/fs/pipe-max-size").read_text()) < transport.PIPE_BUFFER:
        pytest.skip("this system allows smaller pipes only")
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(read_end, "rb", closefd=False) as stream:
            before = fcntl.fcntl(read_end, fcntl.F_GETPIPE_SZ)
            transport.widen_pipe(stream)
            after = fcntl.fcntl(read_end, fcntl.F_GETPIPE_SZ)
    finally:
        os.close(read_end)
        os.close(write_end)
    assert before < transport.PIPE_BUFFER
    assert after == transport.PIPE_BUFFER


def test_widening_what_is_not_a_pipe_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "input"
    path.write_bytes(framed(b"{}"))
    with path.open("rb") as stream:
        transport.widen_pipe(stream)  # a regular file: refused by the system, quietly
        assert stream.read() == framed(b"{}")
    transport.widen_pipe(io.BytesIO(b""))  # no descriptor at all


def test_quiet_is_cleared_while_each_message_arrives_and_is_handled() -> None:
    quiet = threading.Event()
    seen: list[tuple[bytes, bool]] = []

    def handle(body: bytes) -> None:
        seen.append((body, quiet.is_set()))

    problems = serve(framed(b'{"a": 1}', b"", b'{"b": 2}'), handle, quiet)
    assert seen == [(b'{"a": 1}', False), (b'{"b": 2}', False)]
    assert quiet.is_set()  # after the last message, and at the end of the input
    assert problems == []


def test_quiet_is_set_again_when_the_input_ends_inside_a_body() -> None:
    quiet = threading.Event()
    problems = serve(b"Content-Length: 100\r\n\r\n{", lambda body: None, quiet)
    assert quiet.is_set()
    assert problems == []


def test_quiet_is_set_again_when_handling_fails() -> None:
    quiet = threading.Event()

    def handle(body: bytes) -> None:
        raise ValueError("a handler that fails")

    loop = asyncio.new_event_loop()
    errors: list[object] = []
    loop.set_exception_handler(lambda _loop, context: errors.append(context.get("exception")))
    try:
        loop.run_until_complete(
            transport.serve_stream(io.BytesIO(framed(b"{}")), handle, lambda text: None, quiet)
        )
    finally:
        loop.close()
    assert quiet.is_set()
    assert [type(error) for error in errors] == [ValueError]


def test_work_that_can_wait_pauses_until_the_message_is_handled() -> None:
    server = WflsServer()
    server._quiet.clear()  # a message is arriving
    paused = threading.Event()
    resumed = threading.Event()

    def worker() -> None:
        paused.set()
        server.wait_for_quiet()
        resumed.set()

    thread = threading.Thread(target=worker)
    thread.start()
    assert paused.wait(5)
    assert not resumed.wait(0.2)
    server._quiet.set()  # the loop handled it
    assert resumed.wait(5)
    thread.join()
