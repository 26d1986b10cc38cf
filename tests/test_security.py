"""What an untrusted document or workspace cannot make wfls do.

- ``$ref`` resolves within the document: references to ``http://``,
  ``https://``, ``file://`` and ``other.json#/x`` are diagnosed where they are
  written and never fetched or read, by the analysis, the editor features,
  ``wfls check`` or the runtime. A local HTTP server and patched openers
  would notice any attempt.
- The workspace never reads outside its folders: ``..``, absolute paths,
  percent-encoded climbs, ``file:`` URIs of other hosts, symlinks out, and
  ``extraGlobs`` that try to reach out.
- Output that embeds the author's text (ids, file names) is escaped for its
  format: no raw control character reaches a terminal or a CI log, GitHub
  workflow commands keep their structure, JSON and SARIF stay valid.
"""

from __future__ import annotations

import builtins
import http.server
import json
import os
import textwrap
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wf_core.runtime import execute_workflow, stand_in_handlers
from wf_core.runtime.contracts import compile_schema
from wf_core.runtime.errors import WorkflowRefused
from wf_core.version.snapshot import analyze_text
from wf_core.workspace.catalog import Workspace
from wf_core.workspace.files import Roots, path_of_uri
from wfls.cli import main
from wfls.cli.reporting import render_github
from wfls.features.completion import complete
from wfls.features.hover import hover
from wfls.settings import parse_settings

# -- $ref stays inside the document --------------------------------------------------------


