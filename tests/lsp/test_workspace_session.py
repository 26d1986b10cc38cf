"""The workspace through the protocol: documents on disk, subgraphs across files, changes.

Files are written into the session's workspace folder and announced through
``workspace/didChangeWatchedFiles``, as an editor's file watcher would. Every wait is on
an event: a push of the expected diagnostics, or a refresh request before pulling again.
"""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Iterable
from pathlib import Path

import pytest
from conftest import PULLING, WAIT, RecordingClient, Session, start_session
from lsprotocol import types
from pytest_lsp import LanguageClient

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


def codes(diagnostics: Iterable[types.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in diagnostics if d.severity == types.DiagnosticSeverity.Error)


async def announce(session: Session, *names: str, kind=types.FileChangeType.Created) -> None:
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=session.uri(name), type=kind) for name in names]
        )
    )


async def caller_codes(
    session: Session, uri: str, expected: list[str], since: int = 0
) -> list[str]:
    """The caller's error codes once they are ``expected``: for a pushed client in a push
    from the ``since``-th on, for a pulling one in a pull (again after each refresh)."""
    if session.pulls:
        found = await session.pulled_where(uri, lambda items: codes(items) == expected)
        return codes(found)
    params = await session.push_where(
        lambda p: p.uri == uri and codes(p.diagnostics) == expected, since
    )
    return codes(params.diagnostics)


def pushed_codes(session: Session, uri: str) -> list[list[str]]:
    """The error codes of every push of ``uri`` so far, in order."""
    return [codes(p.diagnostics) for p in session.pushes if p.uri == uri]


def hold_configuration(client: LanguageClient) -> asyncio.Event:
    """Hold the client's answer to ``workspace/configuration`` until the event is set.

    The server reads its settings before it indexes the workspace, so while the answer is
    held a document opened is checked with the workspace not indexed yet, every time."""
    assert isinstance(client, RecordingClient)
    release = client.configuration_answered = asyncio.Event()
    return release


def write_workspace(root: Path) -> None:
    (root / "flows").mkdir()
    (root / "flows" / "child.wf.toml").write_text(CHILD)
    (root / "caller.wf.toml").write_text(CALLER)


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
    since = len(session.pushes)
    session.replace(child, '"customers", "tag"]', '"customers"]')
    assert await caller_codes(session, uri, [], since) == []

    # Closed, the child on disk counts again; then the file changes on disk.
    since = len(session.pushes)
    session.close(child)
    assert await caller_codes(session, uri, ["subgraph_binding"], since) == ["subgraph_binding"]
    (session.root / "child.wf.toml").write_text(CHILD.replace(', "tag"]', "]"))
    since = len(session.pushes)
    await announce(session, "child.wf.toml", kind=types.FileChangeType.Changed)
    assert await caller_codes(session, uri, [], since) == []

    # Deleted: the caller's child is unknown.
    (session.root / "child.wf.toml").unlink()
    since = len(session.pushes)
    await announce(session, "child.wf.toml", kind=types.FileChangeType.Deleted)
    assert await caller_codes(session, uri, ["unknown_subgraph"], since) == ["unknown_subgraph"]
    if not session.pulls:
        # Pushed once per change of the caller's findings, never falsely unknown before
        # (a first push made before the workspace was indexed has no cross-file findings).
        pushes = pushed_codes(session, uri)
        assert pushes[pushes[0] == [] :] == [
            ["subgraph_binding"],
            [],
            ["subgraph_binding"],
            [],
            ["unknown_subgraph"],
        ]


# -- a client without workspace/diagnostic/refresh (Neovim 0.11) ---------------------------


@pytest.mark.parametrize("preset", ["neovim", "visual-studio-code"])
async def test_a_caller_opened_before_indexing_never_shows_its_child_unknown(
    bare_client: LanguageClient, request, tmp_path: Path, preset: str
) -> None:
    write_workspace(tmp_path)
    release = hold_configuration(bare_client)
    session = await start_session(bare_client, request, tmp_path, preset, "utf-8")
    assert not session.pulls  # no refresh support: diagnostics are pushed
    uri = session.open("caller.wf.toml", CALLER)
    # Checked before the workspace is indexed: its own findings only.
    first = await session.pushed(uri, 1)
    assert codes(first.diagnostics) == []
    release.set()
    # Indexed: the child is known, and the caller's binding is checked against it.
    assert await caller_codes(session, uri, ["subgraph_binding"]) == ["subgraph_binding"]
    assert pushed_codes(session, uri) == [[], ["subgraph_binding"]]


async def test_workspace_symbols_asked_before_the_scan_ends_list_every_document(
    bare_client: LanguageClient, request, tmp_path: Path
) -> None:
    """Asked while the workspace is not scanned yet (the scan waits for the settings,
    held here), the answer waits for the scan: both documents on disk are in it."""
    write_workspace(tmp_path)
    release = hold_configuration(bare_client)
    session = await start_session(bare_client, request, tmp_path, "neovim", "utf-8")
    asked = asyncio.ensure_future(
        session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))
    )
    await asyncio.sleep(0)  # sent before the settings are answered
    release.set()
    symbols = await asyncio.wait_for(asked, WAIT)
    names = {s.name for s in symbols or ()}
    assert {"child", "caller", "bill", "end"} <= names


