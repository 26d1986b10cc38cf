"""Random editing sessions: an erratic editor's messages, its own copy of each document,
and the rules the server's replies must meet.

The tests' fuzzed sessions (``tests/lsp/fuzzsession.py``: hypothesis draws the
choices, so a failure shrinks) and the soak benchmark (``bench/soak_session.py``:
a seeded ``random.Random`` draws them, for long runs) take these steps and judge
the replies by these rules. Both import them from here because neither imports
the other's folder; the server itself never imports this module. The server
process and the connection to it are the caller's: a session only sends
messages, waits for replies and looks at what else the server sent.

A step opens a document (an example, a half-typed one, an example holding any
JSON or TOML value at any key of a node, a node def, an edge or a schema, or
random text; with CRLF/LF, a BOM, a lone CR at the end, JSON escapes of lone
surrogates, NUL and bidirectional overrides, astral characters), edits one with
incremental changes at random ranges (past the end of a line and of the
document, zero-length, backwards, inside a UTF-16 surrogate pair), closes one,
opens and closes one at once (before its first analysis) and maybe reopens it,
changes or closes a document that is not open, sends a request the server
advertises at random positions, including positions past the ends, negative or
non-integer values, unknown URIs and closed documents, now and then cancelled
at once, or sends a request and at once an edit that moves the text it is about.

Each request must get a reply within a deadline; a result must have the shape
lsprotocol's converter expects for the method; no error reply may be an
``InternalError`` (a crash inside a handler), and no message of type Error may
reach the client. A request followed at once by an edit must be answered about
the text it was sent for: as it was answered without the edit, or
``ContentModified``. After a burst of steps (``compare_texts``,
``compare_with_check``), the server's copy of each open document must equal the
client's (this needs a request no shipped server answers:
``tests/lsp/probe_server.py`` adds it), and the diagnostics of each open workflow
document must equal what ``wfls check`` finds in the same files: the session's
workspace folder copied, the client's texts written over it.

The client applies edits with its own code (not the server's): lines end at
``\\n``, ``\\r\\n`` or a lone ``\\r``, as LSP says, a character past the
end of a line is the line's end, a line past the last one the document's end,
a code unit inside a character that character's start, and a backwards range
counts forwards.
"""

from __future__ import annotations

import bisect
import contextlib
import copy
import io
import json
import random
import re
import shutil
import string
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import quote, unquote, urlparse

from lsprotocol import types
from lsprotocol.converters import get_converter

T = TypeVar("T")

