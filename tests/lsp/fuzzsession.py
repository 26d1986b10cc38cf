"""A random editing session against the real server, checked after every step.

Shared by ``test_fuzz_session.py`` (hypothesis draws the choices, so failures
shrink) and ``bench/soak_session.py`` (a seeded ``random.Random`` draws them,
for long runs). The session opens documents (the examples, half-typed ones,
random text with CRLF/LF, a BOM, astral characters, NUL and lone surrogates),
edits them with incremental changes at random ranges (past the end of a line
and of the document, zero-length, backwards, inside a UTF-16 surrogate pair),
closes them, and sends every request the server advertises at random
positions, including positions past the ends, negative or non-integer values,
unknown URIs and closed documents.

After every step it checks that:

- each request got a reply (a result or a JSON-RPC error), within a deadline;
- a result has the shape lsprotocol's converter expects for the method;
- no error reply is an ``InternalError`` (a crash inside a handler), and no
  message of type Error reached the client;
- the server's text of every open document equals the client's, observed
  through ``wflsTest/documentText``, which only the test server
  (``probe_server.py``) has.

The client applies edits with its own code (not the server's): lines end at
``\\n`` (a ``\\r`` before it belongs to the line ending), a character past the
end of a line is the line's end, a line past the last one the document's end,
a code unit inside a character that character's start, and a backwards range
counts forwards.
"""

from __future__ import annotations

import json
import random
import string
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from lsprotocol import types
from lsprotocol.converters import get_converter

from tests.lsp.rawclient import RawClient

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
URIS = [
    "file:///fuzz/a.wf.toml",
    "file:///fuzz/b.wf.json",
    "file:///fuzz/c%20d.wf.toml",
    "file:///fuzz/notes.txt",  # not a workflow document
]
GHOST = "file:///fuzz/never-opened.wf.toml"
DEEP: Any = None
for _ in range(900):  # deeper than any recursion the server can afford over it
    DEEP = [DEEP]
PIECES = [
    "\n",
    "\r\n",
    "\ufeff",
    "😀",
    "𝄞",
    "\x00",
    "\udc80",
    "é",
    '"',
    "'",
    ".",
    "[",
    "]",
    "{",
    "}",
    "=",
    ",",
    ":",
    " ",
    "#",
    "\\",
    "context.foreach.",
    "input.",
    "state.",
    "[[nodes]]\n",
    'id = "',
    'path = "',
    "\t",
    "\u2028",
]
ERROR_TYPE = 1  # MessageType.Error
ALLOWED_ERRORS = {-32602, -32803, -32800}  # InvalidParams, RequestFailed, RequestCancelled
CONVERTER = get_converter()


class Chooser(Protocol):
    """Where the session's random choices come from (hypothesis or ``random``)."""

    def integer(self, low: int, high: int) -> int: ...
    def choice(self, options: list[Any]) -> Any: ...


class RandomChooser:
    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        return self.random.randint(low, high)

    def choice(self, options: list[Any]) -> Any:
        return options[self.random.randrange(len(options))]


# -- the client's own position arithmetic ------------------------------------------------


def _units(char: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(char.encode("utf-8", "surrogatepass"))
    if encoding == "utf-16":
        return 2 if ord(char) > 0xFFFF else 1
    return 1


def client_offset(text: str, line: int, character: int, encoding: str) -> int:
    """The code-point offset the client means by (line, character)."""
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)
    if line >= len(starts):
        return len(text)
    start = starts[line]
    end = starts[line + 1] - 1 if line + 1 < len(starts) else len(text)
    if end > start and text[end - 1] == "\r":
        end -= 1
    used, offset = 0, start
    while offset < end:
        step = _units(text[offset], encoding)
        if used + step > character:
            break
        used += step
        offset += 1
    return offset


def line_lengths(text: str, encoding: str) -> list[int]:
    return [sum(_units(c, encoding) for c in line) for line in text.split("\n")]


# -- the session -----------------------------------------------------------------------


@dataclass
class Stats:
    steps: int = 0
    requests: int = 0
    replies: int = 0
    error_replies: int = 0
    protocol_errors: int = 0  # InvalidParams replies to deliberately malformed requests
    text_checks: int = 0
    by_method: dict[str, int] = field(default_factory=dict)


