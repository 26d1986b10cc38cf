"""``workspace/executeCommand``: ``wfls.ownerStack``, ``wfls.nodeContext``, ``wfls.runWorkflow``.

The editors call these for the node under the cursor (a status item, a "show
context" command). Positions come in the negotiated encoding; the one-line
JSON document below puts 30 emoji before the nodes on the same line, so that
reading the column in the wrong unit lands in another node or before the
nodes altogether.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import pytest
from conftest import EXAMPLES, WAIT, Session, start_session
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

COMMANDS = ["wfls.nodeContext", "wfls.ownerStack"]
CHARGE_STACK = ["customers", "orders.v2"]


async def execute(session: Session, command: str, arguments: list[Any] | None) -> Any:
    async with asyncio.timeout(WAIT):
        return await session.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=arguments)
        )


def at(session: Session, uri: str, offset: int) -> list[dict[str, Any]]:
    """The command argument for ``offset``, its position in the session's encoding."""
    position = session.position(uri, offset)
    return [{"uri": uri, "position": {"line": position.line, "character": position.character}}]


async def owner_stack(session: Session, uri: str, offset: int) -> Any:
    return await execute(session, "wfls.ownerStack", at(session, uri, offset))


def one_line_billing() -> str:
    """The billing example as JSON on a single line, nodes in the order customers,
    charge, orders.v2, after a schema description of 30 emoji."""
    obj = {"type": "object"}
    document = {
        "name": "billing",
        "input_schema": {
            "description": "😀" * 30,
            "type": "object",
            "properties": {
                "customers": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"name": {"type": "string"}, "orders": {"type": "array"}},
                    },
                }
            },
        },
        "state_schema": obj,
        "output_schema": obj,
        "node_defs": [
            {
                "name": "charge_order",
                "input_schema": {"type": "object", "properties": {"customer": {}}},
                "output_schema": obj,
                "outcomes": ["ok"],
            }
        ],
        "outcomes": ["ok"],
        "start": "customers",
        "nodes": [
            {"id": "customers", "type": "foreach", "over": "input.customers", "as": "customer"},
            {
                "id": "charge",
                "type": "node",
                "node": "charge_order",
                "input": [{"target": "customer", "path": "context.foreach.customers.item.name"}],
                "output": [],
            },
            {
                "id": "orders.v2",
                "type": "foreach",
                "over": "context.foreach.customers.item.orders",
                "as": "order",
            },
        ],
        "edges": [
            {"from": "customers", "outcome": "loop", "to": "orders.v2"},
            {"from": "orders.v2", "outcome": "loop", "to": "charge"},
            {"from": "charge", "outcome": "ok", "to": "orders.v2"},
            {"from": "orders.v2", "outcome": "done", "to": "customers"},
            {"from": "customers", "outcome": "done", "to": "__end__"},
        ],
    }
    return json.dumps(document, ensure_ascii=False)


def test_the_commands_are_advertised(session: Session):
    provider = session.result.capabilities.execute_command_provider
    assert provider is not None
    assert sorted(provider.commands) == ["wfls.graph", *COMMANDS, "wfls.runWorkflow", "wfls.test"]


BILLING_INPUT = json.loads((EXAMPLES / "billing.input.json").read_text(encoding="utf-8"))


async def test_run_with_sample_input_then_hover_shows_what_a_node_saw(
    session: Session, billing_text: str
):
    uri = session.open("billing.wf.toml", billing_text)
    answer = await execute(session, "wfls.runWorkflow", [{"uri": uri, "input": BILLING_INPUT}])
    assert answer["status"] == "completed" and answer["outcome"] == "ok"
    charge = [entry for entry in answer["trace"] if entry["node"] == "charge"]
    assert len(charge) == 3
    assert charge[2]["context"]["foreach"]["customers"]["item"]["name"] == "Grace"
    assert charge[2]["context"]["foreach"]["orders.v2"]["item"] == {"sku": "C-9", "qty": 3}
    assert '"orders.v2"[0] = {"sku": "C-9", "qty": 3}' in answer["text"]
    # Hover on the node's id now shows the items its three activations saw.
    shown = await session.request(
        types.TEXT_DOCUMENT_HOVER, uri, session.find(uri, 'id = "charge"') + 6
    )
    markdown = shown.contents.value
    assert "**Last run**: 3 activations" in markdown
    assert '`customers[1] = {"name": "Grace"' in markdown
    # No file was written beside the document.
    assert sorted(p.name for p in session.root.iterdir()) == []


