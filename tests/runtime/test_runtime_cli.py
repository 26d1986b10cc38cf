"""``wfls run`` as a user runs it: traces, formats, pause and resume, every error path."""

from __future__ import annotations

import io
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import wf_core.runtime
from wf_core.language.paths import format_owner_stack
from wf_core.runtime import DEFAULT_MAX_STEPS, RunResult
from wfls.cli import build_parser, main

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
    assert out.endswith(
        f"resume with: wfls run {APPROVALS} --resume {saved} --answer ANSWER.json "
        f"--outcome ask_manager=OUTCOME --save {saved}\nOUTCOME is one of: approved, rejected\n"
    )
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
            ["--resume", "r.json", "--answer", "a.json", "--seed", "3"],
            2,
            "wfls: --seed cannot be used with --resume: the saved run goes on with its own\n",
        ),
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
        [sys.executable, "-m", "wfls", "run", str(BILLING), "--input", "/nonexistent.json"],
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
    assert "    #2 greet: hello (node) [no active loop] → ok" in out
    assert '        input  {"who": "Ada"}' in out
    assert "#3 greet (subgraph) [guests] → ok" in out
    (tmp_path / "greet.wf.toml").unlink()
    code, _, err = run(capsys, str(tmp_path / "party.wf.toml"), "--input", str(inputs))
    assert code == 1
    party = tmp_path / "party.wf.toml"
    assert err == (
        f"{party}:23:12: error[unknown_subgraph]: no workflow named 'greet' in the workspace\n"
        '  workflow = "greet"\n'
        "             ^^^^^^^\n"
        f"wfls: '{party}' has 1 error(s); fix them before running it\n"
    )


def check_and_run(
    capsys: pytest.CaptureFixture[str], file: Path, inputs: Path, *extra: str
) -> tuple[tuple[int, str], tuple[int, str, str]]:
    """``wfls check FILE`` (its status and what it prints) and ``wfls run FILE``."""
    status = main(["check", str(file), *extra])
    printed = capsys.readouterr().out
    return (status, printed), run(capsys, str(file), "--input", str(inputs), *extra)


def test_run_runs_what_check_accepts_and_refuses_with_check_s_findings(capsys, tmp_path) -> None:
    """A subgraph node without schemas binds to its child's: ``check`` accepts it and
    ``run`` runs it; a binding the child does not declare is one finding, printed by
    ``run`` as ``check`` prints it."""
    (tmp_path / "greet.wf.toml").write_text(CHILD)
    no_schema = PARENT.replace(
        'input_schema = { type = "object", properties = { who = { type = "string" } } }\n', ""
    )
    no_schema += 'output = [{ source = "said", target = "state.said" }]\n'
    no_schema = no_schema.replace(
        "[input_schema]",
        'state_schema = { type = "object", properties = { said = {} } }\n\n[input_schema]',
    )
    party = tmp_path / "party.wf.toml"
    party.write_text(no_schema)
    inputs = tmp_path / "in.json"
    inputs.write_text('{"guests": ["Ada"]}')
    (status, printed), (code, out, err) = check_and_run(capsys, party, inputs)
    assert (status, printed) == (0, "")
    assert (code, err) == (0, ""), err
    assert "completed with outcome 'ok'" in out
    party.write_text(no_schema.replace('source = "said"', 'source = "siad"'))
    (status, printed), (code, out, err) = check_and_run(capsys, party, inputs)
    assert (
        status == 1
        and "error[subgraph_binding]: child workflow 'greet' does not produce output field 'siad'"
        in printed
        and "did you mean 'said'?" in printed
    )
    assert (code, out) == (1, "")
    assert err == printed + f"wfls: '{party}' has 1 error(s); fix them before running it\n"


def test_a_child_with_errors_is_refused_with_its_findings(capsys, tmp_path) -> None:
    child = tmp_path / "greet.wf.toml"
    child.write_text(
        CHILD.replace(
            '{ target = "who", path = "input.who" }', '{ target = "who", path = "input.whom" }'
        )
    )
    (tmp_path / "party.wf.toml").write_text(PARENT)
    inputs = tmp_path / "in.json"
    inputs.write_text('{"guests": ["Ada"]}')
    code, out, err = run(capsys, str(tmp_path / "party.wf.toml"), "--input", str(inputs))
    assert (code, out) == (1, "")
    main(["check", str(child)])
    printed = capsys.readouterr().out
    assert "error[invalid_source_path]" in printed
    assert err == printed + f"wfls: '{child}' has 1 error(s); fix them before running it\n"


