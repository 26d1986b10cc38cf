"""``textDocument/semanticTokens/range``: the tokens touching a range (what is on screen)."""

from __future__ import annotations

from lsprotocol import types

from wf_core.base.spans import Span
from wfls import convert
from wfls.context import RequestContext


def empty(params: types.SemanticTokensRangeParams) -> types.SemanticTokens:
    return types.SemanticTokens(data=[])


def handle(ctx: RequestContext, params: types.SemanticTokensRangeParams) -> types.SemanticTokens:
    from wfls.features.semantic_tokens import semantic_tokens

    start, end = ctx.offset(params.range.start), ctx.offset(params.range.end)
    span = Span(min(start, end), max(start, end))
    tokens = semantic_tokens(ctx.view, span)
    return types.SemanticTokens(data=convert.semantic_tokens_data(tokens, ctx.codec, ctx.flags))
