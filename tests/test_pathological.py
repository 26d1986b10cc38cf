"""Pathological documents: a clear diagnostic or an empty answer, never a crash or a hang.

Each case is built by ``wf_core.authoring.generate_pathological`` (``bench/pathological.py``
runs the same cases at full size in fresh processes and measures time and
memory) and goes through what the server does with an opened document:
analysis, the workspace findings, the semantic index, completion and hover at a
few points, document symbols, semantic tokens, folding ranges and inlay hints;
a folder goes through the workspace scan and ``wfls check``. The assertions are
about outcomes; the only clock is a generous alarm that turns a hang into a
failure.

Sizes: every case runs at its full size except two that would make ``make
test`` slow without reaching new code: the 20 MB document and the 100,000-node
one run here as generated workflows of 1,000 and 2,000 nodes (the same
generator, the same front-end and analysis paths; the benchmark runs the full
sizes).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from wf_core.authoring.generate_pathological import GOOD, build
from wf_core.runtime import execute_workflow, stand_in_handlers
from wf_core.runtime.errors import WorkflowRefused
from wf_core.version.snapshot import DocumentSnapshot, analyze_text
from wf_core.workspace.catalog import Workspace
from wf_core.workspace.checks import document_issues
from wf_core.workspace.files import Roots
from wfls.cli import main
from wfls.exercise import feature_figures
from wfls.features.symbols import MAX_OUTLINE_DEPTH

ROOT = Path(__file__).resolve().parent.parent

HANG_SECONDS = 120
"""Far above any case's time: only a hang reaches it."""


@contextmanager
def no_hang(seconds: int = HANG_SECONDS) -> Iterator[None]:
    """Fail instead of hanging (``re`` and Python code both see the alarm)."""

    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"still running after {seconds} s: a hang")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run(name: str) -> dict[str, Any]:
    """Case ``name`` at the tests' size, opened as the server opens a document: its
    findings, the outline's shape, and what the main features answer at the case's
    cursors and at both ends of the text; with the run, for a case that has an input."""
    case = build(name, full=False)
    with no_hang():
        uri = f"file:///patho.wf.{case.syntax}"
        snapshot = analyze_text(case.text, case.syntax, uri=uri)
        workspace = Workspace(Roots([]))
        workspace.put(uri, snapshot)
        issues = document_issues(workspace, uri)
        return {
            "codes": [p.code for p in issues],
            "messages": sorted({p.message for p in issues if p.severity.value == "error"}),
            **feature_figures(snapshot, workspace, case.cursors),
            "run": None if case.run_input is None else run_workflow(snapshot, case.run_input),
            **case.notes,
        }


def run_workflow(snapshot: DocumentSnapshot, run_input: Any) -> str:
    """How a run of the document's workflow with stand-ins ends, or why it is refused."""
    assert snapshot.workflow is not None
    try:
        result = execute_workflow(
            snapshot.workflow, run_input, stand_in_handlers(snapshot.workflow)
        )
    except WorkflowRefused as refused:
        return f"refused: {refused}"
    return f"{result.status}: {result.error or result.outcome}"


def scan_and_check(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """Folder case ``name``, as the workspace index scans it and ``wfls check --format json``
    reports it."""
    make_folder = build(name, full=False).make_folder
    assert make_folder is not None
    folder = tmp_path / "ws"
    folder.mkdir()
    make_folder(folder)
    with no_hang():
        workspace = Workspace(Roots([folder]))
        scan = workspace.scan()
        indexed = sorted(
            (Path(d.path or "").name, [p.code for p in document_issues(workspace, d.uri)])
            for d in workspace.documents()
        )
        status = main(["check", "--format", "json", str(folder)])
    out, err = capsys.readouterr()
    return {
        "skipped": sorted((s.path.name, s.reason) for s in scan.skipped),
        "indexed": indexed,
        "check_status": status,
        "check": [(Path(f["file"]).name, f["code"]) for f in json.loads(out)],
        "check_stderr": err.replace(str(tmp_path), "<tmp>").splitlines(),
    }


def errors(result: dict[str, Any]) -> list[str]:
    return result["messages"]


# -- deep nesting --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "json_deep_arrays",
        "json_deep_objects",
        "json_deep_unclosed",
        "toml_deep_arrays",
        "toml_deep_inline_tables",
        "toml_deep_dotted_key",
        "toml_deep_table_header",
    ],
)
def test_deep_nesting_is_one_syntax_error_and_the_rest_still_works(name: str) -> None:
    result = run(name)
    assert result["codes"] == ["syntax_error"]
    assert errors(result) == ["nesting is too deep"]
    # The workflow around the deep value is still analysed: its node and node def are
    # in the outline, its names are highlighted.
    assert result["symbols"] == 2
    assert result["tokens"] > 0