async def test_a_run_the_server_cannot_make_gets_a_reason(
    bare_client: LanguageClient, request, tmp_path, billing_text: str
):
    session = await start_session(bare_client, request, tmp_path, "neovim", "utf-8")
    # Named apart from billing.wf.toml, opened below: two documents of one name are an error.
    text = billing_text.replace('name = "billing"', 'name = "broken"', 1)
    broken = session.open("broken.wf.toml", text.replace('node = "charge_order"', 'node = "x"'))
    with pytest.raises(JsonRpcException) as raised:
        await execute(session, "wfls.runWorkflow", [{"uri": broken, "input": BILLING_INPUT}])
    assert raised.value.code == -32803
    assert raised.value.message.startswith(
        "the workflow has 1 error(s); fix them before running it"
    )
    closed = session.uri("elsewhere.wf.toml")
    for arguments in (
        None,
        [{"uri": broken}],
        [{"uri": broken, "input": {}, "outcomes": ["ok"]}],
        [{"uri": closed, "input": {}}],
    ):
        with pytest.raises(JsonRpcException) as raised:
            await execute(session, "wfls.runWorkflow", arguments)
        assert raised.value.code == -32602, arguments
    # An input the schema rejects is a run refused with the reason, not an error reply.
    uri = session.open("billing.wf.toml", billing_text)
    answer = await execute(session, "wfls.runWorkflow", [{"uri": uri, "input": {"customers": 3}}])
    assert answer["status"] == "refused" and "customers" in answer["error"]


async def test_owner_stack_of_the_node_around_the_cursor(session: Session, billing_text: str):
    uri = session.open("billing.wf.toml", billing_text)
    path = session.find(uri, "context.foreach.customers.item.name")
    assert await owner_stack(session, uri, path + 20) == {
        "node": "charge",
        "owner_stack": CHARGE_STACK,
    }
    # The header of an entry belongs to it, its key word included.
    header = session.find(uri, "[[nodes]]", after='id = "customers"')
    assert await owner_stack(session, uri, header + 3) == {
        "node": "orders.v2",
        "owner_stack": ["customers"],
    }
    over = session.find(uri, 'over = "input.customers"')
    assert await owner_stack(session, uri, over) == {"node": "customers", "owner_stack": []}
    # Outside every node: null.
    assert await owner_stack(session, uri, session.find(uri, 'name = "billing"')) is None
    assert await owner_stack(session, uri, session.find(uri, "[input_schema]")) is None


async def test_positions_are_read_in_the_negotiated_encoding(session: Session):
    text = one_line_billing()
    assert text.count("\n") == 0
    uri = session.open("billing.wf.json", text, language_id="json")
    # Near the end of the charge node: a column read in the wrong unit lands
    # 60 or more characters away, in orders.v2 or before the nodes.
    cursor = session.find(uri, '"output": []')
    assert await owner_stack(session, uri, cursor) == {
        "node": "charge",
        "owner_stack": CHARGE_STACK,
    }
    orders = session.find(uri, '"over": "context.foreach')
    assert await owner_stack(session, uri, orders) == {
        "node": "orders.v2",
        "owner_stack": ["customers"],
    }
    # Between two elements of the nodes array: no node.
    gap = session.find(uri, ', {"id": "orders.v2"')
    assert await owner_stack(session, uri, gap + 1) is None


