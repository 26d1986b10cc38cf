"""Random editing sessions: an erratic editor's messages, its own copy of each document,
and the rules the server's replies must meet.

The tests' fuzzed sessions (``tests/lsp/fuzzsession.py``: hypothesis draws the
choices, so a failure shrinks) and the soak benchmark (``bench/soak_session.py``:
a seeded ``random.Random`` draws them, for long runs) take these steps and judge
the replies by these rules. Both import them from here because neither imports
the other's folder; the server itself never imports this module. The server
process and the connection to it are the caller's: a session only sends
messages, waits for replies and looks at what else the server sent.

A step opens a document (an example, a half-typed one, or random text with
CRLF/LF, a BOM, astral characters, NUL and lone surrogates), edits one with
incremental changes at random ranges (past the end of a line and of the
document, zero-length, backwards, inside a UTF-16 surrogate pair), closes one,
changes or closes a document that is not open, or sends a request the server
advertises at random positions, including positions past the ends, negative or
non-integer values, unknown URIs and closed documents, now and then cancelled
at once.

Each request must get a reply within a deadline; a result must have the shape
lsprotocol's converter expects for the method; no error reply may be an
``InternalError`` (a crash inside a handler), and no message of type Error may
reach the client. Whether the server's copy of each document equals the
client's needs a request no shipped server answers: the tests add it
(``tests/lsp/probe_server.py``) and compare after every step.

The client applies edits with its own code (not the server's): lines end at
``\\n``, ``\\r\\n`` or a lone ``\\r``, as LSP says, a character past the
end of a line is the line's end, a line past the last one the document's end,
a code unit inside a character that character's start, and a backwards range
counts forwards.
"""

from __future__ import annotations

import copy
import json
import random
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from lsprotocol import types
from lsprotocol.converters import get_converter

T = TypeVar("T")

URIS = [
    "file:///fuzz/a.wf.toml",
    "file:///fuzz/b.wf.json",
    "file:///fuzz/c%20d.wf.toml",
    "file:///fuzz/e.wf.test.toml",  # a workflow test document (given any text)
    "file:///fuzz/notes.txt",  # not a workflow document
]
GHOST = "file:///fuzz/never-opened.wf.toml"
DEEP: Any = None
for _ in range(900):  # deeper than any recursion the server can afford over it
    DEEP = [DEEP]
