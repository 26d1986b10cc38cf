"""Edits, settings changes and diagnostic pulls hammered together, end to end.

The analysis worker computes diagnostics while the event loop takes edits and
settings changes; the loop adopts a result only if neither moved meanwhile
(``Diagnostics.get``, ``Scheduler._push_async``). These tests send the three
without waiting for anything and check every diagnostic that comes back:

- its version is never older than one already published for the document,
  and never older than the last edit sent before a pull;
- its content is that of the version it claims: each edit gives the
  undeclared property ``state.totals.<name>`` a name whose length encodes the
  version, and the diagnostic's range shows that length;
- its severity is that of the settings in force: for a pull, the last
  settings sent before it (the server handles messages in order); for a push,
  the settings the server had confirmed by answering a request sent after
  them, or a change it had not yet confirmed.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from tests.lsp.probe_server import TEXT_METHOD
from tests.lsp.rawclient import RawClient

PROBE = [sys.executable, str(Path(__file__).parent / "probe_server.py")]

EXTRA_NODES = 300
"""Unreachable nodes appended to the audit workflow, so that each analysis takes long
enough for edits and settings changes to arrive while it runs."""
_AUDIT = (Path(__file__).parent / "data" / "audit.wf.toml").read_text(encoding="utf-8")
_LAST = '  { id = "rapporté"'
AUDIT = _AUDIT.replace(
    _LAST,
    "".join(
        f'  {{ id = "extra{n}", type = "node", node = "add_revenue", '
        f'input = [{{ target = "note", path = "state.totals.west" }}] }},\n'
        for n in range(EXTRA_NODES)
    )
    + _LAST,
    1,
)
URI = "file:///tmp/concurrency/audit.wf.toml"
LINE, COLUMN = 18, 299  # 'east' in "state.totals.east" (UTF-16 units), before the extras
SEVERITIES = {"error": 1, "warning": 2, "information": 3, "hint": 4, "off": None}
OPERATIONS = 100
PUSH_OPERATIONS = 70  # they include pauses


def name_of(version: int) -> str:
    return "east" if version == 1 else "e" * (version + 3)


def version_shown(diagnostics: list[dict[str, Any]]) -> int | None:
    """The version whose text these diagnostics are of (None when the marker is hidden)."""
    marks = [d for d in diagnostics if d.get("code") == "undeclared_property"]
    if not marks:
        return None
    [mark] = marks
    assert mark["range"]["start"] == {"line": LINE, "character": COLUMN}
    return mark["range"]["end"]["character"] - COLUMN - 3


def severity_shown(diagnostics: list[dict[str, Any]]) -> int | None:
    marks = [d["severity"] for d in diagnostics if d.get("code") == "undeclared_property"]
    return marks[0] if marks else None


class Hammer:
    """The client: sends edits, settings and pulls at random, never waiting."""

    def __init__(self, pull: bool) -> None:
        self.client, self.process = RawClient.stdio(command=PROBE)
        # A client pulls when it can also be asked to pull again (refresh).
        capabilities = (
            {
                "textDocument": {"diagnostic": {}},
                "workspace": {"diagnostics": {"refreshSupport": True}},
            }
            if pull
            else {}
        )
        reply = self.client.initialize(capabilities=capabilities)
        assert ("diagnosticProvider" in reply["result"]["capabilities"]) == pull
        self.version = 1
        self.setting = "warning"  # the default
        self.next_id = 10
        self.client.send(
            {
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {"uri": URI, "languageId": "toml", "version": 1, "text": AUDIT}
                },
            }
        )

    def edit(self) -> None:
        old = name_of(self.version)
        self.version += 1
        self.client.send(
            {
                "method": "textDocument/didChange",
                "params": {
                    "textDocument": {"uri": URI, "version": self.version},
                    "contentChanges": [
                        {
                            "range": {
                                "start": {"line": LINE, "character": COLUMN},
                                "end": {"line": LINE, "character": COLUMN + len(old)},
                            },
                            "text": name_of(self.version),
                        }
                    ],
                },
            }
        )

    def configure(self, severity: str) -> None:
        self.setting = severity
        self.client.send(
            {
                "method": "workspace/didChangeConfiguration",
                "params": {"settings": {"wfls": {"undeclaredPropertySeverity": severity}}},
            }
        )

    def request(self, method: str, params: Any) -> int:
        self.next_id += 1
        self.client.send({"id": self.next_id, "method": method, "params": params})
        return self.next_id

    def stop(self) -> None:
        self.next_id += 1
        assert self.client.request(self.next_id, "shutdown")["result"] is None
        self.client.send({"method": "exit"})
        assert self.process.wait(timeout=20) == 0
        assert self.process.stderr is not None
        stderr = self.process.stderr.read().decode()
        assert "Traceback" not in stderr and " ERROR " not in stderr


def test_pushed_diagnostics_are_never_stale() -> None:
    hammer = Hammer(pull=False)
    rng = random.Random(7)
    confirmed = "warning"  # settings the server has applied for sure
    unconfirmed: dict[int, str] = {}  # barrier request id -> settings sent before it
    published: list[tuple[int, int | None, int | None]] = []
    try:
        for _ in range(PUSH_OPERATIONS):
            pick = rng.random()
            if pick < 0.45:
                hammer.edit()
            else:
                if pick < 0.7:
                    # Aimed at the race: an edit, then a different setting once the
                    # push of that edit has likely started analysing.
                    hammer.edit()
                    time.sleep(rng.uniform(0.08, 0.25))
                    severity = rng.choice([s for s in SEVERITIES if s != hammer.setting])
                else:
                    severity = rng.choice(list(SEVERITIES))
                hammer.configure(severity)
                # A request answered once the settings are applied, without waiting for
                # any analysis (which would hold its reply back behind the pending pushes).
                barrier = hammer.request(TEXT_METHOD, {"uri": URI})
                unconfirmed[barrier] = hammer.setting
            # Now and then a pause long enough for a push to be analysed.
            for message in hammer.client.collect(rng.choice([0.0, 0.0, 0.05, 0.15, 0.5])):
                confirmed = _check_push(message, confirmed, unconfirmed, published)
        # The last version is published with the last settings. The push that shows them
        # may come after one of the same version with the settings before (published
        # before the last change arrived): wait for it, within the deadline.
        final, last = hammer.version, SEVERITIES[hammer.setting]
        while not published or published[-1][::2] != (final, last) or unconfirmed:
            message = hammer.client.wait_for(lambda m: True, deadline=30)
            hammer.client.received.remove(message)
            confirmed = _check_push(message, confirmed, unconfirmed, published)
        assert len({v for v, _, _ in published}) > 5  # many versions were seen
        hammer.stop()
    finally:
        hammer.process.kill()
        hammer.process.wait()


def _check_push(
    message: dict[str, Any],
    confirmed: str,
    unconfirmed: dict[int, str],
    published: list[tuple[int, int | None, int | None]],
) -> str:
    """Check one message from the server; the settings confirmed after it."""
    if message.get("id") in unconfirmed:
        confirmed = unconfirmed.pop(message["id"])
        # Settings sent before this one are confirmed too (the server keeps order).
        for key in [k for k in unconfirmed if k < message["id"]]:
            del unconfirmed[key]
        return confirmed
    if message.get("method") != "textDocument/publishDiagnostics":
        assert "error" not in message, message
        return confirmed
    params = message["params"]
    version = params["version"]
    diagnostics = params["diagnostics"]
    if published:
        assert version >= published[-1][0], "an older version was published after a newer one"
    shown = version_shown(diagnostics)
    assert shown in (None, version), f"version {version} published with version {shown}'s text"
    severity = severity_shown(diagnostics)
    allowed = {SEVERITIES[confirmed], *(SEVERITIES[s] for s in unconfirmed.values())}
    assert severity in allowed, f"severity {severity}, settings {confirmed} + {unconfirmed}"
    published.append((version, shown, severity))
    return confirmed


def test_pulled_diagnostics_are_never_stale() -> None:
    hammer = Hammer(pull=True)
    rng = random.Random(11)
    pulls: dict[int, tuple[str, int, str]] = {}  # id -> (kind, version sent, settings)
    answered = 0
    try:
        for _ in range(OPERATIONS):
            pick = rng.random()
            if pick < 0.45:
                hammer.edit()
            elif pick < 0.6:
                hammer.configure(rng.choice(list(SEVERITIES)))
            elif pick < 0.9:
                id_ = hammer.request(
                    "textDocument/diagnostic",
                    {"textDocument": {"uri": URI}, "identifier": "wfls"},
                )
                pulls[id_] = ("document", hammer.version, hammer.setting)
            else:
                id_ = hammer.request("workspace/diagnostic", {"previousResultIds": []})
                pulls[id_] = ("workspace", hammer.version, hammer.setting)
            for message in hammer.client.collect(rng.choice([0.0, 0.0, 0.02, 0.1])):
                answered += _check_pull(message, pulls, hammer)
        while pulls:
            message = hammer.client.wait_for(lambda m: m.get("id") in pulls, deadline=30)
            hammer.client.received.remove(message)
            answered += _check_pull(message, pulls, hammer)
        assert answered > 40
        hammer.stop()
    finally:
        hammer.process.kill()
        hammer.process.wait()


def _check_pull(
    message: dict[str, Any], pulls: dict[int, tuple[str, int, str]], hammer: Hammer
) -> int:
    if message.get("method") == "workspace/diagnostic/refresh":
        hammer.client.send({"id": message["id"], "result": None})
        return 0
    if message.get("id") not in pulls:
        assert "error" not in message, message
        return 0
    kind, sent, setting = pulls.pop(message["id"])
    assert "result" in message, message
    result = message["result"]
    if kind == "document":
        assert result["kind"] == "full"
        diagnostics, version = result["items"], None
    else:
        [report] = [r for r in result["items"] if r["uri"] == URI]
        diagnostics, version = report["items"], report["version"]
        assert version >= sent, f"workspace pull after version {sent} answered {version}"
    shown = version_shown(diagnostics)
    if shown is not None:
        assert shown >= sent, f"a pull after version {sent} answered with version {shown}'s text"
        assert version in (None, shown), json.dumps(report)
    assert severity_shown(diagnostics) == SEVERITIES[setting]
    return 1


def test_a_request_is_answered_about_the_text_it_was_sent_for() -> None:
    """Each hover on the node id ``tally`` is followed at once by an edit that inserts a
    line at the top, so the edit arrives before the hover's analysis is done. Every
    answer is about ``tally``, in the positions of the text the hover was sent for: never
    another symbol, never nothing (a line inserted elsewhere maps every position)."""
    client, process = RawClient.stdio(command=PROBE)
    try:
        client.initialize(capabilities={})
        client.send(
            {
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {"uri": URI, "languageId": "toml", "version": 1, "text": AUDIT}
                },
            }
        )
        line = next(n for n, x in enumerate(AUDIT.splitlines()) if 'id = "tally"' in x)
        column = AUDIT.splitlines()[line].index('"tally"') + 1
        sent: dict[int, int] = {}
        for n in range(30):
            sent[100 + n] = line
            client.send(
                {
                    "id": 100 + n,
                    "method": "textDocument/hover",
                    "params": {
                        "textDocument": {"uri": URI},
                        "position": {"line": line, "character": column + 2},
                    },
                }
            )
            start = {"line": 0, "character": 0}
            client.send(
                {
                    "method": "textDocument/didChange",
                    "params": {
                        "textDocument": {"uri": URI, "version": n + 2},
                        "contentChanges": [
                            {"range": {"start": start, "end": start}, "text": "#\n"}
                        ],
                    },
                }
            )
            line += 1
        for id_, at in sent.items():
            reply = client.reply(id_, deadline=60)
            assert "error" not in reply, reply
            hover = reply["result"]
            assert hover is not None and "tally" in json.dumps(hover["contents"])
            assert hover["range"]["start"] == {"line": at, "character": column}
        client.request(999, "shutdown")
        client.send({"method": "exit"})
        assert process.wait(timeout=20) == 0
    finally:
        process.kill()
        process.wait()