def test_deep_nesting_with_wfls_check_in_a_process(tmp_path: Path) -> None:
    """The command line, as CI runs it: exit 1 with the one error, no traceback."""
    for name, suffix in (("json_deep_objects", "json"), ("toml_deep_arrays", "toml")):
        (tmp_path / suffix).mkdir()
        path = tmp_path / suffix / f"deep.wf.{suffix}"
        path.write_text(build(name).text)
        done = check_in_process(path)
        assert done.returncode == 1, done.stderr
        assert [(f["code"], f["message"]) for f in json.loads(done.stdout)] == [
            ("syntax_error", "nesting is too deep")
        ]
        assert "Traceback" not in done.stderr


def check_in_process(*paths: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "server"), str(ROOT)])}
    return subprocess.run(
        [sys.executable, "-m", "wfls", "check", "--format", "json", *map(str, paths)],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_SECONDS,
        check=False,
    )


# -- size ----------------------------------------------------------------------------------


def test_a_megabyte_on_one_line() -> None:
    result = run("json_long_line")
    assert result["bytes"] > 900_000
    assert errors(result) == []
    # The generated workflow reads loop aliases: hints, and nothing else.
    assert set(result["codes"]) == {"deprecated_context_key"}
    assert result["completions"][0] > 0 and result["hovers"][0] is not None


def test_long_toml_lines_are_read_in_linear_time() -> None:
    """A comment line and an unclosed one-line array of 200 KB each. The outcome is
    asserted here; the time is the bench's (1 MB each): before the reader stopped
    searching back for the line start at every element, a 1 MB array took 12 s and a
    5 MB one 226 s."""
    result = run("toml_long_line")
    assert result["bytes"] > 400_000
    assert errors(result) == ["array is not closed"]
    assert result["completions"][0] >= 0 and result["symbols"] >= 1


@pytest.mark.parametrize(("name", "nodes"), [("document_20mb", 1_000), ("nodes_100k", 2_000)])
def test_large_generated_documents(name: str, nodes: int) -> None:
    """The same path as the 20 MB and 100,000-node documents, at a size for ``make test``."""
    result = run(name)
    assert result["nodes"] == nodes
    assert errors(result) == []
    assert result["symbols"] >= nodes // 10 and result["tokens"] > nodes * 5
    assert result["completions"][0] > 0 and result["hovers"][0] is not None


def test_ten_thousand_duplicate_ids() -> None:
    result = run("duplicate_ids")
    assert result["codes"] == ["duplicate_node_id"] * (result["ids"] - 1)
    assert errors(result) == ["duplicate node id 'same'"]
    assert result["symbols"] == result["ids"]


def test_a_node_id_of_100k_characters() -> None:
    result = run("long_id")
    assert result["codes"] == []
    assert result["hovers"][0] is not None and result["hovers"][0] > 100_000


# -- paths and schemas ---------------------------------------------------------------------


def test_a_path_of_10k_segments_through_a_recursive_schema() -> None:
    result = run("path_10k_segments")
    assert result["codes"] == []
    assert all(size is not None for size in result["hovers"][:3])  # every segment resolves
    assert result["tokens"] > 10_000  # each segment is highlighted


def test_a_ref_cycle_declares_nothing_and_ends() -> None:
    result = run("ref_cycle")
    assert errors(result) == []
    assert result["codes"] == ["undeclared_property"]


def test_a_chain_of_1000_refs_resolves_to_its_end() -> None:
    result = run("ref_chain")
    assert result["codes"] == []
    assert result["completions"][0] == 1  # 'leaf', found at the end of the chain
    assert result["hovers"][0] is not None


def test_a_schema_of_10k_properties() -> None:
    result = run("schema_10k_properties")
    assert result["codes"] == []
    assert result["completions"][0] == 10_000


