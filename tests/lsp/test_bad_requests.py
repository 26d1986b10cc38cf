"""Requests a client should not send, and the socket transport's edges, end to end."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from tests.lsp.rawclient import RawClient

URI = "file:///tmp/bad.wf.toml"


def _hover(client: RawClient, id_: int, position: object) -> dict:
    return client.request(
        id_, "textDocument/hover", {"textDocument": {"uri": URI}, "position": position}
    )


def test_invalid_params_get_an_error_reply_at_once() -> None:
    client, process = RawClient.stdio()
    try:
        client.initialize()
        client.send(
            {
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": URI,
                        "languageId": "toml",
                        "version": 1,
                        "text": "x = 1\n",
                    }
                },
            }
        )
        wrong_type = _hover(client, 2, {"line": 0, "character": "a"})
        assert wrong_type["error"]["code"] == -32602
        assert "character" in wrong_type["error"]["message"]
        negative = _hover(client, 3, {"line": -1, "character": 0})
        assert negative["error"]["code"] == -32602
        # The session goes on: a good request after the bad ones is answered.
        assert "error" not in _hover(client, 4, {"line": 0, "character": 0})
        assert client.request(5, "shutdown")["result"] is None
        client.send({"method": "exit"})
        assert process.wait(timeout=10) == 0
        assert b"Traceback" not in process.stderr.read()
    finally:
        process.kill()


@pytest.mark.parametrize("address", ["127.0.0.1:99999", "127.0.0.1:abc", "nohost"])
def test_a_bad_tcp_address_is_one_line_and_exit_2(address: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "wfls", "serve", "--tcp", address],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "wfls:" in done.stderr


def test_a_busy_port_is_one_line_and_exit_2() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "wfls", "serve", "--tcp", f"127.0.0.1:{port}"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"wfls: cannot listen on 127.0.0.1:{port}: error while attempting to bind on address "
        f"('127.0.0.1', {port}): address already in use"
    )


def test_exit_over_tcp_ends_quietly() -> None:
    client, process, said = RawClient.serve_tcp()
    try:
        assert "capabilities" in client.initialize()["result"]
        assert client.request(2, "shutdown")["result"] is None
        client.send({"method": "exit"})
        assert process.wait(timeout=10) == 0
        assert process.stderr is not None
        stderr = (said + process.stderr.read()).decode()
        assert "Traceback" not in stderr and "SystemExit" not in stderr
    finally:
        process.kill()
