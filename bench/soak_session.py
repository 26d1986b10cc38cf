"""Soak: one server process through a long random editing session, checked at every step.

Run: ``.venv/bin/python bench/soak_session.py --steps 10000`` (``make soak-sessions``).

The steps are those of ``tests/lsp/fuzzsession.py`` (opens, incremental edits at
random ranges, closes, and every request the server advertises at random and
out-of-range positions), drawn from a seeded ``random.Random`` instead of
hypothesis; every step checks the replies' shapes and the server's text
against the client's, and the run ends at the first failure. It prints the
steps, requests, replies, error replies (of which protocol errors: replies to
deliberately malformed requests), text checks and the server's peak resident
memory (``VmHWM``), and writes them to the ``soak-sessions`` section of
``docs/performance.md`` (``make soak-sessions``). Exit status 0 when every step passed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from report import write_section

from tests.lsp.fuzzsession import FuzzSession, RandomChooser, SessionFailure


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--encoding", choices=["utf-16", "utf-8", "utf-32"], default="utf-16")
    parser.add_argument("--push", action="store_true", help="a client without pull diagnostics")
    args = parser.parse_args()
    choose = RandomChooser(args.seed)
    session = FuzzSession(args.encoding, pull=not args.push)
    started = time.monotonic()
    failure = None
    try:
        for step in range(args.steps):
            session.step(choose)
            if (step + 1) % 1000 == 0:
                session.check_stderr()
                print(
                    f"{step + 1} steps, {session.stats.replies} replies, "
                    f"peak RSS {session.peak_rss_mb():.0f} MB, {time.monotonic() - started:.0f} s",
                    flush=True,
                )
        session.check_stderr()
    except SessionFailure as error:
        failure = error
        log = Path(tempfile.gettempdir()) / f"soak-session-{args.seed}.log"
        log.write_text(session.server_stderr())
        print(f"the server's stderr is in {log}")
    peak = session.peak_rss_mb() if session.process.poll() is None else float("nan")
    status = session.close()
    stats = session.stats
    summary = (
        f"steps {stats.steps}, requests {stats.requests}, replies {stats.replies}, "
        f"error replies {stats.error_replies} (protocol errors {stats.protocol_errors}), "
        f"text checks {stats.text_checks}, peak RSS {peak:.0f} MB, exit status {status}, "
        f"{time.monotonic() - started:.0f} s"
    )
    print(summary)
    client = f"seed {args.seed}, {args.encoding}, {'push' if args.push else 'pull'} diagnostics"
    verdict = "passed" if failure is None and status == 0 else f"**failed** at step {stats.steps}"
    if failure is not None:
        print(f"FAILED at step {stats.steps}: {failure}")
        verdict += f": {failure}"
    write_section("soak-sessions", f"{args.steps:,} steps ({client}): {verdict}; {summary}.")
    return 0 if failure is None and status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
