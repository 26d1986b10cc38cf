"""``wfls fmt``: in place (atomically, the mode kept), ``--check``, ``--diff``, standard
input, and a document with a syntax error left untouched and reported where."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest

from wfls.cli import main

MESSY = """\
start = "a"
name = "w"
[[nodes]]
type = "join"
id = "a"
"""
FORMATTED = """\
name = "w"
start = "a"

[[nodes]]
id = "a"
type = "join"
"""
BROKEN = 'name = "w"\nnodes = [\n'


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["fmt", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "messy.wf.toml").write_text(MESSY, encoding="utf-8")
    (tmp_path / "tidy.wf.toml").write_text(FORMATTED, encoding="utf-8")
    os.chmod(tmp_path / "messy.wf.toml", 0o640)
    return tmp_path


def test_in_place_rewrites_only_what_changes_keeping_the_mode(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, str(folder))
    assert (code, out) == (0, "")
    assert err == f"formatted {folder / 'messy.wf.toml'}\n"
    assert (folder / "messy.wf.toml").read_text(encoding="utf-8") == FORMATTED
    assert (folder / "messy.wf.toml").stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in folder.iterdir()) == ["messy.wf.toml", "tidy.wf.toml"]
    assert run(capsys, "--check", str(folder)) == (0, "", "")


def test_check_lists_what_would_change_and_changes_nothing(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "--check", str(folder)) == (1, f"{folder / 'messy.wf.toml'}\n", "")
    assert (folder / "messy.wf.toml").read_text(encoding="utf-8") == MESSY


def test_diff_prints_a_unified_diff(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = str(folder / "messy.wf.toml")
    code, out, err = run(capsys, "--diff", name)
    assert (code, err) == (1, "")
    assert out == (
        f"--- {name}\n+++ {name}\n@@ -1,5 +1,6 @@\n"
        '+name = "w"\n start = "a"\n-name = "w"\n+\n [[nodes]]\n+id = "a"\n type = "join"\n'
        '-id = "a"\n'
    )
    assert (folder / "messy.wf.toml").read_text(encoding="utf-8") == MESSY


def test_standard_input_to_standard_output(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(MESSY.encode())))
    assert run(capsys, "-") == (0, FORMATTED, "")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"start":"a","name":"w"}')))
    assert run(capsys, "--stdin-filename", "w.wf.json", "-") == (
        0,
        '{\n  "name": "w",\n  "start": "a"\n}\n',
        "",
    )


def test_a_syntax_error_leaves_the_file_untouched_and_says_where(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = folder / "broken.wf.toml"
    broken.write_text(BROKEN, encoding="utf-8")
    code, out, err = run(capsys, str(folder))
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"{broken}:2:9: error: array is not closed (not formatted)",
        f"formatted {folder / 'messy.wf.toml'}",
    ]
    assert broken.read_text(encoding="utf-8") == BROKEN


def test_a_missing_path_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.wf.toml"
    assert run(capsys, str(missing)) == (
        2,
        "",
        f"wfls: cannot read '{missing}': no such file or directory\n",
    )


def test_width_and_indent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = tmp_path / "w.wf.json"
    document.write_text('{"name": "w", "outcomes": ["ok", "failed"]}', encoding="utf-8")
    assert run(capsys, "--width", "20", "--indent", "4", str(document))[0] == 0
    assert document.read_text(encoding="utf-8") == (
        '{\n    "name": "w",\n    "outcomes": [\n        "ok",\n        "failed"\n    ]\n}\n'
    )
