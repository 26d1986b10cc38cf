"""Soak: one server process through a long random editing session, checked at every step.

Run: ``.venv/bin/python bench/soak_session.py --steps 10000`` (``make soak-sessions``).

The steps are those of ``wfls.random_session``, which the tests' fuzzed
sessions take too (opens, incremental edits at random ranges, closes, and every
request the server advertises at random and out-of-range positions), drawn from
a seeded ``random.Random`` instead of hypothesis, against ``wfls serve`` itself;
every reply is checked as there (a reply within the deadline, of the shape
lsprotocol gives its method, no ``InternalError``, no error shown or logged),
and the run ends at the first failure. Comparing the server's copy of each
document with the client's takes a request only the tests' server answers, so
that check is the tests' alone. It prints the steps, requests, replies, error
replies (of which protocol errors: replies to deliberately malformed requests)
and the server's peak resident memory (``VmHWM``), and writes them to the
``soak-sessions`` section of ``docs/performance.md``. Exit status 0 when every
step passed.
"""

from __future__ import annotations

import argparse
import json
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

import pytest_lsp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lspclient import rss_mb
from report import write_section

from wfls.random_session import (
    DEADLINE,
    RandomChooser,
    RandomSession,
    SessionFailure,
    stderr_problem,
)
from wfls.transport import read_messages

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


class Pipes:
    """``wfls serve`` on pipes: the session's connection. Replies are read off the
    server's stdout by the server's own frame reader, on a thread."""

    def __init__(self, stderr: IO[bytes]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "wfls", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin = self.process.stdin
        self.received: list[dict[str, Any]] = []
        self.arrived: queue.Queue[dict[str, Any]] = queue.Queue()
        self.problems: list[str] = []
        threading.Thread(
            target=read_messages,
            args=(self.process.stdout, self._deliver, self.problems.append),
            daemon=True,
        ).start()

    def _deliver(self, body: bytes) -> None:
        self.arrived.put(json.loads(body))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.stdin.flush()

    def reply(self, id_: Any, deadline: float | None = None) -> dict[str, Any]:
        wait = DEADLINE if deadline is None else deadline
        end = time.monotonic() + wait
        while True:
            if self.problems:
                raise SessionFailure(f"the server's output is not framed: {self.problems}")
            for message in self.received:
                if message.get("id") == id_ and "method" not in message:
                    self.received.remove(message)
                    return message
            try:
                self.received.append(self.arrived.get(timeout=max(0.0, end - time.monotonic())))
            except queue.Empty:
                raise SessionFailure(f"no reply to request {id_} within {wait} s") from None


def examples() -> dict[str, list[str]]:
    """The examples' documents by syntax, to open and cut."""
    return {
        syntax: [p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.glob(f"*.wf.{syntax}"))]
        for syntax in ("toml", "json")
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--encoding", choices=["utf-16", "utf-8", "utf-32"], default="utf-16")
    parser.add_argument("--push", action="store_true", help="a client without pull diagnostics")
    args = parser.parse_args()
    choose = RandomChooser(args.seed)
    stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed at the end
    pipes = Pipes(stderr)
    run_input = json.loads((EXAMPLES / "billing.input.json").read_text(encoding="utf-8"))
    session = RandomSession(pipes, examples(), run_input, args.encoding)
    started = time.monotonic()
    failure = None

    def logged() -> str:
        stderr.seek(0)
        return stderr.read().decode(errors="replace")

    def check_stderr() -> None:
        problem = stderr_problem(logged())
        if problem is not None:
            raise SessionFailure(problem)

    try:
        session.initialize(pytest_lsp.client_capabilities("visual-studio-code"), not args.push)
        for step in range(args.steps):
            session.step(choose)
            if (step + 1) % 1000 == 0:
                check_stderr()
                print(
                    f"{step + 1} steps, {session.stats.replies} replies, "
                    f"peak RSS {rss_mb(pipes.process.pid):.0f} MB, "
                    f"{time.monotonic() - started:.0f} s",
                    flush=True,
                )
        check_stderr()
    except SessionFailure as error:
        failure = error
        log = Path(tempfile.gettempdir()) / f"soak-session-{args.seed}.log"
        log.write_text(logged())
        print(f"the server's stderr is in {log}")
    peak = rss_mb(pipes.process.pid) if pipes.process.poll() is None else float("nan")
    status = close(session, pipes.process)
    stderr.close()
    stats = session.stats
    summary = (
        f"steps {stats.steps}, requests {stats.requests}, replies {stats.replies}, "
        f"error replies {stats.error_replies} (protocol errors {stats.protocol_errors}), "
        f"peak RSS {peak:.0f} MB, exit status {status}, {time.monotonic() - started:.0f} s"
    )
    print(summary)
    client = f"seed {args.seed}, {args.encoding}, {'push' if args.push else 'pull'} diagnostics"
    verdict = "passed" if failure is None and status == 0 else f"**failed** at step {stats.steps}"
    if failure is not None:
        print(f"FAILED at step {stats.steps}: {failure}")
        verdict += f": {failure}"
    write_section("soak-sessions", f"{args.steps:,} steps ({client}): {verdict}; {summary}.")
    return 0 if failure is None and status == 0 else 1


def close(session: RandomSession, process: subprocess.Popen[bytes]) -> int | None:
    """Shut the server down politely; its exit status (None if it had to be killed)."""
    try:
        if process.poll() is None:
            session.shutdown()
            return process.wait(timeout=20)
        return process.returncode
    except (SessionFailure, subprocess.TimeoutExpired):
        return None
    finally:
        process.kill()
        process.wait()


if __name__ == "__main__":
    sys.exit(main())
