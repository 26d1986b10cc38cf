"""``textDocument/documentSymbol``: the outline, as a tree when the client takes one."""

from __future__ import annotations

from lsprotocol import types

from wfls import convert
from wfls.context import RequestContext, TestRequestContext


def empty(params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    return []


def handle(
    ctx: RequestContext, params: types.DocumentSymbolParams
) -> convert.PlainJson | list[types.SymbolInformation]:
    from wfls.features.symbols import document_symbols

    symbols = document_symbols(ctx.view)
    if ctx.flags.hierarchical_symbols:
        return convert.document_symbols_json(symbols, ctx.codec)
    return convert.symbol_information(symbols, ctx.uri, ctx.codec)


def handle_test(
    ctx: TestRequestContext, params: types.DocumentSymbolParams
) -> convert.PlainJson | list[types.SymbolInformation]:
    """A workflow test document's outline: its cases, with their pins and answers."""
    from wfls.features.test_documents import outline

    symbols = outline(ctx.view.loaded)
    if ctx.flags.hierarchical_symbols:
        return convert.document_symbols_json(symbols, ctx.codec)
    return convert.symbol_information(symbols, ctx.uri, ctx.codec)
