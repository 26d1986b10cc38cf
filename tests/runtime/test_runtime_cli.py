"""``wfls run`` as a user runs it: traces, formats, pause and resume, every error path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from wfls.cli import main

ROOT = Path(__file__).parent.parent.parent
BILLING = ROOT / "examples" / "billing.wf.toml"
BILLING_INPUT = ROOT / "examples" / "billing.input.json"
APPROVALS = ROOT / "examples" / "approvals.wf.json"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_billing_trace_shows_both_loops_at_charge(capsys) -> None:
    code, out, err = run(capsys, str(BILLING), "--input", str(BILLING_INPUT), "--trace")
    assert (code, err) == (0, "")
    charge = [block for block in out.split("\n#") if block.split(" ", 2)[1] == "charge"]
    assert len(charge) == 3
    assert charge[0].splitlines() == [
        '3 charge (node) [customers > "orders.v2"] → ok',
        '    customers[0] = {"name": "Ada", "orders": [{"sku": "A-17", "qty": 2}, {"sku": "B-4", '
        '"qty": 1}]}',
        '    "orders.v2"[0] = {"sku": "A-17", "qty": 2}',
        '    input  {"order": {"sku": "A-17", "qty": 2}, "customer": "Ada"}',
    ]
    assert '"orders.v2"[0] = {"sku": "C-9", "qty": 3}' in charge[2]
    assert out.endswith("completed with outcome 'ok'\noutput: {\n  \"total\": 1\n}\n")


def test_json_lines_hold_one_object_per_activation(capsys) -> None:
    code, out, err = run(
        capsys, str(BILLING), "--input", str(BILLING_INPUT), "--trace", "--format", "json"
    )
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 11
    assert all(
        set(line) == {"node", "owner_stack", "context", "input", "outcome"} for line in lines
    )
    charge = [line for line in lines if line["node"] == "charge"]
    assert [c["owner_stack"] for c in charge] == [["customers", "orders.v2"]] * 3
    first = charge[0]
    assert first["context"]["foreach"]["orders.v2"]["item"] == {"sku": "A-17", "qty": 2}
    assert first["context"]["foreach"]["customers"]["item"]["name"] == "Ada"
    assert first["context"]["order"] == first["input"]["order"]
    assert first["outcome"] == "ok"
    assert err.startswith("completed with outcome 'ok'")


def test_json_result_without_trace(capsys) -> None:
    code, out, _ = run(capsys, str(BILLING), "--input", str(BILLING_INPUT), "--format", "json")
    assert code == 0
    assert json.loads(out) == {
        "status": "completed",
        "outcome": "ok",
        "output": {"total": 1},
        "error": None,
        "interrupt": None,
    }


def test_chosen_outcomes_steer_stand_ins_and_interrupts(capsys, tmp_path) -> None:
    inputs = tmp_path / "in.json"
    inputs.write_text(
        json.dumps({"requests": [{"id": "r1", "amount": 500, "requester": "ann"}], "limit": 100})
    )
    saved = tmp_path / "run.json"
    code, out, _ = run(capsys, str(APPROVALS), "--input", str(inputs), "--save", str(saved))
    assert code == 0
    assert "paused at interrupt 'ask_manager' (kind 'approval')" in out
    assert f"resume with: wfls run {APPROVALS} --resume {saved} --answer ANSWER.json" in out
    answer = tmp_path / "answer.json"
    answer.write_text('{"ok": false}')
    code, _, err = run(capsys, str(APPROVALS), "--resume", str(saved), "--answer", str(answer))
    assert code == 1
    assert err == (
        "wfls: interrupt 'ask_manager' declares outcomes approved, rejected; choose the one to "
        "resume with (--outcome ask_manager=OUTCOME)\n"
    )
    code, out, err = run(
        capsys,
        str(APPROVALS),
        "--resume",
        str(saved),
        "--answer",
        str(answer),
        "--outcome",
        "ask_manager=approved",
        "--trace",
        "--save",
        str(saved),
    )
    assert (code, err) == (0, "")
    assert "#4 ask_manager (interrupt) [requests] → approved" in out
    assert "completed with outcome 'ok'" in out
    assert json.loads(saved.read_text())["status"] == "completed"


def test_a_paused_run_without_save_says_how_to_keep_it(capsys, tmp_path) -> None:
    inputs = tmp_path / "in.json"
    inputs.write_text(
        json.dumps({"requests": [{"id": "r1", "amount": 500, "requester": "ann"}], "limit": 100})
    )
    code, out, _ = run(capsys, str(APPROVALS), "--input", str(inputs), "--format", "json")
    assert code == 0
    assert json.loads(out)["interrupt"] == {
        "node": "ask_manager",
        "kind": "approval",
        "request": {"who": "ann", "summary": {"id": "r1", "amount": 500}},
    }
    code, out, _ = run(capsys, str(APPROVALS), "--input", str(inputs))
    assert "run again with --save RUN.json to resume it" in out


HANDLERS = """
def charge(payload, ctx):
    order = ctx.foreach["orders.v2"].item
    return {"outcome": "ok", "output": {"amount": order["qty"] * 10}}

