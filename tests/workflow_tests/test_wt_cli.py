"""``wfls test``: exit statuses, the four formats, ``--case``, and ``wfls schema --test``;
the JUnit output is validated against the Ant JUnit report format (junit.xsd)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import xmlschema
from wt_support import HEADER, write_workspace

from wf_core.workflow_tests import read_test_document
from wfls.cli import main

EXAMPLES = Path(__file__).parents[2] / "examples"
JUNIT = xmlschema.XMLSchema(Path(__file__).with_name("junit.xsd"))

ANSWER = '[[case.interrupt]]\nnode = "ask"\nanswer = { ok = true }\noutcome = "yes"\n'
PASSING = HEADER + ANSWER + '[[case.expect]]\nstatus = "completed"\n'
FAILING = (
    HEADER.replace('name = "c"', 'name = "wrong total"')
    + ANSWER
    + '[[case.pin]]\nnode = "charge"\noutput = { amount = 2 }\n'
    + "[[case.expect]]\noutput = { total = 3 }\n"
)
UNKNOWN_NODE = HEADER + '[[case.pin]]\nnode = "charj"\n'


def _folder(tmp_path: Path, **documents: str) -> Path:
    write_workspace(tmp_path)
    for name, text in documents.items():
        (tmp_path / f"{name}.wf.test.toml").write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("documents", "status"),
    [
        ({"a": PASSING}, 0),
        ({"a": PASSING, "b": FAILING}, 1),
        ({"a": PASSING, "b": FAILING, "c": UNKNOWN_NODE}, 2),
        ({"a": 'workflow = "nowhere"\n'}, 2),
    ],
    ids=["passed", "failed", "unknown-node", "unknown-workflow"],
)
def test_exit_status(tmp_path: Path, documents: dict[str, str], status: int) -> None:
    assert main(["test", str(_folder(tmp_path, **documents))]) == status


def test_an_unreadable_path_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["test", str(tmp_path / "missing.wf.test.toml")]) == 2
    assert "cannot read" in capsys.readouterr().out


def test_no_path_runs_every_test_document_below_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _folder(tmp_path / "sub", a=PASSING)
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.wf.test.toml").write_text(FAILING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["test"]) == 0
    first, case, totals = capsys.readouterr().out.splitlines()
    assert (first, totals) == ("sub/a.wf.test.toml (orders)", "1 passed, 0 failed, 0 errors")
    assert case.startswith("  ✓ c (") and case.endswith(" ms)")


def test_text_shows_the_failing_expectation_with_expected_and_actual(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, b=FAILING)
    assert main(["test", str(folder / "b.wf.test.toml")]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("  ✗ wrong total")
    line = FAILING.splitlines().index("output = { total = 3 }") + 1
    assert lines[2:5] == [
        f"      {folder}/b.wf.test.toml:{line}:1: the workflow output does not hold the expected "
        "values",
        '        expected: {"total": 3}',
        '        actual:   {"total": 2}',
    ]
    assert lines[-1] == "0 passed, 1 failed, 0 errors"


def test_json_is_the_contract_object(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _folder(tmp_path, a=PASSING, b=FAILING, c=UNKNOWN_NODE)
    assert main(["test", str(folder), "--format", "json"]) == 2
    answer = json.loads(capsys.readouterr().out)
    assert answer["summary"] == {"passed": 1, "failed": 1, "errors": 1}
    files = {Path(f["path"]).name: f for f in answer["files"]}
    assert files["a.wf.test.toml"]["workflow"] == "orders"
    assert files["a.wf.test.toml"]["error"] is None
    [case] = files["b.wf.test.toml"]["cases"]
    [failure] = case["failures"]
    assert case["status"] == "failed"
    assert case["range"]["start"] == {"line": 3, "column": 1}
    assert (failure["expected"], failure["actual"]) == ({"total": 3}, {"total": 2})
    line = FAILING.splitlines().index("output = { total = 3 }") + 1
    assert failure["range"] == {
        "start": {"line": line, "column": 1},
        "end": {"line": line, "column": 23},
    }
    error = files["c.wf.test.toml"]["error"]
    assert error["message"].startswith(
        "node 'charj' is not in the workflow; did you mean 'charge'?"
    )
    assert [c["status"] for c in files["c.wf.test.toml"]["cases"]] == ["error"]


def test_case_selects_cases_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _folder(tmp_path, b=FAILING + "\n" + PASSING.replace('workflow = "orders"\n', ""))
    assert main(["test", str(folder), "--case", "c", "--format", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in answer["files"][0]["cases"]] == ["c"]


def test_junit_is_valid_and_counts_failures_and_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, a=PASSING, b=FAILING, c=UNKNOWN_NODE, d='workflow = "nowhere"\n')
    assert main(["test", str(folder), "--format", "junit"]) == 2
    text = capsys.readouterr().out
    JUNIT.validate(text)
    suites = JUNIT.to_dict(text)["testsuite"]
    counts = {Path(s["@name"]).name: (s["@tests"], s["@failures"], s["@errors"]) for s in suites}
    assert counts == {
        "a.wf.test.toml": (1, 0, 0),
        "b.wf.test.toml": (1, 1, 0),
        "c.wf.test.toml": (1, 0, 1),
        "d.wf.test.toml": (1, 0, 1),
    }
    assert (
        'expected: {"total": 3}'
        in JUNIT.to_dict(text)["testsuite"][1]["testcase"][0]["failure"]["$"]
    )


def test_junit_of_the_examples_is_valid(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["test", str(EXAMPLES), "--format", "junit"]) == 0
    JUNIT.validate(capsys.readouterr().out)


def test_github_annotations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _folder(tmp_path, b=FAILING)
    assert main(["test", str(folder), "--format", "github"]) == 1
    [line] = capsys.readouterr().out.splitlines()
    row = FAILING.splitlines().index("output = { total = 3 }") + 1
    assert line.startswith(
        f"::error file={folder}/b.wf.test.toml,line={row},col=1,endLine={row},endColumn=23,"
        "title=wfls test%3A wrong total::the workflow output does not hold the expected values"
        "%0Aexpected: "
    )


def test_schema_test_accepts_the_examples_and_rejects_an_unknown_key(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["schema", "--test"]) == 0
    schema = json.loads(capsys.readouterr().out)
    documents = sorted(EXAMPLES.glob("*.wf.test.toml"))
    assert len(documents) >= 2
    for path in documents:
        values = read_test_document(path.read_text(encoding="utf-8"), "toml").parsed.values
        jsonschema.validate(values, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"workflow": "x", "case": [{"name": "c", "pins": []}]}, schema)


def test_save_test_writes_pins_and_expectations(tmp_path: Path) -> None:
    saved = tmp_path / "billing.wf.test.toml"
    workflow, data = EXAMPLES / "billing.wf.toml", EXAMPLES / "billing.input.json"
    assert main(["run", str(workflow), "--input", str(data), "--save-test", str(saved)]) == 0
    lines = saved.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith('workflow = "') and lines[0].endswith('/examples/billing.wf.toml"')
    pins = [i for i, line in enumerate(lines) if line == "[[case.pin]]"]
    assert [lines[i + 1 : i + 5] for i in pins] == [
        ['node = "charge"', f"activation = {n}", 'outcome = "ok"', "output = { amount = 1 }"]
        for n in range(3)
    ]
    expect = lines[lines.index("[[case.expect]]") + 1 :]
    assert expect == [
        'status = "completed"',
        'outcome = "ok"',
        "output = { total = 1 }",
        'visited = ["customers", "orders.v2", "charge", "orders.v2", "charge", "orders.v2", '
        '"customers", "orders.v2", "charge", "orders.v2", "customers"]',
    ]
    assert main(["test", str(saved)]) == 0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--save-test", "run.json"], "name it *.wf.test.toml or *.wf.test.json"),
        (
            ["--save-test", "t.wf.test.toml", "--resume", "r.json", "--answer", "a.json"],
            "cannot be used with --resume",
        ),
    ],
)
def test_save_test_refusals(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", str(EXAMPLES / "billing.wf.toml"), *extra]
    if "--resume" not in extra:
        args += ["--input", str(EXAMPLES / "billing.input.json")]
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_handlers_answer_for_the_nodes_no_pin_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "wt_real_handlers.py").write_text(
        "HANDLERS = {\n"
        "    'charge_def': lambda payload, ctx: {'amount': 42},\n"
        "    'note_def': lambda payload, ctx: {},\n"
        "}\n",
        encoding="utf-8",
    )
    expect = '[[case.expect]]\nstatus = "completed"\noutput = { total = 42 }\n'
    folder = _folder(tmp_path, a=HEADER + ANSWER + expect)
    monkeypatch.chdir(tmp_path)
    assert main(["test", str(folder), "--handlers", "wt_real_handlers:HANDLERS"]) == 0
    assert main(["test", str(folder)]) == 1
    assert main(["test", str(folder), "--handlers", "wt_real_handlers:NOPE"]) == 2
    assert "has no 'NOPE'" in capsys.readouterr().err


def test_root_is_where_workflows_are_looked_up(tmp_path: Path) -> None:
    write_workspace(tmp_path / "flows")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "a.wf.test.toml").write_text(PASSING, encoding="utf-8")
    assert main(["test", str(tmp_path / "tests")]) == 2  # not under the document's folder
    assert main(["test", str(tmp_path / "tests"), "--root", str(tmp_path)]) == 0
    by_path = PASSING.replace('workflow = "orders"', 'workflow = "../flows/orders.wf.toml"')
    (tmp_path / "tests" / "a.wf.test.toml").write_text(by_path, encoding="utf-8")
    assert main(["test", str(tmp_path / "tests")]) == 0