async def test_editing_a_child_pushes_its_callers_diagnostics(
    bare_client: LanguageClient, request, tmp_path: Path
) -> None:
    write_workspace(tmp_path)
    session = await start_session(bare_client, request, tmp_path, "neovim", "utf-8")
    uri = session.open("caller.wf.toml", CALLER)
    assert await caller_codes(session, uri, ["subgraph_binding"]) == ["subgraph_binding"]
    child = session.open("flows/child.wf.toml", CHILD)
    since = len(session.pushes)
    session.replace(child, ', "tag"]', "]")
    assert await caller_codes(session, uri, [], since) == []
    since = len(session.pushes)
    session.replace(child, '"customers"]', '"customers", "tag"]')
    assert await caller_codes(session, uri, ["subgraph_binding"], since) == ["subgraph_binding"]
    # A change of the child that leaves the caller's findings as they are pushes nothing.
    session.replace(child, 'id = "end"', 'id = "done"')
    session.replace(child, 'start = "end"', 'start = "done"')
    version = session.versions[child]
    await session.pushed(child, version)
    assert pushed_codes(session, uri)[-1] == ["subgraph_binding"]
    assert not any("unknown_subgraph" in found for found in pushed_codes(session, uri))


async def test_a_child_closed_before_its_first_analysis_stays_in_the_workspace(
    bare_client: LanguageClient, request, tmp_path: Path
) -> None:
    """A preview tab: the child opened (as it is on disk) and closed at once, again and
    again. The disk's version never leaves the workspace: the caller never finds its
    child unknown, and the child's name is among the workspace's symbols."""
    write_workspace(tmp_path)
    session = await start_session(bare_client, request, tmp_path, "neovim", "utf-8")
    uri = session.open("caller.wf.toml", CALLER)
    assert await caller_codes(session, uri, ["subgraph_binding"]) == ["subgraph_binding"]
    for _ in range(5):
        child = session.open("flows/child.wf.toml", CHILD)
        session.close(child)
    since = len(session.pushes)
    session.replace(uri, 'outcomes = ["ok"]', 'outcomes = [ "ok"]')
    assert await caller_codes(session, uri, ["subgraph_binding"], since) == ["subgraph_binding"]
    symbols = await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))
    names = {s.name for s in symbols or ()}
    assert {"child", "caller"} <= names
    assert not any("unknown_subgraph" in found for found in pushed_codes(session, uri))


async def test_a_child_changed_on_disk_pushes_its_callers_diagnostics(
    bare_client: LanguageClient, request, tmp_path: Path
) -> None:
    write_workspace(tmp_path)
    session = await start_session(bare_client, request, tmp_path, "neovim", "utf-8")
    uri = session.open("caller.wf.toml", CALLER)
    assert await caller_codes(session, uri, ["subgraph_binding"]) == ["subgraph_binding"]
    (tmp_path / "flows" / "child.wf.toml").write_text(CHILD.replace(', "tag"]', "]"))
    since = len(session.pushes)
    await announce(session, "flows/child.wf.toml", kind=types.FileChangeType.Changed)
    assert await caller_codes(session, uri, [], since) == []
    (tmp_path / "flows" / "child.wf.toml").unlink()
    since = len(session.pushes)
    await announce(session, "flows/child.wf.toml", kind=types.FileChangeType.Deleted)
    assert await caller_codes(session, uri, ["unknown_subgraph"], since) == ["unknown_subgraph"]


# -- a client that pulls and takes refresh requests -----------------------------------------


async def test_a_pulling_client_is_asked_to_pull_again_when_a_child_changes(
    bare_client: LanguageClient, request, tmp_path: Path
) -> None:
    write_workspace(tmp_path)
    release = hold_configuration(bare_client)
    session = await start_session(bare_client, request, tmp_path, PULLING, "utf-8")
    assert session.pulls
    uri = session.open("caller.wf.toml", CALLER)
    # Pulled before the workspace is indexed: its own findings only.
    assert codes((await session.pull(uri)).items) == []
    release.set()
    assert await caller_codes(session, uri, ["subgraph_binding"]) == ["subgraph_binding"]
    child = session.open("flows/child.wf.toml", CHILD)
    session.replace(child, ', "tag"]', "]")
    assert await caller_codes(session, uri, []) == []
    (tmp_path / "flows" / "child.wf.toml").unlink()
    session.close(child)
    await announce(session, "flows/child.wf.toml", kind=types.FileChangeType.Deleted)
    assert await caller_codes(session, uri, ["unknown_subgraph"]) == ["unknown_subgraph"]


async def test_workspace_pull_covers_every_document(
    bare_client: LanguageClient, request, tmp_path: Path
) -> None:
    session = await start_session(bare_client, request, tmp_path, PULLING, "utf-8")
    (session.root / "child.wf.toml").write_text(CHILD)
    (session.root / "caller.wf.toml").write_text(CALLER)
    await announce(session, "child.wf.toml", "caller.wf.toml")
    caller = session.uri("caller.wf.toml")

    def settled(report: types.WorkspaceDiagnosticReport) -> bool:
        by_uri = {item.uri: item for item in report.items}
        return (
            session.uri("child.wf.toml") in by_uri
            and caller in by_uri
            and ([d.code for d in by_uri[caller].items] == ["subgraph_binding"])
        )

    # Pulled again after each refresh until both documents are indexed and checked.
    async with asyncio.timeout(WAIT):
        while True:
            session.refreshed.clear()
            first = await session.client.workspace_diagnostic_async(
                types.WorkspaceDiagnosticParams(previous_result_ids=[])
            )
            if settled(first):
                break
            await session.refreshed.wait()
    # A pull with the previous result ids reports what changed since (each report has
    # new ids), so it converges on all "unchanged" once nothing changes any more.
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
    assert len(again.items) == len(first.items)


async def test_indexing_reports_progress(session: Session) -> None:
    if session.preset != "visual-studio-code":
        return  # the Neovim preset does not announce window.workDoneProgress
    await session.until(
        lambda: any(
            isinstance(report, types.WorkDoneProgressEnd)
            for reports in session.client.progress_reports.values()
            for report in reports
        )
    )
    [reports] = session.client.progress_reports.values()
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert reports[0].title == "wfls: indexing workflows"
