"""One semantics through the protocol: the server says what ``wfls check`` says, and runs
what ``wfls run`` runs.

Each generated workspace (``workspaces.Shape``: a caller and the child its subgraph node
runs) is written to the workspace folder before the server starts, as a user's project
is. The caller opened in the editor gets exactly the diagnostics ``wfls check --format
json`` prints for the file (range, severity, code, message and help), in every client's
way of getting them, and ``wfls.runWorkflow`` refuses it exactly when ``wfls run`` does,
or completes it with the same outcome and output.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CLIENTS, WAIT, Session, start_session
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient
from test_one_semantics import cli
from workspaces import INPUT, Shape, write

SHAPES = {
    "no node schemas": Shape(),
    "output source typo": Shape(output_source="snet"),
    "dotted loop id unquoted": Shape(loop_id="orders.v2", quote_loop_id=False),
    "child with an error": Shape(child="broken", call_in_loop=False),
    "own schema without the child": Shape(
        child="absent", node_input_schema=True, input_target="rwos"
    ),
    "completed_with_errors": Shape(errors_edge="undeclared", caller_syntax="json"),
}
Finding = tuple[int, int, int, int, str, str, str]
_SEVERITY = {
    types.DiagnosticSeverity.Error: "error",
    types.DiagnosticSeverity.Warning: "warning",
    types.DiagnosticSeverity.Information: "information",
    types.DiagnosticSeverity.Hint: "hint",
}


def checked(caller: Path) -> list[Finding]:
    """``wfls check --format json`` of the caller, as LSP ranges (the documents are
    ASCII: columns are the same in every encoding)."""
    _, out, _ = cli("check", str(caller), "--format", "json")
    return sorted(
        (
            f["start"]["line"] - 1,
            f["start"]["column"] - 1,
            f["end"]["line"] - 1,
            f["end"]["column"] - 1,
            f["severity"],
            f["code"],
            f["message"] if f.get("help") is None else f"{f['message']}\n{f['help']}",
        )
        for f in json.loads(out)
    )


def shown(diagnostics: list[types.Diagnostic]) -> list[Finding]:
    return sorted(
        (
            d.range.start.line,
            d.range.start.character,
            d.range.end.line,
            d.range.end.character,
            _SEVERITY[d.severity or types.DiagnosticSeverity.Error],
            str(d.code),
            d.message,
        )
        for d in diagnostics
    )


async def diagnostics_once(session: Session, uri: str, expected: list[Finding]) -> list[Finding]:
    """The caller's diagnostics once they are ``expected`` (or the last ones seen when they
    never are: the wait is bounded). Before the workspace is read, a client may be given
    the document's own findings first; those that cross files follow."""
    if session.pulls:
        with contextlib.suppress(TimeoutError):
            found = await session.pulled_where(uri, lambda items: shown(items) == expected)
            return shown(found)
        return shown(list((await session.pull(uri)).items))
    with contextlib.suppress(TimeoutError):
        params = await session.push_where(
            lambda p: p.uri == uri and shown(list(p.diagnostics)) == expected
        )
        return shown(list(params.diagnostics))
    return shown(list(next(p for p in reversed(session.pushes) if p.uri == uri).diagnostics))


async def editor_run(session: Session, uri: str) -> dict[str, Any]:
    try:
        async with asyncio.timeout(WAIT):
            answer: dict[str, Any] = await session.client.workspace_execute_command_async(
                types.ExecuteCommandParams(
                    command="wfls.runWorkflow", arguments=[{"uri": uri, "input": INPUT}]
                )
            )
    except JsonRpcException as refused:
        return {"status": "refused before the run", "error": refused.message}
    return answer


@pytest.mark.parametrize("shape", list(SHAPES.values()), ids=list(SHAPES))
@pytest.mark.parametrize("client_kind", list(CLIENTS), ids=[f"{p}-{e}" for p, e in CLIENTS])
async def test_the_editor_agrees_with_check_and_run(
    bare_client: LanguageClient,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    shape: Shape,
    client_kind: tuple[str, str],
) -> None:
    caller = write(shape, tmp_path)
    expected = checked(caller)
    _, everything, _ = cli("check", str(tmp_path), "--format", "json")
    accepted = not any(f["severity"] == "error" for f in json.loads(everything))
    _, ran, _ = cli("run", str(caller), "--input", str(tmp_path / "input.json"), "--format", "json")

    preset, encoding = client_kind
    session = await start_session(bare_client, request, tmp_path, preset, encoding)
    uri = session.open(caller.name, caller.read_text(encoding="utf-8"), shape.caller_syntax)
    assert await diagnostics_once(session, uri, expected) == expected
    answer = await editor_run(session, uri)
    if accepted:
        result = json.loads(ran)
        assert result["status"] == "completed"
        assert (answer["status"], answer["outcome"], answer["output"]) == (
            result["status"],
            result["outcome"],
            result["output"],
        )
    else:
        assert ran == ""
        assert answer["status"] == "refused before the run", answer
