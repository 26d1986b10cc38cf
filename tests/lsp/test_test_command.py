"""``workspace/executeCommand`` ``wfls.test``: the object ``wfls test --format json``
prints, for one test document, run as the editor has it (unsaved edits count) or, when
it is not open, as it is on disk; its workflow looked up in the server's workspace."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import WAIT, Session, start_session
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient
from workflow_tests.wt_support import HEADER, write_workspace

from wfls.cli import main

PASSING = HEADER + '[[case.expect]]\nstatus = "paused"\n'
UNSAVED = (
    PASSING + '\n[[case]]\nname = "unsaved"\ninput = { items = [] }\n'
    '[[case.expect]]\nstatus = "completed"\n'
)


async def run_tests(session: Session, arguments: Any) -> Any:
    async with asyncio.timeout(WAIT):
        return await session.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="wfls.test", arguments=arguments)
        )


def _without_durations(answer: dict[str, Any]) -> dict[str, Any]:
    for file in answer["files"]:
        for case in file["cases"]:
            case["duration_ms"] = 0
    return answer


async def test_a_document_on_disk_answers_what_the_command_line_prints(
    bare_client: LanguageClient, request, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_workspace(tmp_path)
    (tmp_path / "t.wf.test.toml").write_text(PASSING, encoding="utf-8")
    session = await start_session(bare_client, request, tmp_path, "neovim", "utf-16")
    answer = await run_tests(session, [{"uri": session.uri("t.wf.test.toml"), "cases": None}])
    assert main(["test", str(tmp_path / "t.wf.test.toml"), "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert _without_durations(answer) == _without_durations(printed)
    assert answer["summary"] == {"passed": 1, "failed": 0, "errors": 0}


async def test_an_open_document_runs_as_the_editor_has_it(
    bare_client: LanguageClient, request, tmp_path: Path
) -> None:
    write_workspace(tmp_path)
    (tmp_path / "t.wf.test.toml").write_text(PASSING, encoding="utf-8")
    session = await start_session(bare_client, request, tmp_path, "visual-studio-code", "utf-16")
    uri = session.open("t.wf.test.toml", UNSAVED)
    answer = await run_tests(session, [{"uri": uri, "cases": ["unsaved"]}])
    [file] = answer["files"]
    assert file["path"] == str(tmp_path / "t.wf.test.toml")
    assert file["workflow"] == "orders"
    [case] = file["cases"]
    assert (case["name"], case["status"]) == ("unsaved", "failed")
    [failure] = case["failures"]
    line = UNSAVED.splitlines().index('status = "completed"', 8) + 1
    assert failure["range"]["start"] == {"line": line, "column": 1}
    assert (failure["expected"], failure["actual"]) == ("completed", "failed")


@pytest.mark.parametrize(
    "arguments",
    [None, [], [{"uri": 3}], [{"uri": "file:///x.wf.test.toml", "cases": "c"}]],
)
async def test_malformed_arguments_are_invalid_params(
    bare_client: LanguageClient, request, tmp_path: Path, arguments: Any
) -> None:
    session = await start_session(bare_client, request, tmp_path, "neovim", "utf-8")
    with pytest.raises(JsonRpcException, match="expected one argument"):
        await run_tests(session, arguments)


async def test_a_uri_that_is_no_test_document_is_invalid_params(
    bare_client: LanguageClient, request, tmp_path: Path
) -> None:
    write_workspace(tmp_path)
    session = await start_session(bare_client, request, tmp_path, "neovim", "utf-8")
    with pytest.raises(JsonRpcException, match="is not a workflow test document"):
        await run_tests(session, [{"uri": session.uri("orders.wf.toml")}])
