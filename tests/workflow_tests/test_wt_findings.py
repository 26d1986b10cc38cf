"""``check_test_document``: each finding code at the characters it is about, and a
document without findings; the codes are the one table docs/testing.md shows."""

from __future__ import annotations

from pathlib import Path

import pytest
from wt_support import HEADER, findings_of, run_text, write_workspace

from wf_core.workflow_tests import CODES, TestCode

# (the document's text after `workflow = ...` or all of it, code, the characters flagged)
FINDINGS = [
    ('workflow = "order"\n', TestCode.UNKNOWN_WORKFLOW, 'workflow = "order"'),
    ('workflow = "orders"\n[[case]]\nname = "c"\nbogus = 1\n', TestCode.INVALID, "bogus = 1"),
    ('workflow = "orders"\n[[case]]\ninput = {}\n', TestCode.INVALID, "[[case]]\ninput = {}"),
    ('workflow = "orders" x\n', TestCode.SYNTAX, "x"),
    (
        'workflow = "orders"\n[[case]]\nname = "c"\ninput = { items = [] }\n[[case]]\nname = "c"\n'
        "input = { items = [] }\n",
        TestCode.DUPLICATE_CASE,
        'name = "c"',
    ),
    (HEADER + '[[case.pin]]\nnode = "charg"\n', TestCode.UNKNOWN_NODE, 'node = "charg"'),
    (HEADER + '[[case.pin]]\nnode = "each"\n', TestCode.NOT_PINNABLE, 'node = "each"'),
    (HEADER + '[[case.interrupt]]\nnode = "note"\n', TestCode.NOT_PINNABLE, 'node = "note"'),
    (
        HEADER + '[[case.pin]]\nnode = "charge"\noutcome = "refunded"\n',
        TestCode.UNKNOWN_OUTCOME,
        'outcome = "refunded"',
    ),
    (
        HEADER + '[[case.pin]]\nnode = "charge"\nattempts = ["error", "late"]\n',
        TestCode.UNKNOWN_OUTCOME,
        '"late"',
    ),
    (
        HEADER + '[[case.interrupt]]\nnode = "ask"\noutcome = "maybe"\n',
        TestCode.UNKNOWN_OUTCOME,
        'outcome = "maybe"',
    ),
    (HEADER + '[[case.expect]]\noutcome = "done"\n', TestCode.UNKNOWN_OUTCOME, 'outcome = "done"'),
    (
        HEADER
        + '[[case.pin]]\nnode = "charge"\nwhen = { "context.foreach.each.item.skew" = "A" }\n',
        TestCode.INVALID_WHEN_PATH,
        '"context.foreach.each.item.skew" = "A"',
    ),
    (
        HEADER + '[[case.pin]]\nnode = "note"\nwhen = { "input.items" = [] }\n',
        TestCode.INVALID_WHEN_PATH,
        '"input.items" = []',
    ),
    (
        HEADER + '[[case.pin]]\nnode = "charge"\noutput = { amount = "ten" }\n',
        TestCode.OUTPUT_SCHEMA,
        'output = { amount = "ten" }',
    ),
    (
        'workflow = "orders"\n[[case]]\nname = "c"\ninput = { items = 3 }\n',
        TestCode.INPUT_SCHEMA,
        "input = { items = 3 }",
    ),
    (
        HEADER + '[[case.interrupt]]\nnode = "ask"\nanswer = []\n',
        TestCode.INVALID,
        "answer = []",
    ),
    (
        HEADER + '[[case.expect]]\nvisited = ["each", "nope"]\n',
        TestCode.UNKNOWN_NODE,
        '"nope"',
    ),
]


@pytest.mark.parametrize(("text", "code", "flagged"), FINDINGS, ids=[f[1].value for f in FINDINGS])
def test_each_finding_is_placed(
    tmp_path: Path, text: str, code: TestCode, flagged: str | None
) -> None:
    findings = findings_of(write_workspace(tmp_path), text)
    assert [f.code for f in findings] == [code], [f.message for f in findings]
    if flagged is not None:
        span = findings[0].span
        assert text[span.start : span.end] == flagged


def test_a_document_the_workflow_accepts_has_no_findings(tmp_path: Path) -> None:
    text = (
        HEADER + '[[case.pin]]\nnode = "charge"\nwhen = { "context.foreach.each.item.sku" = "A" }\n'
        'attempts = ["error", { outcome = "declined", output = { amount = 1 } }]\n'
        '[[case.interrupt]]\nnode = "ask"\nanswer = { ok = true }\noutcome = "no"\n'
        '[[case.expect]]\noutcome = "stopped"\nvisited = ["note"]\n'
    )
    assert findings_of(write_workspace(tmp_path), text) == []


def test_a_workflow_by_relative_path(tmp_path: Path) -> None:
    folder = write_workspace(tmp_path / "flows")
    assert findings_of(folder.parent, 'workflow = "flows/orders.wf.toml"\n') == []


def test_a_finding_in_one_case_stops_only_that_case(tmp_path: Path) -> None:
    text = HEADER + '[[case.pin]]\nnode = "charg"\n\n[[case]]\nname = "d"\ninput = { items = [] }\n'
    result = run_text(write_workspace(tmp_path), text)
    assert result.error is not None and "charg" in result.error.message
    assert [(case.name, case.status) for case in result.cases] == [("c", "error"), ("d", "passed")]
    assert "[test_unknown_node]" in result.cases[0].failures[0].message


def test_every_code_is_in_the_one_table() -> None:
    assert set(CODES) == set(TestCode)
    assert all(code.value.startswith("test_") for code in TestCode)


def test_the_docs_table_is_the_codes_table() -> None:
    page = (Path(__file__).parents[2] / "docs" / "testing.md").read_text(encoding="utf-8")
    table = page[page.index("| code | meaning |") :].splitlines()[2:]
    rows = [line.split(" | ") for line in table if line.startswith("| `test_")]
    written = {row[0].strip("| `"): row[1].rstrip(" |") for row in rows}
    assert written == {code.value: meaning for code, meaning in CODES.items()}
