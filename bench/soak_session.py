"""Soak: one server process through a long random editing session, checked at every step.

Run: ``.venv/bin/python bench/soak_session.py --steps 30000`` (``make soak-sessions``).

The steps are those of ``wfls.random_session``, which the tests' fuzzed
sessions take too (opens, incremental edits at random ranges, closes, documents
opened and closed at once, requests followed at once by an edit that moves their
text, hostile documents, and every request the server advertises at random and
out-of-range positions), drawn from a seeded ``random.Random`` instead of
hypothesis, against the server ``wfls serve`` runs, in a workspace folder that
holds some of the documents on disk. Every reply is checked as there (a reply
within the deadline, of the shape lsprotocol gives its method, no
``InternalError``, no error shown, a request followed by an edit answered about
the text it was sent for), and the run ends at the first broken rule. After every
burst of ``--burst`` steps, the server's text of each document must equal the
client's (the server is ``tests/lsp/probe_server.py``, which adds the request
that shows it to ``wfls serve``'s own server) and the diagnostics of each open
workflow document must equal what ``wfls check`` finds in the same files; a
disagreement is counted and the run goes on.

It prints the counts (steps, requests, replies, error replies, of which protocol
errors: replies to deliberately malformed requests; crashes: the server ended
before it was asked to; tracebacks and error lines on the server's stderr;
documents compared with ``wfls check`` and disagreements) and the server's peak
resident memory (``VmHWM``), and writes them to the ``soak-sessions`` sections
of ``docs/reliability.md`` and ``docs/performance.md``. Exit status 0 when no
rule was broken, nothing crashed, nothing was logged and nothing disagreed.
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
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import pytest_lsp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lspclient import rss_mb
from report import ROOT, write_section

from wfls.random_session import (
    Disagreement,
    RandomChooser,
    RandomSession,
    SessionFailure,
    write_workspace,
)
from wfls.transport import read_messages

EXAMPLES = ROOT / "examples"
PROBE = ROOT / "tests" / "lsp" / "probe_server.py"
SHOWN = 3
"""Disagreements printed in full; the others are counted."""


class Pipes:
    """The server on pipes: the session's connection. Replies are read off the server's
    stdout by the server's own frame reader, on a thread."""

    def __init__(self, stderr: IO[bytes], cwd: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(PROBE)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=cwd,
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

    def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], deadline: float | None = None
    ) -> dict[str, Any]:
        wait = 60.0 if deadline is None else deadline
        end = time.monotonic() + wait
        while True:
            if self.problems:
                raise SessionFailure(f"the server's output is not framed: {self.problems}")
            for message in self.received:
                if predicate(message):
                    return message
            try:
                self.received.append(self.arrived.get(timeout=max(0.0, end - time.monotonic())))
            except queue.Empty:
                raise AssertionError(f"no such message within {wait} s") from None


def examples() -> dict[str, list[str]]:
    """The examples' documents by syntax, to open and cut."""
    return {
        syntax: [p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.glob(f"*.wf.{syntax}"))]
        for syntax in ("toml", "json")
    }


def logged_problems(stderr: str) -> tuple[int, int]:
    """Tracebacks, and lines logged at error level, in the server's stderr."""
    return stderr.count("Traceback (most recent call last)"), stderr.count(" ERROR ")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--burst", type=int, default=50, help="steps between comparisons")
    parser.add_argument("--encoding", choices=["utf-16", "utf-8", "utf-32"], default="utf-16")
    parser.add_argument("--push", action="store_true", help="a client without pull diagnostics")
    args = parser.parse_args()
    choose = RandomChooser(args.seed)
    stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed at the end
    folders = tempfile.TemporaryDirectory(prefix="wfls-soak-")
    root, cwd = Path(folders.name) / "workspace", Path(folders.name) / "cwd"
    root.mkdir()
    cwd.mkdir()
    texts = examples()
    write_workspace(root, texts)
    pipes = Pipes(stderr, cwd)
    run_input = json.loads((EXAMPLES / "billing.input.json").read_text(encoding="utf-8"))
    session = RandomSession(pipes, texts, run_input, args.encoding)
    started = time.monotonic()
    failure: SessionFailure | None = None

    def logged() -> str:
        stderr.seek(0)
        return stderr.read().decode(errors="replace")

    try:
        session.initialize(
            pytest_lsp.client_capabilities("visual-studio-code"), not args.push, root
        )
        for step in range(args.steps):
            session.step(choose)
            if (step + 1) % args.burst == 0 or step + 1 == args.steps:
                session.compare_texts()
                try:
                    session.compare_with_check()
                except Disagreement as disagreement:
                    if session.stats.disagreements <= SHOWN:
                        print(f"step {step + 1}: {disagreement}", flush=True)
            if (step + 1) % 1000 == 0:
                tracebacks, errors = logged_problems(logged())
                print(
                    f"{step + 1} steps, {session.stats.replies} replies, "
                    f"{session.stats.disagreements} disagreements, {tracebacks} tracebacks, "
                    f"{errors} errors logged, peak RSS {rss_mb(pipes.process.pid):.0f} MB, "
                    f"{time.monotonic() - started:.0f} s",
                    flush=True,
                )
    except SessionFailure as error:
        failure = error
    crashed = pipes.process.poll() is not None
    peak = rss_mb(pipes.process.pid) if not crashed else float("nan")
    status = close(session, pipes.process)
    tracebacks, errors = logged_problems(logged())
    if failure is not None or crashed or tracebacks or errors:
        log = Path(tempfile.gettempdir()) / f"soak-session-{args.seed}.log"
        log.write_text(logged())
        print(f"the server's stderr is in {log}")
    stderr.close()
    folders.cleanup()
    stats = session.stats
    counts = (
        f"steps {stats.steps:,}, requests {stats.requests:,}, replies {stats.replies:,}, "
        f"error replies {stats.error_replies:,} (protocol errors {stats.protocol_errors:,}), "
        f"requests followed at once by an edit {stats.moved:,} ({stats.moved_found:,} with "
        f"an answer; ContentModified {stats.content_modified:,}), documents opened and "
        f"closed at once {stats.races:,}, text comparisons {stats.text_checks:,}, documents "
        f"compared with wfls check {stats.check_comparisons:,}; crashes {int(crashed)}, "
        f"tracebacks on stderr "
        f"{tracebacks}, errors logged {errors}, disagreements with wfls check "
        f"{stats.disagreements}"
    )
    resources = f"peak RSS {peak:.0f} MB, exit status {status}, {time.monotonic() - started:.0f} s"
    print(f"{counts}; {resources}")
    passed = not (failure or crashed or tracebacks or errors or stats.disagreements) and (
        status == 0
    )
    client = f"seed {args.seed}, {args.encoding}, {'push' if args.push else 'pull'} diagnostics"
    verdict = "passed" if passed else f"**failed** at step {stats.steps}"
    if failure is not None:
        print(f"FAILED at step {stats.steps}: {failure}")
        said = str(failure).splitlines()[0]
        verdict += f": {said[:300]}" + ("..." if len(said) > 300 else "")
    line = f"{args.steps:,} steps ({client}): {verdict}; {counts}; {resources}."
    write_section("soak-sessions", line, page=ROOT / "docs" / "reliability.md")
    write_section("soak-sessions", line)
    return 0 if passed else 1


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