DOCUMENTS = [
    "a.wf.toml",
    "b.wf.json",
    "c d.wf.toml",
    "e.wf.test.toml",  # a workflow test document (given any text)
    "notes.txt",  # not a workflow document
]
"""The names of the documents a session opens: in its workspace folder, or under
``file:///fuzz/`` when it has none."""
ON_DISK = {"a.wf.toml": ("toml", 0), "b.wf.json": ("json", 0), "c d.wf.toml": ("toml", 1)}
"""What ``write_workspace`` puts in the folder: an example (syntax, index) by name, so
that closing a document hands it back to a version on disk."""
NEVER_OPENED = "never-opened.wf.toml"
WORKFLOW_SUFFIXES = (".wf.toml", ".wf.json")
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
    "\\ud800",  # JSON escapes: a lone surrogate, NUL, a right-to-left override
    "\\u0000",
    "\\u202e",
    "\u202e",
    "\u2066",
    "\x1b[2J",
    "context.foreach.",
    "input.",
    "state.",
    "[[nodes]]\n",
    'id = "',
    'path = "',
    "\t",
    "\u2028",
]
HOSTILE_STRINGS = [
    "\ud800",
    "\udc80",
    "a\udbffb",
    "\x00",
    "\u202e",
    "\u2066rtl\u2069",
    "\x1b[2J",
    "line\nbreak",
    "\r",
    "\ufeff",
    "😀",
    "",
    " ",
    "context.foreach.\ud800",
    "context.foreach.customers.item.\u202e",
    'context.foreach."\x00".item',
    "input.\ud800",
    "state.\u202etotal",
    "node",
    "foreach",
    "object",
    "string",
    "__end__",
    "#/$defs/\ud800",
]
"""Strings a hostile document holds, as values and as keys: lone surrogates (JSON
escapes them, ``\\ud800``), NUL, bidirectional overrides, escape sequences, line
breaks, and paths and names made of them."""
KEYS = [
    "id",
    "type",
    "node",
    "name",
    "over",
    "as",
    "path",
    "target",
    "source",
    "input",
    "output",
    "from",
    "to",
    "outcome",
    "outcomes",
    "when",
    "workflow",
    "properties",
    "required",
    "items",
    "$ref",
    "$defs",
    "enum",
    "pattern",
    "additionalProperties",
    "input_schema",
    "output_schema",
    "start",
]
"""Keys of nodes, node defs, edges and schemas, to give any value."""
ERROR_TYPE = 1  # MessageType.Error
CONTENT_MODIFIED = -32801
# InvalidParams, ContentModified, RequestFailed, RequestCancelled
ALLOWED_ERRORS = {-32602, CONTENT_MODIFIED, -32803, -32800}
DEADLINE = 60.0
"""Seconds a reply may take: far above any answer's time, so only a hang reaches it."""
SETTLE = 20.0
"""Seconds the diagnostics of a document may take to reach the client's latest text
(and the other documents' it depends on): only a server that never gets there does."""
CONVERTER = get_converter()
TEXT_METHOD = "wflsTest/documentText"
"""The request only the tests' server (``tests/lsp/probe_server.py``) answers: its text."""
PUBLISH = "textDocument/publishDiagnostics"
SEVERITIES = {1: "error", 2: "warning", 3: "information", 4: "hint"}


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

    def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], deadline: float | None = None
    ) -> dict[str, Any]:
        """The first message in ``received`` (or to arrive) that ``predicate`` accepts,
        left there; raises AssertionError after ``deadline`` seconds without one."""
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


def client_position(text: str, offset: int, encoding: str) -> tuple[int, int]:
    """The (line, character) of the code-point ``offset``: the line it lies on (a break
    belongs to the line it ends) and the code units before it on that line."""
    starts = [start for start, _ in _lines(text)]
    line = bisect.bisect_right(starts, offset) - 1
    return line, sum(_units(c, encoding) for c in text[starts[line] : offset])


def line_lengths(text: str, encoding: str) -> list[int]:
    """Each line's length in ``encoding``'s code units, its break left out."""
    return [sum(_units(c, encoding) for c in text[s:e]) for s, e in _lines(text)]


# -- what wfls check finds in the client's texts -----------------------------------------


Finding = tuple[str, str, str, tuple[int, int], tuple[int, int]]
"""A diagnostic as the session compares them: code, severity, message (with its help
on a line of its own, as the server writes it), start and end (line, character)."""
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def is_workflow_uri(uri: str) -> bool:
    return uri.endswith(WORKFLOW_SUFFIXES)


def file_name(uri: str) -> str:
    """The name of the document ``uri`` names (its last path segment)."""
    return unquote(urlparse(uri).path).rsplit("/", 1)[-1]


def file_text(text: str) -> str:
    """What a file holding the editor's ``text`` holds: a lone surrogate (a JSON string
    may carry one, UTF-8 cannot) is U+FFFD, as the server analyses it, one code point
    for one."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def write_workspace(root: Path, examples: Mapping[str, Sequence[str]]) -> None:
    """The documents of a session's workspace folder on disk (``ON_DISK``)."""
    for name, (syntax, index) in ON_DISK.items():
        (root / name).write_text(examples[syntax][index], encoding="utf-8")


