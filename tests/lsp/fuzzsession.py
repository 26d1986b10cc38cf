"""A random editing session against the tests' server, checked after every step.

The steps, the client's copy of each document and the rules every reply must
meet are ``wfls.random_session``'s (which ``bench/soak_session.py`` runs for
long); this adds what only the tests have: the server is ``probe_server.py``,
which also answers ``wflsTest/documentText``, so after every step the server's
text of every open document (both copies it keeps, and the version) must equal
the client's, and a document the client has not open must not be open there.
``test_fuzz_session.py`` draws the choices with hypothesis, so failures shrink.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest_lsp

from tests.lsp.rawclient import RawClient
from wfls.random_session import (
    Chooser,
    RandomSession,
    SessionFailure,
    Step,
    stderr_problem,
)

ROOT = Path(__file__).parents[2]
PROBE = [sys.executable, str(Path(__file__).parent / "probe_server.py")]
EXAMPLES = {
    "toml": [
        (ROOT / "examples" / "billing.wf.toml").read_text(encoding="utf-8"),
        (ROOT / "examples" / "store_audit.wf.toml").read_text(encoding="utf-8"),
        (ROOT / "tests" / "lsp" / "data" / "audit.wf.toml").read_text(encoding="utf-8"),
    ],
    "json": [(ROOT / "examples" / "approvals.wf.json").read_text(encoding="utf-8")],
}
BILLING_INPUT = json.loads((ROOT / "examples" / "billing.input.json").read_text(encoding="utf-8"))


class FuzzSession(RandomSession):
    """One probe server and the client's copy of every open document."""

    def __init__(
        self, encoding: str = "utf-16", pull: bool = True, root: Path | None = None, **popen: Any
    ) -> None:
        """``root``: a workspace folder to announce; ``popen``: how to start the server."""
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        self.client, self.process = RawClient.stdio(command=PROBE, stderr=self.stderr, **popen)
        super().__init__(self.client, EXAMPLES, BILLING_INPUT, encoding)
        self.initialize(pytest_lsp.client_capabilities("visual-studio-code"), pull, root)

    def close(self) -> int | None:
        """Shut down politely; the exit status (None if it had to be killed)."""
        try:
            if self.process.poll() is None:
                self.shutdown()
                return self.process.wait(timeout=20)
            return self.process.returncode
        except (AssertionError, subprocess.TimeoutExpired):
            return None
        finally:
            self.process.kill()
            self.process.wait()
            self.stderr.close()

    def server_stderr(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")

    def check_stderr(self) -> None:
        problem = stderr_problem(self.server_stderr())
        if problem is not None:
            raise SessionFailure(problem)

    def step(self, choose: Chooser) -> Step:
        """A step of the session, then the server's texts compared with the client's (of
        the closed documents too, after a step that closed one)."""
        done = super().step(choose)
        stray = done.kind == "stray"
        if stray and self.request("wflsTest/documentText", {"uri": done.uri}) is not None:
            raise SessionFailure(f"{done.uri}: not open, yet the server has a text for it")
        self.compare_texts(closed=done.kind in ("close", "race"))
        return done

    def check_texts(self) -> None:
        """The server's text of every open document equals the client's."""
        self.compare_texts(closed=False)
