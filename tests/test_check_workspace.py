"""Where ``wfls check`` looks for subgraph children, through the command line.

The rule: with ``--root DIR``, every document checked (files, folders' files, standard
input) resolves its subgraphs among the documents under ``DIR`` and the documents
checked; a file outside ``DIR`` is checked all the same. Without it, the workspace is
the folder of each file named, each folder named and, for ``-``, the current folder.
A duplicate workflow name is an error where a subgraph calls that name, a warning
otherwise; the summary line counts information and hints apart.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from wf_core.validation.codes import CODES
from wf_core.workspace.catalog import Workspace
from wf_core.workspace.checks import document_issues
from wf_core.workspace.files import Roots
from wfls.cli import build_parser, main

CHILD = """\
name = "billing"
start = "end"
outcomes = ["ok"]
edges = []

[input_schema]
type = "object"
required = ["tag"]
properties.tag = { type = "string" }

[[nodes]]
id = "end"
type = "end"
"""

CALLER = """\
name = "caller"
start = "call"
outcomes = ["ok"]
edges = [{ from = "call", outcome = "ok", to = "__end__" }]

[[nodes]]
id = "call"
type = "subgraph"
workflow = { name = "billing" }
input = [{ target = "tag", value = "x" }]
"""

DUPLICATE = "another workflow document is also named 'billing'"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def check_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict], str]:
    code, out, err = check(capsys, "--format", "json", *argv)
    return code, json.loads(out), err


def codes(found: list[dict]) -> list[tuple[str, str]]:
    return [(f["severity"], f["code"]) for f in found]


def stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))


# -- a file and its folder ------------------------------------------------------------


def test_a_file_alone_in_its_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "billing.wf.toml", CHILD)
    monkeypatch.chdir(tmp_path)
    assert check(capsys, "billing.wf.toml") == (
        0,
        "",
        "1 file(s) checked: 0 error(s), 0 warning(s)\n",
    )


def test_a_backup_copy_in_a_subfolder_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "billing.wf.toml", CHILD)
    backup = write(tmp_path / "old" / "billing.wf.toml", CHILD).resolve()
    monkeypatch.chdir(tmp_path)
    code, out, err = check(capsys, "billing.wf.toml")
    assert code == 0
    # The finding and its note name the same columns: the whole string, quotes included.
    assert (
        out.splitlines()[0] == f"billing.wf.toml:1:8: warning[duplicate_workflow_name]: {DUPLICATE}"
    )
    assert f"  = note: also named 'billing' here ({backup}:1:8)" in out.splitlines()
    assert err == "1 file(s) checked: 0 error(s), 1 warning(s)\n"
    assert check(capsys, "--strict", "billing.wf.toml")[0] == 1


def test_the_duplicate_and_its_note_agree_in_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "billing.wf.toml", CHILD)
    backup = write(tmp_path / "old" / "billing.wf.toml", CHILD).resolve()
    code, found, _ = check_json(capsys, str(tmp_path / "billing.wf.toml"))
    assert code == 0
    (finding,) = found
    (related,) = finding["related"]
    assert (finding["severity"], finding["code"]) == ("warning", "duplicate_workflow_name")
    assert (related["start"], related["end"]) == (finding["start"], finding["end"])
    assert related["file"] == str(backup)
    code, out, _ = check(capsys, "--format", "sarif", str(tmp_path / "billing.wf.toml"))
    (result,) = json.loads(out)["runs"][0]["results"]
    (place,) = result["relatedLocations"]
    assert place["physicalLocation"]["artifactLocation"]["uri"] == backup.as_uri()


def test_the_duplicates_note_covers_what_the_finding_covers_in_the_editor(
    tmp_path: Path,
) -> None:
    """The editor's relatedInformation is made of the same spans: in both documents
    the finding and the note cover the same text."""
    write(tmp_path / "one.wf.toml", CHILD)
    write(tmp_path / "two.wf.toml", "# a copy\n\n" + CHILD)
    workspace = Workspace(Roots([tmp_path]))
    workspace.scan()
    texts = {d.uri: d.snapshot.text for d in workspace.documents()}
    for document in workspace.documents():
        (issue,) = document_issues(workspace, document.uri)
        (note,) = issue.related
        assert note.uri is not None and note.span is not None
        covered = texts[document.uri][issue.span.start : issue.span.end]
        assert covered == texts[note.uri][note.span.start : note.span.end] == '"billing"'


def test_a_duplicate_a_subgraph_calls_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "billing.wf.toml", CHILD)
    write(tmp_path / "old" / "billing.wf.toml", CHILD)
    write(tmp_path / "caller.wf.toml", CALLER)
    monkeypatch.chdir(tmp_path)
    code, out, err = check(capsys, "billing.wf.toml")
    assert code == 1
    assert (
        out.splitlines()[0] == f"billing.wf.toml:1:8: error[duplicate_workflow_name]: {DUPLICATE}"
    )
    caller = (tmp_path / "caller.wf.toml").resolve()
    note = "  = note: subgraph 'call' calls 'billing' here: which one it runs is ambiguous"
    assert f"{note} ({caller}:9:21)" in out.splitlines()
    assert err == "1 file(s) checked: 1 error(s), 0 warning(s)\n"


# -- standard input ------------------------------------------------------------------


def test_stdin_resolves_its_children_under_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = tmp_path / "ws"
    write(workspace / "billing.wf.toml", CHILD)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    stdin(monkeypatch, CALLER)
    argv = ("-", "--stdin-filename", "caller.wf.toml", "--root", str(workspace))
    assert check_json(capsys, *argv)[:2] == (0, [])
    # Without --root, the current folder is the workspace: the child is not there.
    stdin(monkeypatch, CALLER)
    code, found, _ = check_json(capsys, "-", "--stdin-filename", "caller.wf.toml")
    assert code == 1
    assert ("error", "unknown_subgraph") in codes(found)


def test_stdin_resolves_its_children_in_the_current_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "billing.wf.toml", CHILD)
    write(tmp_path / "lib" / "other.wf.toml", CHILD.replace('"billing"', '"other"'))
    monkeypatch.chdir(tmp_path)
    # The child is found: it requires the input this caller does not bind.
    unbound = CALLER.replace('input = [{ target = "tag", value = "x" }]\n', "")
    stdin(monkeypatch, unbound)
    code, found, _ = check_json(capsys, "-", "--stdin-filename", "caller.wf.toml")
    assert (code, codes(found)) == (1, [("error", "subgraph_binding")])
    stdin(monkeypatch, unbound.replace('name = "billing"', 'name = "other"'))
    code, found, _ = check_json(capsys, "-")  # and below it
    assert (code, codes(found)) == (1, [("error", "subgraph_binding")])


def test_stdin_takes_the_place_of_the_file_it_is_named_after(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As an editor's unsaved text does: the file on disk is not a second 'billing'."""
    write(tmp_path / "billing.wf.toml", CHILD)
    write(tmp_path / "caller.wf.toml", CALLER)
    monkeypatch.chdir(tmp_path)
    edited = CHILD.replace('required = ["tag"]', 'required = ["tag", "more"]')
    stdin(monkeypatch, edited)
    code, found, _ = check_json(capsys, "-", "--stdin-filename", "billing.wf.toml")
    assert (code, found) == (0, [])
    # The caller, checked beside it, sees the text read from standard input.
    stdin(monkeypatch, edited)
    argv = ("-", "caller.wf.toml", "--stdin-filename", "billing.wf.toml")
    code, found, _ = check_json(capsys, *argv)
    assert code == 1
    assert [(f["file"], f["code"]) for f in found] == [("caller.wf.toml", "subgraph_binding")]