HANDLERS = {"charge_order": charge}
BROKEN = {"charge_order": 3}
"""


def test_user_handlers_are_imported_from_module_and_mapping(capsys, tmp_path, monkeypatch) -> None:
    (tmp_path / "my_billing_handlers.py").write_text(HANDLERS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    code, out, err = run(
        capsys,
        str(BILLING),
        "--input",
        str(BILLING_INPUT),
        "--handlers",
        "my_billing_handlers:HANDLERS",
    )
    assert (code, err) == (0, "")
    assert 'output: {\n  "total": 30\n}' in out  # the last order: qty 3
    code, _, err = run(
        capsys,
        str(BILLING),
        "--input",
        str(BILLING_INPUT),
        "--handlers",
        "my_billing_handlers:BROKEN",
    )
    assert code == 2
    assert (
        err
        == "wfls: 'my_billing_handlers:BROKEN' is not a mapping of node def names to callables\n"
    )
    code, _, err = run(
        capsys,
        str(BILLING),
        "--input",
        str(BILLING_INPUT),
        "--handlers",
        "my_billing_handlers:NONE",
    )
    assert (code, err) == (2, "wfls: module 'my_billing_handlers' has no 'NONE'\n")
    code, _, err = run(
        capsys, str(BILLING), "--input", str(BILLING_INPUT), "--handlers", "no_such_module_x:H"
    )
    assert code == 2 and err.startswith("wfls: cannot import handler module 'no_such_module_x'")


def test_a_missing_handler_refuses_the_run(capsys, tmp_path, monkeypatch) -> None:
    (tmp_path / "empty_handlers.py").write_text("H = {}\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    code, _, err = run(
        capsys, str(BILLING), "--input", str(BILLING_INPUT), "--handlers", "empty_handlers:H"
    )
    assert (code, err) == (1, "wfls: workflow 'billing': no handler for node def 'charge_order'\n")


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (
            ["--input", "missing.json"],
            2,
            "wfls: cannot read input 'missing.json': No such file or directory\n",
        ),
        (["--input", "{bad}"], 2, None),
        (
            [],
            2,
            "wfls: --input INPUT.json is required (or --resume RUN.json --answer ANSWER.json)\n",
        ),
        (
            ["--input", "x.json", "--resume", "r.json", "--answer", "a.json"],
            2,
            "wfls: --input cannot be used with --resume: the saved run has its input\n",
        ),
        (["--resume", "r.json"], 2, "wfls: --resume and --answer go together\n"),
        (
            ["--input", "x.json", "--outcome", "charge"],
            2,
            "wfls: --outcome expects NODE=OUTCOME, got 'charge'\n",
        ),
    ],
)
def test_usage_errors(capsys, tmp_path, monkeypatch, argv, code, message) -> None:
    monkeypatch.chdir(tmp_path)
    if "{bad}" in argv:
        (tmp_path / "bad.json").write_text("{bad}")
        argv = ["--input", "bad.json"]
    got, out, err = run(capsys, str(BILLING), *argv)
    assert (got, out) == (code, "")
    if message is None:
        assert err.startswith("wfls: input 'bad.json' is not JSON: ") and err.count("\n") == 1
    else:
        assert err == message


def test_input_not_matching_the_schema_fails_with_one_line(capsys, tmp_path) -> None:
    inputs = tmp_path / "in.json"
    inputs.write_text('{"customers": [{"name": 1}]}')
    code, out, err = run(capsys, str(BILLING), "--input", str(inputs))
    assert (code, out) == (1, "")
    assert err == (
        "wfls: the input does not match the input_schema of workflow 'billing': "
        "customers.0.name: 1 is not of type 'string'\n"
    )


def test_a_document_with_errors_is_not_run(capsys, tmp_path) -> None:
    code, out, err = run(
        capsys, str(ROOT / "examples" / "store_audit.wf.toml"), "--input", str(BILLING_INPUT)
    )
    assert (code, out) == (1, "")
    assert "error[invalid_context_path]" in err
    assert err.endswith("has 4 error(s); fix them before running it\n")


def test_unreadable_workflow_and_corrupt_state(capsys, tmp_path) -> None:
    code, _, err = run(capsys, str(tmp_path / "nope.wf.toml"), "--input", str(BILLING_INPUT))
    assert code == 2 and err.startswith("wfls: cannot read ")
    state = tmp_path / "run.json"
    state.write_text('{"version": 1, "frames": 3}')
    answer = tmp_path / "a.json"
    answer.write_text("{}")
    code, _, err = run(capsys, str(BILLING), "--resume", str(state), "--answer", str(answer))
    assert code == 2
    assert err.startswith(f"wfls: '{state}': invalid run state: ") and err.count("\n") == 1


def test_a_failed_run_exits_1(capsys, tmp_path) -> None:
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"requests": [{"id": "r1", "amount": 5}]}))
    code, out, err = run(capsys, str(APPROVALS), "--input", str(inputs))
    assert code == 1 and err == ""
    assert (
        out == "failed: foreach 'requests' item 0: node 'small_enough': path 'input.limit' "
        "could not be resolved\n"
    )


def test_the_installed_command_prints_no_traceback() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "wfls.cli", "run", str(BILLING), "--input", "/nonexistent.json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 2
    assert "Traceback" not in completed.stderr
    assert completed.stderr.startswith("wfls: cannot read input")


CHILD = """name = "greet"
start = "hello"
edges = [{ from = "hello", outcome = "ok", to = "__end__" }]
output = [{ target = "said", path = "input.who" }]

