"""``wfls debug`` driven by a Debug Adapter Protocol client over stdio: breakpoints,
the stack, scopes, stepping, step back, conditions, hit counts, exception breakpoints,
a saved run attached and replayed, and the Context scope's agreement with
``wfls run --trace --format json``."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dap_client import DapClient

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BILLING = EXAMPLES / "billing.wf.toml"
BILLING_INPUT = EXAMPLES / "billing.input.json"
APPROVALS = EXAMPLES / "approvals.wf.json"
# ask_manager pauses for the second request (over the limit); the first is recorded.
APPROVALS_INPUT = {
    "limit": 100,
    "requests": [
        {"id": "r1", "amount": 20, "requester": "ada"},
        {"id": "r2", "amount": 500, "requester": "grace"},
    ],
}
FIRST_ORDER = {"sku": "A-17", "qty": 2}


def line_of(needle: str, after: str = "") -> int:
    """The 1-based line of ``needle`` in billing.wf.toml (after ``after``)."""
    text = BILLING.read_text(encoding="utf-8")
    return text[: text.index(needle, text.index(after) if after else 0)].count("\n") + 1


CHARGE = line_of('id = "charge"')
ORDERS = line_of('id = "orders.v2"')
CUSTOMERS = line_of('id = "customers"')

CHILD = """\
name = "greet"
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