PIECES = [
    "\n",
    "\r\n",
    "\r",
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
DEADLINE = 60.0
"""Seconds a reply may take: far above any answer's time, so only a hang reaches it."""
CONVERTER = get_converter()


class Chooser(Protocol):
    """Where the session's random choices come from (hypothesis or ``random``)."""

    def integer(self, low: int, high: int) -> int: ...
    def choice(self, options: Sequence[T]) -> T: ...


class RandomChooser:
    """Choices from a seeded generator: a long run that the seed repeats."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        return self.random.randint(low, high)

    def choice(self, options: Sequence[T]) -> T:
        return options[self.random.randrange(len(options))]


class Connection(Protocol):
    """A client's end of a JSON-RPC connection to the server."""

    received: list[dict[str, Any]]
    """What arrived and was not yet taken: the server's requests and notifications."""

    def send(self, message: dict[str, Any]) -> None:
        """Send ``message`` (without its ``jsonrpc`` member)."""
        ...

    def reply(self, id_: Any, deadline: float | None = None) -> dict[str, Any]:
        """The reply to request ``id_``; fails after ``deadline`` seconds without one."""
        ...


# -- the client's own position arithmetic ------------------------------------------------


def _units(char: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(char.encode("utf-8", "surrogatepass"))
    if encoding == "utf-16":
        return 2 if ord(char) > 0xFFFF else 1
    return 1


def _lines(text: str) -> list[tuple[int, int]]:
    """Each line's start and end (before its break: ``\\n``, ``\\r\\n`` or a lone
    ``\\r``, as LSP ends lines)."""
    lines, start, index = [], 0, 0
    while index < len(text):
        char = text[index]
        if char in "\r\n":
            lines.append((start, index))
            index += 2 if text[index : index + 2] == "\r\n" else 1
            start = index
        else:
            index += 1
    lines.append((start, len(text)))
    return lines


def client_offset(text: str, line: int, character: int, encoding: str) -> int:
    """The code-point offset the client means by (line, character)."""
    lines = _lines(text)
    if line >= len(lines):
        return len(text)
    start, end = lines[line]
    used, offset = 0, start
    while offset < end:
        step = _units(text[offset], encoding)
        if used + step > character:
            break
        used += step
        offset += 1
    return offset


def line_lengths(text: str, encoding: str) -> list[int]:
    """Each line's length in ``encoding``'s code units, its break left out."""
    return [sum(_units(c, encoding) for c in text[s:e]) for s, e in _lines(text)]


# -- the session -----------------------------------------------------------------------


@dataclass
class Stats:
    """What a session sent and got back, to report beside its verdict."""

    steps: int = 0
    requests: int = 0
    replies: int = 0
    error_replies: int = 0
    protocol_errors: int = 0  # InvalidParams replies to deliberately malformed requests
    by_method: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Step:
    """What a step did: its kind, and the document a ``stray`` message was about."""

    kind: str
    uri: str = ""


class SessionFailure(AssertionError):
    """A reply or a message from the server that breaks one of the session's rules."""


class RandomSession:
    """The client's side of one session: its copy of every open document, the steps, and
    the check of every reply."""

    def __init__(
        self,
        connection: Connection,
        examples: Mapping[str, Sequence[str]],
        run_input: Any,
        encoding: str = "utf-16",
    ) -> None:
        """``examples``: whole documents by syntax (``toml``, ``json``) to open and cut;
        ``run_input``: an input some of them accept, for ``wfls.runWorkflow``."""
        self.connection = connection
        self.examples = examples
        self.run_inputs = [run_input, {}, None, 3, {"customers": DEEP}]
        self.encoding = encoding
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.closed: set[str] = set()
        self.stats = Stats()
        self.next_id = 1000
        self.result_ids: dict[str, str] = {}
        self.actions: list[dict[str, Any]] = []
        self.capabilities: dict[str, Any] = {}
        self.commands: list[str] = []
        self.requests: list[str] = []

    def initialize(
        self, preset: types.ClientCapabilities, pull: bool, root: Path | None = None
    ) -> None:
        """The handshake, as a client with ``preset``'s capabilities but the session's
        position encoding, and pull diagnostics or not; ``root``: a workspace folder to
        announce. The server must advertise only what the session knows how to ask."""
        capabilities = CONVERTER.unstructure(_capabilities(preset, self.encoding, pull))
        folders = [{"uri": root.as_uri(), "name": root.name}] if root is not None else None
        self.connection.send(
            {
                "id": 1,
                "method": "initialize",
                "params": {
                    "processId": None,
                    "rootUri": root.as_uri() if root is not None else None,
                    "workspaceFolders": folders,
                    "capabilities": capabilities,
                },
            }
        )
        reply = self.connection.reply(1, deadline=DEADLINE)
        self.capabilities = reply["result"]["capabilities"]
        self.connection.send({"method": "initialized", "params": {}})
        self.commands = self.capabilities["executeCommandProvider"]["commands"]
        advertised = {k for k in self.capabilities if k.endswith("Provider")}
        unknown = advertised - set(PROVIDERS)
        if unknown:
            raise SessionFailure(f"advertised but not fuzzed: {unknown}")
        pulls = "diagnosticProvider" in self.capabilities
        if pulls != pull:
            raise SessionFailure(f"pull diagnostics offered: {pulls}, asked for: {pull}")
        self.requests = [
            r
            for r in REQUESTS
            if pulls or r not in ("textDocument/diagnostic", "workspace/diagnostic")
        ]

    def shutdown(self) -> None:
        """Ask the server to shut down, then to exit."""
        self._request("shutdown", None)
        self.connection.send({"method": "exit"})

    # -- plumbing ------------------------------------------------------------------------

    def _answer_server_requests(self) -> None:
        """Answer what the server asks of the client, as an editor would."""
        for message in list(self.connection.received):
            if "method" not in message:
                continue
            self.connection.received.remove(message)
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
            self.connection.send({"id": message["id"], "result": result})

    def _request(self, method: str, params: Any, cancel: bool = False) -> dict[str, Any]:
        self.next_id += 1
        self.stats.requests += 1
        self.stats.by_method[method] = self.stats.by_method.get(method, 0) + 1
        self.connection.send({"id": self.next_id, "method": method, "params": params})
        if cancel:  # at once: the reply is the result or RequestCancelled, but there is one
            self.connection.send({"method": "$/cancelRequest", "params": {"id": self.next_id}})
        reply = self.connection.reply(self.next_id, deadline=DEADLINE)
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
        response_type = types.METHOD_TO_TYPES.get(method, (None, None))[1]
        if response_type is None:
            return reply["result"]  # a request of the caller's own
        try:
            CONVERTER.structure(reply, response_type)
        except Exception as error:
            raise SessionFailure(f"{method}: result of the wrong shape: {error}") from None
        return reply["result"]

    def notify(self, method: str, params: Any) -> None:
        """Send a notification: no reply to wait for."""
        self.connection.send({"method": method, "params": params})

    def close_document(self, uri: str) -> None:
        """Close ``uri``, in the client's copy and in the server."""
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        del self.texts[uri]
        self.closed.add(uri)

    def reset(self) -> None:
        """Close every open document: the next steps start from an empty session."""
        for uri in list(self.texts):
            self.close_document(uri)
        self.actions = []

    # -- steps ---------------------------------------------------------------------------

    def step(self, choose: Chooser) -> Step:
        """One random step, its replies checked."""
        self.stats.steps += 1
        open_uris = list(self.texts)
        kind = choose.choice(
            ["open"] * 2 + ["edit"] * 8 + ["request"] * 10 + ["close", "stray", "cancelled"]
        )
        if kind == "open" or not open_uris:
            self.open(choose)
            return Step("open")
        if kind == "stray":  # about documents that are not open: ignored
            uri = choose.choice([GHOST, *sorted(self.closed)])
            if choose.integer(0, 1):
                self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            else:
                whole = {"text": "name = 'stray'\n"}
                self.notify(
                    "textDocument/didChange",
                    {"textDocument": {"uri": uri, "version": 99}, "contentChanges": [whole]},
                )
            return Step(kind, uri)
        if kind == "cancelled":
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
            self.close_document(choose.choice(open_uris))
        else:
            self.send_request(choose)
        return Step(kind)

    def open(self, choose: Chooser) -> None:
        uri = choose.choice(URIS)
        text = self.document(choose, "json" if uri.endswith(".json") else "toml")
        version = choose.integer(0, 3)
        self.texts[uri], self.versions[uri] = text, version
        self.closed.discard(uri)
        self.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": uri,
                    "languageId": choose.choice(["toml", "json", "plaintext"]),
                    "version": version,
                    "text": text,
                }
            },
        )

    def edit(self, choose: Chooser, uri: str) -> None:
        text = self.texts[uri]
        changes: list[dict[str, Any]] = []
        for _ in range(choose.integer(1, 3)):
            if choose.integer(0, 19) == 0:
                text = self.document(choose, "json" if uri.endswith(".json") else "toml")
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
        self.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": self.versions[uri]},
                "contentChanges": changes,
            },
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
        elif method == "textDocument/inlineValue":
            context = {"frameId": 1, "stoppedLocation": span}
            self.request(method, {"textDocument": doc, "range": span, "context": context})
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
        elif method in ("textDocument/formatting", "textDocument/rangeFormatting"):
            options = {"tabSize": choose.integer(0, 8), "insertSpaces": choose.integer(0, 3) > 0}
            ranged = {"range": span} if method == "textDocument/rangeFormatting" else {}
            self.request(method, {"textDocument": doc, "options": options, **ranged})
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
            arguments: list[dict[str, Any]]
            if command == "wfls.runWorkflow":
                arguments = [{"uri": uri, "input": choose.choice(self.run_inputs)}]
            else:
                arguments = [{"uri": uri, "position": position}]
            self.request(method, {"command": command, "arguments": arguments})
        else:
            self.request(method, {"textDocument": doc})

    def document(self, choose: Chooser, syntax: str) -> str:
        """An example, a half-typed example, or random text."""
        kind = choose.integer(0, 5)
        example = choose.choice(self.examples[syntax])
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
    "textDocument/formatting",
    "textDocument/rangeFormatting",
    "textDocument/diagnostic",
    "workspace/diagnostic",
    "textDocument/inlineValue",
    "textDocument/codeLens",
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
    "documentFormattingProvider": "textDocument/formatting",
    "documentRangeFormattingProvider": "textDocument/rangeFormatting",
    "semanticTokensProvider": "textDocument/semanticTokens/full",
    "inlayHintProvider": "textDocument/inlayHint",
    "inlineValueProvider": "textDocument/inlineValue",
    "codeLensProvider": "textDocument/codeLens",
    "diagnosticProvider": "textDocument/diagnostic",
    "executeCommandProvider": "workspace/executeCommand",
}
"""Each capability the server may advertise, and a method of it the session sends: a
capability missing here fails the session, so a new feature cannot go unfuzzed."""
NAMES = ["renamed", "orders.v2", "with space", "😀", "", 'a"b', "customers", "x'y"]


