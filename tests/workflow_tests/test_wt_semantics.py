"""The semantics of a test case, each rule with a case that passes and one that fails:
pins by condition, by activation index and per attempt; the expectations (status,
outcome, output, error, visited, saw); interrupts answered to resume. The workflow is
``wt_support.ORDERS``: a loop over ``items`` charging each (retry 1, outcomes ok and
declined, declined goes through ``note``), then the interrupt ``ask``."""

from __future__ import annotations

from pathlib import Path

import pytest
from wt_support import HEADER, run_text, write_workspace

ANSWER_YES = '\n[[case.interrupt]]\nnode = "ask"\nanswer = { ok = true }\noutcome = "yes"\n'

# (id, the case's tables after HEADER, expected status, a failure message part or None)
CASES = [
    # -- pins by condition on the node's context
    (
        "when-matches",
        '[[case.pin]]\nnode = "charge"\nwhen = { "context.foreach.each.item.sku" = "B" }\n'
        'outcome = "declined"\n'
        + ANSWER_YES
        + '[[case.expect]]\nvisited = ["charge", "charge", "note", "ask"]\n',
        "passed",
        None,
    ),
    (
        "when-object-subset",
        '[[case.pin]]\nnode = "charge"\n'
        'when = { "context.foreach.each" = { index = 0, item = { sku = "A" } } }\n'
        "output = { amount = 5 }\n"
        + ANSWER_YES
        + '[[case.expect]]\nvisited = ["charge", "charge", "ask"]\n',
        "passed",
        None,
    ),
    (
        "when-matches-nothing",
        '[[case.pin]]\nnode = "charge"\nwhen = { "context.foreach.each.item.sku" = "Z" }\n'
        'outcome = "declined"\n' + ANSWER_YES + '[[case.expect]]\nvisited = ["note"]\n',
        "failed",
        "the pin of 'charge' never answered",
    ),
    # -- pins by activation index
    (
        "activation-1",
        '[[case.pin]]\nnode = "charge"\nactivation = 1\noutput = { amount = 7 }\n'
        + ANSWER_YES
        + '[[case.expect]]\nstatus = "completed"\noutput = { total = 7 }\n',
        "passed",
        None,
    ),
    (
        "activation-0-is-overwritten",
        '[[case.pin]]\nnode = "charge"\nactivation = 0\noutput = { amount = 7 }\n'
        + ANSWER_YES
        + "[[case.expect]]\noutput = { total = 7 }\n",
        "failed",
        "the workflow output does not hold the expected values",
    ),
    (
        "activation-never-reached",
        '[[case.pin]]\nnode = "charge"\nactivation = 2\n' + ANSWER_YES,
        "failed",
        "the node ran 2 time(s)",
    ),
    (
        "first-matching-pin-wins",
        '[[case.pin]]\nnode = "charge"\nactivation = 1\noutput = { amount = 2 }\n'
        '[[case.pin]]\nnode = "charge"\noutput = { amount = 1 }\n'
        + ANSWER_YES
        + "[[case.expect]]\noutput = { total = 2 }\n",
        "passed",
        None,
    ),
    # -- pins per attempt (charge_def retries once)
    (
        "attempts-retry-succeeds",
        '[[case.pin]]\nnode = "charge"\nattempts = ["error", "ok"]\noutput = { amount = 3 }\n'
        + ANSWER_YES
        + '[[case.expect]]\nstatus = "completed"\noutput = { total = 3 }\n',
        "passed",
        None,
    ),
    (
        "attempts-all-fail",
        '[[case.pin]]\nnode = "charge"\nattempts = ["error", { error = "card expired" }]\n'
        '[[case.expect]]\nstatus = "completed"\n',
        "failed",
        "card expired",
    ),
    (
        "attempts-table-outcome",
        '[[case.pin]]\nnode = "charge"\nactivation = 0\n'
        'attempts = ["error", { outcome = "declined" }]\n'
        + ANSWER_YES
        + '[[case.expect]]\nvisited = ["charge", "note", "charge"]\n',
        "passed",
        None,
    ),
    # -- expectations
    (
        "status-failed-and-error",
        '[[case.pin]]\nnode = "charge"\nerror = "no network"\n'
        '[[case.expect]]\nstatus = "failed"\nerror = "no network"\n',
        "passed",
        None,
    ),
    (
        "error-text-differs",
        '[[case.pin]]\nnode = "charge"\nerror = "no network"\n[[case.expect]]\nerror = "timeout"\n',
        "failed",
        "expected a failure saying 'timeout'",
    ),
    (
        "outcome",
        '\n[[case.interrupt]]\nnode = "ask"\noutcome = "no"\n'
        '[[case.expect]]\nstatus = "completed"\noutcome = "stopped"\n',
        "passed",
        None,
    ),
    (
        "outcome-differs",
        ANSWER_YES + '[[case.expect]]\noutcome = "stopped"\n',
        "failed",
        "expected outcome 'stopped', the run ended with 'ok'",
    ),
    (
        "visited-out-of-order",
        ANSWER_YES + '[[case.expect]]\nvisited = ["ask", "charge"]\n',
        "failed",
        "'charge' did not run after 'ask'",
    ),
    (
        "saw-context-and-input",
        ANSWER_YES + '[[case.expect]]\n[[case.expect.saw]]\nnode = "charge"\nactivation = 1\n'
        'context = { foreach = { each = { index = 1 } } }\ninput = { sku = "B" }\n',
        "passed",
        None,
    ),
    (
        "saw-other-context",
        ANSWER_YES + '[[case.expect]]\n[[case.expect.saw]]\nnode = "charge"\nactivation = 1\n'
        'context = { foreach = { each = { item = { sku = "A" } } } }\n',
        "failed",
        "activation 1 of 'charge' saw another context",
    ),
    (
        "saw-missing-activation",
        ANSWER_YES + '[[case.expect]]\n[[case.expect.saw]]\nnode = "note"\n',
        "failed",
        "node 'note' ran 0 time(s)",
    ),
    # -- interrupts
    (
        "paused-without-answer",
        '[[case.expect]]\nstatus = "paused"\nvisited = ["charge", "charge", "ask"]\n',
        "passed",
        None,
    ),
    (
        "answer-request-differs",
        '\n[[case.interrupt]]\nnode = "ask"\nrequest = { total = 99 }\nanswer = { ok = true }\n'
        'outcome = "yes"\n',
        "failed",
        "interrupt 'ask' was asked something else",
    ),
    (
        "answer-never-needed",
        '[[case.pin]]\nnode = "charge"\nerror = "down"\n' + ANSWER_YES,
        "failed",
        "the run never waited at interrupt 'ask' (it failed)",
    ),
    (
        "answer-refused",
        '\n[[case.interrupt]]\nnode = "ask"\nanswer = { ok = true }\n',
        "error",
        "choose the one to resume with",
    ),
]