PARENT = """\
name = "party"
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


@pytest.fixture
def client(tmp_path: Path) -> Iterator[DapClient]:
    made = DapClient(tmp_path)
    yield made
    made.close()


def start(
    client: DapClient,
    breakpoints: dict[Path, list[dict[str, Any]]],
    *,
    command: str = "launch",
    filters: tuple[str, ...] = ("error", "refused"),
    functions: tuple[str, ...] = (),
    **arguments: Any,
) -> dict[Path, list[dict[str, Any]]]:
    """initialize, breakpoints, launch (or attach), configurationDone: what a client
    sends, in its order; the breakpoints as the adapter bound them."""
    capabilities = client.request("initialize", adapterID="wfls", linesStartAt1=True)
    assert capabilities["supportsStepBack"] and capabilities["supportsConditionalBreakpoints"]
    client.event("initialized")
    bound = {
        path: client.request("setBreakpoints", source={"path": str(path)}, breakpoints=wanted)[
            "breakpoints"
        ]
        for path, wanted in breakpoints.items()
    }
    client.request("setFunctionBreakpoints", breakpoints=[{"name": n} for n in functions])
    client.request("setExceptionBreakpoints", filters=list(filters))
    client.request(command, **arguments)
    client.request("configurationDone")
    return bound


@pytest.mark.parametrize("command", ["launch", "attach"])
def test_the_billing_scenario(client: DapClient, tmp_path: Path, command: str) -> None:
    """Launched from its input, or attached to the run ``wfls run --save`` kept of it:
    the same stops, stack, variables and steps."""
    if command == "launch":
        target: dict[str, Any] = {"input": str(BILLING_INPUT)}
    else:
        saved = tmp_path / "run.json"
        subprocess.run(
            [sys.executable, "-m", "wfls", "run", str(BILLING), "--input", str(BILLING_INPUT),
             "--save", str(saved)],
            check=True,
            capture_output=True,
        )  # fmt: skip
        target = {"run": str(saved)}
    bound = start(
        client,
        {BILLING: [{"line": line_of("input = [", 'id = "charge"')}, {"line": line_of("{ from")}]},
        command=command,
        program=str(BILLING),
        **target,
    )
    charge, edge = bound[BILLING]
    assert (charge["verified"], charge["line"]) == (True, CHARGE)  # charge's id line
    assert (edge["verified"], edge["line"]) == (False, line_of("{ from"))
    assert edge["message"].startswith("not inside a node")

    stopped = client.event("stopped")
    assert (stopped["reason"], stopped["hitBreakpointIds"]) == ("breakpoint", [charge["id"]])
    assert client.stack() == [
        ("charge", "billing.wf.toml", CHARGE),
        ('"orders.v2" [0]', "billing.wf.toml", ORDERS),
        ("customers [0]", "billing.wf.toml", CUSTOMERS),
    ]
    scopes = client.scopes()
    assert list(scopes) == ["Context", "Input", "Output", "State", "Workflow input"]
    context = client.variables(scopes["Context"])
    assert context['foreach."orders.v2".item'] == (
        FIRST_ORDER,
        'context.foreach."orders.v2".item',
    )
    assert context["foreach.customers.index"] == (0, "context.foreach.customers.index")
    assert context["order"][0] == FIRST_ORDER and context["loop_index"][0] == 0
    assert client.variables(scopes["Input"]) == {
        "order": (FIRST_ORDER, None),
        "customer": ("Ada", None),
    }
    evaluated = client.request(
        "evaluate", expression='context.foreach."orders.v2".item.qty', context="hover"
    )
    assert evaluated["result"] == "2"
    loop_scope = client.scopes(2)['"orders.v2" [0]']
    assert client.variables(loop_scope)["item"][0] == FIRST_ORDER

    client.request("next", threadId=1)  # the next charge: the order's sibling
    client.event("stopped")
    assert [name for name, _, _ in client.stack()] == ["charge", '"orders.v2" [1]', "customers [0]"]

    client.request("setBreakpoints", source={"path": str(BILLING)}, breakpoints=[])
    client.request("stepOut", threadId=1)  # out of the order loop: the next customer's
    assert client.event("stopped")["reason"] == "step"
    assert [name for name, _, _ in client.stack()] == ["orders.v2", "customers [1]"]

    client.request("stepBack", threadId=1)
    assert client.event("stopped")["reason"] == "step"
    assert [name for name, _, _ in client.stack()] == ["charge", '"orders.v2" [1]', "customers [0]"]
    assert client.context()["loop_item"] == {"sku": "B-4", "qty": 1}

    client.request("continue", threadId=1)
    output = client.event("output")
    assert output["output"] == "completed with outcome 'ok'; output: {\"total\": 1}\n"
    assert client.event("exited") == {"exitCode": 0}
    client.event("terminated")


def test_conditions_and_hit_counts(client: DapClient) -> None:
    bound = start(
        client,
        {
            BILLING: [
                {"line": CHARGE + 1, "condition": 'context.foreach."orders.v2".item.qty > 2'},
                {"line": ORDERS + 1, "hitCondition": "2"},  # orders.v2, its second activation
            ]
        },
        program=str(BILLING),
        input=str(BILLING_INPUT),
    )
    by_condition, by_count = bound[BILLING]
    assert client.event("stopped")["hitBreakpointIds"] == [by_count["id"]]
    assert [name for name, _, _ in client.stack()] == ["orders.v2", "customers [1]"]
    client.request("continue", threadId=1)
    assert client.event("stopped")["hitBreakpointIds"] == [by_condition["id"]]
    assert client.context()["order"] == {"sku": "C-9", "qty": 3}
    client.request("reverseContinue", threadId=1)  # back to the hit before
    assert client.event("stopped")["reason"] == "breakpoint"
    assert [name for name, _, _ in client.stack()] == ["orders.v2", "customers [1]"]
    client.request("continue", threadId=1)
    assert client.context()["order"] == {"sku": "C-9", "qty": 3}  # counted once again
    client.request("continue", threadId=1)
    client.event("terminated")


def test_bad_conditions_leave_the_breakpoint_unverified(client: DapClient) -> None:
    bound = start(
        client,
        {
            BILLING: [
                {"line": CHARGE, "condition": "context.order.qty >"},
                {"line": CHARGE, "hitCondition": "x"},
            ]
        },
        program=str(BILLING),
        input=str(BILLING_INPUT),
    )
    assert [(b["verified"], b["message"]) for b in bound[BILLING]] == [
        (False, "the condition ends too early"),
        (
            False,
            "hit count 'x': expected N, == N, >= N, > N or % N with N a whole number of at least 1",
        ),
    ]
    client.event("terminated")  # nothing stops the run


def test_stepping_into_and_out_of_a_subgraph(client: DapClient, tmp_path: Path) -> None:
    (tmp_path / "greet.wf.toml").write_text(CHILD)
    party = tmp_path / "party.wf.toml"
    party.write_text(PARENT)
    start(
        client,
        {},
        program=str(party),
        input={"guests": ["Ada", "Grace"]},
        stopOnEntry=True,
    )
    assert client.event("stopped")["reason"] == "entry"
    assert client.stack() == [("guests", "party.wf.toml", 15)]
    client.request("stepIn", threadId=1)
    client.event("stopped")
    assert client.stack() == [("greet", "party.wf.toml", 21), ("guests [0]", "party.wf.toml", 15)]
    client.request("stepIn", threadId=1)  # into the child run
    client.event("stopped")
    assert client.stack() == [
        ("hello", "greet.wf.toml", 22),
        ("greet (subgraph call)", "party.wf.toml", 21),
        ("guests [0]", "party.wf.toml", 15),
    ]
    assert client.variables(client.scopes()["Workflow input"]) == {"who": ("Ada", "input.who")}
    assert client.variables(client.scopes(2)["greet (subgraph call)"]) == {
        "input": ({"who": "Ada"}, None)
    }
    client.request("stepOut", threadId=1)  # back in the caller, at the next guest
    client.event("stopped")
    assert client.stack() == [("greet", "party.wf.toml", 21), ("guests [1]", "party.wf.toml", 15)]
    client.request("stepBack", threadId=1)
    client.event("stopped")
    assert [name for name, _, _ in client.stack()] == [
        "hello",
        "greet (subgraph call)",
        "guests [0]",
    ]
    client.request("continue", threadId=1)
    assert client.event("exited") == {"exitCode": 0}


def test_exception_breakpoints(client: DapClient) -> None:
    start(
        client,
        {},
        filters=("error", "refused", "interrupt"),
        program=str(APPROVALS),
        input=APPROVALS_INPUT,
    )
    stopped = client.event("stopped")
    assert (stopped["reason"], stopped["text"]) == (
        "exception",
        "paused at interrupt 'ask_manager' (kind 'approval')",
    )
    info = client.request("exceptionInfo", threadId=1)
    assert (info["exceptionId"], info["breakMode"]) == ("interrupt", "always")
    assert [name for name, _, _ in client.stack()] == ["ask_manager", "requests [1]"]
    assert client.variables(client.scopes()["Input"]) == {
        "who": ("grace", None),
        "summary": ({"id": "r2", "amount": 500}, None),
    }
    client.request("continue", threadId=1)
    assert "paused at interrupt 'ask_manager'" in client.event("output")["output"]
    client.event("terminated")


def test_a_refused_run_stops_at_an_exception(client: DapClient) -> None:
    start(client, {}, program=str(BILLING), input={"customers": "none"})
    stopped = client.event("stopped")
    assert stopped["reason"] == "exception"
    assert stopped["text"].startswith(
        "cannot run: the input does not match the input_schema of workflow 'billing'"
    )
    assert client.request("stackTrace", threadId=1)["stackFrames"] == []
    client.request("continue", threadId=1)
    assert client.event("exited") == {"exitCode": 1}


def test_a_saved_run_is_attached_and_replayed(client: DapClient, tmp_path: Path) -> None:
    given = tmp_path / "in.json"
    given.write_text(json.dumps(APPROVALS_INPUT))
    saved = tmp_path / "run.json"
    subprocess.run(
        [sys.executable, "-m", "wfls", "run", str(APPROVALS), "--input", str(given),
         "--save", str(saved)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    start(
        client,
        {},
        command="attach",
        functions=("record",),
        program=str(APPROVALS),
        run=str(saved),
    )
    assert client.event("stopped")["reason"] == "function breakpoint"
    assert [name for name, _, _ in client.stack()] == ["record", "requests [0]"]
    assert client.context()["loop_item"] == APPROVALS_INPUT["requests"][0]
    client.request("continue", threadId=1)
    output = client.event("output")["output"]
    assert output.startswith("paused at interrupt 'ask_manager' (kind 'approval')")
    client.event("terminated")


def stops_of(client: DapClient) -> list[dict[str, Any]]:
    """Every activation's node and context, stepping in from the entry to the end."""
    seen: list[dict[str, Any]] = []
    while client.first_of("stopped", "terminated") == "stopped":
        client.event("stopped")
        seen.append({"node": client.stack()[0][0], "context": client.context()})
        client.request("stepIn", threadId=1)
    return seen