class _Recorder(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:
        _Recorder.requests.append(self.path)
        body = json.dumps({"type": "object", "properties": {"fetched": {}}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def http_server() -> Iterator[str]:
    """A real server on 127.0.0.1 that would answer a fetch with a usable schema."""
    _Recorder.requests = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def no_reading_outside(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """Fail loudly on a fetch, and record any open of the files a reference names."""
    opened: list[str] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"urlopen{args}: a $ref was fetched")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    real_open = builtins.open

    def watched_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, str | os.PathLike) and Path(file).name in (
            "secret.json",
            "other.json",
        ):
            opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", watched_open)
    return opened


def _documents_with_refs(tmp_path: Path, host: str) -> tuple[Path, dict[str, str]]:
    """A workflow whose input schema points at four places outside it, each of which
    exists and holds a schema declaring ``fetched``."""
    usable = json.dumps({"type": "object", "properties": {"fetched": {}}})
    (tmp_path / "secret.json").write_text(usable)
    (tmp_path / "other.json").write_text(json.dumps({"x": json.loads(usable)}))
    refs = {
        "a": f"http://{host}/schema.json",
        "b": f"https://{host}/schema.json",
        "c": (tmp_path / "secret.json").as_uri(),
        "d": "other.json#/x",
    }
    properties = "\n".join(f'properties.{k} = {{ "$ref" = "{v}" }}' for k, v in refs.items())
    text = textwrap.dedent(
        """\
        name = "refs"
        start = "a"
        outcomes = ["ok"]
        edges = [{ from = "a", outcome = "ok", to = "__end__" }]

        [[node_defs]]
        name = "task"
        outcomes = ["ok"]
        input_schema = { type = "object", properties = { x = {} } }
        output_schema = { type = "object" }

        [[nodes]]
        id = "a"
        type = "node"
        node = "task"
        input = [{ target = "x", path = "input.a.fetched" }]

        [input_schema]
        type = "object"
        """
    )
    path = tmp_path / "refs.wf.toml"
    path.write_text(text + properties + "\n")
    return path, refs


def test_refs_outside_the_document_are_errors_and_never_fetched(
    http_server: str,
    no_reading_outside: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)  # a relative reference would find other.json here
    path, refs = _documents_with_refs(tmp_path, http_server)
    text = path.read_text()
    snapshot = analyze_text(text, "toml", uri=path.as_uri())
    found = [
        (p.code, p.model_path, text[p.span.start : p.span.end])
        for p in snapshot.issues
        if p.severity.value == "error"
    ]
    assert found == [
        ("invalid_model", f"input_schema.properties.{k}.$ref", json.dumps(ref))
        for k, ref in refs.items()
    ]
    messages = {p.message for p in snapshot.issues if p.code == "invalid_model"}
    assert (
        f"$ref {refs['a']!r} points outside the document: references resolve within the "
        "document only, and nothing is fetched"
    ) in messages
    # The editor features read the schemas too: nothing fetched for them either.
    snapshot.index  # noqa: B018
    offset = text.index("input.a.fetched") + len("input.a.")
    assert [c.label for c in complete(snapshot, offset)] == []
    hover(snapshot, offset)
    # The command line.
    assert main(["check", "--format", "json", str(path)]) == 1
    codes = [f["code"] for f in json.loads(capsys.readouterr().out)]
    assert codes.count("invalid_model") == 4
    # The runtime refuses the input instead of fetching the schema to check it.
    assert snapshot.workflow is not None
    with pytest.raises(WorkflowRefused) as refused:
        execute_workflow(snapshot.workflow, {"a": {}}, stand_in_handlers(snapshot.workflow))
    assert "cannot resolve $ref" in str(refused.value)
    for ref in refs.values():
        problem = compile_schema({"$ref": ref}).problem(1)
        assert problem == (
            f"cannot resolve $ref {ref!r}: references resolve within the schema only, "
            "nothing is fetched"
        )
    assert _Recorder.requests == []
    assert no_reading_outside == []


def test_refs_inside_the_document_still_resolve() -> None:
    """The guard is not a refusal of references: pointers and embedded ``$id``s work."""
    schema = {
        "$defs": {"n": {"type": "integer"}},
        "properties": {
            "a": {"$ref": "#/$defs/n"},
            "b": {"$id": "urn:example:b", "$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s"},
            "c": {"$ref": "urn:example:b"},
        },
    }
    check = compile_schema(schema)
    assert check.problem({"a": 1, "b": "x", "c": "y"}) is None
    assert check.problem({"a": "1"}) == "a: '1' is not of type 'integer'"
    assert check.problem({"c": 2}) == "c: 2 is not of type 'string'"


# -- regular expressions -------------------------------------------------------------------


def test_patterns_the_linear_engine_refuses_are_errors_where_written() -> None:
    text = textwrap.dedent(
        """\
        name = "p"
        start = "a"
        outcomes = ["ok"]
        edges = [{ from = "a", outcome = "ok", to = "__end__" }]

        [[node_defs]]
        name = "task"
        outcomes = ["ok"]
        input_schema = { type = "object", properties = { s = { type = "string", pattern = '(?=a)a' } } }
        output_schema = { type = "object", patternProperties = { '(a)\\1' = {} } }

        [[nodes]]
        id = "a"
        type = "node"
        node = "task"
        """  # noqa: E501
    )
    snapshot = analyze_text(text, "toml")
    found = [(p.code, p.model_path, text[p.span.start : p.span.end]) for p in snapshot.issues]
    assert found == [
        ("invalid_model", "node_defs[0].input_schema.properties.s.pattern", "'(?=a)a'"),
        ("invalid_model", "node_defs[0].output_schema.patternProperties.(a)\\1", "'(a)\\1'"),
    ]
    assert [p.message for p in snapshot.issues] == [
        "pattern '(?=a)a' cannot be evaluated in linear time: look-around, including "
        "look-ahead and look-behind, is not supported",
        "pattern '(a)\\\\1' cannot be evaluated in linear time: backreferences are not supported",
    ]


@pytest.mark.parametrize(
    ("schema", "value", "problem"),
    [
        ({"pattern": "^(a+)+$"}, "a" * 50_000 + "!", "does not match '^(a+)+$'"),
        ({"pattern": "^(a+)+$"}, "aaaa", None),
        ({"pattern": "b"}, "abc", None),  # search, not match: anywhere in the text
        (
            {"patternProperties": {"^(a+)+$": {"type": "integer"}}},
            {"a" * 50_000 + "!": "x", "aa": 1},
            None,
        ),
        ({"patternProperties": {"^(a+)+$": {"type": "integer"}}}, {"aa": "x"}, "aa: 'x' is not"),
        (
            {"patternProperties": {"^(a+)+$": {}}, "additionalProperties": False},
            {"a" * 50_000 + "!": 1},
            "do not match any of the regexes: '^(a+)+$'"[5:],
        ),
        (
            {"patternProperties": {"^x": {}}, "unevaluatedProperties": False},
            {"y": 1},
            "unevaluatedProperties is not evaluated in a schema that also has patternProperties",
        ),
        ({"pattern": "(a)\\1"}, "aa", "backreferences are not supported"),
        ({"propertyNames": {"pattern": "^(a+)+$"}}, {"a" * 50_000 + "!": 1}, "does not match"),
    ],
)
def test_runtime_patterns_never_backtrack(schema: Any, value: Any, problem: str | None) -> None:
    found = compile_schema(schema).problem(value)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found


# -- the workspace stays inside its folders ------------------------------------------------


def _write(path: Path, name: str) -> None:
    path.write_text(
        f'name = "{name}"\nstart = "e"\noutcomes = ["ok"]\nedges = []\n\n'
        '[[nodes]]\nid = "e"\ntype = "end"\n'
    )


@pytest.fixture
def inside_and_outside(tmp_path: Path) -> tuple[Path, Path]:
    inside, outside = tmp_path / "ws", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    _write(inside / "own.wf.toml", "own")
    _write(outside / "secret.wf.toml", "secret")
    _write(outside / "secret.toml", "secret_glob")
    return inside, outside


def test_extra_globs_cannot_reach_out(inside_and_outside: tuple[Path, Path]) -> None:
    inside, outside = inside_and_outside
    globs = ["../outside/*.toml", str(outside / "*"), "/**", "**", "*/../../outside/*"]
    workspace = Workspace(Roots([inside], globs))
    workspace.scan()
    assert workspace.names() == ["own"]
    # The server refuses such settings outright (and says so).
    settings, problems = parse_settings({"extraGlobs": ["../outside/*.toml"]})
    assert settings.extra_globs == () and problems
    for bad in (["/etc/*"], ["a/../../b"], ["C:\\x"], ["..\\x"], [""]):
        assert parse_settings({"extraGlobs": bad})[1], bad
    settings, problems = parse_settings({"extraGlobs": ["flows/**/*.toml"]})
    assert (settings.extra_globs, problems) == (("flows/**/*.toml",), [])


def test_paths_and_uris_that_climb_out_are_not_read(
    inside_and_outside: tuple[Path, Path],
) -> None:
    inside, outside = inside_and_outside
    (inside / "out.wf.toml").symlink_to(outside / "secret.wf.toml")
    (inside / "sub").mkdir()
    (inside / "sub" / "up").symlink_to(outside, target_is_directory=True)
    workspace = Workspace(Roots([inside]))
    skipped = {s.path.name: s.reason for s in workspace.scan().skipped}
    assert skipped == {"out.wf.toml": "it lies outside the workspace folders"}
    assert workspace.names() == ["own"]
    attempts = [
        outside / "secret.wf.toml",  # absolute
        inside / ".." / "outside" / "secret.wf.toml",  # ..
        inside / "sub" / "up" / "secret.wf.toml",  # through a symlinked folder
        inside / "out.wf.toml",  # a symlinked file
    ]
    uri = (inside / "x").as_uri()[: -len("/x")]
    for text in (
        f"{uri}/%2e%2e/outside/secret.wf.toml",  # a percent-encoded climb
        f"file://localhost{outside / 'secret.wf.toml'}",
    ):
        path = path_of_uri(text)
        assert path is not None
        attempts.append(path)
    for path in attempts:
        problem = workspace.load(path)
        assert problem is not None and problem.reason == "it lies outside the workspace folders"
    assert path_of_uri(f"file://elsewhere{outside / 'secret.wf.toml'}") is None
    assert workspace.names() == ["own"]
    assert workspace.resolve("secret") is None


# -- output escaping -----------------------------------------------------------------------

HOSTILE = "x\x1b[2J%:,\ny\u202ez\x9b"
"""Clears a terminal, breaks a GitHub workflow command and a line, reverses what follows
(U+202E, a bidirectional override) and starts a terminal's control sequence (C1 CSI)."""
RAW = ("\x1b", "\r", "\x9b", "\u202e", "\u2066")
"""What no output may hold raw."""


@pytest.fixture
def hostile_file(tmp_path: Path) -> Path:
    folder = tmp_path / "a%b:c,d\x1b[2J\ne"
    folder.mkdir()
    # A line of its own in a CI log would be a GitHub workflow command of its own.
    path = folder / "w%1:2,3\x1b[2J\n::error file=forged.py,line=1::forged\u2066.wf.toml"
    text = textwrap.dedent(
        f"""\
        name = "hostile"
        start = {json.dumps(HOSTILE)}
        outcomes = ["ok"]
        edges = [{{ from = {json.dumps(HOSTILE)}, outcome = "nope", to = "__end__" }}]

        [[nodes]]
        id = {json.dumps(HOSTILE)}
        type = "join"
        input = "\x1b[2J"
        """
    )
    path.write_text(text)
    return path


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_every_format_escapes_the_authors_text(
    fmt: str, hostile_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "--format", fmt, str(hostile_file)]) == 1
    out, err = capsys.readouterr()
    for stream in (out, err):
        assert not [raw for raw in RAW if raw in stream]
    if fmt == "text":
        lines = out.splitlines()
        assert "\\x1b[2J" in lines[0] and "\\u202e" in lines[0]  # shown, not obeyed
        # Each finding's line starts with its file; the others (excerpt, caret, notes)
        # are indented: a name's newline starts no line of its own.
        shown = str(hostile_file).replace("\x1b", "\\x1b").replace("\n", "\\n")
        shown = shown.replace("\u2066", "\\u2066")
        assert all(line.startswith((shown, " ")) for line in lines), lines
    elif fmt in ("json", "sarif"):
        data = json.loads(out)  # valid, and the text survives the round trip
        if fmt == "json":
            assert {f["file"] for f in data} == {str(hostile_file)}
            assert any(HOSTILE in f["message"] or repr(HOSTILE) in f["message"] for f in data)
        else:
            uri = data["runs"][0]["results"][0]["locations"][0]["physicalLocation"][
                "artifactLocation"
            ]["uri"]
            assert "%1B" in uri and "%0A" in uri and "\n" not in uri
    else:
        lines = out.splitlines()
        assert lines and all(
            line.startswith(("::error ", "::warning ", "::notice ")) for line in lines
        )
        for line in lines:
            properties, message = line.split("::", 2)[1:]
            fields = dict(item.split("=", 1) for item in properties.split(" ", 1)[1].split(","))
            assert set(fields) == {"file", "line", "col", "endLine", "endColumn", "title"}
            assert ":" not in fields["file"] and "," not in fields["file"]
            assert "%3A" in fields["file"] and "%2C" in fields["file"] and "%25" in fields["file"]
            assert "\n" not in message


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_a_file_name_that_is_not_utf8_is_printed_escaped(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its undecodable byte is a lone surrogate in Python (which no output can encode),
    shown escaped as the rest."""
    os.mkdir(tmp_path / "in")
    with open(os.fsencode(tmp_path / "in") + b"/bad\xff.wf.toml", "wb") as file:
        file.write(b'name = "bad"\n')
    assert main(["check", "--format", fmt, str(tmp_path / "in")]) == 1
    out, err = capsys.readouterr()
    out.encode("utf-8"), err.encode("utf-8")  # printable
    # SARIF's location is a URI: the byte itself, percent-encoded.
    assert ("bad%FF.wf.toml" if fmt == "sarif" else "bad\\udcff.wf.toml") in out


@pytest.mark.parametrize(
    ("line", "code", "underlined"),
    [
        ('name = "a\x1bb"', "syntax_error", "\\x1b"),
        ('start = "a\u202eb"', "unknown_start", '"a\\u202eb"'),
    ],
)
def test_the_caret_is_under_an_escaped_character(
    line: str, code: str, underlined: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "w.wf.toml"
    path.write_text(f"{line}\n")
    main(["check", str(path)])
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, text in enumerate(lines) if f"[{code}]" in text)
    excerpt, caret = lines[at + 1], lines[at + 2]
    start = caret.index("^")
    assert excerpt[start : len(caret)] == underlined


def test_context_escapes_the_node_and_its_paths(
    hostile_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["context", str(hostile_file), HOSTILE]) == 0
    out = capsys.readouterr().out
    assert not [raw for raw in RAW if raw in out]
    assert out.splitlines()[0] == "node: x\\x1b[2J%:,\\ny\\u202ez\\x9b"
    assert main(["context", str(hostile_file), HOSTILE, "--json"]) == 0
    out = capsys.readouterr().out
    assert not [raw for raw in RAW if raw in out]
    assert json.loads(out)["node"] == HOSTILE  # escaped as JSON: the same value
    assert main(["context", str(hostile_file), HOSTILE + "\u202e"]) == 1
    err = capsys.readouterr().err
    assert not [raw for raw in RAW if raw in err] and len(err.splitlines()) == 1


def test_github_escaping_follows_the_workflow_command_rules() -> None:
    from wfls.cli.reporting import Finding, Position

    finding = Finding(
        file="a:b,c%d\r\ne",
        start=Position(1, 2),
        end=Position(3, 4),
        severity="warning",
        code="unknown_key",
        model_path=None,
        message="50% off:\r\nnow, \x1b[2J",
    )
    assert render_github([finding]) == (
        "::warning file=a%3Ab%2Cc%25d%0D%0Ae,line=1,col=2,endLine=3,endColumn=4,"
        "title=unknown_key::50%25 off:%0D%0Anow, \\x1b[2J\n"
    )