@pytest.mark.parametrize(
    ("tables", "status", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_case_semantics(tmp_path: Path, tables: str, status: str, message: str | None) -> None:
    result = run_text(write_workspace(tmp_path), HEADER + tables)
    assert result.error is None
    [case] = result.cases
    messages = [failure.message for failure in case.failures]
    assert case.status == status, messages
    if message is None:
        assert messages == []
    else:
        assert any(message in text for text in messages), messages


def test_a_failure_is_placed_at_its_expectation_with_expected_actual_and_activations(
    tmp_path: Path,
) -> None:
    text = HEADER + ANSWER_YES + '[[case.expect]]\nvisited = ["ask", "charge"]\n'
    result = run_text(write_workspace(tmp_path), text)
    [failure] = result.cases[0].failures
    assert text[failure.span.start : failure.span.end] == '"charge"'
    assert failure.expected == ["ask", "charge"]
    assert failure.actual == ["each", "charge", "each", "charge", "each", "ask", "ask"]
    assert failure.activations == (
        "each",
        "each [0] > charge",
        "each",
        "each [1] > charge",
        "each",
        "ask",
        "ask",
    )


def test_a_case_range_runs_from_its_header_through_its_tables(tmp_path: Path) -> None:
    text = HEADER + ANSWER_YES + '[[case.expect]]\nstatus = "completed"\n\n[[case]]\nname = "d"\n'
    result = run_text(write_workspace(tmp_path), text)
    first, second = result.cases
    assert text[first.span.start : first.span.end].startswith('[[case]]\nname = "c"')
    assert text[first.span.start : first.span.end].endswith('status = "completed"')
    assert text[second.span.start : second.span.end] == '[[case]]\nname = "d"'


def test_json_documents_run_like_toml(tmp_path: Path) -> None:
    text = """{"workflow": "orders", "case": [{"name": "j", "input": {"items": [{"sku": "A"}]},
      "pin": [{"node": "charge", "output": {"amount": 4}}],
      "interrupt": [{"node": "ask", "answer": {"ok": true}, "outcome": "yes"}],
      "expect": {"status": "completed", "output": {"total": 5}}}]}"""
    result = run_text(write_workspace(tmp_path), text, "json")
    [failure] = result.cases[0].failures
    assert failure.expected == {"total": 5}
    assert failure.actual == {"total": 4}
    assert text[failure.span.start : failure.span.end] == '"output": {"total": 5}'


def test_a_long_path_shows_its_last_activations(tmp_path: Path) -> None:
    items = ", ".join(f'{{ sku = "s{n}" }}' for n in range(40))
    text = HEADER.replace('[{ sku = "A" }, { sku = "B" }]', f"[{items}]")
    text += '[[case.expect]]\nvisited = ["note"]\n'
    [failure] = run_text(write_workspace(tmp_path), text).cases[0].failures
    assert failure.activations[0] == "… 32 earlier activation(s)"
    assert failure.activations[1:] == (
        *(label for n in range(16, 40) for label in ("each", f"each [{n}] > charge")),
        "each",
        "ask",
    )


SKIPPING = """\
name = "skipping"
start = "each"
outcomes = ["ok"]
edges = [
  { from = "each", outcome = "loop", to = "charge" },
  { from = "charge", outcome = "ok", to = "each" },
  { from = "each", outcome = "done", to = "__end__" },
  { from = "each", outcome = "completed_with_errors", to = "__end__" },
]

[input_schema]
type = "object"
required = ["items"]
properties.items = { type = "array", items = { "$ref" = "#/$defs/item" } }
"$defs".item = { type = "object", properties = { sku = { type = "string" } } }

[[node_defs]]
name = "charge_def"
outcomes = ["ok"]
input_schema = { type = "object", required = ["sku"], properties = { sku = { type = "string" } } }
output_schema = { type = "object", properties = { amount = { type = "number" } } }

[[nodes]]
id = "each"
type = "foreach"
over = "input.items"
as = "item"
item_error = { action = "skip" }

[[nodes]]
id = "charge"
type = "node"
node = "charge_def"
input = [{ target = "sku", path = "context.foreach.each.item.sku" }]
"""


def test_an_activation_that_failed_before_its_handler_counts_for_pins_as_for_saw(
    tmp_path: Path,
) -> None:
    """The second item has no sku: charge's second activation fails on its path before
    any handler runs, and the loop skips it. The third activation is activation 2 for a
    pin as for ``saw``."""
    (tmp_path / "skipping.wf.toml").write_text(SKIPPING, encoding="utf-8")
    text = (
        'workflow = "skipping"\n\n[[case]]\nname = "c"\n'
        'input = { items = [{ sku = "A" }, {}, { sku = "C" }] }\n\n'
        '[[case.pin]]\nnode = "charge"\nactivation = 2\noutput = { amount = 9 }\n\n'
        '[[case.expect]]\nstatus = "completed"\n'
        'visited = ["each", "charge", "each", "charge", "each", "charge", "each"]\n\n'
        '[[case.expect.saw]]\nnode = "charge"\nactivation = 2\n'
        'context = { foreach = { each = { index = 2, item = { sku = "C" } } } }\n'
    )
    result = run_text(tmp_path, text)
    assert result.error is None
    [case] = result.cases
    assert [failure.message for failure in case.failures] == []
    assert case.status == "passed"