# -- a file whose analysis fails ---------------------------------------------------------


@pytest.mark.parametrize("stage", ["parse", "findings"])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_file_whose_analysis_fails_is_one_finding_and_the_others_are_checked(
    stage: str,
    fmt: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bug of the analysis (while the folder is scanned, or while the file's findings
    are made) loses nothing of the other files: the file's one finding says so."""
    import wf_core.workspace.catalog
    import wfls.cli.check

    broken = write(tmp_path / "broken.wf.json", '{"name": "broken"}')
    write(tmp_path / "caller.wf.toml", CALLER)  # its child is missing: unknown_subgraph
    if stage == "parse":
        analyse = wf_core.workspace.catalog.analyze_text

        def parse(text: str, syntax: Any, **kwargs: Any) -> Any:
            if kwargs.get("uri") == broken.as_uri():
                raise RuntimeError("boom\nmore")
            return analyse(text, syntax, **kwargs)

        monkeypatch.setattr(wf_core.workspace.catalog, "analyze_text", parse)
    else:
        issues = wfls.cli.check.document_issues

        def findings(workspace: Workspace, uri: str) -> Any:
            if uri == broken.as_uri():
                raise RuntimeError("boom\nmore")
            return issues(workspace, uri)

        monkeypatch.setattr(wfls.cli.check, "document_issues", findings)
    code, out, err = check(capsys, "--format", fmt, str(tmp_path))
    assert code == 1
    message = (
        "wfls failed to analyse this document (RuntimeError: boom); its findings are missing: "
        "please report this bug"
    )
    if fmt == "json":
        found = [(Path(f["file"]).name, f["code"], f["message"]) for f in json.loads(out)]
        assert ("broken.wf.json", "internal_error", message) in found
        assert ("caller.wf.toml", "unknown_subgraph") in [f[:2] for f in found]
    else:
        assert f"{broken}:1:1: error[internal_error]: {message}\n" in out
        assert "caller.wf.toml:" in out and "[unknown_subgraph]" in out
        assert err.endswith("2 file(s) checked: 2 error(s), 0 warning(s)\n")
    assert err.count(f"wfls: the analysis of {str(broken)!r} failed:") == 1
    assert err.count("Traceback") == 1 and "RuntimeError: boom" in err


# -- a NUL byte ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("start.wf.toml", "\x00" + CHILD),
        ("string.wf.toml", CHILD.replace('"billing"', '"bil\x00ling"')),
        ("between.wf.json", '{"name": "billing",\x00 "start": "end"}'),
    ],
)
def test_a_nul_is_read_as_the_language_server_reads_it(
    name: str, text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A NUL byte is a character like any other for both, the syntax error where it
    stands: ``wfls check`` no longer refuses the file as binary."""
    from wfls.store import DocumentStore

    path = write(tmp_path / name, text)
    code, found, err = check_json(capsys, str(path))
    assert code == 1 and err == ""
    store = DocumentStore()
    store.open(path.resolve().as_uri(), text, 1)
    served = store.snapshot(path.resolve().as_uri())
    assert served is not None
    lines = text.split("\n")
    nul = next((n, line.index("\x00")) for n, line in enumerate(lines) if "\x00" in line)
    syntax = [
        (f["start"]["line"] - 1, f["start"]["column"] - 1)
        for f in found
        if f["code"] == "syntax_error"
    ]
    assert nul in syntax
    assert [(f["code"], f["message"]) for f in found] == [
        (p.code, p.message) for p in served.issues
    ]


# -- --root -----------------------------------------------------------------------------


def test_a_file_outside_root_is_checked_against_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = tmp_path / "ws"
    write(workspace / "billing.wf.toml", CHILD)
    outside = write(tmp_path / "outside" / "caller.wf.toml", CALLER)
    code, found, err = check_json(capsys, "--root", str(workspace), str(outside))
    assert (code, found, err) == (0, [], "")
    # Without --root, its own folder is its workspace: the child is not there.
    code, found, _ = check_json(capsys, str(outside))
    assert code == 1
    assert ("error", "unknown_subgraph") in codes(found)


def test_root_is_the_workspace_of_a_folder_checked_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = tmp_path / "ws"
    write(workspace / "billing.wf.toml", CHILD)
    write(tmp_path / "flows" / "caller.wf.toml", CALLER)
    argv = ("--root", str(workspace), str(tmp_path / "flows"))
    assert check_json(capsys, *argv) == (0, [], "")


def test_a_root_that_is_not_a_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = write(tmp_path / "billing.wf.toml", CHILD)
    missing = tmp_path / "missing"
    for root in (missing, file):
        assert check(capsys, "--root", str(root), str(file)) == (
            2,
            "",
            f"wfls: --root {str(root)!r} is not a folder\n",
        )


# -- the summary line and the help ------------------------------------------------------


def test_the_summary_counts_information_and_hints_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hint = CODES["deprecated_context_key"].example
    information = CODES["region_breaking_edge"].example
    assert hint is not None and information is not None
    write(tmp_path / "a.wf.toml", hint)
    write(tmp_path / "b.wf.toml", hint.replace('"greet_all"', '"greet_again"'))
    write(tmp_path / "c.wf.toml", information.replace('"greet_all"', '"greet_wrong"'))
    count = Counter(f["severity"] for f in check_json(capsys, str(tmp_path))[1])
    assert count["information"] == 1 and count["hint"] == 2
    code, _, err = check(capsys, str(tmp_path))
    assert code == 1
    assert err == (
        f"3 file(s) checked: {count['error']} error(s), {count['warning']} warning(s), "
        "1 information, 2 hints\n"
    )
    code, _, err = check(capsys, str(tmp_path / "a.wf.toml"))
    assert err == "1 file(s) checked: 0 error(s), 0 warning(s), 1 hint\n"


def _options(parser: argparse.ArgumentParser, prefix: str) -> list[tuple[str, str | None]]:
    """Every argument of ``parser`` and its subcommands, with its help text."""
    found: list[tuple[str, str | None]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                found.append((f"{prefix} {choice.dest}", choice.help))
            for name, sub in action.choices.items():
                found += _options(sub, f"{prefix} {name}")
        else:
            found.append(
                (f"{prefix} {'/'.join(action.option_strings) or action.dest}", action.help)
            )
    return found


def test_every_argument_of_every_command_has_help() -> None:
    missing = [name for name, text in _options(build_parser(), "wfls") if not text]
    assert missing == []


def test_check_help_lists_the_formats_and_the_workspace_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for words in ("text (default", "json", "sarif", "github"):
        assert words in text
    assert "outside DIR" in text and "current folder" in text