def check_findings(
    texts: Mapping[str, str], root: Path | None, encoding: str
) -> dict[str, list[Finding]]:
    """What ``wfls check --format json`` finds in each of ``texts`` (workflow documents by
    URI), in positions of the client's text in ``encoding`` (see ``served_findings``), sorted.

    The check runs in this process, through the command line's own entry, on a copy of
    the workspace folder ``root`` (without one, an empty folder) with each text written
    over its file: the documents it checks are those the server's workspace holds, the
    open ones as the client has them and the others as on disk, so the cross-file
    findings (a subgraph's workflow, two documents of one name) are checked too."""
    from wfls.cli import main

    with tempfile.TemporaryDirectory(prefix="wfls-session-") as folder:
        copy_root = Path(folder)
        if root is not None:
            for path in root.iterdir():
                if path.is_file() and path.name.endswith(WORKFLOW_SUFFIXES):
                    shutil.copyfile(path, copy_root / path.name)
        by_name = {file_name(uri): uri for uri in texts}
        for name, uri in by_name.items():
            (copy_root / name).write_bytes(file_text(texts[uri]).encode("utf-8"))
        printed, logged = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(logged):
            status = main(["check", "--format", "json", folder])
        if status not in (0, 1):
            raise SessionFailure(f"wfls check exited {status}: {logged.getvalue()[-2000:]}")
        found: dict[str, list[Finding]] = {uri: [] for uri in texts}
        for item in json.loads(printed.getvalue()):
            of = by_name.get(Path(item["file"]).name)
            if of is None:
                continue
            text = texts[of]
            message = item["message"] + (f"\n{item['help']}" if item.get("help") else "")
            start = _check_position(text, item["start"], encoding)
            end = _check_position(text, item["end"], encoding)
            found[of].append((item["code"], item["severity"], message, start, end))
    return {uri: sorted(items) for uri, items in found.items()}


def _check_position(text: str, place: Mapping[str, int], encoding: str) -> tuple[int, int]:
    """The position of a place ``check`` prints (1-based line and column in code points
    of the file, which has no byte-order mark), as ``_comparable`` gives it."""
    file = _file_lines(text)
    starts = [start for start, _ in _lines(file)]
    offset = starts[place["line"] - 1] + place["column"] - 1
    return _comparable(file, *client_position(file, offset, encoding), encoding)


def _file_lines(text: str) -> str:
    return text[1:] if text.startswith("\ufeff") else text


def _comparable(file: str, line: int, character: int, encoding: str) -> tuple[int, int]:
    """A position in ``file`` (a text without a leading byte-order mark) as the session
    compares them: a character past the end of its line is the line's end, as LSP reads
    it (a range may end inside a ``\\r\\n``, which one side counts and the other not)."""
    lengths = line_lengths(file, encoding)
    if line >= len(lengths):
        return len(lengths) - 1, lengths[-1]
    return line, min(character, lengths[line])


def served_findings(items: Sequence[Mapping[str, Any]], text: str, encoding: str) -> list[Finding]:
    """The server's diagnostics (LSP's JSON) of ``text`` as the session compares them,
    sorted: the server reads a leading byte-order mark as a space and ``check`` drops
    it, so a position on the first line is one character further in the server's (a
    place before that character, the document's start, stays at the start)."""
    bom = _units("\ufeff", encoding) if text.startswith("\ufeff") else 0
    file = _file_lines(text)

    def position(at: Mapping[str, int]) -> tuple[int, int]:
        line, character = at["line"], at["character"]
        if line == 0:
            character = max(character - bom, 0)
        return _comparable(file, line, character, encoding)

    found: list[Finding] = []
    for item in items:
        found.append(
            (
                str(item.get("code")),
                SEVERITIES.get(item.get("severity", 1), "?"),
                item["message"],
                position(item["range"]["start"]),
                position(item["range"]["end"]),
            )
        )
    return sorted(found)


def _difference(served: Sequence[Finding], checked: Sequence[Finding]) -> str:
    only_served = [f for f in served if f not in checked]
    only_checked = [f for f in checked if f not in served]
    return f"only the server's: {only_served[:5]}; only check's: {only_checked[:5]}"


# -- hostile documents -----------------------------------------------------------------


