"""The diagnostic code reference (``wf_core.validation.codes``) against the checker itself.

Every code has an entry, every example document produces its code with the
documented message and severity, and ``docs/diagnostics.md`` is the rendered
registry.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from wf_core.base.issues import ProjectCode, Severity
from wf_core.validation.codes import CODES, READ_ERROR, render_markdown
from wf_core.validation.report import ValidationIssueCode
from wf_core.version.snapshot import analyze_text
from wf_core.workspace.catalog import Workspace
from wf_core.workspace.checks import document_issues
from wf_core.workspace.files import Roots
from wfls.cli import main

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs" / "diagnostics.md"
REGENERATE = "python -m wf_core.validation.codes > docs/diagnostics.md"

ALL_CODES = [
    *(code.value for code in ValidationIssueCode),
    *(code.value for code in ProjectCode),
    READ_ERROR,
]
ANALYZED = [code for code, info in CODES.items() if info.analyzed]
COMPANIONS = {ProjectCode.REGION_BREAKING_EDGE.value: {ValidationIssueCode.FOREACH_REGION_CONFLICT}}
"""Errors an example cannot avoid: a region-breaking edge always comes with its conflict."""


def test_every_code_has_an_entry_in_declaration_order() -> None:
    assert list(CODES) == ALL_CODES


@pytest.mark.parametrize("code", ALL_CODES)
def test_entry_is_complete(code: str) -> None:
    info = CODES[code]
    assert info.code == code
    lda_wf = code in {c.value for c in ValidationIssueCode}
    assert info.origin == ("lda-wf" if lda_wf else "wfls")
    if lda_wf:
        assert info.severity == Severity.ERROR
    assert info.title and info.trigger and info.fix and info.message
    if info.example is None:
        # Only codes lda-wf makes unreachable lack an example, and the one a bug gives.
        assert info.origin == "lda-wf" or code == ProjectCode.INTERNAL_ERROR, code
    else:
        assert info.example.endswith("\n") and not info.example.startswith("\n")


@pytest.mark.parametrize("code", ANALYZED)
def test_example_produces_its_code_and_message(code: str) -> None:
    info = CODES[code]
    assert info.example is not None
    issues = analyze_text(info.example, "toml").issues
    found = [p for p in issues if p.code == code]
    assert found, f"the example of {code!r} does not produce it: {issues}"
    messages = [p.message for p in found]
    assert info.message in messages
    (placed,) = (p for p in found if p.message == info.message)
    assert placed.severity == info.severity
    # One mistake: nothing else in the example is an error.
    allowed = {code, *COMPANIONS.get(code, ())}
    others = [(p.code, p.message) for p in issues if p.severity == Severity.ERROR]
    assert all(p.code in allowed for p in issues if p.severity == Severity.ERROR), others


WORKSPACE = [code for code, info in CODES.items() if info.example_syntax == "workspace"]


@pytest.mark.parametrize("code", WORKSPACE)
def test_workspace_example_produces_its_code(code: str, tmp_path: Path) -> None:
    info = CODES[code]
    for name, text in info.workspace_files().items():
        (tmp_path / name).write_text(text)
    workspace = Workspace(Roots([tmp_path]))
    assert workspace.scan().skipped == []
    found = [
        p
        for document in workspace.documents()
        for p in document_issues(workspace, document.uri)
        if p.code == code
    ]
    assert info.message in [p.message for p in found]
    assert all(p.severity == info.severity for p in found)


def test_read_error_example(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = CODES[READ_ERROR]
    assert info.example_syntax == "shell" and not info.analyzed and info.example is not None
    argv = shlex.split(info.example)
    assert argv[0] == "wfls"
    monkeypatch.chdir(tmp_path)
    status = main(argv[1:])
    err = capsys.readouterr().err
    assert status == 2
    assert info.message in err.splitlines()


def test_docs_are_the_rendered_registry() -> None:
    expected = render_markdown()
    actual = DOCS.read_text(encoding="utf-8") if DOCS.exists() else ""
    assert actual == expected, f"docs/diagnostics.md is out of date; regenerate it: {REGENERATE}"


def test_docs_list_every_code_once() -> None:
    text = render_markdown()
    for code in ALL_CODES:
        assert text.count(f"\n### `{code}`\n") == 1, code


def test_module_entry_point_prints_the_docs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "wf_core.validation.codes"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout == render_markdown()