async def test_node_context_is_what_the_command_line_prints(session: Session, billing_text: str):
    document = session.root / "billing.wf.toml"
    document.write_text(billing_text, encoding="utf-8")
    printed = subprocess.run(
        [sys.executable, "-m", "wfls", "context", str(document), "charge", "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=WAIT,
    )
    expected = json.loads(printed.stdout)
    assert expected["owner_stack"] == CHARGE_STACK

    uri = session.open("billing.wf.toml", billing_text)
    cursor = session.find(uri, 'node = "charge_order"', after="[[nodes]]")
    assert await execute(session, "wfls.nodeContext", at(session, uri, cursor)) == expected
    outside = session.find(uri, "[output_schema]")
    assert await execute(session, "wfls.nodeContext", at(session, uri, outside)) is None


async def test_a_node_without_context(
    bare_client: LanguageClient, request, tmp_path, billing_text: str
):
    session = await start_session(bare_client, request, tmp_path, "visual-studio-code", "utf-16")
    text = billing_text + '\n[[nodes]]\nid = "orphan"\ntype = "node"\nnode = "charge_order"\n'
    uri = session.open("billing.wf.toml", text)
    cursor = session.find(uri, 'id = "orphan"')
    assert await owner_stack(session, uri, cursor) == {"node": "orphan", "owner_stack": None}
    context = await execute(session, "wfls.nodeContext", at(session, uri, cursor))
    assert context["node"] == "orphan"
    assert context["owner_stack"] is None and context["schema"] is None
    assert "unreachable" in context["reason"]


async def test_a_document_that_is_not_open_answers_null(
    bare_client: LanguageClient, request, tmp_path
):
    session = await start_session(bare_client, request, tmp_path, "neovim", "utf-8")
    argument = [{"uri": session.uri("elsewhere.wf.toml"), "position": {"line": 0, "character": 0}}]
    assert await execute(session, "wfls.ownerStack", argument) is None
    assert await execute(session, "wfls.nodeContext", argument) is None


BAD_ARGUMENTS: list[Any] = [
    None,
    [],
    ["file:///x.wf.toml"],
    [{"uri": 3, "position": {"line": 0, "character": 0}}],
    [{"uri": "file:///x.wf.toml"}],
    [{"uri": "file:///x.wf.toml", "position": {"line": -1, "character": 0}}],
    [{"uri": "file:///x.wf.toml", "position": {"line": "1", "character": 0}}],
    [{"uri": "file:///x.wf.toml", "position": {"line": True, "character": 0}}],
    [
        {"uri": "file:///x.wf.toml", "position": {"line": 0, "character": 0}},
        {"uri": "file:///x.wf.toml", "position": {"line": 0, "character": 0}},
    ],
]


async def test_invalid_arguments_get_an_invalid_params_error(
    bare_client: LanguageClient, request, tmp_path, billing_text: str
):
    session = await start_session(bare_client, request, tmp_path, "visual-studio-code", "utf-16")
    uri = session.open("billing.wf.toml", billing_text)
    for arguments in BAD_ARGUMENTS:
        for command in COMMANDS:
            with pytest.raises(JsonRpcException) as raised:
                await execute(session, command, arguments)
            assert raised.value.code == -32602, (command, arguments)
    # The server is still answering.
    cursor = session.find(uri, 'id = "charge"')
    assert (await owner_stack(session, uri, cursor))["node"] == "charge"


async def test_an_unknown_command_gets_an_invalid_params_error(
    bare_client: LanguageClient, request, tmp_path
):
    session = await start_session(bare_client, request, tmp_path, "neovim", "utf-8")
    with pytest.raises(JsonRpcException) as raised:
        await execute(session, "wfls.noSuchCommand", [])
    assert raised.value.code == -32602
    assert raised.value.message == (
        "unknown command 'wfls.noSuchCommand'; the commands are: wfls.ownerStack, "
        "wfls.nodeContext, wfls.runWorkflow, wfls.graph, wfls.test"
    )