def test_root_decides_where_run_finds_children_as_in_check(capsys, tmp_path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "greet.wf.toml").write_text(CHILD)
    (tmp_path / "app").mkdir()
    party = tmp_path / "app" / "party.wf.toml"
    party.write_text(PARENT)
    inputs = tmp_path / "in.json"
    inputs.write_text('{"guests": ["Ada"]}')
    (status, _), (code, _, err) = check_and_run(capsys, party, inputs)
    assert (status, code) == (1, 1) and "error[unknown_subgraph]" in err
    (status, _), (code, out, err) = check_and_run(capsys, party, inputs, "--root", str(tmp_path))
    assert (status, code, err) == (0, 0, "")
    assert "completed with outcome 'ok'" in out


LOOPING = """name = "looping"
start = "summary"
edges = [
  { from = "summary", outcome = "ok", to = "summary" },
  { from = "summary", outcome = "stop", to = "__end__" },
]

[input_schema]
type = "object"

[[node_defs]]
name = "summarise"
outcomes = ["ok", "stop"]
input_schema = { type = "object" }
output_schema = { type = "object" }

[[nodes]]
id = "summary"
type = "node"
node = "summarise"
"""


def limit_line(steps: int) -> str:
    return (
        f"wfls: the run stopped at its step limit of {steps} steps, at node 'summary'; the "
        "workflow may loop forever (raise the limit with --max-steps N)\n"
    )


def test_a_node_that_loops_on_itself_stops_at_the_step_limit(capsys, tmp_path) -> None:
    looping = tmp_path / "looping.wf.toml"
    looping.write_text(LOOPING)
    assert main(["check", str(looping)]) == 0  # check accepts the loop
    capsys.readouterr()
    inputs = tmp_path / "in.json"
    inputs.write_text("{}")
    assert build_parser().parse_args(["run", str(looping)]).max_steps == DEFAULT_MAX_STEPS
    code, out, err = run(capsys, str(looping), "--input", str(inputs))
    assert (code, out, err) == (1, "", limit_line(DEFAULT_MAX_STEPS))
    code, out, err = run(
        capsys, str(looping), "--input", str(inputs), "--max-steps", "3", "--trace"
    )
    assert (code, err) == (1, limit_line(3))
    assert [line for line in out.splitlines() if line.startswith("#")] == [
        f"#{n} summary (node) [no active loop] → ok" for n in (1, 2, 3)
    ]
    code, out, err = run(
        capsys, str(looping), "--input", str(inputs), "--max-steps", "3", "--format", "json"
    )
    assert (code, json.loads(out)["status"], err) == (1, "failed", limit_line(3))
    code, out, err = run(
        capsys,
        str(looping),
        "--input",
        str(inputs),
        "--outcome",
        "summary=stop",
        "--max-steps",
        "1",
    )
    assert (code, err) == (0, "")  # one step is enough to end


@pytest.mark.parametrize("value", ["0", "-4", "many"])
def test_the_step_limit_is_a_positive_whole_number(capsys, value) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["run", str(BILLING), "--input", str(BILLING_INPUT), "--max-steps", value])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.endswith(
        f"wfls: error: argument --max-steps: expected a whole number of at least 1, got '{value}'\n"
    )