@pytest.mark.parametrize(
    ("program", "given"),
    [
        (BILLING, json.loads(BILLING_INPUT.read_text())),
        (APPROVALS, APPROVALS_INPUT),
        (None, {"guests": ["Ada", "Grace"]}),  # party.wf.toml and its child
    ],
    ids=["billing", "approvals", "subgraph"],
)
def test_the_context_scope_agrees_with_the_trace(
    client: DapClient, tmp_path: Path, program: Path | None, given: object
) -> None:
    if program is None:
        (tmp_path / "greet.wf.toml").write_text(CHILD)
        program = tmp_path / "party.wf.toml"
        program.write_text(PARENT)
    start(client, {}, program=str(program), input=given, stopOnEntry=True)
    stops = stops_of(client)
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps(given))
    trace = subprocess.run(
        [sys.executable, "-m", "wfls", "run", str(program), "--input", str(inputs), "--trace",
         "--format", "json"],
        check=False,
        capture_output=True,
        text=True,
    ).stdout  # fmt: skip
    records = [json.loads(line) for line in trace.splitlines()]
    printed = {
        json.dumps({"node": r["node"], "context": r["context"]}, sort_keys=True) for r in records
    }
    shown = {json.dumps(stop, sort_keys=True) for stop in stops}
    # Every activation the debugger stopped at is one the trace printed, with the same
    # context, and every record of the trace was an activation the debugger stopped at
    # (a foreach's loop and done records are its one activation's).
    assert len(stops) >= 5
    assert shown == printed