def any_value(choose: Chooser, names: Sequence[str], depth: int = 0, null: bool = True) -> Any:
    """A JSON value (a TOML one without ``null``): scalars at their limits, hostile
    strings, the document's own names, and arrays and tables of them, three deep."""
    kind = choose.integer(0, 9 if depth < 3 else 5)
    if kind == 0:
        return None if null else choose.choice([True, False])
    if kind == 1:
        return choose.choice([True, False])
    if kind == 2:
        return choose.choice([0, -1, 2, 2**63, -(2**70), 10**30])
    if kind == 3:
        return choose.choice([1.5, -0.0, 1e308, 5e-324])
    if kind <= 5:
        return choose.choice([*HOSTILE_STRINGS, *names])
    if kind <= 7:
        return [any_value(choose, names, depth + 1, null) for _ in range(choose.integer(0, 3))]
    keys = [*HOSTILE_STRINGS, *KEYS]
    return {
        choose.choice(keys): any_value(choose, names, depth + 1, null)
        for _ in range(choose.integer(0, 3))
    }


def _tables(data: Any) -> Iterator[dict[str, Any]]:
    """The tables of a parsed document a hostile value may go in: the document, its nodes,
    node defs and edges, and every schema, nested ones included."""
    if not isinstance(data, dict):
        return
    yield data
    for key in ("nodes", "node_defs", "edges"):
        items = data.get(key)
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict):
                yield item
                yield from _schemas(item)
    yield from _schemas(data)


