"""``workspace/executeCommand`` ``wfls.graph``: the graph ``wfls graph FILE`` prints.

The server answers for an open document (its text as the editor has it) and for a
document it only read from the workspace folder, with positions as the command line
prints them (1-based lines, code-point columns) whatever encoding the client chose.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from conftest import WAIT, Session, start_session
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient
from test_graph import CASES, CHILD

from wfls.cli import main


async def graph(session: Session, arguments: Any) -> Any:
    async with asyncio.timeout(WAIT):
        return await session.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="wfls.graph", arguments=arguments)
        )


async def test_a_workspace_documents_graph_is_the_command_lines(
    bare_client: LanguageClient, request, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "w.wf.toml").write_text(CASES["subgraph_calls"], encoding="utf-8")
    (tmp_path / "child.wf.toml").write_text(CHILD, encoding="utf-8")
    session = await start_session(bare_client, request, tmp_path, "neovim", "utf-16")
    answer = await graph(session, [{"uri": session.uri("w.wf.toml")}])
    assert main(["graph", str(tmp_path / "w.wf.toml")]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert answer == printed
    assert [call["file"] for call in answer["subgraphs"]] == [
        str(tmp_path / "child.wf.toml"),
        None,
    ]
    assert [(node["id"], node["severity"]) for node in answer["nodes"]] == [
        ("known", None),
        ("unknown", "error"),
    ]


async def test_an_open_documents_graph_is_of_its_text_in_the_editor(
    bare_client: LanguageClient, request, tmp_path
) -> None:
    (tmp_path / "w.wf.toml").write_text(CASES["unknown_target"], encoding="utf-8")
    session = await start_session(bare_client, request, tmp_path, "visual-studio-code", "utf-16")
    # Unsaved: a node more, after a line of emoji (two UTF-16 units each, one column).
    text = CASES["unknown_target"] + '\n[[nodes]]  # 😀😀\nid = "nowhere"\ntype = "end"\n'
    uri = session.open("w.wf.toml", text)
    await session.diagnostics(uri)
    answer = await graph(session, [{"uri": uri}])
    assert [node["id"] for node in answer["nodes"]] == ["a", "nowhere"]
    assert answer["edges"][0]["valid"] is True
    last = text.rstrip("\n").split("\n")
    header = last.index("[[nodes]]  # 😀😀") + 1
    assert answer["nodes"][1]["range"] == {
        "start": {"line": header, "column": 1},
        "end": {"line": len(last), "column": len(last[-1]) + 1},
    }


async def test_a_document_the_server_does_not_know_gets_null(
    bare_client: LanguageClient, request, tmp_path
) -> None:
    session = await start_session(bare_client, request, tmp_path, "neovim", "utf-8")
    assert await graph(session, [{"uri": session.uri("elsewhere.wf.toml")}]) is None


@pytest.mark.parametrize(
    "arguments",
    [None, [], ["file:///x.wf.toml"], [{"uri": 3}], [{"uri": "a"}, {"uri": "b"}]],
)
async def test_malformed_arguments_get_an_invalid_params_error(
    bare_client: LanguageClient, request, tmp_path, arguments: Any
) -> None:
    session = await start_session(bare_client, request, tmp_path, "neovim", "utf-8")
    with pytest.raises(JsonRpcException) as raised:
        await graph(session, arguments)
    assert raised.value.code == -32602
