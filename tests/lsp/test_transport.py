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
from hypothesis import given
from hypothesis import strategies as st

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


class ObservedEvent(threading.Event):
    """An event that says when it is waited on, and keeps how each wait ended (True: it
    was set; False: the wait timed out)."""

    def __init__(self) -> None:
        super().__init__()
        self.waited = threading.Event()
        self.ends: list[bool] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.waited.set()
        ended = super().wait(timeout)
        self.ends.append(ended)
        return ended


def test_work_that_can_wait_pauses_until_the_message_is_handled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from wfls import scheduling

    scheduler = WflsServer().scheduler
    monkeypatch.setattr(scheduling, "QUIET_WAIT", 60.0)  # not ended by the safety net
    scheduler.quiet = quiet = ObservedEvent()  # not set: a message is arriving
    thread = threading.Thread(target=scheduler.wait_for_quiet)
    thread.start()
    assert quiet.waited.wait(5)  # the worker is in the pause
    quiet.set()  # the loop handled it
    thread.join(5)
    assert not thread.is_alive()
    assert quiet.ends == [True]  # the pause ended as the message was handled


# --- decoding: large bodies go through msgspec, and decode exactly as the json module does

PAD = "x" * transport.FAST_DECODE  # makes any message a large body


def large(text: str) -> bytes:
    """A JSON-RPC notification whose params hold ``text`` (JSON), padded past FAST_DECODE."""
    return f'{{"jsonrpc": "2.0", "method": "m", "pad": "{PAD}", "params": {text}}}'.encode()


@pytest.mark.parametrize(
    "params",
    [
        '{"text": "a \\"quoted\\" line\\nthe next: \\u00e9t\\u00e9 \\ud83d\\ude00 \u00e9t\u00e9"}',
        '{"big": 123456789012345678901234567890, "neg": -98765432109876543210, "zero": -0}',
        '{"floats": [1.5e3, 0.1, 1E-7, 2.5]}',
        '{"key": 1, "key": 2}',
        "[NaN, Infinity, -Infinity]",  # the json module accepts these; msgspec does not
        '["\\ud800 lone surrogate"]',
        "[1e400]",
    ],
)
def test_a_large_body_decodes_as_the_json_module_decodes_it(params: str) -> None:
    import json

    body = large(params)
    assert len(body) >= transport.FAST_DECODE
    data, problem = transport.parse(body)
    assert problem is None and data is not None
    expected = json.loads(body)
    # (NaN is not equal to itself: compare the texts the two encode to)
    assert json.dumps(data) == json.dumps(expected)
    assert [type(v) for v in _leaves(data)] == [type(v) for v in _leaves(expected)]


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(st.characters(codec="utf-8")),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=20,
)


@given(JSON_VALUES, st.booleans())
def test_any_large_body_decodes_as_the_json_module_decodes_it(value: object, ascii_: bool) -> None:
    import json

    body = large(json.dumps(value, ensure_ascii=ascii_))
    data, problem = transport.parse(body)
    assert problem is None and data == json.loads(body)
    assert [type(v) for v in _leaves(data)] == [type(v) for v in _leaves(json.loads(body))]


def _leaves(value: object) -> list[object]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def test_a_large_body_with_a_byte_order_mark_decodes_as_the_json_module_decodes_it() -> None:
    body = "\ufeff".encode() + large('{"a": 1}')
    data, problem = transport.parse(body)
    assert problem is None and data is not None and data["params"] == {"a": 1}


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (large('{"a": 1,}'), "parse"),  # a trailing comma
        (large('{"a": "\\x"}'), "parse"),  # an unknown escape
        (large('{"a": 1}')[:-1], "parse"),  # truncated
        (large('{"a": 1}') + b"\xff", "parse"),  # not UTF-8
        (b"[" * 5000 + b"]" * 5000 + b" " * transport.FAST_DECODE, "parse"),  # too deep
        (b'["' + PAD.encode() + b'"]', "invalid"),  # JSON, but not a message
    ],
)
def test_a_large_body_that_is_not_a_message_is_refused_as_a_small_one_is(
    body: bytes, problem: str
) -> None:
    assert len(body) >= transport.FAST_DECODE
    assert transport.parse(body) == (None, problem)


def test_a_large_body_is_not_decoded_by_the_json_module_and_a_small_one_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(body: bytes) -> object:
        raise AssertionError("decoded by the json module")

    monkeypatch.setattr(transport.json, "loads", refuse)
    data, problem = transport.parse(large('{"text": "a\\nb"}'))
    assert problem is None and data is not None and data["params"] == {"text": "a\nb"}
    with pytest.raises(AssertionError, match="json module"):
        transport.parse(b'{"jsonrpc": "2.0", "method": "m"}')


# --- the id of a body that does not decode

DEEP = "[" * 50_000 + "]" * 50_000


@pytest.mark.parametrize(
    ("body", "found"),
    [
        (f'{{"jsonrpc": "2.0", "id": 7, "params": {DEEP}}}', 7),
        (f'{{"params": {DEEP}, "id": "a\\"b"}}', 'a"b'),
        ('{"id" : -3 , "method": "m"', -3),  # read before the body breaks off
        ('{"jsonrpc": "2.0", "id": 7', None),  # broken off inside it
        ('{"params": {"id": 5}}', None),  # not the message's own member
        ('{"method": "id", "params": 1}', None),  # a value, not a key
        ('{"a": "\\"id\\": 5"}', None),  # inside a string
        ('{"id": true}', None),
        ('{"id": 1.5}', None),
        (f'[{DEEP}, {{"id": 1}}]', None),
        ("", None),
    ],
)
def test_the_id_of_a_body_that_does_not_decode(body: str, found: object) -> None:
    assert transport.request_id(body.encode()) == found