def test_1000_nested_loops_analyse_and_the_outline_stays_shallow() -> None:
    result = run("foreach_1000_deep")
    assert result["codes"] == []
    assert result["hovers"][0] is not None
    # The 32nd loop holds the deeper ones, flat; every node is in the outline once.
    assert result["outline_depth"] == MAX_OUTLINE_DEPTH + 1
    assert result["outline_kinds"]["Namespace"] == 1_000  # the loops
    assert result["outline_kinds"]["Function"] == 1  # the task in the innermost loop


# -- regular expressions -------------------------------------------------------------------


def test_a_backtracking_pattern_is_matched_in_linear_time() -> None:
    result = run("regex_backtracking")
    assert result["codes"] == []  # the pattern itself is fine
    assert result["run"].startswith(
        "refused: cannot run: the input does not match the input_schema of workflow 'patho': "
        "s: 'aaaa"
    )
    assert "(100,001 characters) does not match '^(a+)+$'" in result["run"]


# -- on disk -------------------------------------------------------------------------------


def test_non_utf8_bytes_on_disk(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = scan_and_check("disk_non_utf8", tmp_path, capsys)
    assert result["indexed"] == [("latin1.wf.toml", ["syntax_error"])]
    assert result["check"] == [("latin1.wf.toml", "syntax_error")]
    assert result["check_status"] == 1


@pytest.mark.parametrize(
    ("name", "skipped", "reason"),
    [
        ("disk_fifo", ["pipe.wf.toml"], "it is not a regular file"),
        ("disk_directory_named_like_a_document", ["x.wf.toml"], "it is not a regular file"),
        (
            "disk_symlink_loop",
            ["a.wf.json", "b.wf.json", "loop.wf.toml"],
            "it is a symlink loop",
        ),
    ],
)
def test_things_that_are_not_documents_are_skipped_with_a_reason(
    name: str,
    skipped: list[str],
    reason: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = scan_and_check(name, tmp_path, capsys)
    assert result["skipped"] == [(file, reason) for file in skipped]
    assert result["indexed"] == [("good.wf.toml", [])]
    assert (result["check_status"], result["check"]) == (0, [])
    assert result["check_stderr"] == [
        f"wfls: skipped '<tmp>/ws/{file}': {reason}" for file in skipped
    ]


def test_a_symlink_loop_and_a_fifo_named_on_the_command_line(tmp_path: Path, capsys) -> None:
    (tmp_path / "loop.wf.toml").symlink_to(tmp_path / "loop.wf.toml")
    os.mkfifo(tmp_path / "pipe.wf.toml")
    with no_hang(30):
        code = main(["check", str(tmp_path / "loop.wf.toml"), str(tmp_path / "pipe.wf.toml")])
    assert code == 2
    assert capsys.readouterr().err.splitlines() == [
        f"wfls: cannot read {str(tmp_path / 'loop.wf.toml')!r}: a symlink loop",
        f"wfls: cannot read {str(tmp_path / 'pipe.wf.toml')!r}: not a regular file",
    ]


def test_a_folder_with_every_disk_case_in_a_process(tmp_path: Path) -> None:
    for name in (
        "disk_non_utf8",
        "disk_fifo",
        "disk_directory_named_like_a_document",
        "disk_symlink_loop",
    ):
        make_folder = build(name).make_folder
        assert make_folder is not None
        make_folder(tmp_path)
    done = check_in_process(tmp_path)
    assert done.returncode == 1, done.stderr
    assert [(Path(f["file"]).name, f["code"]) for f in json.loads(done.stdout)] == [
        ("latin1.wf.toml", "syntax_error")
    ]
    assert "Traceback" not in done.stderr


def test_a_path_that_became_a_fifo_is_not_waited_on(tmp_path: Path) -> None:
    """Between the scan's check and the read, a document may be replaced by a FIFO: the
    reader opens without blocking and checks again (a blocking open would never return)."""
    from wf_core.workspace.files import read_document

    os.mkfifo(tmp_path / "raced.wf.toml")
    with no_hang(30):
        assert read_document(tmp_path / "raced.wf.toml") == "it is not a regular file"


def _position(text: str, offset: int) -> dict[str, int]:
    line_start = text.rfind("\n", 0, offset) + 1
    return {"line": text.count("\n", 0, offset), "character": offset - line_start}


def _pushed(client: Any, uri: str) -> dict[str, Any]:
    """The latest diagnostics pushed for ``uri``, waiting for the first (the client's
    deadline applies)."""
    end = time.monotonic() + HANG_SECONDS
    while time.monotonic() < end:
        pushed = [
            message["params"]
            for message in client.received
            if message.get("method") == "textDocument/publishDiagnostics"
            and message["params"]["uri"] == uri
        ]
        if pushed:
            return pushed[-1]
        client.drain(1.0)
    raise AssertionError(f"no diagnostics for {uri} within {HANG_SECONDS} s")


def test_the_server_answers_every_request_on_pathological_documents(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Over stdio, as an editor sees it: each document's diagnostics are pushed and every
    request gets a result (the outline of 1,000 nested loops must also survive the
    protocol's JSON encoding); no request errs, the server exits cleanly."""
    from tests.lsp import rawclient

    monkeypatch.setattr(rawclient, "DEADLINE", float(HANG_SECONDS))
    expected = {
        "json_deep_objects": ["syntax_error"],
        "toml_deep_dotted_key": ["syntax_error"],
        "foreach_1000_deep": [],
        "path_10k_segments": [],
        "long_id": [],
    }
    client, process = rawclient.RawClient.stdio()
    try:
        client.initialize()
        ids = iter(range(2, 1_000))
        for name, codes in expected.items():
            case = build(name)
            text = case.text.replace('"patho"', f'"{name}"', 1)  # one workflow name each
            uri = f"file:///patho/{name}.wf.{case.syntax}"
            document = {"uri": uri, "languageId": case.syntax, "version": 1, "text": text}
            client.send({"method": "textDocument/didOpen", "params": {"textDocument": document}})
            where = {"textDocument": {"uri": uri}}
            shift = len(text) - len(case.text)
            at = {**where, "position": _position(text, case.cursors[0] + shift)}
            for method, params in (
                ("textDocument/documentSymbol", where),
                ("textDocument/semanticTokens/full", where),
                ("textDocument/foldingRange", where),
                ("textDocument/hover", at),
                ("textDocument/completion", at),
            ):
                reply = client.request(next(ids), method, params)
                assert "error" not in reply, (name, method, reply.get("error"))
                assert "result" in reply
            assert [d["code"] for d in _pushed(client, uri)["diagnostics"]] == codes, name
        assert client.request(next(ids), "shutdown")["result"] is None
        client.send({"method": "exit"})
        assert process.wait(timeout=30) == 0
        assert process.stderr is not None and b"Traceback" not in process.stderr.read()
    finally:
        process.kill()


def test_a_run_time_value_nested_1000_deep_is_refused_not_a_crash() -> None:
    snapshot = analyze_text(GOOD, "toml")
    assert snapshot.workflow is not None
    deep: list[Any] = []
    for _ in range(1_000):
        deep = [deep]
    with no_hang(), pytest.raises(WorkflowRefused) as refused:
        execute_workflow(snapshot.workflow, {"x": deep}, stand_in_handlers(snapshot.workflow))
    assert "the input nests deeper than 200 levels" in str(refused.value)


def test_a_schema_check_that_runs_out_of_stack_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """jsonschema descends recursively; where the stack is short (a deep caller, a worker
    thread), a deep value is refused with a reason instead of raising RecursionError."""
    from wf_core.runtime.contracts import compile_schema

    tree = {"$defs": {"t": {"type": "array", "items": {"$ref": "#/$defs/t"}}}, "$ref": "#/$defs/t"}
    value: list[Any] = []
    for _ in range(199):
        value = [value]
    check = compile_schema(tree)
    assert check.problem(value) is None  # within the limit, on a normal stack
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(250)
        problem = check.problem(value)
    finally:
        sys.setrecursionlimit(limit)
    assert problem == "the value nests too deeply to be checked against the schema"


def test_deeply_nested_json_files_given_to_wfls_run(tmp_path: Path, capsys) -> None:
    """The input, an answer or a saved run nested 100,000 deep: one line, exit 2."""
    from wf_core.runtime.errors import WorkflowExecutionError
    from wf_core.runtime.state import load

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    billing = ROOT / "examples" / "billing.wf.toml"
    with no_hang():
        assert main(["run", str(billing), "--input", str(deep)]) == 2
    assert capsys.readouterr().err == f"wfls: input '{deep}' nests too deeply to be read\n"
    with pytest.raises(WorkflowExecutionError, match="invalid run state: it nests too deeply"):
        load(deep.read_text())
