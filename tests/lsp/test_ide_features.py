"""Semantic tokens, inlay hints, symbols, folding and selection through the protocol.

Each test runs as VS Code and as Neovim, in UTF-16 and UTF-8 (``conftest``). The
document is billing.wf.toml with a binding target written in non-ASCII
characters (``é😀``) before a path on the same line, so that columns prove the
negotiated encoding; expected positions are computed by the test's own client.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from conftest import WAIT, Session, start_session
from lsprotocol import types
from pytest_lsp import LanguageClient

from wf_core.base.spans import LineIndex
from wf_core.version.snapshot import analyze_text
from wfls.capabilities import ClientFlags
from wfls.context import RequestContext
from wfls.convert import PositionCodec
from wfls.handlers import document_symbol
from wfls.settings import Settings

CHARGE_INPUT = '  { target = "customer", path = "context.foreach.customers.item.name" },\n'
WIDE_INPUT = '  { target = "é😀", path = "context.foreach.customers.item.name" },\n'


@pytest.fixture
def billing(billing_text: str) -> str:
    assert CHARGE_INPUT in billing_text
    return billing_text.replace(CHARGE_INPUT, WIDE_INPUT)


async def send(session: Session, method: str, params: Any) -> Any:
    async with asyncio.timeout(WAIT):
        return await session.client.protocol.send_request_async(method, params)


def document(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def decode(session: Session, data: list[int]) -> list[tuple[int, int, int, str, tuple[str, ...]]]:
    """(line, start, length, type, modifiers) of relative-encoded tokens, by the legend."""
    provider = session.result.capabilities.semantic_tokens_provider
    assert isinstance(
        provider, types.SemanticTokensOptions | types.SemanticTokensRegistrationOptions
    )
    legend = provider.legend
    out = []
    line = start = 0
    for i in range(0, len(data), 5):
        delta_line, delta_start, length, kind, bits = data[i : i + 5]
        line += delta_line
        start = start + delta_start if delta_line == 0 else delta_start
        modifiers = tuple(m for j, m in enumerate(legend.token_modifiers) if bits & (1 << j))
        out.append((line, start, length, legend.token_types[kind], modifiers))
    return out


def token_at(session: Session, uri: str, needle: str, after: str) -> tuple[int, int, int]:
    where = session.range(uri, needle, after=after)
    return where.start.line, where.start.character, where.end.character - where.start.character


async def test_semantic_tokens_full_range_and_delta(session: Session, billing: str):
    uri = session.open("billing.wf.toml", billing)
    provider = session.result.capabilities.semantic_tokens_provider
    assert isinstance(provider, types.SemanticTokensOptions)
    assert provider.range is True
    assert provider.full == types.SemanticTokensFullDelta(delta=True)
    assert "namespace" in provider.legend.token_types

    full = await send(
        session, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, types.SemanticTokensParams(document(uri))
    )
    tokens = {t[:3]: t[3:] for t in decode(session, full.data)}
    wide = '"é😀", path = "'
    assert tokens[token_at(session, uri, "context", wide)] == ("variable", ("defaultLibrary",))
    assert tokens[token_at(session, uri, "foreach", wide)] == ("keyword", ())
    assert tokens[token_at(session, uri, "customers", wide)] == ("namespace", ())
    assert tokens[token_at(session, uri, "item", wide)] == ("property", ("defaultLibrary",))
    assert tokens[token_at(session, uri, "name", wide)] == ("property", ())
    assert tokens[token_at(session, uri, "é😀", "{ target = ")] == ("unresolvedReference", ())
    assert tokens[token_at(session, uri, "charge", 'id = "')] == ("function", ("declaration",))
    assert tokens[token_at(session, uri, "orders.v2", 'id = "')] == (
        "namespace",
        ("declaration",),
    )

    # Only the asked lines, with positions relative to the document's start.
    line = session.range(uri, "é😀", after="{ target = ").start.line
    ranged = await send(
        session,
        types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE,
        types.SemanticTokensRangeParams(
            document(uri),
            types.Range(
                start=types.Position(line=line, character=0),
                end=types.Position(line=line + 1, character=0),
            ),
        ),
    )
    in_range = decode(session, ranged.data)
    assert in_range == [t for t in decode(session, full.data) if t[0] == line]
    assert len(in_range) == 6

    # An edit, then the edits from the previous result rebuild the new full result.
    session.replace(uri, "item.name", "item.nam")
    delta = await send(
        session,
        types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA,
        types.SemanticTokensDeltaParams(document(uri), previous_result_id=full.result_id),
    )
    assert isinstance(delta, types.SemanticTokensDelta)
    assert delta.result_id not in (None, full.result_id)
    data = list(full.data)
    for edit in sorted(delta.edits, key=lambda e: e.start, reverse=True):
        data[edit.start : edit.start + edit.delete_count] = edit.data or []
    again = await send(
        session, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, types.SemanticTokensParams(document(uri))
    )
    assert data == list(again.data)
    renamed = {t[:3]: t[3:] for t in decode(session, data)}
    assert renamed[token_at(session, uri, "nam", wide)] == ("unresolvedReference", ())

    # A result id the server no longer has gets a full answer.
    stale = await send(
        session,
        types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA,
        types.SemanticTokensDeltaParams(document(uri), previous_result_id="stale"),
    )
    assert isinstance(stale, types.SemanticTokens) and list(stale.data) == data


async def test_inlay_hints_in_the_requested_range(session: Session, billing: str):
    uri = session.open("billing.wf.toml", billing)
    lines = billing.count("\n")
    hints = await send(
        session,
        types.TEXT_DOCUMENT_INLAY_HINT,
        types.InlayHintParams(
            document(uri),
            types.Range(
                start=types.Position(line=0, character=0),
                end=types.Position(line=lines, character=0),
            ),
        ),
    )
    shown = {(h.position.line, h.position.character): h.label for h in hints}
    over = session.range(uri, '"input.customers"')
    assert shown[(over.end.line, over.end.character)] == ": object"
    name = session.range(uri, '"context.foreach.customers.item.name"')
    assert shown[(name.end.line, name.end.character)] == ": string"
    assert all(h.kind == types.InlayHintKind.Type for h in hints)
    assert len(hints) == 5  # two loops, two bindings, the workflow output; no owner stacks

    only = await send(
        session,
        types.TEXT_DOCUMENT_INLAY_HINT,
        types.InlayHintParams(
            document(uri),
            types.Range(
                start=types.Position(line=name.start.line, character=0),
                end=types.Position(line=name.start.line + 1, character=0),
            ),
        ),
    )
    assert [h.label for h in only] == [": string"]


async def test_owner_stack_hints_when_the_settings_ask(
    bare_client: LanguageClient, request, tmp_path, billing: str
):
    session = await start_session(
        bare_client,
        request,
        tmp_path,
        "neovim",
        "utf-8",
        initialization_options={"inlayHints": {"ownerStacks": True, "pathTypes": False}},
    )
    uri = session.open("billing.wf.toml", billing)
    hints = await send(
        session,
        types.TEXT_DOCUMENT_INLAY_HINT,
        types.InlayHintParams(
            document(uri),
            types.Range(
                start=types.Position(line=0, character=0),
                end=types.Position(line=billing.count("\n"), character=0),
            ),
        ),
    )
    charge = session.range(uri, '"charge"', after="id = ")
    stacks = {h.label: h for h in hints if h.kind is None}
    assert set(stacks) == {"customers", "customers > orders.v2"}
    assert stacks["customers > orders.v2"].position == charge.end
    assert stacks["customers > orders.v2"].padding_left is True
    assert sorted(h.label for h in hints if h.kind == types.InlayHintKind.Type) == [
        ": object",
        ": object",
    ]
    assert bare_client.messages == []


async def test_document_symbols_outline_the_loops(session: Session, billing: str):
    uri = session.open("billing.wf.toml", billing)
    symbols = await send(
        session, types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, types.DocumentSymbolParams(document(uri))
    )
    assert all(isinstance(s, types.DocumentSymbol) for s in symbols)
    top = {s.name: s for s in symbols}
    assert list(top) == [
        "input_schema",
        "state_schema",
        "output_schema",
        "charge_order",
        "customers",
    ]
    customers = top["customers"]
    assert customers.kind == types.SymbolKind.Namespace
    assert customers.detail == "foreach over input.customers"
    [orders] = customers.children or []
    [charge] = orders.children or []
    assert (orders.name, charge.name, charge.kind) == (
        "orders.v2",
        "charge",
        types.SymbolKind.Function,
    )
    assert charge.selection_range == session.range(uri, "charge", after="id = ")
    assert [c.name for c in top["input_schema"].children or []] == ["customers"]
    assert [c.name for c in top["charge_order"].children or []] == [
        "ok",
        "input_schema",
        "output_schema",
    ]


async def test_workspace_symbols_across_open_documents(
    session: Session, billing: str, audit_text: str
):
    billing_uri = session.open("billing.wf.toml", billing)
    audit_uri = session.open("audit.wf.toml", audit_text)
    found = await send(session, types.WORKSPACE_SYMBOL, types.WorkspaceSymbolParams(query="ORD"))
    names = {(s.name, s.location.uri) for s in found}
    assert ("orders.v2", billing_uri) in names
    assert ("charge_order", billing_uri) in names
    assert {uri for _, uri in names} <= {billing_uri, audit_uri}
    charge = next(s for s in found if s.name == "charge_order")
    assert charge.kind == types.SymbolKind.Class and charge.container_name == "billing"
    assert charge.location.range == session.range(billing_uri, "charge_order", after='name = "')
    everything = await send(session, types.WORKSPACE_SYMBOL, types.WorkspaceSymbolParams(query=""))
    assert {s.location.uri for s in everything} == {billing_uri, audit_uri}


async def test_folding_ranges_by_line(session: Session, billing: str):
    uri = session.open("billing.wf.toml", billing)
    folds = await send(
        session, types.TEXT_DOCUMENT_FOLDING_RANGE, types.FoldingRangeParams(document(uri))
    )
    by_start = {f.start_line: f for f in folds}
    edges = session.range(uri, "edges = [").start.line
    assert by_start[edges].end_line == session.range(uri, "]", after="__end__").start.line - 1
    charge = session.range(uri, "[[nodes]]", after='id = "orders.v2"').start.line
    assert by_start[charge].end_line == billing.rstrip("\n").count("\n")
    assert all(f.start_character is None for f in folds)  # both presets fold by line only


async def test_selection_ranges_grow_from_a_path_segment(session: Session, billing: str):
    uri = session.open("billing.wf.toml", billing)
    inside = session.find(uri, "orders.v2", after="'context.foreach.") + 2
    [selection] = await send(
        session,
        types.TEXT_DOCUMENT_SELECTION_RANGE,
        types.SelectionRangeParams(document(uri), [session.position(uri, inside)]),
    )
    chain = []
    current = selection
    while current is not None:
        chain.append(current.range)
        current = current.parent
    path = 'context.foreach."orders.v2".item'
    assert chain[0] == session.range(uri, '"orders.v2"', after="'context.foreach.")
    assert chain[1] == session.range(uri, path)
    assert chain[2] == session.range(uri, f"'{path}'")
    assert chain[3] == session.range(uri, f"path = '{path}'")
    last = billing.rstrip("\n").count("\n")
    assert chain[-1].start == types.Position(line=0, character=0)
    assert chain[-1].end.line >= last


def test_clients_without_hierarchical_symbols_get_a_flat_list(billing: str):
    snapshot = analyze_text(billing, "toml")
    ctx = RequestContext(
        "file:///b.wf.toml",
        snapshot,
        PositionCodec(LineIndex(billing), "utf-16"),
        ClientFlags(hierarchical_symbols=False),
        Settings(),
        None,  # type: ignore[arg-type]
    )
    flat = document_symbol.handle(ctx, types.DocumentSymbolParams(document(ctx.uri)))
    assert all(isinstance(s, types.SymbolInformation) for s in flat)
    containers = {s.name: s.container_name for s in flat}
    assert containers["charge"] == "orders.v2"
    assert containers["orders.v2"] == "customers"
    assert containers["customers"] is None


async def test_changed_hint_settings_ask_the_client_to_refresh_its_hints(
    bare_client: LanguageClient, request, tmp_path, billing: str
):
    refreshed = asyncio.Event()

    @bare_client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def refresh(params: None) -> None:
        refreshed.set()

    bare_client.set_configuration({"inlayHints": {"ownerStacks": False}}, section="wfls")
    session = await start_session(bare_client, request, tmp_path, "neovim", "utf-8")
    session.open("billing.wf.toml", billing)
    bare_client.set_configuration({"inlayHints": {"ownerStacks": True}}, section="wfls")
    bare_client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    async with asyncio.timeout(WAIT):
        await refreshed.wait()


async def test_inline_values_are_the_stopped_nodes_reads(session: Session, billing: str):
    uri = session.open("billing.wf.toml", billing)
    stopped = session.range(uri, 'id = "charge"').start  # where wfls debug stops
    values = await send(
        session,
        types.TEXT_DOCUMENT_INLINE_VALUE,
        types.InlineValueParams(
            text_document=document(uri),
            range=types.Range(
                start=types.Position(line=0, character=0),
                end=types.Position(line=billing.count("\n"), character=0),
            ),
            context=types.InlineValueContext(
                frame_id=1, stopped_location=types.Range(start=stopped, end=stopped)
            ),
        ),
    )
    order = 'context.foreach."orders.v2".item'
    name = "context.foreach.customers.item.name"
    assert [(v.expression, v.range) for v in values] == [
        (order, session.range(uri, order)),
        (name, session.range(uri, name)),
    ]
