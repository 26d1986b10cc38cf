"""``textDocument/semanticTokens/full/delta``: the edits from the client's last result."""

from __future__ import annotations

from lsprotocol import types

from wfls import convert
from wfls.context import RequestContext
from wfls.handlers import semantic_tokens_full as full


def empty(params: types.SemanticTokensDeltaParams) -> types.SemanticTokens:
    return types.SemanticTokens(data=[])


def handle(
    ctx: RequestContext, params: types.SemanticTokensDeltaParams
) -> types.SemanticTokens | types.SemanticTokensDelta:
    data = full.compute(ctx)
    before = full.previous(ctx.uri, params.previous_result_id)
    result_id = full.remember(ctx.uri, data)
    if before is None:
        return types.SemanticTokens(data=data, result_id=result_id)
    return types.SemanticTokensDelta(
        edits=convert.semantic_tokens_edits(before, data), result_id=result_id
    )