[input_schema]
type = "object"
required = ["who"]
properties.who = { type = "string" }

[output_schema]
type = "object"
properties.said = { type = "string" }

[[node_defs]]
name = "say"
outcomes = ["ok"]
input_schema = { type = "object", properties = { who = { type = "string" } } }
output_schema = { type = "object" }

[[nodes]]
id = "hello"
type = "node"
node = "say"
input = [{ target = "who", path = "input.who" }]
"""

PARENT = """name = "party"
start = "guests"
edges = [
  { from = "guests", outcome = "loop", to = "greet" },
  { from = "greet", outcome = "ok", to = "guests" },
  { from = "guests", outcome = "done", to = "__end__" },
]

[input_schema]
type = "object"
required = ["guests"]
properties.guests = { type = "array", items = { type = "string" } }

[[nodes]]
id = "guests"
type = "foreach"
over = "input.guests"
as = "guest"

[[nodes]]
id = "greet"
type = "subgraph"
workflow = "greet"
input_schema = { type = "object", properties = { who = { type = "string" } } }
input = [{ target = "who", path = "context.foreach.guests.item" }]
"""


def test_subgraphs_are_found_among_the_documents_beside_the_file(capsys, tmp_path) -> None:
    (tmp_path / "greet.wf.toml").write_text(CHILD)
    (tmp_path / "party.wf.toml").write_text(PARENT)
    inputs = tmp_path / "in.json"
    inputs.write_text('{"guests": ["Ada", "Grace"]}')
    code, out, err = run(capsys, str(tmp_path / "party.wf.toml"), "--input", str(inputs), "--trace")
    assert (code, err) == (0, "")
    assert "    #2 greet: hello (node) [no loop] → ok" in out
    assert '        input  {"who": "Ada"}' in out
    assert "#3 greet (subgraph) [guests] → ok" in out
    (tmp_path / "greet.wf.toml").unlink()
    code, _, err = run(capsys, str(tmp_path / "party.wf.toml"), "--input", str(inputs))
    assert code == 1
    assert (
        err == f"wfls: no workflow named 'greet' beside '{tmp_path / 'party.wf.toml'}' "
        "(a subgraph node calls it)\n"
    )