def test_help_documents_the_step_limit_and_standard_input(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--max-steps N stop the run after N steps" in text
    assert f"(default {DEFAULT_MAX_STEPS}, as in the editor;" in text
    assert "--input INPUT.json the workflow input (JSON); - reads it from standard input" in text
    assert "--answer ANSWER.json the answer to the interrupt (JSON); - reads it from standard" in (
        text
    )


CASCADE = """name = "cascade"
start = "summary"
edges = [{ from = "summary", outcome = "ok", to = "__end__" }]

[input_schema]
type = "object"

[[node_defs]]
name = "summarise"
outcomes = ["ok"]

[[nodes]]
id = "summary"
type = "node"
node = "summarise"
"""


def test_a_refused_document_prints_exactly_the_findings_of_check(capsys, tmp_path) -> None:
    document = tmp_path / "cascade.wf.toml"
    document.write_text(CASCADE)
    assert main(["check", str(document)]) == 1
    checked = capsys.readouterr().out
    assert "information[unknown_node_def]" in checked  # a consequence, under its cause
    code, out, err = run(capsys, str(document), "--input", str(BILLING_INPUT))
    assert (code, out) == (1, "")
    assert err == checked + f"wfls: '{document}' has 1 error(s); fix them before running it\n"


def stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def test_input_and_answer_can_come_from_standard_input(capsys, tmp_path, monkeypatch) -> None:
    stdin(monkeypatch, BILLING_INPUT.read_bytes())
    code, out, err = run(capsys, str(BILLING), "--input", "-")
    assert (code, err) == (0, "")
    assert out.startswith("completed with outcome 'ok'")
    inputs = tmp_path / "in.json"
    inputs.write_text(
        json.dumps({"requests": [{"id": "r1", "amount": 500, "requester": "ann"}], "limit": 100})
    )
    saved = tmp_path / "run.json"
    code, _, _ = run(capsys, str(APPROVALS), "--input", str(inputs), "--save", str(saved))
    assert code == 0
    stdin(monkeypatch, b'{"ok": true}')
    code, out, err = run(
        capsys,
        str(APPROVALS),
        "--resume",
        str(saved),
        "--answer",
        "-",
        "--outcome",
        "ask_manager=approved",
    )
    assert (code, err) == (0, "")
    assert out.startswith("completed with outcome 'ok'")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b"{bad",
            "input from standard input is not JSON: Expecting property name enclosed in "
            "double quotes: line 1 column 2 (char 1)",
        ),
        (b"", "input from standard input is empty: expected JSON"),
        (b"\xff{}", "cannot read input from standard input: not UTF-8 text"),
    ],
)
def test_bad_json_on_standard_input_is_one_line(capsys, monkeypatch, data, message) -> None:
    stdin(monkeypatch, data)
    code, out, err = run(capsys, str(BILLING), "--input", "-")
    assert (code, out, err) == (2, "", f"wfls: {message}\n")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--outcome", "ask_manger=approved"],
            "--outcome ask_manger=approved: workflow 'approvals' has no node or node def "
            "'ask_manger' (did you mean 'ask_manager'?)",
        ),
        (
            ["--outcome", "small_enough=true"],
            "--outcome small_enough=true: node 'small_enough' is of type condition, whose "
            "outcome cannot be chosen (only nodes of type node, run by their stand-ins, and "
            "interrupts can)",
        ),
        (
            ["--outcome", "ask_manager=aproved"],
            "--outcome ask_manager=aproved: node 'ask_manager' does not declare outcome 'aproved' "
            "(declared: approved, rejected; did you mean 'approved'?)",
        ),
        (
            ["--outcome", "record=failed"],
            "--outcome record=failed: node 'record' does not declare outcome 'failed' "
            "(declared: ok)",
        ),
    ],
)
def test_chosen_outcomes_are_checked_before_the_run(capsys, argv, message) -> None:
    code, out, err = run(capsys, str(APPROVALS), "--input", str(BILLING_INPUT), *argv)
    assert (code, out, err) == (2, "", f"wfls: {message}\n")