def _capabilities(
    preset: types.ClientCapabilities, encoding: str, pull: bool
) -> types.ClientCapabilities:
    """``preset`` (an editor's capabilities), with ``encoding`` the one position encoding
    and pull diagnostics offered or not."""
    caps = copy.deepcopy(preset)
    if caps.general is None or caps.text_document is None:
        raise ValueError("the preset lacks general or text document capabilities")
    caps.general.position_encodings = [encoding]
    caps.text_document.diagnostic = (
        types.DiagnosticClientCapabilities(related_document_support=False) if pull else None
    )
    if pull:  # the server offers pull only to a client it can ask to pull again
        if caps.workspace is None:
            caps.workspace = types.WorkspaceClientCapabilities()
        caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(
            refresh_support=True
        )
    return caps


def insertion(choose: Chooser) -> str:
    """Text an edit inserts: nothing, a piece, letters and pieces, or several pieces."""
    kind = choose.integer(0, 3)
    if kind == 0:
        return ""
    if kind == 1:
        return choose.choice(PIECES)
    if kind == 2:
        return "".join(choose.choice([*string.ascii_lowercase, *PIECES]) for _ in range(5))
    return "".join(choose.choice(PIECES) for _ in range(choose.integer(1, 8)))


def stderr_problem(stderr: str) -> str | None:
    """What the server logged that breaks the session's rules (a traceback, an error),
    with some context; None when nothing did."""
    for marker in ("Traceback", " ERROR "):
        if marker in stderr:
            start = stderr.index(marker)
            return f"the server logged an error:\n{stderr[max(0, start - 200) : start + 1500]}"
    return None


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) < 300 else text[:300] + "..."