BOOM = """\
def fail(payload, ctx):
    raise RuntimeError("no card on file for " + payload["customer"])


HANDLERS = {"charge_order": fail}
"""


def test_an_exception_breakpoint_on_a_node_error(client: DapClient, tmp_path: Path) -> None:
    (tmp_path / "boom.py").write_text(BOOM)  # the adapter runs in tmp_path: importable
    start(
        client,
        {},
        program=str(BILLING),
        input=str(BILLING_INPUT),
        handlers="boom:HANDLERS",
    )
    stopped = client.event("stopped")
    assert (stopped["reason"], stopped["text"]) == (
        "exception",
        "node 'charge' failed: RuntimeError: no card on file for Ada",
    )
    assert client.request("exceptionInfo", threadId=1)["exceptionId"] == "error"
    assert [name for name, _, _ in client.stack()] == ["charge", '"orders.v2" [0]', "customers [0]"]
    assert client.variables(client.scopes()["Input"])["customer"] == ("Ada", None)
    client.request("continue", threadId=1)
    assert client.event("output")["output"] == (
        "failed: foreach 'customers' item 0: foreach 'orders.v2' item 0: node 'charge' failed: "
        "RuntimeError: no card on file for Ada\n"
    )
    assert client.event("exited") == {"exitCode": 1}


def test_the_adapter_listens_on_a_port(tmp_path: Path) -> None:
    """``wfls debug --port 0``: one client on 127.0.0.1, the port said on stderr."""
    import re
    import socket

    process = subprocess.Popen(
        [sys.executable, "-m", "wfls", "debug", "--port", "0"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        found = re.fullmatch(r"wfls debug: listening on 127\.0\.0\.1:(\d+)\n", line)
        assert found is not None, line
        with socket.create_connection(("127.0.0.1", int(found.group(1)))) as connection:
            body = json.dumps(
                {"seq": 1, "type": "request", "command": "initialize", "arguments": {}}
            ).encode()
            connection.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            reader = connection.makefile("rb")
            header = reader.readline()
            assert header.startswith(b"Content-Length: ")
            reader.readline()
            response = json.loads(reader.read(int(header.split(b":")[1])))
            assert (response["command"], response["success"]) == ("initialize", True)
            assert response["body"]["supportsStepBack"] is True
            reader.close()
    finally:
        process.wait(timeout=60)
        assert process.stderr is not None
        process.stderr.close()


def test_a_case_of_a_workflow_test_document(client: DapClient) -> None:
    """``tests`` and ``case``: the case's input, and its pins answering before the
    stand-ins, as ``wfls test`` runs it."""
    start(
        client,
        {},
        functions=("charge",),
        tests=str(EXAMPLES / "billing.wf.test.toml"),
        case="charges pinned by order and by activation",
    )
    assert client.event("stopped")["reason"] == "function breakpoint"
    assert client.stack()[0] == ("charge", "billing.wf.toml", CHARGE)
    client.request("continue", threadId=1)
    client.event("stopped")
    output = client.variables(client.scopes()["Output"])
    assert (output["node"][0], output["output"][0]) == ("charge", {"amount": 34})  # the pin's
    client.request("setFunctionBreakpoints", breakpoints=[])
    client.request("continue", threadId=1)
    assert client.event("output")["output"] == (
        "completed with outcome 'ok'; output: {\"total\": 27}\n"
    )


def test_the_step_limit_stops_the_run_as_wfls_run_does(client: DapClient) -> None:
    start(client, {}, program=str(BILLING), input=str(BILLING_INPUT), maxSteps=3)
    stopped = client.event("stopped")
    assert (stopped["reason"], stopped["text"]) == (
        "exception",
        "run stopped at its step limit of 3 steps, at node 'charge'; the workflow may loop forever",
    )
    assert client.request("exceptionInfo", threadId=1)["exceptionId"] == "step limit"
    client.request("continue", threadId=1)
    assert client.event("exited") == {"exitCode": 1}