def test_with_handlers_a_node_outcome_is_the_handlers_choice(capsys, tmp_path, monkeypatch) -> None:
    (tmp_path / "billing_handlers_a.py").write_text(HANDLERS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    code, out, err = run(
        capsys,
        str(BILLING),
        "--input",
        str(BILLING_INPUT),
        "--handlers",
        "billing_handlers_a:HANDLERS",
        "--outcome",
        "charge=ok",
    )
    assert (code, out) == (2, "")
    assert err == (
        "wfls: --outcome charge=ok: node 'charge' runs a handler you gave, which chooses its own "
        "outcome\n"
    )


APPROVAL_HANDLERS = """
def record(payload, ctx):
    return {"outcome": "ok", "output": {"approved": [payload["id"]]}}

HANDLERS = {"record": record}
"""


def test_the_printed_resume_command_runs_as_printed(capsys, tmp_path, monkeypatch) -> None:
    folder = tmp_path / "my flows"
    folder.mkdir()
    document = folder / "approvals's copy.wf.json"
    document.write_text(APPROVALS.read_text())
    (tmp_path / "approval_handlers_b.py").write_text(APPROVAL_HANDLERS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    requests = [{"id": f"r{i}", "amount": 500, "requester": "ann"} for i in range(2)]
    (tmp_path / "in.json").write_text(json.dumps({"requests": requests, "limit": 100}))
    (tmp_path / "ANSWER.json").write_text('{"ok": true}')
    code, out, _ = run(
        capsys,
        str(document.relative_to(tmp_path)),
        "--input",
        "in.json",
        "--handlers",
        "approval_handlers_b:HANDLERS",
        "--outcome",
        "ask_manager=approved",
        "--max-steps",
        "50",
        "--save",
        "state 1.json",
    )
    assert code == 0
    command = out.splitlines()[-1].removeprefix("resume with: ")
    assert command == (
        "wfls run 'my flows/approvals'\"'\"'s copy.wf.json' --resume 'state 1.json' --answer "
        "ANSWER.json --handlers approval_handlers_b:HANDLERS --outcome ask_manager=approved "
        "--max-steps 50 --save 'state 1.json'"
    )
    for remaining in (1, 0):  # the second request pauses again, and its command goes on
        words = shlex.split(command)
        assert words[:2] == ["wfls", "run"]
        code, out, err = run(capsys, *words[2:])
        assert (code, err) == (0, "")
        if remaining:
            assert out.splitlines()[-1] == f"resume with: {command}"
    assert json.loads(out.removeprefix("completed with outcome 'ok'\noutput: ")) == {
        "approved": ["r1"]
    }


def test_without_trace_the_run_keeps_no_activations(capsys, tmp_path, monkeypatch) -> None:
    results: list[RunResult] = []

    def keeping(function):  # the public entry points, wrapped to see what they return
        def call(*args, **kwargs):
            result = function(*args, **kwargs)
            results.append(result)
            return result

        return call

    monkeypatch.setattr(
        wf_core.runtime, "execute_workflow", keeping(wf_core.runtime.execute_workflow)
    )
    monkeypatch.setattr(
        wf_core.runtime, "resume_workflow", keeping(wf_core.runtime.resume_workflow)
    )
    inputs = tmp_path / "in.json"
    inputs.write_text(
        json.dumps({"requests": [{"id": "r1", "amount": 500, "requester": "ann"}], "limit": 100})
    )
    saved = tmp_path / "run.json"
    (tmp_path / "answer.json").write_text('{"ok": true}')
    assert run(capsys, str(BILLING), "--input", str(BILLING_INPUT))[0] == 0
    assert run(capsys, str(APPROVALS), "--input", str(inputs), "--save", str(saved))[0] == 0
    resumed = ["--resume", str(saved), "--answer", str(tmp_path / "answer.json")]
    assert run(capsys, str(APPROVALS), *resumed, "--outcome", "ask_manager=approved")[0] == 0
    assert [r.status for r in results] == ["completed", "paused", "completed"]
    assert [r.trace for r in results] == [(), (), ()]
    assert all(r.state.recorded > 0 for r in results)
    assert run(capsys, str(BILLING), "--input", str(BILLING_INPUT), "--trace")[0] == 0
    assert (results[-1].trace, results[-1].state.recorded) == ((), 11)  # printed, not kept


def test_context_and_the_trace_print_an_owner_stack_alike(capsys) -> None:
    expected = format_owner_stack(["customers", "orders.v2"])
    assert expected == 'customers > "orders.v2"'
    assert main(["context", str(BILLING), "charge"]) == 0
    context = capsys.readouterr().out
    code, trace, _ = run(capsys, str(BILLING), "--input", str(BILLING_INPUT), "--trace")
    assert code == 0
    assert f"owner stack: {expected}\n" in context
    assert f"#3 charge (node) [{expected}] → ok\n" in trace
