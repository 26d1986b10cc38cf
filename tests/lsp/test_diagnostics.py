"""Diagnostics through the protocol: exact ranges per encoding, pull vs push, edits."""

from __future__ import annotations

import asyncio

from conftest import PULLING, WAIT, Session, position
from lsprotocol import types

ALIAS_LINE = '{ id = "stores😀"'
TALLY_LINE = '{ id = "tally"'
REPORT_LINE = '{ id = "rapporté"'


def by_code(diagnostics: list[types.Diagnostic], code: str) -> list[types.Diagnostic]:
    return [d for d in diagnostics if d.code == code]


async def test_server_chooses_pull_or_push_from_the_client_capabilities(session: Session):
    caps = session.client.capabilities
    assert caps is not None
    # Pull support is both halves of LSP's pull model: the client pulls
    # (textDocument.diagnostic) and can be told to pull again when another document
    # changed a document's findings (workspace.diagnostics.refreshSupport). Neovim 0.11
    # declares only the first; it is pushed to, as is the VS Code preset, which declares
    # neither.
    can_pull = caps.text_document.diagnostic is not None
    can_refresh = bool(caps.workspace.diagnostics and caps.workspace.diagnostics.refresh_support)
    supports_pull = can_pull and can_refresh
    assert can_pull == session.preset.startswith("neovim")
    assert supports_pull == (session.preset == PULLING)
    server_caps = session.result.capabilities
    assert (server_caps.diagnostic_provider is not None) == supports_pull
    if supports_pull:
        assert server_caps.diagnostic_provider.workspace_diagnostics is True
    assert server_caps.position_encoding == session.encoding
    assert server_caps.text_document_sync.change == types.TextDocumentSyncKind.Incremental


async def test_diagnostics_sit_on_the_faulty_characters(session: Session, audit_text: str):
    uri = session.open("audit.wf.toml", audit_text)
    diagnostics = await session.diagnostics(uri)

    [typo] = [
        d
        for d in by_code(diagnostics, "invalid_context_path")
        if d.range == session.range(uri, "nmae", after=TALLY_LINE)
    ]
    assert "unknown segment 'nmae'" in typo.message
    assert typo.severity == types.DiagnosticSeverity.Error
    assert typo.source == "wfls"

    [inactive] = [
        d
        for d in by_code(diagnostics, "invalid_context_path")
        if d.range == session.range(uri, '"stores😀"', after=REPORT_LINE)
    ]
    assert "unknown segment 'stores😀'" in inactive.message

    [conflict] = by_code(diagnostics, "foreach_context_alias_conflict")
    assert conflict.range == session.range(uri, '"region"', after=ALIAS_LINE)
    # The outer loop's alias explains the conflict.
    [related] = conflict.related_information
    assert related.location.uri == uri
    assert related.location.range == session.range(uri, '"region"', after='{ id = "régions"')

    [deprecated] = by_code(diagnostics, "deprecated_context_key")
    assert deprecated.severity == types.DiagnosticSeverity.Hint
    assert list(deprecated.tags) == [types.DiagnosticTag.Deprecated]
    assert deprecated.range == session.range(uri, "loop_item", after=TALLY_LINE)

    [undeclared] = by_code(diagnostics, "undeclared_property")
    assert undeclared.severity == types.DiagnosticSeverity.Warning
    assert undeclared.range == session.range(uri, "east", after=TALLY_LINE)


async def test_columns_differ_between_encodings(session: Session, audit_text: str):
    """The alias conflict's line has 😀 before the range: the encodings must disagree."""
    uri = session.open("audit.wf.toml", audit_text)
    [conflict] = by_code(await session.diagnostics(uri), "foreach_context_alias_conflict")
    line = audit_text.splitlines()[conflict.range.start.line]
    code_points = line.index('"region"')
    expected = {"utf-16": code_points + 1, "utf-8": code_points + 4}[session.encoding]
    assert conflict.range.start.character == expected


async def test_pushed_diagnostics_carry_the_document_version(session: Session, audit_text: str):
    uri = session.open("audit.wf.toml", audit_text)
    if session.pulls:
        report = await session.client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=[], identifier="wfls")
        )
        [item] = report.items
        assert item.uri == uri
        assert item.version == 1
        assert item.kind == "full"
        assert by_code(list(item.items), "foreach_context_alias_conflict")
    else:
        params = await session.pushed(uri, 1)
        assert params.version == 1
        assert by_code(list(params.diagnostics), "foreach_context_alias_conflict")


async def test_incremental_change_updates_the_diagnostics(session: Session, audit_text: str):
    uri = session.open("audit.wf.toml", audit_text)
    before = await session.diagnostics(uri)
    assert any("nmae" in d.message for d in before)

    session.replace(uri, "nmae", "name")
    after = await session.diagnostics(uri)
    assert not any("nmae" in d.message for d in after)
    assert len(after) == len(before) - 1

    # An edit after non-ASCII characters on the same line lands where the client meant it.
    session.replace(uri, '"region" }', '"store" }')
    third = await session.diagnostics(uri)
    assert by_code(third, "foreach_context_alias_conflict") == []
    assert session.texts[uri].count('as = "store"') == 1