def _schemas(table: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    for key, value in table.items():
        if key.endswith("_schema") and isinstance(value, dict):
            yield from _subschemas(value)


def _subschemas(schema: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield schema
    for key in ("properties", "$defs"):
        nested = schema.get(key)
        for value in nested.values() if isinstance(nested, dict) else ():
            if isinstance(value, dict):
                yield from _subschemas(value)
    for key in ("items", "additionalProperties"):
        value = schema.get(key)
        if isinstance(value, dict):
            yield from _subschemas(value)


def _names(data: Any) -> list[str]:
    """The document's node ids and node def names: values that mean something there."""
    names = []
    if isinstance(data, dict):
        for key, field_name in (("nodes", "id"), ("node_defs", "name")):
            items = data.get(key)
            for item in items if isinstance(items, list) else ():
                if isinstance(item, dict) and isinstance(item.get(field_name), str):
                    names.append(item[field_name])
    return names


def hostile_document(choose: Chooser, example: str, syntax: str) -> str:
    """``example`` with one to three keys of its nodes, node defs, edges or schemas (or the
    document) given any value (``any_value``), or a schema given a property of a hostile
    name, written back in ``syntax``: JSON with its escapes (``\\ud800``, ``\\u0000``,
    ``\\u202e``) or as the characters, TOML by the writer of ``wfls export``."""
    try:
        data = json.loads(example) if syntax == "json" else tomllib.loads(example)
    except ValueError:
        return example
    names = _names(data)
    for _ in range(choose.integer(1, 3)):
        table = choose.choice(list(_tables(data)))
        if "properties" in table and choose.integer(0, 3) == 0:
            properties = table["properties"]
            if isinstance(properties, dict):
                properties[choose.choice(HOSTILE_STRINGS)] = {"type": "string"}
                continue
        key = choose.choice([*table, *KEYS, *HOSTILE_STRINGS])
        table[key] = any_value(choose, names, null=syntax == "json")
    if syntax == "json":
        indent = choose.choice([None, 2])
        return json.dumps(data, ensure_ascii=choose.choice([True, False]), indent=indent)
    from wf_core.authoring.export import ExportError, dump_toml

    try:
        return dump_toml(data)
    except ExportError:
        return example


def moved_down(value: Any, uri: str, at: tuple[int, int]) -> Any:
    """``value`` (a position, or an answer holding ranges: a hover, locations, location
    links, highlights) with every position of document ``uri`` at or after ``at`` where
    it is once a line is inserted there: a line further down, at the same character
    (less ``at``'s character on ``at``'s own line)."""
    if isinstance(value, list):
        return [moved_down(item, uri, at) for item in value]
    if not isinstance(value, dict):
        return value
    if set(value) == {"line", "character"}:
        line, character = value["line"], value["character"]
        if (line, character) < at:
            return value
        return {"line": line + 1, "character": character - at[1] if line == at[0] else character}
    here = value.get("uri", value.get("targetUri", uri)) == uri
    moved = {}
    for key, item in value.items():
        if key in ("range", "targetRange", "targetSelectionRange") and not here:
            moved[key] = item
        elif key in ("range", "targetRange", "targetSelectionRange", "originSelectionRange"):
            moved[key] = {side: moved_down(item[side], uri, at) for side in ("start", "end")}
        else:
            moved[key] = item
    return moved


def _place_of(answer: Any) -> Any:
    """What an answer says about which place it is: all of it, but for a hover, its range
    and the first line of its text (the symbol it is about). The rest of a hover may
    change with the version it was asked about (what the last run saw is of an earlier
    version once the document changed)."""
    if isinstance(answer, dict) and "contents" in answer:
        contents = answer["contents"]
        if isinstance(contents, list):
            contents = contents[0] if contents else ""
        text = contents.get("value", "") if isinstance(contents, dict) else str(contents)
        return answer.get("range"), text.split("\n", 1)[0]
    return answer


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
    moved: int = 0  # requests followed at once by an edit that moved their text
    moved_found: int = 0  # of these, answered something (not null, not empty) before the edit
    content_modified: int = 0  # of these, answered ContentModified
    races: int = 0  # documents closed at once after they were opened
    text_checks: int = 0  # the server's text of a document compared with the client's
    check_comparisons: int = 0  # documents whose diagnostics were compared with check's
    disagreements: int = 0  # documents whose diagnostics never came to equal check's


@dataclass(frozen=True)
class Step:
    """What a step did: its kind, and the document a ``stray`` message was about."""

    kind: str
    uri: str = ""


class SessionFailure(AssertionError):
    """A reply or a message from the server that breaks one of the session's rules."""


class Disagreement(SessionFailure):
    """The server's diagnostics of a document differ from what ``wfls check`` finds."""


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
        self.root: Path | None = None
        self.uris = [f"file:///fuzz/{quote(name)}" for name in DOCUMENTS]
        self.ghost = f"file:///fuzz/{NEVER_OPENED}"
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.closed: set[str] = set()
        self.published: dict[str, dict[str, Any]] = {}  # the last publishDiagnostics by URI
        self.stats = Stats()
        self.next_id = 1000
        self.result_ids: dict[str, str] = {}
        self.actions: list[dict[str, Any]] = []
        self.capabilities: dict[str, Any] = {}
        self.commands: list[str] = []
        self.requests: list[str] = []
        self.pull = True

    def initialize(
        self, preset: types.ClientCapabilities, pull: bool, root: Path | None = None
    ) -> None:
        """The handshake, as a client with ``preset``'s capabilities but the session's
        position encoding, and pull diagnostics or not; ``root``: a workspace folder to
        announce, where the session's documents then are (``write_workspace`` puts some
        on disk). The server must advertise only what the session knows how to ask."""
        if root is not None:
            self.root = root
            self.uris = [(root / name).as_uri() for name in DOCUMENTS]
            self.ghost = (root / NEVER_OPENED).as_uri()
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
        reply = self._reply(1)
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
        self.pull = pull
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
        """Answer what the server asks of the client, as an editor would, and keep the
        last diagnostics published for each document."""
        for message in list(self.connection.received):
            if "method" not in message:
                continue
            self.connection.received.remove(message)
            method = message["method"]
            if method in ("window/showMessage", "window/logMessage"):
                if message["params"]["type"] == ERROR_TYPE:
                    raise SessionFailure(f"the server showed an error: {message['params']}")
                continue
            if method == PUBLISH:
                self.published[message["params"]["uri"]] = message["params"]
            if "id" not in message:
                continue  # publishDiagnostics, progress
            result: Any = None
            if method == "workspace/configuration":
                result = [None for _ in message["params"]["items"]]
            self.connection.send({"id": message["id"], "result": result})

    def _reply(self, id_: Any) -> dict[str, Any]:
        """The reply to request ``id_``, the server's own requests answered meanwhile (it
        may wait for one: a progress token it asked for before indexing)."""
        end = time.monotonic() + DEADLINE

        def wanted(message: dict[str, Any]) -> bool:
            if "method" in message:
                return "id" in message
            return bool(message.get("id") == id_)

        while True:
            try:
                message = self.connection.wait_for(wanted, max(0.0, end - time.monotonic()))
            except AssertionError:
                raise SessionFailure(f"no reply to request {id_} within {DEADLINE} s") from None
            if "method" not in message:
                self.connection.received.remove(message)
                return message
            self._answer_server_requests()

    def _request(self, method: str, params: Any, cancel: bool = False) -> dict[str, Any]:
        self.next_id += 1
        self.stats.requests += 1
        self.stats.by_method[method] = self.stats.by_method.get(method, 0) + 1
        self.connection.send({"id": self.next_id, "method": method, "params": params})
        if cancel:  # at once: the reply is the result or RequestCancelled, but there is one
            self.connection.send({"method": "$/cancelRequest", "params": {"id": self.next_id}})
        return self._answer(self.next_id)

    def _answer(self, id_: int) -> dict[str, Any]:
        reply = self._reply(id_)
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
        return self._checked(method, params, self._request(method, params, cancel), malformed)

    def _checked(
        self, method: str, params: Any, reply: dict[str, Any], malformed: bool = False
    ) -> Any:
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

    def open_document(self, uri: str, text: str, version: int, language: str) -> None:
        """Open ``uri`` with ``text``, in the client's copy and in the server."""
        self.texts[uri], self.versions[uri] = text, version
        self.closed.discard(uri)
        self.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": uri,
                    "languageId": language,
                    "version": version,
                    "text": text,
                }
            },
        )

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

    # -- what the server holds, against the client's copy and wfls check -----------------

    def compare_texts(self, closed: bool = True) -> None:
        """The server's text of every open document (both copies it keeps, and the
        version) equals the client's; with ``closed``, a document the client closed is
        not open there. Asks ``TEXT_METHOD``: only the tests' server answers it."""
        for uri, text in self.texts.items():
            shown = self.request(TEXT_METHOD, {"uri": uri})
            self.stats.text_checks += 1
            if shown is None or shown["text"] != text:
                raise SessionFailure(f"{uri}: the server's text differs: {_diff(text, shown)}")
            if is_workflow_uri(uri) and shown["analysed_text"] != text:
                raise SessionFailure(f"{uri}: the analysed text differs from the client's")
            if shown["version"] != self.versions[uri]:
                raise SessionFailure(f"{uri}: version {shown['version']}")
        for uri in sorted(self.closed) if closed else ():
            if self.request(TEXT_METHOD, {"uri": uri}) is not None:
                raise SessionFailure(f"{uri}: closed, yet the server has a text for it")

    def compare_with_check(self) -> None:
        """The diagnostics of every open workflow document equal what ``wfls check`` finds
        in the same files (``check_findings``), within ``SETTLE`` seconds: pulled again
        until they do (a pulling client is asked to pull again when another document's
        change reaches them), or, from a client that does not pull, the last ones
        published for the client's version. Raises ``Disagreement``."""
        uris = [uri for uri in self.texts if is_workflow_uri(uri)]
        if not uris:
            return
        expected = check_findings({u: self.texts[u] for u in uris}, self.root, self.encoding)
        for uri in uris:
            self.stats.check_comparisons += 1
            self._agree(uri, expected[uri])

    def _agree(self, uri: str, checked: list[Finding]) -> None:
        end = time.monotonic() + SETTLE
        text, enc = self.texts[uri], self.encoding
        served: list[Finding] | None = None
        while True:
            if self.pull:
                result = self.request(
                    "textDocument/diagnostic", {"textDocument": {"uri": uri}, "identifier": "wfls"}
                )
                served = served_findings(result["items"], text, enc) if result else None
            else:
                published = self.published.get(uri)
                if published is not None and published.get("version") == self.versions[uri]:
                    served = served_findings(published["diagnostics"], text, enc)
            if served == checked:
                return
            left = end - time.monotonic()
            if left <= 0:
                self.stats.disagreements += 1
                shown = "none" if served is None else _difference(served, checked)
                raise Disagreement(
                    f"{uri} (version {self.versions[uri]}): the diagnostics differ from wfls "
                    f"check's: {shown}\ntext: {self.texts[uri]!r}"
                )
            with contextlib.suppress(AssertionError):  # until a refresh, a publish or 1 s
                self.connection.wait_for(
                    lambda m: m.get("method") in (PUBLISH, "workspace/diagnostic/refresh"),
                    min(left, 1.0),
                )
            self._answer_server_requests()

    # -- steps ---------------------------------------------------------------------------

    def step(self, choose: Chooser) -> Step:
        """One random step, its replies checked."""
        self.stats.steps += 1
        open_uris = list(self.texts)
        kind = choose.choice(
            ["open"] * 2
            + ["edit"] * 8
            + ["request"] * 10
            + ["close", "stray", "cancelled", "race", "moved"]
        )
        if kind == "race":
            self.race(choose)
            return Step(kind)
        if kind == "open" or not open_uris:
            self.open(choose)
            return Step("open")
        if kind == "stray":  # about documents that are not open: ignored
            uri = choose.choice([self.ghost, *sorted(self.closed)])
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
        elif kind == "moved":
            # A document with a node id to ask about, where one is open.
            named = [uri for uri in open_uris if _NODE_ID.search(self.texts[uri])]
            self.moved(choose, choose.choice(named or open_uris))
        else:
            self.send_request(choose)
        return Step(kind)

    def open(self, choose: Chooser) -> None:
        uri = choose.choice(self.uris)
        text = self.document(choose, "json" if uri.endswith(".json") else "toml")
        language = choose.choice(["toml", "json", "plaintext"])
        self.open_document(uri, text, choose.integer(0, 3), language)

    def race(self, choose: Chooser) -> None:
        """Open a document and close it at once, before its first analysis (as a preview
        tab does), maybe after an edit, then maybe open it again: a document open before
        is closed first."""
        self.stats.races += 1
        uri = choose.choice(self.uris)
        syntax = "json" if uri.endswith(".json") else "toml"
        if uri in self.texts:
            self.close_document(uri)
        self.open_document(uri, self.document(choose, syntax), choose.integer(0, 3), syntax)
        if choose.integer(0, 2) == 0:
            self.edit(choose, uri)
        self.close_document(uri)
        if choose.integer(0, 1):
            self.open_document(uri, self.document(choose, syntax), choose.integer(0, 3), syntax)

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

    def moved(self, choose: Chooser, uri: str) -> None:
        """A request about a place (a node id, where the document has one), answered; then
        without waiting: a line inserted above that place, the same request at the place
        it moved to, and another line inserted above it. The second request is about the
        text it was sent for, whatever the analysis answering it has seen: its answer is
        the first one moved down a line (``moved_down``; of a hover, its range and first
        line, ``_place_of``), or ``ContentModified``, never about another place."""
        method = choose.choice(MOVED)
        text = self.texts[uri]
        position = self.id_position(choose, text) or self.position(choose, text)
        params = {"textDocument": {"uri": uri}, "position": position, **POSITIONAL[method]}
        first = self._request(method, params)
        expected = self._checked(method, params, first)
        self.stats.moved += 1
        self.stats.moved_found += bool(expected)
        at = self.insert_line(choose, uri, position["line"])
        params = {**params, "position": moved_down(position, uri, at)}
        self.next_id += 1
        asked = self.next_id
        self.stats.requests += 1
        self.stats.by_method[method] = self.stats.by_method.get(method, 0) + 1
        self.connection.send({"id": asked, "method": method, "params": params})
        self.insert_line(choose, uri, params["position"]["line"])
        reply = self._answer(asked)
        if reply.get("error", {}).get("code") == CONTENT_MODIFIED:
            self.stats.content_modified += 1
            return
        answer = self._checked(method, params, reply)
        if "error" not in first and _place_of(answer) != _place_of(moved_down(expected, uri, at)):
            raise SessionFailure(
                f"{method} {_short(params)}, sent after a line was inserted at {at} and "
                f"before another: answered {_short(answer)}, not about the text it was sent "
                f"for, where the answer before the insertion was {_short(expected)}"
            )

    def insert_line(self, choose: Chooser, uri: str, below: int) -> tuple[int, int]:
        """Insert a line at the start of a line up to ``below`` (after a byte-order mark,
        which stays first); where, in the client's (line, character)."""
        text = self.texts[uri]
        line = choose.integer(0, min(below, len(_lines(text)) - 1))
        start = client_offset(text, line, 0, self.encoding)
        if start == 0 and text.startswith("\ufeff"):
            start = 1
        new = choose.choice(["\n", "\r\n", "# moved\n" if uri.endswith(".toml") else " \n"])
        if new == "\n" and text[start - 1 : start] == "\r":
            new = "\r\n"  # a lone CR and a LF after it would be one line break
        at = client_position(text, start, self.encoding)
        where = {"line": at[0], "character": at[1]}
        self.texts[uri] = text[:start] + new + text[start:]
        self.versions[uri] += 1
        self.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": self.versions[uri]},
                "contentChanges": [{"range": {"start": where, "end": where}, "text": new}],
            },
        )
        return at

    def id_position(self, choose: Chooser, text: str) -> dict[str, int] | None:
        """A position inside a node id of ``text`` (``id = "x"``, ``"id": "x"``), if any."""
        found = [m for m in _NODE_ID.finditer(text) if m.group(1)]
        if not found:
            return None
        match = choose.choice(found)
        offset = choose.integer(match.start(1), match.end(1) - 1)
        line, character = client_position(text, offset, self.encoding)
        return {"line": line, "character": character}

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
            ghost = self.ghost
            uri = choose.choice([ghost, *sorted(self.closed)] if self.closed else [ghost])
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
        """An example, a half-typed example, an example holding hostile values
        (``hostile_document``) or random text; now and then with a byte-order mark first
        or a lone CR last."""
        kind = choose.integer(0, 7)
        example = choose.choice(self.examples[syntax])
        if kind <= 1:
            text = example
        elif kind <= 3:
            text = example[: choose.integer(0, len(example))]
            if kind == 3:  # the author's line endings
                text = text.replace("\n", choose.choice(["\r\n", "\n"]))
        elif kind <= 5:
            text = hostile_document(choose, example, syntax)
        elif kind == 6:
            text = "".join(choose.choice(PIECES) for _ in range(choose.integer(0, 40)))
        else:
            raw = bytes(choose.integer(0, 255) for _ in range(choose.integer(0, 60)))
            text = raw.decode("utf-8", errors=choose.choice(["replace", "surrogateescape"]))
        ends = choose.integer(0, 5)
        if ends == 0:
            text = "\ufeff" + text
        elif ends == 1:
            text += "\r"
        return text


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
MOVED = [
    "textDocument/hover",
    "textDocument/definition",
    "textDocument/documentHighlight",
    "textDocument/references",
]
"""Requests about a place whose answer a line inserted above it must not change."""
_NODE_ID = re.compile(r'(?:\bid\s*=\s*|"id"\s*:\s*)"([^"\\\r\n]*)"')
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


def _diff(expected: str, shown: Any) -> str:
    if shown is None:
        return "the server does not have it open"
    actual = shown["text"]
    at = next((i for i, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b), None)
    if at is None:
        at = min(len(expected), len(actual))
    client, server = expected[max(0, at - 20) : at + 20], actual[max(0, at - 20) : at + 20]
    return f"first difference at {at}: client {client!r}, server {server!r}"
