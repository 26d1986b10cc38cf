"""Code actions through the protocol: quick fixes attached to their diagnostics, lazily
resolved edits, the migration source action, and the edits applied by the client."""

from __future__ import annotations

import asyncio
from typing import Any

from conftest import EXAMPLES, WAIT, Session
from lsprotocol import types

AUDIT = (EXAMPLES / "store_audit.wf.toml").read_text(encoding="utf-8")
# A non-ASCII comment before the typo, so that positions are converted in the encoding.
TEXT = AUDIT.replace("# a typo", "# é😀 a typo")


def offset(text: str, position: types.Position, encoding: str) -> int:
    """The code-point offset of ``position`` (the inverse of ``conftest.position``)."""
    start = 0
    for _ in range(position.line):
        start = text.index("\n", start) + 1
    line = text[start:].split("\n", 1)[0]
    units = 0
    for index, char in enumerate(line):
        if units >= position.character:
            return start + index
        units += (
            len(char.encode("utf-8")) if encoding == "utf-8" else len(char.encode("utf-16-le")) // 2
        )
    return start + len(line)


def apply_edit(session: Session, uri: str, edit: types.WorkspaceEdit) -> str:
    """The client's text after ``edit``, which must be one versioned edit of ``uri`` (or
    plain changes, for a client without ``documentChanges``)."""
    if edit.document_changes is not None:
        (change,) = edit.document_changes
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.uri == uri
        assert change.text_document.version == session.versions[uri]
        edits: list[Any] = list(change.edits)
    else:
        assert edit.changes is not None and list(edit.changes) == [uri]
        edits = list(edit.changes[uri])
    text = session.texts[uri]
    spans = [
        (
            offset(text, e.range.start, session.encoding),
            offset(text, e.range.end, session.encoding),
            e.new_text,
        )
        for e in edits
    ]
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


async def actions(
    session: Session, uri: str, needle: str, only: list[str] | None = None
) -> list[types.CodeAction]:
    diagnostics = await session.diagnostics(uri)
    at = session.find(uri, needle)
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=session.position(uri, at), end=session.position(uri, at)),
        context=types.CodeActionContext(
            diagnostics=[
                d
                for d in diagnostics
                if d.range.start.line <= session.position(uri, at).line <= d.range.end.line
            ],
            only=only,
        ),
    )
    async with asyncio.timeout(WAIT):
        result = await session.client.text_document_code_action_async(params)
    assert result is not None
    return [a for a in result if isinstance(a, types.CodeAction)]


async def resolved(session: Session, action: types.CodeAction) -> types.CodeAction:
    if action.edit is not None:
        return action
    assert action.data is not None  # both presets resolve ``edit`` lazily
    async with asyncio.timeout(WAIT):
        return await session.client.code_action_resolve_async(action)


async def apply(session: Session, uri: str, action: types.CodeAction) -> list[types.Diagnostic]:
    """Apply the action as the editor would and return the diagnostics afterwards."""
    action = await resolved(session, action)
    assert action.edit is not None
    new = apply_edit(session, uri, action.edit)
    session.edit(uri, 0, len(session.texts[uri]), new)
    return await session.diagnostics(uri)


async def test_a_typo_is_fixed_by_its_preferred_quick_fix(session: Session):
    uri = session.open("store_audit.wf.toml", TEXT)
    found = await actions(session, uri, "nmae")
    assert [a.title for a in found] == ["Change 'nmae' to 'name'", "Migrate convenience keys"]
    fix = found[0]
    assert fix.kind == types.CodeActionKind.QuickFix
    assert fix.is_preferred is True
    assert [d.code for d in fix.diagnostics or ()] == ["invalid_context_path"]
    assert fix.diagnostics[0].range == session.range(uri, "nmae")
    assert fix.edit is not None  # cheap: computed at once
    diagnostics = await apply(session, uri, fix)
    assert "context.foreach.regions.item.name" in session.texts[uri]
    assert "é😀 a typo" in session.texts[uri]
    assert not [d for d in diagnostics if "nmae" in d.message]
    assert [d for d in diagnostics if d.code == "foreach_context_alias_conflict"]


async def test_an_alias_conflict_is_fixed_through_resolve(session: Session):
    uri = session.open("store_audit.wf.toml", TEXT)
    found = await actions(session, uri, '"region"\n\n[[nodes]]\nid = "tally"')
    fix = next(a for a in found if a.title == "Rename alias 'region' to 'store'")
    assert fix.edit is None and fix.data is not None
    assert [d.code for d in fix.diagnostics or ()] == ["foreach_context_alias_conflict"]
    diagnostics = await apply(session, uri, fix)
    assert 'over = "context.foreach.regions.item.stores"\nas = "store"' in session.texts[uri]
    assert not [d for d in diagnostics if d.code == "foreach_context_alias_conflict"]


async def test_migrate_convenience_keys_as_a_source_action(session: Session):
    uri = session.open("store_audit.wf.toml", TEXT)
    found = await actions(session, uri, "name =", only=[types.CodeActionKind.Source])
    assert [(a.title, a.kind) for a in found] == [
        ("Migrate convenience keys", "source.migrateConvenienceKeys.wfls")
    ]
    assert found[0].diagnostics is None
    diagnostics = await apply(session, uri, found[0])
    assert '"context.foreach.stores.item.revenue" },  # a convenience key' in session.texts[uri]
    assert not [d for d in diagnostics if d.code == "deprecated_context_key"]
    left = [a.title for a in await actions(session, uri, "nmae")]
    assert left == ["Change 'nmae' to 'name'"]  # no convenience key left to migrate


async def test_only_quick_fixes_when_asked_for(session: Session):
    uri = session.open("store_audit.wf.toml", TEXT)
    found = await actions(session, uri, "loop_item", only=[types.CodeActionKind.QuickFix])
    assert [a.title for a in found] == ["Read 'context.foreach.stores.item.revenue'"]
    assert found[0].is_preferred is True
    assert [d.code for d in found[0].diagnostics or ()] == ["deprecated_context_key"]


async def test_resolving_an_action_that_has_its_edit_gives_it_back(session: Session):
    # Neovim resolves every action it applies, also those that came with their edit.
    uri = session.open("store_audit.wf.toml", TEXT)
    found = await actions(session, uri, "nmae")
    assert found[0].edit is not None
    async with asyncio.timeout(WAIT):
        back = await session.client.code_action_resolve_async(found[0])
    assert back == found[0]
