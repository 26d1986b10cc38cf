"""The workspace through the protocol: documents on disk, subgraphs across files, changes.

Files are written into the session's workspace folder and announced through
``workspace/didChangeWatchedFiles``, as an editor's file watcher would.
"""

from __future__ import annotations

import asyncio
import textwrap

from conftest import WAIT, Session
from lsprotocol import types

CHILD = textwrap.dedent(
    """
    name = "child"
    start = "end"
    outcomes = ["ok"]
    edges = []

    [input_schema]
    type = "object"
    required = ["customers", "tag"]
    properties.customers = { type = "array" }
    properties.tag = { type = "string" }

    [[nodes]]
    id = "end"
    type = "end"
    """
).lstrip()

CALLER = textwrap.dedent(
    """
    name = "caller"
    start = "bill"
    outcomes = ["ok"]
    edges = [{ from = "bill", outcome = "ok", to = "__end__" }]

    [[nodes]]
    id = "bill"
    type = "subgraph"
    workflow = { name = "child" }
    input = [{ target = "customers", value = [] }]
    """
).lstrip()


def codes(diagnostics: list[types.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in diagnostics if d.severity == types.DiagnosticSeverity.Error)


async def announce(session: Session, *names: str, kind=types.FileChangeType.Created) -> None:
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=session.uri(name), type=kind) for name in names]
        )
    )


async def caller_codes(session: Session, uri: str, expected: list[str]) -> list[str]:
    """The caller's error codes once they are ``expected`` (pushed or pulled), or the last."""
    async with asyncio.timeout(WAIT):
        while True:
            if session.pulls:
                found = codes(list((await session.pull(uri)).items))
            else:
                params = await session.push_where(
                    lambda p: p.uri == uri and codes(list(p.diagnostics)) == expected
                )
                found = codes(list(params.diagnostics))
            if found == expected:
                return found
            await asyncio.sleep(0.1)


async def test_subgraphs_resolve_across_files(session: Session) -> None:
    (session.root / "child.wf.toml").write_text(CHILD)
    (session.root / "caller.wf.toml").write_text(CALLER)
    await announce(session, "child.wf.toml", "caller.wf.toml")
    uri = session.open("caller.wf.toml", CALLER)
    assert await caller_codes(session, uri, ["subgraph_binding"]) == ["subgraph_binding"]

    # Go to definition on the workflow name opens the child.
    offset = session.find(uri, '"child"') + 2
    [location] = await session.request(types.TEXT_DOCUMENT_DEFINITION, uri, offset)
    assert location.uri == session.uri("child.wf.toml")
    assert location.range.start.line == 0

    # The child edited in the editor: the caller is checked again.
    child = session.open("child.wf.toml", CHILD)
    session.replace(child, '"customers", "tag"]', '"customers"]')
    assert await caller_codes(session, uri, []) == []

    # Closed, the child on disk counts again; then the file changes on disk.
    session.close(child)
    assert await caller_codes(session, uri, ["subgraph_binding"]) == ["subgraph_binding"]
    (session.root / "child.wf.toml").write_text(CHILD.replace('"customers", "tag"]', "[]"))
    await announce(session, "child.wf.toml", kind=types.FileChangeType.Changed)
    assert await caller_codes(session, uri, []) == []

    # Deleted: the caller's child is unknown.
    (session.root / "child.wf.toml").unlink()
    await announce(session, "child.wf.toml", kind=types.FileChangeType.Deleted)
    assert await caller_codes(session, uri, ["unknown_subgraph"]) == ["unknown_subgraph"]


async def test_workspace_pull_covers_every_document(session: Session) -> None:
    if not session.pulls:
        return  # a pushing client is never offered workspace pull
    (session.root / "child.wf.toml").write_text(CHILD)
    (session.root / "caller.wf.toml").write_text(CALLER)
    await announce(session, "child.wf.toml", "caller.wf.toml")
    async with asyncio.timeout(WAIT):
        while True:
            first = await session.client.workspace_diagnostic_async(
                types.WorkspaceDiagnosticParams(previous_result_ids=[])
            )
            uris = {item.uri for item in first.items}
            if {session.uri("child.wf.toml"), session.uri("caller.wf.toml")} <= uris:
                break
            await asyncio.sleep(0.1)
    by_uri = {item.uri: item for item in first.items}
    assert [d.code for d in by_uri[session.uri("caller.wf.toml")].items] == ["subgraph_binding"]
    # Once indexing has settled, a pull with the previous result ids is all "unchanged".
    report = first
    async with asyncio.timeout(WAIT):
        while True:
            previous = [
                types.PreviousResultId(uri=i.uri, value=i.result_id)
                for i in report.items
                if i.result_id is not None
            ]
            again = await session.client.workspace_diagnostic_async(
                types.WorkspaceDiagnosticParams(previous_result_ids=previous)
            )
            if {item.kind for item in again.items} == {"unchanged"}:
                break
            report = again
            await asyncio.sleep(0.1)
    assert len(again.items) == len(first.items)


async def test_indexing_reports_progress(session: Session) -> None:
    if session.preset != "visual-studio-code":
        return  # the Neovim preset does not announce window.workDoneProgress
    async with asyncio.timeout(WAIT):
        while not any(
            isinstance(report, types.WorkDoneProgressEnd)
            for reports in session.client.progress_reports.values()
            for report in reports
        ):
            await asyncio.sleep(0.05)
    [reports] = session.client.progress_reports.values()
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert reports[0].title == "wfls: indexing workflows"