class SessionFailure(AssertionError):
    pass


class FuzzSession:
    """One probe server and the client's copy of every open document."""

    def __init__(
        self, encoding: str = "utf-16", pull: bool = True, root: Path | None = None, **popen: Any
    ) -> None:
        """``root``: a workspace folder to announce; ``popen``: how to start the server."""
        self.encoding = encoding
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        self.client, self.process = RawClient.stdio(command=PROBE, stderr=self.stderr, **popen)
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.closed: set[str] = set()
        self.stats = Stats()
        self.next_id = 1000
        self.result_ids: dict[str, str] = {}
        self.actions: list[dict[str, Any]] = []
        capabilities = CONVERTER.unstructure(_capabilities(encoding, pull))
        folders = [{"uri": root.as_uri(), "name": root.name}] if root is not None else None
        reply = self.client.request(
            1,
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri() if root is not None else None,
                "workspaceFolders": folders,
                "capabilities": capabilities,
            },
        )
        self.capabilities = reply["result"]["capabilities"]
        self.client.send({"method": "initialized", "params": {}})
        self.commands: list[str] = self.capabilities["executeCommandProvider"]["commands"]
        advertised = {k for k in self.capabilities if k.endswith("Provider")}
        unknown = advertised - set(PROVIDERS)
        assert not unknown, f"advertised but not fuzzed: {unknown}"
        pulls = "diagnosticProvider" in self.capabilities
        assert pulls == pull
        self.requests = [
            r
            for r in REQUESTS
            if pulls or r not in ("textDocument/diagnostic", "workspace/diagnostic")
        ]

    # -- plumbing ------------------------------------------------------------------------

    def close(self) -> int | None:
        """Shut down politely; the exit status (None if it had to be killed)."""
        try:
            if self.process.poll() is None:
                self._request("shutdown", None)
                self.client.send({"method": "exit"})
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

    def peak_rss_mb(self) -> float:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        line = next(x for x in status.splitlines() if x.startswith("VmHWM:"))
        return int(line.split()[1]) / 1024

    def _answer_server_requests(self) -> None:
        """Answer what the server asks of the client, as an editor would."""
        for message in list(self.client.received):
            if "method" not in message:
                continue
            self.client.received.remove(message)
            method = message["method"]
            if method in ("window/showMessage", "window/logMessage"):
                if message["params"]["type"] == ERROR_TYPE:
                    raise SessionFailure(f"the server showed an error: {message['params']}")
                continue
            if "id" not in message:
                continue  # publishDiagnostics, progress
            result: Any = None
            if method == "workspace/configuration":
                result = [None for _ in message["params"]["items"]]
            self.client.send({"id": message["id"], "result": result})

    def _request(self, method: str, params: Any, cancel: bool = False) -> dict[str, Any]:
        self.next_id += 1
        self.stats.requests += 1
        self.stats.by_method[method] = self.stats.by_method.get(method, 0) + 1
        self.client.send({"id": self.next_id, "method": method, "params": params})
        if cancel:  # at once: the reply is the result or RequestCancelled, but there is one
            self.client.send({"method": "$/cancelRequest", "params": {"id": self.next_id}})
        reply = self.client.reply(self.next_id, deadline=60)
        self._answer_server_requests()
        self.stats.replies += 1
        if "error" in reply:
            self.stats.error_replies += 1
        return reply

    def request(
        self, method: str, params: Any, malformed: bool = False, cancel: bool = False
    ) -> Any:
        """Send a request (and ``cancel`` it); check its reply; the result (None after an
        error)."""
        reply = self._request(method, params, cancel)
        if "error" in reply:
            code = reply["error"]["code"]
            if malformed and code == -32602:
                self.stats.protocol_errors += 1
            elif code not in ALLOWED_ERRORS:
                raise SessionFailure(f"{method} {_short(params)}: error {reply['error']}")
            return None
        # A malformed position lsprotocol's converter can still read (1.5 and "0" become
        # 1 and 0) is answered like the position it reads as; the shape check applies.
        if method not in types.METHOD_TO_TYPES:
            return reply["result"]  # the probe's own request
        response_type = types.METHOD_TO_TYPES[method][1]
        try:
            CONVERTER.structure(reply, response_type)
        except Exception as error:
            raise SessionFailure(f"{method}: result of the wrong shape: {error}") from None
        return reply["result"]

    def check_texts(self) -> None:
        for uri, text in self.texts.items():
            shown = self.request("wflsTest/documentText", {"uri": uri})
            self.stats.text_checks += 1
            if shown is None or shown["text"] != text:
                raise SessionFailure(f"{uri}: the server's text differs: {_diff(text, shown)}")
            if uri.endswith((".wf.toml", ".wf.json")) and shown["analysed_text"] != text:
                raise SessionFailure(f"{uri}: the analysed text differs from the client's")
            if shown["version"] != self.versions[uri]:
                raise SessionFailure(f"{uri}: version {shown['version']}")

    def check_stderr(self) -> None:
        stderr = self.server_stderr()
        for marker in ("Traceback", " ERROR "):
            if marker in stderr:
                start = stderr.index(marker)
                raise SessionFailure(
                    f"the server logged an error:\n{stderr[max(0, start - 200) : start + 1500]}"
                )

    def reset(self) -> None:
        """Close every open document: the next steps start from an empty session."""
        for uri in list(self.texts):
            self.client.send(
                {"method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}}
            )
            del self.texts[uri]
            self.closed.add(uri)
        self.actions = []

    # -- steps ---------------------------------------------------------------------------

    def step(self, choose: Chooser) -> None:
        self.stats.steps += 1
        open_uris = list(self.texts)
        kind = choose.choice(
            ["open"] * 2 + ["edit"] * 8 + ["request"] * 10 + ["close", "stray", "cancelled"]
        )
        if kind == "open" or not open_uris:
            self.open(choose)
        elif kind == "stray":  # about documents that are not open: ignored
            uri = choose.choice([GHOST, *sorted(self.closed)])
            if choose.integer(0, 1):
                self.client.send(
                    {"method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}}
                )
            else:
                whole = {"text": "name = 'stray'\n"}
                self.client.send(
                    {
                        "method": "textDocument/didChange",
                        "params": {
                            "textDocument": {"uri": uri, "version": 99},
                            "contentChanges": [whole],
                        },
                    }
                )
            if self.request("wflsTest/documentText", {"uri": uri}) is not None:
                raise SessionFailure(f"{uri}: not open, yet the server has a text for it")
        elif kind == "cancelled":
            uri = choose.choice(open_uris)
            method = choose.choice(
                [
                    "textDocument/semanticTokens/full",
                    "textDocument/foldingRange",
                    "textDocument/documentSymbol",
                ]
            )
            self.request(method, {"textDocument": {"uri": uri}}, cancel=True)
        elif kind == "edit":
            self.edit(choose, choose.choice(open_uris))
        elif kind == "close":
            uri = choose.choice(open_uris)
            self.client.send(
                {"method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}}
            )
            del self.texts[uri]
            self.closed.add(uri)
        else:
            self.send_request(choose)
        self.check_texts()

    def open(self, choose: Chooser) -> None:
        uri = choose.choice(URIS)
        text = document(choose, "json" if uri.endswith(".json") else "toml")
        version = choose.integer(0, 3)
        self.texts[uri], self.versions[uri] = text, version
        self.closed.discard(uri)
        self.client.send(
            {
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": uri,
                        "languageId": choose.choice(["toml", "json", "plaintext"]),
                        "version": version,
                        "text": text,
                    }
                },
            }
        )

    def edit(self, choose: Chooser, uri: str) -> None:
        text = self.texts[uri]
        changes = []
        for _ in range(choose.integer(1, 3)):
            if choose.integer(0, 19) == 0:
                text = document(choose, "json" if uri.endswith(".json") else "toml")
                changes.append({"text": text})
                continue
            start = self.position(choose, text)
            end = start if choose.integer(0, 3) == 0 else self.position(choose, text)
            new = insertion(choose)
            a = client_offset(text, start["line"], start["character"], self.encoding)
            b = client_offset(text, end["line"], end["character"], self.encoding)
            a, b = min(a, b), max(a, b)
            text = text[:a] + new + text[b:]
            changes.append({"range": {"start": start, "end": end}, "text": new})
        self.texts[uri] = text
        # Versions usually grow; now and then one repeats or goes back.
        self.versions[uri] += choose.choice([1, 1, 1, 1, 2, 0, -1])
        self.client.send(
            {
                "method": "textDocument/didChange",
                "params": {
                    "textDocument": {"uri": uri, "version": self.versions[uri]},
                    "contentChanges": changes,
                },
            }
        )

    def position(self, choose: Chooser, text: str) -> dict[str, int]:
        lengths = line_lengths(text, self.encoding)
        line = choose.integer(0, len(lengths) + 1)
        width = lengths[line] if line < len(lengths) else 0
        return {"line": line, "character": choose.integer(0, width + 3)}

    def target(self, choose: Chooser) -> tuple[str, str]:
        """A URI to ask about (open, closed, never opened) and the client's text of it."""
        open_uris = list(self.texts)
        pick = choose.integer(0, 9)
        if pick == 0 or not open_uris:
            uri = choose.choice([GHOST, *sorted(self.closed)] if self.closed else [GHOST])
            return uri, ""
        uri = choose.choice(open_uris)
        return uri, self.texts[uri]

    def send_request(self, choose: Chooser) -> None:
        uri, text = self.target(choose)
        doc = {"uri": uri}
        method = choose.choice(self.requests)
        if choose.integer(0, 24) == 0 and method in POSITIONAL:
            bad = choose.choice(
                [
                    {"line": -1, "character": 0},
                    {"line": 0, "character": 1.5},
                    {"line": "0", "character": 0},
                    {"line": 0},
                ]
            )
            self.request(
                method, {"textDocument": doc, "position": bad, **POSITIONAL[method]}, malformed=True
            )
            return
        position = self.position(choose, text)
        span = {"start": self.position(choose, text), "end": self.position(choose, text)}
        if method in POSITIONAL:
            params = {"textDocument": doc, "position": position, **POSITIONAL[method]}
            if method == "textDocument/rename":
                params["newName"] = choose.choice(NAMES)
            self.request(method, params)
        elif method == "textDocument/codeAction":
            actions = self.request(
                method,
                {"textDocument": doc, "range": span, "context": {"diagnostics": []}},
            )
            self.actions = [a for a in actions or [] if "command" not in a or "kind" in a]
        elif method == "codeAction/resolve":
            if self.actions:
                self.request(method, choose.choice(self.actions))
            else:
                self.request(method, {"title": "nothing", "data": {"uri": uri}})
        elif method in ("textDocument/inlayHint", "textDocument/semanticTokens/range"):
            self.request(method, {"textDocument": doc, "range": span})
        elif method == "textDocument/selectionRange":
            positions = [self.position(choose, text) for _ in range(choose.integer(1, 3))]
            self.request(method, {"textDocument": doc, "positions": positions})
        elif method == "textDocument/semanticTokens/full/delta":
            previous = self.result_ids.get(uri, "none")
            result = self.request(method, {"textDocument": doc, "previousResultId": previous})
            if result and result.get("resultId"):
                self.result_ids[uri] = result["resultId"]
        elif method == "textDocument/semanticTokens/full":
            result = self.request(method, {"textDocument": doc})
            if result and result.get("resultId"):
                self.result_ids[uri] = result["resultId"]
        elif method == "textDocument/diagnostic":
            self.request(method, {"textDocument": doc, "identifier": "wfls"})
        elif method == "workspace/diagnostic":
            self.request(method, {"previousResultIds": []})
        elif method == "workspace/symbol":
            self.request(method, {"query": choose.choice(["", "c", "charge", "zz", "😀"])})
        elif method == "workspace/executeCommand":
            command = choose.choice(self.commands)
            if command == "wfls.runWorkflow":
                inputs = [BILLING_INPUT, {}, None, 3, {"customers": DEEP}]
                arguments = [{"uri": uri, "input": choose.choice(inputs)}]
            else:
                arguments = [{"uri": uri, "position": position}]
            self.request(method, {"command": command, "arguments": arguments})
        else:
            self.request(method, {"textDocument": doc})


POSITIONAL: dict[str, dict[str, Any]] = {
    "textDocument/completion": {},
    "textDocument/hover": {},
    "textDocument/definition": {},
    "textDocument/references": {"context": {"includeDeclaration": True}},
    "textDocument/documentHighlight": {},
    "textDocument/prepareRename": {},
    "textDocument/rename": {"newName": "x"},
}
REQUESTS = [
    *POSITIONAL,
    "textDocument/codeAction",
    "codeAction/resolve",
    "textDocument/documentSymbol",
    "workspace/symbol",
    "textDocument/foldingRange",
    "textDocument/selectionRange",
    "textDocument/semanticTokens/full",
    "textDocument/semanticTokens/full/delta",
    "textDocument/semanticTokens/range",
    "textDocument/inlayHint",
    "textDocument/diagnostic",
    "workspace/diagnostic",
    "workspace/executeCommand",
]
PROVIDERS = {
    "completionProvider": "textDocument/completion",
    "hoverProvider": "textDocument/hover",
    "definitionProvider": "textDocument/definition",
    "referencesProvider": "textDocument/references",
    "documentHighlightProvider": "textDocument/documentHighlight",
    "renameProvider": "textDocument/rename",
    "codeActionProvider": "textDocument/codeAction",
    "documentSymbolProvider": "textDocument/documentSymbol",
    "workspaceSymbolProvider": "workspace/symbol",
    "foldingRangeProvider": "textDocument/foldingRange",
    "selectionRangeProvider": "textDocument/selectionRange",
    "semanticTokensProvider": "textDocument/semanticTokens/full",
    "inlayHintProvider": "textDocument/inlayHint",
    "diagnosticProvider": "textDocument/diagnostic",
    "executeCommandProvider": "workspace/executeCommand",
}
"""Each capability the server may advertise, and a method of it the session sends: a
capability missing here fails the session, so a new feature cannot go unfuzzed."""
NAMES = ["renamed", "orders.v2", "with space", "😀", "", 'a"b', "customers", "x'y"]


def _capabilities(encoding: str, pull: bool) -> types.ClientCapabilities:
    import pytest_lsp

    caps = pytest_lsp.client_capabilities("visual-studio-code")
    assert caps.general is not None
    caps.general.position_encodings = [encoding]
    assert caps.text_document is not None
    caps.text_document.diagnostic = (
        types.DiagnosticClientCapabilities(related_document_support=False) if pull else None
    )
    if pull:  # the server offers pull only to a client it can ask to pull again
        assert caps.workspace is not None
        caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(
            refresh_support=True
        )
    return caps


def document(choose: Chooser, syntax: str) -> str:
    """An example, a half-typed example, or random text."""
    kind = choose.integer(0, 5)
    example = choose.choice(EXAMPLES[syntax])
    if kind <= 1:
        return example
    if kind <= 3:
        cut = choose.integer(0, len(example))
        text = example[:cut]
        if kind == 3:  # the author's line endings and a BOM
            text = text.replace("\n", choose.choice(["\r\n", "\n"]))
            text = choose.choice(["", "\ufeff"]) + text
        return text
    if kind == 4:
        return "".join(choose.choice(PIECES) for _ in range(choose.integer(0, 40)))
    raw = bytes(choose.integer(0, 255) for _ in range(choose.integer(0, 60)))
    return raw.decode("utf-8", errors=choose.choice(["replace", "surrogateescape"]))


def insertion(choose: Chooser) -> str:
    kind = choose.integer(0, 3)
    if kind == 0:
        return ""
    if kind == 1:
        return choose.choice(PIECES)
    if kind == 2:
        return "".join(choose.choice([*string.ascii_lowercase, *PIECES]) for _ in range(5))
    return "".join(choose.choice(PIECES) for _ in range(choose.integer(1, 8)))


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) < 300 else text[:300] + "..."


def _diff(expected: str, shown: Any) -> str:
    if shown is None:
        return "the server does not have it open"
    actual = shown["text"]
    at = next((i for i, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b), None)
    if at is None:
        at = min(len(expected), len(actual))
    client, server = expected[max(0, at - 20) : at + 20], actual[max(0, at - 20) : at + 20]
    return f"first difference at {at}: client {client!r}, server {server!r}"