# Each change in the positions of the text the ones before it made: after a 😀 just
# written (two UTF-16 units), after the 😀 of "stores😀", then a line before everything,
# which moves the last change's line down.
SEVERAL_CHANGES = (
    (lambda text: text.index("nmae"), 4, "n😀me"),
    (lambda text: text.index("n😀me") + 2, 0, "x"),
    (lambda text: text.index("item.id'") + 5, 2, "idd"),
    (lambda text: 0, 0, "# edited\n"),
    (lambda text: text.index("item.revenue'") + 5, 7, "revenu"),
)


def _as_shown(diagnostics: list[types.Diagnostic]) -> list[tuple[object, ...]]:
    return sorted(
        (
            (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character),
            d.code,
            d.message,
            d.severity,
            [(r.location.range.start, r.location.range.end) for r in d.related_information or ()],
        )
        for d in diagnostics
    )


async def test_several_changes_in_one_notification_give_a_fresh_documents_diagnostics(
    session: Session, audit_text: str
):
    """One ``didChange`` with several ranges: the diagnostics of the version it makes are
    those of its text opened afresh."""
    uri = session.open("audit.wf.toml", audit_text)
    await session.diagnostics(uri)
    text, changes = audit_text, []
    for where, length, new_text in SEVERAL_CHANGES:
        start = where(text)
        end = start + length
        changes.append(
            types.TextDocumentContentChangePartial(
                range=types.Range(
                    start=position(text, start, session.encoding),
                    end=position(text, end, session.encoding),
                ),
                text=new_text,
            )
        )
        text = text[:start] + new_text + text[end:]
    session.texts[uri], session.versions[uri] = text, 2
    session.client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=changes,
        )
    )
    edited = await session.diagnostics(uri)
    session.close(uri)
    fresh_uri = session.open("fresh.wf.toml", text)
    fresh = await session.diagnostics(fresh_uri)
    assert _as_shown(edited) == _as_shown(fresh)
    # What the changes wrote is found where they wrote it.
    for code, written, needle in (
        ("invalid_model", "n😀xme", """'context.foreach."régions".item.n😀xme'"""),
        ("invalid_context_path", "idd", "idd"),
    ):
        [found] = [d for d in by_code(fresh, code) if written in d.message]
        assert found.range == session.range(fresh_uri, needle)
    assert any("'context.foreach.\"stores😀\".item.revenu'" in d.message for d in fresh)


async def test_pull_answers_unchanged_for_the_same_version(session: Session, audit_text: str):
    uri = session.open("audit.wf.toml", audit_text)
    if not session.pulls:
        params = await session.pushed(uri, 1)
        assert params.diagnostics
        return
    session.refreshed.clear()
    first = await session.pull(uri)
    async with asyncio.timeout(WAIT):
        while True:
            again = await session.client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    identifier="wfls",
                    previous_result_id=first.result_id,
                )
            )
            if again.kind == "unchanged":
                break
            # Pulled before the workspace was indexed: the document is checked again for
            # its cross-file findings, under a new result id, and the client is told.
            assert session.refreshed.is_set()
            first = again
    assert again.result_id == first.result_id


async def test_close_clears_pushed_diagnostics(session: Session, audit_text: str):
    uri = session.open("audit.wf.toml", audit_text)
    assert await session.diagnostics(uri)
    session.close(uri)
    if session.pulls:
        # A closed document is no longer analysed: pulling it gives nothing.
        assert list((await session.pull(uri)).items) == []
    else:
        cleared = await session.pushed(uri, None)
        assert list(cleared.diagnostics) == []


async def test_syntax_error_leaves_the_other_diagnostics(session: Session, audit_text: str):
    uri = session.open("audit.wf.toml", audit_text)
    before = {d.code for d in await session.diagnostics(uri)}

    start = session.find(uri, "[state_schema]")
    session.edit(uri, start, start, "this is = = not toml\n")
    after = await session.diagnostics(uri)

    codes = {d.code for d in after}
    assert "syntax_error" in codes
    assert before <= codes
    [syntax] = by_code(after, "syntax_error")
    assert syntax.range.start.line == session.position(uri, start).line


async def test_only_workflow_documents_are_analysed(session: Session, audit_text: str):
    other = session.open("audit.toml", audit_text)
    uri = session.open("audit.wf.toml", audit_text, language_id="plaintext")
    assert await session.diagnostics(uri)
    if session.pulls:
        assert list((await session.pull(other)).items) == []
    else:
        assert all(p.uri != other for p in session.pushes)


async def test_json_documents_are_checked(session: Session):
    text = (
        '{"name": "j", "start": "a", "outcomes": ["ok"],\n'
        ' "edges": [{"from": "a", "outcome": "ok", "to": "__end__"}],\n'
        ' "nodes": [{"id": "a", "type": "end", "outcome": "ok"}],\n'
        ' "output": [{"target": "é😀", "path": "state.nöpe"}]}\n'
    )
    uri = session.open("j.wf.json", text, language_id="json")
    diagnostics = await session.diagnostics(uri)
    assert diagnostics
    assert all(d.source == "wfls" for d in diagnostics)
    assert all(d.code for d in diagnostics)
